//! Move text in (UCI, SAN) and out (UCI, SAN with check marks).

use shakmaty::{
    Move, Piece, Position, Role,
    san::{San, SanPlus},
    uci::UciMove,
};

use super::explain;
use crate::rules::{MoveDescription, MoveError};

const EXPECTED: &str = "UCI (e2e4, e7e8q, e1g1 or e1h1) or SAN (e4, Nf3, exd5, O-O, e8=Q)";

/// Longest move text worth reading (`Qa1xh8=Q#` and padding).
const MAX_MOVE_TEXT: usize = 16;

/// Reads UCI or SAN, resolving it against `pos`.
pub(super) fn parse(pos: &shakmaty::Chess, text: &str) -> Result<Move, MoveError> {
    let text = text.trim();
    let unparsable = || MoveError::Unparsable {
        text: text.chars().take(32).collect(),
        expected: EXPECTED,
    };
    if text.is_empty() || text.len() > MAX_MOVE_TEXT || !text.is_ascii() {
        return Err(unparsable());
    }
    if let Ok(UciMove::Normal {
        from,
        to,
        promotion,
    }) = UciMove::from_ascii(text.as_bytes())
    {
        return explain::coordinates(pos, from, to, promotion).map_err(MoveError::from);
    }
    // Castling is often typed with zeros.
    let normalized = match text.trim_end_matches(['+', '#']) {
        "0-0" => "O-O",
        "0-0-0" => "O-O-O",
        _ => text,
    };
    match SanPlus::from_ascii(normalized.as_bytes()) {
        Ok(SanPlus {
            san: san @ (San::Normal { .. } | San::Castle(_)),
            ..
        }) => resolve_san(pos, san, text),
        _ => Err(unparsable()),
    }
}

/// Finds the one legal move `san` denotes. Lenient like python-chess: a
/// missing or superfluous capture mark does not matter.
fn resolve_san(pos: &shakmaty::Chess, san: San, text: &str) -> Result<Move, MoveError> {
    let legal = pos.legal_moves();
    let matching: Vec<Move> = legal.iter().copied().filter(|&m| denotes(san, m)).collect();
    match matching[..] {
        [m] => Ok(m),
        [] => Err(explain::san(pos, san).into()),
        _ => Err(MoveError::Ambiguous {
            text: text.to_owned(),
            candidates: matching
                .iter()
                .map(|&m| SanPlus::from_move(pos.clone(), m).to_string())
                .collect(),
        }),
    }
}

/// Does `san` denote `m`, ignoring the capture mark?
pub(super) fn denotes(san: San, m: Move) -> bool {
    match san {
        San::Normal {
            role,
            file,
            rank,
            to,
            promotion,
            capture: _,
        } => {
            let Some(from) = m.from() else { return false };
            // A pawn move without a file is a push along the file.
            let file = file.or((role == Role::Pawn).then(|| to.file()));
            !m.is_castle()
                && m.role() == role
                && m.to() == to
                && m.promotion() == promotion
                && file.is_none_or(|f| f == from.file())
                && rank.is_none_or(|r| r == from.rank())
        }
        San::Castle(side) => m.castling_side() == Some(side),
        San::Put { .. } | San::Null => false,
    }
}

/// The move in every notation.
pub(super) fn describe(pos: &shakmaty::Chess, m: Move) -> MoveDescription {
    let turn = pos.turn();
    let mut after = pos.clone();
    let san = SanPlus::from_move_and_play_unchecked(&mut after, m);
    let from = m.from().expect("chess has no drops");
    let to = m.castling_side().map_or(m.to(), |side| side.king_to(turn));
    MoveDescription {
        uci: UciMove::from_standard(m).to_string(),
        san: san.to_string(),
        chinese: None,
        from: from.to_string(),
        to: to.to_string(),
        piece: Piece {
            color: turn,
            role: m.role(),
        }
        .char(),
        captured: m.capture().map(|role| Piece { color: !turn, role }.char()),
        promotion: m.promotion().map(|role| Piece { color: turn, role }.char()),
        is_check: after.is_check(),
        is_castling: m.is_castle(),
        is_en_passant: m.is_en_passant(),
    }
}
