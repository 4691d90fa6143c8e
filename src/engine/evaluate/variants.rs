//! Evaluation of the Lichess variants: the chess evaluation of the board,
//! with each variant's own aim on top (pieces in hand, the centre, checks
//! given, the race to the eighth rank) and, in antichess, material turned
//! into a burden.

use std::cmp::Ordering;

use shakmaty::{
    Bitboard, Color, KnownOutcome, Outcome, Position, Rank, Role,
    variant::{Antichess, Atomic, Crazyhouse, Horde, KingOfTheHill, RacingKings, ThreeCheck},
};

use super::{
    Evaluate,
    chess::{for_side_to_move, move_key, value, white_view},
};
use crate::rules::variants::{Lichess, LichessRules};

/// A won position by the variant's own rule, short of a mate score (the
/// search scores the end itself, with its distance, when it reaches it).
const WON: i32 = 20_000;

/// What a variant's evaluation weighs, for White.
pub trait Aims: LichessRules {
    /// The position's value for White.
    fn white_view(&self) -> i32 {
        white_view(self.board())
    }

    /// May the search pass a move here to prune (no zugzwang to fear)?
    const NULL_MOVE: bool = true;
}

/// `f(color)` for White minus for Black.
fn difference(f: impl Fn(Color) -> i32) -> i32 {
    f(Color::White) - f(Color::Black)
}

impl Aims for Crazyhouse {
    /// Pieces in hand count almost as on the board: a drop is one move away.
    fn white_view(&self) -> i32 {
        let pockets = self.pockets().map_or(0, |pockets| {
            difference(|color| {
                Role::ALL
                    .into_iter()
                    .map(|role| i32::from(*pockets.get(color).get(role)) * value(role) * 9 / 10)
                    .sum()
            })
        });
        white_view(self.board()) + pockets
    }
}

impl Aims for Antichess {
    /// Fewer pieces is better; a king is worth as much as any other piece.
    fn white_view(&self) -> i32 {
        let board = self.board();
        difference(|color| -(board.by_color(color).count() as i32) * 100)
    }

    const NULL_MOVE: bool = false;
}

impl Aims for Atomic {}

impl Aims for Horde {}

impl Aims for KingOfTheHill {
    /// A king nearer the centre is nearer the win.
    fn white_view(&self) -> i32 {
        let board = self.board();
        let centre = difference(|color| {
            board.king_of(color).map_or(0, |king| {
                let distance = Bitboard::CENTER
                    .into_iter()
                    .map(|c| c.distance(king))
                    .min()
                    .unwrap_or(0);
                (3 - distance as i32).max(0) * 60
            })
        });
        white_view(board) + centre
    }
}

impl Aims for RacingKings {
    /// The race counts more than anything: each rank the king has run.
    fn white_view(&self) -> i32 {
        let board = self.board();
        let race = difference(|color| {
            board.king_of(color).map_or(0, |king| {
                king.rank() as i32 * 90 + i32::from(king.rank() == Rank::Eighth) * 400
            })
        });
        white_view(board) + race
    }
}

impl Aims for ThreeCheck {
    /// Each check given is worth pieces: the third wins.
    fn white_view(&self) -> i32 {
        let checks = self.remaining_checks().map_or(0, |left| {
            difference(|color| {
                let given = 3 - i32::from(*left.get(color));
                given * given * 150
            })
        });
        white_view(self.board()) + checks
    }
}

impl<P: Aims> Evaluate for Lichess<P> {
    fn evaluate(&self) -> i32 {
        let pos = self.position();
        match pos.variant_outcome() {
            Outcome::Known(KnownOutcome::Decisive { winner }) if winner == pos.turn() => WON,
            Outcome::Known(KnownOutcome::Decisive { .. }) => -WON,
            Outcome::Known(KnownOutcome::Draw) => 0,
            Outcome::Unknown if pos.is_insufficient_material() => 0,
            Outcome::Unknown => for_side_to_move(pos.turn(), pos.white_view()),
        }
    }

    fn victim_value(&self, m: shakmaty::Move) -> i32 {
        m.capture().map_or(0, value) + m.promotion().map_or(0, value)
    }

    fn attacker_value(&self, m: shakmaty::Move) -> i32 {
        value(m.role())
    }

    fn move_key(m: shakmaty::Move) -> u32 {
        move_key(m)
    }

    fn null_move(&self) -> Option<Lichess<P>> {
        if !P::NULL_MOVE {
            return None;
        }
        let pos = self.position();
        let pieces = pos.us() & !pos.board().pawns() & !pos.board().kings();
        if pieces.is_empty() {
            return None;
        }
        self.pass()
    }

    const STALEMATE_IS_LOSS: bool = false;

    fn without_moves(&self, in_check: bool) -> Ordering {
        let pos = self.position();
        match pos.variant_outcome() {
            Outcome::Known(KnownOutcome::Decisive { winner }) if winner == pos.turn() => {
                Ordering::Greater
            }
            Outcome::Known(KnownOutcome::Decisive { .. }) => Ordering::Less,
            Outcome::Known(KnownOutcome::Draw) => Ordering::Equal,
            Outcome::Unknown if in_check => Ordering::Less,
            Outcome::Unknown => Ordering::Equal,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        engine::{Limits, MATE, search},
        rules::{Game, Record, variants},
    };

    /// The move the search plays from `fen`, and whether it scores a win
    /// in one.
    fn best<G: super::Evaluate>(fen: &str) -> (String, bool) {
        let pos = G::from_fen(fen).unwrap();
        let result = search(&Record::new(pos.clone()), &Limits::depth(3));
        let best = result.best().expect("a move");
        (pos.coordinate_notation(best), result.score() == MATE - 1)
    }

    /// Each variant's own win, one move away, is found and scored as a
    /// mate: the search asks the variant how a position without moves
    /// ends.
    #[test]
    fn each_variant_win_in_one_is_found_as_a_mate() {
        assert_eq!(
            best::<variants::Atomic>("rnbqkbnr/pppppppp/8/6N1/8/8/PPPPPPPP/RNBQKB1R w KQkq - 0 1"),
            ("g5f7".into(), true)
        );
        assert!(best::<variants::ThreeCheck>("4k3/8/8/8/8/8/8/R3K3 w - - 1+3 0 1").1);
        let (race, won) = best::<variants::RacingKings>("8/5K2/8/8/8/8/k7/8 w - - 0 1");
        assert!(
            ["f7e8", "f7f8", "f7g8"].contains(&race.as_str()) && won,
            "{race}"
        );
        // Antichess: the last rook offered, Black must take it, and White,
        // left without pieces, wins a ply later.
        let pos = variants::Antichess::from_fen("7r/8/8/8/8/8/8/R7 w - - 0 1").unwrap();
        let result = search(&Record::new(pos.clone()), &Limits::depth(3));
        let offer = pos.coordinate_notation(result.best().unwrap());
        assert!(["a1a8", "a1h1"].contains(&offer.as_str()), "{offer}");
        assert_eq!(result.score(), MATE - 2);
        assert_eq!(
            best::<variants::Horde>("8/8/8/8/8/8/3kP3/8 b - - 0 1"),
            ("d2e2".into(), true)
        );
        let (koth, won) = best::<variants::KingOfTheHill>("7k/8/8/8/8/3K4/8/8 w - - 0 1");
        assert!(["d3d4", "d3e4"].contains(&koth.as_str()) && won, "{koth}");
        let (drop, won) = best::<variants::Crazyhouse>("6k1/5ppp/8/8/8/8/8/6K1[R] w - - 0 1");
        assert!(drop.starts_with("R@") && won, "{drop}");
    }
}
