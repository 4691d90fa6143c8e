//! Takebacks through gRPC: between two humans (propose, decline, accept,
//! errors), granted at once by an engine seat unless the game refuses, and
//! the undone moves kept in the game's history in the database.

use crate::common;

use arbiter::api::proto as pb;
use common::{TestServer, play, propose_takeback, respond_to_takeback};
use tokio_stream::StreamExt;
use tonic::Code;

#[tokio::test]
async fn takebacks_between_humans() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.as_ref().unwrap().id.clone();
    let (white, black) = (created.white_token.clone(), created.black_token.clone());

    // Nothing to take back yet.
    let status = propose_takeback(&mut games, &id, &white).await.unwrap_err();
    let precondition = |reason: &str| (Code::FailedPrecondition, reason.to_owned());
    assert_eq!(
        common::code_and_reason(&status),
        precondition("NO_MOVE_TO_TAKE_BACK")
    );

    let mut watch = common::watch(&mut games, &id).await;
    watch.next().await.unwrap().unwrap(); // snapshot

    play(&mut games, &id, &white, "e4").await;
    play(&mut games, &id, &black, "e5").await;
    play(&mut games, &id, &white, "Qh5").await;

    // White regrets Qh5; Black declines, then accepts a second proposal.
    let proposed = propose_takeback(&mut games, &id, &white).await.unwrap();
    assert_eq!(proposed.takeback_offer, pb::Side::White as i32);
    assert_eq!(
        common::code_and_reason(&propose_takeback(&mut games, &id, &white).await.unwrap_err()),
        precondition("TAKEBACK_ALREADY_PROPOSED")
    );
    assert_eq!(
        common::code_and_reason(
            &respond_to_takeback(&mut games, &id, &white, true)
                .await
                .unwrap_err()
        ),
        precondition("NOTHING_TO_ANSWER"),
        "the proposer cannot answer its own proposal"
    );
    let declined = respond_to_takeback(&mut games, &id, &black, false)
        .await
        .unwrap();
    assert_eq!(
        (declined.ply, declined.takeback_offer),
        (3, pb::Side::Unspecified as i32)
    );
    propose_takeback(&mut games, &id, &white).await.unwrap();
    let taken = respond_to_takeback(&mut games, &id, &black, true)
        .await
        .unwrap();
    assert_eq!(taken.ply, 2);
    assert_eq!(taken.turn, pb::Side::White as i32);
    // The answer is the basic view (no move list); the game has the shorter
    // one.
    assert!(taken.moves.is_empty());
    let stored = common::get_game(&mut games, &id).await;
    assert_eq!(
        stored.moves.last().unwrap().r#move.as_ref().unwrap().san,
        "e5"
    );

    // A proposal made on one's own turn (it would take back two plies) is
    // answered by playing on.
    play(&mut games, &id, &white, "Nf3").await;
    propose_takeback(&mut games, &id, &black).await.unwrap();
    let moved = play(&mut games, &id, &black, "Nc6").await;
    assert_eq!(moved.takeback_offer, pb::Side::Unspecified as i32);
    // Black takes back Nc6 (White has not replied yet): one ply.
    propose_takeback(&mut games, &id, &black).await.unwrap();
    let taken = respond_to_takeback(&mut games, &id, &white, true)
        .await
        .unwrap();
    assert_eq!(taken.ply, 3);
    assert_eq!(taken.turn, pb::Side::Black as i32);

    let kinds: Vec<i32> = {
        let mut kinds = Vec::new();
        while kinds.len() < 12 {
            kinds.push(watch.next().await.unwrap().unwrap().kind);
        }
        kinds
    };
    use pb::GameEventKind as K;
    let expected = [
        K::Move,
        K::Move,
        K::Move,
        K::TakebackProposed,
        K::TakebackDeclined,
        K::TakebackProposed,
        K::TakebackAccepted,
        K::Move,
        K::TakebackProposed,
        K::Move,
        K::TakebackProposed,
        K::TakebackAccepted,
    ];
    assert_eq!(kinds, expected.map(|k| k as i32));

    // The undone moves are kept with their takeback events.
    let db = server.db.clone();
    let dir = server.stop().await;
    let pool = db.pool().await;
    let undone: Vec<(i64, String)> =
        sqlx::query_as("SELECT ply, uci FROM undone_moves ORDER BY version, ply")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(undone, [(2, "d1h5".to_owned()), (3, "b8c6".to_owned())]);
    pool.close().await;
    drop(dir);
}

#[tokio::test]
async fn an_engine_grants_takebacks_unless_told_not_to() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    for declines in [false, true] {
        let created = games
            .create_game(pb::CreateGameRequest {
                variant: pb::Variant::Chess as i32,
                start: None,
                white: Some(pb::SeatRequest {
                    display_name: "Human".into(),
                    engine: None,
                    ..Default::default()
                }),
                black: common::engine_seat(1, 50),
                engine_declines_takebacks: declines,
                time_control: None,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let id = created.game.unwrap().id;
        let mut watch = common::watch(&mut games, &id).await;
        play(&mut games, &id, &created.white_token, "e4").await;
        // Wait for the engine's reply.
        loop {
            let event = watch.next().await.unwrap().unwrap();
            if event.game.unwrap().ply == 2 {
                break;
            }
        }
        let answer = propose_takeback(&mut games, &id, &created.white_token).await;
        if declines {
            let status = answer.unwrap_err();
            assert_eq!(
                common::code_and_reason(&status),
                (
                    Code::FailedPrecondition,
                    "ENGINE_DECLINES_TAKEBACKS".to_owned()
                )
            );
            assert!(
                status.message().contains("does not grant"),
                "{}",
                status.message()
            );
        } else {
            let game = answer.unwrap();
            assert_eq!((game.ply, game.turn), (0, pb::Side::White as i32));
        }
    }
    server.stop().await;
}
