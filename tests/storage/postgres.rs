//! PostgreSQL as the shared store: several servers on one database serve
//! any call on any game, of concurrent moves exactly one wins whichever
//! server gets it, lost connections and an unreachable database are
//! survived, and unusable URLs stop the start.
//!
//! These tests need a PostgreSQL server (see `common::database`); without
//! one they say so and pass, except under `CI=true`.

use crate::common::{self, SeatRequest};

use std::time::Duration;

use arbiter::{
    api::proto as pb,
    store::{Lease, Store},
};
use common::{TestServer, database::postgres_or_skip, play, wait_health};
use tokio::{
    io::copy_bidirectional,
    net::{TcpListener, TcpStream},
    sync::watch,
};
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;

/// A game made on one server is played, offered, taken back and read on the
/// other, and both see the same game.
#[tokio::test]
async fn two_servers_on_one_database_serve_any_call() {
    let Some(db) = postgres_or_skip("two_servers_on_one_database_serve_any_call").await else {
        return;
    };
    let (a, b) = (
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    );
    let (mut on_a, mut on_b) = (a.games().await, b.games().await);
    let created = common::new_chess_game(&mut on_a, None).await;
    let id = created.game.as_ref().unwrap().id.clone();
    play(&mut on_b, &id, &created.white_token, "e4").await;
    play(&mut on_a, &id, &created.black_token, "e5").await;
    play(&mut on_b, &id, &created.white_token, "Qh5").await;
    common::propose_takeback(&mut on_a, &id, &created.white_token)
        .await
        .unwrap();
    common::respond_to_takeback(&mut on_b, &id, &created.black_token, true)
        .await
        .unwrap();
    on_a.offer_draw(pb::OfferDrawRequest::by_seat(
        id.clone(),
        created.black_token.clone(),
    ))
    .await
    .unwrap();
    let (seen_a, seen_b) = (
        common::get_game(&mut on_a, &id).await,
        common::get_game(&mut on_b, &id).await,
    );
    assert_eq!(seen_a, seen_b);
    assert_eq!(seen_a.ply, 2);
    assert_eq!(seen_a.draw_offer, pb::Side::Black as i32);
    // A seat token is the game's, whichever server checks it.
    let refused = on_b
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: created.black_token.clone(),
            r#move: "Nf3".into(),
            expected_ply: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_ne!(refused.code(), Code::Ok, "{refused:?}");
    a.stop().await;
    b.stop().await;
}

/// Ends every connection to `pool`'s database but the one that asks, from
/// the database's side (`pg_terminate_backend`).
async fn cut_connections(pool: &sqlx::AnyPool) {
    sqlx::query(
        "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity \
         WHERE datname = current_database() AND pid != pg_backend_pid()",
    )
    .fetch_all(pool)
    .await
    .unwrap();
}

/// Reads `stream` to its end: each event's kind and game version.
async fn events(
    mut stream: tonic::Streaming<pb::WatchGameResponse>,
) -> Vec<(pb::GameEventKind, i64)> {
    let mut seen = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("an event within 10 s")
        .unwrap_or_else(|status| panic!("after {seen:?}: {status:?}"))
    {
        seen.push((event.kind(), event.game.unwrap().version));
    }
    seen
}

/// The events a watcher sees are those of a game played through two other
/// servers: every one, in order, once each.
async fn watched_from_elsewhere(cut_listeners: bool) {
    use pb::GameEventKind as K;
    let test = if cut_listeners {
        "a_watcher_misses_nothing_when_the_database_listener_reconnects"
    } else {
        "a_watcher_on_one_server_sees_every_event_made_on_others"
    };
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let (a, b, c) = (
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    );
    let (mut on_a, mut on_b, mut on_c) = (a.games().await, b.games().await, c.games().await);
    let created = common::new_chess_game(&mut on_a, None).await;
    let id = created.game.as_ref().unwrap().id.clone();
    let watching = tokio::spawn(events(common::watch(&mut on_b, &id).await));
    let admin = db.pool().await;
    let cut = || async {
        if cut_listeners {
            cut_connections(&admin).await;
        }
    };
    let (w, bl) = (&created.white_token, &created.black_token);
    for (i, text) in ["e4", "e5", "Nf3", "Nc6"].into_iter().enumerate() {
        let (games, token) = if i % 2 == 0 {
            (&mut on_a, w)
        } else {
            (&mut on_c, bl)
        };
        cut().await;
        play(games, &id, token, text).await;
    }
    on_c.offer_draw(pb::OfferDrawRequest::by_seat(id.clone(), w.clone()))
        .await
        .unwrap();
    cut().await;
    on_a.respond_to_draw(pb::RespondToDrawRequest {
        accept: false,
        ..pb::RespondToDrawRequest::by_seat(id.clone(), bl.clone())
    })
    .await
    .unwrap();
    common::propose_takeback(&mut on_c, &id, bl).await.unwrap();
    common::respond_to_takeback(&mut on_a, &id, w, true)
        .await
        .unwrap();
    cut().await;
    on_c.resign(pb::ResignRequest::by_seat(id.clone(), w.clone()))
        .await
        .unwrap();
    let seen = watching.await.unwrap();
    let expected = [
        K::Snapshot,
        K::Move,
        K::Move,
        K::Move,
        K::Move,
        K::DrawOffered,
        K::DrawDeclined,
        K::TakebackProposed,
        K::TakebackAccepted,
        K::GameEnded,
    ];
    let kinds: Vec<_> = seen.iter().map(|(kind, _)| *kind).collect();
    assert_eq!(kinds, expected);
    let versions: Vec<_> = seen.iter().map(|(_, version)| *version).collect();
    assert_eq!(
        versions,
        (0..10).collect::<Vec<i64>>(),
        "versions in order, none twice"
    );
    admin.close().await;
    for server in [a, b, c] {
        server.stop().await;
    }
}

#[tokio::test]
async fn a_watcher_on_one_server_sees_every_event_made_on_others() {
    watched_from_elsewhere(false).await;
}

/// Every connection of the database cut before most changes, the
/// listeners' too: what they miss meanwhile is read from the store.
#[tokio::test]
async fn a_watcher_misses_nothing_when_the_database_listener_reconnects() {
    watched_from_elsewhere(true).await;
}

/// A stream lost on one server resumes on another from the last version
/// it saw: the events made meanwhile, then the live ones made on the first
/// server, in order and once each, through the game's end.
#[tokio::test]
async fn a_stream_lost_on_one_server_resumes_on_another() {
    let Some(db) = postgres_or_skip("a_stream_lost_on_one_server_resumes_on_another").await else {
        return;
    };
    let (first, second) = (
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    );
    let (mut a, mut b) = (first.games().await, second.games().await);
    let created = common::new_chess_game(&mut a, None).await;
    let id = created.game.unwrap().id;
    let tokens = [created.white_token, created.black_token];
    let mut lost = common::watch(&mut a, &id).await;
    lost.message().await.unwrap().unwrap();
    play(&mut a, &id, &tokens[0], "f3").await;
    assert_eq!(
        lost.message().await.unwrap().unwrap().game.unwrap().version,
        1
    );
    drop(lost);
    play(&mut a, &id, &tokens[1], "e5").await;
    let resumed = b
        .watch_game(pb::WatchGameRequest {
            game_id: id.clone(),
            from_version: Some(1),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    play(&mut a, &id, &tokens[0], "g4").await;
    play(&mut a, &id, &tokens[1], "Qh4#").await;
    use pb::GameEventKind as K;
    assert_eq!(
        events(resumed).await,
        [(K::Move, 2), (K::Move, 3), (K::Move, 4), (K::GameEnded, 4)]
    );
}

/// A player's stream on one server hears of its games written on
/// another: its turn after the opponent's move, a draw offered to it, and
/// the end, after which the stream ends.
#[tokio::test]
async fn a_player_stream_hears_of_games_written_on_another_server() {
    use pb::PlayerEventKind::*;
    let Some(db) =
        postgres_or_skip("a_player_stream_hears_of_games_written_on_another_server").await
    else {
        return;
    };
    let (first, second) = (
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    );
    let (mut a, mut b) = (first.games().await, second.games().await);
    let created = common::new_chess_game(&mut a, None).await;
    let id = created.game.unwrap().id;
    let (white, black) = (created.white_token, created.black_token);
    let mut bob = common::watch_player(&mut b, &[(&id, &black)])
        .await
        .unwrap();
    let mut next = async || common::next_player_event(&mut bob).await;
    assert_eq!(next().await, Some((GameStarted, id.clone())));
    play(&mut a, &id, &white, "e4").await;
    assert_eq!(next().await, Some((YourTurn, id.clone())));
    a.offer_draw(pb::OfferDrawRequest::by_seat(id.clone(), white.clone()))
        .await
        .unwrap();
    assert_eq!(next().await, Some((DrawOffered, id.clone())));
    a.resign(pb::ResignRequest::by_seat(id.clone(), white))
        .await
        .unwrap();
    assert_eq!(next().await, Some((GameEnded, id.clone())));
    assert_eq!(next().await, None);
}

/// Of moves for one ply sent to three servers at once, exactly one is
/// played; the others are ABORTED.
#[tokio::test]
async fn concurrent_moves_on_different_servers_exactly_one_wins() {
    let Some(db) = postgres_or_skip("concurrent_moves_on_different_servers_exactly_one_wins").await
    else {
        return;
    };
    let servers = [
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    ];
    let mut clients = Vec::new();
    for server in &servers {
        clients.push(server.games().await);
    }
    for round in 0..10 {
        let created = common::new_chess_game(&mut clients[round % 3], None).await;
        let id = created.game.as_ref().unwrap().id.clone();
        let try_move = |client: &pb::games_client::GamesClient<_>, text: &str| {
            let mut client = client.clone();
            let request = pb::MakeMoveRequest {
                game_id: id.clone(),
                seat_token: created.white_token.clone(),
                r#move: text.into(),
                expected_ply: Some(0),
                ..Default::default()
            };
            async move { client.make_move(request).await.map(drop) }
        };
        let (x, y, z) = tokio::join!(
            try_move(&clients[0], "e4"),
            try_move(&clients[1], "d4"),
            try_move(&clients[2], "c4"),
        );
        let results = [x, y, z];
        let won = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(won, 1, "{results:?}");
        for lost in results.iter().filter_map(|r| r.as_ref().err()) {
            assert_eq!(lost.code(), Code::Aborted, "{lost:?}");
        }
        assert_eq!(common::get_game(&mut clients[1], &id).await.ply, 1);
    }
    for server in servers {
        server.stop().await;
    }
}

/// The server that owned a clocked game stops (giving its leases up):
/// another server on the database takes the game over at its next lease
/// renewal, lets the flag fall, about that late, and tells its watchers.
#[tokio::test]
async fn a_flag_falls_on_another_server_when_the_games_server_is_gone() {
    let Some(db) =
        postgres_or_skip("a_flag_falls_on_another_server_when_the_games_server_is_gone").await
    else {
        return;
    };
    let (a, b) = (
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    );
    let mut on_a = a.games().await;
    let created = common::create_clocked_game(&mut on_a, 2_000).await;
    let id = created.game.as_ref().unwrap().id.clone();
    play(&mut on_a, &id, &created.white_token, "e4").await;
    let flag_due = play(&mut on_a, &id, &created.black_token, "e5").await;
    let white_left = flag_due.clock.as_ref().unwrap().white_ms;
    a.stop().await; // White's clock runs; its timer went with its server.
    let stopped = std::time::Instant::now();
    let mut on_b = b.games().await;
    let seen = events(common::watch(&mut on_b, &id).await).await;
    assert_eq!(
        seen.last().map(|(kind, _)| *kind),
        Some(pb::GameEventKind::GameEnded),
        "{seen:?}"
    );
    let game = common::get_game(&mut on_b, &id).await;
    let outcome = game.outcome.unwrap();
    assert_eq!(outcome.termination, pb::Termination::Timeout as i32);
    assert_eq!(outcome.winner, pb::Side::Black as i32);
    let late = stopped
        .elapsed()
        .saturating_sub(Duration::from_millis(white_left as u64));
    assert!(late < Duration::from_secs(3), "the flag fell {late:?} late");
    b.stop().await;
}

/// The server that owned an engine seat's game stops before the engine
/// moved: another server on the database takes the game over and searches
/// the move, and the engine moves exactly once.
#[tokio::test]
async fn an_engine_seat_moves_from_another_server_when_the_games_server_is_gone() {
    let Some(db) =
        postgres_or_skip("an_engine_seat_moves_from_another_server_when_the_games_server_is_gone")
            .await
    else {
        return;
    };
    let (a, b) = (
        TestServer::start_on(&db).await,
        TestServer::start_on(&db).await,
    );
    let mut on_a = a.games().await;
    // Full strength thinks for its whole time: A is gone before its search
    // ends.
    let created = common::create_engine_game(&mut on_a, 10, 2_000).await;
    let id = created.game.as_ref().unwrap().id.clone();
    play(&mut on_a, &id, &created.white_token, "e4").await;
    a.stop().await; // Its search had no time to finish.
    let mut on_b = b.games().await;
    let mut stream = common::watch(&mut on_b, &id).await;
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(15), stream.message())
            .await
            .unwrap_or_else(|_| panic!("the engine moves within 15 s (seen {seen:?})"))
            .unwrap()
            .unwrap();
        seen.push((event.kind(), event.game.unwrap().ply));
    }
    assert_eq!(
        seen,
        [
            (pb::GameEventKind::Snapshot, 1),
            (pb::GameEventKind::Move, 2)
        ]
    );
    // Exactly once: nothing follows (it is the human's turn).
    common::let_pass(Duration::from_secs(2)).await;
    assert_eq!(common::get_game(&mut on_b, &id).await.ply, 2);
    b.stop().await;
}

/// Every server connection killed from the database's side
/// (`pg_terminate_backend`) between moves: the next calls may fail with
/// UNAVAILABLE, then the service goes on, and every acknowledged move is
/// stored.
#[tokio::test]
async fn killed_database_connections_lose_no_acknowledged_move() {
    let Some(db) = postgres_or_skip("killed_database_connections_lose_no_acknowledged_move").await
    else {
        return;
    };
    let server = TestServer::start_on(&db).await;
    let mut games = server.games().await;
    let admin = db.pool().await;
    // Knights out and back: 12 plies stay short of a fivefold repetition.
    let line = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let (mut tried, mut acknowledged) = (0, 0);
    for _ in 0..4 {
        let created = common::new_chess_game(&mut games, None).await;
        let id = created.game.as_ref().unwrap().id.clone();
        let mut ply = 0;
        for attempt in 0..12 {
            if attempt % 3 == 1 {
                cut_connections(&admin).await;
            }
            let token = if ply % 2 == 0 {
                &created.white_token
            } else {
                &created.black_token
            };
            let request = pb::MakeMoveRequest {
                game_id: id.clone(),
                seat_token: token.clone(),
                r#move: line[ply % 4].into(),
                expected_ply: Some(ply as u32),
                ..Default::default()
            };
            tried += 1;
            match games.make_move(request).await {
                Ok(_) => ply += 1,
                Err(status) => assert_eq!(status.code(), Code::Unavailable, "{status:?}"),
            }
        }
        let stored: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM moves JOIN games ON games.seq = moves.game_seq \
             WHERE games.id = $1",
        )
        .bind(&id)
        .fetch_one(&admin)
        .await
        .unwrap();
        assert_eq!(stored, ply as i64, "game {id}");
        acknowledged += ply;
    }
    eprintln!("{acknowledged} of {tried} moves acknowledged");
    assert!(
        acknowledged * 2 >= tried,
        "only {acknowledged} of {tried} moves went through"
    );
    admin.close().await;
    server.stop().await;
}

/// A TCP relay to the PostgreSQL server that can be cut (every connection
/// closed, new ones closed at once) and mended.
struct Relay {
    port: u16,
    up: watch::Sender<bool>,
}

impl Relay {
    async fn start(target: String) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = watch::Sender::new(true);
        let state = up.subscribe();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let mut state = state.clone();
                if !*state.borrow() {
                    continue; // dropped: closed at once
                }
                let target = target.clone();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(&target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = copy_bidirectional(&mut client, &mut server) => {}
                        _ = state.wait_for(|up| !up) => {}
                    }
                });
            }
        });
        Relay { port, up }
    }

    fn set_up(&self, up: bool) {
        self.up.send_replace(up);
    }
}

/// While the database cannot be reached, health says NOT_SERVING and calls
/// fail with UNAVAILABLE; once it can, the server serves again by itself.
#[tokio::test]
async fn an_unreachable_database_is_reported_and_recovered_from() {
    let Some(db) = postgres_or_skip("an_unreachable_database_is_reported_and_recovered_from").await
    else {
        return;
    };
    let direct = url::Url::parse(&db.url()).unwrap();
    let target = format!(
        "{}:{}",
        direct.host_str().unwrap(),
        direct.port().unwrap_or(5432)
    );
    let relay = Relay::start(target).await;
    let mut relayed = direct.clone();
    relayed.set_host(Some("127.0.0.1")).unwrap();
    relayed.set_port(Some(relay.port)).unwrap();
    let server = TestServer::start_on_configured(&db, |config| arbiter::server::ServerConfig {
        database_url: relayed.to_string(),
        ..config
    })
    .await;
    let channel = server.channel().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &created.white_token, "e4").await;

    relay.set_up(false);
    // Nothing is written meanwhile: health finds out by itself.
    wait_health(&channel, ServingStatus::NotServing, Duration::from_secs(10)).await;
    let refused = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: created.black_token.clone(),
            r#move: "e5".into(),
            expected_ply: Some(1),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&refused),
        (Code::Unavailable, "STORE_UNAVAILABLE".into()),
        "{refused:?}"
    );

    relay.set_up(true);
    wait_health(&channel, ServingStatus::Serving, Duration::from_secs(10)).await;
    play(&mut games, &id, &created.black_token, "e5").await;
    assert_eq!(common::get_game(&mut games, &id).await.ply, 2);
    server.stop().await;
}

/// `sslmode=require` in the URL: the server talks to PostgreSQL over TLS.
#[tokio::test]
async fn postgres_over_tls() {
    let Some(db) = postgres_or_skip("postgres_over_tls").await else {
        return;
    };
    let admin = db.pool().await;
    let ssl: String = sqlx::query_scalar("SHOW ssl")
        .fetch_one(&admin)
        .await
        .unwrap();
    admin.close().await;
    if ssl != "on" {
        eprintln!("skipped postgres_over_tls: the PostgreSQL server has ssl = {ssl}");
        return;
    }
    let server = TestServer::start_on_configured(&db, |config| arbiter::server::ServerConfig {
        database_url: format!("{}?sslmode=require", db.url()),
        ..config
    })
    .await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &created.white_token, "e4").await;
    let admin = db.pool().await;
    let encrypted: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) \
         WHERE datname = current_database() AND ssl AND pid != pg_backend_pid()",
    )
    .fetch_one(&admin)
    .await
    .unwrap();
    assert!(encrypted > 0, "no connection of the server uses TLS");
    admin.close().await;
    server.stop().await;
}

/// `arbiter serve` on this URL exits at once: its exit code and stderr.
async fn refused_start(url: &str) -> (i32, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url", url])
        .env("RUST_LOG", "info")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(15), output)
        .await
        .expect("the server exits")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().unwrap_or(-1), stderr)
}

/// A malformed URL, an unknown scheme or a server that does not answer
/// stops the start at once with a message naming the URL, never its
/// password. (Needs no PostgreSQL.)
#[tokio::test]
async fn unusable_database_urls_stop_the_start_with_a_message() {
    let unused = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed_port = unused.local_addr().unwrap().port();
    drop(unused);
    let refused = format!("postgres://arbiter:hunter2@127.0.0.1:{closed_port}/games");
    for (url, says) in [
        (
            "mysql://root:hunter2@127.0.0.1/games",
            "unknown database URL",
        ),
        (
            "postgres://arbiter:hunter2@/games",
            "malformed database URL",
        ),
        (&refused, "cannot open the database"),
        ("no-scheme-at-all", "unknown database URL"),
    ] {
        let started = std::time::Instant::now();
        let (code, stderr) = refused_start(url).await;
        assert_ne!(code, 0, "{url}: {stderr}");
        assert!(stderr.contains(says), "{url}: {stderr}");
        assert!(
            !stderr.contains("hunter2"),
            "{url} shows its password: {stderr}"
        );
        if url.contains('@') {
            assert!(stderr.contains(":***@"), "{url}: {stderr}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(12),
            "{url} took {:?}",
            started.elapsed()
        );
    }
}

/// Renewals on several servers at once, every lease run out first (as
/// after an outage of the database): none fails, no shard is claimed by
/// two, and they end sharing the shards evenly.
#[tokio::test]
async fn concurrent_renewals_after_every_lease_ran_out_share_the_shards() {
    let test = "concurrent_renewals_after_every_lease_ran_out_share_the_shards";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let store = Store::connect(&db.url()).await.unwrap();
    for _ in 0..20 {
        // Held for no time: every lease and every replica runs out at once.
        renew_all(&store, 0).await;
        let held = renew_all(&store, 60_000).await;
        let mut shards: Vec<i64> = held.iter().flatten().map(|lease| lease.shard).collect();
        let claimed = shards.len();
        shards.sort_unstable();
        shards.dedup();
        assert_eq!(shards.len(), claimed, "a shard claimed twice: {held:?}");
    }
    let mut held = Vec::new();
    for _ in 0..5 {
        held = renew_all(&store, 60_000)
            .await
            .map(|leases| leases.len())
            .to_vec();
    }
    assert_eq!(held, [22, 21, 21]);
    store.close().await;
}

/// The leases servers `a`, `b` and `c` hold after renewing theirs at once
/// for `duration_ms`.
async fn renew_all(store: &Store, duration_ms: i64) -> [Vec<Lease>; 3] {
    let renew = |owner| async move {
        store
            .renew_and_claim_leases(owner, duration_ms)
            .await
            .unwrap()
    };
    let (a, b, c) = tokio::join!(renew("a"), renew("b"), renew("c"));
    [a, b, c]
}
