//! Building and running the gRPC server.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use http::{HeaderName, Method};
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tonic::{
    codec::CompressionEncoding,
    transport::{Server, server::TcpIncoming},
};
use tower::util::MapResponseLayer;
use tower_http::{
    cors::{AllowOrigin, CorsLayer},
    map_response_body::MapResponseBodyLayer,
};

use super::{
    engine::EngineService,
    games::GamesService,
    legal_moves::RulesRoutes,
    positions::PositionsService,
    proto::{
        self, engine_server::EngineServer, games_server::GamesServer,
        positions_server::PositionsServer, rules_server::RulesServer,
    },
    request_errors,
    rules::RulesService,
    small_frames::SmallFrames,
    socket::Connection,
    watch::{GamesRoutes, Watchers, encode_event},
};
use crate::{
    analysis::{Analyst, Capacity},
    games::{AdminToken, Games, PgnLimits, SystemTime, TimeSource, Watching},
    peers::CreateRate,
    positions::Positions,
    store::Store,
    telemetry::Clipped,
};

/// Largest request accepted.
const MAX_MESSAGE: usize = 1024 * 1024;
/// Compressed requests accepted (answers go uncompressed: they are small,
/// and compressing them would cost more CPU than the bytes it saves).
pub(super) const REQUEST_COMPRESSION: CompressionEncoding = CompressionEncoding::Gzip;
/// Requests served at once on one connection; more wait.
const MAX_IN_FLIGHT_PER_CONNECTION: usize = 256;

/// Default [`ServerConfig::watcher_buffer_bytes`]: 1 MiB, some 30 events
/// of a 200-ply game (about 30 KB each).
pub const DEFAULT_WATCHER_BUFFER_BYTES: usize = 1024 * 1024;
/// Default [`ServerConfig::max_watchers_per_game`].
pub const DEFAULT_MAX_WATCHERS_PER_GAME: usize = 1000;
/// Default [`ServerConfig::max_watchers_per_connection`].
pub const DEFAULT_MAX_WATCHERS_PER_CONNECTION: usize = 100;

/// A generated service taking the requests every service takes: up to
/// [`MAX_MESSAGE`] bytes, plain or gzip (`RulesRoutes` sets the same).
macro_rules! requests {
    ($service:expr) => {
        $service
            .max_decoding_message_size(MAX_MESSAGE)
            .accept_compressed(REQUEST_COMPRESSION)
    };
}

/// What `serve` needs.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub database_url: String,
    /// Engine searches run at once.
    pub engine_slots: usize,
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
    /// Engine searches for engine seats run at once (the Engine RPCs cannot
    /// take these).
    pub engine_seat_slots: usize,
    /// Engine RPCs one peer address may run at once (0: no limit).
    pub max_analyses_per_peer: usize,
    /// Games and positions one peer address may create a second, after
    /// `create_burst` (0: no limit).
    pub create_rate: u32,
    pub create_burst: u32,
    /// Encoded bytes a watcher may fall behind by before it is ended with
    /// `WATCHER_TOO_SLOW`; also the most a game's backlog holds.
    pub watcher_buffer_bytes: usize,
    /// Watchers one game may have at once.
    pub max_watchers_per_game: usize,
    /// Watch streams one connection may have open at once.
    pub max_watchers_per_connection: usize,
}

impl ServerConfig {
    /// The defaults `arbiter serve` uses, on the database at `database_url`.
    pub fn new(database_url: impl Into<String>) -> ServerConfig {
        ServerConfig {
            database_url: database_url.into(),
            engine_slots: Analyst::default_slots(),
            time: Arc::new(SystemTime),
            admin_token: None,
            import_max_moves: PgnLimits::DEFAULT.moves,
            import_max_tokens: PgnLimits::DEFAULT.tokens,
            engine_seat_slots: 1,
            max_analyses_per_peer: 1,
            create_rate: 20,
            create_burst: 100,
            watcher_buffer_bytes: DEFAULT_WATCHER_BUFFER_BYTES,
            max_watchers_per_game: DEFAULT_MAX_WATCHERS_PER_GAME,
            max_watchers_per_connection: DEFAULT_MAX_WATCHERS_PER_CONNECTION,
        }
    }
}

/// Serves the API on `listener` until `shutdown` resolves.
///
/// # Errors
///
/// The database cannot be opened, or the transport fails.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let store = Store::connect(&config.database_url).await?;
    let addr: SocketAddr = listener.local_addr()?;
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
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::mirror_request())
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
        seat_slots: config.engine_seat_slots,
        per_peer: config.max_analyses_per_peer,
    });
    let creates = CreateRate::new(config.create_rate, config.create_burst).map(Arc::new);
    let watching = Watching {
        buffer_bytes: config.watcher_buffer_bytes,
        max_per_game: config.max_watchers_per_game,
        encode: encode_event,
    };
    let games = Games::new(
        store.clone(),
        analyst.clone(),
        config.time.clone(),
        watching,
    )
    .with_admin_token(config.admin_token.clone())
    .with_import_limits(PgnLimits {
        moves: config.import_max_moves,
        tokens: config.import_max_tokens,
    });
    let resumed = games.resume_engines().await?;
    let clocks = games.resume_clocks().await?;
    let (stop_watchers, shutdown_watch) = tokio::sync::watch::channel(false);
    let shutdown = async move {
        shutdown.await;
        let _ = stop_watchers.send(true);
    };
    tracing::info!(%addr, database = %config.database_url, engine_slots = config.engine_slots, resumed_engine_games = resumed, running_clocks = clocks, "arbiter listening");
    let incoming = TcpIncoming::from(listener)
        .with_nodelay(Some(true))
        .map(|accepted| accepted.map(Connection::new));
    Server::builder()
        .accept_http1(true)
        .timeout(Duration::from_secs(60))
        .layer(cors)
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(MapResponseBodyLayer::new(SmallFrames::new))
        .layer(MapResponseLayer::new(request_errors::rewrite))
        .concurrency_limit_per_connection(MAX_IN_FLIGHT_PER_CONNECTION)
        // One span per RPC; handlers fill in the game (or position) and
        // variant, and the span's close event carries the latency (see
        // `telemetry`). The path is the client's: logged cut short.
        .trace_fn(|request| {
            tracing::info_span!(
                "rpc",
                path = %Clipped(request.uri().path()),
                game_id = tracing::field::Empty,
                variant = tracing::field::Empty,
                position_id = tracing::field::Empty,
            )
        })
        .add_service(requests!(health))
        .add_service(requests!(reflection_v1))
        .add_service(requests!(reflection_v1alpha))
        .add_service(RulesRoutes::new(MAX_MESSAGE))
        .add_service(requests!(PositionsServer::new(PositionsService {
            positions: Positions::new(store.clone()).with_admin_token(config.admin_token.clone()),
            creates: creates.clone(),
        })))
        .add_service(GamesRoutes::new(
            Watchers::new(games, shutdown_watch, config.max_watchers_per_connection),
            creates,
            MAX_MESSAGE,
        ))
        .add_service(requests!(EngineServer::new(EngineService { analyst })))
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await?;
    store_health.abort();
    store.close().await;
    Ok(())
}
