//! The web app on the API's port: the files of `web/dist`, embedded in the
//! binary when it is built (`build.rs` writes their table), so that a
//! browser pointed at the server gets a page and no Node.js runs beside it.
//!
//! Browsers ask with GET and HEAD; gRPC and grpc-web calls are always POST,
//! and CORS preflights OPTIONS, so the method alone tells a page's request
//! from a call: [`WebApp`] answers GET and HEAD from the embedded files and
//! hands every other request to the API as it is. `GET /` is `index.html`;
//! a path that names no file is 404.
//!
//! The bundler names the files under `assets/` after their content, so a
//! new build never reuses a name: they are cached for a year. Every other
//! file (`index.html`, which names the assets) is `no-cache`, revalidated by
//! its entity tag (a 304 when unchanged), so a new build shows at the next
//! load.
//!
//! Every answer carries a strict Content-Security-Policy: the app's own
//! scripts, styles and API only (no inline script or style, no other
//! origin), never framed by another page (`frame-ancestors 'none'`, and
//! `X-Frame-Options` for older browsers), and no referrer sent anywhere: a
//! game page holds a seat's token, which a framing page could otherwise
//! make its player use with a click.
//!
//! The answers come from memory at once: they hold no place in the request
//! limits, which bound work in flight, and are not RPCs to the metrics. The
//! connection limits (count, timeouts) hold for them as for calls.

use std::{
    convert::Infallible,
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use pin_project_lite::pin_project;
use tonic::body::Body;
use tower_service::Service;

/// One file of the built web app.
struct WebFile {
    /// From `web/dist`, e.g. `assets/index-3f2a9c1b.js`.
    path: &'static str,
    bytes: &'static [u8],
    /// A quoted digest of the bytes.
    etag: &'static str,
}

/// Every file of `web/dist`.
static FILES: &[WebFile] = include!(concat!(env!("OUT_DIR"), "/web_files.rs"));

/// Where the bundler puts the files it names after their content.
const HASHED_DIR: &str = "assets/";

const CACHE_HASHED: &str = "public, max-age=31536000, immutable";
const CACHE_REVALIDATE: &str = "no-cache";

/// What the app's pages may load and do: its own files and its own API.
/// `data:` images for the blank favicon.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
     manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The web app in front of the API `inner` (`enabled` false: every request
/// goes to the API, as with `--no-web`).
#[derive(Clone, Debug)]
pub struct WebApp<S> {
    inner: S,
    enabled: bool,
}

impl<S> WebApp<S> {
    pub fn new(inner: S, enabled: bool) -> WebApp<S> {
        WebApp { inner, enabled }
    }
}

impl<S, B> Service<Request<B>> for WebApp<S>
where
    S: Service<Request<B>, Response = Response<Body>, Error = Infallible>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answer<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Answer<S::Future> {
        let method = request.method();
        if self.enabled && (method == Method::GET || method == Method::HEAD) {
            Answer::Page {
                response: Some(page(&request)),
            }
        } else {
            Answer::Api {
                inner: self.inner.call(request),
            }
        }
    }
}

pin_project! {
    /// A page answered at once, or the API's answer to come.
    #[project = AnswerProjection]
    pub enum Answer<F> {
        Page { response: Option<Response<Body>> },
        Api { #[pin] inner: F },
    }
}

impl<F> Future for Answer<F>
where
    F: Future<Output = Result<Response<Body>, Infallible>>,
{
    type Output = Result<Response<Body>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            AnswerProjection::Page { response } => {
                Poll::Ready(Ok(response.take().expect("polled after it was ready")))
            }
            AnswerProjection::Api { inner } => inner.poll(cx),
        }
    }
}

/// The answer to a GET or HEAD of `request`'s path.
fn page<B>(request: &Request<B>) -> Response<Body> {
    let head_only = request.method() == Method::HEAD;
    let path = match request.uri().path() {
        "/" => "index.html",
        path => path.trim_start_matches('/'),
    };
    let Some(file) = FILES.iter().find(|file| file.path == path) else {
        return answer(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            Bytes::from_static(b"not found\n"),
            head_only,
        );
    };
    let cache = if file.path.starts_with(HASHED_DIR) {
        CACHE_HASHED
    } else {
        CACHE_REVALIDATE
    };
    let unchanged = request
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag == file.etag);
    let mut response = if unchanged {
        answer(
            StatusCode::NOT_MODIFIED,
            content_type(file.path),
            Bytes::new(),
            true,
        )
    } else {
        answer(
            StatusCode::OK,
            content_type(file.path),
            Bytes::from_static(file.bytes),
            head_only,
        )
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::ETAG, HeaderValue::from_static(file.etag));
    response
}

/// An answer of `status` with `bytes` of `content_type` (their length
/// only, for a HEAD or a 304).
fn answer(
    status: StatusCode,
    content_type: &'static str,
    bytes: Bytes,
    head_only: bool,
) -> Response<Body> {
    let length = bytes.len();
    let body = if head_only { Bytes::new() } else { bytes };
    let mut response = Response::new(Body::new(Full::new(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if status != StatusCode::NOT_MODIFIED {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if status == StatusCode::NOT_FOUND {
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_REVALIDATE),
        );
    }
    response
}

/// The media type of a file of the web app, by its extension.
fn content_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    match extension.to_ascii_lowercase().as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_app_has_an_index() {
        assert!(FILES.iter().any(|file| file.path == "index.html"));
    }

    #[test]
    fn media_types_follow_the_extension() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(
            content_type("assets/index-3f2a9c1b.JS"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(content_type("assets/board-0a1b2c3d.svg"), "image/svg+xml");
        assert_eq!(content_type("LICENSE"), "application/octet-stream");
    }
}
