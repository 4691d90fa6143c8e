//! Credentials: a saved position is deleted only with its owner token or
//! the operator credential (`--admin-token`), over gRPC and grpc-web alike;
//! the operator credential aborts any game, engine-vs-engine games included;
//! wrong credentials are refused.

use crate::common::{self, SeatRequest};

use std::time::Duration;

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient, positions_client::PositionsClient},
    games::AdminToken,
};
use common::TestServer;
use prost::Message;
use tonic::{Code, transport::Channel};

const ADMIN: &str = "c3f7e9a1b5d24680f1e3a5c7b9d0e2f4";

async fn server_with_admin() -> TestServer {
    TestServer::start_with_config(|config| arbiter::server::ServerConfig {
        admin_token: Some(AdminToken::new(ADMIN).unwrap()),
        ..config
    })
    .await
}

async fn save(positions: &mut PositionsClient<Channel>) -> pb::CreatePositionResponse {
    positions
        .create_position(pb::CreatePositionRequest {
            variant: pb::Variant::Chess as i32,
            source: Some(pb::create_position_request::Source::Fen(
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1".into(),
            )),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

async fn delete(
    positions: &mut PositionsClient<Channel>,
    id: &str,
    owner_token: &str,
) -> Result<(), (Code, String)> {
    positions
        .delete_position(pb::DeletePositionRequest {
            id: id.into(),
            owner_token: owner_token.into(),
        })
        .await
        .map(drop)
        .map_err(|status| common::code_and_reason(&status))
}

fn refused(code: Code, reason: &str) -> Result<(), (Code, String)> {
    Err((code, reason.to_owned()))
}

#[tokio::test]
async fn positions_are_deleted_by_their_owner_or_the_operator() {
    let server = server_with_admin().await;
    let mut positions = PositionsClient::new(server.channel().await);
    let mine = save(&mut positions).await;
    let theirs = save(&mut positions).await;
    let id = mine.position.as_ref().unwrap().id.clone();
    assert_eq!(mine.owner_token.len(), 64, "256 bits in hex");
    assert_ne!(mine.owner_token, theirs.owner_token);

    // Anonymous, another position's owner, a wrong operator credential.
    let unauthenticated = |reason| refused(Code::Unauthenticated, reason);
    assert_eq!(
        delete(&mut positions, &id, "").await,
        unauthenticated("OWNER_TOKEN_MISSING")
    );
    for wrong in [theirs.owner_token.as_str(), "operator-credential-012345678"] {
        assert_eq!(
            delete(&mut positions, &id, wrong).await,
            unauthenticated("OWNER_TOKEN_UNKNOWN")
        );
    }
    // Over grpc-web, cross-origin, the same.
    let request = pb::DeletePositionRequest {
        id: id.clone(),
        owner_token: String::new(),
    };
    let answer = common::http1_post(
        server.addr,
        "/arbiter.v1.Positions/DeletePosition",
        "application/grpc-web+proto",
        &common::grpc_frame(&request.encode_to_vec()),
    )
    .await;
    assert!(answer.contains("grpc-status: 16"), "{answer}");
    positions
        .get_position(pb::GetPositionRequest { id: id.clone() })
        .await
        .expect("still there");

    // The owner deletes it; the operator deletes anyone's.
    assert_eq!(delete(&mut positions, &id, &mine.owner_token).await, Ok(()));
    assert_eq!(
        delete(&mut positions, &id, &mine.owner_token).await,
        refused(Code::NotFound, "POSITION_NOT_FOUND")
    );
    let other = theirs.position.unwrap().id;
    assert_eq!(delete(&mut positions, &other, ADMIN).await, Ok(()));

    // A position saved before positions had owners: only the operator.
    let legacy = save(&mut positions).await;
    let legacy_id = legacy.position.unwrap().id;
    let db = server.db.clone();
    let dir = server.stop().await;
    let pool = db.pool().await;
    sqlx::query("UPDATE positions SET owner_token_hash = NULL WHERE id = $1")
        .bind(&legacy_id)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let server = TestServer::start_on_configured(&db, |config| arbiter::server::ServerConfig {
        admin_token: Some(AdminToken::new(ADMIN).unwrap()),
        ..config
    })
    .await;
    let mut positions = PositionsClient::new(server.channel().await);
    let status = positions
        .delete_position(pb::DeletePositionRequest {
            id: legacy_id.clone(),
            owner_token: legacy.owner_token,
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::Unauthenticated, "OWNER_TOKEN_UNKNOWN".to_owned())
    );
    assert!(status.message().contains("operator"), "{status:?}");
    assert_eq!(delete(&mut positions, &legacy_id, ADMIN).await, Ok(()));
    server.stop().await;
    drop(dir);
}

/// The game once it has at least `ply` moves (at most 20 real seconds).
async fn after_ply(games: &mut GamesClient<Channel>, id: &str, ply: u32) -> pb::Game {
    common::game_once(games, id, Duration::from_secs(20), |game| game.ply >= ply).await
}

/// A game two engines play, each thinking `movetime_ms` a move; its id.
/// Kings and pawns: no mate ends it while the test is slow.
async fn engine_game(games: &mut GamesClient<Channel>, movetime_ms: u32) -> String {
    let engine = || common::engine_seat(1, movetime_ms);
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            start: Some(pb::create_game_request::Start::Fen(
                "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1".into(),
            )),
            white: engine(),
            black: engine(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    created.game.unwrap().id
}

async fn abort(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
) -> Result<pb::Game, tonic::Status> {
    games
        .abort(pb::AbortRequest::by_seat(id, token))
        .await
        .map(|answer| answer.into_inner().game.unwrap())
}

#[tokio::test]
async fn the_operator_aborts_any_game() {
    let server = server_with_admin().await;
    let mut games = server.games().await;
    let id = engine_game(&mut games, 50).await;
    after_ply(&mut games, &id, 4).await;
    for (token, reason) in [
        ("", "SEAT_TOKEN_MISSING"),
        ("operator-credential-012345678", "SEAT_TOKEN_UNKNOWN"),
    ] {
        let status = abort(&mut games, &id, token).await.unwrap_err();
        assert_eq!(
            common::code_and_reason(&status),
            (Code::Unauthenticated, reason.to_owned())
        );
    }
    let aborted = abort(&mut games, &id, ADMIN).await.unwrap();
    let outcome = aborted.outcome.unwrap();
    assert_eq!(
        (
            outcome.status,
            outcome.termination,
            outcome.description.as_str()
        ),
        (
            pb::OutcomeStatus::Aborted as i32,
            pb::Termination::AbortedByOperator as i32,
            "aborted by the operator"
        )
    );
    // The engines stop: the game stays as it was aborted.
    common::let_pass(Duration::from_millis(300)).await;
    let later = after_ply(&mut games, &id, 0).await;
    assert_eq!(later.ply, aborted.ply);
    let status = abort(&mut games, &id, ADMIN).await.unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::FailedPrecondition, "GAME_OVER".to_owned())
    );

    // A human game past its first moves: too late for its players, not for
    // the operator.
    let human = common::new_chess_game(&mut games, None).await;
    let human_id = human.game.unwrap().id;
    common::play(&mut games, &human_id, &human.white_token, "e4").await;
    common::play(&mut games, &human_id, &human.black_token, "e5").await;
    let status = abort(&mut games, &human_id, &human.white_token)
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::FailedPrecondition, "TOO_LATE_TO_ABORT".to_owned())
    );
    abort(&mut games, &human_id, ADMIN).await.unwrap();

    // Recorded as the operator's: no side in the game's history.
    let db = server.db.clone();
    let dir = server.stop().await;
    let pool = db.pool().await;
    let last: (String, Option<String>) = sqlx::query_as(
        "SELECT e.kind, e.side FROM game_events e JOIN games g ON g.seq = e.game_seq \
         WHERE g.id = $1 ORDER BY e.version DESC LIMIT 1",
    )
    .bind(&id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(last, ("aborted".to_owned(), None));
    pool.close().await;
    drop(dir);
}

/// Engines answering each other at once change their game with every
/// commit; the operator's abort waits its turn among those changes rather
/// than losing to each in turn (never answered ABORTED).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_aborts_games_engines_play_at_full_speed() {
    const GAMES: usize = 6;
    let server = server_with_admin().await;
    let mut games = server.games().await;
    for _ in 0..GAMES {
        let id = engine_game(&mut games, 1).await;
        after_ply(&mut games, &id, 6).await;
        match abort(&mut games, &id, ADMIN).await {
            Ok(aborted) => assert_eq!(
                aborted.outcome.unwrap().termination,
                pb::Termination::AbortedByOperator as i32
            ),
            // The engines may have ended it by the rules first; what must
            // never come is a conflict.
            Err(status) => assert_eq!(
                common::code_and_reason(&status),
                (Code::FailedPrecondition, "GAME_OVER".to_owned()),
                "{status:?}"
            ),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn without_an_operator_credential_nobody_has_one() {
    let server = TestServer::start().await;
    let mut positions = PositionsClient::new(server.channel().await);
    let saved = save(&mut positions).await;
    let id = saved.position.unwrap().id;
    assert_eq!(
        delete(&mut positions, &id, ADMIN).await,
        refused(Code::Unauthenticated, "OWNER_TOKEN_UNKNOWN")
    );
    server.stop().await;
}

#[test]
fn a_short_operator_credential_is_refused_at_start() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--listen", "127.0.0.1:0", "--admin-token", "short"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("at least 16 characters"), "{stderr}");
}

#[test]
fn an_operator_credential_easy_to_guess_is_refused_at_start() {
    for weak in ["aaaaaaaaaaaaaaaa", "0123456789abcdef", "passwordpassword"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["serve", "--listen", "127.0.0.1:0", "--admin-token", weak])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{weak} was taken");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("too easy to guess"), "{weak}: {stderr}");
    }
}
