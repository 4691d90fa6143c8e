//! Refused seat requests stay off the writer: a wrong token, a move out of
//! turn or a stale `expected_ply` is answered from the game's row, without
//! the write lock, the move list or a replay, even on a 2,000-ply game and
//! even while another connection holds the database's write lock.

use crate::common;

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient},
    games::{GameError, SystemTime},
    store::Store,
};
use common::{
    TestServer,
    long_game::{long_game, pgn},
};
use tokio::task::JoinSet;
use tonic::{Code, transport::Channel};

/// Plies imported before the players go on.
const IMPORTED: usize = 2_000;
/// Plies the players add.
const PLAYED: usize = 40;

fn p50(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The seat to move at `ply` (White moved first).
fn mover(created: &pb::ImportGameResponse, ply: usize) -> &str {
    if ply.is_multiple_of(2) {
        &created.white_token
    } else {
        &created.black_token
    }
}

fn make_move(id: &str, token: &str, text: &str, ply: Option<usize>) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest {
        game_id: id.to_owned(),
        seat_token: token.to_owned(),
        r#move: text.to_owned(),
        expected_ply: ply.map(|p| p as u32),
        ..Default::default()
    }
}

/// Plays `sans[from..to]`; the time each move took.
async fn play_timed(
    games: &mut GamesClient<Channel>,
    created: &pb::ImportGameResponse,
    sans: &[String],
    plies: std::ops::Range<usize>,
) -> Vec<Duration> {
    let id = &created.game.as_ref().unwrap().id;
    let mut times = Vec::new();
    for ply in plies {
        let started = Instant::now();
        games
            .make_move(make_move(id, mover(created, ply), &sans[ply], Some(ply)))
            .await
            .unwrap_or_else(|e| panic!("ply {ply} {}: {e:?}", sans[ply]));
        times.push(started.elapsed());
    }
    times
}

/// Through the API: a flood of wrong-token moves on a 2,000-ply game beside
/// a player's moves (their p50 is printed); then, with another connection
/// holding the write lock, wrong tokens, moves out of turn and stale plies
/// are still refused at once with their own errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_never_wait_for_the_writer() {
    let sans = long_game(IMPORTED + PLAYED);
    // The flood comes from the player's own address: failed credential
    // checks unlimited, so that every refusal is a token's.
    let server = TestServer::start_with_config(|config| arbiter::server::ServerConfig {
        auth_failure_rate: 0,
        ..config
    })
    .await;
    let mut games = server.games().await;
    let created = games
        .import_game(pb::ImportGameRequest {
            pgn: pgn(&sans, IMPORTED),
            variant: pb::Variant::Chess as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game.as_ref().unwrap().id.clone();
    assert_eq!(created.game.as_ref().unwrap().ply as usize, IMPORTED);

    let half = IMPORTED + PLAYED / 2;
    let quiet = play_timed(&mut games, &created, &sans, IMPORTED..half).await;

    let stop = Arc::new(AtomicBool::new(false));
    let mut flood = JoinSet::new();
    for _ in 0..8 {
        let (mut client, stop, id) = (server.games().await, stop.clone(), id.clone());
        flood.spawn(async move {
            let mut refused = 0_usize;
            while !stop.load(Ordering::Relaxed) {
                let status = client
                    .make_move(make_move(&id, "not-a-seat-token", "e4", None))
                    .await
                    .unwrap_err();
                assert_eq!(
                    common::code_and_reason(&status),
                    (Code::Unauthenticated, "SEAT_TOKEN_UNKNOWN".to_owned())
                );
                refused += 1;
            }
            refused
        });
    }
    let started = Instant::now();
    let flooded = play_timed(&mut games, &created, &sans, half..IMPORTED + PLAYED).await;
    stop.store(true, Ordering::Relaxed);
    let refused: usize = flood.join_all().await.into_iter().sum();
    eprintln!(
        "player's MakeMove p50 on a {IMPORTED}-ply game (test profile, debug assertions): \
         {:?} alone, {:?} beside {refused} wrong-token MakeMoves ({:.0}/s)",
        p50(quiet),
        p50(flooded),
        refused as f64 / started.elapsed().as_secs_f64()
    );

    // Another connection takes the write lock and keeps it.
    let mut blocker = common::hold_write_lock(&server.db).await;
    let ply = IMPORTED + PLAYED;
    let next = "a3"; // whatever: refused before it is read
    let refusals = [
        (
            make_move(&id, "not-a-seat-token", next, None),
            Code::Unauthenticated,
            "SEAT_TOKEN_UNKNOWN",
        ),
        (
            make_move(&id, mover(&created, ply + 1), next, None),
            Code::PermissionDenied,
            "NOT_YOUR_TURN",
        ),
        (
            make_move(&id, mover(&created, ply), next, Some(ply - 1)),
            Code::Aborted,
            "PLY_CONFLICT",
        ),
    ];
    let mut answers = JoinSet::new();
    for (request, code, reason) in refusals.into_iter().cycle().take(30) {
        let mut client = games.clone();
        answers.spawn(async move { (client.make_move(request).await, code, reason) });
    }
    // Waiting for the lock would take the busy timeout (5 s) and then fail.
    let answered = tokio::time::timeout(Duration::from_secs(20), answers.join_all())
        .await
        .expect("answered");
    for (answer, code, reason) in answered {
        let status = answer.unwrap_err();
        assert_eq!(
            common::code_and_reason(&status),
            (code, reason.to_owned()),
            "answered while the write lock is held elsewhere: {status:?}"
        );
    }
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut blocker)
        .await
        .unwrap();
    server.stop().await;
}

/// In-process: wrong-token moves running beside a player's add no write
/// transaction; the player's moves add one each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_tokens_never_enter_the_writer() {
    let sans = long_game(IMPORTED + PLAYED);
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("tokens.db").display());
    let store = Store::connect(&url).await.unwrap();
    let games = common::games_service(store.clone(), Arc::new(SystemTime));
    let created = games
        .import(&pgn(&sans, IMPORTED), None, None)
        .await
        .unwrap();
    let id = created.game.id.clone();
    let before = store.write_transactions();
    let mut flood = JoinSet::new();
    for _ in 0..200 {
        let (games, id) = (games.clone(), id.clone());
        flood.spawn(async move { games.make_move(&id, "not-a-seat-token", "e4", None).await });
    }
    for (ply, san) in sans.iter().enumerate().skip(IMPORTED) {
        let token = if ply.is_multiple_of(2) {
            &created.white_token
        } else {
            &created.black_token
        };
        games
            .make_move(&id, token, san, Some(ply as u32))
            .await
            .unwrap();
    }
    for refused in flood.join_all().await {
        assert!(
            matches!(refused, Err(GameError::Unauthenticated(_))),
            "{refused:?}"
        );
    }
    assert_eq!(
        store.write_transactions() - before,
        PLAYED as u64,
        "one write transaction per move played, none for the refusals"
    );
    store.close().await;
}
