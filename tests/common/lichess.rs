//! A small HTTP/1.1 client for the Lichess API: JSON calls and NDJSON
//! streams read line by line.

use std::{net::SocketAddr, time::Duration};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, StatusCode, body::Incoming};
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// How long a stream's next line may take.
const LINE_WITHIN: Duration = Duration::from_secs(10);

/// The Lichess API of the server at `addr`, called with `token`.
#[derive(Clone, Debug)]
pub struct Lichess {
    pub addr: SocketAddr,
    pub token: Option<String>,
}

impl Lichess {
    pub fn new(addr: SocketAddr, token: &str) -> Lichess {
        Lichess {
            addr,
            token: Some(token.to_owned()),
        }
    }

    pub fn anonymous(addr: SocketAddr) -> Lichess {
        Lichess { addr, token: None }
    }

    async fn send(
        &self,
        method: &str,
        path: &str,
        form: &str,
        accept: &str,
    ) -> hyper::Response<Incoming> {
        let stream = tokio::net::TcpStream::connect(self.addr)
            .await
            .expect("connect");
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "localhost")
            .header("accept", accept)
            .header("content-type", "application/x-www-form-urlencoded");
        if let Some(token) = &self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let request = request
            .body(Full::new(Bytes::from(form.to_owned())))
            .expect("request");
        sender.send_request(request).await.expect("answer")
    }

    /// A whole answer: its status and body.
    async fn read(
        &self,
        method: &str,
        path: &str,
        form: &str,
        accept: &str,
    ) -> (StatusCode, Bytes) {
        let response = self.send(method, path, form, accept).await;
        let status = response.status();
        let body = response.into_body().collect().await.expect("body");
        (status, body.to_bytes())
    }

    /// A call answered with JSON: its status and value.
    pub async fn call(&self, method: &str, path: &str, form: &str) -> (StatusCode, Value) {
        let (status, body) = self.read(method, path, form, "application/json").await;
        let value = serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {body:?}"));
        (status, value)
    }

    /// A GET answered with text of the type `accept` names (PGN, NDJSON).
    pub async fn get_text(&self, path: &str, accept: &str) -> (StatusCode, String) {
        let (status, body) = self.read("GET", path, "", accept).await;
        (status, String::from_utf8(body.to_vec()).expect("UTF-8"))
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call("GET", path, "").await
    }

    pub async fn post(&self, path: &str, form: &str) -> (StatusCode, Value) {
        self.call("POST", path, form).await
    }

    /// Opens the NDJSON stream at `path`.
    pub async fn stream(&self, path: &str) -> Lines {
        self.open("GET", path, "").await
    }

    /// Opens the stream a POST of `form` to `path` answers.
    pub async fn stream_post(&self, path: &str, form: &str) -> Lines {
        self.open("POST", path, form).await
    }

    async fn open(&self, method: &str, path: &str, form: &str) -> Lines {
        let response = self.send(method, path, form, "application/x-ndjson").await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        Lines {
            body: response.into_body(),
            pending: Vec::new(),
            keep_alives: 0,
        }
    }
}

/// An NDJSON stream's lines.
pub struct Lines {
    body: Incoming,
    pending: Vec<u8>,
    /// Empty lines read so far.
    pub keep_alives: usize,
}

impl Lines {
    /// The next line that is not a keep-alive; None once the stream ends.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                if line.len() == 1 {
                    self.keep_alives += 1;
                    continue;
                }
                return Some(serde_json::from_slice(&line).expect("a JSON line"));
            }
            let frame = tokio::time::timeout(LINE_WITHIN, self.body.frame())
                .await
                .expect("a line in time");
            match frame {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.pending.extend_from_slice(&data);
                    }
                }
                _ => return None,
            }
        }
    }

    /// The next line of type `kind`, skipping others.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let line = self
                .next()
                .await
                .unwrap_or_else(|| panic!("the stream ended before a {kind}"));
            if line["type"] == kind {
                return line;
            }
        }
    }
}
