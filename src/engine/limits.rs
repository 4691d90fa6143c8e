//! When a search stops, and how weak it plays on purpose.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

/// When to stop searching, and how much to blur the evaluation.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: u32,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Stop at this instant (checked every 1,024 nodes).
    pub deadline: Option<Instant>,
    /// Start no new iteration after this instant.
    pub soft_deadline: Option<Instant>,
    /// Transposition table size in MiB, for searches that make their own.
    pub hash_mb: usize,
    /// Evaluation error in centipawns (0 = exact), for weaker levels.
    pub noise: i32,
    /// Varies the evaluation error from game to game.
    pub seed: u64,
    /// Best lines to find, each with a different first move (1 = just the
    /// best move; each extra line costs about as much as the first).
    pub multipv: usize,
}

/// Asked by a search, every 1,024 nodes, whether it must stop. It may also
/// hold the search there for a while (to lend its thread's turn to another
/// search): the search then goes on where it was, its tables intact.
pub trait Interrupt {
    /// Whether the search must stop now.
    fn interrupted(&self) -> bool;
}

/// A flag someone sets to stop the search.
impl Interrupt for AtomicBool {
    fn interrupted(&self) -> bool {
        self.load(Ordering::Relaxed)
    }
}

/// The deepest iteration the search runs.
pub const MAX_DEPTH: u32 = 64;
/// The most lines a multi-line search reports.
pub const MAX_MULTIPV: usize = 16;

impl Default for Limits {
    /// Until stopped (to [`MAX_DEPTH`]).
    fn default() -> Limits {
        Limits {
            depth: MAX_DEPTH,
            nodes: None,
            deadline: None,
            soft_deadline: None,
            hash_mb: 16,
            noise: 0,
            seed: 0,
            multipv: 1,
        }
    }
}

impl Limits {
    /// Search to a fixed depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth,
            ..Limits::default()
        }
    }

    /// Search for `time` from now.
    pub fn movetime(time: Duration) -> Limits {
        Limits {
            deadline: Some(Instant::now() + time),
            ..Limits::default()
        }
    }

    /// Play on a clock: `remaining` for the side to move, `increment` per
    /// move, `moves_to_go` until the next time control (if any).
    ///
    /// The search aims at the remaining time spread over the moves still to
    /// play plus most of the increment, starts no new iteration after half
    /// of that, and never plans to use more than a third of what is left.
    pub fn clock(remaining: Duration, increment: Duration, moves_to_go: Option<u32>) -> Limits {
        const SAFETY: Duration = Duration::from_millis(30);
        let now = Instant::now();
        let share = remaining / moves_to_go.unwrap_or(30).clamp(1, 60) + increment * 3 / 4;
        let ceiling = (remaining / 3).max(remaining.saturating_sub(SAFETY) / 2);
        let hard = (share * 2).min(ceiling).max(Duration::from_millis(5));
        Limits {
            deadline: Some(now + hard),
            soft_deadline: Some(now + share.min(hard) / 2),
            ..Limits::default()
        }
    }
}

/// A playing level for casual players, from 1 (a beginner) to 10 (full
/// strength). Lower levels look less deep and misjudge positions by a
/// consistent, position-dependent error, so they lose the way a weaker
/// player does (missing combinations, drifting positionally) rather than
/// by random moves.
///
/// | level | depth | evaluation error | plays roughly like |
/// |---|---|---|---|
/// | 1 | 1 | ±300 cp | a beginner: sees one move ahead, hangs pieces |
/// | 2 | 1 | ±200 cp | a novice |
/// | 3 | 2 | ±150 cp | a casual player |
/// | 4 | 3 | ±110 cp | a club beginner |
/// | 5 | 4 | ±80 cp | a club player |
/// | 6 | 5 | ±50 cp | a strong club player |
/// | 7 | 6 | ±30 cp | an expert |
/// | 8 | 8 | ±15 cp | a candidate master |
/// | 9 | 12 | exact | a master, at most 2 M nodes per move |
/// | 10 | 64 | exact | full strength, limited only by time |
///
/// The last column is the design; the strength measured against Stockfish
/// is in the level table of `docs/engine.md` and `BENCHMARKS.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    /// Full strength.
    pub const MAX: Level = Level(10);

    /// The level `n`, if it is from 1 to 10.
    pub fn new(n: u32) -> Option<Level> {
        u8::try_from(n)
            .ok()
            .filter(|n| (1..=10).contains(n))
            .map(Level)
    }

    /// The level's number (1-10).
    pub fn get(self) -> u8 {
        self.0
    }

    /// `limits` weakened to this level; `seed` varies its misjudgements
    /// from game to game.
    pub fn apply(self, limits: Limits, seed: u64) -> Limits {
        const TABLE: [(u32, i32, Option<u64>); 10] = [
            (1, 300, Some(20_000)),
            (1, 200, Some(20_000)),
            (2, 150, Some(50_000)),
            (3, 110, Some(100_000)),
            (4, 80, Some(200_000)),
            (5, 50, Some(400_000)),
            (6, 30, Some(800_000)),
            (8, 15, Some(1_500_000)),
            (12, 0, Some(2_000_000)),
            (MAX_DEPTH, 0, None),
        ];
        let (depth, noise, nodes) = TABLE[usize::from(self.0 - 1)];
        Limits {
            depth: limits.depth.min(depth),
            nodes: match (limits.nodes, nodes) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            noise,
            seed,
            ..limits
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_one_to_ten() {
        assert_eq!(Level::new(0), None);
        assert_eq!(Level::new(11), None);
        assert_eq!(Level::new(10), Some(Level::MAX));
        let weak = Level::new(1).unwrap().apply(Limits::depth(20), 7);
        assert_eq!((weak.depth, weak.noise, weak.nodes), (1, 300, Some(20_000)));
        let full = Level::MAX.apply(Limits::depth(20), 7);
        assert_eq!((full.depth, full.noise, full.nodes), (20, 0, None));
    }

    #[test]
    fn a_clock_never_plans_past_a_third_of_the_time_left() {
        let start = Instant::now();
        let limits = Limits::clock(Duration::from_millis(600), Duration::ZERO, Some(1));
        let hard = limits.deadline.unwrap() - start;
        assert!(hard <= Duration::from_millis(300), "{hard:?}");
        assert!(limits.soft_deadline.unwrap() <= limits.deadline.unwrap());
    }
}
