//! Xiangqi evaluation, tapered by the attacking force left on the board:
//! material (soldiers gain value across the river, horses gain and cannons
//! lose value as the board empties), placement, chariot mobility, the central
//! cannon, and king safety from advisors and elephants against the enemy's
//! attackers.

use super::{
    Evaluate,
    score::{Score, s},
};
use crate::rules::{
    Game, Side,
    xiangqi::{Kind, Move, Square, Xiangqi, XiangqiOptions, XiangqiRules},
};

/// Phase weight: chariot 2, horse and cannon 1; 16 with every piece on.
const FULL_PHASE: i32 = 16;
const TEMPO: i32 = 15;

fn material(kind: Kind, crossed: bool) -> Score {
    match kind {
        Kind::General => s(0, 0),
        Kind::Advisor => s(200, 200),
        Kind::Elephant => s(200, 200),
        Kind::Horse => s(390, 440),
        Kind::Chariot => s(900, 920),
        Kind::Cannon => s(470, 420),
        Kind::Soldier if crossed => s(180, 230),
        Kind::Soldier => s(90, 110),
    }
}

const fn phase_weight(kind: Kind) -> i32 {
    match kind {
        Kind::Chariot => 2,
        Kind::Horse | Kind::Cannon => 1,
        _ => 0,
    }
}

/// A point's rank counted from `side`'s own back rank (0-9).
fn relative_rank(side: Side, sq: Square) -> i32 {
    match side {
        Side::White => i32::from(sq.rank()),
        Side::Black => 9 - i32::from(sq.rank()),
    }
}

/// Middlegame value, for capture ordering and exchanges.
pub(super) fn value(kind: Kind, side: Side, sq: Square) -> i32 {
    material(kind, relative_rank(side, sq) >= 5).mg
}

/// Where a piece stands, from its own side's point of view.
fn placement(kind: Kind, file: i32, rank: i32) -> Score {
    let central = 4 - (file - 4).abs();
    match kind {
        Kind::Soldier if rank >= 5 => {
            // Close to the enemy palace is dangerous; on the last rank a
            // soldier can only move sideways.
            let near_palace = if (3..=5).contains(&file) { 12 } else { 6 };
            let depth = if rank == 9 {
                -40
            } else {
                (rank - 4) * near_palace
            };
            s(depth, depth + 10)
        }
        Kind::Soldier => s(if file == 4 { 5 } else { 0 }, 0),
        Kind::Horse => {
            let undeveloped = if rank == 0 { -20 } else { 0 };
            s(
                central * 5 + rank.min(7) * 6 + undeveloped,
                central * 6 + rank.min(7) * 4,
            )
        }
        Kind::Chariot => s(if rank == 0 && file % 8 == 0 { -15 } else { 0 }, 0),
        Kind::Cannon => s(if file == 4 && rank <= 2 { 20 } else { 0 }, 0),
        Kind::General => s(-12 * rank - if file == 4 { 0 } else { 6 }, 0),
        Kind::Advisor | Kind::Elephant => s(0, 0),
    }
}

/// Empty points a chariot reaches, plus the first piece in each direction.
fn chariot_reach(pos: &Xiangqi, sq: Square) -> i32 {
    let mut reach = 0;
    for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
        let mut next = sq.offset(df, dr);
        while let Some(point) = next {
            reach += 1;
            if pos.is_occupied(point) {
                break;
            }
            next = point.offset(df, dr);
        }
    }
    reach
}

/// Per side: defenders of the palace and attacking force.
#[derive(Default)]
struct Forces {
    defenders: i32,
    attack: i32,
}

impl Evaluate for Xiangqi {
    fn evaluate(&self) -> i32 {
        let mut total = [Score::default(); 2];
        let mut forces = [Forces::default(), Forces::default()];
        let mut phase = 0;
        for (sq, piece) in self.pieces() {
            let side = usize::from(piece.side == Side::Black);
            let rank = relative_rank(piece.side, sq);
            let file = i32::from(sq.file());
            total[side] += material(piece.kind, rank >= 5) + placement(piece.kind, file, rank);
            phase += phase_weight(piece.kind);
            match piece.kind {
                Kind::Advisor | Kind::Elephant => forces[side].defenders += 1,
                Kind::Chariot => {
                    forces[side].attack += 2;
                    total[side] += s(3, 2) * (chariot_reach(self, sq) - 8);
                }
                Kind::Horse | Kind::Cannon => forces[side].attack += 1,
                Kind::Soldier if rank >= 5 => forces[side].attack += 1,
                _ => {}
            }
        }
        // A palace without its guards is weak in proportion to the force
        // that can attack it.
        for side in 0..2 {
            let missing = 4 - forces[side].defenders.min(4);
            total[side] -= s(missing * forces[1 - side].attack * 4, missing * 4);
        }
        let score = (total[0] - total[1]).taper(phase, FULL_PHASE);
        let score = if self.turn() == Side::White {
            score
        } else {
            -score
        };
        score + TEMPO
    }

    fn victim_value(&self, m: <Xiangqi as Game>::Move) -> i32 {
        self.piece_at(m.to())
            .map_or(0, |p| value(p.kind, p.side, m.to()))
    }

    fn attacker_value(&self, m: <Xiangqi as Game>::Move) -> i32 {
        self.piece_at(m.from())
            .map_or(0, |p| value(p.kind, p.side, m.from()))
    }

    fn exchange_at_least(&self, m: <Xiangqi as Game>::Move, threshold: i32) -> bool {
        super::exchange::xiangqi_at_least(self, m, threshold, |kind, side| {
            value(kind, side, m.to())
        })
    }

    fn move_key(m: <Xiangqi as Game>::Move) -> u32 {
        1 + (m.from().index() * Square::COUNT + m.to().index()) as u32
    }

    fn null_move(&self) -> Option<Xiangqi> {
        let side = self.turn();
        let attackers = self.pieces().any(|(_, p)| {
            p.side == side && matches!(p.kind, Kind::Chariot | Kind::Horse | Kind::Cannon)
        });
        if attackers { self.pass() } else { None }
    }

    const STALEMATE_IS_LOSS: bool = true;
    const MOVE_COUNT_PRUNING: bool = true;
    const GRADUAL_ASPIRATION: bool = true;

    fn judges_repetitions(options: &XiangqiOptions) -> bool {
        options.rules != XiangqiRules::RepetitionDraws
    }

    /// The library's judge: perpetual check, then perpetual chase, loses.
    /// Under the refusing rules the offending move is refused rather than
    /// lost by, which leaves the offender the same choice: vary, or lose
    /// once every move is refused.
    fn repetition_loser(positions: &[Xiangqi], moves: &[Move]) -> Option<Side> {
        Xiangqi::judge_cycle(positions, moves)?
            .winner
            .map(|winner| !winner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xiangqi_see(fen: &str, m: &str, threshold: i32) -> bool {
        let pos = Xiangqi::from_fen(fen).unwrap();
        let m = pos.parse_move(m).unwrap();
        pos.exchange_at_least(m, threshold)
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

    #[test]
    fn the_start_is_balanced() {
        assert_eq!(Xiangqi::start().evaluate(), TEMPO);
        // The same position with Black to move scores the same for Black.
        let black = Xiangqi::from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1",
        )
        .unwrap();
        assert_eq!(black.evaluate(), TEMPO);
    }

    #[test]
    fn an_extra_chariot_is_worth_a_chariot() {
        let up = Xiangqi::from_fen("3k1a3/9/9/9/9/9/9/9/9/R3KA3 w - - 0 1")
            .unwrap()
            .evaluate();
        assert!((850..=1100).contains(&up), "{up}");
    }
}
