//! Points of the board, named in ICCS coordinates.

use std::fmt;

use crate::rules::MoveText;

/// A point of the 9 x 10 board: file `a`-`i` from Red's left, rank `0`-`9`
/// from Red's side (ICCS / UCCI coordinates, as Pikafish writes them).
///
/// Fairy-Stockfish and pyffish number the ranks 1-10 instead, so their `h3`
/// is this `h2`; only the 0-9 form is read and written here.
///
/// ```
/// use arbiter::rules::xiangqi::Square;
///
/// let sq = Square::new(7, 2).unwrap();
/// assert_eq!(sq.to_string(), "h2");
/// assert_eq!(Square::from_iccs("h2"), Some(sq));
/// assert_eq!(Square::from_iccs("h10"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Number of points on the board.
    pub const COUNT: usize = 90;
    /// Number of files (a-i).
    pub const FILES: u8 = 9;
    /// Number of ranks (0-9).
    pub const RANKS: u8 = 10;

    /// The point on `file` (0 = a) and `rank` (0 = Red's back rank).
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < Square::FILES && rank < Square::RANKS {
            Some(Square(rank * Square::FILES + file))
        } else {
            None
        }
    }

    /// The point with index `i` (`rank * 9 + file`); `i` must be below 90.
    pub(super) const fn from_index(i: usize) -> Square {
        debug_assert!(i < Square::COUNT);
        Square(i as u8)
    }

    /// `rank * 9 + file`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 (a) to 8 (i).
    pub const fn file(self) -> u8 {
        self.0 % Square::FILES
    }

    /// Rank, 0 (Red's back rank) to 9 (Black's back rank).
    pub const fn rank(self) -> u8 {
        self.0 / Square::FILES
    }

    /// The point `df` files and `dr` ranks away, if it is on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let file = self.file() as i8 + df;
        let rank = self.rank() as i8 + dr;
        if file < 0 || rank < 0 {
            None
        } else {
            Square::new(file as u8, rank as u8)
        }
    }

    /// Reads an ICCS point such as `h2` (lower or upper case file).
    pub fn from_iccs(text: &str) -> Option<Square> {
        match text.as_bytes() {
            &[file, rank] => {
                let file = file.to_ascii_lowercase().checked_sub(b'a')?;
                let rank = rank.checked_sub(b'0')?;
                Square::new(file, rank)
            }
            _ => None,
        }
    }
}

impl Square {
    /// The point's ICCS name (`e0`), as [`fmt::Display`] writes it but
    /// without the formatting machinery (answers list hundreds).
    pub fn name(self) -> MoveText {
        MoveText::from_chars(self.name_chars())
    }

    pub(super) fn push_name(self, text: &mut impl Extend<char>) {
        text.extend(self.name_chars());
    }

    /// File letter and rank digit.
    fn name_chars(self) -> [char; 2] {
        [
            char::from(b'a' + self.file()),
            char::from(b'0' + self.rank()),
        ]
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [file, rank] = self.name_chars();
        write!(f, "{file}{rank}")
    }
}
