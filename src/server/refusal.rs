//! What a connection over its address's share is served: every request on
//! it answered with the refusal, `TOO_MANY_CONNECTIONS` (HTTP 503 for a
//! request that is not gRPC).

use std::{
    convert::Infallible,
    task::{Context, Poll},
};

use bytes::Bytes;
use http::{Request, Response};
use tower_service::Service;

use crate::{api::ErrorStatus, reason::Reason};

/// The service of a connection refused for its address's share: every
/// request is answered with the refusal.
#[derive(Clone, Copy, Debug)]
pub(super) struct Refusal {
    pub(super) limit: usize,
}

impl Service<Request<tonic::body::Body>> for Refusal {
    type Response = Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<tonic::body::Body>) -> Self::Future {
        let grpc = request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"application/grpc"));
        let message = format!(
            "too many connections from your address: it may hold {}; close some, or retry later",
            self.limit
        );
        let response = if grpc {
            let status: tonic::Status = ErrorStatus::new(Reason::TooManyConnections, message)
                .metadata("cap", "peer")
                .metadata("limit", self.limit)
                .into();
            status.into_http()
        } else {
            let mut response = Response::new(tonic::body::Body::new(http_body_util::Full::new(
                Bytes::from(message),
            )));
            *response.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
            response
        };
        std::future::ready(Ok(response))
    }
}
