//! The seven kinds of pieces and their names.

use std::fmt;

use crate::rules::Side;

/// A kind of xiangqi piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    General,
    Advisor,
    Elephant,
    Horse,
    Chariot,
    Cannon,
    Soldier,
}

impl Kind {
    /// Every kind, in index order.
    pub const ALL: [Kind; 7] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Horse,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Soldier,
    ];

    pub(super) const fn index(self) -> usize {
        self as usize
    }

    /// The upper-case FEN letter (`K A B N R C P`).
    pub const fn fen_letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'B',
            Kind::Horse => 'N',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
        }
    }

    /// Reads a FEN letter of either case; `E` and `H` are read as `B` and `N`.
    pub const fn from_fen_letter(c: char) -> Option<Kind> {
        match c.to_ascii_uppercase() {
            'K' => Some(Kind::General),
            'A' => Some(Kind::Advisor),
            'B' | 'E' => Some(Kind::Elephant),
            'N' | 'H' => Some(Kind::Horse),
            'R' => Some(Kind::Chariot),
            'C' => Some(Kind::Cannon),
            'P' => Some(Kind::Soldier),
            _ => None,
        }
    }

    /// English name, as used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
        }
    }

    /// How many pieces of this kind a side starts with.
    pub const fn set_size(self) -> u32 {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }
}

/// A piece: its side (`White` = Red) and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub kind: Kind,
}

impl Piece {
    /// The FEN letter: upper case for Red, lower case for Black.
    pub const fn fen_char(self) -> char {
        match self.side {
            Side::White => self.kind.fen_letter(),
            Side::Black => self.kind.fen_letter().to_ascii_lowercase(),
        }
    }
}

/// "red" or "black".
pub(super) const fn side_name(side: Side) -> &'static str {
    match side {
        Side::White => "red",
        Side::Black => "black",
    }
}

impl fmt::Display for Piece {
    /// "red chariot"
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", side_name(self.side), self.kind.name())
    }
}
