//! Each call's outcome, its gRPC status and its latency: logged as one INFO
//! line per call (an access log, in the call's span: its path, and the game
//! or position it named), and counted by method and status for the metrics
//! endpoint (see `metrics`) when that is on.
//!
//! A call ends when its status is known: the `grpc-status` of a
//! trailers-only answer (every error the handlers, tonic and the request
//! limits give) when its headers are sent, otherwise the `grpc-status`
//! trailer after the answer's messages. A stream (`WatchGame`, `Analyze`,
//! health's `Watch`, reflection) thus ends when it ends, and its latency is
//! its whole life. A call whose client goes away before its status ends as
//! `CANCELLED`, an answer that ends without one as `UNKNOWN`.
//!
//! Each call counts in `arbiter_rpc_started_total` when its request comes,
//! and in `arbiter_rpc_handled_total` and `arbiter_rpc_duration_seconds`
//! when it ends. Labels come from fixed sets: the methods the server has
//! (read once from the services' descriptors; any other path is `unknown`)
//! and the 17 gRPC codes, so a caller cannot grow the series. Each label
//! pair's counter and histogram are looked up in the recorder once and
//! kept: a call costs a hash of its path, two clock reads and three atomic
//! updates.

use std::{
    collections::HashMap,
    pin::Pin,
    sync::{LazyLock, OnceLock},
    task::{Context, Poll, ready},
    time::Instant,
};

use http::{HeaderMap, Request, Response};
use http_body::{Body, Frame, SizeHint};
use metrics::{Counter, Histogram};
use pin_project_lite::pin_project;
use prost::Message;
use tonic::Status;
use tower_service::Service;

use crate::api::proto;

/// Counted when a call's request comes.
pub const STARTED: &str = "arbiter_rpc_started_total";
/// Counted when a call's status is known.
pub const HANDLED: &str = "arbiter_rpc_handled_total";
/// A call's time from its request to its status.
pub const DURATION: &str = "arbiter_rpc_duration_seconds";

/// The `method` label of a path that is no method of the server.
const UNKNOWN_METHOD: &str = "unknown";

/// The gRPC codes' names, by number.
const CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];
const CANCELLED: usize = 1;
const UNKNOWN: usize = 2;

/// The services the server has, as encoded descriptor sets.
const SERVICES: [&[u8]; 4] = [
    proto::FILE_DESCRIPTOR_SET,
    tonic_health::pb::FILE_DESCRIPTOR_SET,
    tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
    tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
];

/// One `method` label's metrics, registered on first use.
#[derive(Default)]
struct Method {
    name: String,
    started: OnceLock<Counter>,
    /// By code: the handled counter and the duration histogram.
    ended: [OnceLock<(Counter, Histogram)>; CODES.len()],
}

impl Method {
    fn new(name: String) -> Method {
        Method {
            name,
            ..Method::default()
        }
    }

    fn started(&'static self) -> &'static Counter {
        self.started
            .get_or_init(|| metrics::counter!(STARTED, "method" => self.name.as_str()))
    }

    fn ended(&'static self, code: usize) -> &'static (Counter, Histogram) {
        self.ended[code].get_or_init(|| {
            let labels = [("method", self.name.as_str()), ("status", CODES[code])];
            (
                metrics::counter!(HANDLED, &labels),
                metrics::histogram!(DURATION, &labels),
            )
        })
    }
}

/// Every `method` label: the server's methods by path, and `unknown`.
struct Methods {
    by_path: HashMap<String, usize>,
    methods: Vec<Method>,
}

/// Built on first use, for the whole process (the recorder is global too).
static METHODS: LazyLock<Methods> = LazyLock::new(Methods::of_services);

impl Methods {
    fn of_services() -> Methods {
        let mut names = Vec::new();
        for set in SERVICES {
            let set = prost_types::FileDescriptorSet::decode(set)
                .expect("a service's descriptor set decodes");
            for file in &set.file {
                for service in &file.service {
                    for method in &service.method {
                        names.push(format!(
                            "{}.{}/{}",
                            file.package(),
                            service.name(),
                            method.name()
                        ));
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        let by_path = names
            .iter()
            .enumerate()
            .map(|(index, name)| (format!("/{name}"), index))
            .collect();
        let mut methods: Vec<Method> = names.into_iter().map(Method::new).collect();
        methods.push(Method::new(UNKNOWN_METHOD.to_owned()));
        Methods { by_path, methods }
    }

    /// The label of a request to `path`.
    fn of(&'static self, path: &str) -> &'static Method {
        let index = self
            .by_path
            .get(path)
            .copied()
            .unwrap_or(self.methods.len() - 1);
        &self.methods[index]
    }
}

/// Logs the outcome of every call of the service it wraps, and counts it
/// if `metrics` is on (see the module docs).
#[derive(Clone, Debug)]
pub struct RpcOutcomes<S> {
    inner: S,
    metrics: bool,
}

impl<S> RpcOutcomes<S> {
    pub fn new(inner: S, metrics: bool) -> RpcOutcomes<S> {
        if metrics {
            // Read the descriptors now rather than in the first call.
            LazyLock::force(&METHODS);
        }
        RpcOutcomes { inner, metrics }
    }
}

impl<S, B, ResBody> Service<Request<B>> for RpcOutcomes<S>
where
    S: Service<Request<B>, Response = Response<ResBody>>,
{
    type Response = Response<Measured<ResBody>>;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let method = self.metrics.then(|| METHODS.of(request.uri().path()));
        Answer {
            inner: self.inner.call(request),
            call: Some(Call::start(method)),
        }
    }
}

/// A call under way; ends, with the status it was given or `CANCELLED`,
/// when dropped.
struct Call {
    /// Its metrics, when they are on.
    method: Option<&'static Method>,
    /// The call's span (see `server::Traced`), which its line is logged in.
    span: tracing::Span,
    started: Instant,
    code: usize,
}

impl Call {
    fn start(method: Option<&'static Method>) -> Call {
        if let Some(method) = method {
            method.started().increment(1);
        }
        Call {
            method,
            span: tracing::Span::current(),
            started: Instant::now(),
            code: CANCELLED,
        }
    }

    /// Ends with the status in `headers` (headers or trailers; `None`:
    /// there are none).
    fn end(mut self, headers: Option<&HeaderMap>) {
        self.code = code(headers);
    }
}

/// The code of the `grpc-status` in `headers`; `UNKNOWN` without a valid
/// one.
fn code(headers: Option<&HeaderMap>) -> usize {
    headers
        .and_then(|headers| headers.get(Status::GRPC_STATUS))
        .and_then(|code| std::str::from_utf8(code.as_bytes()).ok()?.parse().ok())
        .filter(|code: &usize| *code < CODES.len())
        .unwrap_or(UNKNOWN)
}

impl Drop for Call {
    fn drop(&mut self) {
        let latency = self.started.elapsed();
        if let Some(method) = self.method {
            let (handled, duration) = method.ended(self.code);
            handled.increment(1);
            duration.record(latency);
        }
        // Milliseconds to the microsecond.
        let latency_ms = latency.as_micros() as f64 / 1_000.0;
        tracing::info!(parent: &self.span, status = %CODES[self.code], latency_ms, "answered");
    }
}

pin_project! {
    /// The answer of a measured call.
    pub struct Answer<F> {
        #[pin]
        inner: F,
        call: Option<Call>,
    }
}

impl<F, ResBody, E> Future for Answer<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = Result<Response<Measured<ResBody>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let answer = ready!(this.inner.poll(cx));
        let call = this.call.take();
        Poll::Ready(match answer {
            Ok(response) => {
                // A trailers-only answer: its status is in its headers.
                let call = match call {
                    Some(call) if response.headers().contains_key(Status::GRPC_STATUS) => {
                        call.end(Some(response.headers()));
                        None
                    }
                    call => call,
                };
                Ok(response.map(|inner| Measured { inner, call }))
            }
            Err(error) => {
                if let Some(call) = call {
                    call.end(None);
                }
                Err(error)
            }
        })
    }
}

pin_project! {
    /// An answer's body; its call ends at its trailers.
    pub struct Measured<B> {
        #[pin]
        inner: B,
        call: Option<Call>,
    }
}

impl<B: Body> Body for Measured<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let this = self.project();
        let frame = ready!(this.inner.poll_frame(cx));
        let ends = match &frame {
            Some(Ok(frame)) => frame.trailers_ref().map(Some),
            // The end without a status, or an error: `UNKNOWN`.
            None | Some(Err(_)) => Some(None),
        };
        if let Some(status) = ends
            && let Some(call) = this.call.take()
        {
            call.end(status);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_of_the_server_has_its_label_and_other_paths_one() {
        let make_move = METHODS.of("/arbiter.v1.Games/MakeMove");
        assert_eq!(make_move.name, "arbiter.v1.Games/MakeMove");
        for path in [
            "/grpc.health.v1.Health/Check",
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            "/arbiter.v1.Rules/LegalMoves",
        ] {
            assert_eq!(format!("/{}", METHODS.of(path).name), path);
        }
        for path in [
            "/",
            "",
            "/arbiter.v1.Games/Nope",
            "/arbiter.v1.Games/MakeMove/",
        ] {
            assert_eq!(METHODS.of(path).name, UNKNOWN_METHOD);
        }
    }

    #[test]
    fn a_status_is_read_from_grpc_status_and_others_are_unknown() {
        let code_of = |value: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(value) = value {
                headers.insert(Status::GRPC_STATUS, value.parse().unwrap());
            }
            CODES[code(Some(&headers))]
        };
        assert_eq!(code_of(Some("0")), "OK");
        assert_eq!(code_of(Some("5")), "NOT_FOUND");
        assert_eq!(code_of(Some("16")), "UNAUTHENTICATED");
        for other in [None, Some("17"), Some("-1"), Some("ok"), Some("")] {
            assert_eq!(code_of(other), "UNKNOWN", "{other:?}");
        }
        assert_eq!(CODES[code(None)], "UNKNOWN");
    }
}
