//! Flag fall, detected by the server: one timer per timed game, re-armed
//! after every change, ends the game the moment the side to move runs out
//! (also for games whose time ran out while the server was down). A flag
//! the database cannot take yet is retried with back-off until it is
//! recorded or the game changes.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::Duration,
};

use tokio::sync::watch;

use super::{
    Games,
    model::Status,
    model::{Ending, EventKind, Expiry, GameClock, GameError, GameView, abort, finish},
};
use crate::{
    rules::referee::Referee,
    store::{StoredGame, Update},
};

/// Ends `game` for `expiry`: the side out of time loses, unless its
/// opponent could not win by any legal sequence (then it is a draw); a game
/// whose first moves never came is aborted. Returns the event.
pub(super) fn expire(game: &mut StoredGame, record: &dyn Referee, expiry: Expiry) -> EventKind {
    match expiry {
        Expiry::Flag(loser) => {
            if record.has_insufficient_material(loser.other()) {
                finish(game, None, Ending::TimeoutVsInsufficientMaterial);
            } else {
                finish(game, Some(loser.other()), Ending::Timeout);
            }
            EventKind::Flagged
        }
        Expiry::NoStart => {
            abort(game);
            EventKind::Aborted
        }
    }
}

/// Why a flag timer leaves a game alone.
pub(super) enum Unexpired {
    /// The side to move still has time, until this deadline (the game
    /// changed since the timer was armed): nothing is written.
    NotDue(i64),
    /// Nobody can run out: the game is over or has no clock.
    Untimed,
    Failed(GameError),
}

impl<E: Into<GameError>> From<E> for Unexpired {
    fn from(e: E) -> Unexpired {
        Unexpired::Failed(e.into())
    }
}

/// What a flag timer found when its deadline came.
enum Fall {
    /// The flag is recorded (or nothing can fall any more): the timer ends.
    Done,
    /// The game's deadline is now this one.
    Later(i64),
    /// The game changed while the write was being retried.
    Rearmed,
}

/// First wait before retrying a flag that could not be written.
const RETRY_FIRST: Duration = Duration::from_millis(100);
/// Longest wait between retries.
const RETRY_MAX: Duration = Duration::from_secs(5);

/// The flag timers: one task per ongoing timed game, sleeping until the
/// game's deadline; arming a game again moves its deadline, and finishing it
/// ends the task.
#[derive(Debug, Default)]
pub(super) struct Timers {
    armed: Mutex<HashMap<String, Armed>>,
    /// Timer tasks alive.
    running: Arc<AtomicUsize>,
    /// Numbers the timers, to tell a game's timer from its successor.
    next: AtomicU64,
}

#[derive(Debug)]
struct Armed {
    number: u64,
    /// Its task's deadline (unix milliseconds); dropped, the task ends.
    deadline: watch::Sender<i64>,
}

/// Counts a running timer task while alive.
struct Running(Arc<AtomicUsize>);

impl Running {
    fn new(count: &Arc<AtomicUsize>) -> Running {
        count.fetch_add(1, Ordering::Relaxed);
        Running(count.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Timers {
    fn armed(&self) -> std::sync::MutexGuard<'_, HashMap<String, Armed>> {
        self.armed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends timer `number` of game `id`, unless a successor replaced it.
    fn end(&self, id: &str, number: u64) {
        let mut armed = self.armed();
        if armed.get(id).is_some_and(|a| a.number == number) {
            armed.remove(id);
        }
    }
}

impl Games {
    /// Restarts the timers of the ongoing timed games that are `owned`
    /// (flags that fell while nobody ran them fall at once); how many.
    pub(super) async fn resume_clocks(
        &self,
        owned: impl Fn(&str) -> bool,
    ) -> Result<usize, GameError> {
        let ids = self.store.ongoing_clocked_games().await?;
        let mut armed = 0;
        for id in ids.iter().filter(|id| owned(id)) {
            self.arm_clock(&self.view(id).await?);
            armed += 1;
        }
        Ok(armed)
    }

    /// Ends the timers of the games that are `lost`.
    pub(super) fn disarm_clocks(&self, lost: impl Fn(&str) -> bool) {
        self.timers.armed().retain(|id, _| !lost(id));
    }

    /// Flag timer tasks running: one per ongoing timed game (for tests and
    /// monitoring).
    pub fn flag_timers(&self) -> usize {
        self.timers.running.load(Ordering::Relaxed)
    }

    /// Sets the flag timer of `game` to its deadline after a change: starts
    /// it, moves it, or (for a game that is over or untimed) ends it.
    pub(super) fn arm_clock(&self, game: &GameView) {
        let deadline = match (game.clock, game.turn) {
            (Some(clock), Some(turn)) => clock.deadline(turn, game.ply as usize),
            _ => None,
        };
        self.arm_deadline(&game.id, deadline.map(|(at, _)| at));
    }

    /// Sets the flag timer of game `id` to `deadline` (unix milliseconds;
    /// `None`: nobody can run out), if this server owns the game; a game it
    /// does not own has no timer here.
    pub(super) fn arm_deadline(&self, id: &str, deadline: Option<i64>) {
        let mut armed = self.timers.armed();
        let Some(deadline) = deadline.filter(|_| self.ownership.owns(id)) else {
            armed.remove(id);
            return;
        };
        if let Some(timer) = armed.get(id) {
            timer
                .deadline
                .send_if_modified(|current| std::mem::replace(current, deadline) != deadline);
            return;
        }
        let number = self.timers.next.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = watch::channel(deadline);
        armed.insert(
            id.to_owned(),
            Armed {
                number,
                deadline: sender,
            },
        );
        let running = Running::new(&self.timers.running);
        tokio::spawn(
            self.clone()
                .run_timer(id.to_owned(), number, receiver, running),
        );
    }

    /// A game's flag timer: sleeps until the deadline (moved by every
    /// re-arming), then records the flag.
    async fn run_timer(
        self,
        id: String,
        number: u64,
        mut armed: watch::Receiver<i64>,
        _running: Running,
    ) {
        let mut deadline = *armed.borrow_and_update();
        loop {
            tokio::select! {
                biased;
                changed = armed.changed() => {
                    if changed.is_err() {
                        return; // disarmed: the game is over
                    }
                    deadline = *armed.borrow_and_update();
                    continue;
                }
                () = self.time.sleep_until(deadline) => {}
            }
            match self.fall(&id, &mut armed).await {
                Fall::Done => break,
                Fall::Later(stored) => deadline = stored,
                Fall::Rearmed => deadline = *armed.borrow_and_update(),
            }
        }
        self.timers.end(&id, number);
    }

    /// Records the flag of game `id`, retrying with back-off while the
    /// database cannot write (a lock held elsewhere, a full disk), until it
    /// is recorded or the game changes.
    async fn fall(&self, id: &str, armed: &mut watch::Receiver<i64>) -> Fall {
        let mut wait = RETRY_FIRST;
        loop {
            let error = match self.expire_if_due(id).await {
                Ok(()) | Err(Unexpired::Untimed) => return Fall::Done,
                Err(Unexpired::NotDue(deadline)) => return Fall::Later(deadline),
                // A closed store (the server stops) will not take it.
                Err(Unexpired::Failed(GameError::Store(_))) if self.store.is_closed() => {
                    return Fall::Done;
                }
                Err(Unexpired::Failed(e @ GameError::Store(_))) => e,
                Err(Unexpired::Failed(e)) => {
                    tracing::error!(game_id = %id, error = %e, "flag timer failed");
                    return Fall::Done;
                }
            };
            tracing::warn!(game_id = %id, %error, retry_in = ?wait, "flag not recorded yet");
            tokio::select! {
                changed = armed.changed() => {
                    return if changed.is_ok() { Fall::Rearmed } else { Fall::Done };
                }
                () = tokio::time::sleep(wait) => {}
            }
            wait = (wait * 2).min(RETRY_MAX);
        }
    }

    /// Ends game `id` if the side to move is out of time now, and tells its
    /// watchers.
    pub(super) async fn expire_if_due(&self, id: &str) -> Result<(), Unexpired> {
        let now = self.time.now();
        self.change(id, |game, record| {
            if game.status != Status::Ongoing {
                return Err(Unexpired::Untimed);
            }
            let clock = GameClock::from_stored(&game.clock.ok_or(Unexpired::Untimed)?);
            let (deadline, expiry) = clock
                .deadline(record.turn(), game.moves.len())
                .ok_or(Unexpired::Untimed)?;
            if now < deadline {
                return Err(Unexpired::NotDue(deadline));
            }
            let event = expire(game, record, expiry);
            Ok(Update {
                value: (),
                event: event.name(),
                side: None,
            })
        })
        .await?;
        Ok(())
    }
}
