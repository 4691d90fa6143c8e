//! Static exchange evaluation for chess and xiangqi: does a move win or
//! lose material once both sides have traded off everything that attacks
//! its target square, least valuable attacker first?
//!
//! The search uses it to order losing captures after quiet moves and to skip
//! them near the horizon and in quiescence search. Pins are ignored (the
//! usual simplification).

use shakmaty::{Bitboard, Color, Move, Position, Role, Square, attacks};

use super::xiangqi;
use crate::rules::{
    chess::Chess,
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
pub(super) fn at_least(pos: &Chess, m: Move, threshold: i32) -> bool {
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
    let board = pos.position().board();
    let mut occupied =
        board.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(captured_on)
            | Bitboard::from_square(to);
    let mut attackers =
        board.attacks_to(to, Color::White, occupied) | board.attacks_to(to, Color::Black, occupied);
    let diagonal = board.bishops_and_queens();
    let straight = board.rooks_and_queens();
    let mut side = pos.position().turn();
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

/// [`at_least`] for xiangqi: pieces are valued as the evaluation values
/// them on the target point (a soldier more once across the river).
pub(super) fn xiangqi_at_least(pos: &Xiangqi, m: XiangqiMove, threshold: i32) -> bool {
    let (from, to) = (m.from(), m.to());
    let Some(mover) = pos.piece_at(from) else {
        return 0 >= threshold;
    };
    let worth = |kind, side| xiangqi::value(kind, side, to);
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
    use crate::rules::Game;

    fn see(fen: &str, san: &str, threshold: i32) -> bool {
        let pos = Chess::from_fen(fen).unwrap();
        let m = pos.parse_move(san).unwrap();
        at_least(&pos, m, threshold)
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

    fn xiangqi_see(fen: &str, m: &str, threshold: i32) -> bool {
        let pos = Xiangqi::from_fen(fen).unwrap();
        let m = pos.parse_move(m).unwrap();
        xiangqi_at_least(&pos, m, threshold)
    }

    #[test]
    fn xiangqi_defended_and_undefended_targets() {
        // A chariot takes a soldier the horse on d8 guards: 90 for 900.
        let fen = "5k3/3n5/9/4p4/9/9/4R4/9/9/3K5 w - - 0 1";
        assert!(xiangqi_see(fen, "e3e6", -810));
        assert!(!xiangqi_see(fen, "e3e6", -809));
        // Without the horse the soldier is free.
        let fen = "5k3/9/9/4p4/9/9/4R4/9/9/3K5 w - - 0 1";
        assert!(xiangqi_see(fen, "e3e6", 90));
        assert!(!xiangqi_see(fen, "e3e6", 91));
    }

    #[test]
    fn xiangqi_screens_legs_and_eyes() {
        // Black's cannon on e9 gains its screen once the one on e7 has
        // taken back: chariot for soldier, then the cannons trade.
        let fen = "3kc4/9/4c4/4n4/4p4/4R4/4P4/9/4C4/5K3 w - - 0 1";
        assert!(xiangqi_see(fen, "e4e5", -810));
        assert!(!xiangqi_see(fen, "e4e5", -809));
        // The horse on b7 and the elephant on e7 guard c5...
        let fen = "4k4/9/1n2b4/9/2p6/2R6/9/9/9/4K4 w - - 0 1";
        assert!(!xiangqi_see(fen, "c4c5", 0));
        // ...not once the horse's leg and the elephant's eye are blocked.
        let fen = "4k4/9/1n2b4/1N1n5/2p6/2R6/9/9/9/4K4 w - - 0 1";
        assert!(xiangqi_see(fen, "c4c5", 90));
    }
}
