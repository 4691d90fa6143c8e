//! What a search answers, and why one could not run.

use std::time::Duration;

use super::external::EngineFailure;
use crate::{
    engine::MATE,
    rules::{MoveDescription, Variant, referee::InvalidPosition},
};

/// An evaluation from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Advantage in centipawns.
    Centipawns(i32),
    /// Forced mate (or rule win) in this many moves; negative when the side
    /// to move loses.
    Mate(i32),
}

impl Score {
    /// Reads the engine's score (`MATE - plies` for mates).
    pub fn from_engine(score: i32) -> Score {
        if score.abs() >= MATE - 1_000 {
            let moves = (MATE - score.abs() + 1) / 2;
            Score::Mate(if score > 0 { moves } else { -moves })
        } else {
            Score::Centipawns(score)
        }
    }
}

/// What a search has found so far.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The best lines with different first moves, best first, as many as
    /// asked for (a position being analysed always has a move).
    pub lines: Vec<Variation>,
    /// The deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// One of the lines of an analysis.
#[derive(Clone, Debug)]
pub struct Variation {
    pub score: Score,
    /// The moves, first move first.
    pub pv: Vec<MoveDescription>,
}

impl Analysis {
    /// The move to play.
    pub fn best(&self) -> Option<&MoveDescription> {
        self.lines.first()?.pv.first()
    }

    /// The evaluation of the best line.
    pub fn score(&self) -> Score {
        self.lines
            .first()
            .map_or(Score::Centipawns(0), |line| line.score)
    }

    /// Positions per second.
    pub fn nps(&self) -> u64 {
        let micros = self.elapsed.as_micros().max(1);
        u64::try_from(u128::from(self.nodes) * 1_000_000 / micros).unwrap_or(u64::MAX)
    }
}

/// Why a search could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// Every search slot is taken and the queue for them is full.
    #[error(
        "all {slots} engine slots are busy and their queue is full ({queue} calls): retry \
         shortly (with backoff) or ask for shorter searches"
    )]
    Busy { slots: usize, queue: usize },
    /// No slot came free within the caller's deadline or the longest wait.
    #[error(
        "no engine slot came free within {} ms: retry later (with backoff) or ask for shorter \
         searches",
        .0.as_millis()
    )]
    NoTurn(Duration),
    /// The caller already runs the most searches one caller may.
    #[error(
        "you already run {0} engine search(es) at once, the most one caller may: wait for it to \
         finish (or stop your Analyze) before starting another"
    )]
    PeerLimit(usize),
    /// The position could not be set up.
    #[error(transparent)]
    Position(#[from] InvalidPosition),
    /// The rules have already ended the game.
    #[error("the game is already over: {0}")]
    GameOver(String),
    /// The game's external engine failed; the next search starts it again.
    #[error(
        "the external {variant} engine failed: {failure}; it is restarted for the next call: \
         retry"
    )]
    Engine {
        variant: Variant,
        failure: EngineFailure,
    },
}
