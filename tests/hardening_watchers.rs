//! WatchGame under hostile or careless watchers, on the real binary (memory
//! from `/proc/PID/status`) and in-process: unknown ids retain nothing, a
//! game's channel goes away when it ends or its last watcher leaves, a
//! stalled watcher costs bounded memory and learns it fell behind, and the
//! watcher caps hold.

mod common;

use std::{collections::HashMap, time::Duration};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use tokio::process::{Child, Command};
use tonic::{
    Code, Status,
    transport::{Channel, Endpoint},
};
use tonic_types::StatusExt;

/// The real binary on a free port with a fresh database, killed on drop.
struct Binary {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Binary {
    async fn start(args: &[&str]) -> Binary {
        Binary::start_with_env(args, &[]).await
    }

    async fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Binary {
        let dir = tempfile::tempdir().unwrap();
        let db = format!("sqlite://{}", dir.path().join("watch.db").display());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["serve", "--listen", &listen, "--database-url", &db])
            .args(args)
            .envs(env.iter().copied())
            .env("RUST_LOG", "warn")
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let binary = Binary {
            child,
            url: format!("http://{listen}"),
            _dir: dir,
        };
        binary.channel().await;
        binary
    }

    /// A new connection (waits for the server to come up).
    async fn channel(&self) -> Channel {
        self.channel_with(Endpoint::from_shared(self.url.clone()).unwrap())
            .await
    }

    async fn channel_with(&self, endpoint: Endpoint) -> Channel {
        for _ in 0..250 {
            if let Ok(channel) = endpoint.connect().await {
                return channel;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server at {} did not come up", self.url);
    }

    /// Resident memory in KiB.
    fn rss_kib(&self) -> u64 {
        let pid = self.child.id().expect("running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// RSS once it has stopped falling (freed memory goes back to the
    /// system after a short delay), at most two seconds.
    async fn settled_rss_kib(&self) -> u64 {
        let mut last = self.rss_kib();
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let now = self.rss_kib();
            if now >= last {
                return now;
            }
            last = now;
        }
        last
    }
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
            .offer_draw(pb::OfferDrawRequest {
                game_id: id.into(),
                seat_token: white.into(),
            })
            .await
            .unwrap();
        games
            .respond_to_draw(pb::RespondToDrawRequest {
                game_id: id.into(),
                seat_token: black.into(),
                accept: false,
            })
            .await
            .unwrap();
    }
}

fn watch_request(id: &str) -> pb::WatchGameRequest {
    pb::WatchGameRequest { game_id: id.into() }
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
    let server = Binary::start(&[]).await;
    let channel = server.channel().await;
    // Warm up the connection, the allocator and the database pool first.
    watch_random_ids(&channel, 500).await;
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
    let server = Binary::start(&["--watcher-buffer-bytes", &BUDGET.to_string()]).await;
    let mut games = GamesClient::new(server.channel().await);
    let (id, white, black) = long_game(&mut games).await;
    offer_and_decline(&mut games, &id, &white, &black, 5).await;
    let before = server.settled_rss_kib().await;

    let mut stalled = Vec::new();
    for _ in 0..5 {
        let endpoint = Endpoint::from_shared(server.url.clone())
            .unwrap()
            .initial_stream_window_size(Some(64 * 1024));
        let channel = server.channel_with(endpoint).await;
        for _ in 0..10 {
            let mut client = GamesClient::new(channel.clone());
            let stream = client.watch_game(watch_request(&id)).await.unwrap();
            stalled.push(stream.into_inner());
        }
    }
    // 300 events of about 6 KB each: 1.8 MB per watcher if it were queued.
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

/// Watchers per game and per connection are capped; a watcher that leaves
/// frees its place.
#[tokio::test]
async fn watcher_caps_refuse_with_too_many_watchers() {
    let server = Binary::start(&["--max-watchers-per-game", "3"]).await;
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
    let mut place = None;
    for _ in 0..100 {
        match games.watch_game(watch_request(&id)).await {
            Ok(watcher) => {
                place = Some(watcher);
                break;
            }
            Err(status) => refused(&status, "game", "3"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(place.is_some(), "a watcher that left frees its place");
}

/// The per-connection cap, set through its environment variable.
#[tokio::test]
async fn watchers_per_connection_are_capped() {
    let server = Binary::start_with_env(&[], &[("ARBITER_MAX_WATCHERS_PER_CONNECTION", "2")]).await;
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

/// The figures, printed (`cargo test --test hardening_watchers
/// figures -- --ignored --nocapture`): RSS after 20,000 WatchGame calls on
/// random ids, and with 50 stalled watchers (a stream window of 64 KiB
/// never read) on a game after 24 moves and after 300 more events, then
/// once they are gone.
#[tokio::test]
#[ignore = "a measurement, not a test"]
async fn figures() {
    let server = Binary::start(&[]).await;
    let channel = server.channel().await;
    let start = server.settled_rss_kib().await;
    watch_random_ids(&channel, 20_000).await;
    let after_unknown = server.settled_rss_kib().await;
    println!("RSS {start} KiB -> {after_unknown} KiB after 20,000 WatchGame on random ids");

    drop(server);

    // A fresh server, so that the first figure does not hide the second.
    let server = Binary::start(&[]).await;
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let before = server.settled_rss_kib().await;
    let mut stalled = Vec::new();
    for _ in 0..5 {
        let endpoint = Endpoint::from_shared(server.url.clone())
            .unwrap()
            .initial_stream_window_size(Some(64 * 1024));
        let channel = server.channel_with(endpoint).await;
        for _ in 0..10 {
            let mut client = GamesClient::new(channel.clone());
            stalled.push(client.watch_game(watch_request(&id)).await.unwrap());
        }
    }
    for (ply, text) in OPENING.into_iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        common::play(&mut games, &id, token, text).await;
    }
    let after_moves = server.settled_rss_kib().await;
    println!("RSS {before} KiB -> {after_moves} KiB with 50 stalled watchers after 24 moves");
    offer_and_decline(
        &mut games,
        &id,
        &created.white_token,
        &created.black_token,
        150,
    )
    .await;
    let after_events = server.settled_rss_kib().await;
    println!("RSS {after_events} KiB with 50 stalled watchers after 300 more events");
    drop(stalled);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after_close = server.settled_rss_kib().await;
    println!("RSS {after_close} KiB once they closed");
}
