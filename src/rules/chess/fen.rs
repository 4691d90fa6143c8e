//! Strict FEN reading for chess and Chess960.
//!
//! shakmaty's parser is lenient on purpose (it accepts `kqKQ`, `44`, `_`
//! separators and 4-field FENs). A referee must not be: every deviation from
//! the standard six-field form is rejected here with a typed reason, and every
//! problem of the position itself is reported, not just the first. Chess960
//! castling rights are read as X-FEN (`K`/`Q`: the outermost rook on that
//! wing) and Shredder-FEN (the rook's file, `HAha`), and written as X-FEN.

use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, Color, EnPassantMode, File, FromSetup, Piece,
    PositionErrorKinds, Rank, Setup, Square,
};

use crate::rules::{
    FenProblem, InvalidFen, Side, Variant,
    chess::side_of,
    fen_fields::{self, FieldsError, PlacementError, list},
};

/// The longest FEN accepted: a full board with the longest fields is 90 bytes.
pub(super) const MAX_FEN_LEN: usize = 128;

/// Why a chess FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error(transparent)]
    Fields(#[from] FieldsError),
    #[error(
        "the FEN has {found} field(s); expected 6: placement, side to move, castling, \
         en passant, halfmove clock, fullmove number"
    )]
    WrongFieldCount { found: usize },
    #[error("the board has {found} ranks separated by '/'; expected 8")]
    WrongRankCount { found: usize },
    #[error("rank {rank} has {squares} squares; expected 8")]
    WrongRankLength { rank: u8, squares: u32 },
    #[error(
        "rank {rank} has consecutive digits {digits:?}; write a run of empty squares as one digit"
    )]
    ConsecutiveDigits { rank: u8, digits: String },
    #[error("rank {rank}: {found:?} is not a piece letter (PNBRQK / pnbrqk) or a digit 1-8")]
    BadPieceLetter { rank: u8, found: char },
    #[error("side to move {found:?}: expected 'w' or 'b'")]
    BadTurn { found: String },
    #[error("castling field {found:?}: expected '-' or some of the letters KQkq, in that order")]
    BadCastling { found: String },
    #[error(
        "castling field {found:?}: expected '-' or, for each side, White's then Black's, K, Q or \
         the castling rook's file (X-FEN or Shredder-FEN: KQkq, HAha)"
    )]
    BadChess960Castling { found: String },
    #[error("en-passant field {found:?}: expected '-' or a square such as e3 or d6")]
    BadEnPassant { found: String },
    #[error("{side} has no king")]
    MissingKing { side: Side },
    #[error("{side} has {count} kings; expected exactly one")]
    TooManyKings { side: Side, count: u32 },
    #[error("{side} pawn on {square}: pawns never stand on rank 1 or 8")]
    PawnOnBackRank { side: Side, square: Square },
    #[error("{side} has {count} pieces; at most 16 are possible")]
    TooManyPieces { side: Side, count: u32 },
    #[error("{side} has {count} pawns; at most 8 are possible")]
    TooManyPawns { side: Side, count: u32 },
    #[error(
        "{side} has more queens, rooks, bishops or knights than promotions of its {pawns} missing pawns can explain"
    )]
    ImpossibleMaterial { side: Side, pawns: u32 },
    #[error("castling right {right} needs the {side} king on {square}")]
    CastlingWithoutKing {
        right: char,
        side: Side,
        square: Square,
    },
    #[error("castling right {right} needs the {side} king on its first rank")]
    CastlingKingAway { right: char, side: Side },
    #[error("castling right {right} without a {side} rook on {square}")]
    CastlingWithoutRook {
        right: char,
        side: Side,
        square: Square,
    },
    #[error(
        "en-passant square {square} is on the wrong rank: with {turn} to move it must be on rank {expected}"
    )]
    EnPassantWrongRank {
        square: Square,
        turn: Side,
        expected: u8,
    },
    #[error("en-passant square {square} with no {side} pawn on {pawn} that just moved")]
    EnPassantWithoutPawn {
        square: Square,
        side: Side,
        pawn: Square,
    },
    #[error("en-passant square {square}: {occupied} must be empty after a double pawn push")]
    EnPassantSquareOccupied { square: Square, occupied: Square },
    #[error("{side} is in check but it is not {side}'s turn (checked by {})", list(.checkers))]
    OppositeCheck { side: Side, checkers: Vec<Square> },
    #[error("{side} is in check from {}, which no legal last move could give", list(.checkers))]
    ImpossibleCheck { side: Side, checkers: Vec<Square> },
    #[error("illegal position: {detail}")]
    IllegalPosition { detail: String },
    #[error(
        "pockets {found:?}: expected piece letters (PNBRQ / pnbrq) between '[' and ']' right after the board"
    )]
    BadPocket { found: String },
    #[error(
        "checks field {found:?}: expected the checks each side has left, White's first (3+3), \
         or the checks given (+0+0)"
    )]
    BadChecks { found: String },
    #[error("{what} belong to {owner}; this is {variant}")]
    NotInVariant {
        what: &'static str,
        owner: Variant,
        variant: Variant,
    },
    #[error("not a legal {variant} position: {detail}")]
    VariantRule { variant: Variant, detail: String },
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
            FenError::BadCastling { .. } | FenError::BadChess960Castling { .. } => "BAD_CASTLING",
            FenError::BadEnPassant { .. } => "BAD_EN_PASSANT",
            FenError::MissingKing { .. } => "MISSING_KING",
            FenError::TooManyKings { .. } => "TOO_MANY_KINGS",
            FenError::PawnOnBackRank { .. } => "PAWN_ON_BACK_RANK",
            FenError::TooManyPieces { .. } => "TOO_MANY_PIECES",
            FenError::TooManyPawns { .. } => "TOO_MANY_PAWNS",
            FenError::ImpossibleMaterial { .. } => "IMPOSSIBLE_MATERIAL",
            FenError::CastlingWithoutKing { .. } | FenError::CastlingKingAway { .. } => {
                "CASTLING_WITHOUT_KING"
            }
            FenError::CastlingWithoutRook { .. } => "CASTLING_WITHOUT_ROOK",
            FenError::EnPassantWrongRank { .. } => "EN_PASSANT_WRONG_RANK",
            FenError::EnPassantWithoutPawn { .. } => "EN_PASSANT_WITHOUT_PAWN",
            FenError::EnPassantSquareOccupied { .. } => "EN_PASSANT_SQUARE_OCCUPIED",
            FenError::OppositeCheck { .. } => "OPPOSITE_CHECK",
            FenError::ImpossibleCheck { .. } => "IMPOSSIBLE_CHECK",
            FenError::IllegalPosition { .. } => "ILLEGAL_POSITION",
            FenError::BadPocket { .. } => "BAD_POCKET",
            FenError::BadChecks { .. } => "BAD_CHECKS",
            FenError::NotInVariant { .. } => "NOT_IN_VARIANT",
            FenError::VariantRule { .. } => "VARIANT_RULE",
        }
    }
}

type Result<T> = std::result::Result<T, InvalidFen<FenError>>;

/// Parses a FEN strictly into a legal position, its castling rights read
/// under `mode`.
pub(super) fn parse(fen: &str, mode: CastlingMode) -> Result<shakmaty::Chess> {
    let (mut setup, castling) = parse_setup(fen, mode).map_err(InvalidFen::one)?;
    let mut castling_problems = Vec::new();
    setup.castling_rights = castling_rights(&setup.board, castling, mode, &mut castling_problems);
    let mut problems = position_problems(&setup, castling_problems);
    match shakmaty::Chess::from_setup(setup.clone(), mode) {
        Ok(pos) if problems.is_empty() => return Ok(pos),
        Ok(_) => {}
        Err(err) => {
            // Our checks cover everything shakmaty rejects except the subtle
            // check geometry; make sure nothing shakmaty refuses slips through.
            if err.kinds().contains(PositionErrorKinds::IMPOSSIBLE_CHECK) {
                problems.push(FenError::ImpossibleCheck {
                    side: side_of(setup.turn),
                    checkers: checkers_of(&setup.board, setup.turn),
                });
            } else if problems.is_empty() {
                problems.push(FenError::IllegalPosition {
                    detail: err.to_string(),
                });
            }
        }
    }
    Err(InvalidFen { problems })
}

/// The syntax pass: stops at the first problem, since later fields cannot be
/// read reliably once one is wrong. The castling field is checked for its
/// letters here and read against the board later.
pub(super) fn parse_setup(
    fen: &str,
    mode: CastlingMode,
) -> std::result::Result<(Setup, &str), FenError> {
    let fields = fen_fields::split(fen, MAX_FEN_LEN)?;
    let [placement, turn, castling, ep, halfmoves, fullmoves] = *fields.all() else {
        return Err(FenError::WrongFieldCount {
            found: fields.count(),
        });
    };
    let board = parse_placement(placement)?;
    let turn = match turn {
        "w" => Color::White,
        "b" => Color::Black,
        _ => {
            return Err(FenError::BadTurn {
                found: turn.to_owned(),
            });
        }
    };
    check_castling_letters(castling, mode)?;
    let ep_square = match ep {
        "-" => None,
        _ => Some(
            Square::from_ascii(ep.as_bytes()).map_err(|_| FenError::BadEnPassant {
                found: ep.to_owned(),
            })?,
        ),
    };
    let (halfmoves, fullmoves) = fen_fields::counters(halfmoves, fullmoves, side_of(turn))?;
    let fullmoves = std::num::NonZeroU32::new(fullmoves).expect("fullmove number is at least 1");
    let setup = Setup {
        board,
        turn,
        ep_square,
        halfmoves,
        fullmoves,
        ..Setup::empty()
    };
    Ok((setup, castling))
}

fn parse_placement(placement: &str) -> std::result::Result<Board, FenError> {
    // The sets are filled and the board made from them once: setting each
    // piece on a board clears the square from all eight sets first.
    let mut by_role = ByRole::<Bitboard>::default();
    let mut by_color = ByColor::<Bitboard>::default();
    fen_fields::read_placement(placement, 8, 8, |file, rank, c| {
        Piece::from_char(c).is_some_and(|piece| {
            let square = Square::from_coords(File::new(file.into()), Rank::new(rank.into()));
            by_role.get_mut(piece.role).add(square);
            by_color.get_mut(piece.color).add(square);
            true
        })
    })
    .map_err(|e| {
        // Chess names ranks 1-8.
        match e {
            PlacementError::WrongRankCount { found } => FenError::WrongRankCount { found },
            PlacementError::WrongRankLength { rank, squares } => FenError::WrongRankLength {
                rank: rank + 1,
                squares,
            },
            PlacementError::ConsecutiveDigits { rank, digits } => FenError::ConsecutiveDigits {
                rank: rank + 1,
                digits,
            },
            PlacementError::BadPieceLetter { rank, found } => FenError::BadPieceLetter {
                rank: rank + 1,
                found,
            },
        }
    })?;
    // Each square is read once, so the sets cannot overlap.
    Board::try_from_bitboards(by_role, by_color).map_err(|err| FenError::IllegalPosition {
        detail: err.to_string(),
    })
}

/// Checks the castling field's letters: `KQkq` in that order in chess; in
/// Chess960, White's letters (`K`, `Q`, `A`-`H`) before Black's, none twice.
fn check_castling_letters(castling: &str, mode: CastlingMode) -> std::result::Result<(), FenError> {
    if castling == "-" {
        return Ok(());
    }
    let found = || castling.to_owned();
    match mode {
        CastlingMode::Standard => {
            let mut order = "KQkq".chars();
            // Each letter must come later in KQkq than the previous one.
            if castling.chars().all(|c| order.any(|o| o == c)) {
                Ok(())
            } else {
                Err(FenError::BadCastling { found: found() })
            }
        }
        CastlingMode::Chess960 => {
            let letter = |c: char| matches!(c.to_ascii_uppercase(), 'K' | 'Q' | 'A'..='H');
            let white = castling
                .chars()
                .take_while(char::is_ascii_uppercase)
                .count();
            let mut seen = castling.chars().collect::<Vec<_>>();
            seen.sort_unstable();
            seen.dedup();
            if castling.chars().all(letter)
                && castling[white..].chars().all(|c| c.is_ascii_lowercase())
                && seen.len() == castling.len()
                && castling.len() <= 4
            {
                Ok(())
            } else {
                Err(FenError::BadChess960Castling { found: found() })
            }
        }
    }
}

/// The rooks the castling field gives rights to on `board`, with the
/// problems of any right the board cannot have, in board order.
pub(super) fn castling_rights(
    board: &Board,
    castling: &str,
    mode: CastlingMode,
    problems: &mut Vec<FenError>,
) -> Bitboard {
    let mut rights: Vec<(Square, Vec<FenError>)> = castling
        .chars()
        .filter(|&c| c != '-')
        .map(|right| castling_right(board, right, mode))
        .collect();
    rights.sort_by_key(|(rook, _)| *rook);
    let mut rooks = Bitboard::EMPTY;
    for (rook, found) in rights {
        rooks.add(rook);
        problems.extend(found);
    }
    rooks
}

/// The rook the castling letter `right` names on `board`, and what is wrong
/// with the right there.
fn castling_right(board: &Board, right: char, mode: CastlingMode) -> (Square, Vec<FenError>) {
    let color = Color::from_white(right.is_ascii_uppercase());
    let side = side_of(color);
    let backrank = color.backrank();
    let king = board.king_of(color).filter(|k| k.rank() == backrank);
    let wing = right.to_ascii_uppercase();
    let corner = Square::from_coords(if wing == 'Q' { File::A } else { File::H }, backrank);
    let mut problems = Vec::new();
    let rook = match (mode, wing) {
        (CastlingMode::Standard, _) => {
            let home = color.fold_wb(Square::E1, Square::E8);
            if king != Some(home) {
                problems.push(FenError::CastlingWithoutKing {
                    right,
                    side,
                    square: home,
                });
            }
            corner
        }
        (CastlingMode::Chess960, 'K' | 'Q') => {
            // X-FEN: the outermost rook on that wing of the king.
            let rooks = board.by_piece(color.rook()) & backrank;
            let outermost = match king {
                Some(king) if wing == 'K' => rooks.into_iter().rev().find(|&r| r > king),
                Some(king) => rooks.into_iter().find(|&r| r < king),
                None => None,
            };
            outermost.unwrap_or(corner)
        }
        (CastlingMode::Chess960, file) => Square::from_coords(
            File::from_char(file.to_ascii_lowercase()).expect("letters are checked"),
            backrank,
        ),
    };
    if mode == CastlingMode::Chess960 && king.is_none() {
        problems.push(FenError::CastlingKingAway { right, side });
    }
    if board.piece_at(rook) != Some(color.rook()) {
        problems.push(FenError::CastlingWithoutRook {
            right,
            side,
            square: rook,
        });
    }
    (rook, problems)
}

/// Every problem of a syntactically valid setup, in board order.
fn position_problems(setup: &Setup, castling: Vec<FenError>) -> Vec<FenError> {
    let board = &setup.board;
    let mut problems = Vec::new();
    for color in Color::ALL {
        let side = side_of(color);
        let ours = board.by_color(color);
        match (board.kings() & ours).count() {
            0 => problems.push(FenError::MissingKing { side }),
            1 => {}
            n => problems.push(FenError::TooManyKings {
                side,
                count: n as u32,
            }),
        }
        let count = ours.count() as u32;
        if count > 16 {
            problems.push(FenError::TooManyPieces { side, count });
        }
        let pawns = (board.pawns() & ours).count() as u32;
        if pawns > 8 {
            problems.push(FenError::TooManyPawns { side, count: pawns });
        } else if promotions_needed(board, color) > 8 - pawns {
            problems.push(FenError::ImpossibleMaterial {
                side,
                pawns: 8 - pawns,
            });
        }
    }
    for square in board.pawns() & Bitboard::BACKRANKS {
        problems.push(FenError::PawnOnBackRank {
            side: side_of(board.color_at(square).expect("occupied")),
            square,
        });
    }
    problems.extend(castling);
    if let Some(square) = setup.ep_square {
        problems.extend(en_passant_problem(setup, square));
    }
    let not_to_move = !setup.turn;
    if let Some(king) = board.king_of(not_to_move) {
        let checkers = board.attacks_to(king, setup.turn, board.occupied());
        if checkers.any() {
            problems.push(FenError::OppositeCheck {
                side: side_of(not_to_move),
                checkers: checkers.into_iter().collect(),
            });
        }
    }
    problems
}

/// Pieces beyond the initial set, each of which needs a promoted pawn.
fn promotions_needed(board: &Board, color: Color) -> u32 {
    let ours = board.by_color(color);
    let extra =
        |bb: Bitboard, initial: u32| (bb & ours).count().saturating_sub(initial as usize) as u32;
    extra(board.queens(), 1)
        + extra(board.rooks(), 2)
        + extra(board.knights(), 2)
        + extra(board.bishops() & Bitboard::LIGHT_SQUARES, 1)
        + extra(board.bishops() & Bitboard::DARK_SQUARES, 1)
}

pub(super) fn en_passant_problem(setup: &Setup, square: Square) -> Option<FenError> {
    let turn = setup.turn;
    let expected = turn.fold_wb(Rank::Sixth, Rank::Third);
    if square.rank() != expected {
        return Some(FenError::EnPassantWrongRank {
            square,
            turn: side_of(turn),
            expected: expected.char().to_digit(10).expect("rank digit") as u8,
        });
    }
    let mover = !turn;
    let forward = mover.fold_wb(8, -8);
    let pawn = square
        .offset(forward)
        .expect("rank 3/6 has a square beyond");
    let origin = square
        .offset(-forward)
        .expect("rank 3/6 has a square behind");
    if setup.board.piece_at(pawn) != Some(mover.pawn()) {
        return Some(FenError::EnPassantWithoutPawn {
            square,
            side: side_of(mover),
            pawn,
        });
    }
    [square, origin]
        .into_iter()
        .find(|&s| setup.board.occupied().contains(s))
        .map(|occupied| FenError::EnPassantSquareOccupied { square, occupied })
}

pub(super) fn checkers_of(board: &Board, turn: Color) -> Vec<Square> {
    board
        .king_of(turn)
        .map(|king| {
            board
                .attacks_to(king, !turn, board.occupied())
                .into_iter()
                .collect()
        })
        .unwrap_or_default()
}

/// The FEN of a position in standard form (en-passant square only when a
/// capture is legal, as python-chess and most tools write it).
/// Castling rights are written as X-FEN: `KQkq` for the outermost rooks,
/// the rook's file for an inner one.
pub(super) fn write(pos: &shakmaty::Chess) -> String {
    // Room for the longest FEN, so that writing it allocates once.
    let mut fen = String::with_capacity(MAX_FEN_LEN);
    shakmaty::fen::Fen::from_position(pos, EnPassantMode::Legal).append_to_string(&mut fen);
    fen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(fen: &str) -> Vec<&'static str> {
        match parse(fen, CastlingMode::Standard) {
            Ok(_) => vec![],
            Err(e) => e.problems.iter().map(FenProblem::code).collect(),
        }
    }

    #[test]
    fn lenient_forms_rejected() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(codes(&format!("{start} w KQkq - 0 1")), Vec::<&str>::new());
        assert_eq!(codes(&format!("{start} w kqKQ - 0 1")), ["BAD_CASTLING"]);
        assert_eq!(codes(&format!("{start} w KQkqkq - 0 1")), ["BAD_CASTLING"]);
        assert_eq!(codes(&format!("{start} w KQkq -")), ["WRONG_FIELD_COUNT"]);
        assert_eq!(codes(&format!("{start}_w_KQkq_-_0_1")), ["BAD_SEPARATOR"]);
        assert_eq!(
            codes(&format!("{start} w KQkq - 0 0")),
            ["BAD_FULLMOVE_NUMBER"]
        );
        assert_eq!(
            codes("rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            ["CONSECUTIVE_DIGITS"]
        );
    }
}
