//! The real binary under connection abuse: the HTTP/2 stream limit in its
//! SETTINGS, silent and half-greeted connections closed by the handshake,
//! idle and keepalive timeouts, the connection cap, the file descriptor
//! limit, SIGTERM with connections that never finish, gzip past a
//! service's message limit, and the in-flight limit.
//!
//! Limits are set through their `ARBITER_*` environment variables.

use crate::common;

use std::time::{Duration, Instant};

use arbiter::api::proto::{self as pb, games_client::GamesClient, rules_client::RulesClient};
use common::binary::{Binary, Serve};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};
use tokio_stream::StreamExt;
use tonic::{Code, transport::Channel};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
use tonic_types::StatusExt;

/// What an HTTP/2 client sends first.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// An empty SETTINGS frame.
const EMPTY_SETTINGS: [u8; 9] = [0, 0, 0, 4, 0, 0, 0, 0, 0];

/// `arbiter serve` with the limits in `env`.
async fn start(env: &[(&str, &str)]) -> Binary {
    Serve::fresh().envs(env.iter().copied()).start().await
}

async fn serving(channel: Channel) -> Result<(), tonic::Status> {
    HealthClient::new(channel)
        .check(HealthCheckRequest::default())
        .await
        .map(drop)
}

/// Reads `stream` until the server closes it; false if it is still open at
/// `deadline`.
async fn closed_by(stream: &mut TcpStream, deadline: Instant) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline.into(), stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
            Err(_) => return false,
        }
    }
}

/// `n` connections to `addr`, each sent `greeting`.
async fn connections(addr: std::net::SocketAddr, n: usize, greeting: &[u8]) -> Vec<TcpStream> {
    let mut streams = Vec::new();
    for _ in 0..n {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(greeting).await.unwrap();
        streams.push(stream);
    }
    streams
}

/// Reads HTTP/2 frames until one of `kind` (its flags and payload); `None`
/// if the connection ends first or nothing comes for 10 s.
async fn frame_of(stream: &mut TcpStream, kind: u8) -> Option<(u8, Vec<u8>)> {
    let read = async {
        loop {
            let mut head = [0u8; 9];
            stream.read_exact(&mut head).await.ok()?;
            let length = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let mut payload = vec![0; length];
            stream.read_exact(&mut payload).await.ok()?;
            if head[3] == kind {
                return Some((head[4], payload));
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .ok()
        .flatten()
}

#[tokio::test]
async fn the_stream_limit_is_in_the_servers_settings() {
    let server = start(&[("ARBITER_MAX_CONCURRENT_STREAMS", "7")]).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&[PREFACE, &EMPTY_SETTINGS].concat())
        .await
        .unwrap();
    let (flags, payload) = frame_of(&mut stream, 4)
        .await
        .expect("the server's SETTINGS");
    assert_eq!(flags, 0, "not an ACK");
    let settings: Vec<(u16, u32)> = payload
        .chunks_exact(6)
        .map(|s| {
            (
                u16::from_be_bytes([s[0], s[1]]),
                u32::from_be_bytes([s[2], s[3], s[4], s[5]]),
            )
        })
        .collect();
    // SETTINGS_MAX_CONCURRENT_STREAMS and SETTINGS_MAX_HEADER_LIST_SIZE.
    assert!(settings.contains(&(3, 7)), "{settings:?}");
    assert!(settings.contains(&(6, 16 * 1024)), "{settings:?}");
}

/// A HEADERS frame opening stream `id` for a Health check whose body never
/// comes (HPACK literals without indexing).
fn open_stream(id: u32) -> Vec<u8> {
    let path = b"/grpc.health.v1.Health/Check";
    let content_type = b"application/grpc";
    let mut block = vec![0x83, 0x86, 0x04, path.len() as u8];
    block.extend_from_slice(path);
    block.extend_from_slice(&[0x0f, 31 - 15, content_type.len() as u8]);
    block.extend_from_slice(content_type);
    block.extend_from_slice(b"\x00\x02te\x08trailers");
    let mut frame = (block.len() as u32).to_be_bytes()[1..].to_vec();
    // HEADERS, END_HEADERS (the stream stays open).
    frame.extend_from_slice(&[1, 4]);
    frame.extend_from_slice(&id.to_be_bytes());
    frame.extend_from_slice(&block);
    frame
}

/// Streams beyond the limit are refused (RST_STREAM REFUSED_STREAM), not
/// held.
#[tokio::test]
async fn streams_beyond_the_limit_are_refused() {
    let server = start(&[("ARBITER_MAX_CONCURRENT_STREAMS", "7")]).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let mut greeting = [PREFACE, &EMPTY_SETTINGS].concat();
    // The server's SETTINGS acknowledged, so that its limit applies.
    greeting.extend_from_slice(&[0, 0, 0, 4, 1, 0, 0, 0, 0]);
    stream.write_all(&greeting).await.unwrap();
    frame_of(&mut stream, 4)
        .await
        .expect("the server's SETTINGS");
    // The acknowledgement reaches the server before the streams do.
    common::let_pass(Duration::from_millis(100)).await;
    let opened: Vec<u8> = (0..20).flat_map(|i| open_stream(2 * i + 1)).collect();
    stream.write_all(&opened).await.unwrap();
    let mut refused = 0;
    while refused < 13 {
        let (_, payload) = frame_of(&mut stream, 3).await.expect("RST_STREAM frames");
        if payload == 7u32.to_be_bytes() {
            refused += 1;
        }
    }
}

/// Connections that say nothing, or only the HTTP/2 preface, are closed at
/// the handshake timeout; greeted ones that then fall silent at the idle
/// timeout; one with an open WatchGame stream is not idle.
#[tokio::test]
async fn silent_and_unfinished_connections_are_closed() {
    let server = start(&[
        ("ARBITER_HANDSHAKE_TIMEOUT", "1s"),
        ("ARBITER_IDLE_TIMEOUT", "2s"),
    ])
    .await;
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let mut watch = common::watch(&mut games, &id).await;
    watch.next().await.unwrap().unwrap(); // the snapshot

    let start = Instant::now();
    let mut silent = connections(server.addr, 20, b"").await;
    let mut preface_only = connections(server.addr, 20, PREFACE).await;
    let greeted = [PREFACE, &EMPTY_SETTINGS].concat();
    let mut greeted = connections(server.addr, 20, &greeted).await;
    let deadline = start + Duration::from_secs(15);
    for (what, streams) in [
        ("silent", &mut silent),
        ("preface-only", &mut preface_only),
        ("greeted, then silent", &mut greeted),
    ] {
        for (i, stream) in streams.iter_mut().enumerate() {
            assert!(
                closed_by(stream, deadline).await,
                "{what} connection {i} still open after {:?}",
                start.elapsed()
            );
        }
    }
    // The watcher's connection stayed open past the idle timeout.
    common::play(&mut games, &id, &created.white_token, "e4").await;
    let event = tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .expect("the watcher hears the move")
        .unwrap()
        .unwrap();
    assert_eq!(event.kind, pb::GameEventKind::Move as i32);
}

/// A client that does not answer pings is closed.
#[tokio::test]
async fn unanswered_pings_close_the_connection() {
    let server = start(&[
        ("ARBITER_KEEPALIVE_INTERVAL", "1s"),
        ("ARBITER_KEEPALIVE_TIMEOUT", "1s"),
    ])
    .await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(&[PREFACE, &EMPTY_SETTINGS].concat())
        .await
        .unwrap();
    let (flags, _) = frame_of(&mut stream, 6).await.expect("a PING");
    assert_eq!(flags, 0, "a ping, not an ACK");
    assert!(closed_by(&mut stream, Instant::now() + Duration::from_secs(15)).await);
}

/// Beyond the cap, new connections are closed at once; the client already
/// connected keeps its answers, and new clients are served once there is
/// room again.
#[tokio::test]
async fn connections_beyond_the_cap_are_closed() {
    let server = start(&[
        ("ARBITER_MAX_CONNECTIONS", "4"),
        ("ARBITER_HANDSHAKE_TIMEOUT", "60s"),
    ])
    .await;
    let client = server.channel().await;
    serving(client.clone()).await.unwrap();
    let filling = connections(server.addr, 3, b"").await;
    let mut beyond = connections(server.addr, 10, PREFACE).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    for (i, stream) in beyond.iter_mut().enumerate() {
        assert!(
            closed_by(stream, deadline).await,
            "connection {i} left open"
        );
    }
    for _ in 0..5 {
        serving(client.clone()).await.unwrap();
    }
    drop(filling);
    drop(client);
    // Room comes back once the server has seen those connections close: a
    // client connecting meanwhile is still closed, and tries again.
    crate::wait_until!(
        Duration::from_secs(10),
        match serving(server.channel().await).await {
            Ok(()) => true,
            Err(status) => {
                eprintln!("not yet served: {status}");
                false
            }
        },
        "no room again within 10 s"
    );
}

/// At the file descriptor limit, failed accepts are retried with pauses (the
/// server's CPU time stays low), and the server serves again once
/// descriptors are free.
#[tokio::test]
async fn at_the_file_limit_the_server_pauses_and_recovers() {
    let server = Serve::fresh()
        .env("ARBITER_HANDSHAKE_TIMEOUT", "60s")
        .max_files(64)
        .start()
        .await;
    serving(server.channel().await).await.unwrap();
    // More connections than descriptors: the rest wait in the backlog.
    let flood = connections(server.addr, 100, b"").await;
    // The server takes what it can of them.
    common::let_pass(Duration::from_millis(500)).await;
    let open = std::fs::read_dir(format!("/proc/{}/fd", server.pid()))
        .unwrap()
        .count();
    assert!(
        open >= 60,
        "the server is at its limit ({open} descriptors)"
    );
    let before = server.cpu_ticks();
    common::let_pass(Duration::from_secs(3)).await;
    let used = server.cpu_ticks() - before;
    // A busy loop would use up to 300 ticks (a whole core for 3 s; 100 on a
    // busy machine).
    assert!(used < 30, "{used} ticks of CPU in 3 s at the file limit");
    drop(flood);
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let answer = tokio::time::timeout(Duration::from_secs(2), async {
            serving(server.channel().await).await
        })
        .await;
        if matches!(answer, Ok(Ok(()))) {
            break;
        }
        assert!(Instant::now() < deadline, "not serving again: {answer:?}");
    }
}

/// SIGTERM with connections that have no request in flight (one silent,
/// one that sent only the preface, one greeted and idle): the server closes
/// them at once rather than after the shutdown grace, exits well within it,
/// and the move it acknowledged is there after a restart.
#[tokio::test]
async fn sigterm_closes_connections_without_requests_at_once_and_keeps_acknowledged_moves() {
    const GRACE: Duration = Duration::from_secs(10);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.db");
    let env = [
        ("ARBITER_SHUTDOWN_GRACE", "10s"),
        ("ARBITER_HANDSHAKE_TIMEOUT", "60s"),
    ];
    let mut server = Serve::on(&db).envs(env).start().await;
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    common::play(&mut games, &id, &created.white_token, "e4").await;
    let _silent = connections(server.addr, 1, &[]).await;
    let _preface_only = connections(server.addr, 1, PREFACE).await;
    let greeted = [PREFACE, &EMPTY_SETTINGS].concat();
    let _greeted = connections(server.addr, 1, &greeted).await;
    // The server has accepted them all.
    common::let_pass(Duration::from_millis(200)).await;
    let start = Instant::now();
    server.signal("TERM");
    let exited = tokio::time::timeout(GRACE / 2, server.child.wait()).await;
    assert!(
        exited.is_ok(),
        "still running {:?} after SIGTERM (grace {GRACE:?})",
        start.elapsed()
    );
    assert!(exited.unwrap().unwrap().success());

    let server = Serve::on(&db).envs(env).start().await;
    let mut games = GamesClient::new(server.channel().await);
    let game = common::get_game(&mut games, &id).await;
    assert_eq!(game.ply, 1);
}

/// A small gzip request that decompresses past the Rules limit is refused
/// as too large, naming the limit.
#[tokio::test]
async fn gzip_past_the_rules_limit_is_too_large() {
    let server = start(&[]).await;
    let mut rules = RulesClient::new(server.channel().await)
        .send_compressed(tonic::codec::CompressionEncoding::Gzip);
    let status = rules
        .legal_moves(pb::LegalMovesRequest {
            position: Some(pb::Position {
                variant: pb::Variant::Chess as i32,
                fen: "x".repeat(200_000),
                moves: vec![],
                ..Default::default()
            }),
            detail: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::ResourceExhausted, "REQUEST_TOO_LARGE".to_owned()),
        "{status:?}"
    );
    let info = status.get_details_error_info().unwrap();
    assert_eq!(info.metadata["limit_bytes"], "65536");
}

/// Over the in-flight limit, requests are refused at once with SERVER_BUSY
/// and the limit; served again once the requests in flight end.
#[tokio::test]
async fn over_the_in_flight_limit_the_server_is_busy() {
    let server = start(&[("ARBITER_MAX_IN_FLIGHT", "2")]).await;
    let channel = server.channel().await;
    // Two grpc-web requests whose bodies never come stay in flight.
    let head = format!(
        "POST /grpc.health.v1.Health/Check HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: 100\r\n\r\n",
        server.addr
    );
    let waiting = connections(server.addr, 2, head.as_bytes()).await;
    // Both requests reach the limit once their connections are served: on
    // a loaded machine that can take a while.
    let status = crate::wait_for!(
        Duration::from_secs(30),
        serving(channel.clone()).await.err(),
        "never refused"
    );
    assert_eq!(
        common::code_and_reason(&status),
        (Code::ResourceExhausted, "SERVER_BUSY".to_owned()),
        "{status:?}"
    );
    assert_eq!(
        status.get_details_error_info().unwrap().metadata["limit"],
        "2"
    );
    drop(waiting);
    crate::wait_until!(
        Duration::from_secs(10),
        serving(channel.clone()).await.is_ok(),
        "still refused"
    );
}
