//! A position checked and ready to search, and how long and how well to
//! search it.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use super::{Analysis, AnalysisError, Score, Variation, external::UciPosition};
use crate::{
    engine::{
        Evaluate, Interrupt, Level, Limits, MAX_DEPTH, MAX_MULTIPV, SearchResult,
        TranspositionTable, search_with,
    },
    rules::{Game, Record, RuleChoices, Variant, referee::record_under},
    with_game,
};

/// Longest search a client may ask for.
pub const MAX_MOVETIME: Duration = Duration::from_secs(60);
/// Transposition table per search, in MiB.
const HASH_MB: usize = 16;

/// How long and how well to search; the clock starts when the search first
/// has a slot.
#[derive(Clone, Copy, Debug)]
pub struct SearchOrder {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Duration,
    /// Answer by then at the latest, whenever the search starts (the
    /// caller's deadline, less the time to send the answer).
    pub deadline: Option<Instant>,
    pub level: Level,
    /// Lines to find (at most [`MAX_MULTIPV`]).
    pub multipv: usize,
}

impl SearchOrder {
    /// The best move at `level` within `movetime`.
    pub fn best_move(movetime: Duration, level: Level) -> SearchOrder {
        SearchOrder {
            depth: None,
            nodes: None,
            movetime,
            deadline: None,
            level,
            multipv: 1,
        }
    }

    /// The limits of a search starting now.
    pub(super) fn limits(&self, seed: u64) -> Limits {
        let mut limits = Limits::movetime(self.movetime.min(MAX_MOVETIME));
        if let Some(deadline) = self.deadline {
            limits.deadline = limits.deadline.map(|end| end.min(deadline));
        }
        limits.depth = self.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        limits.nodes = self.nodes;
        limits.multipv = self.multipv.clamp(1, MAX_MULTIPV);
        limits.hash_mb = HASH_MB;
        self.level.apply(limits, seed)
    }
}

pub(super) type Run =
    Box<dyn FnOnce(&Limits, &dyn Interrupt, &mut dyn FnMut(&Analysis)) -> Analysis + Send>;

/// A position checked and ready to search.
pub struct Job {
    pub(super) run: Run,
    /// The same position, for an external engine.
    pub(super) position: Arc<dyn UciPosition>,
}

impl Job {
    /// Sets up `moves` played from `fen` (`None` or empty: the standard
    /// start) under the rules `choices` make: they decide which moves are
    /// legal and which repetitions end the game, so the search follows them.
    ///
    /// # Errors
    ///
    /// The position is invalid, or the game is already over.
    pub fn new<S: AsRef<str>>(
        variant: Variant,
        choices: RuleChoices,
        fen: Option<&str>,
        moves: &[S],
    ) -> Result<Job, AnalysisError> {
        with_game!(variant, G => {
            let record = Arc::new(record_under::<G, S>(G::options(choices), fen, moves)?);
            if let Some(end) = record.verdict().end {
                return Err(AnalysisError::GameOver(end.describe(G::VARIANT)));
            }
            let searched = Arc::clone(&record);
            let run: Run = Box::new(move |limits, stop, report| think(&searched, limits, stop, report));
            Ok(Job { run, position: record })
        })
    }
}

fn think<G: Evaluate>(
    record: &Record<G>,
    limits: &Limits,
    stop: &dyn Interrupt,
    report: &mut dyn FnMut(&Analysis),
) -> Analysis {
    let started = Instant::now();
    let mut table = TranspositionTable::new(limits.hash_mb);
    let pos = record.current();
    let describe = |pv: &[G::Move]| {
        let mut line = pos.clone();
        pv.iter()
            .map(|&m| {
                let description = line.describe(m);
                line.play(m);
                description
            })
            .collect::<Vec<_>>()
    };
    let analysis = |r: &SearchResult<G::Move>| Analysis {
        lines: r
            .lines
            .iter()
            .map(|l| Variation {
                score: Score::from_engine(l.score),
                pv: describe(&l.pv),
            })
            .collect(),
        depth: r.depth,
        nodes: r.nodes,
        elapsed: started.elapsed(),
    };
    let result = search_with(record, limits, &mut table, stop, |r| report(&analysis(r)));
    analysis(&result)
}
