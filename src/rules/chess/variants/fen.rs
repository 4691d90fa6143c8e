//! FEN of the Lichess variants: the chess fields read as strictly as in
//! chess, plus Crazyhouse's pockets (`[Qn]` after the board) and promoted
//! pieces (`Q~`), and Three-check's checks left (`3+3` after the en-passant
//! square, or the checks given, `+0+0`, at the end). Whether the position
//! is legal is judged by the variant's own rules.

use shakmaty::{
    Bitboard, CastlingMode, Color, EnPassantMode, Piece, PositionError, PositionErrorKinds, Role,
    Setup, fen::Fen,
};

use super::{Lichess, LichessRules};
use crate::rules::{
    InvalidFen, Variant,
    chess::{
        fen::{self as chess_fen, FenError, MAX_FEN_LEN},
        side_of,
    },
    fen_fields,
};

/// The longest FEN accepted: a chess FEN with full pockets and checks.
const MAX_VARIANT_FEN_LEN: usize = MAX_FEN_LEN + 48;

type Result<T> = std::result::Result<T, InvalidFen<FenError>>;

/// What a variant FEN holds beyond the six chess fields.
struct Extras<'a> {
    /// The six chess fields, pockets, `~` marks and checks taken out.
    plain: String,
    pockets: Option<&'a str>,
    checks: Option<&'a str>,
}

/// Separates the variant's fields from the chess ones.
fn extras(fen: &str) -> std::result::Result<Extras<'_>, FenError> {
    let fields = fen_fields::split_allowing(fen, MAX_VARIANT_FEN_LEN, b"[]~+")?;
    let all = fields.all();
    let is_left =
        |f: &str| matches!(f.as_bytes(), [a, b'+', b] if a.is_ascii_digit() && b.is_ascii_digit());
    let is_given = |f: &str| f.starts_with('+') && is_left(&f[1..]);
    let (chess, checks): (Vec<&str>, Option<&str>) = match all {
        [head @ .., last] if all.len() == 7 && is_given(last) => (head.to_vec(), Some(last)),
        [a, b, c, d, checks, e, f] if is_left(checks) => (vec![a, b, c, d, e, f], Some(*checks)),
        [.., checks, _, _] if all.len() == 7 && checks.contains('+') => {
            return Err(FenError::BadChecks {
                found: (*checks).to_owned(),
            });
        }
        _ => (all.to_vec(), None),
    };
    let placement = chess.first().copied().unwrap_or_default();
    let (board, pockets) = match placement.split_once('[') {
        Some((board, rest)) => {
            let pockets = rest.strip_suffix(']').ok_or_else(|| FenError::BadPocket {
                found: rest.to_owned(),
            })?;
            (board, Some(pockets))
        }
        // The pockets as a ninth rank (`.../Qn`), as some tools write them.
        None => match placement.match_indices('/').nth(7) {
            Some((at, _)) => (&placement[..at], Some(&placement[at + 1..])),
            None => (placement, None),
        },
    };
    let mut plain: String = board.chars().filter(|&c| c != '~').collect();
    for field in chess.iter().skip(1) {
        plain.push(' ');
        plain.push_str(field);
    }
    Ok(Extras {
        plain,
        pockets,
        checks,
    })
}

/// Parses a FEN of the variant `P` strictly into a legal position.
pub(super) fn parse<P: LichessRules>(fen: &str) -> Result<Lichess<P>> {
    let extras = extras(fen).map_err(InvalidFen::one)?;
    let (mut setup, castling) =
        chess_fen::parse_setup(&extras.plain, CastlingMode::Standard).map_err(InvalidFen::one)?;
    let mut problems = Vec::new();
    setup.castling_rights = chess_fen::castling_rights(
        &setup.board,
        castling,
        CastlingMode::Standard,
        &mut problems,
    );
    // The variant's own fields, read by shakmaty once the chess ones passed.
    let read = Fen::from_ascii(fen.trim().as_bytes())
        .map(Fen::into_setup)
        .map_err(|_| {
            InvalidFen::one(match (extras.pockets, extras.checks) {
                (Some(found), _) => FenError::BadPocket {
                    found: found.to_owned(),
                },
                (None, Some(found)) => FenError::BadChecks {
                    found: found.to_owned(),
                },
                (None, None) => FenError::IllegalPosition {
                    detail: "the board cannot be read".to_owned(),
                },
            })
        })?;
    if read.pockets.is_some() && P::VARIANT != Variant::Crazyhouse {
        problems.push(not_in(P::VARIANT, "pockets", Variant::Crazyhouse));
    }
    if read.remaining_checks.is_some() && P::VARIANT != Variant::ThreeCheck {
        problems.push(not_in(P::VARIANT, "checks left", Variant::ThreeCheck));
    }
    setup.promoted = read.promoted;
    setup.pockets = read.pockets;
    setup.remaining_checks = read.remaining_checks;
    match P::from_setup(setup.clone(), CastlingMode::Standard) {
        Ok(pos) if problems.is_empty() => Ok(Lichess::of(pos)),
        Ok(_) => Err(InvalidFen { problems }),
        Err(err) => {
            problems.extend(position_problems::<P>(&setup, &err));
            problems.dedup();
            Err(InvalidFen { problems })
        }
    }
}

fn not_in(variant: Variant, what: &'static str, owner: Variant) -> FenError {
    FenError::NotInVariant {
        what,
        owner,
        variant,
    }
}

/// The problems shakmaty's judgement names, in chess's words where chess
/// has them.
fn position_problems<P: LichessRules>(setup: &Setup, err: &PositionError<P>) -> Vec<FenError> {
    let kinds = err.kinds();
    let board = &setup.board;
    let mut problems = Vec::new();
    for color in Color::ALL {
        let side = side_of(color);
        let kings = (board.kings() & board.by_color(color)).count() as u32;
        if kinds.contains(PositionErrorKinds::MISSING_KING) && kings == 0 {
            problems.push(FenError::MissingKing { side });
        }
        if kinds.contains(PositionErrorKinds::TOO_MANY_KINGS) && kings > 1 {
            problems.push(FenError::TooManyKings { side, count: kings });
        }
    }
    if kinds.contains(PositionErrorKinds::PAWNS_ON_BACKRANK) {
        for square in board.pawns() & Bitboard::BACKRANKS {
            let side = side_of(board.color_at(square).expect("occupied"));
            problems.push(FenError::PawnOnBackRank { side, square });
        }
    }
    if kinds.contains(PositionErrorKinds::INVALID_EP_SQUARE)
        && let Some(problem) = setup
            .ep_square
            .and_then(|square| chess_fen::en_passant_problem(setup, square))
    {
        problems.push(problem);
    }
    if kinds.contains(PositionErrorKinds::OPPOSITE_CHECK) {
        let side = !setup.turn;
        problems.push(FenError::OppositeCheck {
            side: side_of(side),
            checkers: chess_fen::checkers_of(board, side),
        });
    }
    if kinds.contains(PositionErrorKinds::IMPOSSIBLE_CHECK) {
        problems.push(FenError::ImpossibleCheck {
            side: side_of(setup.turn),
            checkers: chess_fen::checkers_of(board, setup.turn),
        });
    }
    if problems.is_empty() {
        problems.push(FenError::VariantRule {
            variant: P::VARIANT,
            detail: err.to_string(),
        });
    }
    problems
}

/// The FEN as python-chess writes it: en-passant square only when a
/// capture is legal, pockets White's first, each queen to pawn (`[QBp]`).
pub(super) fn write<P: LichessRules>(pos: &P) -> String {
    let mut fen = String::with_capacity(MAX_VARIANT_FEN_LEN);
    Fen::from_position(pos, EnPassantMode::Legal).append_to_string(&mut fen);
    if let (Some(pockets), Some(open), Some(close)) = (pos.pockets(), fen.find('['), fen.find(']'))
    {
        let mut ordered = String::with_capacity(close - open);
        for color in Color::ALL {
            for role in [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ] {
                let piece = Piece { color, role }.char();
                ordered.extend(std::iter::repeat_n(
                    piece,
                    usize::from(*pockets.get(color).get(role)),
                ));
            }
        }
        fen.replace_range(open + 1..close, &ordered);
    }
    fen
}
