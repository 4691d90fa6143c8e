//! Move text of the Lichess variants: UCI and SAN as in chess, with drops
//! (`N@f3` in both) and the variant's own reasons for an illegal move.

use shakmaty::{
    CastlingMode, Move, Role, Square,
    san::{San, SanError, SanPlus},
    uci::UciMove,
};

use super::LichessRules;
use crate::rules::{
    IllegalMove, IllegalReason, MoveDescription, MoveError, Variant,
    chess::{
        explain,
        names::role_name,
        notation::{self as chess_notation, readable, unparsable},
    },
};

const EXPECTED: &str = "UCI (e2e4, e7e8q, e1g1, N@f3) or SAN (e4, Nf3, exd5, O-O, e8=Q, N@f3)";

/// Reads UCI or SAN, resolving it against `pos`.
pub(super) fn parse<P: LichessRules>(pos: &P, text: &str) -> Result<Move, MoveError> {
    let text = readable(text, EXPECTED)?;
    let unparsable = || unparsable(text, EXPECTED);
    if let Ok(uci) = UciMove::from_ascii(text.as_bytes()) {
        if let Ok(m) = uci.to_move(pos) {
            return Ok(m);
        }
        return match uci {
            // Also castling written as the king taking its rook.
            UciMove::Normal {
                from,
                to,
                promotion,
            } => explain::coordinates(pos, from, to, promotion).map_err(MoveError::from),
            UciMove::Put { role, to } => Err(drop_refused(pos, role, to).into()),
            UciMove::Null => Err(unparsable()),
        };
    }
    let normalized = match text.trim_end_matches(['+', '#']) {
        "0-0" => "O-O",
        "0-0-0" => "O-O-O",
        _ => text,
    };
    let Ok(SanPlus { san, .. }) = SanPlus::from_ascii(normalized.as_bytes()) else {
        return Err(unparsable());
    };
    match san.to_move(pos) {
        Ok(m) => Ok(m),
        Err(SanError::AmbiguousSan) => Err(MoveError::Ambiguous {
            text: text.to_owned(),
            candidates: pos
                .legal_moves()
                .into_iter()
                .filter(|&m| san.matches(m))
                .map(|m| SanPlus::from_move(pos.clone(), m).to_string())
                .collect(),
        }),
        Err(SanError::IllegalSan) => Err(match san {
            San::Put { role, to } => drop_refused(pos, role, to),
            San::Null => return Err(unparsable()),
            _ => explain::san(pos, san),
        }
        .into()),
    }
}

/// Why a drop of `role` on `to` is refused.
fn drop_refused<P: LichessRules>(pos: &P, role: Role, to: Square) -> IllegalMove {
    let name = role_name(role);
    let Some(pockets) = pos.pockets() else {
        return IllegalMove::new(
            IllegalReason::CannotMoveThatWay,
            format!("only {} has drops", Variant::Crazyhouse),
        );
    };
    if role == Role::King || *pockets.get(pos.turn()).get(role) == 0 {
        return IllegalMove::new(
            IllegalReason::NotInPocket,
            format!("there is no {name} in your pocket"),
        );
    }
    if pos.board().occupied().contains(to) {
        return IllegalMove::new(
            IllegalReason::DropNotAllowed,
            format!("a piece can only be dropped on an empty square; {to} is occupied"),
        );
    }
    if role == Role::Pawn && matches!(to.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth) {
        return IllegalMove::new(
            IllegalReason::DropNotAllowed,
            format!("a pawn cannot be dropped on the first or last rank ({to})"),
        );
    }
    IllegalMove::new(
        IllegalReason::OwnKingInCheck,
        format!("your king is in check, and a {name} on {to} does not stop it"),
    )
}

/// Appends `m` in UCI: castling as the king's move (`e1g1`), a drop as
/// `N@f3`.
pub(super) fn push_coordinates(m: Move, text: &mut impl Extend<char>) {
    chess_notation::push_coordinates(m, CastlingMode::Standard, text);
}

/// Writes the move in every notation over `d`. A move that ends the game
/// by the variant's rule is marked `#`, as a mate, as python-chess marks it.
pub(super) fn describe_into<P: LichessRules>(pos: &P, m: Move, d: &mut MoveDescription) {
    let turn = pos.turn();
    let mut after = pos.clone();
    let san = SanPlus::from_move_and_play_unchecked(&mut after, m);
    let is_check = P::ROYAL_KING && after.is_check();
    let decided = after.variant_outcome().winner().is_some();
    let mut san_text = String::with_capacity(8);
    san.san.append_to_string(&mut san_text);
    if decided || (is_check && after.legal_moves().is_empty()) {
        san_text.push('#');
    } else if is_check {
        san_text.push('+');
    }
    d.clear_texts();
    push_coordinates(m, &mut d.uci);
    d.san.extend(san_text.chars());
    d.chinese = None;
    if let Some(from) = m.from() {
        d.from.extend(from.to_string().chars());
    }
    let to = m.castling_side().map_or(m.to(), |side| {
        Square::from_coords(side.king_to_file(), turn.backrank())
    });
    d.to.extend(to.to_string().chars());
    chess_notation::describe_pieces(turn, m, is_check, d);
}
