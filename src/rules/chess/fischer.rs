//! Chess960's start positions, numbered 0-959 as Scharnagl numbered them
//! (518 is the standard start).

use std::fmt;

use shakmaty::{Bitboard, Board, CastlingMode, FromSetup, Setup};

use crate::rules::Game;

use super::{Chess960, Orthodox};

/// How many start positions Chess960 has.
pub const START_COUNT: u16 = 960;

/// One of Chess960's start positions, by its number.
///
/// ```
/// use arbiter::rules::{chess::Chess960Start, Game};
///
/// let start = Chess960Start::new(518).unwrap();
/// assert_eq!(
///     start.position().fen(),
///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
/// );
/// assert!(Chess960Start::new(960).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chess960Start(u16);

impl Chess960Start {
    /// Start position `number`; `None` past 959.
    pub const fn new(number: u16) -> Option<Chess960Start> {
        if number < START_COUNT {
            Some(Chess960Start(number))
        } else {
            None
        }
    }

    /// A start drawn at random, as a game with no start chosen gets.
    pub fn random() -> Chess960Start {
        Chess960Start(rand::random_range(0..START_COUNT))
    }

    /// The number, 0-959.
    pub const fn number(self) -> u16 {
        self.0
    }

    /// The start position, every rook with its castling right.
    pub fn position(self) -> Chess960 {
        let board = Board::chess960(u32::from(self.0));
        let setup = Setup {
            castling_rights: board.rooks() & Bitboard::BACKRANKS,
            board,
            ..Setup::initial()
        };
        Orthodox::of(
            shakmaty::Chess::from_setup(setup, CastlingMode::Chess960)
                .expect("every Chess960 start is legal"),
        )
    }

    /// The number of the start `fen` is, exactly as [`Chess960Start::position`]
    /// writes it (before any move, every castling right); `None` for any
    /// other position.
    pub fn of_fen(fen: &str) -> Option<Chess960Start> {
        let rank = fen.split([' ', '/']).nth(7)?;
        let start = Chess960Start::new(scharnagl(rank)?)?;
        (start.position().fen() == fen).then_some(start)
    }
}

/// Scharnagl's number of a first rank of eight pieces (`BBQNNRKR`), read
/// back from where the bishops, the queen and the knights stand.
fn scharnagl(rank: &str) -> Option<u16> {
    let files: Vec<char> = rank.chars().collect();
    if files.len() != 8 {
        return None;
    }
    let files = &files;
    let on = |piece: char| (0..8u16).filter(move |&f| files[usize::from(f)] == piece);
    let (mut light, mut dark) = (None, None);
    for file in on('B') {
        *(if file % 2 == 1 { &mut light } else { &mut dark }) = Some(file);
    }
    let (light, dark) = (light?, dark?);
    let rest = |taken: &[u16]| (0..8u16).filter(|f| !taken.contains(f)).collect::<Vec<_>>();
    let after_bishops = rest(&[light, dark]);
    let queen = on('Q').next()?;
    let q = after_bishops.iter().position(|&f| f == queen)? as u16;
    let after_queen = rest(&[light, dark, queen]);
    let knights: Vec<u16> = on('N')
        .filter_map(|f| after_queen.iter().position(|&g| g == f).map(|i| i as u16))
        .collect();
    let [first, second] = knights[..] else {
        return None;
    };
    // The ten ways to place two knights on five free files, in order.
    let pairs = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let n = pairs.iter().position(|&p| p == (first, second))? as u16;
    Some(light / 2 + 4 * (dark / 2) + 16 * q + 96 * n)
}

impl fmt::Display for Chess960Start {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published starts (X-FEN, from the Chess960 numbering tables).
    #[test]
    fn numbered_starts_are_the_published_ones() {
        for (number, fen) in [
            (
                0,
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
            ),
            (
                1,
                "bqnbnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w KQkq - 0 1",
            ),
            (
                959,
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
            ),
        ] {
            let start = Chess960Start::new(number).unwrap();
            assert_eq!(start.position().fen(), fen, "{number}");
            assert_eq!(Chess960Start::of_fen(fen), Some(start));
        }
    }

    /// Every start is found back from its FEN, and nothing else is a start.
    #[test]
    fn every_start_is_read_back_from_its_fen() {
        for number in 0..START_COUNT {
            let start = Chess960Start::new(number).unwrap();
            assert_eq!(Chess960Start::of_fen(&start.position().fen()), Some(start));
        }
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1",
            "",
        ] {
            assert_eq!(Chess960Start::of_fen(fen), None, "{fen}");
        }
    }
}
