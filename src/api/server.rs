//! Building and running the gRPC server.

use std::{sync::Arc, time::Duration};

use http::{HeaderName, HeaderValue, Method, Request};
use tokio::net::TcpListener;
use tonic::{codec::CompressionEncoding, service::Routes};
use tower::{ServiceBuilder, util::MapResponseLayer};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_service::Service;
use tracing::instrument::{Instrument, Instrumented};

use super::{
    connections::{self, ConnectionLimits},
    credential_checks::{CredentialChecks, CredentialChecksLayer},
    engine::EngineService,
    games::GamesService,
    metrics::{self, Sources},
    player::{DEFAULT_MAX_PLAYER_STREAMS, DEFAULT_PLAYER_STREAM_MAX_SEATS, PlayerLimits},
    positions::PositionsService,
    proto::{
        self, engine_server::EngineServer, games_server::GamesServer,
        positions_server::PositionsServer, rules_server::RulesServer,
    },
    request_errors,
    request_limits::RequestLimitsLayer,
    rpc_outcomes::RpcOutcomes,
    rules::RulesService,
    tls::{Tls, TlsFiles},
    transport::RulesRoutes,
    watch::{GamesRoutes, Watchers, encode_event},
    web::WebApp,
};
use crate::{
    analysis::{Analyst, Capacity},
    games::{
        AdminToken, DEFAULT_LIVE_GAMES, DEFAULT_OPEN_SEAT_TIMEOUT, Games, LeaseTimes, PgnLimits,
        SystemTime, TimeSource, Watching,
    },
    memory,
    peers::PeerRate,
    positions::Positions,
    store::{DEFAULT_BATCH_MAX, Store},
    telemetry::Clipped,
};

/// Largest request of every method but ImportGame by default: a position
/// with a 2,000-move history is about 12 KiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 64 * 1024;
/// Largest ImportGame request by default (its PGN).
pub const DEFAULT_MAX_IMPORT_REQUEST_BYTES: usize = 1024 * 1024;
/// Largest health or reflection request (a service or symbol name).
pub const MAX_SMALL_REQUEST_BYTES: usize = 4 * 1024;
/// Compressed requests accepted (answers go uncompressed: they are small,
/// and compressing them would cost more CPU than the bytes it saves).
pub(super) const REQUEST_COMPRESSION: CompressionEncoding = CompressionEncoding::Gzip;

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
/// Default [`ServerConfig::max_watchers_per_connection`].
pub const DEFAULT_MAX_WATCHERS_PER_CONNECTION: usize = 100;
/// Default [`ServerConfig::max_resumes_per_peer`]: a few pages of one
/// household reconnecting at once after a restart.
pub const DEFAULT_MAX_RESUMES_PER_PEER: usize = 4;

/// A generated service taking requests of up to `$limit` bytes, plain or
/// gzip; tonic checks a message's length before buffering it and stops
/// decompressing at the limit (`RulesRoutes` sets the same).
macro_rules! requests {
    ($service:expr, $limit:expr) => {
        $service
            .max_decoding_message_size($limit)
            .accept_compressed(REQUEST_COMPRESSION)
    };
}

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
    /// The time clocks run on (tests inject a manual one).
    pub time: Arc<dyn TimeSource>,
    /// The operator credential: aborts any game, deletes any saved position
    /// (`None`: there is none).
    pub admin_token: Option<AdminToken>,
    /// Most moves ImportGame reads.
    pub import_max_moves: usize,
    /// Most tokens (tags, move numbers, moves, comments, ...) ImportGame
    /// reads.
    pub import_max_tokens: usize,
    /// How long a seat left open waits for a player before its game is
    /// aborted.
    pub open_seat_timeout: Duration,
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
    /// Games in play kept in memory for their next change.
    pub live_games: usize,
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
            time: Arc::new(SystemTime),
            admin_token: None,
            import_max_moves: PgnLimits::DEFAULT.moves,
            import_max_tokens: PgnLimits::DEFAULT.tokens,
            open_seat_timeout: DEFAULT_OPEN_SEAT_TIMEOUT,
            engine_seat_slots: 1,
            max_analyses_per_peer: 1,
            max_resumes_per_peer: DEFAULT_MAX_RESUMES_PER_PEER,
            create_rate: 20,
            create_burst: 100,
            watcher_buffer_bytes: DEFAULT_WATCHER_BUFFER_BYTES,
            max_watchers_per_game: DEFAULT_MAX_WATCHERS_PER_GAME,
            max_watchers_per_connection: DEFAULT_MAX_WATCHERS_PER_CONNECTION,
            player_streams: PlayerLimits {
                max_seats: DEFAULT_PLAYER_STREAM_MAX_SEATS,
                max_streams: DEFAULT_MAX_PLAYER_STREAMS,
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
            write_batch_max: DEFAULT_BATCH_MAX,
            tls: None,
            metrics_listen: None,
            web: true,
            cors_allow_origins: None,
            lease_times: LeaseTimes::DEFAULT,
        }
    }

    fn connection_limits(&self) -> ConnectionLimits {
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

/// Serves the API on `listener` until `shutdown` resolves.
///
/// # Errors
///
/// The TLS files are not usable, the metrics address cannot be listened
/// on, the database cannot be opened, or the transport fails.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let lease_times = config.lease_times.check()?;
    let tls = config.tls.clone().map(Tls::load).transpose()?.map(Arc::new);
    let metrics_endpoint = match &config.metrics_listen {
        Some(addr) => {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen for metrics on {addr}: {e}"))?;
            Some((listener, metrics::install()?))
        }
        None => None,
    };
    let store = Store::connect(&config.database_url).await?;
    store.set_write_batch_max(config.write_batch_max);
    let addr = listener.local_addr()?;
    let (health_reporter, health) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<RulesServer<RulesService>>()
        .await;
    health_reporter
        .set_serving::<GamesServer<GamesService>>()
        .await;
    health_reporter
        .set_serving::<PositionsServer<PositionsService>>()
        .await;
    health_reporter
        .set_serving::<EngineServer<EngineService>>()
        .await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    // Any origin by default: the API takes no cookies or other ambient
    // credentials (a caller names its seat token in each request), so a
    // page elsewhere can do nothing through a visitor's browser that it
    // could not do from its own server. An operator who wants browsers to
    // reach it only from its own frontend lists the origins.
    let allowed_origins = match config.cors_allow_origins.clone() {
        None => AllowOrigin::mirror_request(),
        Some(origins) => AllowOrigin::list(origins),
    };
    let cors = CorsLayer::new()
        .allow_origin(allowed_origins)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers(tower_http::cors::Any)
        .expose_headers([
            HeaderName::from_static("grpc-status"),
            HeaderName::from_static("grpc-message"),
            HeaderName::from_static("grpc-status-details-bin"),
        ])
        .max_age(Duration::from_secs(3600));
    let store_health = super::health::follow_store(&store, health_reporter);
    let analyst = Analyst::new(Capacity {
        slots: config.engine_slots,
        queue: config.engine_queue,
        max_wait: config.engine_queue_wait,
        seat_slots: config.engine_seat_slots,
        per_peer: config.max_analyses_per_peer,
    });
    let creates = PeerRate::new(config.create_rate, config.create_burst).map(Arc::new);
    let watching = Watching {
        buffer_bytes: config.watcher_buffer_bytes,
        max_per_game: config.max_watchers_per_game,
        encode: encode_event,
    };
    let games = Games::with_live_games(
        store.clone(),
        analyst.clone(),
        config.time.clone(),
        watching,
        config.live_games,
    )
    .with_admin_token(config.admin_token.clone())
    .with_import_limits(PgnLimits {
        moves: config.import_max_moves,
        tokens: config.import_max_tokens,
    })
    .with_open_seat_timeout(config.open_seat_timeout);
    let (resumed, clocks) = games.take_ownership(lease_times).await?;
    let owner = games.clone();
    let metrics_addr = metrics_endpoint
        .as_ref()
        .and_then(|(listener, _)| listener.local_addr().ok());
    let metrics_endpoint = metrics_endpoint.map(|(listener, handle)| {
        let sources = Sources {
            games: games.clone(),
            analyst: analyst.clone(),
            store: store.clone(),
        };
        tokio::spawn(metrics::serve(listener, handle, sources))
    });
    let (stop_watchers, shutdown_watch) = tokio::sync::watch::channel(false);
    let tls_stop = shutdown_watch.clone();
    let purging = tokio::spawn(memory::purge_after_releases(shutdown_watch.clone()));
    let shutdown = async move {
        shutdown.await;
        let _ = stop_watchers.send(true);
    };
    tracing::info!(%addr, metrics = ?metrics_addr, database = %store.url(), engine_slots = config.engine_slots, resumed_engine_games = resumed, running_clocks = clocks, leases = owner.leases_held(), "arbiter listening");
    let routes = Routes::new(requests!(health, MAX_SMALL_REQUEST_BYTES))
        .add_service(requests!(reflection_v1, MAX_SMALL_REQUEST_BYTES))
        .add_service(requests!(reflection_v1alpha, MAX_SMALL_REQUEST_BYTES))
        .add_service(RulesRoutes::new(config.max_request_bytes))
        .add_service(requests!(
            PositionsServer::new(PositionsService {
                positions: Positions::new(store.clone())
                    .with_admin_token(config.admin_token.clone()),
                creates: creates.clone(),
            }),
            config.max_request_bytes
        ))
        .add_service(GamesRoutes::new(
            Watchers::new(
                games,
                shutdown_watch,
                config.max_watchers_per_connection,
                config.max_streams_per_peer,
                config.player_streams,
                config.max_resumes_per_peer,
            ),
            creates,
            config.max_request_bytes,
            config.max_import_request_bytes,
        ))
        .add_service(requests!(
            EngineServer::new(EngineService { analyst }),
            config.max_request_bytes
        ))
        .prepare();
    let service = ServiceBuilder::new()
        // Outermost: a page is no RPC, for the spans, the metrics and the
        // request limits alike.
        .layer_fn(|inner| WebApp::new(inner, config.web))
        .layer_fn(Traced)
        .layer(cors)
        .layer(tonic_web::GrpcWebLayer::new())
        // Inside grpc-web, which turns its calls into plain gRPC ones; the
        // statuses it sees are the final ones.
        .layer_fn(|inner| RpcOutcomes::new(inner, metrics_endpoint.is_some()))
        .layer(MapResponseLayer::new(request_errors::rewrite))
        .layer(RequestLimitsLayer::new(
            config.max_in_flight,
            config.max_in_flight_per_peer,
            config.request_timeout,
        ))
        .layer(CredentialChecksLayer(CredentialChecks::new(
            config.auth_failure_rate,
            config.auth_failure_burst,
        )))
        .service(routes);
    let limits = config.connection_limits();
    match tls {
        None => {
            let plain = |stream| std::future::ready(Ok(stream));
            connections::serve(listener, service, plain, limits, shutdown).await;
        }
        Some(tls) => {
            let reload = tls.watch(tls_stop);
            // The handshake runs in the connection's own task, within its
            // handshake timeout.
            let timeout = limits.handshake_timeout;
            let handshake = move |stream| {
                let tls = Arc::clone(&tls);
                async move { tls.handshake(stream, timeout).await }
            };
            connections::serve(listener, service, handshake, limits, shutdown).await;
            let _ = reload.await;
        }
    }
    let _ = purging.await;
    store_health.abort();
    if let Some(endpoint) = metrics_endpoint {
        endpoint.abort();
    }
    owner.give_up_ownership().await;
    store.close().await;
    Ok(())
}

/// One span per RPC; handlers fill in the game (or position) and variant,
/// and the call's outcome is logged in it (see `rpc_outcomes`).
#[derive(Clone, Debug)]
struct Traced<S>(S);

impl<S, B> Service<Request<B>> for Traced<S>
where
    S: Service<Request<B>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Instrumented<S::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The path is the client's: logged cut short.
        let span = tracing::info_span!(
            "rpc",
            path = %Clipped(request.uri().path()),
            game_id = tracing::field::Empty,
            variant = tracing::field::Empty,
            position_id = tracing::field::Empty,
        );
        // Entered for the inner services' `call` too: the outcome's line
        // is logged in it.
        let answer = span.in_scope(|| self.0.call(request));
        answer.instrument(span)
    }
}
