//! Flag timers: one per game however often its clock changes, none for a
//! finished game; a flag the database cannot take yet (a write lock held by
//! another connection past the busy timeout) is retried until recorded, and
//! watchers are told.

use crate::common::{self, SeatRequest};

use std::time::Duration;

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient},
    games::{ManualTime, SeatSpec, Start, TimeControl},
    rules::Variant,
    store::Store,
};
use common::{TestServer, play};
use sqlx::Connection;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

const START: i64 = 1_800_000_000_000;
const PAIRS: usize = 1_000;

fn clock(initial_s: u64) -> pb::TimeControl {
    pb::TimeControl {
        initial_ms: initial_s * 1000,
        increment_ms: 0,
        delay_ms: 0,
        days_per_move: 0,
        first_move_grace_ms: 0,
    }
}

/// A timed game with both first moves played.
async fn started(games: &mut GamesClient<Channel>, initial_s: u64) -> pb::CreateGameResponse {
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            start: None,
            white: common::seat("W"),
            black: common::seat("B"),
            engine_declines_takebacks: false,
            time_control: Some(clock(initial_s)),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game.as_ref().unwrap().id.clone();
    play(games, &id, &created.white_token, "e4").await;
    play(games, &id, &created.black_token, "e5").await;
    created
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Through the API: proposals and refusals leave no sleeping task behind.
#[tokio::test]
async fn takeback_pairs_leave_no_sleeping_timer_tasks() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let g = started(&mut games, 3600).await;
    let id = g.game.as_ref().unwrap().id.clone();
    let before = alive_tasks();
    for _ in 0..PAIRS {
        games
            .propose_takeback(pb::ProposeTakebackRequest::by_seat(
                id.clone(),
                g.white_token.clone(),
            ))
            .await
            .unwrap();
        games
            .respond_to_takeback(pb::RespondToTakebackRequest {
                accept: false,
                ..pb::RespondToTakebackRequest::by_seat(id.clone(), g.black_token.clone())
            })
            .await
            .unwrap();
    }
    let after = alive_tasks();
    assert!(
        after <= before + 10,
        "{PAIRS} takeback pairs left {} more tasks alive ({before} -> {after})",
        after.saturating_sub(before)
    );
    server.stop().await;
}

/// In-process: the timer count is one per ongoing timed game, and zero once
/// it is over.
#[tokio::test]
async fn one_timer_per_ongoing_timed_game() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("timers.db").display());
    let store = Store::connect(&url).await.unwrap();
    let time = ManualTime::new(START);
    let games = common::games_service(store.clone(), time.clone());
    let human = |name: &str| SeatSpec {
        display_name: name.into(),
        ..SeatSpec::default()
    };
    let control = TimeControl::Clock {
        initial: Duration::from_secs(3600),
        increment: Duration::ZERO,
        delay: Duration::ZERO,
        grace: Duration::from_secs(60),
    };
    let create = async || {
        games
            .create(
                Variant::Chess,
                Start::Standard,
                human("W"),
                human("B"),
                true,
                Some(control),
            )
            .await
            .unwrap()
    };
    let g = create().await;
    let id = g.game.id.clone();
    assert_eq!(
        games.flag_timers(),
        1,
        "armed at creation (first-move grace)"
    );
    for (token, text) in [(&g.white_token, "e4"), (&g.black_token, "e5")] {
        games.make_move(&id, token, text, None).await.unwrap();
        time.advance(Duration::from_secs(1));
    }
    for _ in 0..PAIRS {
        games.propose_takeback(&id, &g.white_token).await.unwrap();
        games
            .respond_to_takeback(&id, &g.black_token, false)
            .await
            .unwrap();
    }
    assert_eq!(games.flag_timers(), 1);
    let other = create().await;
    assert_eq!(games.flag_timers(), 2);
    games.resign(&id, &g.black_token).await.unwrap();
    games
        .abort(&other.game.id, &other.white_token)
        .await
        .unwrap();
    crate::wait_until!(
        Duration::from_secs(5),
        games.flag_timers() == 0,
        "finished games keep {} timers",
        games.flag_timers()
    );
    store.close().await;
}

/// Another connection holds the write lock (SQLite's `BEGIN IMMEDIATE`, for
/// longer than the busy timeout of 5 s; on PostgreSQL a lock on the games
/// table) across a game's deadline: once it lets go, the flag falls within
/// seconds and the watcher is told.
#[tokio::test]
async fn a_flag_held_up_by_a_write_lock_falls_once_it_is_released() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let g = started(&mut games, 10).await;
    let id = g.game.as_ref().unwrap().id.clone();
    let mut watch = common::watch(&mut games, &id).await;
    watch.next().await.unwrap().unwrap(); // the snapshot

    let mut blocker = common::hold_write_lock(&server.db).await;
    time.advance(Duration::from_secs(11)); // White's flag is down
    let held = tokio::time::timeout(Duration::from_secs(7), watch.next()).await;
    assert!(
        held.is_err(),
        "nothing can be written while the lock is held: {held:?}"
    );
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut blocker)
        .await
        .unwrap();
    blocker.close().await.unwrap();

    let event = tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .expect("the flag falls within seconds of the lock's release")
        .unwrap()
        .unwrap();
    assert_eq!(event.kind, pb::GameEventKind::GameEnded as i32);
    let outcome = event.game.unwrap().outcome.unwrap();
    assert_eq!(
        (outcome.winner, outcome.termination),
        (pb::Side::Black as i32, pb::Termination::Timeout as i32)
    );
    server.stop().await;
}
