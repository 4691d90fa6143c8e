//! The gRPC API: turns requests into domain calls and domain errors into
//! statuses. No rules, no SQL, and no transport here (the server, above,
//! serves these services).

mod admission;
mod caller;
mod collections;
mod convert;
mod engine;
mod error;
mod frames;
mod games;
mod legal_moves;
mod listing;
mod player;
mod player_events;
mod players;
mod positions;
pub mod proto;
mod request;
mod request_errors;
mod routes;
mod rules;
mod seat_events;
mod seek_streams;
mod starts;
mod streams;
mod vocabulary;
mod watch;

pub use admission::Creates;
pub use collections::{DEFAULT_IMPORT_KIB_PER_SECOND, DEFAULT_IMPORT_MAX_GAMES, ImportBounds};
pub use engine::EngineService;
pub use error::{ErrorStatus, code, internal};
pub use frames::encode_event;
pub use games::GamesService;
pub use legal_moves::LegalMovesAnswer;
pub use player::{
    DEFAULT_MAX_PLAYER_STREAMS, DEFAULT_PLAYER_STREAM_MAX_SEATS, PlayerLimits, PlayerStreams,
};
pub use player_events::{DEFAULT_MAX_STREAMS_PER_PLAYER, LOOK_EVERY};
pub use players::PlayersService;
pub use positions::PositionsService;
pub use request::REQUEST_COMPRESSION;
pub use request_errors::rewrite as rewrite_errors;
pub use routes::{GamesRoutes, RulesRoutes};
pub use rules::RulesService;
pub use streams::Streams;
pub use watch::Watchers;
