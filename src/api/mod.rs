//! The gRPC transport: turns requests into domain calls and domain errors
//! into statuses. No rules and no SQL here.

mod convert;
mod engine;
mod error;
mod games;
mod legal_moves;
mod positions;
pub mod proto;
mod request_errors;
mod rules;
mod server;
mod small_frames;
mod socket;
mod tls;

pub use legal_moves::LegalMovesAnswer;
pub use server::{ServerConfig, serve};
pub use tls::{FILE_CHECK_INTERVAL, TlsError, TlsFiles};
