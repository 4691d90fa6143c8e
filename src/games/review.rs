//! Game reviews: the engine's evaluation of every position of a game, each
//! move judged by what it changed (`analysis::review`), and each side's
//! accuracy. An ended game's analysis is stored once per search setting,
//! and a second review with that setting reads it back at once; a game
//! still in play may change, so its review is never stored.

use std::{future::Future, time::Duration};

use tokio::sync::mpsc;

use super::{
    Games,
    model::{GameError, Status, replay, rule_choices},
};
use crate::{
    analysis::{
        AnalysisError, GameAnswers, GamePositions, Job, PositionAnalysis, SearchOrder,
        review::{Accuracies, Eval, Judgement, accuracies, judge, move_accuracy},
    },
    engine::{Level, MAX_DEPTH},
    reason::Reason,
    rules::{MoveDescription, Side, Variant, referee::Referee, xiangqi::XiangqiRules},
    store::StoredPositionAnalysis,
};

/// The longest search of one position a review may ask for.
pub const MAX_POSITION_TIME: Duration = Duration::from_secs(10);
/// The shortest.
pub const MIN_POSITION_TIME: Duration = Duration::from_millis(10);
/// The most engine time one review may take: its positions times the time
/// of each.
pub const MAX_REVIEW_TIME: Duration = Duration::from_secs(600);
/// The depth a review searches each position to when the caller says
/// nothing.
pub const DEFAULT_REVIEW_DEPTH: u32 = 10;

/// How deep a review searches each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewSearch {
    /// To this depth, within the share of [`MAX_REVIEW_TIME`] each
    /// position has (at most [`MAX_POSITION_TIME`]).
    Depth(u32),
    /// For this long.
    Movetime(Duration),
}

impl Default for ReviewSearch {
    fn default() -> ReviewSearch {
        ReviewSearch::Depth(DEFAULT_REVIEW_DEPTH)
    }
}

impl ReviewSearch {
    /// The setting's name, which its stored analyses are kept under.
    pub fn name(self) -> String {
        match self {
            ReviewSearch::Depth(depth) => format!("depth={depth}"),
            ReviewSearch::Movetime(time) => format!("movetime={}", time.as_millis()),
        }
    }

    /// The search of each of `positions` positions, or why the setting is
    /// out of bounds.
    fn order(
        self,
        positions: usize,
        deadline: Option<std::time::Instant>,
    ) -> Result<SearchOrder, GameError> {
        let share = MAX_REVIEW_TIME / u32::try_from(positions).unwrap_or(u32::MAX).max(1);
        let (depth, movetime) = match self {
            ReviewSearch::Depth(depth) if !(1..=MAX_DEPTH).contains(&depth) => {
                return Err(GameError::invalid(
                    "depth",
                    Reason::ValueOutOfRange,
                    format!("depth must be 1 to {MAX_DEPTH}, or 0 for {DEFAULT_REVIEW_DEPTH}"),
                ));
            }
            ReviewSearch::Depth(depth) => (Some(depth), share.min(MAX_POSITION_TIME)),
            ReviewSearch::Movetime(time)
                if !(MIN_POSITION_TIME..=MAX_POSITION_TIME).contains(&time) =>
            {
                return Err(GameError::invalid(
                    "movetime_ms",
                    Reason::ValueOutOfRange,
                    format!(
                        "movetime_ms must be {} to {} per position",
                        MIN_POSITION_TIME.as_millis(),
                        MAX_POSITION_TIME.as_millis()
                    ),
                ));
            }
            ReviewSearch::Movetime(time) if time > share => {
                return Err(GameError::OverLimit {
                    field: "movetime_ms",
                    reason: Reason::ReviewTooLong,
                    limit: "limit_ms",
                    value: share.as_millis() as usize,
                    message: format!(
                        "the game has {positions} positions to search: at {} ms each they \
                         would take more than the {} s a review may; ask for {} ms or less, \
                         or for a depth",
                        time.as_millis(),
                        MAX_REVIEW_TIME.as_secs(),
                        share.as_millis()
                    ),
                });
            }
            ReviewSearch::Movetime(time) => (None, time),
        };
        Ok(SearchOrder {
            depth,
            deadline,
            ..SearchOrder::best_move(movetime, Level::MAX)
        })
    }
}

/// The game a review is of.
#[derive(Clone, Debug)]
pub enum ReviewSource {
    /// A stored game, by id.
    Game(String),
    /// One PGN game (not stored), read as an import reads it.
    Pgn {
        text: String,
        variant: Option<Variant>,
        rules: Option<XiangqiRules>,
    },
}

/// One position's evaluation in a review.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PositionEval {
    eval: Eval,
    depth: u32,
    /// The best line, in coordinates (empty where the rules ended the
    /// game).
    pv: Vec<String>,
}

/// A move of a game, reviewed.
#[derive(Clone, Debug)]
pub struct MoveReview {
    /// The move's index in the game (0: the first).
    pub ply: usize,
    pub side: Side,
    pub played: MoveDescription,
    /// The evaluations of the positions before and after the move.
    pub before: Eval,
    pub after: Eval,
    /// The engine's best line in the position before the move (empty
    /// where the rules had ended the game), and the depth it searched.
    pub pv: Vec<MoveDescription>,
    pub depth: u32,
    pub judgement: Option<Judgement>,
    /// From 0 to 100.
    pub accuracy: f64,
}

/// What a review sends: each move in order, then the summary.
#[derive(Clone, Debug)]
pub enum ReviewEvent {
    Move(MoveReview),
    Done {
        accuracies: Accuracies,
        /// Each side's judged moves.
        white: JudgementCounts,
        black: JudgementCounts,
        /// The analysis was read from the store.
        stored: bool,
    },
}

/// How many moves of a side had each judgement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JudgementCounts {
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
}

impl JudgementCounts {
    fn count(&mut self, judgement: Judgement) {
        *match judgement {
            Judgement::Inaccuracy => &mut self.inaccuracies,
            Judgement::Mistake => &mut self.mistakes,
            Judgement::Blunder => &mut self.blunders,
        } += 1;
    }
}

/// Why a review failed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
}

/// What [`Games::review`] sends.
pub type Reviews = mpsc::Receiver<Result<ReviewEvent, ReviewError>>;

/// The game under review: where it starts and its moves.
struct Reviewed {
    /// The stored game's sequence number, when its analysis is kept.
    keep_as: Option<i64>,
    variant: Variant,
    choices: crate::rules::RuleChoices,
    start_fen: String,
    /// The moves in coordinates, and described.
    moves: Vec<String>,
    played: Vec<MoveDescription>,
}

impl Games {
    /// Reviews a game with `search`, its analysis read from the store if it
    /// has one; `deadline` is the caller's. `analyze` runs the engine over
    /// the positions (in the caller's share of it).
    ///
    /// # Errors
    ///
    /// An unknown game, a PGN that does not read, a setting out of bounds,
    /// the engine (no slot, the caller's limit), or storage; later ones
    /// end the stream.
    pub async fn review<F, A>(
        &self,
        source: ReviewSource,
        search: ReviewSearch,
        deadline: Option<std::time::Instant>,
        analyze: F,
    ) -> Result<Reviews, ReviewError>
    where
        F: FnOnce(GamePositions, SearchOrder) -> A,
        A: Future<Output = Result<GameAnswers, AnalysisError>>,
    {
        let game = self.reviewed(source).await?;
        let order = search.order(game.moves.len() + 1, deadline)?;
        let setting = search.name();
        let mut reviewer = Reviewer::new(&game)?;
        let (sender, receiver) = mpsc::channel(REVIEW_BUFFER);
        if let Some(seq) = game.keep_as {
            let stored = self
                .store
                .game_analysis(seq, &setting)
                .await
                .map_err(GameError::from)?;
            if stored.len() == game.moves.len() + 1 {
                let evals = stored
                    .into_iter()
                    .map(|row| PositionEval::from_row(row, seq))
                    .collect::<Result<Vec<_>, _>>()?;
                tokio::spawn(async move {
                    for eval in evals {
                        if let Some(m) = reviewer.next(eval)
                            && sender.send(Ok(ReviewEvent::Move(m))).await.is_err()
                        {
                            return;
                        }
                    }
                    let done = reviewer.done(true);
                    let _ = sender.send(Ok(done)).await;
                });
                return Ok(receiver);
            }
        }
        let positions = Job::positions_of_game(
            game.variant,
            game.choices,
            Some(&game.start_fen),
            &game.moves,
        )?;
        let mut answers = analyze(positions, order).await?;
        let store = self.store.clone();
        tokio::spawn(async move {
            let mut evals = Vec::with_capacity(game.moves.len() + 1);
            loop {
                let answer = tokio::select! {
                    answer = answers.recv() => answer,
                    // The client left: dropping `answers` stops the search.
                    () = sender.closed() => return,
                };
                let Some(answer) = answer else { break };
                let eval = match answer {
                    Ok(analysis) => reviewer.evaluate(analysis),
                    Err(e) => {
                        let _ = sender.send(Err(e.into())).await;
                        return;
                    }
                };
                evals.push(eval.clone());
                if let Some(m) = reviewer.next(eval)
                    && sender.send(Ok(ReviewEvent::Move(m))).await.is_err()
                {
                    return;
                }
            }
            // A search cut short by the caller's deadline is no analysis
            // to keep.
            let whole = evals.len() == game.moves.len() + 1
                && deadline.is_none_or(|d| std::time::Instant::now() < d);
            if let Some(seq) = game.keep_as.filter(|_| whole) {
                let rows: Vec<_> = evals.iter().map(PositionEval::to_row).collect();
                if let Err(e) = store.insert_game_analysis(seq, &setting, &rows).await {
                    let _ = sender.send(Err(GameError::from(e).into())).await;
                    return;
                }
            }
            let _ = sender.send(Ok(reviewer.done(false))).await;
        });
        Ok(receiver)
    }

    async fn reviewed(&self, source: ReviewSource) -> Result<Reviewed, GameError> {
        match source {
            ReviewSource::Game(id) => {
                let game = self.load(&id).await?;
                let choices = rule_choices(&game).ok_or_else(|| {
                    GameError::Corrupt(format!("game {id}: unknown xiangqi rules"))
                })?;
                let played = replay(&game)?
                    .history()
                    .into_iter()
                    .map(|m| m.description)
                    .collect();
                let ended = game.status != Status::Ongoing;
                Ok(Reviewed {
                    keep_as: ended.then_some(game.seq),
                    variant: game.variant,
                    choices,
                    moves: game.moves.into_iter().map(|m| m.uci).collect(),
                    played,
                    start_fen: game.start_fen,
                })
            }
            ReviewSource::Pgn {
                text,
                variant,
                rules,
            } => {
                let read = self.read_pgn(&text, variant, rules)?;
                let played: Vec<_> = read.moves.into_iter().map(|m| m.description).collect();
                Ok(Reviewed {
                    keep_as: None,
                    variant: read.variant,
                    choices: read.choices,
                    start_fen: read.record.start_fen(),
                    moves: played.iter().map(|m| m.uci.to_string()).collect(),
                    played,
                })
            }
        }
    }

    /// The evaluations of every position of the game `seq` (of `moves`
    /// moves), from the start, that its latest stored analysis gives.
    pub(super) async fn stored_evals(
        &self,
        seq: i64,
        moves: usize,
    ) -> Result<Option<Vec<Eval>>, GameError> {
        for setting in self.store.game_analysis_settings(seq).await? {
            let rows = self.store.game_analysis(seq, &setting).await?;
            if rows.len() != moves + 1 {
                continue;
            }
            let evals = rows
                .into_iter()
                .map(|row| PositionEval::from_row(row, seq).map(|p| p.eval))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Some(evals));
        }
        Ok(None)
    }
}

/// Moves reviewed ahead of a client that reads slowly.
const REVIEW_BUFFER: usize = 8;

impl PositionEval {
    fn to_row(&self) -> StoredPositionAnalysis {
        let (score_kind, score) = match self.eval {
            Eval::Centipawns(cp) => ("cp", i64::from(cp)),
            Eval::Mate(moves) => ("mate", i64::from(moves)),
            Eval::Ended(Some(Side::White)) => ("ended", 1),
            Eval::Ended(Some(Side::Black)) => ("ended", -1),
            Eval::Ended(None) => ("ended", 0),
        };
        StoredPositionAnalysis {
            score_kind: score_kind.to_owned(),
            score,
            depth: i64::from(self.depth),
            pv: self.pv.join(" "),
        }
    }

    fn from_row(row: StoredPositionAnalysis, seq: i64) -> Result<PositionEval, GameError> {
        let corrupt = || GameError::Corrupt(format!("the analysis of game #{seq} does not read"));
        let score = i32::try_from(row.score).map_err(|_| corrupt())?;
        let eval = match (row.score_kind.as_str(), score) {
            ("cp", cp) => Eval::Centipawns(cp),
            ("mate", moves) => Eval::Mate(moves),
            ("ended", 1) => Eval::Ended(Some(Side::White)),
            ("ended", -1) => Eval::Ended(Some(Side::Black)),
            ("ended", 0) => Eval::Ended(None),
            _ => return Err(corrupt()),
        };
        Ok(PositionEval {
            eval,
            depth: u32::try_from(row.depth).map_err(|_| corrupt())?,
            pv: row.pv.split_whitespace().map(str::to_owned).collect(),
        })
    }
}

/// Walks a game position by position, turning their evaluations into
/// reviewed moves.
struct Reviewer {
    /// The game at the position to be evaluated next.
    record: Box<dyn Referee>,
    moves: std::vec::IntoIter<String>,
    played: Vec<MoveDescription>,
    first: Side,
    /// The last position's evaluation and its best line, described.
    previous: Option<(PositionEval, Vec<MoveDescription>)>,
    evals: Vec<Eval>,
    ply: usize,
    white: JudgementCounts,
    black: JudgementCounts,
}

impl Reviewer {
    fn new(game: &Reviewed) -> Result<Reviewer, GameError> {
        let record = crate::rules::referee::referee_under::<&str>(
            game.variant,
            game.choices,
            Some(&game.start_fen),
            &[],
        )
        .map_err(|e| GameError::Corrupt(format!("the game does not replay: {e}")))?;
        Ok(Reviewer {
            first: record.turn(),
            record,
            moves: game.moves.clone().into_iter(),
            played: game.played.clone(),
            previous: None,
            evals: Vec::with_capacity(game.moves.len() + 1),
            ply: 0,
            white: JudgementCounts::default(),
            black: JudgementCounts::default(),
        })
    }

    /// The evaluation of the next position from its analysis.
    fn evaluate(&self, analysis: PositionAnalysis) -> PositionEval {
        match analysis {
            PositionAnalysis::Ended(winner) => PositionEval {
                eval: Eval::Ended(winner),
                depth: 0,
                pv: Vec::new(),
            },
            PositionAnalysis::Searched(analysis) => {
                let white = self.record.turn() == Side::White;
                let eval = match analysis.score() {
                    crate::analysis::Score::Centipawns(cp) => {
                        Eval::Centipawns(if white { cp } else { -cp })
                    }
                    crate::analysis::Score::Mate(moves) => {
                        Eval::Mate(if white { moves } else { -moves })
                    }
                };
                PositionEval {
                    eval,
                    depth: analysis.depth,
                    pv: analysis
                        .lines
                        .into_iter()
                        .next()
                        .map(|line| line.pv.into_iter().map(|m| m.uci.into()).collect())
                        .unwrap_or_default(),
                }
            }
        }
    }

    /// Takes the next position's evaluation: the judged move that led to
    /// it, if one did.
    fn next(&mut self, position: PositionEval) -> Option<MoveReview> {
        self.evals.push(position.eval);
        // The best line, described in this position (as far as the rules
        // let it be played).
        let mut line = self.record.boxed_clone();
        let pv = position
            .pv
            .iter()
            .map_while(|m| line.play(m).ok().map(|played| played.description))
            .collect();
        let reviewed = self.previous.take().and_then(|(before, pv)| {
            let ply = self.ply.checked_sub(1)?;
            let side = self.record.turn().other();
            Some(MoveReview {
                ply,
                side,
                played: self.played.get(ply)?.clone(),
                before: before.eval,
                after: position.eval,
                pv,
                depth: before.depth,
                judgement: judge(before.eval, position.eval, side),
                accuracy: move_accuracy(before.eval, position.eval, side),
            })
        });
        self.previous = Some((position, pv));
        if let Some(MoveReview {
            side,
            judgement: Some(judgement),
            ..
        }) = reviewed
        {
            match side {
                Side::White => self.white.count(judgement),
                Side::Black => self.black.count(judgement),
            }
        }
        if let Some(m) = self.moves.next() {
            // The moves were replayed when the game was read: this one
            // plays.
            let _ = self.record.play_recorded(&m);
            self.ply += 1;
        }
        reviewed
    }

    fn done(&self, stored: bool) -> ReviewEvent {
        ReviewEvent::Done {
            accuracies: accuracies(&self.evals, self.first),
            white: self.white,
            black: self.black,
            stored,
        }
    }
}
