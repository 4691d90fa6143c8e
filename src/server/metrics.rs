//! The Prometheus endpoint (`--metrics-listen`): `GET /metrics` in the
//! text format, on a port of its own, apart from the API's.
//!
//! The recorder is the `metrics` crate's, global to the process, installed
//! by the first server that serves metrics; a server without the endpoint
//! installs nothing, and the metrics calls it still makes (the store's) go
//! to `metrics`' no-op recorder. Counters and histograms are recorded where
//! things happen (`rpc_outcomes`, the store's commits); gauges are read from
//! the server's state when it is scraped, so they cost nothing between
//! scrapes and always describe the server scraped.
//!
//! The endpoint is for a monitoring system, not for the world, yet it
//! cannot be used to take the server down, nor to keep scrapes out: it
//! serves at most [`MAX_CONNECTIONS`] connections at once, of which
//! [`MAX_CONNECTIONS_PER_PEER`] from one address (more are closed at once),
//! one request each, within [`CONNECTION_TIME`] (a scrape takes
//! milliseconds, so silent connections give their places back soon), with
//! request heads of at most 8 KiB, and an answer costs a read of a few
//! counters.

use std::{
    convert::Infallible,
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use metrics::Unit;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::{net::TcpListener, sync::Semaphore};

use super::rpc_outcomes;
use crate::{
    analysis::Analyst,
    games::Games,
    peers::{Peer, PeerSlots},
    store::{LISTENER_RECONNECTS, Store},
};

/// Connections the endpoint serves at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Connections the endpoint serves at once from one address.
pub const MAX_CONNECTIONS_PER_PEER: usize = 8;
/// The longest a connection may take, from its accept to its answer.
pub const CONNECTION_TIME: Duration = Duration::from_secs(2);
/// How often histogram samples recorded since the last scrape are folded
/// into the buckets, so that memory stays bounded when nobody scrapes.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

const WATCHED_GAMES: &str = "arbiter_games_watched";
const LIVE_GAMES: &str = "arbiter_games_live";
const LIVE_GAMES_BYTES: &str = "arbiter_games_live_bytes";
const CLOCKED_GAMES: &str = "arbiter_games_clocked";
const WATCHERS: &str = "arbiter_watchers";
const ENGINE_SLOTS: &str = "arbiter_engine_slots";
const ENGINE_SLOTS_BUSY: &str = "arbiter_engine_slots_busy";
const ENGINE_SEATS_QUEUED: &str = "arbiter_engine_seats_queued";
const ENGINE_CALLS_QUEUED: &str = "arbiter_engine_calls_queued";
const WRITE_TRANSACTIONS: &str = "arbiter_store_write_transactions_total";
const COMMIT_SECONDS: &str = "arbiter_store_commit_seconds";
const COMMIT_BATCH_SIZE: &str = "arbiter_store_commit_batch_size";
const LEASES_HELD: &str = "arbiter_leases_held";
const LOG_LINES_DROPPED: &str = "arbiter_log_lines_dropped_total";

/// Buckets of the latency histograms, in seconds: from a fast unary call
/// to the longest answer `--request-timeout` allows by default.
const SECONDS_BUCKETS: [f64; 16] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    60.0,
];
/// Buckets of the commit batch sizes, in transactions.
const BATCH_BUCKETS: [f64; 9] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// The metrics could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot record metrics: {0}")]
pub struct MetricsError(String);

/// The process's recorder, installed once.
static RECORDER: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// Installs the recorder unless it is; its handle.
///
/// # Errors
///
/// Another recorder was installed in this process.
pub(super) fn install() -> Result<&'static PrometheusHandle, MetricsError> {
    RECORDER
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), &SECONDS_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full(COMMIT_BATCH_SIZE.to_owned()),
                        &BATCH_BUCKETS,
                    )
                })
                .map_err(|e| e.to_string())?
                .install_recorder()
                .map_err(|e| e.to_string())?;
            describe();
            Ok(handle)
        })
        .as_ref()
        .map_err(|e| MetricsError(e.clone()))
}

/// The `# HELP` and units of every metric.
fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(rpc_outcomes::STARTED, "RPCs whose request came, by method");
    describe_counter!(
        rpc_outcomes::HANDLED,
        "RPCs whose status is known (streams: that ended), by method and status"
    );
    describe_histogram!(
        rpc_outcomes::DURATION,
        Unit::Seconds,
        "Time from an RPC's request to its status (streams: their whole life)"
    );
    describe_gauge!(WATCHED_GAMES, "Games with watchers, held in memory");
    describe_gauge!(
        LIVE_GAMES,
        "Games in play kept in memory for their next change"
    );
    describe_gauge!(
        LIVE_GAMES_BYTES,
        Unit::Bytes,
        "Bytes the games in play kept in memory count for (at most --live-games-memory)"
    );
    describe_gauge!(CLOCKED_GAMES, "Ongoing timed games, each with a flag timer");
    describe_gauge!(WATCHERS, "WatchGame streams and WatchPlayer seats open");
    describe_gauge!(ENGINE_SLOTS, "Engine search slots, by pool (rpc, seat)");
    describe_gauge!(
        ENGINE_SLOTS_BUSY,
        "Engine search slots searching now, by pool"
    );
    describe_gauge!(ENGINE_SEATS_QUEUED, "Engine seats waiting for a seat slot");
    describe_gauge!(
        ENGINE_CALLS_QUEUED,
        "Engine RPCs waiting for a slot, searches that lent theirs included"
    );
    describe_counter!(WRITE_TRANSACTIONS, "Store write transactions begun");
    describe_histogram!(
        COMMIT_SECONDS,
        Unit::Seconds,
        "Time of a store COMMIT, failed ones included"
    );
    describe_histogram!(COMMIT_BATCH_SIZE, "Write transactions per store commit");
    describe_gauge!(
        LEASES_HELD,
        "Leases on shards of games held (PostgreSQL): their timers and engine seats run here"
    );
    describe_counter!(
        LOG_LINES_DROPPED,
        "Log lines dropped because the queue to stdout was full (--log-buffer-lines)"
    );
    describe_counter!(
        LISTENER_RECONNECTS,
        "Times the database change listener connected again after losing its connection"
    );
}

/// What the gauges are read from: the server's own services.
#[derive(Clone, Debug)]
pub(super) struct Sources {
    pub games: Games,
    pub analyst: Analyst,
    pub store: Store,
}

impl Sources {
    /// Sets the gauges to the server's state now.
    fn record(&self) {
        let count = |n: usize| n as f64;
        metrics::gauge!(WATCHED_GAMES).set(count(self.games.watched_games()));
        metrics::gauge!(LIVE_GAMES).set(count(self.games.live_games()));
        metrics::gauge!(LIVE_GAMES_BYTES).set(count(self.games.live_games_bytes()));
        metrics::gauge!(CLOCKED_GAMES).set(count(self.games.flag_timers()));
        metrics::gauge!(LEASES_HELD).set(count(self.games.leases_held()));
        metrics::gauge!(WATCHERS).set(count(self.games.watchers()));
        let load = self.analyst.load();
        for (pool, slots, busy) in [
            ("rpc", load.slots, load.busy),
            ("seat", load.seat_slots, load.seats_busy),
        ] {
            metrics::gauge!(ENGINE_SLOTS, "pool" => pool).set(count(slots));
            metrics::gauge!(ENGINE_SLOTS_BUSY, "pool" => pool).set(count(busy));
        }
        metrics::gauge!(ENGINE_SEATS_QUEUED).set(count(load.seats_queued));
        metrics::gauge!(ENGINE_CALLS_QUEUED).set(count(load.queued));
        metrics::counter!(WRITE_TRANSACTIONS).absolute(self.store.write_transactions());
        metrics::counter!(LOG_LINES_DROPPED).absolute(super::telemetry::dropped_log_lines());
    }
}

/// One scrape at a time in the process: the gauges are global, and each
/// scrape sets them to its own server's state before rendering.
static SCRAPE: Mutex<()> = Mutex::new(());

/// The scrape's text: the gauges read now, everything rendered.
fn scrape(handle: &PrometheusHandle, sources: &Sources) -> String {
    let _one = SCRAPE.lock().unwrap_or_else(|e| e.into_inner());
    sources.record();
    handle.render()
}

/// Serves the endpoint on `listener` until dropped.
pub(super) async fn serve(
    listener: TcpListener,
    handle: &'static PrometheusHandle,
    sources: Sources,
) {
    let places = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let shares = PeerSlots::new(MAX_CONNECTIONS_PER_PEER);
    let mut upkeep = tokio::time::interval(UPKEEP_INTERVAL);
    loop {
        let (stream, addr) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of descriptors, most likely: the API's accept loop
                    // needs them more; try again later.
                    tracing::warn!(%error, "the metrics endpoint cannot accept");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = upkeep.tick() => {
                handle.run_upkeep();
                continue;
            }
        };
        // Dropped when refused: closed at once.
        let Some(share) = shares.try_take(Peer::of(addr)) else {
            continue;
        };
        let Ok(place) = Arc::clone(&places).try_acquire_owned() else {
            continue;
        };
        let sources = sources.clone();
        tokio::spawn(async move {
            let answer = service_fn(move |request| {
                std::future::ready(Ok::<_, Infallible>(answer(&request, handle, &sources)))
            });
            let connection = http1::Builder::new()
                .keep_alive(false)
                .max_buf_size(8 * 1024)
                .serve_connection(TokioIo::new(stream), answer);
            let _ = tokio::time::timeout(CONNECTION_TIME, connection).await;
            drop((place, share));
        });
    }
}

/// The answer to one request: the metrics for `GET /metrics`.
fn answer(
    request: &Request<Incoming>,
    handle: &PrometheusHandle,
    sources: &Sources,
) -> Response<Full<Bytes>> {
    let response = |status, body: String| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        response
    };
    if request.uri().path() != "/metrics" {
        return response(
            StatusCode::NOT_FOUND,
            "not found: try /metrics\n".to_owned(),
        );
    }
    if request.method() != Method::GET {
        let mut refused = response(StatusCode::METHOD_NOT_ALLOWED, String::new());
        refused
            .headers_mut()
            .insert(header::ALLOW, http::HeaderValue::from_static("GET"));
        return refused;
    }
    let mut metrics = response(StatusCode::OK, scrape(handle, sources));
    metrics.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    metrics
}
