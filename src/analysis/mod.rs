//! The engine as a service: searches of positions given as FEN plus moves,
//! run on blocking threads (never on the async runtime), a bounded number at
//! a time, and stopped as soon as nobody waits for them.
//!
//! Two pools of slots: one for the Engine RPCs (`--engine-slots`), and one
//! that only engine seats use (`--engine-seat-slots`). Separate pools rather
//! than a reserved share of one: the default of one RPC slot on a two-core
//! machine has no share to carve out, and with pools of their own nothing a
//! caller sends can ever hold a seat's slot. Seats wait for theirs in turn
//! (first come, first served); the time a seat waits is not charged to its
//! clock (see `games::engine_seat`).
//!
//! The RPCs' slots are shared fairly between callers (`turns`), so that
//! one caller's long Analyze cannot take the engine from everyone else even
//! when there is a single slot. A call whose slot is taken waits in a
//! bounded queue (`--engine-queue` calls beyond the slots; past that it is
//! refused at once, [`AnalysisError::Busy`]), until its gRPC deadline (less
//! the margin kept to answer) or `--engine-queue-wait` at most
//! ([`AnalysisError::NoTurn`]); a caller that leaves leaves the queue.
//! Callers are served round robin, and a search that has had its slot for a
//! [`SLICE`] while another caller waits lends it and waits at the back,
//! its thread and transposition table kept: it goes on where it was, at the
//! same depth, when its turn comes again (an Analyze stream just sends its
//! next depth later). A search's move time runs from its first turn and
//! goes on while it waits: it answers on time, with what its share of the
//! engine found. One caller runs (or queues) at most `per_peer` calls at
//! once ([`AnalysisError::PeerLimit`]), and its calls do not take turns
//! among themselves: many calls from one caller get no more engine time
//! than a single one from another.
//!
//! A game may have an external UCI engine instead (`external`): its
//! searches take their turns at the same slots and queue, then a process
//! of the engine's pool; as an engine cannot be paused, such a search
//! lends its slot by stopping its engine, and searches on (a new `go`)
//! when its turn comes again.

mod analyst;
pub mod external;
mod job;
mod results;
pub mod review;
mod turns;

pub use self::{
    analyst::{Analyst, Answers, Capacity, GameAnswers, Load, PositionAnalysis, SeatSlot},
    job::{GamePositions, Job, MAX_MOVETIME, SearchOrder},
    results::{Analysis, AnalysisError, Score, Variation},
    turns::SLICE,
};
