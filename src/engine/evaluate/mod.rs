//! Static evaluation, one file per game, behind the [`Evaluate`] trait the
//! search is generic over.

mod chess;
mod exchange;
mod score;
mod variants;
mod xiangqi;

use crate::rules::{Game, Side};

/// What the search needs to know about a game beyond its rules.
pub trait Evaluate: Game {
    /// The position's value for the side to move, in centipawns.
    fn evaluate(&self) -> i32;
    /// The value of the piece `m` captures (0 for a quiet move), for
    /// most-valuable-victim ordering.
    fn victim_value(&self, m: Self::Move) -> i32;
    /// The value of the piece making `m`, for least-valuable-attacker
    /// ordering.
    fn attacker_value(&self, m: Self::Move) -> i32;
    /// Does `m` keep at least `threshold` centipawns of material once the
    /// exchange on its target square is played out (static exchange
    /// evaluation)? A game without one answers `true`: no move is judged
    /// to lose material.
    fn exchange_at_least(&self, m: Self::Move, threshold: i32) -> bool {
        let _ = (m, threshold);
        true
    }
    /// A non-zero number identifying `m` among the moves of its position,
    /// for the transposition table.
    fn move_key(m: Self::Move) -> u32;
    /// The position with the other side to move, for null-move pruning;
    /// `None` when passing is unsafe to assume (in check, or only pawns and
    /// king left, where zugzwang is common).
    fn null_move(&self) -> Option<Self>;
    /// The score of having no legal move while not in check, for the side to
    /// move: a draw in chess, a loss in xiangqi.
    const STALEMATE_IS_LOSS: bool;
    /// The result of a position without legal moves for the side to move:
    /// lost (`Less`), drawn or won (`Greater`). Mate loses, stalemate as
    /// [`Evaluate::STALEMATE_IS_LOSS`] says; a chess variant judges its own
    /// ends (the king exploded, the third check given, no pieces left).
    fn without_moves(&self, in_check: bool) -> std::cmp::Ordering {
        if in_check || Self::STALEMATE_IS_LOSS {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Equal
        }
    }
    /// Late-move pruning by move count up to depth 6: at a node that may be
    /// pruned, a quiet move is skipped once `(3 + depth²) / 2` moves were
    /// tried, or `3 + depth²` where the static evaluation has risen since
    /// the side's previous move. Without it, a fixed count at depth 1-3.
    /// Xiangqi, with many quiet moves a position, gains from it.
    const MOVE_COUNT_PRUNING: bool = false;
    /// A root search that falls outside its aspiration window is searched
    /// again with the window widened step by step on the failing side
    /// (doubling, unbounded past 500 centipawns; a fail low also draws beta
    /// to the window's middle); without it, opened fully on that side.
    const GRADUAL_ASPIRATION: bool = false;
    /// Are repetition cycles judged under `options` (xiangqi's perpetual
    /// check and chase), rather than every repetition drawn (chess, and
    /// xiangqi played with repetitions drawn)?
    fn judges_repetitions(options: &Self::Options) -> bool {
        let _ = options;
        false
    }
    /// The side that loses by the repetition cycle `positions` (its first
    /// and last positions the same, `moves[i]` leading from `positions[i]`
    /// to `positions[i + 1]`), or `None` when the repetition is a draw. Asked
    /// only where [`Evaluate::judges_repetitions`].
    fn repetition_loser(positions: &[Self], moves: &[Self::Move]) -> Option<Side> {
        let _ = (positions, moves);
        None
    }
}
