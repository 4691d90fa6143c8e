//! What an endpoint answers: a JSON value, an NDJSON stream, or an error in
//! Lichess's shape (`{"error": …}`, with the gRPC reason beside it), its
//! HTTP status from the gRPC code.

use std::{
    convert::Infallible,
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body::Frame;
use http_body_util::Full;
use serde_json::{Value, json};
use tokio_stream::{Stream, StreamExt};
use tonic::{Code, Status, body::Body};
use tonic_types::StatusExt;

use super::KEEP_ALIVE;

/// Marks an answer that refused a credential, so that the server's limit
/// on failed credential checks counts it as a gRPC UNAUTHENTICATED.
#[derive(Clone, Copy, Debug)]
pub struct CredentialRefused;

/// The lines of an NDJSON stream; it ends when they do.
pub(super) type Lines = Pin<Box<dyn Stream<Item = Value> + Send>>;

/// The pieces of a streamed text (NDJSON lines with their line ends, or
/// PGNs with their blank lines).
pub(super) type Texts = Pin<Box<dyn Stream<Item = String> + Send>>;

pub(super) enum Answer {
    Json {
        status: StatusCode,
        value: Value,
        retry_after_s: Option<u64>,
        refused_credential: bool,
    },
    Stream(Lines),
    /// A PGN.
    Pgn(String),
    /// A text streamed as it is written.
    Texts {
        texts: Texts,
        content_type: &'static str,
    },
}

impl Answer {
    pub fn json(value: Value) -> Answer {
        Answer::Json {
            status: StatusCode::OK,
            value,
            retry_after_s: None,
            refused_credential: false,
        }
    }

    /// `{"ok": true}`, Lichess's answer to an action.
    pub fn ok() -> Answer {
        Answer::json(json!({ "ok": true }))
    }

    pub fn error(status: StatusCode, message: impl Into<String>) -> Answer {
        Answer::Json {
            status,
            value: json!({ "error": message.into() }),
            retry_after_s: None,
            refused_credential: false,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Answer {
        Answer::error(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> Answer {
        Answer::error(StatusCode::NOT_FOUND, message)
    }

    /// 429 `RATE_LIMITED`, to retry after `retry_after`.
    pub fn too_many_requests(retry_after: std::time::Duration, message: String) -> Answer {
        Answer::Json {
            status: StatusCode::TOO_MANY_REQUESTS,
            value: json!({ "error": message, "reason": "RATE_LIMITED" }),
            retry_after_s: Some(retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0)),
            refused_credential: false,
        }
    }

    /// A token that names no player (or a call without one).
    pub fn no_such_token() -> Answer {
        Answer::from(Status::unauthenticated("No such token"))
    }

    /// Marks the answer as refusing a credential.
    pub fn refusing_credential(self) -> Answer {
        match self {
            Answer::Json {
                status,
                value,
                retry_after_s,
                ..
            } => Answer::Json {
                status,
                value,
                retry_after_s,
                refused_credential: true,
            },
            other => other,
        }
    }

    pub fn into_response(self) -> Response<Body> {
        match self {
            Answer::Json {
                status,
                value,
                retry_after_s,
                refused_credential,
            } => {
                let mut response =
                    Response::new(Body::new(Full::new(Bytes::from(value.to_string()))));
                *response.status_mut() = status;
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                if let Some(seconds) = retry_after_s {
                    response
                        .headers_mut()
                        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                }
                if refused_credential {
                    response.extensions_mut().insert(CredentialRefused);
                }
                response
            }
            Answer::Pgn(pgn) => {
                let mut response = Response::new(Body::new(Full::new(Bytes::from(pgn))));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/x-chess-pgn"),
                );
                response
            }
            Answer::Stream(lines) => {
                let chunks = lines.map(|value| {
                    let mut line = value.to_string().into_bytes();
                    line.push(b'\n');
                    Bytes::from(line)
                });
                streamed(Box::pin(chunks), "application/x-ndjson")
            }
            Answer::Texts {
                texts,
                content_type,
            } => streamed(Box::pin(texts.map(Bytes::from)), content_type),
        }
    }
}

impl From<Status> for Answer {
    fn from(status: Status) -> Answer {
        let http = match status.code() {
            Code::InvalidArgument
            | Code::FailedPrecondition
            | Code::OutOfRange
            | Code::AlreadyExists
            | Code::Aborted => StatusCode::BAD_REQUEST,
            Code::Unauthenticated => StatusCode::UNAUTHORIZED,
            Code::PermissionDenied => StatusCode::FORBIDDEN,
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
            Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let details = status.get_error_details();
        let mut value = json!({ "error": status.message() });
        let mut http = http;
        if let Some(info) = details.error_info() {
            // A move out of turn is a bad request on Lichess, not a
            // forbidden one.
            if info.reason == "NOT_YOUR_TURN" {
                http = StatusCode::BAD_REQUEST;
            }
            value["reason"] = Value::from(info.reason.clone());
        }
        let retry_after_s = details
            .retry_info()
            .and_then(|retry| retry.retry_delay)
            .map(|delay| delay.as_secs() + u64::from(delay.subsec_nanos() > 0));
        Answer::Json {
            status: http,
            value,
            retry_after_s,
            refused_credential: status.code() == Code::Unauthenticated,
        }
    }
}

/// A refusal of the server's request layers (a gRPC trailers-only answer:
/// too many requests in flight, failed credential checks) in Lichess's
/// shape; any other answer as it is.
pub fn from_refusal(response: Response<Body>) -> Response<Body> {
    match Status::from_header_map(response.headers()) {
        Some(status) if status.code() != Code::Ok => Answer::from(status).into_response(),
        _ => response,
    }
}

/// A streamed answer of `content_type`.
fn streamed(chunks: Chunks, content_type: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::new(Streamed {
        chunks,
        keep_alive: tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
    }));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

type Chunks = Pin<Box<dyn Stream<Item = Bytes> + Send>>;

/// A streamed body: its chunks, and an empty line after each
/// [`KEEP_ALIVE`] without one (NDJSON readers skip it, and PGN readers
/// take it for the space between games).
struct Streamed {
    chunks: Chunks,
    keep_alive: tokio::time::Interval,
}

impl http_body::Body for Streamed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.chunks.as_mut().poll_next(cx) {
            Poll::Ready(Some(chunk)) => {
                self.keep_alive.reset();
                Poll::Ready(Some(Ok(Frame::data(chunk))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match self.keep_alive.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"\n"))))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}
