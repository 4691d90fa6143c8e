//! `arbiter serve`: its options, and the process that runs the server
//! until a signal stops it.

mod engine_flags;
mod imports;
mod live;

use std::{path::PathBuf, process::ExitCode, time::Duration};

use engine_flags::{engine_option, game_engine};
use http::{HeaderValue, Uri};
use imports::ImportArgs;
use live::LiveArgs;

use crate::{
    analysis::{
        Analyst,
        external::{UciEngine, UciEngines},
    },
    api::{
        DEFAULT_MAX_PLAYER_STREAMS, DEFAULT_MAX_STREAMS_PER_PLAYER,
        DEFAULT_PLAYER_STREAM_MAX_SEATS, PlayerLimits,
    },
    games::{AdminToken, DEFAULT_CHAT_LINES, LeaseTimes},
    lichess::{DEFAULT_LICHESS_BURST, DEFAULT_LICHESS_RATE},
    players::{
        DEFAULT_MAX_CHALLENGES_PER_PLAYER, DEFAULT_MAX_PLAYER_TOKENS, DEFAULT_MAX_SEEKS_PER_PLAYER,
        Enrolment, JwksSource, JwtSettings,
    },
    rules::{Ranks, Variant},
    server::{
        DEFAULT_ENGINE_QUEUE, DEFAULT_MAX_IMPORT_REQUEST_BYTES, DEFAULT_MAX_REQUEST_BYTES,
        DEFAULT_MAX_RESUMES_PER_PEER, DEFAULT_MAX_WATCHERS_PER_CONNECTION,
        DEFAULT_MAX_WATCHERS_PER_GAME, DEFAULT_UCI_ENGINE_PROCESSES, DEFAULT_WATCHER_BUFFER_BYTES,
        ServerConfig, TlsFiles, memory, serve,
        telemetry::{self, LogFormat},
    },
    store::DEFAULT_BATCH_MAX,
};

/// `arbiter serve`'s options (`docs/operations.md`: the options table and
/// "Limits and protection").
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "ARBITER_LISTEN", default_value = "127.0.0.1:50051")]
    listen: String,
    /// Database URL: SQLite (`sqlite://FILE`, the file created if
    /// missing) or PostgreSQL (`postgres://USER@HOST/DB`, several
    /// servers may share one).
    #[arg(
        long,
        env = "ARBITER_DATABASE_URL",
        default_value = "sqlite://arbiter.db"
    )]
    database_url: String,
    /// Log format.
    #[arg(long, env = "ARBITER_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
    /// Log lines queued for stdout at most; past that, lines are dropped
    /// (and counted) rather than a request waiting for a stalled stdout.
    #[arg(long, env = "ARBITER_LOG_BUFFER_LINES", default_value_t = telemetry::DEFAULT_LOG_BUFFER_LINES as u32, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    log_buffer_lines: u32,
    /// Engine searches run at once for the Engine RPCs (BestMove,
    /// Analyze); default: one fewer than the CPU cores, at least 1.
    #[arg(long, env = "ARBITER_ENGINE_SLOTS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    engine_slots: Option<u16>,
    /// Engine RPCs that may wait for a slot beyond --engine-slots, taking
    /// turns with the searches running (0: refused at once with
    /// ENGINE_BUSY when every slot is taken).
    #[arg(long, env = "ARBITER_ENGINE_QUEUE", default_value_t = DEFAULT_ENGINE_QUEUE as u16, value_parser = clap::value_parser!(u16).range(0..=256))]
    engine_queue: u16,
    /// The longest an Engine RPC waits for its first turn (its gRPC
    /// deadline too bounds the wait); then ENGINE_BUSY.
    #[arg(long, env = "ARBITER_ENGINE_QUEUE_WAIT", default_value = "10s", value_parser = duration)]
    engine_queue_wait: Duration,
    /// An external UCI engine that answers BestMove and Analyze for a
    /// game, as GAME=PATH (`chess=/usr/games/stockfish`,
    /// `xiangqi=/usr/games/fairy-stockfish`, `atomic=/usr/games/fairy-stockfish`
    /// for a Lichess variant, set with `UCI_Variant`); repeat for each game.
    /// Default: Arbiter's own engine for every game.
    #[arg(long = "uci-engine", env = "ARBITER_UCI_ENGINE", value_delimiter = ',', value_parser = game_engine)]
    uci_engines: Vec<(Variant, PathBuf)>,
    /// An option of a game's external engine, as GAME:NAME=VALUE
    /// (`xiangqi:Threads=1`, `chess:Hash=64`), set after its handshake;
    /// repeatable.
    #[arg(long = "uci-engine-option", env = "ARBITER_UCI_ENGINE_OPTION", value_delimiter = ',', value_parser = engine_option, requires = "uci_engines")]
    uci_engine_options: Vec<(Variant, String, String)>,
    /// How the xiangqi engine's moves number the ranks: `auto` (1-10 for
    /// Fairy-Stockfish, known by its `id name`; 0-9 for any other), `0-9`
    /// (Pikafish, ICCS) or `1-10`.
    #[arg(
        long,
        env = "ARBITER_UCI_XIANGQI_RANKS",
        value_enum,
        default_value = "auto"
    )]
    uci_xiangqi_ranks: XiangqiRanks,
    /// Processes of each game's external engine at once: as many searches
    /// of that game at once.
    #[arg(long, env = "ARBITER_UCI_ENGINE_PROCESSES", default_value_t = DEFAULT_UCI_ENGINE_PROCESSES as u16, value_parser = clap::value_parser!(u16).range(1..=64))]
    uci_engine_processes: u16,
    /// The operator credential (at least 16 characters): as a seat
    /// token, Abort ends any ongoing game; as an owner token,
    /// DeletePosition deletes any position. Default: none.
    #[arg(long, env = "ARBITER_ADMIN_TOKEN", hide_env_values = true, value_parser = AdminToken::new)]
    admin_token: Option<AdminToken>,
    /// A file holding the service credential (at least 16 characters, hard
    /// to guess): a trusted backend's bearer token that acts for the
    /// player named in `arbiter-player` metadata and for nothing else (not
    /// the operator's). Default: none.
    #[arg(long, env = "ARBITER_SERVICE_CREDENTIAL_FILE", value_parser = credential_file)]
    service_credential_file: Option<AdminToken>,
    /// Who may create players (Players.CreatePlayer): `open` (anyone,
    /// within --create-rate) or `operator` (only with the operator
    /// credential, for a platform that creates its users' players).
    #[arg(long = "players", env = "ARBITER_PLAYERS", default_value = "open")]
    enrolment: Enrolment,
    /// Tokens a player may hold at once (one per device, say); past them
    /// CreatePlayerToken is refused with TOO_MANY_PLAYER_TOKENS.
    #[arg(long, env = "ARBITER_MAX_PLAYER_TOKENS", default_value_t = DEFAULT_MAX_PLAYER_TOKENS as u16, value_parser = clap::value_parser!(u16).range(1..))]
    max_player_tokens: u16,
    /// The platform identity provider's JWKS (a file or an http(s) URL,
    /// read again every --auth-jwks-refresh and when a token names a key id
    /// it lacks): its JWTs (RS256, ES256, EdDSA) name players by their
    /// `sub`, beside Arbiter's own player tokens.
    #[arg(long, env = "ARBITER_AUTH_JWKS")]
    auth_jwks: Option<JwksSource>,
    /// The `iss` a JWT must have (default: any).
    #[arg(long, env = "ARBITER_AUTH_ISSUER", requires = "auth_jwks")]
    auth_issuer: Option<String>,
    /// An `aud` a JWT must have (default: any).
    #[arg(long, env = "ARBITER_AUTH_AUDIENCE", requires = "auth_jwks")]
    auth_audience: Option<String>,
    /// The JWT claim holding a player's display name.
    #[arg(long, env = "ARBITER_AUTH_NAME_CLAIM", default_value = "name")]
    auth_name_claim: String,
    /// The JWT claim holding the username a new player of the identity
    /// provider's takes, when it is a free Lichess-style username (else
    /// the subject, else a name made from it).
    #[arg(
        long,
        env = "ARBITER_AUTH_USERNAME_CLAIM",
        default_value = "preferred_username"
    )]
    auth_username_claim: String,
    /// How often the JWKS is read again (also on a token naming a key id
    /// it lacks, at most every 10 s).
    #[arg(long, env = "ARBITER_AUTH_JWKS_REFRESH", default_value = "5m", value_parser = duration)]
    auth_jwks_refresh: Duration,
    /// How long a challenge waits for an answer before it expires.
    #[arg(long, env = "ARBITER_CHALLENGE_EXPIRY", default_value = "30m", value_parser = duration)]
    challenge_expiry: Duration,
    /// Challenges a player may have waiting for an answer at once; past
    /// them CreateChallenge is refused with TOO_MANY_CHALLENGES.
    #[arg(long, env = "ARBITER_MAX_CHALLENGES_PER_PLAYER", default_value_t = DEFAULT_MAX_CHALLENGES_PER_PLAYER as u16, value_parser = clap::value_parser!(u16).range(1..))]
    max_challenges_per_player: u16,
    /// Seeks a player may have open at once (real-time and
    /// correspondence); past them Seek is refused with TOO_MANY_SEEKS.
    #[arg(long, env = "ARBITER_MAX_SEEKS_PER_PLAYER", default_value_t = DEFAULT_MAX_SEEKS_PER_PLAYER as u16, value_parser = clap::value_parser!(u16).range(1..))]
    max_seeks_per_player: u16,
    /// How often the pairing pool pairs open seeks (and the lobby's
    /// streams are brought up to date); a seek also wakes it at once.
    #[arg(long, env = "ARBITER_PAIRING_INTERVAL", default_value = "1s", value_parser = duration)]
    pairing_interval: Duration,
    /// How long a player's events (games started and ended, challenges)
    /// are kept for a WatchEvents stream to resume from; an older cursor
    /// is refused with EVENTS_EXPIRED.
    #[arg(long, env = "ARBITER_PLAYER_EVENTS_RETENTION", default_value = "168h", value_parser = duration)]
    player_events_retention: Duration,
    #[command(flatten)]
    imports: ImportArgs,
    #[command(flatten)]
    live: LiveArgs,
    /// How long a seat left open (CreateGame's `open`) waits for a player;
    /// then its game is aborted (unjoined).
    #[arg(long, env = "ARBITER_OPEN_SEAT_TIMEOUT", default_value = "1h", value_parser = duration)]
    open_seat_timeout: Duration,
    /// Lines a game's chat keeps (both rooms together): the oldest go as
    /// new ones come.
    #[arg(long, env = "ARBITER_CHAT_LINES", default_value_t = DEFAULT_CHAT_LINES, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    chat_lines: u32,
    /// How long a player must be away from a timed game (no game stream of
    /// theirs open, nothing happening in it) before the opponent may claim
    /// it (Lichess's `claim-victory`, Games.ClaimVictory).
    #[arg(long, env = "ARBITER_CLAIM_VICTORY_AFTER", default_value = "30s", value_parser = duration)]
    claim_victory_after: Duration,
    /// Engine searches run at once for engine seats, beside and apart
    /// from --engine-slots (the Engine RPCs cannot take these).
    #[arg(long, env = "ARBITER_ENGINE_SEAT_SLOTS", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    engine_seat_slots: u16,
    /// BestMove and Analyze calls one peer address may run at once
    /// (0: no limit).
    #[arg(long, env = "ARBITER_MAX_ANALYSES_PER_PEER", default_value_t = 1)]
    max_analyses_per_peer: u16,
    /// WatchGame resumes (`from_version`) one peer address may have
    /// telling their past events at once; more are refused with
    /// RESUME_LIMIT (0: no limit).
    #[arg(long, env = "ARBITER_MAX_RESUMES_PER_PEER", default_value_t = DEFAULT_MAX_RESUMES_PER_PEER as u16)]
    max_resumes_per_peer: u16,
    /// Calls that create a game, a position or a player (CreateGame,
    /// ImportGame, JoinGame, OfferRematch, an accepting RespondToRematch,
    /// CreatePosition, CreatePlayer, CreateChallenge) one peer address may
    /// make a second, after a burst
    /// of --create-burst (0: no limit, for trusted deployments).
    #[arg(long, env = "ARBITER_CREATE_RATE", default_value_t = 20)]
    create_rate: u32,
    /// Creating calls one peer address may make at once before
    /// --create-rate applies.
    #[arg(long, env = "ARBITER_CREATE_BURST", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    create_burst: u32,
    /// Lichess API calls other than moves one player token (or, without
    /// one, one peer address) may make a second, after a burst of
    /// --lichess-burst; past it, 429 with Retry-After (0: no limit).
    /// Moves are never limited.
    #[arg(long, env = "ARBITER_LICHESS_RATE", default_value_t = DEFAULT_LICHESS_RATE)]
    lichess_rate: u32,
    /// Lichess API calls one token may make at once before
    /// --lichess-rate applies.
    #[arg(long, env = "ARBITER_LICHESS_BURST", default_value_t = DEFAULT_LICHESS_BURST, value_parser = clap::value_parser!(u32).range(1..))]
    lichess_burst: u32,
    /// Bytes of events a watcher may fall behind by before its stream
    /// ends with WATCHER_TOO_SLOW (it may watch again); also the most a
    /// watched game's backlog holds.
    #[arg(long, env = "ARBITER_WATCHER_BUFFER_BYTES", default_value_t = DEFAULT_WATCHER_BUFFER_BYTES as u64, value_parser = clap::value_parser!(u64).range(1024..=1 << 30))]
    watcher_buffer_bytes: u64,
    /// Watchers one game may have at once.
    #[arg(long, env = "ARBITER_MAX_WATCHERS_PER_GAME", default_value_t = DEFAULT_MAX_WATCHERS_PER_GAME as u32, value_parser = clap::value_parser!(u32).range(1..))]
    max_watchers_per_game: u32,
    /// WatchGame and WatchPlayer streams one connection may have open at
    /// once.
    #[arg(long, env = "ARBITER_MAX_WATCHERS_PER_CONNECTION", default_value_t = DEFAULT_MAX_WATCHERS_PER_CONNECTION as u32, value_parser = clap::value_parser!(u32).range(1..))]
    max_watchers_per_connection: u32,
    /// Seats one WatchPlayer stream may follow (each is one of its game's
    /// watchers).
    #[arg(long, env = "ARBITER_PLAYER_STREAM_MAX_SEATS", default_value_t = DEFAULT_PLAYER_STREAM_MAX_SEATS as u32, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    player_stream_max_seats: u32,
    /// WatchPlayer streams open at once on this server.
    #[arg(long, env = "ARBITER_MAX_PLAYER_STREAMS", default_value_t = DEFAULT_MAX_PLAYER_STREAMS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    max_player_streams: u32,
    /// WatchEvents streams one player may have open at once (one a
    /// device); past them TOO_MANY_WATCHERS (cap `player`).
    #[arg(long, env = "ARBITER_MAX_STREAMS_PER_PLAYER", default_value_t = DEFAULT_MAX_STREAMS_PER_PLAYER as u32, value_parser = clap::value_parser!(u32).range(1..=1000))]
    max_streams_per_player: u32,
    /// Largest request message of every method but ImportGame, in bytes
    /// after decompression.
    #[arg(long, env = "ARBITER_MAX_REQUEST_BYTES", default_value_t = DEFAULT_MAX_REQUEST_BYTES, value_parser = bytes)]
    max_request_bytes: usize,
    /// Largest ImportGame request message (its PGN), in bytes after
    /// decompression.
    #[arg(long, env = "ARBITER_MAX_IMPORT_REQUEST_BYTES", default_value_t = DEFAULT_MAX_IMPORT_REQUEST_BYTES, value_parser = bytes)]
    max_import_request_bytes: usize,
    /// Requests served at once across the server; more are refused with
    /// SERVER_BUSY.
    #[arg(long, env = "ARBITER_MAX_IN_FLIGHT", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_in_flight: u32,
    /// Requests served at once from one address (an IPv6 one by its /64),
    /// a share of --max-in-flight; more are refused with SERVER_BUSY
    /// (0: no share).
    #[arg(long, env = "ARBITER_MAX_IN_FLIGHT_PER_PEER", default_value_t = 256)]
    max_in_flight_per_peer: u32,
    /// Most game changes (moves, offers, ...) committed together in one
    /// transaction: those that queued while the last commit ran.
    #[arg(long, env = "ARBITER_WRITE_BATCH_MAX", default_value_t = DEFAULT_BATCH_MAX as u32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    write_batch_max: u32,
    /// How long a request may wait for its answer (e.g. 60s, 500ms, 5m).
    #[arg(long, env = "ARBITER_REQUEST_TIMEOUT", default_value = "60s", value_parser = duration)]
    request_timeout: Duration,
    /// Connections open at once; more are closed at once.
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: u32,
    /// Connections open at once from one address (an IPv6 one by its
    /// /64), a share of --max-connections; more are refused with
    /// TOO_MANY_CONNECTIONS (0: no share).
    #[arg(long, env = "ARBITER_MAX_CONNECTIONS_PER_PEER", default_value_t = 100)]
    max_connections_per_peer: u32,
    /// WatchGame and WatchPlayer streams open at once from one address,
    /// across its connections; more are refused with TOO_MANY_WATCHERS
    /// (0: no share).
    #[arg(long, env = "ARBITER_MAX_STREAMS_PER_PEER", default_value_t = 200)]
    max_streams_per_peer: u32,
    /// Failed credential checks (unknown seat, owner or operator tokens)
    /// one address may make a second, after --auth-failure-burst; past
    /// that its Games and Positions calls are refused with
    /// CREDENTIAL_CHECKS_LIMITED until a check is due (0: no limit).
    #[arg(long, env = "ARBITER_AUTH_FAILURE_RATE", default_value_t = 5)]
    auth_failure_rate: u32,
    /// Failed credential checks one address may make at once before
    /// --auth-failure-rate applies.
    #[arg(long, env = "ARBITER_AUTH_FAILURE_BURST", default_value_t = 20)]
    auth_failure_burst: u32,
    /// HTTP/2 streams (requests in flight) per connection, advertised
    /// as SETTINGS_MAX_CONCURRENT_STREAMS.
    #[arg(long, env = "ARBITER_MAX_CONCURRENT_STREAMS", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_concurrent_streams: u32,
    /// Time a new connection has to send its HTTP/2 preface or first
    /// HTTP/1.1 request.
    #[arg(long, env = "ARBITER_HANDSHAKE_TIMEOUT", default_value = "10s", value_parser = duration)]
    handshake_timeout: Duration,
    /// Time without a request in flight after which a connection is
    /// closed (an open WatchGame stream is a request in flight).
    #[arg(long, env = "ARBITER_IDLE_TIMEOUT", default_value = "5m", value_parser = duration)]
    idle_timeout: Duration,
    /// Silence after which an HTTP/2 client is pinged.
    #[arg(long, env = "ARBITER_KEEPALIVE_INTERVAL", default_value = "30s", value_parser = duration)]
    keepalive_interval: Duration,
    /// Time a client has to answer a ping before its connection is
    /// closed.
    #[arg(long, env = "ARBITER_KEEPALIVE_TIMEOUT", default_value = "10s", value_parser = duration)]
    keepalive_timeout: Duration,
    /// Time requests in flight get to finish after SIGTERM/SIGINT;
    /// the connections still open then are closed.
    #[arg(long, env = "ARBITER_SHUTDOWN_GRACE", default_value = "10s", value_parser = duration)]
    shutdown_grace: Duration,
    /// Serve over TLS with this certificate chain (PEM, leaf first);
    /// needs --tls-key. Reloaded on SIGHUP and when the file changes.
    #[arg(long, env = "ARBITER_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The TLS certificate's private key (PEM); needs --tls-cert.
    #[arg(long, env = "ARBITER_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Mutual TLS: accept only clients with a certificate signed by a CA
    /// in this file (PEM); needs --tls-cert.
    #[arg(long, env = "ARBITER_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// Serve Prometheus metrics (GET /metrics, plain HTTP) on this
    /// address, a port apart from --listen. Default: none.
    #[arg(long, env = "ARBITER_METRICS_LISTEN")]
    metrics_listen: Option<String>,
    /// Do not serve the web app built into the binary (GET / and its
    /// assets): the port then answers gRPC and grpc-web only. The
    /// variable takes true/false, 1/0, yes/no, on/off.
    #[arg(long, env = "ARBITER_NO_WEB", value_parser = clap::builder::BoolishValueParser::new())]
    no_web: bool,
    /// The origins whose pages may call the API with grpc-web, as
    /// `https://example.org` (scheme, host, port), comma-separated. Default:
    /// any origin; the web app served here needs none (it is the API's own
    /// origin).
    #[arg(long, env = "ARBITER_CORS_ALLOW_ORIGINS", value_delimiter = ',', value_parser = origin)]
    cors_allow_origins: Option<Vec<HeaderValue>>,
    /// Replicas on one PostgreSQL database: how long a lease on a shard
    /// of games (its flag timers and engine seats) lasts unrenewed; a
    /// dead replica's games are taken over within this and
    /// --lease-renew-interval.
    #[arg(long, env = "ARBITER_LEASE_DURATION", default_value = "5s", value_parser = duration)]
    lease_duration: Duration,
    /// How often a replica renews its leases and claims expired ones; at
    /// most half of --lease-duration.
    #[arg(long, env = "ARBITER_LEASE_RENEW_INTERVAL", default_value = "1s", value_parser = duration)]
    lease_renew_interval: Duration,
}

/// `--uci-xiangqi-ranks`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum XiangqiRanks {
    Auto,
    #[value(name = "0-9")]
    FromZero,
    #[value(name = "1-10")]
    FromOne,
}

impl ServeArgs {
    /// The external engines these options name.
    fn external_engines(&self) -> UciEngines {
        let ranks = match self.uci_xiangqi_ranks {
            XiangqiRanks::Auto => None,
            XiangqiRanks::FromZero => Some(Ranks::AsRules),
            XiangqiRanks::FromOne => Some(Ranks::FromOne),
        };
        // The last one named for a game.
        let engine = |variant| {
            let (_, path) = self.uci_engines.iter().rev().find(|(v, _)| *v == variant)?;
            Some(UciEngine {
                path: path.clone(),
                options: self
                    .uci_engine_options
                    .iter()
                    .filter(|(v, _, _)| *v == variant)
                    .map(|(_, name, value)| (name.clone(), value.clone()))
                    .collect(),
                ranks: (variant == Variant::Xiangqi).then_some(ranks).flatten(),
            })
        };
        UciEngines {
            chess: engine(Variant::Chess),
            xiangqi: engine(Variant::Xiangqi),
            variants: Variant::ALL
                .into_iter()
                .filter(|v| v.is_chess_variant())
                .filter_map(|v| Some((v, engine(v)?)))
                .collect(),
            processes: usize::from(self.uci_engine_processes),
        }
    }

    /// The server's configuration from these options.
    fn config(self) -> ServerConfig {
        let uci_engines = self.external_engines();
        let ServeArgs {
            database_url,
            engine_slots,
            engine_queue,
            engine_queue_wait,
            admin_token,
            service_credential_file,
            enrolment,
            max_player_tokens,
            challenge_expiry,
            max_challenges_per_player,
            max_seeks_per_player,
            pairing_interval,
            player_events_retention,
            auth_jwks,
            auth_issuer,
            auth_audience,
            auth_name_claim,
            auth_username_claim,
            auth_jwks_refresh,
            imports,
            live,
            open_seat_timeout,
            chat_lines,
            claim_victory_after,
            engine_seat_slots,
            max_analyses_per_peer,
            max_resumes_per_peer,
            create_rate,
            create_burst,
            lichess_rate,
            lichess_burst,
            watcher_buffer_bytes,
            max_watchers_per_game,
            max_watchers_per_connection,
            player_stream_max_seats,
            max_player_streams,
            max_streams_per_player,
            max_request_bytes,
            max_import_request_bytes,
            max_in_flight,
            max_in_flight_per_peer,
            write_batch_max,
            request_timeout,
            max_connections,
            max_connections_per_peer,
            max_streams_per_peer,
            auth_failure_rate,
            auth_failure_burst,
            max_concurrent_streams,
            handshake_timeout,
            idle_timeout,
            keepalive_interval,
            keepalive_timeout,
            shutdown_grace,
            tls_cert,
            tls_key,
            tls_client_ca,
            metrics_listen,
            no_web,
            cors_allow_origins,
            lease_duration,
            lease_renew_interval,
            uci_engines: _,
            uci_engine_options: _,
            uci_xiangqi_ranks: _,
            uci_engine_processes: _,
            listen: _,
            log_format: _,
            log_buffer_lines: _,
        } = self;
        live.apply(imports.apply(ServerConfig {
            engine_slots: engine_slots.map_or_else(Analyst::default_slots, usize::from),
            engine_queue: usize::from(engine_queue),
            engine_queue_wait,
            uci_engines,
            admin_token,
            service_credential: service_credential_file,
            enrolment,
            max_player_tokens: usize::from(max_player_tokens),
            jwt: auth_jwks.map(|jwks| JwtSettings {
                jwks,
                issuer: auth_issuer,
                audience: auth_audience,
                name_claim: auth_name_claim,
                username_claim: auth_username_claim,
                refresh: auth_jwks_refresh,
            }),
            challenge_expiry,
            max_challenges_per_player: usize::from(max_challenges_per_player),
            max_seeks_per_player: usize::from(max_seeks_per_player),
            pairing_interval,
            player_events_retention,
            open_seat_timeout,
            chat_lines,
            claim_victory_after,
            engine_seat_slots: usize::from(engine_seat_slots),
            max_analyses_per_peer: usize::from(max_analyses_per_peer),
            max_resumes_per_peer: usize::from(max_resumes_per_peer),
            create_rate,
            create_burst,
            lichess_rate,
            lichess_burst,
            watcher_buffer_bytes: watcher_buffer_bytes as usize,
            max_watchers_per_game: max_watchers_per_game as usize,
            max_watchers_per_connection: max_watchers_per_connection as usize,
            player_streams: PlayerLimits {
                max_seats: player_stream_max_seats as usize,
                max_streams: max_player_streams as usize,
                max_per_player: max_streams_per_player as usize,
            },
            max_request_bytes,
            max_import_request_bytes,
            max_in_flight: max_in_flight as usize,
            max_in_flight_per_peer: max_in_flight_per_peer as usize,
            write_batch_max: write_batch_max as usize,
            request_timeout,
            max_connections: max_connections as usize,
            max_connections_per_peer: max_connections_per_peer as usize,
            max_streams_per_peer: max_streams_per_peer as usize,
            auth_failure_rate,
            auth_failure_burst,
            max_concurrent_streams,
            handshake_timeout,
            idle_timeout,
            keepalive_interval,
            keepalive_timeout,
            shutdown_grace,
            tls: tls_cert.zip(tls_key).map(|(cert, key)| TlsFiles {
                cert,
                key,
                client_ca: tls_client_ca,
            }),
            metrics_listen,
            web: !no_web,
            cors_allow_origins,
            lease_times: LeaseTimes {
                duration: lease_duration,
                renew_every: lease_renew_interval,
            },
            ..ServerConfig::new(database_url)
        }))
    }
}

/// Runs the server `args` describe, logging as they say, until SIGINT or
/// SIGTERM.
pub(super) fn run(args: ServeArgs) -> ExitCode {
    let _logs = telemetry::init(args.log_format, args.log_buffer_lines as usize);
    let listen = args.listen.clone();
    run_server(&listen, args.config())
}

/// A duration on the command line: a number with `ms`, `s`, `m` or `h`
/// (`500ms`, `10s`, `5m`), or seconds alone; at least 1 ms.
fn duration(text: &str) -> Result<Duration, String> {
    let (n, unit) = live::number_and_unit(text)
        .ok_or_else(|| format!("{text:?} is not a duration (e.g. 500ms, 10s, 5m)"))?;
    let n = n as u64;
    let ms = match unit {
        "ms" => Some(n),
        "" | "s" => n.checked_mul(1_000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => return Err(format!("{text:?}: the unit is one of ms, s, m, h")),
    };
    match ms {
        Some(0) => Err("a duration of at least 1ms".to_owned()),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Err(format!("{text:?} is too long")),
    }
}

/// `--service-credential-file`: the credential the file holds (its
/// surrounding whitespace, a final newline say, left out).
fn credential_file(text: &str) -> Result<AdminToken, String> {
    let held = std::fs::read_to_string(text).map_err(|e| format!("{text}: {e}"))?;
    AdminToken::new(held.trim()).map_err(|e| format!("{text}: {e}"))
}

/// A web origin on the command line, as browsers send it in `Origin`:
/// `http` or `https`, a host and perhaps a port, nothing after (a `/`
/// alone is dropped).
fn origin(text: &str) -> Result<HeaderValue, String> {
    let bad =
        || format!("{text:?} is not an origin (e.g. https://example.org, http://localhost:5173)");
    let trimmed = text.trim().trim_end_matches('/');
    let uri: Uri = trimmed.parse().map_err(|_| bad())?;
    let web_scheme = matches!(uri.scheme_str(), Some("http" | "https"));
    let bare = uri.authority().is_some_and(|a| !a.as_str().contains('@'))
        && uri
            .path_and_query()
            .is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/");
    if !web_scheme || !bare {
        return Err(bad());
    }
    HeaderValue::from_str(&trimmed.to_ascii_lowercase()).map_err(|_| bad())
}

/// A size in bytes on the command line: a number, or with `KiB` or `MiB`;
/// from 1 KiB to 64 MiB.
fn bytes(text: &str) -> Result<usize, String> {
    let (n, unit) = live::number_and_unit(text)
        .ok_or_else(|| format!("{text:?} is not a size (e.g. 65536, 64KiB, 1MiB)"))?;
    let size = match unit {
        "" => Some(n),
        "KiB" => n.checked_mul(1024),
        "MiB" => n.checked_mul(1024 * 1024),
        _ => {
            return Err(format!(
                "{text:?}: the unit is KiB or MiB, or none for bytes"
            ));
        }
    };
    size.filter(|size| (1024..=64 * 1024 * 1024).contains(size))
        .ok_or_else(|| format!("{text:?}: a size from 1KiB to 64MiB"))
}

fn run_server(listen: &str, config: ServerConfig) -> ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(memory::on_park)
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(listen).await {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!("error: cannot listen on {listen}: {err}");
                return ExitCode::FAILURE;
            }
        };
        match serve(config, listener, shutdown_signal()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => return interrupt.await.unwrap_or(()),
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
    tracing::info!("shutting down");
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    #[test]
    fn reads_durations_and_sizes() {
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "0s", "s", "1.5s", "-1s", "10 s", "3d"] {
            assert!(duration(bad).is_err(), "{bad:?}");
        }
        assert_eq!(bytes("65536"), Ok(65536));
        assert_eq!(bytes("64KiB"), Ok(65536));
        assert_eq!(bytes("1MiB"), Ok(1 << 20));
        for bad in ["", "100", "1GiB", "65MiB", "1kb"] {
            assert!(bytes(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn engine_flags_name_chess_or_xiangqi() {
        assert_eq!(
            game_engine("chess=/usr/games/stockfish"),
            Ok((Variant::Chess, PathBuf::from("/usr/games/stockfish")))
        );
        let refused = game_engine("chess960=/usr/games/stockfish").unwrap_err();
        assert!(refused.contains("name it as chess"), "{refused}");
        assert!(engine_option("chess960:Hash=64").is_err());
        assert!(game_engine("shogi=/bin/true").is_err());
    }

    #[test]
    fn reads_origins() {
        assert_eq!(
            origin("https://example.org"),
            Ok(HeaderValue::from_static("https://example.org"))
        );
        assert_eq!(
            origin("http://LOCALHOST:5173/"),
            Ok(HeaderValue::from_static("http://localhost:5173"))
        );
        for bad in [
            "",
            "*",
            "example.org",
            "ftp://example.org",
            "https://example.org/app",
            "https://a@example.org",
            "https://example.org?x",
        ] {
            assert!(origin(bad).is_err(), "{bad:?}");
        }
        let origins = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
            Command::Serve(args) => args.config().cors_allow_origins,
            _ => unreachable!("serve"),
        };
        assert_eq!(origins(&["arbiter", "serve"]), None);
        assert_eq!(
            origins(&[
                "arbiter",
                "serve",
                "--cors-allow-origins",
                "https://a.example,http://b.example:8080"
            ]),
            Some(vec![
                HeaderValue::from_static("https://a.example"),
                HeaderValue::from_static("http://b.example:8080")
            ])
        );
    }

    #[test]
    fn reads_the_service_credential_from_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str, held: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, held).unwrap();
            path.display().to_string()
        };
        let strong = "9d41c7e2a6b80f35e1c4a7d29b6f03e8";
        let held = credential_file(&path("strong", &format!("{strong}\n"))).unwrap();
        assert!(held.is(strong), "read without its newline");
        assert!(!held.is("9d41c7e2a6b80f35e1c4a7d29b6f03e9"));
        let weak = credential_file(&path("weak", "passwordpassword")).unwrap_err();
        assert!(weak.contains("too easy to guess"), "{weak}");
        let missing = dir.path().join("missing").display().to_string();
        assert!(credential_file(&missing).is_err());
    }

    #[test]
    fn metrics_are_off_unless_asked_for() {
        let metrics_listen = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
            Command::Serve(args) => args.config().metrics_listen,
            _ => unreachable!("serve"),
        };
        assert_eq!(metrics_listen(&["arbiter", "serve"]), None);
        assert_eq!(
            metrics_listen(&["arbiter", "serve", "--metrics-listen", "0.0.0.0:9464"]).as_deref(),
            Some("0.0.0.0:9464")
        );
    }

    #[test]
    fn reads_external_engines() {
        let engines = |args: &[&str]| match Cli::try_parse_from(args) {
            Ok(cli) => match cli.command {
                Command::Serve(args) => Ok(args.config().uci_engines),
                _ => unreachable!("serve"),
            },
            Err(e) => Err(e.kind()),
        };
        let none = engines(&["arbiter", "serve"]).unwrap();
        assert_eq!((none.chess, none.xiangqi, none.processes), (None, None, 1));
        let both = engines(&[
            "arbiter",
            "serve",
            "--uci-engine",
            "chess=/usr/games/stockfish",
            "--uci-engine",
            "xiangqi=/opt/pikafish",
            "--uci-engine-option",
            "xiangqi:Threads=1",
            "--uci-engine-option",
            "xiangqi: Hash = 64",
            "--uci-xiangqi-ranks",
            "0-9",
            "--uci-engine-processes",
            "2",
        ])
        .unwrap();
        let chess = both.chess.unwrap();
        assert_eq!(chess.path, PathBuf::from("/usr/games/stockfish"));
        assert_eq!((chess.options.len(), chess.ranks), (0, None));
        let xiangqi = both.xiangqi.unwrap();
        assert_eq!(
            xiangqi.options,
            [
                ("Threads".to_owned(), "1".to_owned()),
                ("Hash".to_owned(), "64".to_owned())
            ]
        );
        assert_eq!((xiangqi.ranks, both.processes), (Some(Ranks::AsRules), 2));
        for bad in [
            ["--uci-engine", "shogi=/x"],
            ["--uci-engine", "chess"],
            ["--uci-engine", "chess="],
            ["--uci-engine-processes", "0"],
        ] {
            assert!(
                engines(&["arbiter", "serve", bad[0], bad[1]]).is_err(),
                "{bad:?}"
            );
        }
        for bad in ["chess=x", "chess:=1", "chess:Hash\nquit=1", "go:Hash=1"] {
            assert!(engine_option(bad).is_err(), "{bad:?}");
        }
        // Options need an engine.
        assert!(engines(&["arbiter", "serve", "--uci-engine-option", "chess:Hash=1"]).is_err());
    }

    #[test]
    fn the_engine_queue_defaults_are_the_configs() {
        let config = |args: &[&str]| match Cli::try_parse_from(args).unwrap().command {
            Command::Serve(args) => args.config(),
            _ => unreachable!("serve"),
        };
        let defaults = config(&["arbiter", "serve"]);
        assert_eq!(defaults.engine_queue, crate::server::DEFAULT_ENGINE_QUEUE);
        assert_eq!(
            defaults.engine_queue_wait,
            crate::server::DEFAULT_ENGINE_QUEUE_WAIT
        );
        let set = config(&[
            "arbiter",
            "serve",
            "--engine-queue",
            "0",
            "--engine-queue-wait",
            "2s",
        ]);
        assert_eq!(
            (set.engine_queue, set.engine_queue_wait),
            (0, Duration::from_secs(2))
        );
    }
}
