//! The FEN syntax every game shares: whitespace-separated fields and the two
//! move counters. Each game reads its own placement and side to move.

use super::{FenProblem, Side};

/// Counters beyond this are absurd (the longest possible game is shorter).
const MAX_FULLMOVE: u32 = 10_000;

/// A problem with the fields of a FEN or its counters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldsError {
    #[error("the FEN is empty")]
    Empty,
    #[error("the FEN is {len} bytes long; at most {max} are allowed")]
    TooLong { len: usize, max: usize },
    #[error("character {found:?} is not allowed in a FEN")]
    BadCharacter { found: char },
    #[error("fields must be separated by single spaces")]
    BadSeparator,
    #[error("halfmove clock {found:?}: expected a number of half-moves (0 or more)")]
    BadHalfmoveClock { found: String },
    #[error("fullmove number {found:?}: expected a number from 1 to {MAX_FULLMOVE}")]
    BadFullmoveNumber { found: String },
    #[error(
        "halfmove clock {halfmoves} is larger than the {played} half-moves played before move {fullmoves}"
    )]
    HalfmoveClockTooHigh {
        halfmoves: u32,
        played: u32,
        fullmoves: u32,
    },
}

impl FenProblem for FieldsError {
    fn code(&self) -> &'static str {
        match self {
            FieldsError::Empty => "EMPTY",
            FieldsError::TooLong { .. } => "TOO_LONG",
            FieldsError::BadCharacter { .. } => "BAD_CHARACTER",
            FieldsError::BadSeparator => "BAD_SEPARATOR",
            FieldsError::BadHalfmoveClock { .. } => "BAD_HALFMOVE_CLOCK",
            FieldsError::BadFullmoveNumber { .. } => "BAD_FULLMOVE_NUMBER",
            FieldsError::HalfmoveClockTooHigh { .. } => "HALFMOVE_CLOCK_TOO_HIGH",
        }
    }
}

/// The fields of a FEN, as [`split`] finds them.
#[derive(Clone, Copy, Debug)]
pub struct Fields<'a> {
    /// The first fields: one more than any game has, so that a FEN with too
    /// many never matches a pattern of the right count.
    first: [&'a str; Fields::KEPT],
    count: usize,
}

impl<'a> Fields<'a> {
    const KEPT: usize = 7;

    /// The fields, in order (only the first seven of a longer list).
    pub fn all(&self) -> &[&'a str] {
        &self.first[..self.count.min(Fields::KEPT)]
    }

    /// How many fields there are.
    pub fn count(&self) -> usize {
        self.count
    }

    fn push(&mut self, field: &'a str) {
        if let Some(slot) = self.first.get_mut(self.count) {
            *slot = field;
        }
        self.count += 1;
    }
}

/// Splits a FEN (surrounding whitespace forgiven) into its fields: ASCII
/// letters, digits, `/` and `-` only, separated by single spaces. Every
/// request with a position reads one, so this allocates nothing and reads
/// each byte once.
pub fn split(fen: &str, max_len: usize) -> Result<Fields<'_>, FieldsError> {
    split_allowing(fen, max_len, b"")
}

/// [`split`], allowing the characters of `extra` too (a chess variant's
/// pockets and checks: `[`, `]`, `~`, `+`).
pub fn split_allowing<'a>(
    fen: &'a str,
    max_len: usize,
    extra: &[u8],
) -> Result<Fields<'a>, FieldsError> {
    let fen = fen.trim();
    if fen.is_empty() {
        return Err(FieldsError::Empty);
    }
    if fen.len() > max_len {
        return Err(FieldsError::TooLong {
            len: fen.len(),
            max: max_len,
        });
    }
    let mut fields = Fields {
        first: [""; Fields::KEPT],
        count: 0,
    };
    // A character that is not allowed is reported before an empty field,
    // wherever each is.
    let mut empty_field = false;
    let mut start = 0;
    for (i, &b) in fen.as_bytes().iter().enumerate() {
        match b {
            b' ' => {
                empty_field |= i == start;
                fields.push(&fen[start..i]);
                start = i + 1;
            }
            b'/' | b'-' => {}
            _ if b.is_ascii_alphanumeric() || extra.contains(&b) => {}
            // Every byte before this one is ASCII: a character starts here.
            _ => return Err(bad_character(fen[i..].chars().next().unwrap_or('\u{fffd}'))),
        }
    }
    fields.push(&fen[start..]);
    if empty_field {
        return Err(FieldsError::BadSeparator);
    }
    Ok(fields)
}

fn bad_character(found: char) -> FieldsError {
    if found == '_' || found.is_whitespace() {
        FieldsError::BadSeparator
    } else {
        FieldsError::BadCharacter { found }
    }
}

/// Reads the halfmove clock and fullmove number: digits only, fullmove at
/// least 1, and no more half-moves since the last irreversible move than
/// have been played.
pub fn counters(halfmoves: &str, fullmoves: &str, turn: Side) -> Result<(u32, u32), FieldsError> {
    let number = |text: &str, max: u32| {
        (text.bytes().all(|b| b.is_ascii_digit()) && text.len() <= 10)
            .then(|| text.parse::<u32>().ok())
            .flatten()
            .filter(|&n| n <= max)
    };
    let halfmoves_n = number(halfmoves, u32::MAX).ok_or_else(|| FieldsError::BadHalfmoveClock {
        found: halfmoves.to_owned(),
    })?;
    let fullmoves_n = number(fullmoves, MAX_FULLMOVE)
        .filter(|&n| n >= 1)
        .ok_or_else(|| FieldsError::BadFullmoveNumber {
            found: fullmoves.to_owned(),
        })?;
    let played = 2 * (fullmoves_n - 1) + u32::from(turn == Side::Black);
    if halfmoves_n > played {
        return Err(FieldsError::HalfmoveClockTooHigh {
            halfmoves: halfmoves_n,
            played,
            fullmoves: fullmoves_n,
        });
    }
    Ok((halfmoves_n, fullmoves_n))
}

/// "e1 and h4": squares (or points) for messages.
pub fn list<T: std::fmt::Display>(squares: &[T]) -> String {
    squares
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" and ")
}

/// A problem with the piece placement field. Ranks are indices from the
/// bottom of the board (0 = White's / Red's back rank); each game names them
/// in its own numbering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementError {
    WrongRankCount { found: usize },
    WrongRankLength { rank: u8, squares: u32 },
    ConsecutiveDigits { rank: u8, digits: String },
    BadPieceLetter { rank: u8, found: char },
}

/// Reads a placement of `ranks` ranks of `files` squares, top rank first.
/// `put(file, rank, letter)` places a piece and returns false for a letter
/// that is not a piece; it is called only for squares on the board. Runs of
/// empty squares are one digit from 1 to `files`. One pass over the bytes:
/// only a character beyond ASCII (never a piece) is decoded.
pub fn read_placement(
    placement: &str,
    files: u8,
    ranks: u8,
    mut put: impl FnMut(u8, u8, char) -> bool,
) -> Result<(), PlacementError> {
    let bytes = placement.as_bytes();
    let found = bytes.iter().filter(|&&b| b == b'/').count() + 1;
    if found != usize::from(ranks) {
        return Err(PlacementError::WrongRankCount { found });
    }
    let mut rank = ranks - 1;
    // Count on past the edge, so that a long rank is reported as such.
    let mut squares = 0u32;
    let mut digits_from = None;
    let mut j = 0;
    while let Some(&b) = bytes.get(j) {
        let c = if b.is_ascii() {
            char::from(b)
        } else {
            placement[j..].chars().next().unwrap_or('\u{fffd}')
        };
        if c == '/' {
            if squares != u32::from(files) {
                return Err(PlacementError::WrongRankLength { rank, squares });
            }
            rank -= 1;
            squares = 0;
            digits_from = None;
        } else if let Some(n) = c.to_digit(10) {
            if let Some(start) = digits_from {
                let run = &placement[start..];
                let end = run.bytes().position(|b| !b.is_ascii_digit());
                return Err(PlacementError::ConsecutiveDigits {
                    rank,
                    digits: run[..end.unwrap_or(run.len())].to_owned(),
                });
            }
            if n == 0 || n > u32::from(files) {
                return Err(PlacementError::BadPieceLetter { rank, found: c });
            }
            squares += n;
            digits_from = Some(j);
        } else {
            let on_board = u8::try_from(squares).ok().filter(|&f| f < files);
            if !on_board.is_none_or(|file| put(file, rank, c)) {
                return Err(PlacementError::BadPieceLetter { rank, found: c });
            }
            squares += 1;
            digits_from = None;
        }
        j += c.len_utf8();
    }
    if squares != u32::from(files) {
        return Err(PlacementError::WrongRankLength { rank, squares });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The letters `put` accepts in these tests.
    fn pieces(
        placement: &str,
        files: u8,
        ranks: u8,
    ) -> Result<Vec<(u8, u8, char)>, PlacementError> {
        let mut placed = Vec::new();
        read_placement(placement, files, ranks, |file, rank, c| {
            placed.push((file, rank, c));
            c.is_ascii_alphabetic()
        })
        .map(|()| placed)
    }

    #[test]
    fn placement_read_top_rank_first() {
        assert_eq!(pieces("k2/3/1Q1", 3, 3), Ok(vec![(0, 2, 'k'), (1, 0, 'Q')]));
    }

    #[test]
    fn placement_problems_name_the_rank() {
        let bad = |placement| pieces(placement, 3, 3).unwrap_err();
        assert_eq!(bad("3/3"), PlacementError::WrongRankCount { found: 2 });
        assert_eq!(
            bad("3/2/3"),
            PlacementError::WrongRankLength {
                rank: 1,
                squares: 2
            }
        );
        assert_eq!(
            bad("3/3/kkkk"),
            PlacementError::WrongRankLength {
                rank: 0,
                squares: 4
            }
        );
        assert_eq!(
            bad("3/k11/3"),
            PlacementError::ConsecutiveDigits {
                rank: 1,
                digits: "11".into()
            }
        );
        assert_eq!(
            bad("3/0k2/3"),
            PlacementError::BadPieceLetter {
                rank: 1,
                found: '0'
            }
        );
        assert_eq!(
            bad("3/4/3"),
            PlacementError::BadPieceLetter {
                rank: 1,
                found: '4'
            }
        );
        assert_eq!(
            bad("3/3/k*1"),
            PlacementError::BadPieceLetter {
                rank: 0,
                found: '*'
            }
        );
        // Beyond ASCII: one character, reported whole; past the edge it
        // counts as a square.
        assert_eq!(
            bad("3/k車1/3"),
            PlacementError::BadPieceLetter {
                rank: 1,
                found: '車'
            }
        );
        assert_eq!(
            bad("3/3車/3"),
            PlacementError::WrongRankLength {
                rank: 1,
                squares: 4
            }
        );
    }

    #[test]
    fn fields_split_at_single_spaces() {
        let fields = split("  8/8 w - -  ", 100).unwrap();
        assert_eq!(fields.all(), ["8/8", "w", "-", "-"]);
        let many = split("a b c d e f g h i", 100).unwrap();
        assert_eq!((many.count(), many.all().len()), (9, Fields::KEPT));
        assert_eq!(split(" ", 100).unwrap_err(), FieldsError::Empty);
        assert_eq!(
            split("8/8 w", 4).unwrap_err(),
            FieldsError::TooLong { len: 5, max: 4 }
        );
        assert_eq!(split("8/8  w", 100).unwrap_err(), FieldsError::BadSeparator);
        assert_eq!(split("8/8\tw", 100).unwrap_err(), FieldsError::BadSeparator);
        assert_eq!(split("8/8_w", 100).unwrap_err(), FieldsError::BadSeparator);
        // A character that is not allowed wins over an empty field before it.
        assert_eq!(
            split("8/8  w é", 100).unwrap_err(),
            FieldsError::BadCharacter { found: 'é' }
        );
        assert_eq!(
            split("8/8 w+", 100).unwrap_err(),
            FieldsError::BadCharacter { found: '+' }
        );
    }
}
