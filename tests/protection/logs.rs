//! Logs do not amplify input: the real binary, logging JSON at `info`, is
//! sent ids of a megabyte (plain and gzip-compressed) and request paths of
//! many kilobytes; the ids are refused as unknown, and no log line grows
//! with them. Nor do logs hold requests up: a stdout nobody reads costs
//! log lines, never answers. Each call logs one line, with its status and
//! latency.

use crate::common;

use std::{process::Stdio, time::Duration};

use arbiter::api::proto::{
    self as pb, games_client::GamesClient, positions_client::PositionsClient,
};
use common::binary::Serve;
use http::uri::PathAndQuery;
use tokio::io::AsyncReadExt;
use tonic::{Code, Request, codec::CompressionEncoding};

/// The longest log line accepted: a few KiB, whatever the input.
const MAX_LINE: usize = 4096;

#[tokio::test]
async fn long_ids_and_paths_leave_short_logs() {
    let mut server = Serve::fresh()
        .args(["--log-format", "json"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    // Read the logs as they come, so that the server never waits on a full pipe.
    let mut stdout = server.child.stdout.take().unwrap();
    let mut stderr = server.child.stderr.take().unwrap();
    let logs = tokio::spawn(async move {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let _ = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
        out.extend(err);
        out
    });
    let channel = server.channel().await;

    let long = "q".repeat(1_000_000);
    let mut games = GamesClient::new(channel.clone());
    let mut gzipped = GamesClient::new(channel.clone()).send_compressed(CompressionEncoding::Gzip);
    let mut positions = PositionsClient::new(channel.clone());
    // An id that is not well-formed is unknown (a megabyte may also be over
    // a method's message limit).
    let not_found = |status: tonic::Status, reason: &str| {
        let (code, found) = common::code_and_reason(&status);
        assert!(
            (code, found.as_str()) == (Code::NotFound, reason)
                || (code, found.as_str()) == (Code::ResourceExhausted, "REQUEST_TOO_LARGE"),
            "{status:?}"
        );
        assert!(status.message().len() < 200, "{}", status.message());
    };
    for client in [&mut games, &mut gzipped] {
        for game_id in [long.clone(), "q".repeat(4_000), "nope".into()] {
            let status = client
                .get_game(pb::GetGameRequest {
                    game_id: game_id.clone(),
                    ..Default::default()
                })
                .await
                .unwrap_err();
            not_found(status, "GAME_NOT_FOUND");
            let status = client
                .make_move(pb::MakeMoveRequest {
                    game_id,
                    seat_token: "t".repeat(64),
                    r#move: "e4".into(),
                    expected_ply: None,
                    ..Default::default()
                })
                .await
                .unwrap_err();
            not_found(status, "GAME_NOT_FOUND");
        }
    }
    let status = games
        .watch_game(pb::WatchGameRequest {
            game_id: long.clone(),
            from_version: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    not_found(status, "GAME_NOT_FOUND");
    for id in [long.clone(), "a".repeat(17), "ABCDEFGHJKMNPQRS".into()] {
        let status = positions
            .get_position(pb::GetPositionRequest { id })
            .await
            .unwrap_err();
        not_found(status, "POSITION_NOT_FOUND");
    }
    // A long unknown method, over HTTP/2 and over HTTP/1.1 (grpc-web).
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.unwrap();
    let path = format!("/arbiter.v1.Games/{}", "x".repeat(10_000));
    let status = grpc
        .unary(
            Request::new(pb::GetGameRequest::default()),
            PathAndQuery::from_maybe_shared(path).unwrap(),
            tonic_prost::ProstCodec::<pb::GetGameRequest, pb::GetGameResponse>::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::Unimplemented, "UNKNOWN_METHOD".to_owned())
    );
    let addr = server.addr;
    let path = format!("/arbiter.v1.Games/{}", "y".repeat(50_000));
    let answer = common::http1_post(
        addr,
        &path,
        "application/grpc-web+proto",
        &common::grpc_frame(&[]),
    )
    .await;
    assert!(answer.contains("grpc-status: 12"), "{answer:.300}");
    // A request that is logged whole, to show that logging is on.
    let health = tonic_health::pb::health_client::HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await;
    assert!(health.is_ok());

    // A graceful stop: the lines still queued for stdout are written.
    server.signal("TERM");
    let _ = server.child.wait().await;
    let logs = tokio::time::timeout(Duration::from_secs(10), logs)
        .await
        .expect("the logs end with the server")
        .unwrap();
    let text = String::from_utf8_lossy(&logs);
    assert!(
        text.contains("/grpc.health.v1.Health/Check"),
        "{text:.2000}"
    );
    assert!(
        text.contains("GetGame") && text.contains("WatchGame"),
        "{text:.2000}"
    );
    let longest = text.lines().map(str::len).max().unwrap_or(0);
    assert!(
        longest <= MAX_LINE,
        "a log line of {longest} bytes: {:.300}",
        text.lines().find(|l| l.len() == longest).unwrap()
    );
    assert!(logs.len() < 64 * 1024, "{} bytes of logs", logs.len());
}

/// A stdout nobody reads (a stalled log collector, a full pipe) never holds
/// a request up: the log lines that find the queue to stdout full are
/// dropped, and counted in the metrics.
#[tokio::test]
async fn a_stdout_nobody_reads_holds_no_request_up() {
    const CALLS: usize = 2_000;
    let metrics = common::free_addr();
    let server = Serve::fresh()
        .args(["--log-buffer-lines", "64", "--metrics-listen", &metrics])
        .env("RUST_LOG", "info")
        // Piped and never read: the pipe fills after a few hundred lines.
        .stdout(Stdio::piped())
        .start()
        .await;
    let mut games = GamesClient::new(server.channel().await);
    let calls = async {
        for _ in 0..CALLS {
            let status = games
                .get_game(pb::GetGameRequest {
                    game_id: "nope".into(),
                    ..Default::default()
                })
                .await
                .unwrap_err();
            assert_eq!(status.code(), Code::NotFound);
        }
    };
    tokio::time::timeout(Duration::from_secs(120), calls)
        .await
        .expect("requests were held up by a stdout nobody reads");
    let dropped = common::scrape(&metrics, "arbiter_log_lines_dropped_total")
        .await
        .expect("the metrics answer");
    assert!(dropped > 0.0, "{dropped} lines dropped");
    drop(server);
}

/// Every RPC logs one line, when its status is known: its path, its gRPC
/// status and its latency, as an access log's line does; a call that ends
/// in an error, and a stream its client leaves, alike.
#[tokio::test]
async fn each_call_logs_one_line_with_its_status_and_latency() {
    let mut server = Serve::fresh()
        .args(["--log-format", "json"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .spawn();
    let mut stdout = server.child.stdout.take().unwrap();
    let logs = tokio::spawn(async move {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out).await;
        out
    });
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    common::get_game(&mut games, &id).await;
    let status = games
        .get_game(pb::GetGameRequest {
            game_id: "ABCDEFGHJKMNPQRS".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    let mut watching = common::watch(&mut games, &id).await;
    assert!(watching.message().await.unwrap().is_some());
    drop(watching);
    // The watch's end is seen by the server before it stops.
    common::let_pass(Duration::from_millis(500)).await;

    server.signal("TERM");
    let _ = server.child.wait().await;
    let logs = tokio::time::timeout(Duration::from_secs(10), logs)
        .await
        .expect("the logs end with the server")
        .unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&logs)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // The lines logged in calls to `method`: each call's status, with its
    // latency.
    let outcomes = |method: &str| -> Vec<String> {
        let path = format!("/arbiter.v1.Games/{method}");
        lines
            .iter()
            .filter(|line| line["span"]["path"] == path.as_str())
            .map(|line| {
                let fields = &line["fields"];
                assert!(fields["latency_ms"].as_f64().is_some(), "{line}");
                assert!(line.to_string().len() < 1024, "{line}");
                fields["status"].as_str().unwrap_or("none").to_owned()
            })
            .collect()
    };
    assert_eq!(outcomes("GetGame"), ["OK", "NOT_FOUND"]);
    assert_eq!(outcomes("WatchGame"), ["CANCELLED"]);
}
