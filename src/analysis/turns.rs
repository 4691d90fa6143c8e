//! The Engine RPCs' slots, shared in turns between callers.
//!
//! At most `slots` searches run at once and at most `queue` more calls are
//! admitted to wait (the searches that lent their slot among them): past
//! that a call is refused. The waiting calls are served round robin by
//! caller: the caller at the head of the rotation gets the next free slot
//! for its oldest waiting call, and goes to the back if it has more. A
//! search that has had its slot for a [`SLICE`] while another caller waits
//! lends it ([`Place::lend`]): it waits at the back of its caller's line and
//! of the rotation, on its own thread with its tables kept, and goes on
//! where it was when its turn comes again. A caller's calls do not take
//! turns among themselves: its second call waits for its first to end.
//!
//! A search waits on its thread rather than stopping and starting again
//! because a restart would search its earlier depths again (and lose its
//! partly searched one): with a slice of 100 ms, a long multi-line search
//! would hardly get deeper while anyone else waits. The cost is a parked
//! thread per such search, which the queue bounds.

use std::{
    collections::{HashMap, HashSet, VecDeque},
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use tokio::sync::oneshot;

use crate::peers::Peer;

/// How long a search keeps its slot while another caller waits for one:
/// long enough that a short BestMove (100 ms) is not cut in pieces, short
/// enough that a caller waits about that long per search ahead of it.
pub const SLICE: Duration = Duration::from_millis(100);

/// Whose turn it is; `None` for callers of unknown address, which share
/// one line.
type Caller = Option<Peer>;

/// The slots and the calls waiting for them.
#[derive(Debug)]
pub struct Turns {
    slots: usize,
    /// Calls admitted at once: the slots and the queue.
    places: usize,
    state: Mutex<State>,
    /// The state's `waiting`, readable without the lock.
    waiting: AtomicUsize,
}

#[derive(Debug, Default)]
struct State {
    admitted: usize,
    next_id: u64,
    /// The places whose search has a slot.
    running: HashSet<u64>,
    /// Callers with waiting calls, the next to be served first.
    rotation: VecDeque<Caller>,
    /// Each of those callers' waiting calls, oldest first.
    lines: HashMap<Caller, VecDeque<Waiter>>,
    waiting: usize,
}

#[derive(Debug)]
struct Waiter {
    id: u64,
    wake: Wake,
}

/// How a waiter learns that its turn has come: a call not yet started
/// waits on the runtime, a search that lent its slot on its own thread.
#[derive(Debug)]
enum Wake {
    Call(oneshot::Sender<()>),
    Search(mpsc::SyncSender<()>),
}

impl Wake {
    fn send(self) {
        // A waiter gone meanwhile leaves its slot when its place is
        // dropped.
        match self {
            Wake::Call(sender) => drop(sender.send(())),
            Wake::Search(sender) => drop(sender.try_send(())),
        }
    }
}

impl State {
    /// Puts `waiter` at the back of `caller`'s line; `last` also sends the
    /// caller to the back of the rotation (it has just had its turn).
    fn enqueue(&mut self, caller: Caller, waiter: Waiter, last: bool) {
        let line = self.lines.entry(caller).or_default();
        let new = line.is_empty();
        line.push_back(waiter);
        self.waiting += 1;
        if last && !new {
            self.rotation.retain(|c| *c != caller);
        }
        if last || new {
            self.rotation.push_back(caller);
        }
    }

    /// Takes the waiter `id` of `caller` out of its line, if it is there
    /// (dropping its wake, which tells a waiting search it was recalled).
    fn dequeue(&mut self, caller: Caller, id: u64) {
        let Some(line) = self.lines.get_mut(&caller) else {
            return;
        };
        let before = line.len();
        line.retain(|w| w.id != id);
        self.waiting -= before - line.len();
        if line.is_empty() {
            self.lines.remove(&caller);
            self.rotation.retain(|c| *c != caller);
        }
    }

    /// Gives the free slots to the waiters whose turn it is.
    fn grant(&mut self, slots: usize) {
        while self.running.len() < slots {
            let Some(caller) = self.rotation.pop_front() else {
                return;
            };
            let Some(line) = self.lines.get_mut(&caller) else {
                continue;
            };
            let Some(waiter) = line.pop_front() else {
                self.lines.remove(&caller);
                continue;
            };
            if line.is_empty() {
                self.lines.remove(&caller);
            } else {
                self.rotation.push_back(caller);
            }
            self.waiting -= 1;
            self.running.insert(waiter.id);
            waiter.wake.send();
        }
    }
}

impl Turns {
    /// `slots` searches at once (at least 1), and `queue` more calls
    /// waiting.
    pub fn new(slots: usize, queue: usize) -> Arc<Turns> {
        let slots = slots.max(1);
        Arc::new(Turns {
            slots,
            places: slots.saturating_add(queue),
            state: Mutex::default(),
            waiting: AtomicUsize::new(0),
        })
    }

    /// Runs `change` on the state, under its lock.
    fn with<R>(&self, change: impl FnOnce(&mut State) -> R) -> R {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let result = change(&mut state);
        self.waiting.store(state.waiting, Ordering::Relaxed);
        result
    }

    /// A place for a call from `caller`, or `None` when as many calls run
    /// and wait as may.
    pub fn admit(self: &Arc<Self>, caller: Caller) -> Option<Place> {
        self.with(|state| {
            if state.admitted >= self.places {
                return None;
            }
            state.admitted += 1;
            state.next_id += 1;
            Some(Place {
                turns: Arc::clone(self),
                caller,
                id: state.next_id,
            })
        })
    }

    /// Searches with a slot now.
    pub fn running(&self) -> usize {
        self.with(|state| state.running.len())
    }

    /// Calls waiting for a slot now (searches that lent theirs included).
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

/// An admitted call: waiting for a slot or searching in one. Dropping it
/// leaves the line or frees the slot for the next waiter.
#[derive(Debug)]
pub struct Place {
    turns: Arc<Turns>,
    caller: Caller,
    id: u64,
}

impl Place {
    /// Waits for a slot until `until`; false if none came by then.
    pub async fn turn(&self, until: Instant) -> bool {
        let slots = self.turns.slots;
        let receiver = self.turns.with(|state| {
            if state.running.len() < slots && state.rotation.is_empty() {
                state.running.insert(self.id);
                return None;
            }
            let (sender, receiver) = oneshot::channel();
            let waiter = Waiter {
                id: self.id,
                wake: Wake::Call(sender),
            };
            state.enqueue(self.caller, waiter, false);
            Some(receiver)
        });
        let Some(receiver) = receiver else {
            return true;
        };
        match tokio::time::timeout_at(until.into(), receiver).await {
            Ok(Ok(())) => true,
            _ => self.leave_line(),
        }
    }

    /// Whether this place's search has a slot now.
    pub fn has_turn(&self) -> bool {
        self.turns.with(|state| state.running.contains(&self.id))
    }

    /// Whether a call of another caller waits for a slot (cheap while none
    /// waits at all).
    pub fn others_wait(&self) -> bool {
        self.turns.waiting() > 0
            && self
                .turns
                .with(|state| state.rotation.iter().any(|c| *c != self.caller))
    }

    /// Lends this search's slot to the next waiter and waits on this thread
    /// for a turn again, until `until`. False if none came by then, or the
    /// search was stopped (`stop` set, then the wait [`Recall`]ed).
    pub fn lend(&self, until: Instant, stop: &AtomicBool) -> bool {
        let (sender, receiver) = mpsc::sync_channel(1);
        // A search stopped before it lent its slot keeps it to end.
        if !self.give_way(Wake::Search(sender), || stop.load(Ordering::Relaxed)) {
            return false;
        }
        let wait = until.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(wait) {
            Ok(()) => true,
            Err(_) => self.leave_line(),
        }
    }

    /// Lends the slot as [`Place::lend`] does, for a search that has
    /// stopped to wait on the runtime (an external engine's, which cannot
    /// be paused). False if no turn came by `until`.
    pub async fn step_aside(&self, until: Instant) -> bool {
        let (sender, receiver) = oneshot::channel();
        if !self.give_way(Wake::Call(sender), || false) {
            return false;
        }
        match tokio::time::timeout_at(until.into(), receiver).await {
            Ok(Ok(())) => true,
            _ => self.leave_line(),
        }
    }

    /// Gives the slot to the next waiter and waits at the back of the line
    /// (woken by `wake`), unless `stopped` says the search has ended.
    fn give_way(&self, wake: Wake, stopped: impl FnOnce() -> bool) -> bool {
        self.turns.with(|state| {
            if stopped() || !state.running.remove(&self.id) {
                return false;
            }
            let waiter = Waiter { id: self.id, wake };
            state.enqueue(self.caller, waiter, true);
            state.grant(self.turns.slots);
            true
        })
    }

    /// Leaves the line after a wait that ended without a turn: false,
    /// unless the turn came meanwhile.
    fn leave_line(&self) -> bool {
        self.turns.with(|state| {
            let granted = state.running.contains(&self.id);
            if !granted {
                state.dequeue(self.caller, self.id);
            }
            granted
        })
    }

    /// What takes this place's search out of the line when its caller is
    /// gone.
    pub fn recall(&self) -> Recall {
        Recall {
            turns: Arc::clone(&self.turns),
            caller: self.caller,
            id: self.id,
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let slots = self.turns.slots;
        self.turns.with(|state| {
            state.admitted -= 1;
            if state.running.remove(&self.id) {
                state.grant(slots);
            } else {
                state.dequeue(self.caller, self.id);
            }
        });
    }
}

/// When dropped, takes a search that lent its slot out of the line, which
/// ends its wait at once.
#[derive(Debug)]
pub struct Recall {
    turns: Arc<Turns>,
    caller: Caller,
    id: u64,
}

impl Drop for Recall {
    fn drop(&mut self) {
        self.turns.with(|state| state.dequeue(self.caller, self.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(n: u8) -> Caller {
        Some(Peer::of(std::net::SocketAddr::from(([10, 0, 0, n], 1))))
    }

    /// A runtime for tests that block on turns from plain threads.
    fn timed_runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    /// Polls `future` once with a waker that does nothing.
    fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> std::task::Poll<F::Output> {
        future.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    }

    #[tokio::test]
    async fn the_queue_is_bounded_and_a_cancelled_wait_leaves_it() {
        let turns = Turns::new(1, 1);
        let first = turns.admit(caller(1)).unwrap();
        assert!(first.turn(soon()).await);
        let second = turns.admit(caller(2)).unwrap();
        assert!(turns.admit(caller(3)).is_none());
        let mut waiting = Box::pin(second.turn(soon()));
        assert!(poll_once(waiting.as_mut()).is_pending());
        assert_eq!((turns.running(), turns.waiting()), (1, 1));
        drop(waiting);
        drop(second);
        assert_eq!((turns.running(), turns.waiting()), (1, 0));
        // The place is free again, and a wait runs out at its time.
        let third = turns.admit(caller(3)).unwrap();
        assert!(!third.turn(Instant::now() + Duration::from_millis(20)).await);
        assert_eq!(turns.waiting(), 0);
        drop(first);
        assert!(third.turn(soon()).await);
    }

    #[tokio::test]
    async fn callers_are_served_round_robin() {
        let turns = Turns::new(1, 8);
        let running = turns.admit(caller(1)).unwrap();
        assert!(running.turn(soon()).await);
        // Caller 1 queues two more calls before callers 2 and 3 queue one;
        // each call ends as soon as it has its turn.
        let mut waits: Vec<_> = [1, 1, 2, 3]
            .map(|n| {
                let place = turns.admit(caller(n)).unwrap();
                Some(Box::pin(async move { place.turn(soon()).await }))
            })
            .into();
        for wait in waits.iter_mut().flatten() {
            assert!(poll_once(wait.as_mut()).is_pending());
        }
        drop(running);
        let mut order = Vec::new();
        while let Some(done) = waits.iter_mut().position(|wait| {
            wait.as_mut()
                .is_some_and(|w| poll_once(w.as_mut()) == std::task::Poll::Ready(true))
        }) {
            order.push(done);
            waits[done] = None;
        }
        // Caller 1, then 2, then 3, then caller 1's second call.
        assert_eq!(order, [0, 2, 3, 1]);
        assert_eq!((turns.running(), turns.waiting()), (0, 0));
    }

    #[test]
    fn a_search_lends_its_slot_to_another_caller_and_gets_it_back() {
        let runtime = timed_runtime();
        let _context = runtime.enter();
        let turns = Turns::new(1, 1);
        let long = turns.admit(caller(1)).unwrap();
        assert!(runtime.block_on(long.turn(soon())));
        assert!(!long.others_wait());
        // Another caller's call waits...
        let short = turns.admit(caller(2)).unwrap();
        let mut waiting = Box::pin(async move { (short.turn(soon()).await, short) });
        assert!(poll_once(waiting.as_mut()).is_pending());
        assert!(long.others_wait());
        // ...and gets the slot the search lends; once its call ends, the
        // search has the slot back.
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let lender = scope.spawn(|| long.lend(soon(), &stop));
            let (granted, short) = runtime.block_on(waiting);
            assert!(granted);
            assert_eq!(turns.running(), 1);
            drop(short);
            assert!(lender.join().unwrap());
        });
        assert_eq!((turns.running(), turns.waiting()), (1, 0));
        // Its own calls do not take turns with it.
        let own = turns.admit(caller(1)).unwrap();
        let mut own_wait = Box::pin(own.turn(soon()));
        assert!(poll_once(own_wait.as_mut()).is_pending());
        assert!(!long.others_wait());
    }

    #[test]
    fn a_recalled_or_stopped_search_does_not_wait() {
        let runtime = timed_runtime();
        let _context = runtime.enter();
        let turns = Turns::new(1, 1);
        let long = turns.admit(caller(1)).unwrap();
        assert!(runtime.block_on(long.turn(soon())));
        let other = turns.admit(caller(2)).unwrap();
        assert!(!runtime.block_on(other.turn(Instant::now())));
        // Stopped: it keeps its slot to end.
        assert!(!long.lend(soon(), &AtomicBool::new(true)));
        assert_eq!(turns.running(), 1);
        let mut waiting = Box::pin(other.turn(soon()));
        assert!(poll_once(waiting.as_mut()).is_pending());
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let lender = scope.spawn(|| long.lend(soon(), &stop));
            assert!(runtime.block_on(waiting));
            // Its caller is gone: the search leaves the line at once,
            // without a turn.
            while turns.waiting() == 0 {
                std::thread::yield_now();
            }
            drop(long.recall());
            assert!(!lender.join().unwrap());
        });
        assert_eq!(turns.waiting(), 0);
        drop(long);
        drop(other);
        assert_eq!(turns.running(), 0);
    }
}
