//! The Games service end to end: a whole game, every error class, the
//! concurrent-move race, persistence across restarts, watchers.

use crate::common::{self, SeatRequest};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use common::{TestServer, code_and_reason};
use tokio_stream::StreamExt;
use tonic::{Code, transport::Channel};

async fn new_game(games: &mut GamesClient<Channel>) -> pb::CreateGameResponse {
    common::new_chess_game(games, None).await
}

fn mv(
    game: &pb::CreateGameResponse,
    white: bool,
    text: &str,
    expected_ply: Option<u32>,
) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest {
        game_id: game.game.as_ref().unwrap().id.clone(),
        seat_token: if white {
            game.white_token.clone()
        } else {
            game.black_token.clone()
        },
        r#move: text.into(),
        expected_ply,
        ..Default::default()
    }
}

#[tokio::test]
async fn a_whole_game_with_errors_watchers_and_restart() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = new_game(&mut games).await;
    let id = created.game.as_ref().unwrap().id.clone();
    assert_ne!(created.white_token, created.black_token);

    // Two watchers see the snapshot first.
    let mut watchers = Vec::new();
    for _ in 0..2 {
        let mut stream = common::watch(&mut games, &id).await;
        let first = stream.next().await.unwrap().unwrap();
        assert_eq!(first.kind, pb::GameEventKind::Snapshot as i32);
        watchers.push(stream);
    }

    let played = games
        .make_move(mv(&created, true, "f3", Some(0)))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(played.r#move.unwrap().r#move.unwrap().uci, "f2f3");

    // Every error class.
    let err = games
        .make_move(mv(&created, true, "e5", None))
        .await
        .unwrap_err();
    let reason = |code, reason: &str| (code, reason.to_owned());
    assert_eq!(
        code_and_reason(&err),
        reason(Code::PermissionDenied, "NOT_YOUR_TURN")
    );
    let mut no_token = mv(&created, false, "e5", None);
    no_token.seat_token.clear();
    assert_eq!(
        code_and_reason(&games.make_move(no_token).await.unwrap_err()),
        reason(Code::Unauthenticated, "SEAT_TOKEN_MISSING")
    );
    let mut wrong = mv(&created, false, "e5", None);
    wrong.seat_token = "not-a-token".into();
    assert_eq!(
        code_and_reason(&games.make_move(wrong).await.unwrap_err()),
        reason(Code::Unauthenticated, "SEAT_TOKEN_UNKNOWN")
    );
    let err = games
        .make_move(mv(&created, false, "e4", None))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        reason(Code::FailedPrecondition, "NO_PIECE_CAN_REACH")
    );
    let err = games
        .make_move(mv(&created, false, "Ke7e5", None))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        reason(Code::FailedPrecondition, "NO_PIECE_CAN_REACH"),
        "{err:?}"
    );
    assert_eq!(
        code_and_reason(
            &games
                .make_move(mv(&created, false, "???", None))
                .await
                .unwrap_err()
        ),
        reason(Code::InvalidArgument, "UNPARSABLE_MOVE")
    );
    assert_eq!(
        code_and_reason(
            &games
                .make_move(mv(&created, false, "e5", Some(0)))
                .await
                .unwrap_err()
        ),
        reason(Code::Aborted, "PLY_CONFLICT")
    );
    let mut missing = mv(&created, false, "e5", None);
    missing.game_id = "nope".into();
    let err = games.make_move(missing).await.unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        reason(Code::NotFound, "GAME_NOT_FOUND")
    );
    assert_eq!(err.message(), r#"game "nope" not found"#);

    games
        .make_move(mv(&created, false, "e5", Some(1)))
        .await
        .unwrap();
    games
        .make_move(mv(&created, true, "g2g4", Some(2)))
        .await
        .unwrap();

    // Restart: the acknowledged moves are there.
    let db = server.stop().await;
    let server = TestServer::start_on(&db).await;
    let mut games = server.games().await;
    let game = games
        .get_game(pb::GetGameRequest {
            game_id: id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(game.ply, 3);
    assert_eq!(
        game.moves
            .iter()
            .map(|m| m.r#move.as_ref().unwrap().san.as_str())
            .collect::<Vec<_>>(),
        ["f3", "e5", "g4"]
    );

    let mut watcher = common::watch(&mut games, &id).await;
    watcher.next().await.unwrap().unwrap();
    let done = games
        .make_move(mv(&created, false, "Qh4#", Some(3)))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    let outcome = done.outcome.unwrap();
    assert_eq!(outcome.termination, pb::Termination::Checkmate as i32);
    assert_eq!(outcome.winner, pb::Side::Black as i32);
    let event = watcher.next().await.unwrap().unwrap();
    assert_eq!(event.kind, pb::GameEventKind::Move as i32);
    let end = watcher.next().await.unwrap().unwrap();
    assert_eq!(end.kind, pb::GameEventKind::GameEnded as i32);
    assert!(
        watcher.next().await.is_none(),
        "stream closes after the end"
    );

    let err = games
        .make_move(mv(&created, true, "a3", None))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        (Code::FailedPrecondition, "GAME_OVER".to_owned())
    );
    drop(watchers);
    let list = games
        .list_games(pb::ListGamesRequest {
            status: pb::GameStatusFilter::Finished as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.games.len(), 1);
    server.stop().await;
    drop(db);
}

#[tokio::test]
async fn concurrent_moves_for_one_ply_exactly_one_wins() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    for _ in 0..5 {
        let created = new_game(&mut games).await;
        let (mut first, mut second) = (games.clone(), games.clone());
        let (a, b) = tokio::join!(
            first.make_move(mv(&created, true, "e4", Some(0))),
            second.make_move(mv(&created, true, "d4", Some(0))),
        );
        let codes = [
            a.as_ref().err().map(tonic::Status::code),
            b.as_ref().err().map(tonic::Status::code),
        ];
        assert_eq!(codes.iter().filter(|c| c.is_none()).count(), 1, "{codes:?}");
        assert!(codes.contains(&Some(Code::Aborted)), "{codes:?}");
        let game = games
            .get_game(pb::GetGameRequest {
                game_id: created.game.unwrap().id,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap();
        assert_eq!(game.ply, 1);
    }
    server.stop().await;
}

#[tokio::test]
async fn draws_resignation_and_abort() {
    let server = TestServer::start().await;
    let mut games = server.games().await;

    let g = new_game(&mut games).await;
    let id = g.game.as_ref().unwrap().id.clone();
    games.make_move(mv(&g, true, "e4", None)).await.unwrap();
    let offered = games
        .offer_draw(pb::OfferDrawRequest::by_seat(
            id.clone(),
            g.white_token.clone(),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(offered.game.unwrap().draw_offer, pb::Side::White as i32);
    let declined = games
        .respond_to_draw(pb::RespondToDrawRequest {
            accept: false,
            ..pb::RespondToDrawRequest::by_seat(id.clone(), g.black_token.clone())
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        declined.game.unwrap().draw_offer,
        pb::Side::Unspecified as i32
    );
    games
        .offer_draw(pb::OfferDrawRequest::by_seat(
            id.clone(),
            g.black_token.clone(),
        ))
        .await
        .unwrap();
    let drawn = games
        .respond_to_draw(pb::RespondToDrawRequest {
            accept: true,
            ..pb::RespondToDrawRequest::by_seat(id.clone(), g.white_token.clone())
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(
        drawn.outcome.unwrap().termination,
        pb::Termination::Agreement as i32
    );

    let g = new_game(&mut games).await;
    let id = g.game.as_ref().unwrap().id.clone();
    let err = games
        .claim_draw(pb::ClaimDrawRequest {
            game_id: id.clone(),
            seat_token: g.white_token.clone(),
            r#move: String::new(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        (Code::FailedPrecondition, "NO_DRAW_TO_CLAIM".to_owned())
    );
    for (white, m) in [
        (true, "Nf3"),
        (false, "Nf6"),
        (true, "Ng1"),
        (false, "Ng8"),
        (true, "Nf3"),
        (false, "Nf6"),
        (true, "Ng1"),
    ] {
        games.make_move(mv(&g, white, m, None)).await.unwrap();
    }
    let claimed = common::claim_draw(&mut games, &id, &g.black_token, "Ng8").await;
    assert_eq!(claimed.ply, 8);
    assert_eq!(
        claimed.outcome.unwrap().termination,
        pb::Termination::ThreefoldRepetition as i32
    );

    let g = new_game(&mut games).await;
    let id = g.game.as_ref().unwrap().id.clone();
    let resigned = games
        .resign(pb::ResignRequest::by_seat(id, g.black_token.clone()))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    let outcome = resigned.outcome.unwrap();
    assert_eq!(
        (outcome.termination, outcome.winner),
        (pb::Termination::Resignation as i32, pb::Side::White as i32)
    );

    let g = new_game(&mut games).await;
    let id = g.game.as_ref().unwrap().id.clone();
    games.make_move(mv(&g, true, "e4", None)).await.unwrap();
    games.make_move(mv(&g, false, "e5", None)).await.unwrap();
    let err = games
        .abort(pb::AbortRequest::by_seat(id, g.white_token.clone()))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        (Code::FailedPrecondition, "TOO_LATE_TO_ABORT".to_owned())
    );
    let g = new_game(&mut games).await;
    let aborted = games
        .abort(pb::AbortRequest::by_seat(
            g.game.unwrap().id,
            g.black_token.clone(),
        ))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(
        aborted.outcome.unwrap().status,
        pb::OutcomeStatus::Aborted as i32
    );
    server.stop().await;
}

/// A bare CreateGame names the seats after their sides, and the game is
/// played like any other.
#[tokio::test]
async fn display_names_default_to_the_sides() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    for (variant, white, first) in [
        (pb::Variant::Chess, "White", "e4"),
        (pb::Variant::Xiangqi, "Red", "h2e2"),
    ] {
        let created = games
            .create_game(pb::CreateGameRequest {
                variant: variant as i32,
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("{variant:?}: {e:?}"))
            .into_inner();
        let game = created.game.unwrap();
        let name = |seat: &Option<pb::Seat>| seat.as_ref().unwrap().display_name.clone();
        assert_eq!(
            (name(&game.white), name(&game.black)),
            (white.to_owned(), "Black".to_owned())
        );
        assert!(!created.white_token.is_empty() && !created.black_token.is_empty());
        common::play(&mut games, &game.id, &created.white_token, first).await;
    }
    // A name given is kept, one side may be left to its default.
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            black: common::seat("Bob"),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let game = created.game.unwrap();
    assert_eq!(game.white.unwrap().display_name, "White");
    assert_eq!(game.black.unwrap().display_name, "Bob");
    // A name too long is still refused.
    let err = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat(&"x".repeat(101)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("white.display_name"), "{err:?}");
    server.stop().await;
}

/// Xiangqi's sides are Red and Black in the words a client shows: a
/// refusal out of turn and the outcome of a resignation name them so.
#[tokio::test]
async fn xiangqi_outcomes_and_refusals_name_red_and_black() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::create_game(&mut games, pb::Variant::Xiangqi, None, "R", "B").await;
    let id = created.game.as_ref().unwrap().id.clone();
    let err = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: created.black_token.clone(),
            r#move: "h7e7".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&err),
        (Code::PermissionDenied, "NOT_YOUR_TURN".to_owned())
    );
    assert_eq!(err.message(), "it is red's turn, not black's");
    let resigned = games
        .resign(pb::ResignRequest::by_seat(
            id.clone(),
            created.black_token.clone(),
        ))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    let described = "red won by resignation";
    assert_eq!(resigned.outcome.unwrap().description, described);
    let listed = common::get_game(&mut games, &id).await;
    assert_eq!(listed.outcome.unwrap().description, described);
}
