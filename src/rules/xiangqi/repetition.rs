//! Repetition judgement (Asian rules, as engines approximate them).
//!
//! On the third occurrence of a position the game ends. Each side's conduct
//! during the repetition cycle is judged by the offence rules: a side that
//! gave check with every one of its moves in the cycle loses (perpetual
//! check). If both sides, or neither, offended, the game is drawn.
//!
//! Only perpetual check is implemented. Perpetual *chase* (attacking the same
//! unprotected piece with every move) is a separate offence that will be its
//! own rule beside [`perpetual_check`], combined in [`judge`]; until then a
//! perpetual chase is judged a draw.

use super::Xiangqi;
use crate::rules::{Game, GameEnd, Record, Side, Termination};

/// The plies of the repetition cycle: the positions from the first
/// occurrence of the current position to the current one.
struct Cycle<'a> {
    positions: &'a [Xiangqi],
}

impl Cycle<'_> {
    /// The positions reached by `side`'s moves in the cycle.
    fn after_moves_of(&self, side: Side) -> impl Iterator<Item = &Xiangqi> {
        self.positions
            .windows(2)
            .filter(move |pair| pair[0].turn == side)
            .map(|pair| &pair[1])
    }
}

/// Did `side` give check with every one of its moves in the cycle?
fn perpetual_check(cycle: &Cycle<'_>, side: Side) -> bool {
    let mut moves = cycle.after_moves_of(side).peekable();
    moves.peek().is_some() && moves.all(Game::is_check)
}

/// The end of the game if the current position occurs for the third time.
pub(super) fn judge(record: &Record<Xiangqi>) -> Option<GameEnd> {
    if record.repetitions() < 3 {
        return None;
    }
    let first = record.earlier_occurrences().last()?;
    let cycle = Cycle {
        positions: record.positions().get(first..)?,
    };
    let offends = |side| perpetual_check(&cycle, side);
    Some(match (offends(Side::White), offends(Side::Black)) {
        (true, false) => GameEnd::win(Side::Black, Termination::PerpetualCheck),
        (false, true) => GameEnd::win(Side::White, Termination::PerpetualCheck),
        _ => GameEnd::draw(Termination::ThreefoldRepetition),
    })
}
