//! Failed credential checks, limited per address, so that no caller can
//! guess seat, owner, player or operator tokens at the server's speed.
//!
//! A call answered UNAUTHENTICATED (a missing or unknown token, the
//! operator's included), or a Lichess API call that refused a token, is a
//! failed check of its address. An address may
//! fail `rate` checks a second after a first `burst` ([`PeerRate`]); the
//! failure that empties its bucket bars it until its next check is due,
//! and meanwhile every `Games`, `Positions` and `Players` call and every
//! Lichess API call from it (the services that take credentials) is refused with RESOURCE_EXHAUSTED
//! `CREDENTIAL_CHECKS_LIMITED` before any token is looked at. Other
//! services (rules, engine, health) still answer.

use std::{
    collections::HashMap,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll, ready},
    time::{Duration, Instant},
};

use http::{Request, Response};
use pin_project_lite::pin_project;
use tonic::{Code, Status, body::Body};
use tower::Layer;
use tower_service::Service;

use super::request_limits::peer_of;
use crate::{
    api::ErrorStatus,
    lichess::CredentialRefused,
    peers::{Peer, PeerRate},
    reason::Reason,
};

/// Barred addresses remembered before the expired bars are dropped.
const MAX_BARRED: usize = 65_536;

/// The services whose calls take credentials: refused from a barred
/// address.
const GUARDED: [&str; 4] = [
    "/arbiter.v1.Games/",
    "/arbiter.v1.Positions/",
    "/arbiter.v1.Players/",
    // The Lichess API, whose calls take player tokens.
    "/api/",
];

/// The failed checks of every address.
#[derive(Debug)]
pub struct CredentialChecks {
    rate: PeerRate,
    /// Addresses barred, until when.
    barred: Mutex<HashMap<Peer, Instant>>,
}

impl CredentialChecks {
    /// `per_second` failed checks a second per address after `burst`;
    /// `None` when `per_second` is 0 (no limit).
    pub fn new(per_second: u32, burst: u32) -> Option<Arc<CredentialChecks>> {
        Some(Arc::new(CredentialChecks {
            rate: PeerRate::new(per_second, burst)?,
            barred: Mutex::default(),
        }))
    }

    /// How long `peer` is still barred, if it is.
    fn barred(&self, peer: Peer) -> Option<Duration> {
        let barred = self.barred.lock().unwrap_or_else(|e| e.into_inner());
        let until = *barred.get(&peer)?;
        let left = until.saturating_duration_since(Instant::now());
        (!left.is_zero()).then_some(left)
    }

    /// Counts a failed check of `peer`; bars it if it has none left.
    fn failed(&self, peer: Peer) {
        let bar = match self.rate.admit(peer) {
            Ok(0) => self.rate.interval(),
            Ok(_) => return,
            // Checks already in flight when the address was barred.
            Err(refused) => refused.retry_after,
        };
        let now = Instant::now();
        let mut barred = self.barred.lock().unwrap_or_else(|e| e.into_inner());
        if barred.len() >= MAX_BARRED {
            barred.retain(|_, until| *until > now);
        }
        barred.insert(peer, now + bar);
    }

    fn refusal(&self, retry_after: Duration) -> Status {
        let retry_ms = retry_after.as_millis().max(1);
        let (per_second, burst) = self.rate.quota();
        ErrorStatus::new(
            Reason::CredentialChecksLimited,
            format!(
                "too many failed credential checks from your address: at most {per_second} a \
                 second after {burst}; retry in {retry_ms} ms"
            ),
        )
        .metadata("limit", format!("{per_second}/s, burst {burst}"))
        .metadata("retry_after_ms", retry_ms)
        .retry_after(retry_after)
        .into()
    }
}

/// Adds the [`CredentialChecks`] to a service (nothing when `None`).
#[derive(Clone, Debug)]
pub struct CredentialChecksLayer(pub Option<Arc<CredentialChecks>>);

impl<S> Layer<S> for CredentialChecksLayer {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Guarded<S> {
        Guarded {
            inner,
            checks: self.0.clone(),
        }
    }
}

/// `inner`, refusing barred addresses and counting failed checks.
#[derive(Clone, Debug)]
pub struct Guarded<S> {
    inner: S,
    checks: Option<Arc<CredentialChecks>>,
}

impl<S, B> Service<Request<B>> for Guarded<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Checked<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Checked<S::Future> {
        let watched = self.checks.clone().zip(peer_of(&request));
        if let Some((checks, peer)) = &watched {
            let path = request.uri().path();
            if GUARDED.iter().any(|service| path.starts_with(service))
                && let Some(left) = checks.barred(*peer)
            {
                return Checked::Refused {
                    status: Some(checks.refusal(left)),
                };
            }
        }
        Checked::Served {
            inner: self.inner.call(request),
            watched,
        }
    }
}

pin_project! {
    /// The answer to a request, served or refused.
    #[project = CheckedProjection]
    pub enum Checked<F> {
        Served {
            #[pin]
            inner: F,
            watched: Option<(Arc<CredentialChecks>, Peer)>,
        },
        Refused { status: Option<Status> },
    }
}

impl<F, E> Future for Checked<F>
where
    F: Future<Output = Result<Response<Body>, E>>,
{
    type Output = Result<Response<Body>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            CheckedProjection::Served { inner, watched } => {
                let response = ready!(inner.poll(cx))?;
                // A credential is checked before anything is streamed: its
                // failure is the answer's head (gRPC's trailers-only form).
                let unauthenticated = response
                    .headers()
                    .get("grpc-status")
                    .is_some_and(|code| code.as_bytes() == b"16")
                    || response.extensions().get::<CredentialRefused>().is_some();
                if unauthenticated && let Some((checks, peer)) = watched.take() {
                    checks.failed(peer);
                }
                Poll::Ready(Ok(response))
            }
            CheckedProjection::Refused { status } => {
                let status = status
                    .take()
                    .unwrap_or_else(|| Status::new(Code::Internal, ""));
                Poll::Ready(Ok(status.into_http()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use super::*;

    #[test]
    fn an_address_is_barred_once_its_failures_run_out() {
        let checks = CredentialChecks::new(1, 3).unwrap();
        let peer = Peer::of("10.0.0.1:5".parse::<SocketAddr>().unwrap());
        let other = Peer::of("10.0.0.2:5".parse::<SocketAddr>().unwrap());
        for _ in 0..2 {
            checks.failed(peer);
            assert!(checks.barred(peer).is_none());
        }
        // The third failure empties the bucket: the next check waits.
        checks.failed(peer);
        let left = checks.barred(peer).expect("barred");
        assert!(left <= Duration::from_secs(1));
        assert!(checks.barred(other).is_none());
        assert!(CredentialChecks::new(0, 3).is_none());
    }
}
