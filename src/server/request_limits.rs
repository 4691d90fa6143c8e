//! Limits on requests being served: how many at once across the server and
//! from one address, and how long one may wait for its answer.
//!
//! A request over either in-flight limit is refused at once with
//! RESOURCE_EXHAUSTED (`SERVER_BUSY`, metadata `cap` = `server` or
//! `peer`) rather than queued. The share of one address keeps a few
//! clients holding streams whose bodies never come from taking every place
//! of the server's: under a flood the
//! queue would only add latency, and the caller can back off. A request is
//! counted from its headers until its answer's headers (a stream's messages
//! are not counted), so it bounds the work being done: decoding and
//! decompressing bodies, handlers. One not answered within the request
//! timeout, or within its own `grpc-timeout` if that is shorter, ends with
//! DEADLINE_EXCEEDED (`REQUEST_TIMEOUT`): that also bounds how long a
//! stream whose body never comes holds its slot.

use std::{
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use http::{HeaderMap, Request, Response};
use pin_project_lite::pin_project;
use tokio::{
    sync::{OwnedSemaphorePermit, Semaphore},
    time::Sleep,
};
use tonic::{Status, body::Body, transport::server::TcpConnectInfo};
use tower::Layer;
use tower_service::Service;

use crate::{
    api::{ErrorStatus, internal},
    peers::{Peer, PeerSlot, PeerSlots},
    reason::Reason,
};

/// The caller of `request`, when it came over TCP.
pub(super) fn peer_of<B>(request: &Request<B>) -> Option<Peer> {
    request
        .extensions()
        .get::<TcpConnectInfo>()
        .and_then(TcpConnectInfo::remote_addr)
        .map(Peer::of)
}

/// Adds [`RequestLimits`] to a service.
#[derive(Clone, Debug)]
pub struct RequestLimitsLayer {
    permits: Arc<Semaphore>,
    max_in_flight: usize,
    /// Places per address (limit 0: no limit).
    peers: Arc<PeerSlots>,
    timeout: Duration,
}

impl RequestLimitsLayer {
    /// At most `max_in_flight` requests at once, `max_per_peer` of them
    /// from one address (0: no share), each answered within `timeout`.
    pub fn new(max_in_flight: usize, max_per_peer: usize, timeout: Duration) -> RequestLimitsLayer {
        RequestLimitsLayer {
            permits: Arc::new(Semaphore::new(max_in_flight)),
            max_in_flight,
            peers: PeerSlots::new(max_per_peer),
            timeout,
        }
    }
}

impl<S> Layer<S> for RequestLimitsLayer {
    type Service = RequestLimits<S>;

    fn layer(&self, inner: S) -> RequestLimits<S> {
        RequestLimits {
            inner,
            limits: self.clone(),
        }
    }
}

/// `inner`, within the server's request limits (see the module docs).
#[derive(Clone, Debug)]
pub struct RequestLimits<S> {
    inner: S,
    limits: RequestLimitsLayer,
}

impl<S, B> Service<Request<B>> for RequestLimits<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Answer<S::Future> {
        let peer = peer_of(&request);
        let peer_slot = match peer.map(|peer| self.limits.peers.try_take(peer)) {
            Some(None) => {
                return Answer::Refused {
                    status: Some(busy("peer", self.limits.peers.limit())),
                };
            }
            Some(slot) => slot,
            None => None,
        };
        let Ok(permit) = self.limits.permits.clone().try_acquire_owned() else {
            return Answer::Refused {
                status: Some(busy("server", self.limits.max_in_flight)),
            };
        };
        let timeout = client_timeout(request.headers()).map_or(self.limits.timeout, |client| {
            client.min(self.limits.timeout)
        });
        Answer::Served {
            inner: self.inner.call(request),
            deadline: tokio::time::sleep(timeout),
            timeout,
            _permit: permit,
            _peer_slot: peer_slot,
        }
    }
}

pin_project! {
    /// The answer to a request, in flight or refused.
    #[project = AnswerProjection]
    pub enum Answer<F> {
        Served {
            #[pin]
            inner: F,
            #[pin]
            deadline: Sleep,
            timeout: Duration,
            _permit: OwnedSemaphorePermit,
            _peer_slot: Option<PeerSlot>,
        },
        Refused { status: Option<Status> },
    }
}

impl<F, E> Future for Answer<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            AnswerProjection::Served {
                inner,
                deadline,
                timeout,
                ..
            } => {
                if let Poll::Ready(answer) = inner.poll(cx) {
                    return Poll::Ready(answer);
                }
                match deadline.poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Ok(timed_out(*timeout).into_http())),
                    Poll::Pending => Poll::Pending,
                }
            }
            AnswerProjection::Refused { status } => {
                Poll::Ready(Ok(status.take().unwrap_or_else(internal).into_http()))
            }
        }
    }
}

/// The status of a request refused over the in-flight limit of `cap`
/// (`server` or `peer`).
fn busy(cap: &str, limit: usize) -> Status {
    let whose = match cap {
        "peer" => "for your address",
        _ => "in all",
    };
    ErrorStatus::new(
        Reason::ServerBusy,
        format!(
            "the server is serving {limit} requests {whose}, the most it serves at once: \
             retry with backoff"
        ),
    )
    .metadata("limit", limit)
    .metadata("cap", cap)
    .into()
}

/// The status of a request not answered within `timeout`.
fn timed_out(timeout: Duration) -> Status {
    let ms = timeout.as_millis();
    ErrorStatus::new(
        Reason::RequestTimeout,
        format!("the request was not answered within {ms} ms"),
    )
    .metadata("limit_ms", ms)
    .into()
}

/// The request's own `grpc-timeout`: up to 8 digits and a unit (gRPC over
/// HTTP/2); `None` if absent or malformed.
fn client_timeout(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = value.split_at_checked(value.len().checked_sub(1)?)?;
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use tonic::Code;
    use tonic_types::StatusExt;

    use tower::ServiceExt;

    use super::*;

    fn timeout_of(value: &str) -> Option<Duration> {
        let mut headers = HeaderMap::new();
        headers.insert("grpc-timeout", value.parse().unwrap());
        client_timeout(&headers)
    }

    #[test]
    fn reads_grpc_timeouts() {
        assert_eq!(timeout_of("3S"), Some(Duration::from_secs(3)));
        assert_eq!(timeout_of("250m"), Some(Duration::from_millis(250)));
        assert_eq!(timeout_of("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(
            timeout_of("99999999n"),
            Some(Duration::from_nanos(99_999_999))
        );
        for bad in ["", "S", "123456789S", "1.5S", "-1S", "10x", "١S"] {
            assert_eq!(timeout_of(bad), None, "{bad:?}");
        }
    }

    /// A service whose answers never come.
    #[derive(Clone)]
    struct Never;

    impl Service<Request<()>> for Never {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = std::future::Pending<Result<Response<Body>, Infallible>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: Request<()>) -> Self::Future {
            std::future::pending()
        }
    }

    fn status(response: &Response<Body>) -> Status {
        Status::from_header_map(response.headers()).unwrap()
    }

    /// Over the limit, requests are refused at once with SERVER_BUSY; a
    /// request not answered in time ends with REQUEST_TIMEOUT and frees its
    /// place.
    #[tokio::test]
    async fn refuses_over_the_limit_and_times_out() {
        let service = RequestLimitsLayer::new(1, 0, Duration::from_millis(200)).layer(Never);
        let waiting = tokio::spawn(service.clone().oneshot(Request::new(())));
        tokio::task::yield_now().await;
        let refused = service.clone().oneshot(Request::new(())).await.unwrap();
        let refused = status(&refused);
        assert_eq!(refused.code(), Code::ResourceExhausted);
        let info = refused.get_details_error_info().unwrap();
        assert_eq!(info.reason, "SERVER_BUSY");
        assert_eq!(info.metadata["limit"], "1");
        assert_eq!(info.metadata["cap"], "server");
        let timed_out = status(&waiting.await.unwrap().unwrap());
        assert_eq!(timed_out.code(), Code::DeadlineExceeded);
        let info = timed_out.get_details_error_info().unwrap();
        assert_eq!(
            (info.reason.as_str(), info.metadata["limit_ms"].as_str()),
            ("REQUEST_TIMEOUT", "200")
        );
        let mut request = Request::new(());
        request
            .headers_mut()
            .insert("grpc-timeout", "50m".parse().unwrap());
        let answer = status(&service.oneshot(request).await.unwrap());
        assert_eq!(answer.code(), Code::DeadlineExceeded, "{answer:?}");
        assert!(answer.message().contains("within 50 ms"), "{answer:?}");
    }

    fn from(port: u16, ip: [u8; 4]) -> Request<()> {
        let mut request = Request::new(());
        request.extensions_mut().insert(TcpConnectInfo {
            local_addr: None,
            remote_addr: Some((ip, port).into()),
        });
        request
    }

    /// One address may hold its share of the places, not more; another
    /// address (another port of it is the same address) is still served.
    #[tokio::test]
    async fn one_address_holds_its_share_only() {
        let service = RequestLimitsLayer::new(10, 2, Duration::from_secs(30)).layer(Never);
        let held: Vec<_> = (0..2)
            .map(|i| tokio::spawn(service.clone().oneshot(from(5000 + i, [127, 0, 0, 2]))))
            .collect();
        tokio::task::yield_now().await;
        let refused = service
            .clone()
            .oneshot(from(6000, [127, 0, 0, 2]))
            .await
            .unwrap();
        let refused = status(&refused);
        assert_eq!(refused.code(), Code::ResourceExhausted);
        let info = refused.get_details_error_info().unwrap();
        assert_eq!(
            (
                info.reason.as_str(),
                info.metadata["cap"].as_str(),
                info.metadata["limit"].as_str()
            ),
            ("SERVER_BUSY", "peer", "2")
        );
        let other = tokio::spawn(service.clone().oneshot(from(5000, [127, 0, 0, 3])));
        tokio::task::yield_now().await;
        assert!(!other.is_finished(), "another address is served");
        for task in held.into_iter().chain([other]) {
            task.abort();
        }
    }
}
