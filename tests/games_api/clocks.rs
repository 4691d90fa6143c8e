//! Clocks through gRPC on an injected, manual time source (no test sleeps):
//! increment and delay arithmetic, flag fall detected by the server, a move
//! after the flag refused, the insufficient-material draw, the first-move
//! grace, correspondence days, and flags that fell while the server was down.

use crate::common;

use std::{sync::Arc, time::Duration};

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient},
    games::ManualTime,
};
use common::{TestServer, play};
use tokio_stream::StreamExt;
use tonic::{Code, transport::Channel};

const START: i64 = 1_800_000_000_000;

fn clock(initial_s: u64, increment_s: u64, delay_s: u64) -> pb::TimeControl {
    pb::TimeControl {
        initial_ms: initial_s * 1000,
        increment_ms: increment_s * 1000,
        delay_ms: delay_s * 1000,
        days_per_move: 0,
        first_move_grace_ms: 0,
    }
}

async fn create(
    games: &mut GamesClient<Channel>,
    fen: Option<&str>,
    tc: pb::TimeControl,
) -> Result<pb::CreateGameResponse, tonic::Status> {
    create_in(games, pb::Variant::Chess, fen, tc).await
}

async fn create_in(
    games: &mut GamesClient<Channel>,
    variant: pb::Variant,
    fen: Option<&str>,
    tc: pb::TimeControl,
) -> Result<pb::CreateGameResponse, tonic::Status> {
    games
        .create_game(pb::CreateGameRequest {
            variant: variant as i32,
            start: fen.map(|f| pb::create_game_request::Start::Fen(f.into())),
            white: common::seat("W"),
            black: common::seat("B"),
            engine_declines_takebacks: false,
            time_control: Some(tc),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Waits (on the watch stream, at most 10 real seconds) until the game is
/// over; returns its outcome.
async fn outcome_when_over(games: &mut GamesClient<Channel>, id: &str) -> pb::Outcome {
    let mut watch = common::watch(games, id).await;
    let wait = async {
        while let Some(event) = watch.next().await {
            let outcome = event.unwrap().game.unwrap().outcome.unwrap();
            if outcome.status != pb::OutcomeStatus::Ongoing as i32 {
                return outcome;
            }
        }
        panic!("the stream ended with the game ongoing");
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .expect("the game ended")
}

#[tokio::test]
async fn increments_delays_and_flags() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;

    // Fischer: first moves free, then -10 s +2 s.
    let g = create(&mut games, None, clock(60, 2, 0)).await.unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    let c = g.game.as_ref().unwrap().clock.unwrap();
    assert_eq!(
        (c.white_ms, c.black_ms, c.running),
        (60_000, 60_000, pb::Side::Unspecified as i32)
    );
    play(&mut games, &id, &g.white_token, "e4").await;
    time.advance(Duration::from_secs(5));
    let after = play(&mut games, &id, &g.black_token, "e5").await;
    assert_eq!(
        after.clock.as_ref().unwrap().running,
        pb::Side::White as i32
    );
    time.advance(Duration::from_secs(10));
    let after = play(&mut games, &id, &g.white_token, "Nf3").await;
    let c = after.clock.unwrap();
    assert_eq!((c.white_ms, c.black_ms), (52_000, 60_000));
    assert_eq!(
        c.deadline.unwrap().seconds,
        (START + 15_000 + 60_000) / 1000
    );
    let pgn = common::export(&mut games, &id, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[TimeControl \"60+2\"]"), "{pgn}");
    assert!(
        pgn.contains("1. e4 {[%clk 0:01:00]} e5 {[%clk 0:01:00]} 2. Nf3 {[%clk 0:00:52]} *"),
        "{pgn}"
    );

    // Bronstein: up to 3 s given back.
    let g = create(&mut games, None, clock(60, 0, 3)).await.unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &g.white_token, "d4").await;
    play(&mut games, &id, &g.black_token, "d5").await;
    time.advance(Duration::from_secs(2));
    let after = play(&mut games, &id, &g.white_token, "c4").await;
    assert_eq!(after.clock.as_ref().unwrap().white_ms, 60_000);
    time.advance(Duration::from_secs(10));
    let after = play(&mut games, &id, &g.black_token, "e6").await;
    assert_eq!(after.clock.as_ref().unwrap().black_ms, 53_000);

    // The server ends a game the moment a flag falls.
    let g = create(&mut games, None, clock(10, 0, 0)).await.unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &g.white_token, "e4").await;
    play(&mut games, &id, &g.black_token, "e5").await;
    time.advance(Duration::from_secs(11));
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(
        (outcome.winner, outcome.termination),
        (pb::Side::Black as i32, pb::Termination::Timeout as i32)
    );
    let pgn = common::export(&mut games, &id, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[Termination \"time forfeit\"]"), "{pgn}");
    // A move after the flag is refused, and the game reports the timeout.
    let status = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: g.white_token.clone(),
            r#move: "Nf3".into(),
            expected_ply: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::FailedPrecondition, "GAME_OVER".to_owned())
    );
    assert!(status.message().contains("timeout"), "{}", status.message());

    // Out of time against a lone king: a draw.
    let g = create(
        &mut games,
        Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
        clock(5, 0, 0),
    )
    .await
    .unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &g.white_token, "e3").await;
    play(&mut games, &id, &g.black_token, "Kd7").await;
    time.advance(Duration::from_secs(6));
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(
        (outcome.status, outcome.termination),
        (
            pb::OutcomeStatus::Drawn as i32,
            pb::Termination::TimeoutVsInsufficientMaterial as i32
        )
    );

    // No first move within the grace (60 s by default): aborted.
    let g = create(&mut games, None, clock(300, 0, 0)).await.unwrap();
    time.advance(Duration::from_secs(61));
    let outcome = outcome_when_over(&mut games, &g.game.unwrap().id).await;
    assert_eq!(outcome.status, pb::OutcomeStatus::Aborted as i32);
    // A game's own grace: Black's first move is 6 s late for a 5 s grace.
    let g = create(
        &mut games,
        None,
        pb::TimeControl {
            first_move_grace_ms: 5000,
            ..clock(300, 0, 0)
        },
    )
    .await
    .unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    time.advance(Duration::from_secs(4));
    play(&mut games, &id, &g.white_token, "e4").await;
    time.advance(Duration::from_secs(6));
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(outcome.status, pb::OutcomeStatus::Aborted as i32);

    // Correspondence: a day per move.
    let g = create(
        &mut games,
        None,
        pb::TimeControl {
            days_per_move: 1,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    time.advance(Duration::from_secs(20 * 3600));
    play(&mut games, &id, &g.white_token, "e4").await;
    time.advance(Duration::from_secs(24 * 3600));
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(outcome.winner, pb::Side::White as i32);

    for bad in [
        pb::TimeControl::default(),
        clock(60, 2, 3),
        pb::TimeControl {
            initial_ms: 1000,
            days_per_move: 1,
            ..Default::default()
        },
        pb::TimeControl {
            days_per_move: 400,
            ..Default::default()
        },
    ] {
        let status = create(&mut games, None, bad).await.unwrap_err();
        assert_eq!(
            common::code_and_reason(&status),
            (Code::InvalidArgument, "INVALID_TIME_CONTROL".to_owned()),
            "{status:?}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_flag_that_fell_while_the_server_was_down_falls_at_start_up() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let g = create(&mut games, None, clock(30, 0, 0)).await.unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &g.white_token, "e4").await;
    play(&mut games, &id, &g.black_token, "c5").await;
    let db = server.db.clone();
    let dir = server.stop().await;
    time.advance(Duration::from_secs(45));
    let server = TestServer::start_on_with(&db, time.clone() as Arc<_>).await;
    let mut games = server.games().await;
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(
        (outcome.winner, outcome.termination),
        (pb::Side::Black as i32, pb::Termination::Timeout as i32)
    );
    server.stop().await;
    drop(dir);
}

#[tokio::test]
async fn xiangqi_flags_follow_the_same_rules() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    // Red runs out: Black wins on time.
    let g = create_in(&mut games, pb::Variant::Xiangqi, None, clock(10, 0, 0))
        .await
        .unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &g.white_token, "h2e2").await;
    play(&mut games, &id, &g.black_token, "h9g7").await;
    time.advance(Duration::from_secs(11));
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(
        (outcome.winner, outcome.termination),
        (pb::Side::Black as i32, pb::Termination::Timeout as i32)
    );
    // Red runs out against a general and advisors only: a draw (our
    // policy: no chariot, horse, cannon or soldier cannot win).
    let g = create_in(
        &mut games,
        pb::Variant::Xiangqi,
        Some("3ak4/4a4/9/9/9/9/9/9/4R4/4K4 w - - 0 1"),
        clock(10, 0, 0),
    )
    .await
    .unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    play(&mut games, &id, &g.white_token, "e1e2").await;
    play(&mut games, &id, &g.black_token, "e9f9").await;
    time.advance(Duration::from_secs(11));
    let outcome = outcome_when_over(&mut games, &id).await;
    assert_eq!(
        (outcome.status, outcome.termination),
        (
            pb::OutcomeStatus::Drawn as i32,
            pb::Termination::TimeoutVsInsufficientMaterial as i32
        )
    );
    server.stop().await;
}

#[tokio::test]
async fn a_draw_claimed_with_a_move_charges_the_move() {
    let time = ManualTime::new(START);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;
    let g = create(&mut games, None, clock(60, 2, 0)).await.unwrap();
    let id = g.game.as_ref().unwrap().id.clone();
    let tokens = [&g.white_token, &g.black_token];
    for (ply, m) in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]
        .into_iter()
        .enumerate()
    {
        play(&mut games, &id, tokens[ply % 2], m).await;
    }
    // Black's fourth move repeats the start a third time: 10 s spent, 2 s
    // back, after two earlier increments.
    time.advance(Duration::from_secs(10));
    let drawn = common::claim_draw(&mut games, &id, &g.black_token, "Ng8").await;
    assert_eq!(
        drawn.outcome.unwrap().termination,
        pb::Termination::ThreefoldRepetition as i32
    );
    assert_eq!(drawn.clock.unwrap().black_ms, 56_000);
    let pgn = common::export(&mut games, &id, pb::PgnNotation::Standard).await;
    assert!(
        pgn.contains("Ng8 {[%clk 0:00:56]} {drawn by threefold repetition} 1/2-1/2"),
        "{pgn}"
    );
    server.stop().await;
}
