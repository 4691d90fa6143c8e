//! The web app built into the binary, over HTTP/1.1 on the API's port: the
//! page, its assets with their media types and caching, 404 for the rest,
//! HEAD and revalidation, the headers that keep its pages to themselves,
//! grpc-web's CORS origins, and `--no-web`. (grpc-web beside the page:
//! `api_service`, whose servers serve the page too.)

use crate::common;

use std::{net::SocketAddr, path::PathBuf};

use common::{TestServer, binary::Serve, http1_post, start_legal_moves_frame};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// An HTTP answer: status, headers (names lower-cased) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// `method path` over plain HTTP/1.1 with `headers`, on a connection of its
/// own.
async fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    Answer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

async fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, &[]).await
}

/// The built web app, as committed.
fn dist() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("web/dist")
}

#[tokio::test]
async fn the_root_is_the_page_and_is_revalidated() {
    let server = TestServer::start().await;
    let page = get(server.addr, "/").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    assert_eq!(page.body, std::fs::read(dist().join("index.html")).unwrap());
    assert_eq!(get(server.addr, "/index.html").await.body, page.body);

    let etag = page.header("etag").expect("an entity tag");
    let again = request(server.addr, "GET", "/", &[("If-None-Match", etag)]).await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let changed = request(server.addr, "GET", "/", &[("If-None-Match", "\"other\"")]).await;
    assert_eq!(changed.status, 200);
}

#[tokio::test]
async fn assets_have_their_media_type_and_are_cached_for_good() {
    let server = TestServer::start().await;
    let assets: Vec<_> = std::fs::read_dir(dist().join("assets"))
        .expect("the built app has assets")
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(!assets.is_empty());
    for name in assets {
        let asset = get(server.addr, &format!("/assets/{name}")).await;
        assert_eq!(asset.status, 200, "{name}");
        let expected = match name.rsplit_once('.').map(|(_, extension)| extension) {
            Some("js") => "text/javascript; charset=utf-8",
            Some("css") => "text/css; charset=utf-8",
            Some("svg") => "image/svg+xml",
            _ => asset.header("content-type").unwrap(),
        };
        assert_eq!(asset.header("content-type"), Some(expected), "{name}");
        assert_eq!(
            asset.header("cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{name}"
        );
        assert_eq!(asset.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(
            asset.body,
            std::fs::read(dist().join("assets").join(&name)).unwrap()
        );
    }
}

#[tokio::test]
async fn a_path_that_names_no_file_is_not_found() {
    let server = TestServer::start().await;
    for path in [
        "/no-such-page",
        "/assets/",
        "/assets/../index.html",
        "/arbiter.v1.Games/GetGame",
    ] {
        let answer = get(server.addr, path).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(
            answer.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
    }
    let head = request(server.addr, "HEAD", "/no-such-page", &[]).await;
    assert_eq!(head.status, 404);
    assert!(head.body.is_empty());
}

#[tokio::test]
async fn head_answers_the_headers_of_get_without_the_body() {
    let server = TestServer::start().await;
    let page = get(server.addr, "/").await;
    let head = request(server.addr, "HEAD", "/", &[]).await;
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for name in ["content-type", "cache-control", "etag"] {
        assert_eq!(head.header(name), page.header(name), "{name}");
    }
    assert_eq!(
        head.header("content-length"),
        Some(page.body.len().to_string().as_str())
    );
}

#[tokio::test]
async fn no_web_leaves_the_port_to_the_api() {
    let flag = Serve::fresh().args(["--no-web"]).start().await;
    let variable = Serve::fresh().env("ARBITER_NO_WEB", "1").start().await;
    for server in [&flag, &variable] {
        let answer = get(server.addr, "/").await;
        assert_ne!(answer.status, 200);
        assert_ne!(
            answer.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        let call = http1_post(
            server.addr,
            "/arbiter.v1.Rules/LegalMoves",
            "application/grpc-web+proto",
            &start_legal_moves_frame(),
        )
        .await;
        assert!(call.contains("g1f3"), "{call}");
    }
    let served = Serve::fresh().env("ARBITER_NO_WEB", "false").start().await;
    assert_eq!(get(served.addr, "/").await.status, 200);
}

#[tokio::test]
async fn pages_forbid_framing_inline_code_and_other_origins() {
    let server = TestServer::start().await;
    for path in ["/", "/no-such-page"] {
        let answer = get(server.addr, path).await;
        let policy = answer
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{path}: no Content-Security-Policy"));
        let directives: Vec<&str> = policy.split(';').map(str::trim).collect();
        for directive in [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(directives.contains(&directive), "{path}: {policy}");
        }
        assert!(!policy.contains("unsafe"), "{policy}");
        assert_eq!(answer.header("x-frame-options"), Some("DENY"));
        assert_eq!(answer.header("referrer-policy"), Some("no-referrer"));
    }
}

/// The origin a grpc-web preflight from a page of `origin` is allowed, if
/// any.
async fn preflight(addr: SocketAddr, origin: &str) -> Option<String> {
    let answer = request(
        addr,
        "OPTIONS",
        "/arbiter.v1.Rules/LegalMoves",
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type,x-grpc-web"),
        ],
    )
    .await;
    answer
        .header("access-control-allow-origin")
        .map(str::to_owned)
}

#[tokio::test]
async fn grpc_web_is_open_to_any_origin_unless_the_operator_lists_some() {
    let open = Serve::fresh().start().await;
    assert_eq!(
        preflight(open.addr, "https://elsewhere.example")
            .await
            .as_deref(),
        Some("https://elsewhere.example")
    );
    let flag = Serve::fresh()
        .args([
            "--cors-allow-origins",
            "https://play.example,http://localhost:5173",
        ])
        .start()
        .await;
    let variable = Serve::fresh()
        .env(
            "ARBITER_CORS_ALLOW_ORIGINS",
            "https://play.example,http://localhost:5173",
        )
        .start()
        .await;
    for server in [&flag, &variable] {
        for listed in ["https://play.example", "http://localhost:5173"] {
            assert_eq!(
                preflight(server.addr, listed).await.as_deref(),
                Some(listed)
            );
        }
        assert_eq!(
            preflight(server.addr, "https://elsewhere.example").await,
            None
        );
        // The app the server serves calls from its own origin: no CORS.
        let call = http1_post(
            server.addr,
            "/arbiter.v1.Rules/LegalMoves",
            "application/grpc-web+proto",
            &start_legal_moves_frame(),
        )
        .await;
        assert!(call.contains("g1f3"), "{call}");
    }
    let mut refused = Serve::fresh()
        .args(["--cors-allow-origins", "https://play.example/app"])
        .stderr(std::process::Stdio::null())
        .spawn();
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), refused.child.wait())
        .await
        .expect("a bad origin stops the start")
        .unwrap();
    assert_eq!(status.code(), Some(2));
}
