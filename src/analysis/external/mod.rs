//! Engines beside Arbiter's own (Stockfish for chess, Fairy-Stockfish or
//! Pikafish for xiangqi, any UCI engine) behind the Engine RPCs.
//!
//! Each game with such an engine has a pool of at most
//! `--uci-engine-processes` processes, started when a search needs one (and
//! once at start-up, so a wrong path fails at once) and kept between
//! searches. A search takes its turn at the RPC slots as any other (the
//! same queue, waits, per-caller limit and round robin), then a process of
//! its game's pool, and steps aside as Arbiter's own searches lend their
//! slot (see `search`). The engine is only given what Arbiter wrote: the
//! FEN of a position its rules checked and the moves played from it in
//! coordinates; what the engine answers is read back through the rules (a
//! `bestmove` that is not legal there fails the search).
//!
//! Every search is bounded: `stop` is sent at its move time, and an engine
//! that has not answered `bestmove` [`HANG_MARGIN`] later, that exits, or
//! that writes a line longer than [`MAX_LINE`] bytes is killed and the call
//! fails with [`EngineFailure`]; the next search starts a new process.

mod failure;
mod lines;
mod pool;
mod position;
mod process;
mod progress;
mod search;
mod settings;
mod strength;

pub use self::{
    failure::{EngineFailure, EngineStartError},
    lines::MAX_LINE,
    search::HANG_MARGIN,
    settings::{UciEngine, UciEngines},
};
pub(super) use self::{
    pool::Pools,
    position::UciPosition,
    search::{Turn, spawn},
};
