//! Game ends and draw claims under the FIDE Laws.

use shakmaty::Position;

use super::{Castling, Orthodox};
use crate::rules::{DrawClaim, Game, GameEnd, Record, Termination, Verdict};

/// Half-moves without capture or pawn move after which a draw can be claimed.
const FIFTY_MOVES: u32 = 100;
/// Half-moves without capture or pawn move after which the game is drawn.
pub(super) const SEVENTY_FIVE_MOVES: u32 = 150;

/// Judges the current position of `record`, in the order python-chess and the
/// Laws imply: mate beats everything (a mate on the 75th move stands), then
/// dead positions, stalemate, and the automatic draws; claims last.
pub(super) fn adjudicate<C: Castling>(record: &Record<Orthodox<C>>, has_moves: bool) -> Verdict {
    let current = record.current();
    let pos = current.position();
    let end = if !has_moves && pos.is_check() {
        Some(GameEnd::win(current.turn().other(), Termination::Checkmate))
    } else if pos.is_insufficient_material() {
        Some(GameEnd::draw(Termination::InsufficientMaterial))
    } else if !has_moves {
        Some(GameEnd::draw(Termination::Stalemate))
    } else if pos.halfmoves() >= SEVENTY_FIVE_MOVES {
        Some(GameEnd::draw(Termination::SeventyFiveMoves))
    } else if record.repetitions() >= 5 {
        Some(GameEnd::draw(Termination::FivefoldRepetition))
    } else {
        None
    };
    let claimable = if end.is_none() {
        claims(record, pos.halfmoves())
    } else {
        Vec::new()
    };
    Verdict { end, claimable }
}

/// The draws a player may claim in a game not over: threefold repetition,
/// and fifty moves by the halfmove clock.
pub(super) fn claims<G: Game>(record: &Record<G>, halfmoves: u32) -> Vec<DrawClaim> {
    let mut claimable = Vec::new();
    if record.repetitions() >= 3 {
        claimable.push(DrawClaim::ThreefoldRepetition);
    }
    if halfmoves >= FIFTY_MOVES {
        claimable.push(DrawClaim::FiftyMoves);
    }
    claimable
}
