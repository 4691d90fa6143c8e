//! Judging a game's moves from the engine's evaluation of each position,
//! with the formulas Lichess publishes (lila's `WinPercent`,
//! `AccuracyPercent` and `Advice`), so that the figures read alike.
//!
//! - Winning chances: `2 / (1 + exp(-0.00368208 * cp)) - 1`, from -1 (lost)
//!   to 1 (won), the centipawns taken within ±1000 first; a forced mate
//!   counts as ±1000, as lila counts it. Win% is `50 + 50 * chances`.
//! - A move is an inaccuracy, mistake or blunder when it drops its side's
//!   winning chances by at least 0.1, 0.2 or 0.3.
//! - Its accuracy is `103.1668 * exp(-0.04354 * drop) - 3.1669`, the drop
//!   being in the mover's win%, plus lila's point of uncertainty bonus,
//!   within 0-100 (100 when the move loses nothing).
//! - A side's accuracy is lila's: the mean of the volatility-weighted mean
//!   of its moves' accuracies (each weighted by the standard deviation of
//!   win% over a window of the game around it, within 0.5-12) and their
//!   harmonic mean (each taken as at least 1).

use crate::rules::Side;

/// An evaluation from White's (Red's) point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Advantage in centipawns, positive when White is better.
    Centipawns(i32),
    /// Forced mate in this many moves, positive when White mates.
    Mate(i32),
    /// The rules have ended the game here: its winner, `None` for a draw.
    Ended(Option<Side>),
}

/// The centipawns past which lila counts an advantage as decided.
const CEILING: f64 = 1_000.0;

impl Eval {
    /// White's winning chances, from -1 to 1.
    pub fn winning_chances(self) -> f64 {
        let cp = match self {
            Eval::Centipawns(cp) => f64::from(cp).clamp(-CEILING, CEILING),
            Eval::Mate(moves) if moves < 0 => -CEILING,
            Eval::Mate(_) | Eval::Ended(Some(Side::White)) => CEILING,
            Eval::Ended(Some(Side::Black)) => -CEILING,
            Eval::Ended(None) => 0.0,
        };
        2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0
    }

    /// White's chance of winning as a percentage.
    pub fn win_percent(self) -> f64 {
        50.0 + 50.0 * self.winning_chances()
    }

    /// `side`'s winning chances.
    fn chances_of(self, side: Side) -> f64 {
        match side {
            Side::White => self.winning_chances(),
            Side::Black => -self.winning_chances(),
        }
    }
}

/// How bad a move is, by the winning chances it gives away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

/// The judgement of `mover`'s move from a position evaluated `before` to
/// one evaluated `after`, `None` for a good move.
pub fn judge(before: Eval, after: Eval, mover: Side) -> Option<Judgement> {
    let drop = before.chances_of(mover) - after.chances_of(mover);
    // Rounded first, so that a drop of exactly a threshold reaches it.
    let drop = (drop * 1e9).round() / 1e9;
    [
        (0.3, Judgement::Blunder),
        (0.2, Judgement::Mistake),
        (0.1, Judgement::Inaccuracy),
    ]
    .into_iter()
    .find(|&(threshold, _)| drop >= threshold)
    .map(|(_, judgement)| judgement)
}

/// The accuracy (0-100) of a move from `before` to `after`, each `mover`'s
/// win%.
fn accuracy_of_percents(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let raw = 103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * (before - after)).exp()
        - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// The accuracy (0-100) of `mover`'s move from `before` to `after`.
pub fn move_accuracy(before: Eval, after: Eval, mover: Side) -> f64 {
    let percent = |eval: Eval| 50.0 + 50.0 * eval.chances_of(mover);
    accuracy_of_percents(percent(before), percent(after))
}

/// Each side's accuracy over a game, `None` for a side that made no move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Accuracies {
    pub white: Option<f64>,
    pub black: Option<f64>,
}

/// The sides' accuracies in a game whose positions, from the start to the
/// last, are evaluated `evals`; `first` made the first move.
pub fn accuracies(evals: &[Eval], first: Side) -> Accuracies {
    let percents: Vec<f64> = evals.iter().map(|e| e.win_percent()).collect();
    let moves = percents.len().saturating_sub(1);
    if moves == 0 {
        return Accuracies {
            white: None,
            black: None,
        };
    }
    // lila's windows, one per move: the first ones the game's opening
    // window, then one sliding over the game.
    let size = (moves / 10).clamp(2, 8);
    let starts = std::iter::repeat_n(0, size - 2).chain(0..=percents.len() - size);
    let weights: Vec<f64> = starts
        .map(|start| standard_deviation(&percents[start..start + size]).clamp(0.5, 12.0))
        .collect();
    let side_accuracy = |side: Side| {
        let moves: Vec<(f64, f64)> = percents
            .windows(2)
            .zip(&weights)
            .enumerate()
            .filter(|(i, _)| (i % 2 == 0) == (side == first))
            .map(|(_, (pair, &weight))| {
                let (before, after) = match side {
                    Side::White => (pair[0], pair[1]),
                    Side::Black => (100.0 - pair[0], 100.0 - pair[1]),
                };
                (accuracy_of_percents(before, after), weight)
            })
            .collect();
        if moves.is_empty() {
            return None;
        }
        let weight: f64 = moves.iter().map(|(_, w)| w).sum();
        let weighted = moves.iter().map(|(a, w)| a * w).sum::<f64>() / weight;
        let harmonic =
            moves.len() as f64 / moves.iter().map(|(a, _)| 1.0 / a.max(1.0)).sum::<f64>();
        Some((weighted + harmonic) / 2.0)
    };
    Accuracies {
        white: side_accuracy(Side::White),
        black: side_accuracy(Side::Black),
    }
}

/// The population standard deviation of `values` (not empty).
fn standard_deviation(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn winning_chances_follow_the_published_curve() {
        // 2 / (1 + e^-0.368208) - 1 = 0.18205...
        assert!(close(Eval::Centipawns(100).winning_chances(), 0.18205));
        assert!(close(Eval::Centipawns(-100).winning_chances(), -0.18205));
        assert_eq!(Eval::Centipawns(0).win_percent(), 50.0);
        // Beyond the ceiling, and mates, count as 1000 centipawns: 0.95089.
        assert!(close(Eval::Centipawns(5_000).winning_chances(), 0.95089));
        assert!(close(Eval::Mate(3).winning_chances(), 0.95089));
        assert!(close(Eval::Mate(-1).win_percent(), 2.4553));
        assert!(close(Eval::Ended(Some(Side::Black)).win_percent(), 2.4553));
        assert_eq!(Eval::Ended(None).win_percent(), 50.0);
    }

    #[test]
    fn judgements_by_the_drop_in_winning_chances() {
        let cp = Eval::Centipawns;
        // White: +0.18205 to 0: a drop of 0.182, an inaccuracy.
        assert_eq!(
            judge(cp(100), cp(0), Side::White),
            Some(Judgement::Inaccuracy)
        );
        // 0 to -300 (-0.50225): a blunder; the same for Black is a gain.
        assert_eq!(
            judge(cp(0), cp(-300), Side::White),
            Some(Judgement::Blunder)
        );
        assert_eq!(judge(cp(0), cp(-300), Side::Black), None);
        // 0 to +120 for Black: 0.21740, a mistake.
        assert_eq!(judge(cp(0), cp(120), Side::Black), Some(Judgement::Mistake));
        assert_eq!(judge(cp(30), cp(10), Side::White), None);
        // Allowing a mate in one from a level game.
        assert_eq!(
            judge(cp(0), Eval::Mate(1), Side::Black),
            Some(Judgement::Blunder)
        );
        // Mating is never a mistake.
        assert_eq!(
            judge(Eval::Mate(1), Eval::Ended(Some(Side::White)), Side::White),
            None
        );
    }

    #[test]
    fn move_accuracy_follows_the_published_curve() {
        let cp = Eval::Centipawns;
        assert_eq!(move_accuracy(cp(0), cp(50), Side::White), 100.0);
        // win% 50 to 40.897 (-100 cp): 103.16681 * e^(-0.043544 * 9.1030)
        // - 3.16692 + 1 = 67.2397.
        assert!(close(move_accuracy(cp(0), cp(-100), Side::White), 67.2397));
        assert!(close(move_accuracy(cp(0), cp(100), Side::Black), 67.2397));
        // A drop of 95 points of win% is worth nothing.
        assert_eq!(
            move_accuracy(Eval::Mate(2), Eval::Mate(-2), Side::White),
            0.0
        );
    }

    #[test]
    fn side_accuracies_weight_moves_as_lila_does() {
        let cp = Eval::Centipawns;
        // White loses 100 cp in one move, Black plays perfectly: win% 50,
        // 40.897, 40.897. Windows of 2: deviations 4.5513 and 0 (0.5).
        let evals = [cp(0), cp(-100), cp(-100)];
        let a = accuracies(&evals, Side::White);
        assert!(close(a.white.unwrap(), 67.2397));
        assert_eq!(a.black, Some(100.0));
        // Two White moves, 100 and 67.2397, weighted 0.5 and 4.5513:
        // weighted (50 + 306.03) / 5.0513 = 70.482; harmonic 2 / (0.01 +
        // 0.014872) = 80.411; their mean 75.447.
        let evals = [cp(0), cp(0), cp(0), cp(-100)];
        let a = accuracies(&evals, Side::White);
        assert!(close(a.white.unwrap(), 75.447), "{a:?}");
        assert_eq!(a.black, Some(100.0));
        // Black moves first in a custom position; one move only.
        let a = accuracies(&[cp(0), cp(0)], Side::Black);
        assert_eq!((a.white, a.black), (None, Some(100.0)));
        assert_eq!(accuracies(&[cp(0)], Side::White).white, None);
    }
}
