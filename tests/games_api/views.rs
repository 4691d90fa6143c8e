//! How much of a game answers carry (`GameView`): MakeMove and the other
//! game actions answer without the move list by default, so their size does
//! not grow with the game; GetGame and a request for GAME_VIEW_FULL have
//! every move. WatchGame's events after the snapshot carry the basic view
//! too (and the move), live and resumed alike, unless the watcher asks for
//! GAME_VIEW_FULL.

use crate::common::{self, SeatRequest};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use common::{
    TestServer, code_and_reason,
    long_game::{long_game, long_xiangqi_game},
};
use prost::Message;
use tonic::{Code, transport::Channel};

/// The seat to move at `ply` (White moved first).
fn mover(created: &pb::ImportGameResponse, ply: usize) -> &str {
    if ply.is_multiple_of(2) {
        &created.white_token
    } else {
        &created.black_token
    }
}

/// Imports the first `plies` of `sans` as an unfinished game of `variant`.
async fn import(
    games: &mut GamesClient<Channel>,
    variant: pb::Variant,
    sans: &[String],
    plies: usize,
) -> pb::ImportGameResponse {
    games
        .import_game(pb::ImportGameRequest {
            pgn: common::long_game::pgn(sans, plies),
            variant: variant as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// Plays ply `ply` of `sans` on `created` with `view`; the answer.
async fn make_move(
    games: &mut GamesClient<Channel>,
    created: &pb::ImportGameResponse,
    sans: &[String],
    ply: usize,
    view: pb::GameView,
) -> pb::MakeMoveResponse {
    games
        .make_move(pb::MakeMoveRequest {
            game_id: created.game.as_ref().unwrap().id.clone(),
            seat_token: mover(created, ply).to_owned(),
            r#move: sans[ply].clone(),
            expected_ply: Some(ply as u32),
            view: view as i32,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("ply {ply} ({}): {e:?}", sans[ply]))
        .into_inner()
}

/// Answer bytes of MakeMove at ply 10 and at ply 400 of one long game, in
/// both games: the basic answer (the default) stays the same size, the full
/// one carries every move.
#[tokio::test]
async fn make_move_answers_do_not_grow_with_the_game() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    for (variant, moves) in [
        (pb::Variant::Chess, long_game(401)),
        (pb::Variant::Xiangqi, long_xiangqi_game(401)),
    ] {
        let mut bytes = Vec::new();
        for plies in [9, 399] {
            let created = import(&mut games, variant, &moves, plies).await;
            let answer = make_move(
                &mut games,
                &created,
                &moves,
                plies,
                pb::GameView::Unspecified,
            )
            .await;
            let game = answer.game.as_ref().unwrap();
            let played = answer.r#move.as_ref().unwrap();
            assert!(game.moves.is_empty(), "the default is the basic view");
            assert_eq!(game.ply as usize, plies + 1);
            assert_eq!(played.ply as usize, plies);
            let notations = played.r#move.as_ref().unwrap();
            assert!([&notations.uci, &notations.san].contains(&&moves[plies]));
            assert_eq!(game.fen, played.fen_after);
            assert_eq!(
                game.outcome.as_ref().unwrap().status,
                pb::OutcomeStatus::Ongoing as i32
            );
            assert_eq!(game.version, 1, "imported at version 0, one move since");
            bytes.push(answer.encoded_len());

            // The same game asked for in full has every move.
            let full = make_move(&mut games, &created, &moves, plies + 1, pb::GameView::Full).await;
            assert_eq!(full.game.as_ref().unwrap().moves.len(), plies + 2);
            println!(
                "{variant:?}: MakeMove at ply {}: basic {} bytes; at ply {}: full {} bytes",
                plies + 1,
                answer.encoded_len(),
                plies + 2,
                full.encoded_len()
            );
            if plies == 399 {
                assert!(full.encoded_len() > 20 * answer.encoded_len());
            }
        }
        let [short, long] = bytes[..] else {
            unreachable!()
        };
        assert!(
            long < 1024,
            "{variant:?}: a basic answer at ply 400 has {long} bytes"
        );
        assert!(
            long * 2 <= short * 3,
            "{variant:?}: ply 400: {long} bytes, ply 10: {short} bytes"
        );
    }
    server.stop().await;
}

/// The basic answers of the game actions carry the state a client goes on
/// from: clock, offers, ply, FEN, version and outcome, without the moves.
#[tokio::test]
async fn basic_answers_carry_the_state_of_the_game() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat("Alice"),
            black: common::seat("Bob"),
            time_control: Some(pb::TimeControl {
                initial_ms: 300_000,
                increment_ms: 2_000,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = created.game.unwrap().id;
    let (white, black) = (created.white_token, created.black_token);
    for (ply, text) in ["e4", "e5", "Nf3"].into_iter().enumerate() {
        let token = if ply % 2 == 0 { &white } else { &black };
        let game = common::play(&mut games, &id, token, text).await;
        assert!(game.moves.is_empty());
        assert_eq!(game.ply as usize, ply + 1);
        let clock = game.clock.expect("a timed game's clock");
        assert!(clock.white_ms > 0 && clock.black_ms > 0);
        assert!(clock.control.is_some() && clock.since.is_some());
    }

    let offered = games
        .offer_draw(pb::OfferDrawRequest::by_seat(id.clone(), black.clone()))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert!(offered.moves.is_empty());
    assert_eq!(
        (offered.draw_offer, offered.ply),
        (pb::Side::Black as i32, 3)
    );
    let declined = games
        .respond_to_draw(pb::RespondToDrawRequest {
            game_id: id.clone(),
            seat_token: white.clone(),
            accept: false,
            view: pb::GameView::Full as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(declined.moves.len(), 3, "asked for in full");
    assert_eq!(declined.draw_offer, pb::Side::Unspecified as i32);
    assert!(declined.version > offered.version);

    let proposed = common::propose_takeback(&mut games, &id, &white)
        .await
        .unwrap();
    assert!(proposed.moves.is_empty());
    assert_eq!(proposed.takeback_offer, pb::Side::White as i32);
    let taken = common::respond_to_takeback(&mut games, &id, &black, true)
        .await
        .unwrap();
    assert!(taken.moves.is_empty());
    // A client that keeps its own list keeps the first `ply` moves.
    assert_eq!(taken.ply, 2);
    assert_eq!(taken.turn, pb::Side::White as i32);
    let full = common::get_game(&mut games, &id).await;
    assert_eq!(full.moves.len(), 2, "GetGame answers in full by default");
    assert_eq!(taken.fen, full.fen);
    assert_eq!(taken.fen, full.moves[1].fen_after);

    let basic = games
        .get_game(pb::GetGameRequest {
            game_id: id.clone(),
            view: pb::GameView::Basic as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(
        basic,
        pb::Game {
            moves: vec![],
            ..full
        }
    );

    let resigned = games
        .resign(pb::ResignRequest::by_seat(id.clone(), white.clone()))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert!(resigned.moves.is_empty());
    let outcome = resigned.outcome.unwrap();
    assert_eq!(
        (outcome.status, outcome.winner, outcome.termination),
        (
            pb::OutcomeStatus::Decisive as i32,
            pb::Side::Black as i32,
            pb::Termination::Resignation as i32
        )
    );
    server.stop().await;
}

/// A view the contract does not know is refused before anything is done.
#[tokio::test]
async fn an_unknown_view_is_refused_before_the_move() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let refused = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: created.white_token.clone(),
            r#move: "e4".into(),
            view: 9,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(refused.message().contains("view"), "{}", refused.message());
    let refused = games
        .get_game(pb::GetGameRequest {
            game_id: id.clone(),
            view: -1,
        })
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&refused).0, Code::InvalidArgument);
    assert_eq!(common::get_game(&mut games, &id).await.ply, 0);
    server.stop().await;
}

/// A watch of game `id` in `view`, from the start or after `from_version`.
async fn watch(
    games: &mut GamesClient<Channel>,
    id: &str,
    view: pb::GameView,
    from_version: Option<i64>,
) -> tonic::Streaming<pb::WatchGameResponse> {
    games
        .watch_game(pb::WatchGameRequest {
            game_id: id.to_owned(),
            from_version,
            view: view as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// The next message of `stream`, within 10 s.
async fn next(stream: &mut tonic::Streaming<pb::WatchGameResponse>) -> pb::WatchGameResponse {
    tokio::time::timeout(std::time::Duration::from_secs(10), stream.message())
        .await
        .expect("a message in time")
        .unwrap()
        .expect("a message")
}

/// Bytes of a MOVE event at ply 10 and ply 400 of one long game, in both
/// games: by default the event has the move and the game without its move
/// list, the same size at ply 400 as at ply 10, while the snapshot and
/// GAME_VIEW_FULL have every move; a resume tells the very same event.
#[tokio::test]
async fn watch_events_do_not_grow_with_the_game() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    for (variant, moves) in [
        (pb::Variant::Chess, long_game(401)),
        (pb::Variant::Xiangqi, long_xiangqi_game(401)),
    ] {
        let mut lean_sizes = Vec::new();
        for plies in [9, 399] {
            let created = import(&mut games, variant, &moves, plies).await;
            let id = created.game.as_ref().unwrap().id.clone();
            let mut lean = watch(&mut games, &id, pb::GameView::Unspecified, None).await;
            let mut full = watch(&mut games, &id, pb::GameView::Full, None).await;
            for stream in [&mut lean, &mut full] {
                let snapshot = next(stream).await;
                assert_eq!(snapshot.kind, pb::GameEventKind::Snapshot as i32);
                assert_eq!(snapshot.game.unwrap().moves.len(), plies, "the whole game");
            }
            let answer = make_move(&mut games, &created, &moves, plies, pb::GameView::Basic).await;
            let event = next(&mut lean).await;
            assert_eq!(event.kind, pb::GameEventKind::Move as i32);
            assert_eq!(event.game, answer.game, "the basic view, as MakeMove's");
            assert_eq!(event.r#move, answer.r#move);
            let whole = next(&mut full).await;
            assert_eq!(whole.game.as_ref().unwrap().moves.len(), plies + 1);
            println!(
                "{variant:?}: WatchGame MOVE event at ply {}: {} bytes (GAME_VIEW_FULL {} bytes)",
                plies + 1,
                event.encoded_len(),
                whole.encoded_len()
            );
            lean_sizes.push(event.encoded_len());
            if plies == 399 {
                assert!(whole.encoded_len() > 20 * event.encoded_len());
            }
            // Resumed from before it, in either view, the same event.
            let version = event.game.as_ref().unwrap().version;
            let mut resumed = watch(&mut games, &id, pb::GameView::Basic, Some(version - 1)).await;
            assert_eq!(next(&mut resumed).await, event);
            let mut resumed = watch(&mut games, &id, pb::GameView::Full, Some(version - 1)).await;
            assert_eq!(next(&mut resumed).await, whole);
        }
        let [short, long] = lean_sizes[..] else {
            unreachable!()
        };
        assert!(
            long < 1024,
            "{variant:?}: an event at ply 400 has {long} bytes"
        );
        assert!(
            long * 2 <= short * 3,
            "{variant:?}: ply 400: {long} bytes, ply 10: {short} bytes"
        );
    }
    server.stop().await;
}

/// A watch's unknown view is refused before anything is watched.
#[tokio::test]
async fn a_watch_in_an_unknown_view_is_refused() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let status = games
        .watch_game(pb::WatchGameRequest {
            game_id: created.game.unwrap().id,
            view: 99,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "UNKNOWN_ENUM_VALUE".to_owned())
    );
    server.stop().await;
}
