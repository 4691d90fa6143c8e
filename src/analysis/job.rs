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
    rules::{
        Game, Quoted, Record, RuleChoices, Side, Variant,
        referee::{InvalidPosition, PositionProblem, record_under},
    },
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
            let record = record_under::<G, S>(G::options(choices), fen, moves)?;
            if let Some(end) = record.verdict().end {
                return Err(AnalysisError::GameOver(end.describe(G::VARIANT)));
            }
            Ok(Job::of(record))
        })
    }

    fn of<G: Evaluate>(record: Record<G>) -> Job {
        let record = Arc::new(record);
        let searched = Arc::clone(&record);
        let run: Run = Box::new(move |limits, stop, report| think(&searched, limits, stop, report));
        Job {
            run,
            position: record,
        }
    }

    /// Every position of a game played from `fen` (as [`Job::new`]), from
    /// its start to after its last `moves`, as a recorded game played them
    /// (even past an ending someone had to claim). Each is set up when it
    /// is reached, with the history before it, so repetitions count.
    ///
    /// # Errors
    ///
    /// The start position is invalid, or a move cannot be played.
    pub fn positions_of_game<S: AsRef<str>>(
        variant: Variant,
        choices: RuleChoices,
        fen: Option<&str>,
        moves: &[S],
    ) -> Result<GamePositions, AnalysisError> {
        with_game!(variant, G => {
            let mut record = record_under::<G, &str>(G::options(choices), fen, &[])?;
            let mut full = record.clone();
            for (ply, text) in moves.iter().enumerate() {
                let text = text.as_ref();
                full.play_recorded(text).map_err(|error| InvalidPosition {
                    problems: vec![PositionProblem {
                        code: error.code(),
                        message: format!("move {} ({}): {error}", ply + 1, Quoted(text)),
                        move_index: Some(ply),
                    }],
                })?;
            }
            let played = full.moves().to_vec();
            let stages = (0..=played.len()).map(move |ply| {
                if ply > 0 {
                    record.push(played[ply - 1]);
                }
                match record.verdict().end {
                    Some(end) => Stage::Ended(end.winner),
                    None => Stage::Search(Job::of(record.clone())),
                }
            });
            Ok(GamePositions {
                count: moves.len() + 1,
                stages: Box::new(stages),
            })
        })
    }
}

/// A position of a game under review.
pub enum Stage {
    /// To search.
    Search(Job),
    /// The rules have ended the game here: its winner, `None` for a draw.
    Ended(Option<Side>),
}

/// The positions of a game, set up one after another.
pub struct GamePositions {
    /// How many: the moves and the start.
    pub count: usize,
    pub(super) stages: Box<dyn Iterator<Item = Stage> + Send>,
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
