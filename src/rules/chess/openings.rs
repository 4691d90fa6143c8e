//! Chess openings named by position, from the Lichess openings dataset
//! (`data/openings/`, CC0), so that a game reaching a named position by
//! another order of moves is named too. A game is named by the last named
//! position it reached, as Lichess names them.

use std::{collections::HashMap, sync::LazyLock};

/// The dataset: ECO, name, moves (UCI), position key, a line each after
/// the header.
const DATASET: &str = include_str!("../../../data/openings/openings.tsv");

/// The most plies a named line has is well under this: later positions are
/// not looked up.
const MAX_PLIES: usize = 50;

/// A named opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The ECO code, `A00` to `E99`.
    pub eco: &'static str,
    pub name: &'static str,
    /// The line's moves in UCI, from the standard start.
    pub uci: &'static str,
}

/// Openings by position key (the first line naming a position keeps it).
static BY_POSITION: LazyLock<HashMap<&'static str, Opening>> = LazyLock::new(|| {
    let mut openings = HashMap::new();
    for (position, opening) in all() {
        openings.entry(position).or_insert(opening);
    }
    openings
});

/// A FEN's board, side to move and castling: what names a position here.
pub fn position_key(fen: &str) -> String {
    fen.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// The opening named by the position `fen`, if any.
pub fn named(fen: &str) -> Option<Opening> {
    BY_POSITION.get(position_key(fen).as_str()).copied()
}

/// The opening of a game from the standard start whose positions after
/// each move are `fens`: the last named one it reached.
pub fn opening_of<'a>(fens: impl IntoIterator<Item = &'a str>) -> Option<Opening> {
    fens.into_iter().take(MAX_PLIES).filter_map(named).last()
}

/// Every opening of the dataset, with its position key.
pub fn all() -> impl Iterator<Item = (&'static str, Opening)> {
    DATASET.lines().skip(1).filter_map(|line| {
        let mut fields = line.split('\t');
        let (eco, name, uci, position) = (
            fields.next()?,
            fields.next()?,
            fields.next()?,
            fields.next()?,
        );
        Some((position, Opening { eco, name, uci }))
    })
}
