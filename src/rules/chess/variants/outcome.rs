//! Game ends of the Lichess variants: the variant's own end first, then the
//! chess ends and draw claims as python-chess applies them to variants.

use shakmaty::{KnownOutcome, Outcome};

use super::{Lichess, LichessRules};
use crate::rules::{
    Game, GameEnd, Record, Termination, Verdict,
    chess::{
        outcome::{SEVENTY_FIVE_MOVES, claims},
        side_of,
    },
};

pub(super) fn adjudicate<P: LichessRules>(record: &Record<Lichess<P>>, has_moves: bool) -> Verdict {
    let current = record.current();
    let pos = current.position();
    let halfmoves = if P::MOVE_COUNT_RULES {
        pos.halfmoves()
    } else {
        0
    };
    let end = match pos.variant_outcome() {
        Outcome::Known(KnownOutcome::Decisive { winner }) => {
            Some(GameEnd::win(side_of(winner), pos.end_termination()))
        }
        Outcome::Known(KnownOutcome::Draw) => Some(GameEnd::draw(pos.end_termination())),
        Outcome::Unknown if !has_moves && current.is_check() => {
            Some(GameEnd::win(current.turn().other(), Termination::Checkmate))
        }
        Outcome::Unknown if pos.is_insufficient_material() => {
            Some(GameEnd::draw(Termination::InsufficientMaterial))
        }
        Outcome::Unknown if !has_moves => Some(GameEnd::draw(Termination::Stalemate)),
        Outcome::Unknown if halfmoves >= SEVENTY_FIVE_MOVES => {
            Some(GameEnd::draw(Termination::SeventyFiveMoves))
        }
        Outcome::Unknown if record.repetitions() >= 5 => {
            Some(GameEnd::draw(Termination::FivefoldRepetition))
        }
        Outcome::Unknown => None,
    };
    let claimable = if end.is_none() {
        claims(record, halfmoves)
    } else {
        Vec::new()
    };
    Verdict { end, claimable }
}
