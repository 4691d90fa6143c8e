//! Words for pieces and squares in messages.

use shakmaty::{Piece, Role, Square};

use super::side_of;

pub(super) const fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// "the black bishop on b4"
pub(super) fn piece_on(piece: Piece, square: Square) -> String {
    format!(
        "the {} {} on {square}",
        side_of(piece.color),
        role_name(piece.role)
    )
}
