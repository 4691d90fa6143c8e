//! Chess evaluation, tapered between middlegame and endgame: material,
//! placement, mobility, pawn structure (passed, isolated, doubled), bishop
//! pair, rooks on open files, the king's pawn shield, attacks on the enemy
//! king's surroundings, and a mop-up term that drives a bare king to the
//! edge.

use shakmaty::{Bitboard, Board, Color, File, Position, Role, Square, attacks};

use super::{
    Evaluate,
    score::{Score, s},
};
use crate::rules::chess::{Castling, Orthodox};

/// Phase weight per piece; 24 with every piece on the board.
const FULL_PHASE: i32 = 24;
const TEMPO: i32 = 12;

const fn material(role: Role) -> Score {
    match role {
        Role::Pawn => s(90, 120),
        Role::Knight => s(330, 310),
        Role::Bishop => s(345, 325),
        Role::Rook => s(480, 540),
        Role::Queen => s(980, 980),
        Role::King => s(0, 0),
    }
}

const fn phase_weight(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 4,
        Role::Pawn | Role::King => 0,
    }
}

/// Middlegame value for ordering captures.
pub(super) const fn value(role: Role) -> i32 {
    material(role).mg
}

/// Rank counted from `color`'s own side (0-7) and file (0-7).
fn coordinates(color: Color, sq: Square) -> (i32, i32) {
    let rank = sq.rank().to_u32() as i32;
    let rank = if color == Color::White {
        rank
    } else {
        7 - rank
    };
    (sq.file().to_u32() as i32, rank)
}

/// 3 for the four centre squares down to 0 on the rim.
fn centrality(file: i32, rank: i32) -> i32 {
    3 - ((2 * file - 7).abs().max((2 * rank - 7).abs()) / 2)
}

/// Where a piece stands, from its own side's point of view.
fn placement(role: Role, file: i32, rank: i32) -> Score {
    let centre = centrality(file, rank);
    match role {
        Role::Pawn => {
            let central = match (file, rank) {
                (3 | 4, 3 | 4) => 20,
                (2..=5, 2..=4) => 6,
                _ => 0,
            };
            s(rank * 3 + central, rank * 5)
        }
        Role::Knight => s(
            centre * 12 - 20 - 10 * i32::from(rank == 0),
            centre * 8 - 12,
        ),
        Role::Bishop => s(centre * 5 - 5 - 10 * i32::from(rank == 0), centre * 4 - 6),
        Role::Rook => s(
            if rank == 6 { 20 } else { 0 },
            if rank == 6 { 15 } else { 0 },
        ),
        Role::Queen => s(centre * 2 - 3, centre * 5 - 7),
        Role::King => {
            let mg = match rank {
                0 if matches!(file, 0..=2 | 6 | 7) => 25,
                0 => 0,
                1 => -15,
                r => -30 - 10 * r,
            };
            s(mg, centre * 12 - 18)
        }
    }
}

/// Bonus per square a piece attacks beyond a typical count.
fn mobility(role: Role, squares: i32) -> Score {
    match role {
        Role::Knight => s(4, 4) * (squares - 4),
        Role::Bishop => s(5, 5) * (squares - 6),
        Role::Rook => s(2, 4) * (squares - 7),
        Role::Queen => s(1, 2) * (squares - 13),
        Role::Pawn | Role::King => Score::default(),
    }
}

/// Passed-pawn bonus by relative rank.
const PASSED: [Score; 8] = [
    s(0, 0),
    s(0, 10),
    s(5, 15),
    s(10, 25),
    s(20, 45),
    s(35, 75),
    s(60, 120),
    s(0, 0),
];
const ISOLATED: Score = s(-10, -12);
const DOUBLED: Score = s(-10, -20);
const BISHOP_PAIR: Score = s(30, 50);
const OPEN_FILE: Score = s(25, 10);
const HALF_OPEN_FILE: Score = s(12, 6);
const SHIELD_PAWN: i32 = 12;
/// Ceiling of the king-attack bonus, in centipawns.
const MAX_KING_ATTACK: i32 = 400;

/// How much a piece's attack on a square next to the enemy king counts.
const fn attack_weight(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 5,
        Role::Pawn | Role::King => 0,
    }
}

/// A middlegame bonus growing with the square of the attack on the enemy
/// king's surroundings, once at least two pieces take part.
fn king_attack(units: i32, attackers: i32) -> Score {
    if attackers < 2 {
        return Score::default();
    }
    s((units * units / 2).min(MAX_KING_ATTACK), 0)
}
const BARE_SHIELD_FILE: i32 = -15;

fn file_mask(file: i32) -> Bitboard {
    u32::try_from(file)
        .ok()
        .filter(|&f| f < 8)
        .map_or(Bitboard::EMPTY, |f| Bitboard::from_file(File::new(f)))
}

fn adjacent_files(file: i32) -> Bitboard {
    file_mask(file - 1) | file_mask(file + 1)
}

/// Squares strictly ahead of `rank` (relative, 0-7) for `color`.
fn ahead(color: Color, rank: i32) -> Bitboard {
    let rows = (7 - rank).clamp(0, 8) as u32;
    // The `rows` ranks nearest the far side, from `color`'s point of view.
    let far = u64::MAX.checked_shl(64 - 8 * rows).unwrap_or(0);
    Bitboard(if color == Color::White {
        far
    } else {
        far.swap_bytes()
    })
}

/// Squares the pawns of `color` attack.
fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    const NOT_A: u64 = !0x0101_0101_0101_0101;
    const NOT_H: u64 = !0x8080_8080_8080_8080;
    let p = pawns.0;
    Bitboard(if color == Color::White {
        ((p & NOT_A) << 7) | ((p & NOT_H) << 9)
    } else {
        ((p & NOT_A) >> 9) | ((p & NOT_H) >> 7)
    })
}

/// Everything `color` earns on its own.
fn side_terms(board: &Board, color: Color) -> Score {
    let us = board.by_color(color);
    let them = board.by_color(!color);
    let own_pawns = board.pawns() & us;
    let their_pawns = board.pawns() & them;
    let occupied = board.occupied();
    // Squares guarded by enemy pawns are no real mobility.
    let pawn_guarded = pawn_attacks(!color, their_pawns);
    let king_zone = board.king_of(!color).map_or(Bitboard::EMPTY, |k| {
        attacks::king_attacks(k) | Bitboard::from_square(k)
    });
    let (mut units, mut attackers) = (0, 0);
    let mut total = Score::default();
    for sq in us {
        let Some(role) = board.role_at(sq) else {
            continue;
        };
        let (file, rank) = coordinates(color, sq);
        total += material(role) + placement(role, file, rank);
        let reach = match role {
            Role::Knight => attacks::knight_attacks(sq),
            Role::Bishop => attacks::bishop_attacks(sq, occupied),
            Role::Rook => attacks::rook_attacks(sq, occupied),
            Role::Queen => attacks::queen_attacks(sq, occupied),
            Role::Pawn | Role::King => Bitboard::EMPTY,
        };
        total += mobility(role, (reach & !us & !pawn_guarded).count() as i32);
        let hits = (reach & king_zone).count() as i32;
        if hits > 0 {
            units += attack_weight(role) * hits;
            attackers += 1;
        }
        match role {
            Role::Pawn => total += pawn_terms(board, color, sq, own_pawns, their_pawns),
            Role::Rook => {
                let on_file = file_mask(file);
                if (on_file & own_pawns).is_empty() {
                    total += if (on_file & their_pawns).is_empty() {
                        OPEN_FILE
                    } else {
                        HALF_OPEN_FILE
                    };
                }
            }
            Role::King => total += s(shield(color, file, rank, own_pawns), 0),
            _ => {}
        }
    }
    if (board.bishops() & us).count() >= 2 {
        total += BISHOP_PAIR;
    }
    total + king_attack(units, attackers)
}

fn pawn_terms(board: &Board, color: Color, sq: Square, own: Bitboard, theirs: Bitboard) -> Score {
    let (file, rank) = coordinates(color, sq);
    let mut total = Score::default();
    if (adjacent_files(file) & own).is_empty() {
        total += ISOLATED;
    }
    // Count a doubled pawn once: the rear one pays.
    if (file_mask(file) & ahead(color, rank) & own).any() {
        total += DOUBLED;
    }
    let front = (file_mask(file) | adjacent_files(file)) & ahead(color, rank);
    if (front & theirs).is_empty() {
        total += passed(board, color, sq, rank);
    }
    total
}

/// How much the kings' distances to the square in front of a passed pawn
/// count in the endgame, by the pawn's relative rank.
const PASSER_KING_WEIGHT: [i32; 8] = [0, 0, 0, 1, 4, 7, 10, 0];

/// A passed pawn's bonus: by rank, plus in the endgame the enemy king's
/// distance from the square in front of it (minus the own king's), halved
/// when an enemy piece stands on that square.
fn passed(board: &Board, color: Color, sq: Square, rank: i32) -> Score {
    let bonus = PASSED[rank as usize & 7];
    let weight = PASSER_KING_WEIGHT[rank as usize & 7];
    let Some(stop) = sq.offset(if color == Color::White { 8 } else { -8 }) else {
        return bonus;
    };
    let distance = |c: Color| {
        board
            .king_of(c)
            .map_or(0, |k| k.distance(stop).min(5) as i32)
    };
    let kings = s(0, (distance(!color) * 5 - distance(color) * 2) * weight);
    if board.by_color(!color).contains(stop) {
        s(bonus.mg / 2, bonus.eg / 2) + kings
    } else {
        bonus + kings
    }
}

/// Pawns in front of a king that stays home.
fn shield(color: Color, file: i32, rank: i32, own_pawns: Bitboard) -> i32 {
    if rank > 1 {
        return 0;
    }
    let close = ahead(color, rank) & !ahead(color, rank + 2);
    (file - 1..=file + 1)
        .filter(|f| (0..8).contains(f))
        .map(|f| {
            let pawns = file_mask(f) & own_pawns;
            if (pawns & close).any() {
                SHIELD_PAWN
            } else if pawns.is_empty() {
                BARE_SHIELD_FILE
            } else {
                0
            }
        })
        .sum()
}

/// With a bare enemy king and a winning force: push it to the rim and bring
/// the own king close, so the search finds the mate.
fn mop_up(board: &Board, strong: Color) -> i32 {
    let (Some(ours), Some(theirs)) = (board.king_of(strong), board.king_of(!strong)) else {
        return 0;
    };
    let (file, rank) = coordinates(!strong, theirs);
    (3 - centrality(file, rank)) * 20 + (7 - ours.distance(theirs) as i32) * 8
}

/// The board's value for White: the tapered terms of both sides, and the
/// mop-up of a bare king.
pub(super) fn white_view(board: &Board) -> i32 {
    let phase: i32 = board
        .iter()
        .map(|(_, piece)| phase_weight(piece.role))
        .sum();
    let mut score = (side_terms(board, Color::White) - side_terms(board, Color::Black))
        .taper(phase, FULL_PHASE);
    for strong in [Color::White, Color::Black] {
        let bare = board.by_color(!strong) == board.kings() & board.by_color(!strong);
        if bare && (board.by_color(strong) & !board.kings() & !board.pawns()).any() {
            let bonus = mop_up(board, strong);
            score += if strong == Color::White {
                bonus
            } else {
                -bonus
            };
        }
    }
    score
}

/// A value for White turned to the side to move's view, with the tempo.
pub(super) fn for_side_to_move(turn: Color, white: i32) -> i32 {
    let score = if turn == Color::White { white } else { -white };
    score + TEMPO
}

/// The transposition table's key of a chess move: origin (64 for a drop),
/// destination, and the piece promoted to or dropped.
pub(super) fn move_key(m: shakmaty::Move) -> u32 {
    let from = m.from().map_or(64, Square::to_u32);
    let piece = match m {
        shakmaty::Move::Put { role, .. } => 7 + role as u32,
        _ => m.promotion().map_or(0, |r| r as u32),
    };
    1 + from + 65 * (m.to().to_u32() + 64 * piece)
}

impl<C: Castling> Evaluate for Orthodox<C> {
    fn evaluate(&self) -> i32 {
        let pos = self.position();
        if pos.is_insufficient_material() {
            return 0;
        }
        for_side_to_move(pos.turn(), white_view(pos.board()))
    }

    fn victim_value(&self, m: shakmaty::Move) -> i32 {
        m.capture().map_or(0, value) + m.promotion().map_or(0, value)
    }

    fn attacker_value(&self, m: shakmaty::Move) -> i32 {
        value(m.role())
    }

    fn exchange_at_least(&self, m: shakmaty::Move, threshold: i32) -> bool {
        super::exchange::at_least(self.position(), m, threshold)
    }

    fn move_key(m: shakmaty::Move) -> u32 {
        move_key(m)
    }

    fn null_move(&self) -> Option<Orthodox<C>> {
        let pos = self.position();
        let us = pos.board().by_color(pos.turn());
        let pieces = us & !pos.board().pawns() & !pos.board().kings();
        if pieces.is_empty() {
            return None;
        }
        self.pass()
    }

    const STALEMATE_IS_LOSS: bool = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, chess::Chess};

    fn eval(fen: &str) -> i32 {
        Chess::from_fen(fen).unwrap().evaluate()
    }

    #[test]
    fn symmetric_positions_score_the_tempo() {
        assert_eq!(Chess::start().evaluate(), TEMPO);
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let mirrored = "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3";
        assert_eq!(eval(fen), eval(mirrored));
    }

    #[test]
    fn material_and_passed_pawns_count() {
        // A clean extra knight is worth about a knight.
        let up = eval("4k3/pppp4/8/8/8/8/PPPP4/4K1N1 w - - 0 1");
        assert!((250..=450).contains(&up), "{up}");
        // A passed pawn on the seventh is worth more than on the second.
        let far = eval("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
        let near = eval("4k3/8/8/8/8/8/P7/4K3 w - - 0 1");
        assert!(far > near + 80, "{far} vs {near}");
        assert_eq!(eval("4k3/8/8/8/8/8/8/4KB2 w - - 0 1"), 0);
    }

    #[test]
    fn masks_match_their_definitions() {
        for color in [Color::White, Color::Black] {
            for rank in 0..8 {
                let slow = (rank + 1..8).fold(Bitboard::EMPTY, |acc, r| {
                    let absolute = if color == Color::White { r } else { 7 - r };
                    acc | Bitboard::from_rank(shakmaty::Rank::new(absolute as u32))
                });
                assert_eq!(ahead(color, rank), slow, "{color:?} {rank}");
            }
            let pawns = Bitboard(0x00ff_0000_8142_ff00);
            let slow = pawns.into_iter().fold(Bitboard::EMPTY, |acc, sq| {
                acc | attacks::pawn_attacks(color, sq)
            });
            assert_eq!(pawn_attacks(color, pawns), slow);
        }
    }

    #[test]
    fn move_keys_are_distinct() {
        let pos = Chess::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let keys: std::collections::HashSet<u32> =
            pos.legal_moves().into_iter().map(Chess::move_key).collect();
        assert_eq!(keys.len(), pos.legal_moves().len());
        assert!(!keys.contains(&0));
    }
}
