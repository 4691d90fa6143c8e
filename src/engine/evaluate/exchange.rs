//! Static exchange evaluation for chess and xiangqi: does a move win or
//! lose material once both sides have traded off everything that attacks
//! its target square, least valuable attacker first?
//!
//! The search uses it to order losing captures after quiet moves and to skip
//! them near the horizon and in quiescence search. Pins are ignored (the
//! usual simplification).

use shakmaty::{Bitboard, Color, Move, Position, Role, Square, attacks};

use crate::rules::{
    Side,
    xiangqi::{Kind, Move as XiangqiMove, Xiangqi},
};

/// Piece values for exchanges (the king cannot be traded).
const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 950,
        Role::King => 20_000,
    }
}

/// Attackers are spent cheapest first.
const CHEAPEST_FIRST: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// Does `m` gain at least `threshold` centipawns of material after the best
/// sequence of recaptures on its target square? Castling and promotions are
/// counted as even.
pub(super) fn at_least(pos: &shakmaty::Chess, m: Move, threshold: i32) -> bool {
    let (from, to, victim, captured_on) = match m {
        Move::Normal {
            from,
            to,
            capture,
            promotion: None,
            ..
        } => (from, to, capture.map_or(0, value), to),
        Move::EnPassant { from, to } => (
            from,
            to,
            value(Role::Pawn),
            Square::from_coords(to.file(), from.rank()),
        ),
        _ => return 0 >= threshold,
    };
    // What we stand to gain if the piece is not taken back...
    let mut swap = victim - threshold;
    if swap < 0 {
        return false;
    }
    // ...and if it is, for nothing.
    swap = value(m.role()) - swap;
    if swap <= 0 {
        return true;
    }
    let board = pos.board();
    let mut occupied =
        board.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured_on)
            | Bitboard::from_square(to);
    let mut attackers =
        board.attacks_to(to, Color::White, occupied) | board.attacks_to(to, Color::Black, occupied);
    let diagonal = board.bishops_and_queens();
    let straight = board.rooks_and_queens();
    let mut side = pos.turn();
    // Does the side that moved come out ahead if the exchange stops now?
    let mut ahead = true;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        let Some(role) = CHEAPEST_FIRST
            .into_iter()
            .find(|&r| (ours & board.by_role(r)).any())
        else {
            break;
        };
        ahead = !ahead;
        if role == Role::King {
            // The king may only take last.
            return if (attackers & !board.by_color(side)).any() {
                !ahead
            } else {
                ahead
            };
        }
        swap = value(role) - swap;
        if swap < i32::from(ahead) {
            break;
        }
        occupied ^= (ours & board.by_role(role)).isolate_first();
        // Sliders behind the piece just spent join in.
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= attacks::bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= attacks::rook_attacks(to, occupied) & straight;
        }
    }
    ahead
}

/// Xiangqi attackers are spent cheapest first; the general only last.
const XIANGQI_CHEAPEST_FIRST: [Kind; 7] = [
    Kind::Soldier,
    Kind::Advisor,
    Kind::Elephant,
    Kind::Horse,
    Kind::Cannon,
    Kind::Chariot,
    Kind::General,
];

/// [`at_least`] for xiangqi: pieces are valued by `worth` on the target
/// point (the evaluation's values: a soldier more once across the river).
pub(super) fn xiangqi_at_least(
    pos: &Xiangqi,
    m: XiangqiMove,
    threshold: i32,
    worth: impl Fn(Kind, Side) -> i32,
) -> bool {
    let (from, to) = (m.from(), m.to());
    let Some(mover) = pos.piece_at(from) else {
        return 0 >= threshold;
    };
    let victim = pos.piece_at(to).map_or(0, |p| worth(p.kind, p.side));
    let mut swap = victim - threshold;
    if swap < 0 {
        return false;
    }
    // A general's legal move lands where nothing takes it back.
    swap = worth(mover.kind, mover.side) - swap;
    if swap <= 0 || mover.kind == Kind::General {
        return true;
    }
    let mut board = pos.exchange_board(from, to);
    let mut side = mover.side;
    let mut ahead = true;
    loop {
        side = !side;
        let Some(kind) = board.capture_with(side, &XIANGQI_CHEAPEST_FIRST) else {
            break;
        };
        ahead = !ahead;
        if kind == Kind::General {
            // The general may only take last.
            return if board.attacked_by(!side) {
                !ahead
            } else {
                ahead
            };
        }
        swap = worth(kind, side) - swap;
        if swap < i32::from(ahead) {
            break;
        }
    }
    ahead
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, chess::Chess};

    fn see(fen: &str, san: &str, threshold: i32) -> bool {
        let pos = Chess::from_fen(fen).unwrap();
        let m = pos.parse_move(san).unwrap();
        at_least(pos.position(), m, threshold)
    }

    #[test]
    fn undefended_and_defended_targets() {
        // A free pawn.
        let fen = "4k3/8/8/3p4/8/8/3R4/4K3 w - - 0 1";
        assert!(see(fen, "Rxd5", 100));
        assert!(!see(fen, "Rxd5", 101));
        // The same pawn guarded by a pawn: rook for pawn.
        let fen = "4k3/8/4p3/3p4/8/8/3R4/4K3 w - - 0 1";
        assert!(!see(fen, "Rxd5", 0));
        assert!(see(fen, "Rxd5", -400));
        // Pawn takes a guarded knight: wins knight for pawn.
        let fen = "4k3/8/4p3/3n4/4P3/8/8/4K3 w - - 0 1";
        assert!(see(fen, "exd5", 220));
        assert!(!see(fen, "exd5", 221));
    }

    #[test]
    fn x_rays_and_kings() {
        // One rook against a defending rook loses the exchange...
        let fen = "3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1";
        assert!(!see(fen, "Rxd5", 0));
        // ...doubled rooks win the pawn.
        let fen = "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1";
        assert!(see(fen, "Rxd5", 100));
        assert!(!see(fen, "Rxd5", 101));
        // A king may not recapture into a defended square.
        let fen = "8/8/8/3pk3/8/8/3Q4/3RK3 w - - 0 1";
        assert!(see(fen, "Qxd5+", 100));
        // Quiet move onto a square a pawn attacks loses the piece.
        let fen = "4k3/8/4p3/8/8/8/8/3QK3 w - - 0 1";
        assert!(!see(fen, "Qd5", -900));
        assert!(see(fen, "Qd4", 0));
    }

    #[test]
    fn en_passant_uncovers_the_file() {
        let fen = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
        assert!(see(fen, "exd6", 100));
    }
}
