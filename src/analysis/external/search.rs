//! One search on an external engine, in a task of its own that always
//! ends with the engine's `bestmove` or its process killed.
//!
//! An engine cannot be paused, so a search that has had its slot for a
//! [`SLICE`] while another caller waits stops its engine, gives the process
//! back and steps aside; when its turn comes again it takes a process and
//! searches on (a fresh `go` for the time left: the engine's hash table,
//! when it is the same process, makes up most of the lost depth), and
//! reports only depths deeper than it reported before.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use tokio::sync::mpsc;

use super::{EngineFailure, UciPosition, pool::Pool, process::EngineProcess, progress::Progress};
use crate::{
    analysis::{Analysis, AnalysisError, Answers, MAX_MOVETIME, SLICE, SearchOrder},
    engine::MAX_DEPTH,
    rules::MoveDescription,
};

/// How long an engine may take, after `stop` (sent at the search's end,
/// when it steps aside, or when its caller leaves), to answer `bestmove`;
/// then it is killed.
pub const HANG_MARGIN: Duration = Duration::from_secs(2);

/// A search's place at the Engine RPCs' slots.
pub(crate) trait Turn: Send + Sync + 'static {
    /// Whether another caller waits for a slot.
    fn others_wait(&self) -> bool;

    /// Gives the slot to the next waiter and waits for it back until
    /// `until`; false if it did not come.
    fn step_aside(&self, until: Instant) -> impl Future<Output = bool> + Send;
}

/// A turn shared by several searches, one after another.
impl<T: Turn> Turn for Arc<T> {
    fn others_wait(&self) -> bool {
        (**self).others_wait()
    }

    fn step_aside(&self, until: Instant) -> impl Future<Output = bool> + Send {
        (**self).step_aside(until)
    }
}

type Sender = mpsc::Sender<Result<(Analysis, bool), AnalysisError>>;

/// Searches `position` by `order` on a process of `pool`, holding `turn`
/// until the engine has answered or been killed; sends each completed
/// depth when `progress`. The engine is stopped when the receiver is
/// dropped.
pub(crate) fn spawn(
    pool: Arc<Pool>,
    position: Arc<dyn UciPosition>,
    order: SearchOrder,
    progress: bool,
    turn: impl Turn,
) -> Answers {
    // Completed depths are few (at most MAX_DEPTH) plus the final one.
    let (sender, receiver) = mpsc::channel(MAX_DEPTH as usize + 2);
    tokio::spawn(async move {
        let search = Search {
            pool: &pool,
            position: &*position,
            order: &order,
            sender: &sender,
            progress,
            turn: &turn,
        };
        let answer = search.run().await;
        let _ = sender.send(answer.map(|analysis| (analysis, true))).await;
    });
    receiver
}

/// Why the engine was told to stop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The search's end, or its caller left.
    Done,
    /// Another caller waits: the search steps aside.
    StepAside,
}

struct Search<'a, T> {
    pool: &'a Arc<Pool>,
    position: &'a dyn UciPosition,
    order: &'a SearchOrder,
    sender: &'a Sender,
    progress: bool,
    turn: &'a T,
}

impl<T: Turn> Search<'_, T> {
    async fn run(&self) -> Result<Analysis, AnalysisError> {
        let mut end = Instant::now() + self.order.movetime.min(MAX_MOVETIME);
        if let Some(deadline) = self.order.deadline {
            end = end.min(deadline);
        }
        let mut lease = self.pool.take(end).await?;
        let lines = lease.process.lines_for(self.order.multipv);
        let mut progress = Progress::new(
            self.position,
            lease.process.ranks,
            lines.min(self.position.legal_moves()),
        );
        loop {
            let (stop, best) = match self.go(&mut lease.process, &mut progress, end).await {
                Ok(answer) => answer,
                Err(failure) => return Err(lease.fail(failure).await),
            };
            lease.give_back();
            let back = stop == Stop::StepAside
                && tokio::select! {
                    back = self.turn.step_aside(end) => back,
                    () = self.sender.closed() => false,
                };
            // Searched to its end, or no turn came back before it: the
            // last answer stands.
            let resumed = match back {
                true => self.pool.take(end).await.ok(),
                false => None,
            };
            match resumed {
                Some(next) => lease = next,
                None => return Ok(progress.finish(best)),
            }
        }
    }

    /// Searches until `end`, until the caller leaves or until another
    /// caller waits: why it stopped, and the engine's `bestmove`.
    async fn go(
        &self,
        process: &mut EngineProcess,
        progress: &mut Progress<'_>,
        end: Instant,
    ) -> Result<(Stop, MoveDescription), EngineFailure> {
        let order = self.order;
        process.prepare(order.level, order.multipv).await?;
        process.send(&self.position.command(process.ranks)).await?;
        let movetime = end.saturating_duration_since(Instant::now()).as_millis();
        let mut go = format!("go movetime {}", movetime.max(1));
        if let Some(depth) = order.depth {
            go.push_str(&format!(" depth {}", depth.clamp(1, MAX_DEPTH)));
        }
        if let Some(nodes) = order.nodes {
            go.push_str(&format!(" nodes {nodes}"));
        }
        progress.resume();
        process.send(&go).await?;
        let turn_began = Instant::now();
        // Until `stop` is sent: the next look at the slots, or the end;
        // after: the answer's deadline.
        let mut stopped = None;
        let mut until = end.min(turn_began + SLICE);
        loop {
            let line = tokio::select! {
                line = process.line_by(until) => line?,
                () = self.sender.closed(), if stopped.is_none() => {
                    process.send("stop").await?;
                    stopped = Some(Stop::Done);
                    until = Instant::now() + HANG_MARGIN;
                    continue;
                }
            };
            if let Some(line) = line {
                if let Some(best) = line.strip_prefix("bestmove") {
                    let best = best.split_whitespace().next().unwrap_or_default();
                    let best = progress
                        .best(best)
                        .ok_or_else(|| EngineFailure::IllegalMove(best.to_owned()))?;
                    return Ok((stopped.unwrap_or(Stop::Done), best));
                }
                if let Some(analysis) = progress.read(&line)
                    && self.progress
                {
                    let _ = self.sender.try_send(Ok((analysis, false)));
                }
                if stopped.is_some() || Instant::now() < until {
                    continue;
                }
            }
            let now = Instant::now();
            stopped = match stopped {
                Some(_) => return Err(EngineFailure::Hung(HANG_MARGIN)),
                None if now >= end => Some(Stop::Done),
                None if turn_began.elapsed() >= SLICE && self.turn.others_wait() => {
                    Some(Stop::StepAside)
                }
                None => {
                    until = end.min(now + SLICE);
                    continue;
                }
            };
            process.send("stop").await?;
            until = now + HANG_MARGIN;
        }
    }
}
