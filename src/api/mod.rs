//! The gRPC transport: turns requests into domain calls and domain errors
//! into statuses. No rules and no SQL here.

mod admission;
mod connections;
mod convert;
mod engine;
mod error;
mod games;
mod health;
mod legal_moves;
mod positions;
pub mod proto;
mod request_errors;
mod request_limits;
mod rules;
mod server;
mod small_frames;
mod socket;
mod tls;
mod watch;

pub use legal_moves::LegalMovesAnswer;
pub use server::{
    DEFAULT_MAX_IMPORT_REQUEST_BYTES, DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_MAX_WATCHERS_PER_CONNECTION, DEFAULT_MAX_WATCHERS_PER_GAME,
    DEFAULT_WATCHER_BUFFER_BYTES, MAX_SMALL_REQUEST_BYTES, ServerConfig, serve,
};
pub use tls::{FILE_CHECK_INTERVAL, TlsError, TlsFiles};
pub use watch::encode_event;
