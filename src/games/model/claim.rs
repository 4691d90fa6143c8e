//! Who claims a seat: the holder of its seat token, or the player it is
//! bound to.

use super::{
    error::{GameError, Refusal},
    ids,
};
use crate::{reason::Reason, rules::Side, store::StoredGame};

/// A claim on one of a game's seats, as a request makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatClaim<'a> {
    /// The seat's token (CreateGame's, JoinGame's or a rematch's).
    Token(&'a str),
    /// A player, by id, acting on the seat bound to them.
    Player(&'a str),
}

impl<'a> From<&'a str> for SeatClaim<'a> {
    fn from(token: &'a str) -> SeatClaim<'a> {
        SeatClaim::Token(token)
    }
}

impl<'a> From<&'a String> for SeatClaim<'a> {
    fn from(token: &'a String) -> SeatClaim<'a> {
        SeatClaim::Token(token)
    }
}

impl<'a> SeatClaim<'a> {
    /// The seat token, for a claim made with one.
    pub(in crate::games) fn token(self) -> Option<&'a str> {
        match self {
            SeatClaim::Token(token) => Some(token),
            SeatClaim::Player(_) => None,
        }
    }
}

/// The side `claim` holds in `game`.
pub(in crate::games) fn seat(game: &StoredGame, claim: SeatClaim<'_>) -> Result<Side, GameError> {
    match claim {
        SeatClaim::Token(token) => seat_of_token(game, token),
        SeatClaim::Player(id) => {
            if game.white_player.as_deref() == Some(id) {
                Ok(Side::White)
            } else if game.black_player.as_deref() == Some(id) {
                Ok(Side::Black)
            } else {
                Err(GameError::PermissionDenied(Refusal::new(
                    Reason::NotYourSeat,
                    "no seat of this game is bound to you: act on another player's seat with \
                     its seat token",
                )))
            }
        }
    }
}

fn seat_of_token(game: &StoredGame, token: &str) -> Result<Side, GameError> {
    if token.is_empty() {
        return Err(GameError::Unauthenticated(Refusal::new(
            Reason::SeatTokenMissing,
            "seat_token is required: use the token CreateGame returned for your seat",
        )));
    }
    let hash = ids::hash_token(token);
    if hash == game.white_token_hash {
        Ok(Side::White)
    } else if hash == game.black_token_hash {
        Ok(Side::Black)
    } else {
        Err(GameError::Unauthenticated(Refusal::new(
            Reason::SeatTokenUnknown,
            "seat_token does not belong to either seat of this game",
        )))
    }
}
