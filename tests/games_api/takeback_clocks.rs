//! Takebacks and clocks, on an injected manual time: a takeback charges the
//! turn it cuts short (so no side thinks longer than its clock allows by
//! taking back), an engine granting one at once too; a flag that has
//! fallen beats the takeback; and a counter-proposal does not silently
//! replace a pending proposal.

use crate::common;

use std::{sync::Arc, time::Duration};

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient},
    games::ManualTime,
};
use common::{TestServer, get_game, play, propose_takeback, respond_to_takeback};
use tonic::{Code, transport::Channel};

const START: i64 = 1_800_000_000_000;

/// A 3-second clock without increment (the first moves are free).
fn three_seconds() -> Option<pb::TimeControl> {
    Some(pb::TimeControl {
        initial_ms: 3_000,
        ..Default::default()
    })
}

/// The game once it is over or has `ply` moves (at most 10 real seconds).
async fn when(games: &mut GamesClient<Channel>, id: &str, ply: u32) -> pb::Game {
    common::game_once(games, id, Duration::from_secs(10), |game| {
        common::is_over(game) || game.ply >= ply
    })
    .await
}

async fn human_game(games: &mut GamesClient<Channel>) -> (String, String, String) {
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat("W"),
            black: common::seat("B"),
            time_control: three_seconds(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    (
        created.game.unwrap().id,
        created.white_token,
        created.black_token,
    )
}

fn black_lost_on_time(game: &pb::Game) -> bool {
    let outcome = game.outcome.as_ref().unwrap();
    (outcome.winner, outcome.termination)
        == (pb::Side::White as i32, pb::Termination::Timeout as i32)
}

#[tokio::test]
async fn takebacks_do_not_give_time_back() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let (id, white, black) = human_game(&mut games).await;
    for (token, text) in [
        (&white, "e4"),
        (&black, "e5"),
        (&white, "Nf3"),
        (&black, "Nc6"),
        (&white, "Bc4"),
    ] {
        play(&mut games, &id, token, text).await;
    }
    // Black thinks 2.5 s of its 3, then takes back its move and White's reply.
    time.advance(Duration::from_millis(2_500));
    propose_takeback(&mut games, &id, &black).await.unwrap();
    let taken = respond_to_takeback(&mut games, &id, &white, true)
        .await
        .unwrap();
    assert_eq!(taken.ply, 3);
    let clock = taken.clock.unwrap();
    assert_eq!(
        (clock.white_ms, clock.black_ms),
        (3_000, 500),
        "the 2.5 s stay spent"
    );
    // The same moves again at once, and the same thinking: the flag falls.
    play(&mut games, &id, &black, "Nc6").await;
    play(&mut games, &id, &white, "Bc4").await;
    time.advance(Duration::from_millis(2_500));
    let over = when(&mut games, &id, u32::MAX).await;
    assert!(black_lost_on_time(&over), "{:?}", over.outcome);
    server.stop().await;
}

#[tokio::test]
async fn a_fallen_flag_beats_the_takeback() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let (id, white, black) = human_game(&mut games).await;
    for (token, text) in [(&white, "e4"), (&black, "e5"), (&white, "Nf3")] {
        play(&mut games, &id, token, text).await;
    }
    // White proposes; Black, to move, lets its flag fall, then accepts.
    propose_takeback(&mut games, &id, &white).await.unwrap();
    time.advance(Duration::from_millis(3_000));
    let status = respond_to_takeback(&mut games, &id, &black, true)
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::FailedPrecondition, "GAME_OVER".to_owned())
    );
    let over = when(&mut games, &id, u32::MAX).await;
    assert!(black_lost_on_time(&over), "{:?}", over.outcome);
    assert_eq!(over.ply, 3, "nothing was taken back");
    server.stop().await;
}

#[tokio::test]
async fn an_engine_granting_a_takeback_charges_the_turn() {
    let time: Arc<ManualTime> = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat("W"),
            black: common::engine_seat(1, 50),
            time_control: three_seconds(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game.unwrap().id;
    let white = created.white_token;
    play(&mut games, &id, &white, "e4").await;
    when(&mut games, &id, 2).await;
    play(&mut games, &id, &white, "d4").await;
    let before = when(&mut games, &id, 4).await;
    assert_eq!(before.clock.unwrap().white_ms, 3_000);
    // White thinks 2.5 s, then takes back; the engine grants it at once.
    time.advance(Duration::from_millis(2_500));
    let taken = propose_takeback(&mut games, &id, &white).await.unwrap();
    assert_eq!(taken.ply, 2);
    assert_eq!(taken.clock.unwrap().white_ms, 500);
    server.stop().await;
}

#[tokio::test]
async fn a_counter_proposal_is_refused() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let (white, black) = (created.white_token, created.black_token);
    play(&mut games, &id, &white, "e4").await;
    play(&mut games, &id, &black, "e5").await;
    propose_takeback(&mut games, &id, &white).await.unwrap();
    let status = propose_takeback(&mut games, &id, &black).await.unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::FailedPrecondition, "TAKEBACK_PENDING".to_owned())
    );
    assert!(status.message().contains("RespondToTakeback"), "{status:?}");
    assert_eq!(
        get_game(&mut games, &id).await.takeback_offer,
        pb::Side::White as i32
    );
    server.stop().await;
}
