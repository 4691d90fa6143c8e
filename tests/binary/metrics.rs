//! The Prometheus endpoint (`--metrics-listen`): RPC counts and latency
//! histograms by method and status, the gauges of the server scraped, the
//! store's commits, and the endpoint's own bounds.
//!
//! The recorder is global to the test process and these tests run at once,
//! so each asserts on the change of series only it touches (its own
//! methods) or, for the shared store histograms, on their presence; the
//! gauges always describe the server scraped.

use crate::common::{self, SeatRequest};

use std::{
    collections::BTreeMap,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use arbiter::api::proto as pb;
use arbiter::server::{METRICS_MAX_CONNECTIONS_PER_PEER, ServerConfig};
use common::{TestServer, binary::Serve, http1_post, new_chess_game, seat, watch};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

/// A server with the metrics endpoint on `metrics` (an address).
async fn server_with_metrics(metrics: &str) -> TestServer {
    let metrics = metrics.to_owned();
    TestServer::start_with_config(|config| ServerConfig {
        metrics_listen: Some(metrics),
        ..config
    })
    .await
}

/// The whole HTTP/1.1 answer to `method path` on `addr`.
async fn http(addr: &str, method: &str, path: &str) -> String {
    let mut stream = crate::wait_for!(
        Duration::from_secs(10),
        TcpStream::connect(addr).await.ok(),
        "the metrics endpoint at {addr} did not come up"
    );
    let head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer
}

/// The scraped metrics, as series (name and sorted labels) to values.
struct Scrape(BTreeMap<String, f64>);

impl Scrape {
    async fn of(addr: &str) -> Scrape {
        let answer = http(addr, "GET", "/metrics").await;
        let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(
            head.contains("content-type: text/plain; version=0.0.4"),
            "{head}"
        );
        let series = body
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| {
                let (series, value) = line.rsplit_once(' ').expect("a sample line");
                (normal(series), value.parse().expect("a number"))
            })
            .collect();
        Scrape(series)
    }

    /// The value of `name` with exactly `labels`; 0 if there is none.
    fn get(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.find(name, labels).unwrap_or(0.0)
    }

    fn find(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
        let series = if labels.is_empty() {
            name.to_owned()
        } else {
            normal(&format!("{name}{{{}}}", labels.join(",")))
        };
        self.0.get(&series).copied()
    }
}

/// `name{labels}` with its labels sorted.
fn normal(series: &str) -> String {
    match series.split_once('{') {
        None => series.to_owned(),
        Some((name, labels)) => {
            let mut labels: Vec<&str> = labels.trim_end_matches('}').split(',').collect();
            labels.sort_unstable();
            format!("{name}{{{}}}", labels.join(","))
        }
    }
}

async fn legal_moves(
    rules: &mut pb::rules_client::RulesClient<tonic::transport::Channel>,
    fen: &str,
) -> Result<(), tonic::Status> {
    rules
        .legal_moves(pb::LegalMovesRequest {
            position: Some(pb::Position {
                variant: pb::Variant::Chess as i32,
                fen: fen.into(),
                moves: vec![],
                ..Default::default()
            }),
            detail: pb::MoveDetail::Uci as i32,
        })
        .await
        .map(drop)
}

#[tokio::test]
async fn rpcs_are_counted_and_timed_by_method_and_status() {
    let metrics = common::free_addr();
    let server = server_with_metrics(&metrics).await;
    let mut rules = server.rules().await;
    let before = Scrape::of(&metrics).await;
    legal_moves(&mut rules, "").await.unwrap();
    legal_moves(&mut rules, "").await.unwrap();
    let refused = legal_moves(&mut rules, "not a fen").await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    let after = Scrape::of(&metrics).await;
    let change =
        |name: &str, labels: &[(&str, &str)]| after.get(name, labels) - before.get(name, labels);

    let method = ("method", "arbiter.v1.Rules/LegalMoves");
    let ok = [method, ("status", "OK")];
    let invalid = [method, ("status", "INVALID_ARGUMENT")];
    assert_eq!(change("arbiter_rpc_started_total", &[method]), 3.0);
    assert_eq!(change("arbiter_rpc_handled_total", &ok), 2.0);
    assert_eq!(change("arbiter_rpc_handled_total", &invalid), 1.0);
    assert_eq!(change("arbiter_rpc_duration_seconds_count", &ok), 2.0);
    assert_eq!(change("arbiter_rpc_duration_seconds_count", &invalid), 1.0);
    assert!(change("arbiter_rpc_duration_seconds_sum", &ok) > 0.0);
    // A histogram with buckets (which replicas' scrapes can be summed), up
    // to the default request timeout.
    let bucket = |le| [method, ("status", "OK"), ("le", le)];
    assert_eq!(
        change("arbiter_rpc_duration_seconds_bucket", &bucket("+Inf")),
        2.0
    );
    assert!(
        after
            .find("arbiter_rpc_duration_seconds_bucket", &bucket("60"))
            .is_some()
    );
    assert!(
        after
            .find("arbiter_rpc_duration_seconds_bucket", &bucket("0.0005"))
            .is_some()
    );
    server.stop().await;
}

#[tokio::test]
async fn refusals_of_the_request_limits_count_under_their_method() {
    let metrics = common::free_addr();
    let addr = metrics.clone();
    let server = TestServer::start_with_config(|config| ServerConfig {
        metrics_listen: Some(addr),
        request_timeout: Duration::from_millis(200),
        ..config
    })
    .await;
    let mut engine = server.engine().await;
    let timed_out = [
        ("method", "arbiter.v1.Engine/BestMove"),
        ("status", "DEADLINE_EXCEEDED"),
    ];
    let before = Scrape::of(&metrics).await;
    let search = pb::BestMoveRequest {
        position: Some(pb::Position {
            variant: pb::Variant::Chess as i32,
            fen: String::new(),
            moves: vec![],
            ..Default::default()
        }),
        limits: Some(pb::SearchLimits {
            movetime_ms: 10_000,
            ..Default::default()
        }),
    };
    let refused = engine.best_move(search).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::DeadlineExceeded);
    let after = Scrape::of(&metrics).await;
    let change = |name| after.get(name, &timed_out) - before.get(name, &timed_out);
    assert_eq!(change("arbiter_rpc_handled_total"), 1.0);
    assert_eq!(change("arbiter_rpc_duration_seconds_count"), 1.0);
    server.stop().await;
}

#[tokio::test]
async fn paths_that_are_no_method_share_one_label() {
    let metrics = common::free_addr();
    let server = server_with_metrics(&metrics).await;
    let unimplemented = [("method", "unknown"), ("status", "UNIMPLEMENTED")];
    let before = Scrape::of(&metrics).await;
    let long = format!("/{}", "x".repeat(5000));
    for path in ["/arbiter.v1.Games/NoSuchMethod", "/nothing", &long] {
        let answer = http1_post(server.addr, path, "application/grpc-web+proto", &[]).await;
        assert!(answer.contains("grpc-status: 12"), "{path}: {answer}");
    }
    let after = Scrape::of(&metrics).await;
    assert_eq!(
        after.get("arbiter_rpc_handled_total", &unimplemented)
            - before.get("arbiter_rpc_handled_total", &unimplemented),
        3.0
    );
    assert!(
        after.0.keys().all(|series| !series.contains("xxxx")),
        "a caller's path is never a label"
    );
    server.stop().await;
}

#[tokio::test]
async fn gauges_show_the_servers_games_watchers_and_engine_slots() {
    let metrics = common::free_addr();
    let server = server_with_metrics(&metrics).await;
    let mut games = server.games().await;
    let created = new_chess_game(&mut games, None).await;
    let game = created.game.unwrap();
    // A timed game has a flag timer from its creation (the first-move
    // grace).
    games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: seat("Carol"),
            black: seat("Dan"),
            time_control: Some(pb::TimeControl {
                initial_ms: 300_000,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let watch_game = [("method", "arbiter.v1.Games/WatchGame")];
    let before = Scrape::of(&metrics).await;
    let mut stream = watch(&mut games, &game.id).await;
    stream.message().await.unwrap().expect("the snapshot");

    let watching = Scrape::of(&metrics).await;
    assert_eq!(watching.get("arbiter_watchers", &[]), 1.0);
    assert_eq!(watching.get("arbiter_games_watched", &[]), 1.0);
    assert_eq!(watching.get("arbiter_games_clocked", &[]), 1.0);
    // The tests' server has one slot of each pool, idle.
    for pool in ["rpc", "seat"] {
        assert_eq!(watching.get("arbiter_engine_slots", &[("pool", pool)]), 1.0);
        assert_eq!(
            watching.find("arbiter_engine_slots_busy", &[("pool", pool)]),
            Some(0.0)
        );
    }
    assert_eq!(watching.find("arbiter_engine_seats_queued", &[]), Some(0.0));
    // The game's creation committed.
    assert!(watching.get("arbiter_store_write_transactions_total", &[]) >= 1.0);
    assert!(watching.get("arbiter_store_commit_seconds_count", &[]) >= 1.0);
    assert!(watching.get("arbiter_store_commit_batch_size_count", &[]) >= 1.0);
    assert!(
        watching
            .find("arbiter_store_commit_batch_size_bucket", &[("le", "1")])
            .is_some()
    );
    // An open stream has started but not ended.
    let started = |scrape: &Scrape| scrape.get("arbiter_rpc_started_total", &watch_game);
    let ended_with = |scrape: &Scrape, status| {
        scrape.get(
            "arbiter_rpc_handled_total",
            &[watch_game[0], ("status", status)],
        )
    };
    let ended = |scrape: &Scrape| ended_with(scrape, "CANCELLED");
    assert_eq!(started(&watching) - started(&before), 1.0);
    assert_eq!(ended(&watching) - ended(&before), 0.0);

    // The client leaves: the stream ends, cancelled.
    drop(stream);
    let left = crate::wait_for!(
        Duration::from_secs(10),
        Some(Scrape::of(&metrics).await).filter(|scrape| {
            scrape.get("arbiter_watchers", &[]) == 0.0 && ended(scrape) > ended(&before)
        }),
        "the watcher never left"
    );
    assert_eq!(left.get("arbiter_games_watched", &[]), 0.0);
    assert_eq!(ended(&left) - ended(&before), 1.0);

    // A stream that ends with its game ends OK.
    let mut stream = watch(&mut games, &game.id).await;
    games
        .resign(pb::ResignRequest::by_seat(
            game.id.clone(),
            created.white_token,
        ))
        .await
        .unwrap();
    while stream.message().await.unwrap().is_some() {}
    crate::wait_until!(
        Duration::from_secs(10),
        ended_with(&Scrape::of(&metrics).await, "OK") != ended_with(&before, "OK"),
        "the ended stream was not counted"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_endpoint_serves_get_metrics_only_to_a_few_connections_at_once() {
    let metrics = common::free_addr();
    let server = server_with_metrics(&metrics).await;
    assert!(http(&metrics, "GET", "/").await.starts_with("HTTP/1.1 404"));
    let post = http(&metrics, "POST", "/metrics").await;
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    let long = format!("/metrics?{}", "x".repeat(9000));
    let refused = http(&metrics, "GET", &long).await;
    assert!(refused.starts_with("HTTP/1.1 431"), "{refused}");

    // Connections that never send a request hold their address's share:
    // its next one is closed at once, another address is served, and the
    // API answers as ever.
    let mut idle = Vec::new();
    for _ in 0..METRICS_MAX_CONNECTIONS_PER_PEER {
        idle.push(TcpStream::connect(&metrics).await.unwrap());
    }
    // Until the idle connections are all accepted, one more may be served.
    crate::wait_until!(
        Duration::from_secs(10),
        closed_unanswered(&metrics).await,
        "a connection over the share was served"
    );
    let mut other = common::connect_from("127.0.0.2", &metrics).await.unwrap();
    other
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    other.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    let serving = health
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap();
    assert_eq!(
        serving.into_inner().status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    // Their places come back when they close.
    drop(idle);
    crate::wait_until!(
        Duration::from_secs(10),
        http(&metrics, "GET", "/metrics")
            .await
            .starts_with("HTTP/1.1 200"),
        "the places never came back"
    );
    server.stop().await;
}

/// Whether a scrape on a new connection to `addr` is closed (or reset)
/// without an answer.
async fn closed_unanswered(addr: &str) -> bool {
    let mut extra = TcpStream::connect(addr).await.unwrap();
    let _ = extra
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), extra.read_to_end(&mut answer));
    matches!(read.await, Ok(Ok(0)) | Ok(Err(_)))
}

/// Six connections that never send a request, reopened as they close,
/// keep no scrape out, from their own address or another.
#[tokio::test]
async fn silent_connections_reopened_keep_no_scrape_out() {
    let metrics = common::free_addr();
    let server = server_with_metrics(&metrics).await;
    assert!(
        http(&metrics, "GET", "/metrics")
            .await
            .starts_with("HTTP/1.1 200")
    );
    let stop = Arc::new(AtomicBool::new(false));
    let squatters: Vec<_> = (0..6)
        .map(|_| {
            let (metrics, stop) = (metrics.clone(), Arc::clone(&stop));
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let Ok(mut silent) = TcpStream::connect(&metrics).await else {
                        continue;
                    };
                    // Held until the server closes it.
                    let mut buf = [0; 64];
                    let _ =
                        tokio::time::timeout(Duration::from_secs(15), silent.read(&mut buf)).await;
                }
            })
        })
        .collect();
    // The squatters take their places.
    common::let_pass(Duration::from_millis(200)).await;
    let mut served = 0;
    for n in 0..30 {
        let source = if n % 2 == 0 { "127.0.0.1" } else { "127.0.0.2" };
        let Ok(mut scrape) = common::connect_from(source, &metrics).await else {
            continue;
        };
        let _ = scrape
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await;
        let mut answer = String::new();
        let read = tokio::time::timeout(Duration::from_secs(5), scrape.read_to_string(&mut answer));
        if read.await.is_ok() && answer.starts_with("HTTP/1.1 200") {
            served += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    for squatter in squatters {
        squatter.abort();
    }
    assert_eq!(
        served, 30,
        "scrapes served while six silent connections squat"
    );
    server.stop().await;
}

#[tokio::test]
async fn arbiter_serve_has_metrics_with_arbiter_metrics_listen() {
    let metrics = common::free_addr();
    let server = Serve::fresh()
        .env("ARBITER_METRICS_LISTEN", &metrics)
        .start()
        .await;
    let mut games = pb::games_client::GamesClient::new(server.channel().await);
    let unknown = games
        .get_game(pb::GetGameRequest {
            game_id: "aaaaaaaaaaaaaaaa".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    let scrape = Scrape::of(&metrics).await;
    let not_found = [
        ("method", "arbiter.v1.Games/GetGame"),
        ("status", "NOT_FOUND"),
    ];
    assert_eq!(scrape.get("arbiter_rpc_handled_total", &not_found), 1.0);
    assert_eq!(
        scrape.get("arbiter_rpc_duration_seconds_count", &not_found),
        1.0
    );
    assert_eq!(scrape.find("arbiter_watchers", &[]), Some(0.0));
}
