//! Moves and move lists.

use std::{fmt, ops::Deref};

use super::square::Square;

/// A xiangqi move: a piece goes from one point to another (capturing what
/// stands there). Only meaningful in the position that produced it.
///
/// Displays in ICCS coordinates (`h2e2`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    from: Square,
    to: Square,
}

impl Move {
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }

    /// The point the piece leaves.
    pub const fn from(self) -> Square {
        self.from
    }

    /// The point the piece goes to.
    pub const fn to(self) -> Square {
        self.to
    }

    /// The move back.
    #[must_use]
    pub const fn reversed(self) -> Move {
        Move::new(self.to, self.from)
    }

    /// Appends the move in ICCS (`h2e2`) to `text`, as [`fmt::Display`]
    /// writes it.
    pub fn push_iccs(self, text: &mut impl Extend<char>) {
        self.from.push_name(text);
        self.to.push_name(text);
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// More than any position has legal moves (the most is well under 128).
const CAPACITY: usize = 128;

/// The legal moves of a position, on the stack.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; CAPACITY],
    len: usize,
}

impl MoveList {
    pub(super) const fn new() -> MoveList {
        let none = Square::from_index(0);
        MoveList {
            moves: [Move::new(none, none); CAPACITY],
            len: 0,
        }
    }

    #[inline]
    pub(super) fn push(&mut self, m: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = m;
            self.len += 1;
        }
    }
}

impl Deref for MoveList {
    type Target = [Move];

    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The moves of a [`MoveList`], by value.
pub struct IntoIter {
    list: MoveList,
    next: usize,
}

impl Iterator for IntoIter {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let m = self.list.get(self.next).copied()?;
        self.next += 1;
        Some(m)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.list.len - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for IntoIter {}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter {
            list: self,
            next: 0,
        }
    }
}
