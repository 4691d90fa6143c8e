//! Which move a SAN text names.

use shakmaty::{Move, Role, san::San};

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
