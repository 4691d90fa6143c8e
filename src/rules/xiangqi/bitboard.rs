//! Sets of points as 90-bit masks.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use super::square::Square;

/// A set of points: bit `rank * 9 + file` of a `u128`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Bitboard(pub(super) u128);

impl Bitboard {
    pub(super) const EMPTY: Bitboard = Bitboard(0);
    pub(super) const ALL: Bitboard = Bitboard((1 << Square::COUNT) - 1);

    pub(super) const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    pub(super) const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    pub(super) const fn any(self) -> bool {
        self.0 != 0
    }

    pub(super) const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(super) const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest point of the set.
    pub(super) fn first(self) -> Option<Square> {
        self.into_iter().next()
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::ALL.0)
    }
}

/// The points of a set, lowest first.
pub(super) struct Squares(u128);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(Square::from_index(i))
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}
