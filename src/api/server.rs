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
    tls::{Tls, TlsFiles},
};
use crate::{
    analysis::Analyst,
    games::{Games, SystemTime, TimeSource},
    positions::Positions,
    store::Store,
};

/// Largest request accepted.
const MAX_MESSAGE: usize = 1024 * 1024;
/// Compressed requests accepted (answers go uncompressed: they are small,
/// and compressing them would cost more CPU than the bytes it saves).
pub(super) const REQUEST_COMPRESSION: CompressionEncoding = CompressionEncoding::Gzip;
/// Requests served at once on one connection; more wait.
const MAX_IN_FLIGHT_PER_CONNECTION: usize = 256;
/// Time a client has to complete the TLS handshake.
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// TLS handshakes in progress at once; further connections wait to be
/// accepted.
const MAX_TLS_HANDSHAKES: usize = 512;

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
    /// Serve over TLS with these files (`None`: plaintext).
    pub tls: Option<TlsFiles>,
}

impl ServerConfig {
    /// The defaults `arbiter serve` uses, on the database at `database_url`.
    pub fn new(database_url: impl Into<String>) -> ServerConfig {
        ServerConfig {
            database_url: database_url.into(),
            engine_slots: Analyst::default_slots(),
            time: Arc::new(SystemTime),
            tls: None,
        }
    }
}

/// Serves the API on `listener` until `shutdown` resolves.
///
/// # Errors
///
/// The TLS files are not usable, the database cannot be opened, or the
/// transport fails.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let tls = config.tls.clone().map(Tls::load).transpose()?.map(Arc::new);
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
    let analyst = Analyst::new(config.engine_slots);
    let games = Games::new(store.clone(), analyst.clone(), config.time.clone());
    let resumed = games.resume_engines().await?;
    let clocks = games.resume_clocks().await?;
    let (stop_watchers, shutdown_watch) = tokio::sync::watch::channel(false);
    let shutdown = async move {
        shutdown.await;
        let _ = stop_watchers.send(true);
    };
    tracing::info!(%addr, database = %config.database_url, engine_slots = config.engine_slots, resumed_engine_games = resumed, running_clocks = clocks, "arbiter listening");
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let tls_reload = tls.as_ref().map(|tls| tls.watch(shutdown_watch.clone()));
    let router = Server::builder()
        .accept_http1(true)
        .timeout(Duration::from_secs(60))
        .layer(cors)
        .layer(tonic_web::GrpcWebLayer::new())
        .layer(MapResponseBodyLayer::new(SmallFrames::new))
        .layer(MapResponseLayer::new(request_errors::rewrite))
        .concurrency_limit_per_connection(MAX_IN_FLIGHT_PER_CONNECTION)
        // One span per RPC; handlers fill in the game and variant, and the
        // span's close event carries the latency (see `telemetry`).
        .trace_fn(|request| {
            tracing::info_span!(
                "rpc",
                path = %request.uri().path(),
                game_id = tracing::field::Empty,
                variant = tracing::field::Empty,
            )
        })
        .add_service(requests!(health))
        .add_service(requests!(reflection_v1))
        .add_service(requests!(reflection_v1alpha))
        .add_service(RulesRoutes::new(MAX_MESSAGE))
        .add_service(requests!(PositionsServer::new(PositionsService {
            positions: Positions::new(store.clone()),
        })))
        .add_service(requests!(GamesServer::new(GamesService {
            games,
            shutdown: shutdown_watch,
        })))
        .add_service(requests!(EngineServer::new(EngineService { analyst })));
    match tls {
        None => {
            let incoming = incoming.map(|accepted| accepted.map(Connection::new));
            router
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await?;
        }
        Some(tls) => {
            let incoming = tls.incoming(incoming, MAX_TLS_HANDSHAKES, TLS_HANDSHAKE_TIMEOUT);
            router
                .serve_with_incoming_shutdown(incoming, shutdown)
                .await?;
        }
    }
    if let Some(tls_reload) = tls_reload {
        let _ = tls_reload.await;
    }
    store.close().await;
    Ok(())
}
