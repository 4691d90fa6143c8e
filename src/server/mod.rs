//! The server: the process that serves the API. It builds the store, the
//! analyst and the games (the composition root, [`serve`]), and runs the
//! HTTP server in front of the API's services: the accept loop and the
//! limits per connection and per address (`connections`, `socket`), TLS
//! (`tls`), the request layers (`request_limits`, `credential_checks`,
//! `rpc_outcomes`), the web app's files (`web`), the metrics endpoint
//! (`metrics`), health (`health`), and the process's memory and logs
//! (`memory`, `telemetry`).

mod config;
mod connections;
mod credential_checks;
mod health;
pub mod memory;
mod metrics;
mod refusal;
mod request_limits;
mod rpc_outcomes;
mod socket;
pub mod telemetry;
mod tls;
mod web;

use std::{convert::Infallible, sync::Arc, time::Duration};

use http::{HeaderName, Method, Request, Response};
use pin_project_lite::pin_project;
use tokio::net::TcpListener;
use tonic::{body::Body, service::Routes};
use tower::{ServiceBuilder, util::MapResponseLayer};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_service::Service;
use tracing::instrument::{Instrument, Instrumented};

pub use self::{
    config::{
        DEFAULT_ENGINE_QUEUE, DEFAULT_ENGINE_QUEUE_WAIT, DEFAULT_MAX_IMPORT_REQUEST_BYTES,
        DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_RESUMES_PER_PEER,
        DEFAULT_MAX_WATCHERS_PER_CONNECTION, DEFAULT_MAX_WATCHERS_PER_GAME,
        DEFAULT_UCI_ENGINE_PROCESSES, DEFAULT_WATCHER_BUFFER_BYTES, MAX_SMALL_REQUEST_BYTES,
        ServerConfig,
    },
    metrics::{
        CONNECTION_TIME as METRICS_CONNECTION_TIME, MAX_CONNECTIONS as METRICS_MAX_CONNECTIONS,
        MAX_CONNECTIONS_PER_PEER as METRICS_MAX_CONNECTIONS_PER_PEER, MetricsError,
    },
    tls::{FILE_CHECK_INTERVAL, TlsError, TlsFiles},
};
use self::{
    connections::{self as accept},
    credential_checks::{CredentialChecks, CredentialChecksLayer},
    metrics::Sources,
    request_limits::RequestLimitsLayer,
    rpc_outcomes::RpcOutcomes,
    tls::Tls,
    web::WebApp,
};
use crate::{
    analysis::{Analyst, Capacity},
    api::{
        EngineService, GamesRoutes, GamesService, ImportBounds, PlayerStreams, PlayersService,
        PositionsService, REQUEST_COMPRESSION, RulesRoutes, RulesService, Streams, Watchers,
        encode_event,
        proto::{
            self, engine_server::EngineServer, games_server::GamesServer,
            players_server::PlayersServer, positions_server::PositionsServer,
            rules_server::RulesServer,
        },
        rewrite_errors,
    },
    games::{Games, PgnLimits, Watching, positions::Positions},
    lichess::{self, LichessApi},
    peers::PeerRate,
    players::{Challenges, Jwt, Players, Seeks},
    rules::Clipped,
    store::Store,
};

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

/// Serves the API on `listener` until `shutdown` resolves.
///
/// # Errors
///
/// The TLS files are not usable, the metrics address cannot be listened
/// on, the database cannot be opened, an external engine cannot be
/// started, or the transport fails.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let lease_times = config.lease_times.check()?;
    let tls = config.tls.clone().map(Tls::load).transpose()?.map(Arc::new);
    let jwt = match config.jwt.clone() {
        Some(settings) => Some(
            Jwt::load(settings)
                .await
                .map_err(|e| format!("cannot load the identity provider's keys: {e}"))?,
        ),
        None => None,
    };
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
    health_reporter
        .set_serving::<PlayersServer<PlayersService>>()
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
    let store_health = health::follow_store(&store, health_reporter);
    let analyst = Analyst::new(Capacity {
        slots: config.engine_slots,
        queue: config.engine_queue,
        max_wait: config.engine_queue_wait,
        seat_slots: config.engine_seat_slots,
        per_peer: config.max_analyses_per_peer,
    })
    .with_uci_engines(&config.uci_engines);
    analyst.start_uci_engines().await?;
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
        [config.live_games, config.live_games_memory],
    )
    .with_admin_token(config.admin_token.clone())
    .with_import_limits(PgnLimits {
        moves: config.import_max_moves,
        tokens: config.import_max_tokens,
    })
    .with_open_seat_timeout(config.open_seat_timeout)
    .with_chat_lines(config.chat_lines)
    .with_claim_victory_after(config.claim_victory_after);
    let players = Players::new(store.clone())
        .with_jwt(jwt.clone())
        .with_admin_token(config.admin_token.clone())
        .with_service_credential(config.service_credential.clone())
        .with_enrolment(config.enrolment)
        .with_max_tokens(config.max_player_tokens)
        .with_event_retention(config.player_events_retention);
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
    let refreshing = jwt.map(|jwt| jwt.keep_fresh(shutdown_watch.clone()));
    let seeks = Seeks::new(players.clone(), games.clone(), config.time.clone())
        .with_limits(config.max_seeks_per_player, config.pairing_interval);
    let pairing = seeks.clone().keep_pairing(shutdown_watch.clone());
    let pruning = players.clone().keep_pruning_events(shutdown_watch.clone());
    let streams = Arc::new(Streams::new(
        shutdown_watch,
        config.max_watchers_per_connection,
        config.max_streams_per_peer,
        memory::release,
    ));
    let shutdown = async move {
        shutdown.await;
        let _ = stop_watchers.send(true);
    };
    tracing::info!(%addr, metrics = ?metrics_addr, database = %store.url(), engine_slots = config.engine_slots, resumed_engine_games = resumed, running_clocks = clocks, leases = owner.leases_held(), "arbiter listening");
    let player_streams =
        PlayerStreams::new(games.clone(), Arc::clone(&streams), config.player_streams);
    let players_service = Arc::new(PlayersService {
        challenges: Challenges::new(players.clone(), games.clone(), config.time.clone())
            .with_limits(config.challenge_expiry, config.max_challenges_per_player),
        seeks,
        games: games.clone(),
        players: players.clone(),
        creates: creates.clone(),
        streams: player_streams.clone(),
    });
    let games_service = Arc::new(GamesService {
        games: games.clone(),
        creates: creates.clone(),
        watchers: Arc::new(Watchers::new(
            games.clone(),
            Arc::clone(&streams),
            config.max_resumes_per_peer,
        )),
        player_streams,
        players,
        imports: ImportBounds::new(
            config.import_max_games,
            config.import_kib_per_second,
            config.max_import_request_bytes,
        ),
    });
    let lichess_api = LichessApi::new(
        Arc::clone(&players_service),
        Arc::clone(&games_service),
        (config.lichess_rate, config.lichess_burst),
    );
    let routes = Routes::new(requests!(health, MAX_SMALL_REQUEST_BYTES))
        .add_service(requests!(reflection_v1, MAX_SMALL_REQUEST_BYTES))
        .add_service(requests!(reflection_v1alpha, MAX_SMALL_REQUEST_BYTES))
        .add_service(RulesRoutes::new(config.max_request_bytes))
        .add_service(requests!(
            PositionsServer::new(PositionsService {
                positions: Positions::new(store.clone())
                    .with_admin_token(config.admin_token.clone()),
                creates,
            }),
            config.max_request_bytes
        ))
        .add_service(requests!(
            PlayersServer::from_arc(Arc::clone(&players_service)),
            MAX_SMALL_REQUEST_BYTES
        ))
        .add_service(GamesRoutes::new(
            Arc::clone(&games_service),
            config.max_request_bytes,
            config.max_import_request_bytes,
        ))
        .add_service(requests!(
            EngineServer::new(EngineService {
                analyst,
                games: games.clone(),
            }),
            config.max_request_bytes
        ))
        .prepare();
    let request_limits = RequestLimitsLayer::new(
        config.max_in_flight,
        config.max_in_flight_per_peer,
        config.request_timeout,
    );
    let credential_checks = CredentialChecksLayer(CredentialChecks::new(
        config.auth_failure_rate,
        config.auth_failure_burst,
    ));
    // The Lichess API shares the calls' limits; its refusals come in its
    // own shape.
    let lichess = ServiceBuilder::new()
        .layer_fn(Traced)
        .layer(MapResponseLayer::new(lichess::from_refusal))
        .layer(request_limits.clone())
        .layer(credential_checks.clone())
        .service(lichess_api);
    let service = ServiceBuilder::new()
        // Outermost: the Lichess API's paths are neither pages nor gRPC.
        .layer_fn(|inner| Divert {
            lichess: lichess.clone(),
            inner,
        })
        // Then a page is no RPC, for the spans, the metrics and the
        // request limits alike.
        .layer_fn(|inner| WebApp::new(inner, config.web))
        .layer_fn(Traced)
        .layer(cors)
        .layer(tonic_web::GrpcWebLayer::new())
        // Inside grpc-web, which turns its calls into plain gRPC ones; the
        // statuses it sees are the final ones.
        .layer_fn(|inner| RpcOutcomes::new(inner, metrics_endpoint.is_some()))
        .layer(MapResponseLayer::new(rewrite_errors))
        .layer(request_limits)
        .layer(credential_checks)
        .service(routes);
    let limits = config.connection_limits();
    match tls {
        None => {
            let plain = |stream| std::future::ready(Ok(stream));
            accept::serve(listener, service, plain, limits, shutdown).await;
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
            accept::serve(listener, service, handshake, limits, shutdown).await;
            let _ = reload.await;
        }
    }
    let _ = purging.await;
    let _ = pairing.await;
    let _ = pruning.await;
    if let Some(refreshing) = refreshing {
        let _ = refreshing.await;
    }
    store_health.abort();
    if let Some(endpoint) = metrics_endpoint {
        endpoint.abort();
    }
    owner.give_up_ownership().await;
    store.close().await;
    Ok(())
}

/// The Lichess API's calls to `lichess`, every other request to `inner`.
#[derive(Clone, Debug)]
struct Divert<L, S> {
    lichess: L,
    inner: S,
}

impl<L, S> Service<Request<Body>> for Divert<L, S>
where
    L: Service<Request<Body>, Response = Response<Body>, Error = Infallible>,
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Diverted<L::Future, S::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::ready!(self.lichess.poll_ready(cx))?;
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        if lichess::serves(request.uri().path()) {
            Diverted::Lichess {
                answer: self.lichess.call(request),
            }
        } else {
            Diverted::Other {
                answer: self.inner.call(request),
            }
        }
    }
}

pin_project! {
    /// The answer of whichever service a request went to.
    #[project = DivertedProjection]
    pub enum Diverted<L, S> {
        Lichess { #[pin] answer: L },
        Other { #[pin] answer: S },
    }
}

impl<L, S> Future for Diverted<L, S>
where
    L: Future<Output = Result<Response<Body>, Infallible>>,
    S: Future<Output = Result<Response<Body>, Infallible>>,
{
    type Output = Result<Response<Body>, Infallible>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        match self.project() {
            DivertedProjection::Lichess { answer } => answer.poll(cx),
            DivertedProjection::Other { answer } => answer.poll(cx),
        }
    }
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
