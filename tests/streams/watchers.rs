//! WatchGame under hostile or careless watchers, on the real binary (memory
//! from `/proc/PID/status`) and in-process: unknown ids retain nothing, a
//! game's channel goes away when it ends or its last watcher leaves, a
//! stalled watcher costs bounded memory and learns it fell behind, the
//! memory watchers took goes back to the system once they close, and the
//! watcher caps hold.

use crate::common::{self, SeatRequest};

use std::{collections::HashMap, sync::Arc, time::Duration};

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient},
    games::{GameError, GameId, Games, Role, SeatSpec, Start, SystemTime, View},
    rules::Variant,
    store::Store,
};
use common::{
    TestServer,
    binary::{Binary, Serve},
    raw::Raw,
};
use http::uri::PathAndQuery;
use prost::Message;
use tonic::{
    Code, Status,
    transport::{Channel, Endpoint},
};
use tonic_types::StatusExt;

/// The real binary with a fresh database and `args`.
async fn serve(args: &[&str]) -> Binary {
    serve_with_env(args, &[]).await
}

async fn serve_with_env(args: &[&str], env: &[(&str, &str)]) -> Binary {
    let mut serve = Serve::fresh().args(args).envs(env.iter().copied());
    // `figures` may measure another build.
    if let Ok(binary) = std::env::var("ARBITER_BINARY") {
        serve = serve.binary(binary);
    }
    serve.start().await
}

/// 24 plies of a Ruy Lopez, no repetition, no end.
const OPENING: [&str; 24] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5",
];

/// A chess game with the 24 plies of [`OPENING`] played; its id and tokens.
async fn long_game(games: &mut GamesClient<Channel>) -> (String, String, String) {
    let created = common::new_chess_game(games, None).await;
    let id = created.game.unwrap().id;
    for (ply, text) in OPENING.into_iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        common::play(games, &id, token, text).await;
    }
    (id, created.white_token, created.black_token)
}

/// `pairs` draw offers by white, each declined by black: two events each,
/// every one carrying the whole game.
async fn offer_and_decline(
    games: &mut GamesClient<Channel>,
    id: &str,
    white: &str,
    black: &str,
    pairs: usize,
) {
    for _ in 0..pairs {
        games
            .offer_draw(pb::OfferDrawRequest::by_seat(id, white))
            .await
            .unwrap();
        games
            .respond_to_draw(pb::RespondToDrawRequest {
                accept: false,
                ..pb::RespondToDrawRequest::by_seat(id, black)
            })
            .await
            .unwrap();
    }
}

/// 50 watchers of game `id` that never read, 10 on each of 5 connections
/// with a 64 KiB stream window.
async fn stalled_watchers(
    server: &Binary,
    id: &str,
) -> Vec<tonic::Streaming<pb::WatchGameResponse>> {
    let mut stalled = Vec::new();
    for _ in 0..5 {
        let endpoint = Endpoint::from_shared(server.url())
            .unwrap()
            .initial_stream_window_size(Some(64 * 1024));
        let channel = server.channel_with(endpoint).await;
        for _ in 0..10 {
            let mut client = GamesClient::new(channel.clone());
            let stream = client.watch_game(watch_request(id)).await.unwrap();
            stalled.push(stream.into_inner());
        }
    }
    stalled
}

/// A watch of game `id` whose events carry the whole game: the largest
/// events, the budget's hardest case.
fn watch_request(id: &str) -> pb::WatchGameRequest {
    watch_in(id, pb::GameView::Full)
}

fn watch_in(id: &str, view: pb::GameView) -> pb::WatchGameRequest {
    pb::WatchGameRequest {
        game_id: id.into(),
        view: view as i32,
        ..Default::default()
    }
}

/// Watches `count` random ids, 50 at a time; each must be NOT_FOUND.
async fn watch_random_ids(channel: &Channel, count: usize) {
    let mut left = count;
    while left > 0 {
        let batch = left.min(50);
        left -= batch;
        let calls = (0..batch).map(|_| {
            let mut games = GamesClient::new(channel.clone());
            async move {
                let id = arbiter::games::new_id();
                games.watch_game(watch_request(&id)).await.map(drop)
            }
        });
        for answer in futures_join(calls).await {
            let status = answer.expect_err("an unknown game");
            assert_eq!(status.code(), Code::NotFound, "{status:?}");
            assert_eq!(reason(&status), "GAME_NOT_FOUND");
        }
    }
}

/// Runs `futures` concurrently, answers in order.
async fn futures_join<F: Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send,
{
    let tasks: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}

fn reason(status: &Status) -> String {
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

fn metadata(status: &Status) -> HashMap<String, String> {
    status
        .get_details_error_info()
        .map(|info| info.metadata)
        .unwrap_or_default()
}

/// Thousands of WatchGame calls on ids no game has cost no memory: each is
/// NOT_FOUND at once, and nothing is kept for it.
#[tokio::test]
async fn watching_unknown_ids_retains_no_memory() {
    let server = serve(&[]).await;
    let channel = server.channel().await;
    // Warm up the connection, the allocator and the database pool first.
    watch_random_ids(&channel, 5_000).await;
    let before = server.settled_rss_kib().await;
    watch_random_ids(&channel, 5_000).await;
    let after = server.settled_rss_kib().await;
    assert!(
        after < before + 3 * 1024,
        "5,000 watches of unknown games grew RSS from {before} KiB to {after} KiB"
    );
    // Malformed ids are unknown too.
    let mut games = GamesClient::new(channel);
    for id in [String::new(), "x".repeat(300), "no such game\n".to_owned()] {
        let status = games.watch_game(watch_request(&id)).await.unwrap_err();
        assert_eq!(status.code(), Code::NotFound, "{id:?}: {status:?}");
        assert_eq!(reason(&status), "GAME_NOT_FOUND");
    }
}

/// Watchers whose client stopped reading (a stream window of 64 KiB that
/// fills up and is never read) on a game with many events: the server's
/// memory stays bounded, and a watcher that reads again gets what was in
/// flight, then `WATCHER_TOO_SLOW` with the version of the last event it
/// received.
#[tokio::test]
async fn stalled_watchers_cost_bounded_memory_and_are_told_they_fell_behind() {
    const BUDGET: usize = 64 * 1024;
    let server = serve(&["--watcher-buffer-bytes", &BUDGET.to_string()]).await;
    let mut games = GamesClient::new(server.channel().await);
    let (id, white, black) = long_game(&mut games).await;
    offer_and_decline(&mut games, &id, &white, &black, 5).await;
    let before = server.settled_rss_kib().await;

    let mut stalled = stalled_watchers(&server, &id).await;
    // 300 events of about 4 KB each: 1.2 MB per watcher if it were queued.
    offer_and_decline(&mut games, &id, &white, &black, 150).await;
    let during = server.settled_rss_kib().await;
    assert!(
        during < before + 16 * 1024,
        "50 stalled watchers grew RSS from {before} KiB to {during} KiB"
    );

    // One reads again: what was in flight, then the end.
    let mut watcher = stalled.pop().unwrap();
    let mut last_version = None;
    let status = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match watcher.message().await {
                Ok(Some(message)) => last_version = Some(message.game.unwrap().version),
                Ok(None) => panic!("the stream ended without a status"),
                Err(status) => return status,
            }
        }
    })
    .await
    .expect("the watcher is told within 30 s");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "WATCHER_TOO_SLOW");
    let metadata = metadata(&status);
    assert_eq!(
        metadata.get("last_version").map(String::as_str),
        Some(
            last_version
                .expect("the snapshot at least")
                .to_string()
                .as_str()
        ),
        "{metadata:?}"
    );
    assert_eq!(metadata["limit_bytes"], BUDGET.to_string());

    // Resubscribing gives a fresh snapshot.
    let mut again = games
        .watch_game(watch_request(&id))
        .await
        .unwrap()
        .into_inner();
    let snapshot = again.message().await.unwrap().unwrap();
    assert_eq!(snapshot.kind, pb::GameEventKind::Snapshot as i32);
    assert_eq!(snapshot.game.unwrap().version, 24 + 2 * 155);
}

/// The memory a thousand watchers of one game took (over ten connections,
/// 100 each) goes back to the system once they close: RSS falls back near
/// where it was before them, not merely to a high-water mark kept for reuse.
#[tokio::test]
async fn memory_returns_to_the_system_when_watchers_close() {
    const CONNECTIONS: usize = 10;
    const PER_CONNECTION: usize = 100;
    // One address holds them all: no share of its own.
    let server = serve_with_env(&[], &[("ARBITER_MAX_STREAMS_PER_PEER", "0")]).await;
    let mut games = GamesClient::new(server.channel().await);
    let id = common::new_chess_game(&mut games, None)
        .await
        .game
        .unwrap()
        .id;
    let before = server.settled_rss_kib().await;
    let mut watchers = Vec::new();
    for _ in 0..CONNECTIONS {
        let channel = server.channel().await;
        let calls = (0..PER_CONNECTION).map(|_| {
            let mut client = GamesClient::new(channel.clone());
            let id = id.clone();
            async move { client.watch_game(watch_request(&id)).await }
        });
        for answer in futures_join(calls).await {
            watchers.push(answer.expect("a watcher under the caps"));
        }
    }
    let during = server.settled_rss_kib().await;
    let added = during.saturating_sub(before);
    assert!(
        added >= MEASURABLE_KIB,
        "{} watchers grew RSS by {added} KiB only ({before} -> {during} KiB): nothing to see \
         coming back",
        CONNECTIONS * PER_CONNECTION
    );
    drop(watchers);
    // At least half of what they took back within the deadline (the
    // allocator returns memory half a second after the streams close).
    let limit = before + added / 2;
    crate::wait_until!(
        Duration::from_secs(15),
        server.rss_kib() <= limit,
        "RSS {before} KiB -> {during} KiB with the watchers -> still {} KiB 15 s after they \
         closed (at most {limit} KiB expected)",
        server.rss_kib()
    );
}

/// Growth below which a memory figure says nothing (the thread caches and
/// page granularity of the allocator).
const MEASURABLE_KIB: u64 = 4 * 1024;

/// A TCP connection whose reading side can be stopped: a client that stops
/// reading its socket, as a stalled or malicious one does.
struct Pausable {
    stream: tokio::net::TcpStream,
    paused: Arc<std::sync::Mutex<(bool, Option<std::task::Waker>)>>,
}

impl tokio::io::AsyncRead for Pausable {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        {
            let mut paused = self.paused.lock().unwrap();
            if paused.0 {
                paused.1 = Some(cx.waker().clone());
                return std::task::Poll::Pending;
            }
        }
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Pausable {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// An HTTP/2 connection (h2, with windows of 1 GiB: flow control never
/// stops the server) whose socket can stop being read.
struct RawConnection {
    client: h2::client::SendRequest<prost::bytes::Bytes>,
    paused: Arc<std::sync::Mutex<(bool, Option<std::task::Waker>)>>,
    authority: String,
}

impl RawConnection {
    async fn open(url: &str) -> RawConnection {
        let authority = url.trim_start_matches("http://").to_owned();
        let stream = tokio::net::TcpStream::connect(&authority).await.unwrap();
        let paused = Arc::default();
        let io = Pausable {
            stream,
            paused: Arc::clone(&paused),
        };
        let (client, connection) = h2::client::Builder::new()
            .initial_window_size(1 << 30)
            .initial_connection_window_size(1 << 30)
            .handshake(io)
            .await
            .unwrap();
        tokio::spawn(connection);
        RawConnection {
            client,
            paused,
            authority,
        }
    }

    /// Starts watching `id`; the answer's headers have come.
    async fn watch(&mut self, id: &str) -> h2::RecvStream {
        let request = http::Request::post(format!(
            "http://{}/arbiter.v1.Games/WatchGame",
            self.authority
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(())
        .unwrap();
        let mut client = self.client.clone().ready().await.unwrap();
        let (answer, mut body) = client.send_request(request, false).unwrap();
        let message = watch_request(id).encode_to_vec();
        let mut frame = vec![0];
        frame.extend_from_slice(&(message.len() as u32).to_be_bytes());
        frame.extend_from_slice(&message);
        body.send_data(frame.into(), true).unwrap();
        answer.await.unwrap().into_body()
    }

    /// Stops (or resumes) reading the socket.
    fn pause(&self, paused: bool) {
        let mut state = self.paused.lock().unwrap();
        state.0 = paused;
        if let Some(waker) = state.1.take() {
            waker.wake();
        }
    }
}

/// Reads a raw watch stream to its end: the game versions of its messages,
/// and the status in its trailers (`None` if nothing came for 5 s).
async fn read_raw(mut body: h2::RecvStream) -> (Vec<i64>, Option<Status>) {
    let mut bytes = Vec::new();
    loop {
        let chunk = match tokio::time::timeout(Duration::from_secs(5), body.data()).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(_) => break,
        };
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
        bytes.extend_from_slice(&chunk);
    }
    let mut versions = Vec::new();
    let mut rest = &bytes[..];
    while rest.len() >= 5 {
        let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        let message = pb::WatchGameResponse::decode(&rest[5..5 + len]).unwrap();
        versions.push(message.game.unwrap().version);
        rest = &rest[5 + len..];
    }
    let trailers = tokio::time::timeout(Duration::from_secs(5), body.trailers()).await;
    let status = trailers
        .ok()
        .and_then(|trailers| Status::from_header_map(&trailers.unwrap()?));
    (versions, status)
}

/// Stalled clients: clients that stop reading their sockets (with windows
/// so large that flow control never stops the server) while a long game
/// goes on. The server's memory stays bounded; a client that reads again
/// gets what was sent, then `WATCHER_TOO_SLOW` with the version of the last
/// event it received.
#[tokio::test]
async fn watchers_that_stop_reading_their_sockets_cost_bounded_memory() {
    const BUDGET: &str = "65536";
    let server = serve(&["--watcher-buffer-bytes", BUDGET]).await;
    let (before, [half, during], versions, status) = stop_reading(&server).await;
    // What hyper's HTTP/2 keeps for each stream (its send buffer of
    // 400 KB, and the connection's) is bounded: it stops growing once the
    // sockets are full.
    assert!(
        during < before + 80 * 1024 && during < half + 8 * 1024,
        "50 watchers that stopped reading grew RSS from {before} KiB to {half} KiB after 600 \
         events, to {during} KiB after 1,200"
    );
    let status = status.expect("the reader is told");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "WATCHER_TOO_SLOW");
    let last = versions.last().expect("the snapshot at least");
    assert_eq!(metadata(&status)["last_version"], last.to_string());
    assert_eq!(metadata(&status)["limit_bytes"], BUDGET);
    assert!(
        versions.windows(2).all(|w| w[0] < w[1]),
        "each message is newer: {versions:?}"
    );
}

/// 50 watchers of a 24-move game over 10 connections that stop reading,
/// then 600 events (2.4 MB for each watcher, were it queued; the sockets'
/// buffers hold a few MB) and 600 more; then one connection reads again.
/// RSS before, after 600 and after 1,200 events, the versions the reader
/// got and its status.
async fn stop_reading(server: &Binary) -> (u64, [u64; 2], Vec<i64>, Option<Status>) {
    let mut games = GamesClient::new(server.channel().await);
    let (id, white, black) = long_game(&mut games).await;
    let before = server.settled_rss_kib().await;
    let mut connections = Vec::new();
    let mut streams = Vec::new();
    for _ in 0..10 {
        let mut connection = RawConnection::open(&server.url()).await;
        for _ in 0..5 {
            streams.push(connection.watch(&id).await);
        }
        connection.pause(true);
        connections.push(connection);
    }
    offer_and_decline(&mut games, &id, &white, &black, 300).await;
    let half = server.settled_rss_kib().await;
    offer_and_decline(&mut games, &id, &white, &black, 300).await;
    let during = [half, server.settled_rss_kib().await];
    connections[0].pause(false);
    let (versions, status) =
        tokio::time::timeout(Duration::from_secs(30), read_raw(streams.remove(0)))
            .await
            .expect("read within 30 s");
    (before, during, versions, status)
}

/// Watchers per game and per connection are capped; a watcher that leaves
/// frees its place.
#[tokio::test]
async fn watcher_caps_refuse_with_too_many_watchers() {
    let server = serve(&["--max-watchers-per-game", "3"]).await;
    let refused = |status: &Status, cap: &str, limit: &str| {
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert_eq!(reason(status), "TOO_MANY_WATCHERS");
        let metadata = metadata(status);
        assert_eq!(metadata["limit"], limit, "{metadata:?}");
        assert_eq!(metadata["cap"], cap, "{metadata:?}");
    };
    let mut games = GamesClient::new(server.channel().await);
    let (id, ..) = long_game(&mut games).await;
    let mut watchers = Vec::new();
    for _ in 0..3 {
        let mut client = GamesClient::new(server.channel().await);
        watchers.push(client.watch_game(watch_request(&id)).await.unwrap());
    }
    let status = games.watch_game(watch_request(&id)).await.unwrap_err();
    refused(&status, "game", "3");
    drop(watchers.pop());
    crate::wait_for!(
        Duration::from_secs(2),
        match games.watch_game(watch_request(&id)).await {
            Ok(watcher) => Some(watcher),
            Err(status) => {
                refused(&status, "game", "3");
                None
            }
        },
        "a watcher that left frees its place"
    );
}

/// The per-connection cap, set through its environment variable.
#[tokio::test]
async fn watchers_per_connection_are_capped() {
    let server = serve_with_env(&[], &[("ARBITER_MAX_WATCHERS_PER_CONNECTION", "2")]).await;
    let mut games = GamesClient::new(server.channel().await);
    let (id, ..) = long_game(&mut games).await;
    let mut watchers = Vec::new();
    for _ in 0..2 {
        watchers.push(games.watch_game(watch_request(&id)).await.unwrap());
    }
    let status = games.watch_game(watch_request(&id)).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "TOO_MANY_WATCHERS");
    let metadata = metadata(&status);
    assert_eq!(metadata["cap"], "connection", "{metadata:?}");
    assert_eq!(metadata["limit"], "2", "{metadata:?}");
    // Another connection has places of its own.
    let mut other = GamesClient::new(server.channel().await);
    other.watch_game(watch_request(&id)).await.unwrap();
}

/// The figures of watchers at scale, printed (`cargo test --test streams
/// watchers::figures -- --ignored --nocapture`; `ARBITER_BINARY` measures another
/// build): RSS after 20,000 WatchGame calls on random ids (and 20,000
/// more); with 50 stalled watchers (a stream window of 64 KiB never read)
/// on a game after 24 moves and after 300 more events, then once they are
/// gone, three times; with 10,000 watchers of one game tried; and with 50
/// watchers that stop reading their sockets ([`stop_reading`]).
#[tokio::test]
#[ignore = "a measurement, not a test"]
async fn figures() {
    let server = serve(&[]).await;
    let channel = server.channel().await;
    let start = server.settled_rss_kib().await;
    watch_random_ids(&channel, 20_000).await;
    let after_unknown = server.settled_rss_kib().await;
    watch_random_ids(&channel, 20_000).await;
    let after_more = server.settled_rss_kib().await;
    println!(
        "RSS {start} KiB -> {after_unknown} KiB after 20,000 WatchGame on random ids, \
         {after_more} KiB after 20,000 more"
    );
    drop(server);

    // A fresh server, so that the first figure does not hide the second.
    let server = serve(&[]).await;
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let before = server.settled_rss_kib().await;
    let (white, black) = (&created.white_token, &created.black_token);
    for round in 0..3 {
        let stalled = stalled_watchers(&server, &id).await;
        if round == 0 {
            for (ply, text) in OPENING.into_iter().enumerate() {
                let token = if ply % 2 == 0 { white } else { black };
                common::play(&mut games, &id, token, text).await;
            }
            let after_moves = server.settled_rss_kib().await;
            println!(
                "RSS {before} KiB -> {after_moves} KiB with 50 stalled watchers after 24 moves"
            );
        }
        offer_and_decline(&mut games, &id, white, black, 150).await;
        let after_events = server.settled_rss_kib().await;
        println!(
            "round {round}: RSS {after_events} KiB with 50 stalled watchers after 300 more events"
        );
        drop(stalled);
        // The server sees them close.
        common::let_pass(Duration::from_secs(1)).await;
        let after_close = server.settled_rss_kib().await;
        println!("round {round}: RSS {after_close} KiB once they closed");
    }
    drop(server);

    // 10,000 watchers of one game tried, over 100 connections.
    let server = serve(&[]).await;
    let mut games = GamesClient::new(server.channel().await);
    let id = common::new_chess_game(&mut games, None)
        .await
        .game
        .unwrap()
        .id;
    let before = server.settled_rss_kib().await;
    let mut watchers = Vec::new();
    let mut refused = 0;
    for _ in 0..100 {
        let channel = server.channel().await;
        let calls = (0..100).map(|_| {
            let mut client = GamesClient::new(channel.clone());
            let id = id.clone();
            async move { client.watch_game(watch_request(&id)).await }
        });
        for answer in futures_join(calls).await {
            match answer {
                Ok(watcher) => watchers.push(watcher),
                Err(_) => refused += 1,
            }
        }
    }
    let during = server.settled_rss_kib().await;
    let opened = watchers.len();
    drop(watchers);
    // The server sees them close.
    common::let_pass(Duration::from_secs(1)).await;
    let after = server.settled_rss_kib().await;
    println!(
        "RSS {before} KiB -> {during} KiB with {opened} watchers of one game ({refused} of \
         10,000 refused), {after} KiB once they closed"
    );
    drop(server);

    let server = serve(&[]).await;
    let (before, [half, during], versions, status) = stop_reading(&server).await;
    println!(
        "RSS {before} KiB -> {half} KiB -> {during} KiB with 50 watchers that stopped reading \
         their sockets, after 600 and 1,200 events; one that read again got {} messages, then \
         {status:?}",
        versions.len()
    );
}

/// The games service on its own, with serve's watcher defaults.
async fn games_service() -> (Games, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("hub.db").display());
    let store = Store::connect(&url).await.unwrap();
    let games = common::games_service(store, Arc::new(SystemTime));
    (games, dir)
}

fn human(name: &str) -> SeatSpec {
    SeatSpec {
        display_name: name.into(),
        ..SeatSpec::default()
    }
}

/// Unknown ids, a game that ends and watchers that leave: no channel is
/// left behind.
#[tokio::test]
async fn no_channel_outlives_its_watchers_or_its_game() {
    let (games, _dir) = games_service().await;
    for _ in 0..100 {
        let watches = (0..50).map(|_| {
            let games = games.clone();
            async move {
                games
                    .watch(
                        &GameId::parse(&arbiter::games::new_id()).unwrap(),
                        View::Basic,
                        Role::Spectator,
                    )
                    .await
                    .map(drop)
            }
        });
        for answer in futures_join(watches).await {
            let err = answer.expect_err("an unknown game");
            assert!(matches!(err, GameError::NotFound(_)), "{err:?}");
        }
    }
    assert_eq!(games.watched_games(), 0, "5,000 unknown ids");

    let created = games
        .create(
            Variant::Chess,
            Start::Standard,
            human("Alice"),
            human("Bob"),
            true,
            None,
        )
        .await
        .unwrap();
    let id = created.game.id.clone();
    let (_, first) = games
        .watch(&id, View::Basic, Role::Spectator)
        .await
        .unwrap();
    let (_, second) = games
        .watch(&id, View::Basic, Role::Spectator)
        .await
        .unwrap();
    assert_eq!(games.watched_games(), 1);
    drop(first);
    assert_eq!(games.watched_games(), 1);
    drop(second);
    assert_eq!(games.watched_games(), 0, "the last watcher left");

    let (_, mut watcher) = games
        .watch(&id, View::Basic, Role::Spectator)
        .await
        .unwrap();
    games.resign(&id, &created.white_token).await.unwrap();
    // The watcher reads the end; a rematch may follow it, so the channel
    // lives while the game is watched, and goes with its last watcher.
    let end = std::future::poll_fn(|cx| watcher.poll_next(cx)).await;
    assert!(end.expect("the end").expect("in time").game_over);
    assert_eq!(games.watched_games(), 1);
    drop(watcher);
    assert_eq!(
        games.watched_games(),
        0,
        "the game ended and its watcher left"
    );
}

/// The messages on the wire are byte for byte what prost encodes for the
/// generated messages: the snapshot, a move, and a mate's move and end, in
/// either view (the snapshot always has the whole game).
#[tokio::test]
async fn watch_messages_on_the_wire_are_prosts_encoding() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    for view in [pb::GameView::Unspecified, pb::GameView::Full] {
        watch_on_the_wire(&channel, view).await;
    }
    server.stop().await;
}

async fn watch_on_the_wire(channel: &Channel, view: pb::GameView) {
    let mut games = GamesClient::new(channel.clone());
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.unwrap();
    let mut raw = grpc
        .server_streaming(
            tonic::Request::new(watch_in(&id, view).encode_to_vec()),
            PathAndQuery::from_static("/arbiter.v1.Games/WatchGame"),
            Raw,
        )
        .await
        .unwrap()
        .into_inner();
    let expected = pb::WatchGameResponse {
        kind: pb::GameEventKind::Snapshot as i32,
        game: Some(common::get_game(&mut games, &id).await),
        r#move: None,
    };
    assert_eq!(raw.message().await.unwrap(), Some(expected.encode_to_vec()));
    for (ply, text) in ["f3", "e5", "g4", "Qh4#"].into_iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        let played = games
            .make_move(pb::MakeMoveRequest {
                game_id: id.clone(),
                seat_token: token.clone(),
                r#move: text.into(),
                expected_ply: None,
                // Events carry the game as the same view's answer does.
                view: match view {
                    pb::GameView::Full => view,
                    _ => pb::GameView::Basic,
                } as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let event = pb::WatchGameResponse {
            kind: pb::GameEventKind::Move as i32,
            game: played.game.clone(),
            r#move: played.r#move,
        };
        assert_eq!(
            raw.message().await.unwrap(),
            Some(event.encode_to_vec()),
            "{text}"
        );
        if text == "Qh4#" {
            let end = pb::WatchGameResponse {
                kind: pb::GameEventKind::GameEnded as i32,
                game: played.game,
                r#move: None,
            };
            assert_eq!(raw.message().await.unwrap(), Some(end.encode_to_vec()));
        }
    }
    assert_eq!(
        raw.message().await.unwrap(),
        None,
        "the stream ends after the end"
    );
}

/// Open watch streams end with UNAVAILABLE `SHUTTING_DOWN` when the server
/// shuts down.
#[tokio::test]
async fn shutting_down_ends_watch_streams_with_unavailable() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let mut watcher = common::watch(&mut games, &created.game.unwrap().id).await;
    watcher.message().await.unwrap().expect("the snapshot");
    let stopped = tokio::spawn(server.stop());
    let status = tokio::time::timeout(Duration::from_secs(10), watcher.message())
        .await
        .expect("the stream ends in time")
        .expect_err("a status");
    assert_eq!(
        common::code_and_reason(&status),
        (Code::Unavailable, "SHUTTING_DOWN".to_owned()),
        "{status:?}"
    );
    tokio::time::timeout(Duration::from_secs(10), stopped)
        .await
        .expect("the server stops")
        .unwrap();
}

/// A browser watches over grpc-web (HTTP/1.1): a finished game's snapshot,
/// then the trailers; an unknown game's NOT_FOUND.
#[tokio::test]
async fn watching_over_grpc_web() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    games
        .abort(pb::AbortRequest::by_seat(id.clone(), created.white_token))
        .await
        .unwrap();
    let watch = |id: String| async move {
        let body = common::grpc_frame(&watch_request(&id).encode_to_vec());
        common::http1_post(
            server.addr,
            "/arbiter.v1.Games/WatchGame",
            "application/grpc-web+proto",
            &body,
        )
        .await
    };
    let text = watch(id.clone()).await;
    assert!(text.starts_with("http/1.1 200"), "{text}");
    assert!(text.contains(&id), "the snapshot: {text}");
    assert!(text.contains("grpc-status:0"), "{text}");
    let text = watch("nosuchgame".into()).await;
    assert!(text.contains("grpc-status: 5"), "{text}");
    server.stop().await;
}

/// Prints the server's CPU time (`/proc/PID/stat`) for one WatchGame
/// resumed from version 0 of a game of 2,000 plies, and one resumed 256
/// events back, each read until it has caught up with the game, in both
/// views. `ARBITER_BINARY` measures another build.
#[tokio::test]
#[ignore = "a measurement, not a test"]
async fn resume_figures() {
    const PLIES: usize = 2_000;
    let server = serve(&[]).await;
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let tokens = [created.white_token, created.black_token];
    for (ply, text) in common::long_game::long_game(PLIES).iter().enumerate() {
        common::play(&mut games, &id, &tokens[ply % 2], text).await;
    }
    let resumes = [0, PLIES as i64 - 256]
        .into_iter()
        .flat_map(|from| [pb::GameView::Basic, pb::GameView::Full].map(|view| (from, view)));
    for (from, view) in resumes {
        let before = server.cpu_ticks();
        let mut resumed = games
            .watch_game(pb::WatchGameRequest {
                game_id: id.clone(),
                from_version: Some(from),
                view: view as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let (mut messages, mut bytes) = (0, 0);
        loop {
            let message = resumed.message().await.unwrap().unwrap();
            messages += 1;
            bytes += message.encoded_len();
            if message.game.unwrap().version == PLIES as i64 {
                break;
            }
        }
        let used = server.cpu_ticks() - before;
        println!(
            "from version {from}, {view:?}: {messages} messages, {bytes} bytes, {} ms of server CPU",
            used * 10
        );
    }
}
