//! Rematches through gRPC: between humans (offer, second offer, decline,
//! acceptance, the offerer's token asked for again, the link both ways,
//! watchers following to the new game), against an engine seat (created at
//! once, the engine moving first with the colours swapped), and every
//! refusal's reason.

use crate::common;

use std::time::Duration;

use arbiter::api::proto as pb;
use common::{TestServer, code_and_reason, offer_rematch, resign, respond_to_rematch, seat};
use tokio_stream::StreamExt;
use tonic::{Code, Streaming, transport::Channel};

type Games = pb::games_client::GamesClient<Channel>;

async fn watch(
    games: &mut Games,
    id: &str,
    follow_rematch: bool,
) -> Streaming<pb::WatchGameResponse> {
    let mut stream = games
        .watch_game(pb::WatchGameRequest {
            game_id: id.into(),
            follow_rematch,
            ..Default::default()
        })
        .await
        .expect("watching")
        .into_inner();
    let snapshot = stream.next().await.unwrap().unwrap();
    assert_eq!(snapshot.kind, pb::GameEventKind::Snapshot as i32);
    stream
}

/// The next event's kind and game, within a bounded wait.
async fn next(stream: &mut Streaming<pb::WatchGameResponse>) -> (i32, pb::Game) {
    let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("an event comes")
        .expect("the stream goes on")
        .expect("an event");
    (event.kind, event.game.unwrap())
}

fn precondition(reason: &str) -> (Code, String) {
    (Code::FailedPrecondition, reason.to_owned())
}

#[tokio::test]
async fn a_rematch_between_humans_swaps_colours_and_keeps_the_game_s_settings() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    // Xiangqi from a custom start, under casual repetition rules, on a clock.
    let fen = "rheakaehr/9/1c5c1/p1p1p1p2/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1";
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Xiangqi as i32,
            start: Some(pb::create_game_request::Start::Fen(fen.into())),
            white: seat("Li"),
            black: seat("Wang"),
            time_control: Some(pb::TimeControl {
                initial_ms: 180_000,
                increment_ms: 2_000,
                ..Default::default()
            }),
            xiangqi_rules: pb::XiangqiRules::RepetitionDraws as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let old = created.game.unwrap();
    let id = old.id.clone();
    let (red, black) = (created.white_token, created.black_token);

    let status = offer_rematch(&mut games, &id, &red).await.unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("GAME_NOT_OVER"));

    let mut plain = watch(&mut games, &id, false).await;
    let mut following = watch(&mut games, &id, true).await;
    resign(&mut games, &id, &black).await;
    assert_eq!(
        next(&mut plain).await.0,
        pb::GameEventKind::GameEnded as i32
    );
    assert!(
        plain.next().await.is_none(),
        "a plain stream ends with the game"
    );
    assert_eq!(
        next(&mut following).await.0,
        pb::GameEventKind::GameEnded as i32
    );

    // Red offers; a second offer, or Red answering its own, is refused.
    let offered = offer_rematch(&mut games, &id, &red).await.unwrap();
    assert_eq!(offered.game.unwrap().rematch_offer, pb::Side::White as i32);
    assert!(offered.rematch.is_none() && offered.seat_token.is_empty());
    let (kind, game) = next(&mut following).await;
    assert_eq!(
        (kind, game.rematch_offer),
        (
            pb::GameEventKind::RematchOffered as i32,
            pb::Side::White as i32
        )
    );
    let status = offer_rematch(&mut games, &id, &red).await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        precondition("REMATCH_ALREADY_OFFERED")
    );
    let status = respond_to_rematch(&mut games, &id, &red, true)
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("NOTHING_TO_ANSWER"));

    // Black declines; then Black offers and Red accepts.
    let declined = respond_to_rematch(&mut games, &id, &black, false)
        .await
        .unwrap();
    assert_eq!(
        declined.game.unwrap().rematch_offer,
        pb::Side::Unspecified as i32
    );
    assert_eq!(
        next(&mut following).await.0,
        pb::GameEventKind::RematchDeclined as i32
    );
    offer_rematch(&mut games, &id, &black).await.unwrap();
    assert_eq!(
        next(&mut following).await.0,
        pb::GameEventKind::RematchOffered as i32
    );
    let accepted = respond_to_rematch(&mut games, &id, &red, true)
        .await
        .unwrap();
    let rematch = accepted.rematch.unwrap();
    assert_eq!(accepted.side, pb::Side::Black as i32, "Red plays Black now");
    let red_again = accepted.seat_token;

    // The watchers are told where to go, and the stream ends there.
    let (kind, game) = next(&mut following).await;
    assert_eq!(
        (kind, game.rematch.as_str()),
        (
            pb::GameEventKind::RematchStarted as i32,
            rematch.id.as_str()
        )
    );
    assert!(following.next().await.is_none());

    // The offerer asks again with its old token and gets its seat.
    let asked = offer_rematch(&mut games, &id, &black).await.unwrap();
    assert_eq!(asked.rematch.unwrap().id, rematch.id);
    assert_eq!(asked.side, pb::Side::White as i32);
    let black_again = asked.seat_token;
    assert_eq!(
        offer_rematch(&mut games, &id, &black)
            .await
            .unwrap()
            .seat_token,
        black_again,
        "the same each time"
    );
    assert_eq!(
        respond_to_rematch(&mut games, &id, &red, true)
            .await
            .unwrap()
            .seat_token,
        red_again
    );
    let status = respond_to_rematch(&mut games, &id, &red, false)
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("NOTHING_TO_ANSWER"));

    // Linked both ways; the same start, rules and time control.
    assert_eq!(common::get_game(&mut games, &id).await.rematch, rematch.id);
    let new = common::get_game(&mut games, &rematch.id).await;
    assert_eq!(new.rematch_of, id);
    assert_eq!(
        (
            new.white.unwrap().display_name,
            new.black.unwrap().display_name
        ),
        ("Wang".to_owned(), "Li".to_owned())
    );
    assert_eq!(
        (new.variant, new.start_fen.as_str()),
        (old.variant, old.start_fen.as_str())
    );
    assert_eq!(new.xiangqi_rules, pb::XiangqiRules::RepetitionDraws as i32);
    assert_eq!(new.clock.unwrap().control, old.clock.unwrap().control);

    // The new tokens play the swapped colours; the old ones are not seats.
    let status = games
        .make_move(pb::MakeMoveRequest {
            game_id: rematch.id.clone(),
            seat_token: red.clone(),
            r#move: "h2e2".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::Unauthenticated, "SEAT_TOKEN_UNKNOWN".to_owned())
    );
    common::play(&mut games, &rematch.id, &black_again, "h2e2").await;
    common::play(&mut games, &rematch.id, &red_again, "h9g7").await;
    server.stop().await;
}

#[tokio::test]
async fn a_rematch_against_an_engine_seat_starts_at_once() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: seat("Human"),
            black: common::engine_seat(1, 50),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game.unwrap().id;
    let human = created.white_token;
    resign(&mut games, &id, &human).await;

    let answer = offer_rematch(&mut games, &id, &human).await.unwrap();
    let rematch = answer.rematch.expect("created at once");
    assert_eq!(answer.side, pb::Side::Black as i32);
    assert_eq!(answer.game.unwrap().rematch, rematch.id);
    assert_eq!(rematch.white.unwrap().engine.unwrap().level, 1);

    // The engine, White now, moves first (maybe before the watch begins);
    // then the human replies.
    let mut stream = watch(&mut games, &rematch.id, false).await;
    let mut game = common::get_game(&mut games, &rematch.id).await;
    if game.ply == 0 {
        let kind;
        (kind, game) = next(&mut stream).await;
        assert_eq!(kind, pb::GameEventKind::Move as i32);
    }
    assert_eq!(game.ply, 1);
    assert_eq!(game.turn, pb::Side::Black as i32);
    // a6 answers any first move.
    let played = common::play(&mut games, &rematch.id, &answer.seat_token, "a6").await;
    assert_eq!(played.ply, 2);
    server.stop().await;
}

#[tokio::test]
async fn rematch_calls_refuse_with_their_reason() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let status = offer_rematch(&mut games, &id, "").await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::Unauthenticated, "SEAT_TOKEN_MISSING".to_owned())
    );
    let status = offer_rematch(&mut games, &id, "nope").await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::Unauthenticated, "SEAT_TOKEN_UNKNOWN".to_owned())
    );
    let status = respond_to_rematch(&mut games, &id, &created.black_token, true)
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("GAME_NOT_OVER"));
    let status = offer_rematch(&mut games, "abcdefghijkmnpqr", &created.white_token)
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::NotFound, "GAME_NOT_FOUND".to_owned())
    );
    resign(&mut games, &id, &created.white_token).await;
    let status = respond_to_rematch(&mut games, &id, &created.black_token, false)
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("NOTHING_TO_ANSWER"));
    server.stop().await;
}
