//! What the server is built from: every option of `arbiter serve`, and the
//! defaults.

use std::{sync::Arc, time::Duration};

use http::HeaderValue;

use super::{connections::ConnectionLimits, tls::TlsFiles};
use crate::{
    analysis::{Analyst, external::UciEngines},
    api::{
        DEFAULT_IMPORT_KIB_PER_SECOND, DEFAULT_IMPORT_MAX_GAMES, DEFAULT_MAX_PLAYER_STREAMS,
        DEFAULT_MAX_STREAMS_PER_PLAYER, DEFAULT_PLAYER_STREAM_MAX_SEATS, PlayerLimits,
    },
    games::{
        AdminToken, DEFAULT_CHAT_LINES, DEFAULT_CLAIM_VICTORY_AFTER, DEFAULT_LIVE_GAMES,
        DEFAULT_LIVE_GAMES_MEMORY, DEFAULT_OPEN_SEAT_TIMEOUT, LeaseTimes, PgnLimits, SystemTime,
        TimeSource,
    },
    lichess::{DEFAULT_LICHESS_BURST, DEFAULT_LICHESS_RATE},
    players::{
        DEFAULT_CHALLENGE_EXPIRY, DEFAULT_EVENT_RETENTION, DEFAULT_MAX_CHALLENGES_PER_PLAYER,
        DEFAULT_MAX_PLAYER_TOKENS, DEFAULT_MAX_SEEKS_PER_PLAYER, DEFAULT_PAIRING_INTERVAL,
        Enrolment, JwtSettings,
    },
    store::DEFAULT_BATCH_MAX,
};

/// Largest request of every method but ImportGame by default: a position
/// with a 2,000-move history is about 12 KiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 * 1024;
/// Largest ImportGame request by default (its PGN).
pub const DEFAULT_MAX_IMPORT_REQUEST_BYTES: usize = 1024 * 1024;
/// Largest health or reflection request (a service or symbol name).
pub const MAX_SMALL_REQUEST_BYTES: usize = 4 * 1024;

/// Default [`ServerConfig::watcher_buffer_bytes`]: 1 MiB, some 30 events
/// of a 200-ply game (about 30 KB each).
pub const DEFAULT_WATCHER_BUFFER_BYTES: usize = 1024 * 1024;
/// Default [`ServerConfig::max_watchers_per_game`].
pub const DEFAULT_MAX_WATCHERS_PER_GAME: usize = 1000;
/// Default [`ServerConfig::engine_queue`]: a few callers' turns; each
/// search that has started holds its transposition table (16 MiB) while it
/// waits for its next turn.
pub const DEFAULT_ENGINE_QUEUE: usize = 8;
/// Default [`ServerConfig::engine_queue_wait`].
pub const DEFAULT_ENGINE_QUEUE_WAIT: Duration = Duration::from_secs(10);
/// Default [`ServerConfig::uci_engines`]' processes per game: one search
/// at a time per game's external engine, beside Arbiter's own.
pub const DEFAULT_UCI_ENGINE_PROCESSES: usize = 1;
/// Default [`ServerConfig::max_watchers_per_connection`].
pub const DEFAULT_MAX_WATCHERS_PER_CONNECTION: usize = 100;
/// Default [`ServerConfig::max_resumes_per_peer`]: a few pages of one
/// household reconnecting at once after a restart.
pub const DEFAULT_MAX_RESUMES_PER_PEER: usize = 4;

/// What `serve` needs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub database_url: String,
    /// Engine searches run at once for the Engine RPCs.
    pub engine_slots: usize,
    /// Engine RPCs that may wait for a slot beyond those running (0: none;
    /// refused at once when every slot is taken).
    pub engine_queue: usize,
    /// The longest an Engine RPC waits for its first turn.
    pub engine_queue_wait: Duration,
    /// External UCI engines that answer the Engine RPCs for their games
    /// (none: Arbiter's own engine for both).
    pub uci_engines: UciEngines,
    /// The time clocks run on (tests inject a manual one).
    pub time: Arc<dyn TimeSource>,
    /// The operator credential: aborts any game, deletes any saved position
    /// (`None`: there is none).
    pub admin_token: Option<AdminToken>,
    /// The service credential: acts for players, and for nothing else
    /// (`None`: there is none).
    pub service_credential: Option<AdminToken>,
    /// Who may create players.
    pub enrolment: Enrolment,
    /// Tokens a player may hold at once.
    pub max_player_tokens: usize,
    /// The platform's identity provider, whose JWTs name players too
    /// (`None`: players have Arbiter's tokens only).
    pub jwt: Option<JwtSettings>,
    /// How long a challenge waits for an answer.
    pub challenge_expiry: Duration,
    /// Challenges a player may have waiting at once.
    pub max_challenges_per_player: usize,
    /// Seeks a player may have open at once.
    pub max_seeks_per_player: usize,
    /// How often the pairing pool pairs.
    pub pairing_interval: Duration,
    /// How long players' events are kept for WatchEvents to resume from.
    pub player_events_retention: Duration,
    /// Most moves ImportGame reads.
    pub import_max_moves: usize,
    /// Most tokens (tags, move numbers, moves, comments, ...) ImportGame
    /// reads.
    pub import_max_tokens: usize,
    /// Most games one ImportGames call imports.
    pub import_max_games: u32,
    /// KiB a second an address's ImportGames calls are read at together
    /// (0: no limit).
    pub import_kib_per_second: u32,
    /// How long a seat left open waits for a player before its game is
    /// aborted.
    pub open_seat_timeout: Duration,
    /// Lines a game's chat keeps.
    pub chat_lines: u32,
    /// How long a player is away before the opponent may claim the game.
    pub claim_victory_after: Duration,
    /// Engine searches for engine seats run at once (the Engine RPCs cannot
    /// take these).
    pub engine_seat_slots: usize,
    /// Engine RPCs one peer address may run at once (0: no limit).
    pub max_analyses_per_peer: usize,
    /// WatchGame resumes one peer address may have telling their past
    /// events at once (0: no limit).
    pub max_resumes_per_peer: usize,
    /// Games and positions one peer address may create a second, after
    /// `create_burst` (0: no limit).
    pub create_rate: u32,
    pub create_burst: u32,
    /// Lichess API calls other than moves one token (or, without one, one
    /// address) may make a second, after `lichess_burst` (0: no limit).
    pub lichess_rate: u32,
    pub lichess_burst: u32,
    /// Encoded bytes a watcher may fall behind by before it is ended with
    /// `WATCHER_TOO_SLOW`; also the most a game's backlog holds.
    pub watcher_buffer_bytes: usize,
    /// Watchers one game may have at once.
    pub max_watchers_per_game: usize,
    /// Watch streams one connection may have open at once (WatchGame and
    /// WatchPlayer).
    pub max_watchers_per_connection: usize,
    /// Seats one WatchPlayer stream may follow, and such streams open at
    /// once.
    pub player_streams: PlayerLimits,
    /// Largest request message of every method but ImportGame (and health
    /// and reflection, which take less), after decompression.
    pub max_request_bytes: usize,
    /// Largest ImportGame request message, after decompression.
    pub max_import_request_bytes: usize,
    /// Requests served at once across the server; more are refused.
    pub max_in_flight: usize,
    /// Requests served at once from one address (0: no share).
    pub max_in_flight_per_peer: usize,
    /// How long a request may wait for its answer.
    pub request_timeout: Duration,
    /// Connections open at once; more are closed.
    pub max_connections: usize,
    /// Connections open at once from one address; more are refused (0: no
    /// share).
    pub max_connections_per_peer: usize,
    /// WatchGame and WatchPlayer streams open at once from one address (0:
    /// no share).
    pub max_streams_per_peer: usize,
    /// Failed credential checks a second per address after
    /// `auth_failure_burst` (0: no limit).
    pub auth_failure_rate: u32,
    pub auth_failure_burst: u32,
    /// HTTP/2 streams open at once on one connection.
    pub max_concurrent_streams: u32,
    /// Time from accepting a connection to its client's HTTP/2 preface or
    /// first HTTP/1.1 request.
    pub handshake_timeout: Duration,
    /// Time without a request in flight after which a connection is closed.
    pub idle_timeout: Duration,
    /// Silence after which the server pings an HTTP/2 client.
    pub keepalive_interval: Duration,
    /// Time a client has to answer a ping.
    pub keepalive_timeout: Duration,
    /// Time requests in flight get to finish at shutdown.
    pub shutdown_grace: Duration,
    /// Games in play kept in memory for their next change, at most.
    pub live_games: usize,
    /// Bytes of games in play kept in memory, at most.
    pub live_games_memory: usize,
    /// Most game changes committed in one transaction.
    pub write_batch_max: usize,
    /// Serve over TLS with these files (`None`: plaintext).
    pub tls: Option<TlsFiles>,
    /// Serve Prometheus metrics on this address (`None`: no metrics).
    pub metrics_listen: Option<String>,
    /// Serve the web app built into the binary on GET and HEAD (see
    /// `web`); false: those go to the API like every other request.
    pub web: bool,
    /// The origins whose pages may call the API with grpc-web (CORS);
    /// `None`: any origin.
    pub cors_allow_origins: Option<Vec<HeaderValue>>,
    /// How long a lease on a shard of games lasts and how often its owner
    /// renews it (servers sharing a PostgreSQL database).
    pub lease_times: LeaseTimes,
}

impl ServerConfig {
    /// The defaults `arbiter serve` uses, on the database at `database_url`.
    pub fn new(database_url: impl Into<String>) -> ServerConfig {
        ServerConfig {
            database_url: database_url.into(),
            engine_slots: Analyst::default_slots(),
            engine_queue: DEFAULT_ENGINE_QUEUE,
            engine_queue_wait: DEFAULT_ENGINE_QUEUE_WAIT,
            uci_engines: UciEngines {
                processes: DEFAULT_UCI_ENGINE_PROCESSES,
                ..UciEngines::default()
            },
            time: Arc::new(SystemTime),
            admin_token: None,
            service_credential: None,
            enrolment: Enrolment::Open,
            max_player_tokens: DEFAULT_MAX_PLAYER_TOKENS,
            jwt: None,
            challenge_expiry: DEFAULT_CHALLENGE_EXPIRY,
            max_challenges_per_player: DEFAULT_MAX_CHALLENGES_PER_PLAYER,
            max_seeks_per_player: DEFAULT_MAX_SEEKS_PER_PLAYER,
            pairing_interval: DEFAULT_PAIRING_INTERVAL,
            player_events_retention: DEFAULT_EVENT_RETENTION,
            import_max_moves: PgnLimits::DEFAULT.moves,
            import_max_tokens: PgnLimits::DEFAULT.tokens,
            import_max_games: DEFAULT_IMPORT_MAX_GAMES,
            import_kib_per_second: DEFAULT_IMPORT_KIB_PER_SECOND,
            open_seat_timeout: DEFAULT_OPEN_SEAT_TIMEOUT,
            chat_lines: DEFAULT_CHAT_LINES,
            claim_victory_after: DEFAULT_CLAIM_VICTORY_AFTER,
            engine_seat_slots: 1,
            max_analyses_per_peer: 1,
            max_resumes_per_peer: DEFAULT_MAX_RESUMES_PER_PEER,
            create_rate: 20,
            create_burst: 100,
            lichess_rate: DEFAULT_LICHESS_RATE,
            lichess_burst: DEFAULT_LICHESS_BURST,
            watcher_buffer_bytes: DEFAULT_WATCHER_BUFFER_BYTES,
            max_watchers_per_game: DEFAULT_MAX_WATCHERS_PER_GAME,
            max_watchers_per_connection: DEFAULT_MAX_WATCHERS_PER_CONNECTION,
            player_streams: PlayerLimits {
                max_seats: DEFAULT_PLAYER_STREAM_MAX_SEATS,
                max_streams: DEFAULT_MAX_PLAYER_STREAMS,
                max_per_player: DEFAULT_MAX_STREAMS_PER_PLAYER,
            },
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_import_request_bytes: DEFAULT_MAX_IMPORT_REQUEST_BYTES,
            max_in_flight: 1024,
            max_in_flight_per_peer: 256,
            request_timeout: Duration::from_secs(60),
            max_connections: 1000,
            max_connections_per_peer: 100,
            max_streams_per_peer: 200,
            auth_failure_rate: 5,
            auth_failure_burst: 20,
            max_concurrent_streams: 200,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            keepalive_interval: Duration::from_secs(30),
            keepalive_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
            live_games: DEFAULT_LIVE_GAMES,
            live_games_memory: DEFAULT_LIVE_GAMES_MEMORY,
            write_batch_max: DEFAULT_BATCH_MAX,
            tls: None,
            metrics_listen: None,
            web: true,
            cors_allow_origins: None,
            lease_times: LeaseTimes::DEFAULT,
        }
    }

    pub(super) fn connection_limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections,
            max_connections_per_peer: self.max_connections_per_peer,
            max_concurrent_streams: self.max_concurrent_streams,
            handshake_timeout: self.handshake_timeout,
            idle_timeout: self.idle_timeout,
            keepalive_interval: self.keepalive_interval,
            keepalive_timeout: self.keepalive_timeout,
            shutdown_grace: self.shutdown_grace,
        }
    }
}
