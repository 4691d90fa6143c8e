//! Arbiter: referees and manages chess and xiangqi games for other programs.
//!
//! The crate is layered so that each layer knows only the one below it:
//!
//! - [`rules`]: exact game rules with no I/O, one module per game behind the
//!   shared [`rules::Game`] trait;
//! - [`cli`]: the command-line entry points (`perft`, and later `serve`, `uci`).

pub mod analysis;
pub mod api;
pub mod cli;
pub mod engine;
pub mod games;

pub mod peers;
pub mod reason;
pub mod rules;
pub mod server;
pub mod store;
