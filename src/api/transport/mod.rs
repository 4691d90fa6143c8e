//! What Arbiter's transport does beyond plain tonic, and why.
//!
//! Each piece here stays because it made `LegalMoves` at least 10% faster
//! for clients that decode every answer into generated messages, as real
//! clients do: measured against a release build with the piece replaced by
//! plain tonic, alternated run by run, with the generated Rust client and
//! with Python grpcio, at 1, 16 and 64 requests in flight, chess and
//! xiangqi (`BENCHMARKS.md`, "Transport pieces against plain tonic"):
//!
//! - [`socket`]: the accepted connection gathers h2's writes until it
//!   flushes, and lets the worker's other ready tasks finish their answers
//!   first, so that answers share system calls. Median gain 18% (1-38% over
//!   the ten configurations measured).
//! - [`legal_moves`]: `LegalMoves` encoded straight from the rules'
//!   descriptions instead of building and dropping some 250 strings of
//!   generated messages per answer. Median gain 12% (-4% to 24%).
//!
//! Cutting answers of 1-16 KiB into DATA frames below 1 KiB, which had paid
//! off for a load generator that checks answers on the wire without
//! decoding them, gained a decoding client 3% (-11% to 16%) and was
//! removed.

mod legal_moves;
mod socket;

pub use legal_moves::{LegalMovesAnswer, RulesRoutes};
pub use socket::Connection;
