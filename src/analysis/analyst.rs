//! The two pools of search slots, the Engine RPCs' taken in turns between
//! callers, and the searches run in them.

use std::{
    cell::Cell,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::{
    Analysis, AnalysisError, Job, SearchOrder,
    external::{self, EngineFailure, EngineStartError, Pools, UciEngines},
    job::{GamePositions, Stage},
    turns::{Place, Recall, SLICE, Turns},
};
use crate::{
    engine::{Interrupt, Limits, MAX_DEPTH},
    peers::{Peer, PeerSlot, PeerSlots},
    rules::Side,
};

/// Stops a search when dropped (its caller has gone): sets its flag, then
/// takes it out of the RPC slots' queue if it waits there.
struct StopOnDrop {
    flag: Arc<AtomicBool>,
    _recall: Option<Recall>,
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::Relaxed);
    }
}

/// How many searches run at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// Searches for the Engine RPCs (at least 1).
    pub slots: usize,
    /// Engine RPCs that may wait for those slots beyond them (0: refused
    /// at once when the slots are taken).
    pub queue: usize,
    /// The longest an Engine RPC waits for its first turn.
    pub max_wait: Duration,
    /// Searches for engine seats, which the RPCs cannot take (at least 1).
    pub seat_slots: usize,
    /// Engine RPCs one caller may run or queue at once (0: no limit).
    pub per_peer: usize,
}

/// How the slots are used at one moment (for monitoring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Load {
    /// The Engine RPCs' slots, how many of them search now, and how many
    /// RPCs wait for one (searches that lent theirs included).
    pub slots: usize,
    pub busy: usize,
    pub queued: usize,
    /// The engine seats' slots, how many of them search now, and how many
    /// seats wait for one.
    pub seat_slots: usize,
    pub seats_busy: usize,
    pub seats_queued: usize,
}

/// Runs the service's searches within a [`Capacity`].
#[derive(Clone, Debug)]
pub struct Analyst {
    turns: Arc<Turns>,
    slots: usize,
    queue: usize,
    max_wait: Duration,
    seats: Arc<Semaphore>,
    seat_slots: usize,
    /// Seats waiting for a slot.
    seats_queued: Arc<AtomicUsize>,
    callers: Arc<PeerSlots>,
    /// The games' external engines, which the RPCs' searches of those
    /// games run on.
    engines: Arc<Pools>,
}

/// What an Engine RPC's search sends: each completed depth (`false`), then
/// the final analysis (`true`) or why there is none.
pub type Answers = mpsc::Receiver<Result<(Analysis, bool), AnalysisError>>;

/// Counts a seat waiting for its slot while alive (the wait may be
/// cancelled).
struct Queued(Arc<AtomicUsize>);

impl Queued {
    fn new(count: &Arc<AtomicUsize>) -> Queued {
        count.fetch_add(1, Ordering::Relaxed);
        Queued(Arc::clone(count))
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// An Engine RPC admitted: its place in the slots' turns, and its caller's.
struct Admission {
    place: Place,
    _caller: Option<PeerSlot>,
}

/// An external engine's search steps aside between its engine's searches.
impl external::Turn for Admission {
    fn others_wait(&self) -> bool {
        self.place.others_wait()
    }

    async fn step_aside(&self, until: Instant) -> bool {
        self.place.step_aside(until).await
    }
}

/// What an RPC's search holds while it runs, and how it takes turns: after
/// a [`SLICE`] with its slot while another caller waits, it lends the slot
/// and waits for it back (until its deadline).
struct Share {
    admission: Arc<Admission>,
    stop: Arc<AtomicBool>,
    deadline: Instant,
    turn_began: Cell<Instant>,
}

impl Interrupt for Share {
    fn interrupted(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return true;
        }
        let place = &self.admission.place;
        if self.turn_began.get().elapsed() < SLICE || !place.others_wait() {
            return false;
        }
        let back = place.lend(self.deadline, &self.stop);
        self.turn_began.set(Instant::now());
        !back || self.stop.load(Ordering::Relaxed)
    }
}

/// What a seat's search holds while it runs: its slot, to the end.
struct SeatShare {
    _slot: OwnedSemaphorePermit,
    stop: Arc<AtomicBool>,
}

impl Interrupt for SeatShare {
    fn interrupted(&self) -> bool {
        self.stop.interrupted()
    }
}

/// A seat slot, held until the seat's search is done.
#[derive(Debug)]
pub struct SeatSlot(OwnedSemaphorePermit);

impl SeatSlot {
    /// Searches in this slot (freed when the search ends). Dropping the
    /// future stops the search.
    pub async fn best_move(self, job: Job, order: SearchOrder) -> Analysis {
        let stop = StopOnDrop {
            flag: Arc::default(),
            _recall: None,
        };
        let share = SeatShare {
            _slot: self.0,
            stop: Arc::clone(&stop.flag),
        };
        run(job, order.limits(rand::random()), share, stop, |_| {}).await
    }
}

impl Analyst {
    /// An analyst running searches within `capacity`.
    pub fn new(capacity: Capacity) -> Analyst {
        let slots = capacity.slots.max(1);
        let seat_slots = capacity.seat_slots.max(1);
        Analyst {
            turns: Turns::new(slots, capacity.queue),
            slots,
            queue: capacity.queue,
            max_wait: capacity.max_wait,
            seats: Arc::new(Semaphore::new(seat_slots)),
            seat_slots,
            seats_queued: Arc::default(),
            callers: PeerSlots::new(capacity.per_peer),
            engines: Arc::default(),
        }
    }

    /// This analyst with external engines for the Engine RPCs of their
    /// games (engine seats keep Arbiter's own).
    pub fn with_uci_engines(self, engines: &UciEngines) -> Analyst {
        Analyst {
            engines: Arc::new(Pools::new(engines)),
            ..self
        }
    }

    /// Starts a process of each external engine, so that one that cannot
    /// run is known at once.
    ///
    /// # Errors
    ///
    /// The first engine that could not be started.
    pub async fn start_uci_engines(&self) -> Result<(), EngineStartError> {
        self.engines.start().await
    }

    /// The slots in use now.
    pub fn load(&self) -> Load {
        Load {
            slots: self.slots,
            busy: self.turns.running(),
            queued: self.turns.waiting(),
            seat_slots: self.seat_slots,
            seats_busy: self.seat_slots - self.seats.available_permits(),
            seats_queued: self.seats_queued.load(Ordering::Relaxed),
        }
    }

    /// The default number of RPC slots: one fewer than the cores, so a flood
    /// of searches always leaves a core to the other RPCs.
    pub fn default_slots() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
    }

    /// Admits an RPC from `caller` (`None`: unknown, not counted) and
    /// waits for its first turn, or says why not: the caller's own limit
    /// first, then the queue, then the wait.
    async fn admit(
        &self,
        caller: Option<Peer>,
        order: &SearchOrder,
    ) -> Result<Admission, AnalysisError> {
        let caller_slot = caller
            .map(|peer| {
                self.callers
                    .try_take(peer)
                    .ok_or(AnalysisError::PeerLimit(self.callers.limit()))
            })
            .transpose()?;
        let place = self.turns.admit(caller).ok_or(AnalysisError::Busy {
            slots: self.slots,
            queue: self.queue,
        })?;
        let asked = Instant::now();
        let longest = asked + self.max_wait;
        let until = order.deadline.map_or(longest, |d| d.min(longest));
        if !place.turn(until).await {
            return Err(AnalysisError::NoTurn(asked.elapsed()));
        }
        Ok(Admission {
            place,
            _caller: caller_slot,
        })
    }

    /// Searches for `caller` once it has a slot, or fails. Dropping the
    /// future stops the search (or its wait).
    ///
    /// # Errors
    ///
    /// [`AnalysisError::PeerLimit`] when the caller runs its most searches,
    /// [`AnalysisError::Busy`] when the slots and the queue are full,
    /// [`AnalysisError::NoTurn`] when no slot came in time (or no process
    /// of the game's external engine), [`AnalysisError::Engine`] when that
    /// engine failed.
    pub async fn best_move(
        &self,
        caller: Option<Peer>,
        job: Job,
        order: SearchOrder,
    ) -> Result<Analysis, AnalysisError> {
        let admission = self.admit(caller, &order).await?;
        self.search_once(&Arc::new(admission), job, order).await
    }

    /// Searches `job` with a slot `admission` holds now, to its end.
    async fn search_once(
        &self,
        admission: &Arc<Admission>,
        job: Job,
        order: SearchOrder,
    ) -> Result<Analysis, AnalysisError> {
        let variant = job.position.variant();
        let admission = Arc::clone(admission);
        let Some(pool) = self.engines.get(variant) else {
            return Ok(search(admission, job, order, |_| {}).await);
        };
        let mut answers = external::spawn(Arc::clone(pool), job.position, order, false, admission);
        while let Some(answer) = answers.recv().await {
            if let (analysis, true) = answer? {
                return Ok(analysis);
            }
        }
        Err(AnalysisError::Engine {
            variant,
            failure: EngineFailure::Exited("its search ended without an answer".to_owned()),
        })
    }

    /// A free seat slot now, if there is one.
    pub fn try_seat(&self) -> Option<SeatSlot> {
        self.seats.clone().try_acquire_owned().ok().map(SeatSlot)
    }

    /// Waits for a seat slot (seats queue rather than fail, in turn).
    pub async fn seat(&self) -> SeatSlot {
        let _queued = Queued::new(&self.seats_queued);
        SeatSlot(
            self.seats
                .clone()
                .acquire_owned()
                .await
                .expect("the semaphore is never closed"),
        )
    }

    /// Searches for `caller` once it has a slot, sending every completed
    /// depth and then the final result; the search stops when the receiver
    /// is dropped.
    ///
    /// # Errors
    ///
    /// As [`Analyst::best_move`].
    pub async fn analyze(
        &self,
        caller: Option<Peer>,
        job: Job,
        order: SearchOrder,
    ) -> Result<Answers, AnalysisError> {
        let admission = Arc::new(self.admit(caller, &order).await?);
        if let Some(pool) = self.engines.get(job.position.variant()) {
            let pool = Arc::clone(pool);
            return Ok(external::spawn(pool, job.position, order, true, admission));
        }
        // Completed depths are few (at most MAX_DEPTH) plus the final one.
        let (sender, receiver) = mpsc::channel(MAX_DEPTH as usize + 2);
        tokio::spawn(async move {
            let progress = sender.clone();
            let finished = search(admission, job, order, move |analysis| {
                let _ = progress.try_send(Ok((analysis.clone(), false)));
            });
            tokio::select! {
                analysis = finished => { let _ = sender.send(Ok((analysis, true))).await; }
                // The client left: dropping `finished` stops the search.
                () = sender.closed() => {}
            }
        });
        Ok(receiver)
    }

    /// Searches every position of a game for `caller`, one after another,
    /// each by `order` (its move time its own), as one call: admitted once,
    /// it takes turns with other callers between positions as within them.
    /// Sends each position's analysis in order (`None` for one the rules
    /// have ended); a failure ends the stream, and so does dropping the
    /// receiver.
    ///
    /// # Errors
    ///
    /// As [`Analyst::best_move`], for the first position or any later.
    pub async fn analyze_game(
        &self,
        caller: Option<Peer>,
        positions: GamePositions,
        order: SearchOrder,
    ) -> Result<GameAnswers, AnalysisError> {
        let admission = Arc::new(self.admit(caller, &order).await?);
        let (sender, receiver) = mpsc::channel(GAME_ANSWERS_BUFFER);
        let analyst = self.clone();
        tokio::spawn(async move {
            let mut turn_began = Instant::now();
            for stage in positions.stages {
                let job = match stage {
                    Stage::Ended(winner) => {
                        if sender
                            .send(Ok(PositionAnalysis::Ended(winner)))
                            .await
                            .is_err()
                        {
                            return;
                        }
                        continue;
                    }
                    Stage::Search(job) => job,
                };
                // Between positions as within one: lend the slot after a
                // slice while another caller waits, or wait for it if a
                // search could not have it back in time.
                let asked = Instant::now();
                let until = order.deadline.map_or(asked + analyst.max_wait, |d| {
                    d.min(asked + analyst.max_wait)
                });
                let place = &admission.place;
                let turn = if !place.has_turn() {
                    Some(place.turn(until).await)
                } else if turn_began.elapsed() >= SLICE && place.others_wait() {
                    Some(place.step_aside(until).await)
                } else {
                    None
                };
                if turn == Some(true) {
                    turn_began = Instant::now();
                }
                let answer = if turn != Some(false) {
                    tokio::select! {
                        answer = analyst.search_once(&admission, job, order) => answer,
                        // The client left: dropping the search stops it.
                        () = sender.closed() => return,
                    }
                } else {
                    Err(AnalysisError::NoTurn(asked.elapsed()))
                };
                let failed = answer.is_err();
                if sender
                    .send(answer.map(PositionAnalysis::Searched))
                    .await
                    .is_err()
                    || failed
                {
                    return;
                }
            }
        });
        Ok(receiver)
    }
}

/// Positions analysed ahead of a client that reads slowly.
const GAME_ANSWERS_BUFFER: usize = 4;

/// One position's analysis in a game's.
#[derive(Clone, Debug)]
pub enum PositionAnalysis {
    Searched(Analysis),
    /// The rules have ended the game here: its winner, `None` for a draw.
    Ended(Option<Side>),
}

/// What [`Analyst::analyze_game`] sends: each position's analysis in
/// order, or why the rest could not be had.
pub type GameAnswers = mpsc::Receiver<Result<PositionAnalysis, AnalysisError>>;

/// Runs an admitted RPC's search, which has its slot now.
async fn search(
    admission: Arc<Admission>,
    job: Job,
    order: SearchOrder,
    report: impl FnMut(&Analysis) + Send + 'static,
) -> Analysis {
    let limits = order.limits(rand::random());
    let stop = StopOnDrop {
        flag: Arc::default(),
        _recall: Some(admission.place.recall()),
    };
    let share = Share {
        stop: Arc::clone(&stop.flag),
        // The move time always sets one.
        deadline: limits.deadline.unwrap_or_else(Instant::now),
        turn_began: Cell::new(Instant::now()),
        admission,
    };
    run(job, limits, share, stop, report).await
}

/// Runs `job` within `limits` on a blocking thread, asking `share` whether
/// to stop; `_stop` stops it when this future is dropped.
async fn run(
    job: Job,
    limits: Limits,
    share: impl Interrupt + Send + 'static,
    _stop: StopOnDrop,
    mut report: impl FnMut(&Analysis) + Send + 'static,
) -> Analysis {
    let search = tokio::task::spawn_blocking(move || (job.run)(&limits, &share, &mut report));
    search
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        analysis::Score,
        engine::{Level, MAX_MULTIPV},
        rules::{RuleChoices, Variant},
    };

    fn order(depth: u32) -> SearchOrder {
        SearchOrder {
            depth: Some(depth),
            ..SearchOrder::best_move(Duration::from_secs(5), Level::MAX)
        }
    }

    fn capacity(slots: usize, seat_slots: usize, per_peer: usize) -> Capacity {
        Capacity {
            slots,
            queue: 0,
            max_wait: Duration::from_secs(10),
            seat_slots,
            per_peer,
        }
    }

    fn peer(n: u8) -> Option<Peer> {
        Some(Peer::of(std::net::SocketAddr::from(([10, 0, 0, n], 1))))
    }

    fn start(variant: Variant) -> Job {
        Job::new::<&str>(variant, RuleChoices::default(), None, &[]).unwrap()
    }

    #[tokio::test]
    async fn finds_a_mate_and_refuses_finished_games() {
        let analyst = Analyst::new(capacity(1, 1, 1));
        let job = Job::new::<&str>(
            Variant::Chess,
            RuleChoices::default(),
            Some("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),
            &[],
        )
        .unwrap();
        let analysis = analyst.best_move(peer(1), job, order(3)).await.unwrap();
        assert_eq!(analysis.best().unwrap().san, "Ra8#");
        assert_eq!(analysis.score(), Score::Mate(1));
        let over = Job::new(
            Variant::Chess,
            RuleChoices::default(),
            None,
            &["f3", "e5", "g4", "Qh4#"],
        );
        assert!(matches!(over, Err(AnalysisError::GameOver(_))));
        let bad = Job::new::<&str>(
            Variant::Xiangqi,
            RuleChoices::default(),
            Some("nonsense"),
            &[],
        );
        assert!(matches!(bad, Err(AnalysisError::Position(_))));
    }

    #[tokio::test]
    async fn a_full_analyst_is_busy_but_seats_have_their_own_slots() {
        let analyst = Analyst::new(capacity(1, 1, 0));
        let mut long = order(MAX_DEPTH);
        long.movetime = Duration::from_secs(30);
        let stream = analyst
            .analyze(peer(1), start(Variant::Xiangqi), long)
            .await
            .unwrap();
        assert_eq!(
            analyst
                .best_move(peer(2), start(Variant::Chess), order(1))
                .await
                .unwrap_err(),
            AnalysisError::Busy { slots: 1, queue: 0 }
        );
        // A seat is not behind the RPCs.
        let seat = analyst.try_seat().expect("the seat slot is free");
        assert!(analyst.try_seat().is_none());
        let analysis = tokio::time::timeout(
            Duration::from_secs(10),
            seat.best_move(start(Variant::Chess), order(1)),
        )
        .await
        .expect("the seat searched at once");
        assert!(analysis.best().is_some());
        assert!(analyst.try_seat().is_some());
        // Leaving stops the search and frees the slot.
        drop(stream);
        let freed = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match analyst
                    .best_move(peer(2), start(Variant::Chess), order(1))
                    .await
                {
                    Err(AnalysisError::Busy { .. }) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    other => return other,
                }
            }
        })
        .await;
        assert!(matches!(freed, Ok(Ok(_))));
    }

    #[tokio::test]
    async fn the_load_counts_busy_slots_and_queued_seats() {
        let analyst = Analyst::new(capacity(2, 1, 0));
        let idle = Load {
            slots: 2,
            busy: 0,
            queued: 0,
            seat_slots: 1,
            seats_busy: 0,
            seats_queued: 0,
        };
        assert_eq!(analyst.load(), idle);
        let mut long = order(MAX_DEPTH);
        long.movetime = Duration::from_secs(30);
        let stream = analyst
            .analyze(None, start(Variant::Chess), long)
            .await
            .unwrap();
        let seat = analyst.try_seat().unwrap();
        let mut waiting = Box::pin(analyst.seat());
        assert!(poll_once(waiting.as_mut()).is_pending());
        assert_eq!(
            analyst.load(),
            Load {
                busy: 1,
                seats_busy: 1,
                seats_queued: 1,
                ..idle
            }
        );
        // A wait given up is no longer queued.
        drop(waiting);
        drop(seat);
        assert_eq!(analyst.load(), Load { busy: 1, ..idle });
        drop(stream);
    }

    /// Polls `future` once with a waker that does nothing.
    fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> std::task::Poll<F::Output> {
        future.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    }

    #[tokio::test]
    async fn one_caller_runs_at_most_its_share() {
        let analyst = Analyst::new(capacity(3, 1, 1));
        let mut long = order(MAX_DEPTH);
        long.movetime = Duration::from_secs(30);
        let first = analyst
            .analyze(peer(1), start(Variant::Xiangqi), long)
            .await
            .unwrap();
        assert_eq!(
            analyst
                .analyze(peer(1), start(Variant::Chess), long)
                .await
                .unwrap_err(),
            AnalysisError::PeerLimit(1)
        );
        // Others still get the free slots, and an unknown caller is not
        // counted.
        let other = analyst
            .analyze(peer(2), start(Variant::Chess), long)
            .await
            .unwrap();
        analyst
            .best_move(None, start(Variant::Chess), order(1))
            .await
            .unwrap();
        drop((first, other));
    }

    #[tokio::test]
    async fn a_game_analysis_takes_turns_with_other_callers() {
        let analyst = Analyst::new(Capacity {
            queue: 2,
            ..capacity(1, 1, 1)
        });
        let moves = ["f3", "e5", "g4", "Qh4#"];
        let positions =
            Job::positions_of_game(Variant::Chess, RuleChoices::default(), None, &moves).unwrap();
        assert_eq!(positions.count, 5);
        let mut each = order(MAX_DEPTH);
        each.movetime = Duration::from_millis(300);
        let mut answers = analyst
            .analyze_game(peer(1), positions, each)
            .await
            .unwrap();
        // Another caller's searches each get their turn meanwhile, long
        // before the game's analysis ends.
        let mut quick = SearchOrder::best_move(Duration::from_millis(50), Level::MAX);
        for _ in 0..3 {
            quick.deadline = Some(Instant::now() + Duration::from_millis(600));
            let analysis = analyst
                .best_move(peer(2), start(Variant::Chess), quick)
                .await
                .unwrap();
            assert!(analysis.best().is_some());
        }
        // The game's positions all come, in order: the mated one is not
        // searched.
        let mut analysed = Vec::new();
        while let Some(answer) = answers.recv().await {
            analysed.push(answer.unwrap());
        }
        assert_eq!(analysed.len(), 5);
        assert!(
            analysed[..4]
                .iter()
                .all(|a| matches!(a, PositionAnalysis::Searched(a) if a.best().is_some()))
        );
        assert!(matches!(
            analysed[4],
            PositionAnalysis::Ended(Some(Side::Black))
        ));
        assert_eq!(analyst.load().busy, 0);
    }

    #[tokio::test]
    async fn a_long_analysis_takes_turns_with_other_callers() {
        let analyst = Analyst::new(Capacity {
            queue: 2,
            ..capacity(1, 1, 1)
        });
        let mut long = order(MAX_DEPTH);
        long.movetime = Duration::from_secs(3);
        long.multipv = MAX_MULTIPV;
        let mut stream = analyst
            .analyze(peer(1), start(Variant::Xiangqi), long)
            .await
            .unwrap();
        let (first, _) = stream.recv().await.unwrap().unwrap();
        // Another caller's searches each get their turn, and their time.
        let mut quick = SearchOrder::best_move(Duration::from_millis(100), Level::MAX);
        for _ in 0..3 {
            let analysis = analyst
                .best_move(peer(2), start(Variant::Chess), quick)
                .await
                .unwrap();
            assert!(analysis.best().is_some() && analysis.depth >= 1);
        }
        // A call that cannot have a turn before its deadline is refused
        // then: the caller's second call waits for its first.
        quick.deadline = Some(Instant::now() + Duration::from_millis(200));
        let analyst = Analyst {
            callers: PeerSlots::new(0),
            ..analyst
        };
        assert!(matches!(
            analyst
                .best_move(peer(1), start(Variant::Chess), quick)
                .await,
            Err(AnalysisError::NoTurn(_))
        ));
        // The analysis went on where it was and ends as it would have.
        let mut last = first.clone();
        while let Some(Ok((analysis, done))) = stream.recv().await {
            last = analysis;
            if done {
                break;
            }
        }
        assert!(last.depth >= first.depth);
        assert_eq!(last.lines.len(), MAX_MULTIPV);
        assert_eq!(analyst.load().busy, 0);
    }
}
