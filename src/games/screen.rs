//! Refusing a seat's request from the game's row alone, before it may wait
//! for the writer: a wrong token, a finished game, a stale `expected_ply` or
//! a move out of turn costs one indexed read (none for a live game that
//! lets it through), never the writer, the move list or a replay. The write
//! checks everything again: the store stays the truth, this only keeps
//! refusals off the one writer.

use super::{
    Games,
    model::{
        GameError, SeatClaim, ensure_ongoing, ensure_ply, ensure_seated, ensure_turn, seat,
        turn_after,
    },
};
use crate::store::StoredGame;

/// What a request needs.
#[derive(Clone, Copy, Debug)]
pub(super) enum Needs {
    /// A seat in an ongoing game.
    Seat,
    /// A seat in an ongoing game whose other seat is taken.
    Opponent,
    /// A seat in an ongoing game whose other seat is taken, its turn, at
    /// `expected_ply` if given.
    Move { expected_ply: Option<u32> },
}

impl Needs {
    /// Whether the other seat must be taken.
    pub(super) fn opponent(self) -> bool {
        !matches!(self, Needs::Seat)
    }
}

impl Games {
    /// Refuses what the write would refuse for the seat `claim` holds,
    /// with the same error, from the game's row.
    pub(super) async fn screen(
        &self,
        id: &str,
        claim: SeatClaim<'_>,
        needs: Needs,
    ) -> Result<(), GameError> {
        // A live game that passes is enough (the write judges again); one
        // that refuses may be behind the store, which decides.
        let passes = |game: &StoredGame, ply| judge(game, ply, claim, needs).is_ok();
        if self.live.peek(id, passes) == Some(true) {
            return Ok(());
        }
        let head = self
            .store
            .game_head(id)
            .await?
            .ok_or_else(|| GameError::game_not_found(id))?;
        judge(&head.game, head.ply, claim, needs)
    }
}

/// What the write would refuse of `needs` for the seat `claim` holds,
/// from `game`'s row (`ply` moves played).
fn judge(
    game: &StoredGame,
    ply: usize,
    claim: SeatClaim<'_>,
    needs: Needs,
) -> Result<(), GameError> {
    let side = seat(game, claim)?;
    ensure_ongoing(game)?;
    if needs.opponent() {
        ensure_seated(game)?;
    }
    if let Needs::Move { expected_ply } = needs {
        ensure_ply(expected_ply, ply)?;
        let variant = game.variant;
        ensure_turn(variant, turn_after(&game.start_fen, ply), side)?;
    }
    Ok(())
}
