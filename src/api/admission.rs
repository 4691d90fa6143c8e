//! Per-caller limits at the door of the creating calls: CreateGame,
//! ImportGame, JoinGame, OfferRematch, an accepting RespondToRematch (each
//! may create a game), CreatePosition, CreatePlayer and CreateChallenge
//! share one rate per peer address, so that no chain of calls makes games
//! faster than CreateGame may; so does GetOpenSeat, since looking join
//! codes up is guessing them too.

use std::sync::Arc;

use tonic::{Request, Status};

use super::error::ErrorStatus;
use crate::{
    peers::{Peer, PeerRate, RateLimited},
    reason::Reason,
};

/// The creating calls' rate limit (`None`: off).
pub type Creates = Option<Arc<PeerRate>>;

/// Admits a creating call, or refuses it with RESOURCE_EXHAUSTED
/// (`RATE_LIMITED`, with the limit and when to retry). A request without a
/// peer address (not over TCP) is not limited.
pub fn admit_create<T>(creates: &Creates, request: &Request<T>) -> Result<(), Status> {
    let (Some(rate), Some(addr)) = (creates, request.remote_addr()) else {
        return Ok(());
    };
    rate.admit(Peer::of(addr))
        .map(drop)
        .map_err(|refused| rate_limited(&refused))
}

fn rate_limited(refused: &RateLimited) -> Status {
    let retry_ms = refused.retry_after.as_millis().max(1);
    ErrorStatus::new(
        Reason::RateLimited,
        format!(
            "too many games, positions and players created from your address: at most {} a second \
             after a burst of {}; retry in {retry_ms} ms",
            refused.per_second, refused.burst
        ),
    )
    .metadata(
        "limit",
        format!("{}/s, burst {}", refused.per_second, refused.burst),
    )
    .metadata("retry_after_ms", retry_ms)
    .retry_after(refused.retry_after)
    .into()
}
