//! Time controls and the clocks the server runs: it charges the time itself
//! (clients are never trusted with it), starts a side's clock only after
//! that side's first move (before, a grace period applies and running out
//! of it aborts the game), and ends a game the moment a flag falls.
//!
//! An engine seat's clock starts when its search can start: while it waits
//! for a search slot (the service's delay, not the engine's) the game is
//! marked as waiting at that ply in the store, and its clock neither runs
//! nor has a deadline, for the first-move grace as for the main time.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::watch;

use crate::{rules::Side, store::StoredClock};

/// A game's clocks: the control, each side's time left (as of the start of
/// the current turn) and when the current turn started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    pub control: TimeControl,
    /// Milliseconds left, White's then Black's.
    pub remaining: [i64; 2],
    /// Unix milliseconds.
    pub turn_started_at: i64,
    /// The ply at which the engine seat to move waits for a search slot
    /// (its clock has not started); stale once the game is at another ply.
    pub engine_waiting: Option<usize>,
    /// A seat is open: nothing runs, nor can run out, until a player takes
    /// it (the turn starts then).
    pub held: bool,
}

/// How a game is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// No clock; with `Some(days)`, each move must come within that many
    /// days (correspondence).
    Correspondence { days_per_move: Option<u32> },
    /// `initial` per side, plus Fischer `increment` per move made in time,
    /// or with a Bronstein `delay` (time spent up to `delay` is given back);
    /// each side's first move must come within `grace`.
    Clock {
        initial: Duration,
        increment: Duration,
        delay: Duration,
        grace: Duration,
    },
}

/// Default time for each side's first move, after which the game is
/// aborted.
pub const FIRST_MOVE_GRACE: Duration = Duration::from_secs(60);

const DAY_MS: i64 = 86_400_000;

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// What a deadline means when it passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// The side to move has lost on time (or drawn, see the flag rule).
    Flag(Side),
    /// A side did not make its first move in time: the game is aborted.
    NoStart,
}

impl TimeControl {
    /// The clocks of a new game.
    /// The control as a clock's stored columns (its times left at zero),
    /// for what keeps a control apart from a game (a challenge).
    pub fn stored(self) -> StoredClock {
        self.start(0).stored()
    }

    /// The control of a clock's stored columns.
    pub fn from_stored(stored: &StoredClock) -> TimeControl {
        GameClock::from_stored(stored).control
    }

    pub fn start(self, now: i64) -> GameClock {
        let initial = match self {
            TimeControl::Clock { initial, .. } => ms(initial),
            TimeControl::Correspondence { days_per_move } => {
                i64::from(days_per_move.unwrap_or(0)) * DAY_MS
            }
        };
        GameClock {
            control: self,
            remaining: [initial, initial],
            turn_started_at: now,
            engine_waiting: None,
            held: false,
        }
    }
}

impl GameClock {
    /// Reads the stored columns.
    pub fn from_stored(c: &StoredClock) -> GameClock {
        let control = match c.days_per_move {
            Some(days) => TimeControl::Correspondence {
                days_per_move: u32::try_from(days).ok().filter(|&d| d > 0),
            },
            None => TimeControl::Clock {
                initial: Duration::from_millis(u64::try_from(c.initial_ms).unwrap_or(0)),
                increment: Duration::from_millis(u64::try_from(c.increment_ms).unwrap_or(0)),
                delay: Duration::from_millis(u64::try_from(c.delay_ms).unwrap_or(0)),
                grace: c
                    .grace_ms
                    .and_then(|g| u64::try_from(g).ok())
                    .map_or(FIRST_MOVE_GRACE, Duration::from_millis),
            },
        };
        GameClock {
            control,
            remaining: [c.white_ms, c.black_ms],
            turn_started_at: c.turn_started_at,
            engine_waiting: c
                .engine_waiting_ply
                .and_then(|ply| usize::try_from(ply).ok()),
            held: c.held,
        }
    }

    /// The stored columns.
    pub fn stored(&self) -> StoredClock {
        let (initial_ms, increment_ms, delay_ms, days_per_move, grace_ms) = match self.control {
            TimeControl::Clock {
                initial,
                increment,
                delay,
                grace,
            } => (ms(initial), ms(increment), ms(delay), None, Some(ms(grace))),
            TimeControl::Correspondence { days_per_move } => {
                (0, 0, 0, Some(i64::from(days_per_move.unwrap_or(0))), None)
            }
        };
        StoredClock {
            grace_ms,
            initial_ms,
            increment_ms,
            delay_ms,
            days_per_move,
            white_ms: self.remaining[0],
            black_ms: self.remaining[1],
            turn_started_at: self.turn_started_at,
            engine_waiting_ply: self.engine_waiting.and_then(|ply| i64::try_from(ply).ok()),
            // Set with the mover, by whoever stores the clock.
            flag_at: None,
            held: self.held,
        }
    }

    fn index(side: Side) -> usize {
        usize::from(side == Side::Black)
    }

    /// Does the clock run for a move at `ply` (0-based)? Not before each
    /// side has made its first move, nor while an engine seat waits for a
    /// search slot.
    pub fn runs(&self, ply: usize) -> bool {
        if self.waits(ply) {
            return false;
        }
        match self.control {
            TimeControl::Clock { .. } => ply >= 2,
            TimeControl::Correspondence { days_per_move } => days_per_move.is_some(),
        }
    }

    /// Is the clock stopped at `ply`: the engine seat to move waits for a
    /// search slot, or a seat is open?
    pub fn waits(&self, ply: usize) -> bool {
        self.held || self.engine_waiting == Some(ply)
    }

    /// When the side to move (`mover`, about to play move `ply`) runs out,
    /// and what that means; `None` when nothing can run out (or the clock
    /// has not started).
    pub fn deadline(&self, mover: Side, ply: usize) -> Option<(i64, Expiry)> {
        if self.waits(ply) {
            None
        } else if self.runs(ply) {
            let left = self.remaining[Self::index(mover)];
            Some((
                self.turn_started_at.saturating_add(left),
                Expiry::Flag(mover),
            ))
        } else if let TimeControl::Clock { grace, .. } = self.control {
            Some((
                self.turn_started_at.saturating_add(ms(grace)),
                Expiry::NoStart,
            ))
        } else {
            None
        }
    }

    /// `Err` with the expiry when `mover`'s time for move `ply` had run out
    /// by `now`.
    fn in_time(&self, mover: Side, ply: usize, now: i64) -> Result<(), Expiry> {
        match self.deadline(mover, ply) {
            Some((deadline, expiry)) if now >= deadline => Err(expiry),
            _ => Ok(()),
        }
    }

    /// Charges `mover` for its move `ply` made at `now`; `Err` with the
    /// expiry when the time had already run out (the move does not count).
    pub fn charge(&mut self, mover: Side, ply: usize, now: i64) -> Result<(), Expiry> {
        self.in_time(mover, ply, now)?;
        let elapsed = (now - self.turn_started_at).max(0);
        let running = self.runs(ply);
        let left = &mut self.remaining[Self::index(mover)];
        match self.control {
            TimeControl::Clock {
                increment, delay, ..
            } if running => {
                *left = *left - elapsed + ms(increment) + elapsed.min(ms(delay));
            }
            TimeControl::Correspondence {
                days_per_move: Some(days),
            } => *left = i64::from(days) * DAY_MS,
            _ => {}
        }
        self.turn_started_at = now;
        Ok(())
    }

    /// Charges `mover`, to play move `ply`, for the turn a takeback cuts
    /// short at `now`: the whole time spent, with no increment and no delay
    /// given back (no move was made, and turns restarted by takebacks must
    /// not buy time); the next turn starts at `now`. `Err` with the expiry
    /// when the time had already run out.
    pub fn charge_interrupted_turn(
        &mut self,
        mover: Side,
        ply: usize,
        now: i64,
    ) -> Result<(), Expiry> {
        self.in_time(mover, ply, now)?;
        if self.runs(ply) {
            self.remaining[Self::index(mover)] -= (now - self.turn_started_at).max(0);
        }
        self.turn_started_at = now;
        Ok(())
    }

    /// The time left for each side at `now` (the side to move's clock
    /// running down), never below zero.
    pub fn remaining_at(&self, mover: Option<Side>, ply: usize, now: i64) -> [i64; 2] {
        let mut remaining = self.remaining;
        if let Some(mover) = mover.filter(|_| self.runs(ply)) {
            let left = &mut remaining[Self::index(mover)];
            *left -= (now - self.turn_started_at).max(0);
        }
        remaining.map(|r| r.max(0))
    }
}

/// Where the service reads the time and waits for it: the system clock, or
/// a manual one for tests.
pub trait TimeSource: Send + Sync + std::fmt::Debug {
    /// Unix milliseconds.
    fn now(&self) -> i64;
    /// Resolves once [`TimeSource::now`] has reached `at`.
    fn sleep_until(&self, at: i64) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemTime;

impl TimeSource for SystemTime {
    fn now(&self) -> i64 {
        crate::store::now_millis()
    }

    fn sleep_until(&self, at: i64) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let wait = u64::try_from(at - self.now()).unwrap_or(0);
        Box::pin(tokio::time::sleep(Duration::from_millis(wait)))
    }
}

/// A clock that only moves when told to (tests: no sleeping).
#[derive(Debug)]
pub struct ManualTime {
    now: Mutex<i64>,
    changed: watch::Sender<i64>,
}

impl ManualTime {
    pub fn new(start: i64) -> Arc<ManualTime> {
        Arc::new(ManualTime {
            now: Mutex::new(start),
            changed: watch::Sender::new(start),
        })
    }

    /// Moves the time forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now += ms(by);
        self.changed.send_replace(*now);
    }
}

impl TimeSource for ManualTime {
    fn now(&self) -> i64 {
        *self.now.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn sleep_until(&self, at: i64) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let mut changes = self.changed.subscribe();
        Box::pin(async move {
            let _ = changes.wait_for(|&now| now >= at).await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(initial: u64, increment: u64, delay: u64) -> GameClock {
        TimeControl::Clock {
            initial: Duration::from_secs(initial),
            increment: Duration::from_secs(increment),
            delay: Duration::from_secs(delay),
            grace: FIRST_MOVE_GRACE,
        }
        .start(0)
    }

    #[test]
    fn fischer_increment_and_bronstein_delay() {
        let mut c = clock(60, 2, 0);
        // First moves are free.
        c.charge(Side::White, 0, 5_000).unwrap();
        c.charge(Side::Black, 1, 9_000).unwrap();
        assert_eq!(c.remaining, [60_000, 60_000]);
        // White thinks 10 s: -10 + 2.
        c.charge(Side::White, 2, 19_000).unwrap();
        assert_eq!(c.remaining, [52_000, 60_000]);
        assert_eq!(
            c.remaining_at(Some(Side::Black), 3, 20_500),
            [52_000, 58_500]
        );

        let mut d = clock(60, 0, 3);
        d.charge(Side::White, 0, 0).unwrap();
        d.charge(Side::Black, 1, 0).unwrap();
        // 2 s spent: all given back; 10 s spent: 3 given back.
        d.charge(Side::White, 2, 2_000).unwrap();
        d.charge(Side::Black, 3, 12_000).unwrap();
        assert_eq!(d.remaining, [60_000, 53_000]);
    }

    #[test]
    fn a_late_move_is_refused_and_grace_applies_before_the_first_moves() {
        let mut c = clock(10, 5, 0);
        assert_eq!(c.deadline(Side::White, 0), Some((60_000, Expiry::NoStart)));
        assert_eq!(c.charge(Side::White, 0, 60_000), Err(Expiry::NoStart));
        c.charge(Side::White, 0, 1_000).unwrap();
        c.charge(Side::Black, 1, 2_000).unwrap();
        assert_eq!(
            c.deadline(Side::White, 2),
            Some((12_000, Expiry::Flag(Side::White)))
        );
        // No increment for a move that comes too late.
        assert_eq!(
            c.charge(Side::White, 2, 12_000),
            Err(Expiry::Flag(Side::White))
        );
        assert_eq!(c.remaining, [10_000, 10_000]);
    }

    #[test]
    fn an_interrupted_turn_costs_its_whole_time() {
        let mut c = clock(10, 2, 3);
        c.charge(Side::White, 0, 0).unwrap();
        c.charge(Side::Black, 1, 0).unwrap();
        // White thinks 4 s, then a takeback: no increment, no delay back.
        c.charge_interrupted_turn(Side::White, 2, 4_000).unwrap();
        assert_eq!((c.remaining, c.turn_started_at), ([6_000, 10_000], 4_000));
        // Before the clocks run, nothing is charged.
        let mut first = clock(10, 0, 0);
        first
            .charge_interrupted_turn(Side::White, 0, 5_000)
            .unwrap();
        assert_eq!(first.remaining, [10_000, 10_000]);
        // Out of time: the flag, not the takeback.
        assert_eq!(
            c.charge_interrupted_turn(Side::Black, 2, 14_000),
            Err(Expiry::Flag(Side::Black))
        );
        assert_eq!(c.remaining, [6_000, 10_000]);
    }

    #[test]
    fn a_waiting_engine_has_no_deadline_and_no_running_clock() {
        let mut c = clock(10, 0, 0);
        c.charge(Side::White, 0, 1_000).unwrap();
        c.charge(Side::Black, 1, 2_000).unwrap();
        c.engine_waiting = Some(2);
        assert_eq!(c.deadline(Side::White, 2), None);
        assert!(!c.runs(2));
        assert_eq!(
            c.remaining_at(Some(Side::White), 2, 50_000),
            [10_000, 10_000]
        );
        // Stale at any other ply; the grace is stopped too.
        assert!(c.runs(3));
        let mut g = clock(10, 0, 0);
        g.engine_waiting = Some(0);
        assert_eq!(g.deadline(Side::White, 0), None);
        assert_eq!(GameClock::from_stored(&g.stored()), g);
    }

    #[test]
    fn correspondence_gives_days_per_move() {
        let mut c = TimeControl::Correspondence {
            days_per_move: Some(2),
        }
        .start(0);
        assert_eq!(
            c.deadline(Side::White, 0),
            Some((2 * DAY_MS, Expiry::Flag(Side::White)))
        );
        c.charge(Side::White, 0, DAY_MS).unwrap();
        assert_eq!(
            c.deadline(Side::Black, 1),
            Some((3 * DAY_MS, Expiry::Flag(Side::Black)))
        );
        let free = TimeControl::Correspondence {
            days_per_move: None,
        }
        .start(0);
        assert_eq!(free.deadline(Side::White, 5), None);
    }
}
