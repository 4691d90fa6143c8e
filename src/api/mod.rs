//! The gRPC transport: turns requests into domain calls and domain errors
//! into statuses. No rules and no SQL here.

mod admission;
mod connections;
mod convert;
mod credential_checks;
mod engine;
mod error;
mod games;
mod health;
mod metrics;
mod player;
mod positions;
pub mod proto;
mod request_errors;
mod request_limits;
mod rpc_outcomes;
mod rules;
mod server;
mod tls;
mod transport;
mod watch;
mod web;

pub use metrics::{
    CONNECTION_TIME as METRICS_CONNECTION_TIME, MAX_CONNECTIONS as METRICS_MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_PEER as METRICS_MAX_CONNECTIONS_PER_PEER, MetricsError,
};
pub use player::{DEFAULT_MAX_PLAYER_STREAMS, DEFAULT_PLAYER_STREAM_MAX_SEATS, PlayerLimits};
pub use server::{
    DEFAULT_ENGINE_QUEUE, DEFAULT_ENGINE_QUEUE_WAIT, DEFAULT_MAX_IMPORT_REQUEST_BYTES,
    DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_RESUMES_PER_PEER, DEFAULT_MAX_WATCHERS_PER_CONNECTION,
    DEFAULT_MAX_WATCHERS_PER_GAME, DEFAULT_WATCHER_BUFFER_BYTES, MAX_SMALL_REQUEST_BYTES,
    ServerConfig, serve,
};
pub use tls::{FILE_CHECK_INTERVAL, TlsError, TlsFiles};
pub use transport::LegalMovesAnswer;
pub use watch::encode_event;
