//! Perft: counting the leaf nodes of the legal move tree, the standard test
//! of a move generator.

use super::Game;

/// Number of legal move sequences of length `depth` from `pos` (bulk counting
/// at the last ply).
///
/// ```
/// use arbiter::rules::{chess::Chess, perft::perft, Game};
///
/// assert_eq!(perft(&Chess::start(), 3), 8_902);
/// ```
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal_moves() as u64;
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play(m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by root move: `(coordinate notation, count)` in move
/// generation order.
pub fn divide<G: Game>(pos: &G, depth: u32) -> Vec<(String, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play(m);
            (pos.coordinate_notation(m), perft(&child, depth - 1))
        })
        .collect()
}
