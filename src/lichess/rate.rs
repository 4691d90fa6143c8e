//! The Lichess API's rate: the calls of one token (of one address, for
//! calls without a token) after a first burst, as Lichess limits its API,
//! answered 429 with `Retry-After` past it. A move is never counted or
//! refused: a bot that is refused a move stops moving for a minute, and
//! its clock runs.

use std::net::SocketAddr;

use super::{answer::Answer, form::Call};
use crate::peers::{Peer, Rate};

/// Default `--lichess-rate`: calls a second per token.
pub const DEFAULT_LICHESS_RATE: u32 = 10;
/// Default `--lichess-burst`: calls at once per token before the rate.
pub const DEFAULT_LICHESS_BURST: u32 = 60;

/// Whom a call is counted against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Caller {
    Token(String),
    Address(Peer),
}

/// The rate of the calls that are not moves (`None`: no limit).
pub(super) struct CallRate(Option<Rate<Caller>>);

impl CallRate {
    pub fn new(per_second: u32, burst: u32) -> CallRate {
        CallRate(Rate::new(per_second, burst))
    }

    /// Admits `call`, or answers it 429.
    pub fn admit(&self, call: &Call, address: Option<SocketAddr>) -> Result<(), Answer> {
        let Some(rate) = &self.0 else {
            return Ok(());
        };
        let caller = match (call.token(), address) {
            (Some(token), _) => Caller::Token(token.to_owned()),
            (None, Some(address)) => Caller::Address(Peer::of(address)),
            (None, None) => return Ok(()),
        };
        rate.admit(caller).map(drop).map_err(|refused| {
            Answer::too_many_requests(
                refused.retry_after,
                format!(
                    "Too many requests: at most {} a second after {} at once. Try again later.",
                    refused.per_second, refused.burst
                ),
            )
        })
    }
}
