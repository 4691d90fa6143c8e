//! The search engine, generic over the rules' [`Game`](crate::rules::Game)
//! trait, split by job as Stockfish does: [`evaluate`] (per-game static
//! evaluation), `tt` (transposition table), `ordering` (move ordering),
//! `limits` (when to stop, time management, levels) and `search` (iterative
//! deepening, aspiration windows, principal variation search, null-move,
//! futility and static-exchange pruning, late-move and internal iterative
//! reductions, quiescence search, check extensions, mate distances,
//! repetitions judged by the game's rules (xiangqi's perpetual check and
//! chase), multi-PV).
//!
//! ```
//! use arbiter::{engine::{Limits, search}, rules::{chess::Chess, Game, Record}};
//!
//! let pos = Chess::from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
//! let result = search(&Record::new(pos.clone()), &Limits::depth(3));
//! assert_eq!(pos.coordinate_notation(result.best().unwrap()), "a1a8");
//! ```

pub mod evaluate;
mod limits;
mod ordering;
mod search;
mod tt;

pub use evaluate::Evaluate;
pub use limits::{Interrupt, Level, Limits, MAX_DEPTH, MAX_MULTIPV};
pub use search::{Line, MATE, SearchResult, search, search_with};
pub use tt::TranspositionTable;
