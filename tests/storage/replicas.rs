//! Three real `arbiter serve` processes on one PostgreSQL database: any
//! call on any replica, live events across them, the shards of games
//! spread evenly over the replicas live, flags and engine seats taken over
//! from a replica killed with SIGKILL, and no acknowledged move lost when
//! the database drops every connection or every replica is killed.
//!
//! The replicas run with short leases ([`LEASE`], renewed every
//! [`RENEW`]) so that takeovers are quick. These tests need a PostgreSQL
//! server (see `common::database`); without one they say so and pass,
//! except under `CI=true`.

use crate::common::{self, SeatRequest};

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::api::proto as pb;
use common::{
    binary::{Binary, Serve},
    database::{TestDatabase, postgres_or_skip},
    play,
};
use pb::{GameEventKind as K, games_client::GamesClient};
use tonic::{Code, transport::Channel};
use tonic_health::pb::health_check_response::ServingStatus;

/// `--lease-duration` of the replicas.
const LEASE: Duration = Duration::from_secs(2);
/// `--lease-renew-interval` of the replicas.
const RENEW: Duration = Duration::from_millis(500);

/// Knights out and back: no capture, no mate; the start comes back every
/// 4 plies, so a game of it ends by fivefold repetition at ply 16 (games
/// here are shorter).
const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

/// A replica on `db`, with metrics on `metrics` if given; up once it
/// serves.
async fn replica(db: &TestDatabase, metrics: Option<&str>) -> Binary {
    let mut args = vec![
        format!("--lease-duration={}ms", LEASE.as_millis()),
        format!("--lease-renew-interval={}ms", RENEW.as_millis()),
        // The load creates games faster than a client of the world may.
        "--create-rate=0".to_owned(),
    ];
    if let Some(addr) = metrics {
        args.push(format!("--metrics-listen={addr}"));
    }
    up(Serve::on_url(db.url()).args(args)).await
}

/// Starts `serve` and waits until it serves.
pub(crate) async fn up(serve: Serve) -> Binary {
    let replica = serve.start().await;
    // Its port takes connections before it serves: a call tells.
    common::wait_health(
        &replica.channel().await,
        ServingStatus::Serving,
        Duration::from_secs(10),
    )
    .await;
    replica
}

/// Three replicas, started one after another, once they share the shards
/// evenly (so that a game's owner stays while they live).
async fn three_replicas(db: &TestDatabase) -> [Binary; 3] {
    let first = replica(db, None).await;
    let replicas = [first, replica(db, None).await, replica(db, None).await];
    spread_over(db, &replicas, SPREAD_WITHIN).await;
    replicas
}

/// Shards of games (as the migration makes them).
const SHARDS: i64 = 64;

/// Bound on the wait for the shards to spread once the replicas are up:
/// any earlier owners' leases run out (a previous run's replicas killed),
/// then each joiner's share is given up and claimed within two renewals.
const SPREAD_WITHIN: Duration = Duration::from_secs(15);

/// Waits (at most `within`) until `replicas` hold every shard, each its
/// fair share (the shards over the replicas, rounded down or up); how long
/// it took.
async fn spread_over(db: &TestDatabase, replicas: &[Binary], within: Duration) -> Duration {
    let live = replicas.len() as i64;
    let fair = (SHARDS / live)..=(SHARDS + live - 1) / live;
    let began = Instant::now();
    let mut held = Vec::new();
    crate::wait_until!(
        within,
        {
            held.clear();
            for replica in replicas {
                held.push(leases_of(db, replica.pid()).await);
            }
            held.iter().sum::<i64>() == SHARDS && held.iter().all(|n| fair.contains(n))
        },
        "not spread within {within:?}: {held:?}"
    );
    began.elapsed()
}

/// Which of the replicas `pids` owns game `id` (holds its shard's lease).
async fn owner_of(db: &TestDatabase, pids: &[u32], id: &str) -> Option<usize> {
    let pool = db.pool().await;
    let owner: String = sqlx::query_scalar("SELECT owner FROM leases WHERE shard = $1")
        .bind(arbiter::store::shard_of(id, SHARDS))
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    pids.iter()
        .position(|pid| owner.starts_with(&format!("{pid}-")))
}

/// Process ids of `replicas`.
fn pids(replicas: &[Binary]) -> Vec<u32> {
    replicas.iter().map(Binary::pid).collect()
}

async fn client(replica: &Binary) -> GamesClient<Channel> {
    GamesClient::new(replica.channel().await)
}

async fn clients_of(replicas: &[Binary]) -> Vec<GamesClient<Channel>> {
    let mut clients = Vec::new();
    for replica in replicas {
        clients.push(client(replica).await);
    }
    clients
}

/// Leases held by the process `pid` (a lease's owner names its process).
async fn leases_of(db: &TestDatabase, pid: u32) -> i64 {
    let pool = db.pool().await;
    let held = sqlx::query_scalar(
        "SELECT count(*) FROM leases WHERE owner LIKE $1 \
         AND expires_at > CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)",
    )
    .bind(format!("{pid}-%"))
    .fetch_one(&pool)
    .await
    .unwrap();
    pool.close().await;
    held
}

/// The next event of `stream` within `within`: its kind and the game.
async fn next_event(
    stream: &mut tonic::Streaming<pb::WatchGameResponse>,
    within: Duration,
) -> (K, pb::Game) {
    let event = tokio::time::timeout(within, stream.message())
        .await
        .unwrap_or_else(|_| panic!("no event within {within:?}"))
        .expect("the stream goes on")
        .expect("an event");
    (event.kind(), event.game.unwrap())
}

/// A watcher on one replica sees every event of a game played through the
/// other two, in order, once each.
#[tokio::test]
async fn a_watcher_on_one_replica_sees_a_game_played_through_the_other_two() {
    let test = "a_watcher_on_one_replica_sees_a_game_played_through_the_other_two";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let [a, b, c] = three_replicas(&db).await;
    let (mut on_a, mut on_b, mut on_c) = (client(&a).await, client(&b).await, client(&c).await);
    let created = common::new_chess_game(&mut on_a, None).await;
    let id = created.game.as_ref().unwrap().id.clone();
    let mut watching = common::watch(&mut on_b, &id).await;
    let (w, bl) = (&created.white_token, &created.black_token);
    for (ply, text) in ["e4", "e5", "Nf3", "Nc6"].into_iter().enumerate() {
        let (games, token) = if ply % 2 == 0 {
            (&mut on_a, w)
        } else {
            (&mut on_c, bl)
        };
        play(games, &id, token, text).await;
    }
    on_c.resign(pb::ResignRequest::by_seat(id.clone(), w.clone()))
        .await
        .unwrap();
    let mut seen = Vec::new();
    loop {
        let (kind, game) = next_event(&mut watching, Duration::from_secs(10)).await;
        seen.push((kind, game.version));
        if kind == K::GameEnded {
            break;
        }
    }
    assert_eq!(
        seen,
        [
            (K::Snapshot, 0),
            (K::Move, 1),
            (K::Move, 2),
            (K::Move, 3),
            (K::Move, 4),
            (K::GameEnded, 5)
        ]
    );
}

/// Of moves for one ply sent to the three replicas at once, exactly one is
/// played; the others are ABORTED.
#[tokio::test]
async fn concurrent_moves_spread_over_replicas_exactly_one_wins() {
    let Some(db) = postgres_or_skip("concurrent_moves_spread_over_replicas_exactly_one_wins").await
    else {
        return;
    };
    let replicas = three_replicas(&db).await;
    let mut clients = clients_of(&replicas).await;
    for round in 0..10 {
        let created = common::new_chess_game(&mut clients[round % 3], None).await;
        let id = created.game.as_ref().unwrap().id.clone();
        let attempts = ["e4", "d4", "c4"]
            .into_iter()
            .zip(&clients)
            .map(|(text, client)| {
                let mut client = client.clone();
                let request = pb::MakeMoveRequest {
                    game_id: id.clone(),
                    seat_token: created.white_token.clone(),
                    r#move: text.into(),
                    expected_ply: Some(0),
                    ..Default::default()
                };
                async move { client.make_move(request).await.map(drop) }
            });
        let mut results = Vec::new();
        for attempt in attempts.map(tokio::spawn).collect::<Vec<_>>() {
            results.push(attempt.await.unwrap());
        }
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "{results:?}"
        );
        for lost in results.iter().filter_map(|r| r.as_ref().err()) {
            assert_eq!(lost.code(), Code::Aborted, "{lost:?}");
        }
        assert_eq!(common::get_game(&mut clients[2], &id).await.ply, 1);
    }
}

/// Three replicas started one after another share the shards evenly
/// (each joiner within a few renewals); after SIGKILL of one, the two
/// survivors share them within the takeover bound.
#[tokio::test]
async fn the_shards_spread_over_the_replicas_live() {
    let Some(db) = postgres_or_skip("the_shards_spread_over_the_replicas_live").await else {
        return;
    };
    let metrics = common::free_addr();
    let mut replicas = vec![replica(&db, Some(&metrics)).await];
    spread_over(&db, &replicas, SPREAD_WITHIN).await;
    for _ in 0..2 {
        replicas.push(replica(&db, None).await);
        let took = spread_over(&db, &replicas, SPREAD_WITHIN).await;
        eprintln!(
            "spread over {} replicas {took:?} after the last served",
            replicas.len()
        );
    }
    let first = leases_of(&db, replicas[0].pid()).await;
    assert_eq!(
        common::scrape(&metrics, "arbiter_leases_held").await,
        Some(first as f64)
    );
    replicas[2].kill().await;
    // The takeover bound, and the time of a query.
    let took = spread_over(&db, &replicas[..2], LEASE + RENEW + Duration::from_secs(1)).await;
    eprintln!("spread over the 2 survivors {took:?} after SIGKILL");
}

/// SIGKILL of the replica that owns a clocked game: the flag falls on
/// another replica, late by at most the lease's time, and watchers on both
/// survivors get GAME_ENDED.
#[tokio::test]
async fn a_flag_falls_on_another_replica_when_its_owner_is_killed() {
    let Some(db) =
        postgres_or_skip("a_flag_falls_on_another_replica_when_its_owner_is_killed").await
    else {
        return;
    };
    let mut replicas = three_replicas(&db).await;
    let mut clients = clients_of(&replicas).await;
    let created = common::create_clocked_game(&mut clients[0], 2_000).await;
    let id = created.game.as_ref().unwrap().id.clone();
    let owner = owner_of(&db, &pids(&replicas), &id)
        .await
        .expect("an owner");
    let (b, c) = ((owner + 1) % 3, (owner + 2) % 3);
    play(&mut clients[b], &id, &created.white_token, "e4").await;
    let mut watchers = [
        common::watch(&mut clients[b], &id).await,
        common::watch(&mut clients[c], &id).await,
    ];
    let flag_due = play(&mut clients[c], &id, &created.black_token, "e5").await;
    let white_left = Duration::from_millis(flag_due.clock.unwrap().white_ms as u64);
    replicas[owner].kill().await; // White's clock runs; its owner is gone.
    let killed = Instant::now();
    for watcher in &mut watchers {
        let ended = loop {
            let (kind, game) = next_event(watcher, white_left + LEASE * 4).await;
            if kind == K::GameEnded {
                break game;
            }
        };
        let outcome = ended.outcome.unwrap();
        assert_eq!(outcome.termination, pb::Termination::Timeout as i32);
        assert_eq!(outcome.winner, pb::Side::Black as i32);
    }
    let late = killed.elapsed().saturating_sub(white_left);
    // The lease runs out, a survivor claims it at its next renewal.
    assert!(
        late < LEASE + RENEW + Duration::from_secs(1),
        "the flag fell {late:?} late"
    );
    let survivors = [replicas[b].pid(), replicas[c].pid()];
    assert!(owner_of(&db, &survivors, &id).await.is_some());
}

/// SIGKILL of the replica that owns an engine seat's game while the engine
/// thinks: another replica takes the game over and the engine moves from
/// there, exactly once.
#[tokio::test]
async fn an_engine_seat_moves_once_from_another_replica_when_its_owner_is_killed() {
    let test = "an_engine_seat_moves_once_from_another_replica_when_its_owner_is_killed";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let mut replicas = three_replicas(&db).await;
    let mut clients = clients_of(&replicas).await;
    // Full strength thinks for its whole time: its owner is killed before
    // it moves.
    let created = common::create_engine_game(&mut clients[0], 10, 1_500).await;
    let id = created.game.as_ref().unwrap().id.clone();
    let owner = owner_of(&db, &pids(&replicas), &id)
        .await
        .expect("an owner");
    let (b, c) = ((owner + 1) % 3, (owner + 2) % 3);
    let mut watching = common::watch(&mut clients[c], &id).await;
    assert_eq!(
        next_event(&mut watching, Duration::from_secs(5)).await.0,
        K::Snapshot
    );
    play(&mut clients[b], &id, &created.white_token, "e4").await;
    assert_eq!(
        next_event(&mut watching, Duration::from_secs(5)).await.0,
        K::Move
    );
    replicas[owner].kill().await;
    let (kind, game) = next_event(&mut watching, LEASE + RENEW + Duration::from_secs(10)).await;
    assert_eq!((kind, game.ply), (K::Move, 2));
    // Exactly once: nothing follows (it is the human's turn), and the
    // history has one engine move.
    assert!(
        tokio::time::timeout(Duration::from_secs(3), watching.message())
            .await
            .is_err(),
        "nothing after the engine's move"
    );
    let pool = db.pool().await;
    let moves: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM game_events JOIN games ON games.seq = game_events.game_seq \
         WHERE games.id = $1 AND game_events.kind = 'move'",
    )
    .bind(&id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(moves, 2);
    pool.close().await;
    assert_eq!(common::get_game(&mut clients[c], &id).await.ply, 2);
}

/// Players who move as fast as the replicas answer until stopped, each
/// through all three replicas in turn, game after game (of
/// [`GAME_PLIES`] each); what each was acknowledged.
struct Load {
    stop: Arc<AtomicBool>,
    players: Vec<tokio::task::JoinHandle<Vec<(String, usize)>>>,
}

/// Plies of [`SHUFFLE`] a game of the load gets: short of a fivefold
/// repetition of the start, which would end it.
const GAME_PLIES: usize = 12;

impl Load {
    fn start(clients: &[GamesClient<Channel>], players: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let players = (0..players)
            .map(|n| {
                let mut clients = clients.to_vec();
                let turn = n % clients.len();
                clients.rotate_left(turn);
                tokio::spawn(play_until(clients, Arc::clone(&stop)))
            })
            .collect();
        Load { stop, players }
    }

    /// Stops the players: each game's id and plies acknowledged.
    async fn stop(self) -> HashMap<String, usize> {
        self.stop.store(true, Ordering::Relaxed);
        let mut acknowledged = HashMap::new();
        for player in self.players {
            acknowledged.extend(player.await.unwrap());
        }
        acknowledged
    }
}

/// Calls fail this way while a replica or the database is going or gone.
fn unavailable(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled
    )
}

/// Plays games of [`SHUFFLE`] through `clients` in turn until `stop` (at
/// most a minute): each game's id and the plies acknowledged. A move
/// whose answer was lost may have been played: the ply it is refused at
/// tells.
async fn play_until(
    mut clients: Vec<GamesClient<Channel>>,
    stop: Arc<AtomicBool>,
) -> Vec<(String, usize)> {
    let mut played = Vec::new();
    let mut turn = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    let go_on = || !stop.load(Ordering::Relaxed) && Instant::now() < deadline;
    while go_on() {
        turn += 1;
        let created = clients[turn % 3]
            .create_game(pb::CreateGameRequest {
                variant: pb::Variant::Chess as i32,
                white: common::seat("W"),
                black: common::seat("B"),
                ..Default::default()
            })
            .await;
        let created = match created {
            Ok(created) => created.into_inner(),
            Err(status) => {
                assert!(unavailable(&status), "{status:?}");
                // A client pauses before it tries again.
                common::let_pass(common::POLL).await;
                continue;
            }
        };
        let id = created.game.unwrap().id;
        let (mut ply, mut acknowledged) = (0, 0);
        while ply < GAME_PLIES && go_on() {
            turn += 1;
            let client = &mut clients[turn % 3];
            let token = if ply % 2 == 0 {
                &created.white_token
            } else {
                &created.black_token
            };
            let request = pb::MakeMoveRequest {
                game_id: id.clone(),
                seat_token: token.clone(),
                r#move: SHUFFLE[ply % 4].into(),
                expected_ply: Some(ply as u32),
                ..Default::default()
            };
            match client.make_move(request).await {
                Ok(answer) => {
                    ply = answer.into_inner().game.unwrap().ply as usize;
                    acknowledged = ply;
                }
                // Played after all (its answer was lost): on from there.
                Err(status) if status.code() == Code::Aborted => {
                    if let Ok(game) = client
                        .get_game(pb::GetGameRequest {
                            game_id: id.clone(),
                            ..Default::default()
                        })
                        .await
                    {
                        ply = game.into_inner().game.unwrap().ply as usize;
                    }
                }
                Err(status) => {
                    assert!(unavailable(&status), "{status:?}");
                    common::let_pass(common::POLL).await;
                }
            }
        }
        played.push((id, acknowledged));
    }
    played
}

/// Every game has at least the plies acknowledged, and exactly the moves
/// of [`SHUFFLE`] (none twice, none out of order).
async fn every_acknowledged_move_is_there(
    db: &TestDatabase,
    acknowledged: &HashMap<String, usize>,
) {
    let pool = db.pool().await;
    let mut total = 0;
    for (id, &plies) in acknowledged {
        let moves: Vec<String> = sqlx::query_scalar(
            "SELECT uci FROM moves JOIN games ON games.seq = moves.game_seq \
             WHERE games.id = $1 ORDER BY moves.ply",
        )
        .bind(id)
        .fetch_all(&pool)
        .await
        .unwrap();
        assert!(
            moves.len() >= plies,
            "game {id}: {} of {plies} plies",
            moves.len()
        );
        let line = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for (ply, uci) in moves.iter().enumerate() {
            assert_eq!(uci, line[ply % 4], "game {id}, ply {ply}");
        }
        total += plies;
    }
    assert!(total > 0, "no move was acknowledged");
    eprintln!("{total} acknowledged moves, all stored");
    pool.close().await;
}

/// Every connection of the replicas killed from the database's side
/// (`pg_terminate_backend`) again and again under load: calls fail with
/// UNAVAILABLE meanwhile, the replicas recover by themselves, and every
/// acknowledged move is stored.
#[tokio::test]
async fn killed_database_connections_under_load_lose_no_acknowledged_move() {
    let test = "killed_database_connections_under_load_lose_no_acknowledged_move";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let metrics = common::free_addr();
    let replicas = [
        replica(&db, Some(&metrics)).await,
        replica(&db, None).await,
        replica(&db, None).await,
    ];
    let load = Load::start(&clients_of(&replicas).await, 6);
    let admin = db.pool().await;
    for _ in 0..6 {
        common::let_pass(Duration::from_millis(300)).await;
        sqlx::query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .execute(&admin)
        .await
        .unwrap();
    }
    admin.close().await;
    let acknowledged = load.stop().await;
    every_acknowledged_move_is_there(&db, &acknowledged).await;
    // Each replica serves again: a game made and played through it.
    for replica in &replicas {
        let mut games = client(replica).await;
        let created = crate::wait_for!(
            Duration::from_secs(15),
            match games
                .create_game(pb::CreateGameRequest {
                    variant: pb::Variant::Chess as i32,
                    white: common::seat("W"),
                    black: common::seat("B"),
                    ..Default::default()
                })
                .await
            {
                Ok(created) => Some(created.into_inner()),
                Err(status) => {
                    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
                    None
                }
            },
            "the replica did not recover"
        );
        let id = created.game.unwrap().id;
        play(&mut games, &id, &created.white_token, "e4").await;
    }
    // Its change listener lost its connection and listens again.
    let reconnects = common::scrape(&metrics, "arbiter_store_listener_reconnects_total").await;
    assert!(reconnects >= Some(1.0), "{reconnects:?}");
}

/// `kill -9` of every replica under load, then three again on the same
/// database: no acknowledged move is lost, and the new replicas serve the
/// games on.
#[tokio::test]
async fn kill_9_of_every_replica_under_load_loses_no_acknowledged_move() {
    let test = "kill_9_of_every_replica_under_load_loses_no_acknowledged_move";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let mut replicas = three_replicas(&db).await;
    let load = Load::start(&clients_of(&replicas).await, 6);
    common::let_pass(Duration::from_millis(1500)).await;
    for replica in &mut replicas {
        replica.kill().await;
    }
    let acknowledged = load.stop().await;
    every_acknowledged_move_is_there(&db, &acknowledged).await;
    let replicas = three_replicas(&db).await;
    let mut games = client(&replicas[1]).await;
    for id in acknowledged.keys() {
        let stored = common::get_game(&mut games, id).await;
        assert!(stored.ply as usize >= acknowledged[id]);
        let status = stored.outcome.unwrap().status;
        assert_eq!(status, pb::OutcomeStatus::Ongoing as i32, "game {id}");
    }
}

/// Figures for BENCHMARKS.md, not a check: the latency of events across
/// replicas (a `MakeMove` answered by one replica to its event on a
/// watcher of another) and the time a takeover takes after SIGKILL of the
/// owner, with the default leases. Run with
/// `ARBITER_MEASURE_BIN=target/release/arbiter cargo test --test storage replicas::
/// -- --ignored --nocapture` (without the variable, this build's binary).
#[tokio::test]
#[ignore = "a measurement, about a minute: prints figures"]
async fn measure_event_latency_and_failover() {
    let Some(db) = postgres_or_skip("measure_event_latency_and_failover").await else {
        return;
    };
    let measured = || {
        let serve = Serve::on_url(db.url()).args(["--create-rate=0"]);
        match std::env::var_os("ARBITER_MEASURE_BIN") {
            Some(program) => serve.binary(program),
            None => serve,
        }
    };
    let mut replicas = vec![
        up(measured()).await,
        up(measured()).await,
        up(measured()).await,
    ];
    let mut clients = clients_of(&replicas).await;
    let mut latencies = Vec::new();
    for _ in 0..25 {
        let created = common::new_chess_game(&mut clients[0], None).await;
        let id = created.game.unwrap().id;
        let mut watching = common::watch(&mut clients[2], &id).await;
        next_event(&mut watching, Duration::from_secs(5)).await;
        let received = tokio::spawn(async move {
            let mut at = Vec::new();
            for _ in 0..GAME_PLIES {
                next_event(&mut watching, Duration::from_secs(5)).await;
                at.push(Instant::now());
            }
            at
        });
        let mut answered = Vec::new();
        for ply in 0..GAME_PLIES {
            let token = [&created.white_token, &created.black_token][ply % 2];
            play(&mut clients[ply % 2], &id, token, SHUFFLE[ply % 4]).await;
            answered.push(Instant::now());
        }
        let received = received.await.unwrap();
        latencies.extend(
            received
                .iter()
                .zip(&answered)
                .map(|(event, answer)| event.saturating_duration_since(*answer)),
        );
    }
    latencies.sort();
    let at = |q: usize| latencies[(latencies.len() - 1) * q / 100];
    println!(
        "event latency across replicas, {} moves: p50 {:?}, p99 {:?}, max {:?}",
        latencies.len(),
        at(50),
        at(99),
        at(100)
    );
    for round in 0..3 {
        // Spread again after the last round's restart (its killed
        // replica's leases run out first).
        spread_over(&db, &replicas, Duration::from_secs(30)).await;
        let clients = clients_of(&replicas).await;
        let clocked = common::create_clocked_game(&mut clients[0].clone(), 1_000).await;
        let clocked_id = clocked.game.unwrap().id;
        let pids = pids(&replicas);
        let owner = owner_of(&db, &pids, &clocked_id).await.expect("an owner");
        let (maker, watcher) = ((owner + 1) % 3, (owner + 2) % 3);
        let (mut made_on, mut watched_on) = (clients[maker].clone(), clients[watcher].clone());
        // An engine seat's game of the same owner: about a third of the
        // games are.
        let mut engine = None;
        for _ in 0..100 {
            let created = common::create_engine_game(&mut made_on, 10, 1_000).await;
            if owner_of(&db, &pids, &created.game.as_ref().unwrap().id).await == Some(owner) {
                engine = Some(created);
                break;
            }
        }
        let engine = engine.expect("an engine seat's game of the clocked game's owner");
        let engine_id = engine.game.unwrap().id;
        play(&mut made_on, &clocked_id, &clocked.white_token, "e4").await;
        let mut flag_watch = common::watch(&mut watched_on, &clocked_id).await;
        let mut engine_watch = common::watch(&mut watched_on, &engine_id).await;
        next_event(&mut engine_watch, Duration::from_secs(5)).await;
        play(&mut made_on, &engine_id, &engine.white_token, "e4").await;
        let due = play(&mut watched_on, &clocked_id, &clocked.black_token, "e5").await;
        let white_left = Duration::from_millis(due.clock.unwrap().white_ms as u64);
        replicas[owner].kill().await;
        let killed = Instant::now();
        let flag = loop {
            if next_event(&mut flag_watch, Duration::from_secs(30)).await.0 == K::GameEnded {
                break killed.elapsed();
            }
        };
        let engine_moved = loop {
            let (kind, game) = next_event(&mut engine_watch, Duration::from_secs(30)).await;
            if kind == K::Move && game.ply == 2 {
                break killed.elapsed();
            }
        };
        println!(
            "round {round}: SIGKILL to flag fall {flag:?} ({:?} past the flag's time), \
             to the engine's move {engine_moved:?} (a 1 s search included)",
            flag.saturating_sub(white_left)
        );
        replicas[owner] = up(measured()).await;
    }
}
