//! Limits and protection: bad requests, input checks, fair shares between
//! addresses, connection limits, the engine's shares, TLS, and logs that
//! input cannot grow.

#[path = "../common/mod.rs"]
mod common;

mod bad_requests;
mod connections;
mod engine_shares;
mod input_checks;
mod logs;
mod shares;
mod tls;
