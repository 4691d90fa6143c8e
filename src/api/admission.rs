//! Per-caller limits at the door of the creating calls (CreateGame,
//! ImportGame, CreatePosition): one token bucket per peer address, shared by
//! the three.

use std::{collections::HashMap, sync::Arc};

use tonic::{Code, Request, Status};
use tonic_types::{ErrorDetails, StatusExt};

use super::error::DOMAIN;
use crate::peers::{CreateRate, Peer, RateLimited};

/// The creating calls' rate limit (`None`: off).
pub type Creates = Option<Arc<CreateRate>>;

/// Admits a creating call, or refuses it with RESOURCE_EXHAUSTED
/// (`RATE_LIMITED`, with the limit and when to retry). A request without a
/// peer address (not over TCP) is not limited.
pub fn admit_create<T>(creates: &Creates, request: &Request<T>) -> Result<(), Status> {
    let (Some(rate), Some(addr)) = (creates, request.remote_addr()) else {
        return Ok(());
    };
    rate.admit(Peer::of(addr))
        .map_err(|refused| rate_limited(&refused))
}

fn rate_limited(refused: &RateLimited) -> Status {
    let retry_ms = refused.retry_after.as_millis().max(1);
    let mut details = ErrorDetails::with_error_info(
        "RATE_LIMITED",
        DOMAIN,
        HashMap::from([
            (
                "limit".to_owned(),
                format!("{}/s, burst {}", refused.per_second, refused.burst),
            ),
            ("retry_after_ms".to_owned(), retry_ms.to_string()),
        ]),
    );
    details.set_retry_info(Some(refused.retry_after));
    Status::with_error_details(
        Code::ResourceExhausted,
        format!(
            "too many games and positions created from your address: at most {} a second \
             after a burst of {}; retry in {retry_ms} ms",
            refused.per_second, refused.burst
        ),
        details,
    )
}
