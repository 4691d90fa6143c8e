//! Strict FEN reading and writing.
//!
//! The standard form has six fields, as Fairy-Stockfish and pyffish write
//! it: `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`.
//! The castling and en-passant fields must be `-`. The two-field form
//! (placement and side, as in many xiangqi databases and UCCI's
//! `position fen`) is also accepted, with a halfmove clock of 0 and move 1.
//! `e`/`h` are read as elephant and horse (`b`/`n`), and `r` as Red to move;
//! the standard letters and `w` are written. Fairy-Stockfish's holdings
//! suffix (`[]`) is rejected.
//!
//! The halfmove clock counts half-moves since the last capture (soldier
//! moves do not reset it in xiangqi).

use super::{
    Placement, Xiangqi,
    attacks::{in_palace, side_index},
    bitboard::Bitboard,
    piece::{Kind, Piece, side_name},
    square::Square,
};
use crate::rules::{
    FenProblem, InvalidFen, Side,
    fen_fields::{self, FieldsError, PlacementError, list},
};

/// The longest FEN accepted (a full board with long counters is ~100 bytes).
const MAX_FEN_LEN: usize = 160;

/// Why a xiangqi FEN was rejected. Ranks are numbered 0-9 from Red's side
/// (ICCS), so the first rank of the FEN is rank 9.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error(transparent)]
    Fields(#[from] FieldsError),
    #[error(
        "the FEN has {found} field(s); expected 6 (placement, side to move, '-', '-', \
         halfmove clock, move number) or 2 (placement, side to move)"
    )]
    WrongFieldCount { found: usize },
    #[error("the board has {found} ranks separated by '/'; expected 10")]
    WrongRankCount { found: usize },
    #[error("rank {rank} has {points} points; expected 9")]
    WrongRankLength { rank: u8, points: u32 },
    #[error(
        "rank {rank} has consecutive digits {digits:?}; write a run of empty points as one digit"
    )]
    ConsecutiveDigits { rank: u8, digits: String },
    #[error("rank {rank}: {found:?} is not a piece letter (KABNRCP, or E/H) or a digit 1-9")]
    BadPieceLetter { rank: u8, found: char },
    #[error("side to move {found:?}: expected 'w' (or 'r') for Red, or 'b' for Black")]
    BadTurn { found: String },
    #[error("castling field {found:?}: xiangqi has no castling, expected '-'")]
    BadCastling { found: String },
    #[error("en-passant field {found:?}: xiangqi has no en passant, expected '-'")]
    BadEnPassant { found: String },
    #[error("{} has no general", side_name(*.side))]
    MissingGeneral { side: Side },
    #[error("{} has {count} generals; expected exactly one", side_name(*.side))]
    TooManyGenerals { side: Side, count: u32 },
    #[error("the {piece} on {square} stands where it can never go ({})", reachable(.piece.kind))]
    UnreachablePoint { piece: Piece, square: Square },
    #[error("{} has {count} {}s; a set has {}", side_name(*.side), .kind.name(), .kind.set_size())]
    TooManyPieces { side: Side, kind: Kind, count: u32 },
    #[error("the generals face each other on file {file} with nothing between them")]
    GeneralsFacing { file: char },
    #[error(
        "{} is in check from {} but it is not {}'s turn",
        side_name(*.side), list(.checkers), side_name(*.side)
    )]
    OppositeCheck { side: Side, checkers: Vec<Square> },
}

const fn reachable(kind: Kind) -> &'static str {
    match kind {
        Kind::General => "a general stays in its palace",
        Kind::Advisor => "an advisor stays on the five diagonal points of its palace",
        Kind::Elephant => "an elephant stays on the seven points of its own half it can reach",
        Kind::Soldier => {
            "a soldier never moves back, nor sideways before the river: it starts on the a, c, \
             e, g and i files"
        }
        Kind::Horse | Kind::Chariot | Kind::Cannon => "any point",
    }
}

impl FenProblem for FenError {
    fn code(&self) -> &'static str {
        match self {
            FenError::Fields(e) => e.code(),
            FenError::WrongFieldCount { .. } => "WRONG_FIELD_COUNT",
            FenError::WrongRankCount { .. } => "WRONG_RANK_COUNT",
            FenError::WrongRankLength { .. } => "WRONG_RANK_LENGTH",
            FenError::ConsecutiveDigits { .. } => "CONSECUTIVE_DIGITS",
            FenError::BadPieceLetter { .. } => "BAD_PIECE_LETTER",
            FenError::BadTurn { .. } => "BAD_TURN",
            FenError::BadCastling { .. } => "BAD_CASTLING",
            FenError::BadEnPassant { .. } => "BAD_EN_PASSANT",
            FenError::MissingGeneral { .. } => "MISSING_GENERAL",
            FenError::TooManyGenerals { .. } => "TOO_MANY_GENERALS",
            FenError::UnreachablePoint { piece, .. } => match piece.kind {
                Kind::General => "GENERAL_OUTSIDE_PALACE",
                Kind::Advisor => "ADVISOR_UNREACHABLE_POINT",
                Kind::Elephant => "ELEPHANT_UNREACHABLE_POINT",
                _ => "SOLDIER_UNREACHABLE_POINT",
            },
            FenError::TooManyPieces { .. } => "TOO_MANY_PIECES",
            FenError::GeneralsFacing { .. } => "GENERALS_FACING",
            FenError::OppositeCheck { .. } => "OPPOSITE_CHECK",
        }
    }
}

type Result<T> = std::result::Result<T, InvalidFen<FenError>>;

/// Parses a FEN strictly into a legal position.
pub(super) fn parse(fen: &str) -> Result<Xiangqi> {
    let pos = parse_fields(fen).map_err(InvalidFen::one)?;
    let problems = position_problems(&pos);
    if problems.is_empty() {
        Ok(pos)
    } else {
        Err(InvalidFen { problems })
    }
}

/// The syntax pass: stops at the first problem, since later fields cannot be
/// read reliably once one is wrong.
fn parse_fields(fen: &str) -> std::result::Result<Xiangqi, FenError> {
    let fields = fen_fields::split(fen, MAX_FEN_LEN)?;
    let (placement, turn, counters) = match *fields.all() {
        [placement, turn] => (placement, turn, None),
        [placement, turn, castling, ep, halfmoves, fullmoves] => {
            if castling != "-" {
                return Err(FenError::BadCastling {
                    found: castling.to_owned(),
                });
            }
            if ep != "-" {
                return Err(FenError::BadEnPassant {
                    found: ep.to_owned(),
                });
            }
            (placement, turn, Some((halfmoves, fullmoves)))
        }
        _ => {
            return Err(FenError::WrongFieldCount {
                found: fields.count(),
            });
        }
    };
    let mut pos = parse_placement(placement)?;
    pos.turn = match turn {
        "w" | "r" => Side::White,
        "b" => Side::Black,
        _ => {
            return Err(FenError::BadTurn {
                found: turn.to_owned(),
            });
        }
    };
    if let Some((halfmoves, fullmoves)) = counters {
        let (halfmoves, fullmoves) = fen_fields::counters(halfmoves, fullmoves, pos.turn)?;
        pos.halfmoves = halfmoves;
        pos.fullmoves = fullmoves;
    }
    Ok(pos)
}

fn parse_placement(placement: &str) -> std::result::Result<Xiangqi, FenError> {
    let mut pieces = Placement::default();
    fen_fields::read_placement(placement, Square::FILES, Square::RANKS, |file, rank, c| {
        let (Some(kind), Some(sq)) = (Kind::from_fen_letter(c), Square::new(file, rank)) else {
            return false;
        };
        let side = if c.is_ascii_uppercase() {
            Side::White
        } else {
            Side::Black
        };
        pieces.put(sq, Piece { side, kind });
        true
    })
    .map_err(|e| {
        // ICCS ranks are numbered 0-9 from Red's side, as the indices are.
        match e {
            PlacementError::WrongRankCount { found } => FenError::WrongRankCount { found },
            PlacementError::WrongRankLength { rank, squares } => FenError::WrongRankLength {
                rank,
                points: squares,
            },
            PlacementError::ConsecutiveDigits { rank, digits } => {
                FenError::ConsecutiveDigits { rank, digits }
            }
            PlacementError::BadPieceLetter { rank, found } => {
                FenError::BadPieceLetter { rank, found }
            }
        }
    })?;
    Ok(pieces.into_position())
}

/// Rank counted from `side`'s own back rank (0) forward.
const fn relative_rank(side: Side, sq: Square) -> u8 {
    match side {
        Side::White => sq.rank(),
        Side::Black => Square::RANKS - 1 - sq.rank(),
    }
}

/// Can a piece ever stand on `sq`?
const fn can_stand(piece: Piece, sq: Square) -> bool {
    let rank = relative_rank(piece.side, sq);
    let file = sq.file();
    match piece.kind {
        Kind::General => in_palace(sq) && rank <= 2,
        Kind::Advisor => in_palace(sq) && rank <= 2 && (file + rank) % 2 == 1,
        Kind::Elephant => {
            rank <= 4
                && rank.is_multiple_of(2)
                && file.is_multiple_of(2)
                && (file / 2 + rank / 2) % 2 == 1
        }
        Kind::Soldier => rank >= 5 || (rank >= 3 && file.is_multiple_of(2)),
        Kind::Horse | Kind::Chariot | Kind::Cannon => true,
    }
}

/// The points each piece can ever stand on, by side and kind: a position
/// is checked with one mask per piece set, not point by point.
const STANDING: [[Bitboard; Kind::ALL.len()]; 2] = {
    let mut table = [[Bitboard::EMPTY; Kind::ALL.len()]; 2];
    let sides = [Side::White, Side::Black];
    let mut s = 0;
    while s < sides.len() {
        let mut k = 0;
        while k < Kind::ALL.len() {
            let piece = Piece {
                side: sides[s],
                kind: Kind::ALL[k],
            };
            let mut i = 0;
            while i < Square::COUNT {
                if can_stand(piece, Square::from_index(i)) {
                    table[side_index(piece.side)][piece.kind.index()].0 |= 1 << i;
                }
                i += 1;
            }
            k += 1;
        }
        s += 1;
    }
    table
};

/// Every problem of the position itself.
fn position_problems(pos: &Xiangqi) -> Vec<FenError> {
    let mut problems = Vec::new();
    let mut generals = [None, None];
    for side in [Side::White, Side::Black] {
        for kind in Kind::ALL {
            let pieces = pos.pieces_of(side, kind);
            let count = pieces.count();
            if kind == Kind::General {
                match count {
                    0 => problems.push(FenError::MissingGeneral { side }),
                    1 => generals[side_index(side)] = pieces.first(),
                    _ => problems.push(FenError::TooManyGenerals { side, count }),
                }
            } else if count > kind.set_size() {
                problems.push(FenError::TooManyPieces { side, kind, count });
            }
            let piece = Piece { side, kind };
            let stranded = pieces & !STANDING[side_index(side)][kind.index()];
            problems.extend(
                stranded
                    .into_iter()
                    .map(|square| FenError::UnreachablePoint { piece, square }),
            );
        }
    }
    let [Some(red), Some(black)] = generals else {
        return problems;
    };
    let generals = Bitboard::from_square(red) | Bitboard::from_square(black);
    if red.file() == black.file()
        && pos
            .attackers(red, Side::Black, pos.occupied, Bitboard::EMPTY)
            .contains(black)
    {
        problems.push(FenError::GeneralsFacing {
            file: char::from(b'a' + red.file()),
        });
    }
    let waiting = !pos.turn;
    let checkers = pos.checkers(waiting) & !generals;
    if checkers.any() {
        problems.push(FenError::OppositeCheck {
            side: waiting,
            checkers: checkers.into_iter().collect(),
        });
    }
    problems
}

/// The FEN in standard six-field form.
pub(super) fn write(pos: &Xiangqi) -> String {
    // The board as letters first, from some 32 pieces, rather than asking
    // each of the 90 points which piece stands there.
    let mut letters = [0u8; Square::COUNT];
    for side in [Side::White, Side::Black] {
        for kind in Kind::ALL {
            // FEN letters are ASCII.
            let letter = Piece { side, kind }.fen_char() as u8;
            for sq in pos.pieces_of(side, kind) {
                letters[sq.index()] = letter;
            }
        }
    }
    let mut fen = Vec::with_capacity(100);
    for rank in letters.chunks_exact(usize::from(Square::FILES)).rev() {
        let mut empty = 0u8;
        for &letter in rank {
            if letter == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                fen.push(b'0' + empty);
                empty = 0;
            }
            fen.push(letter);
        }
        if empty > 0 {
            fen.push(b'0' + empty);
        }
        fen.push(b'/');
    }
    // The last rank has no slash after it.
    fen.pop();
    fen.extend_from_slice(match pos.turn {
        Side::White => b" w - - ",
        Side::Black => b" b - - ",
    });
    push_number(&mut fen, pos.halfmoves);
    fen.push(b' ');
    push_number(&mut fen, pos.fullmoves);
    // Only ASCII was written.
    String::from_utf8(fen).unwrap_or_default()
}

/// Appends `n` in decimal, without the formatting machinery.
fn push_number(text: &mut Vec<u8>, n: u32) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    let mut rest = n;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    text.extend_from_slice(&digits[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 9 palace points for the general, 5 for an advisor, 7 for an
    /// elephant, 55 for a soldier (10 before the river, 45 beyond), all 90
    /// for the others; Black's are Red's turned around.
    #[test]
    fn standing_points_per_piece() {
        let expected = [9, 5, 7, 90, 90, 90, 55];
        for kind in Kind::ALL {
            let [red, black] = STANDING.map(|by_kind| by_kind[kind.index()]);
            assert_eq!(red.count(), expected[kind.index()], "{kind:?}");
            assert_eq!(black.count(), red.count(), "{kind:?}");
            assert!(
                red.into_iter()
                    .all(|sq| black.contains(Square::from_index(Square::COUNT - 1 - sq.index()))),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn numbers_in_decimal() {
        for n in [0, 7, 10, 99, 100, 4_096, u32::MAX] {
            let mut text = Vec::new();
            push_number(&mut text, n);
            assert_eq!(text, n.to_string().as_bytes());
        }
    }

    #[test]
    fn written_as_read() {
        for fen in [
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 b - - 20 117",
            "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1",
        ] {
            assert_eq!(write(&parse(fen).expect("valid FEN")), fen);
        }
    }
}
