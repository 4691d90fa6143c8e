//! Positions, health, reflection, grpc-web, and durability across `kill -9`.

use crate::common;

use arbiter::api::proto::{
    self as pb, games_client::GamesClient, positions_client::PositionsClient,
};
use common::{TestServer, binary::Serve};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic_types::StatusExt;

#[tokio::test]
async fn positions_are_validated_saved_listed_and_deleted() {
    let server = TestServer::start().await;
    let mut positions = PositionsClient::new(server.channel().await);
    let create =
        |variant: pb::Variant, source, name: &str, tags: &[&str]| pb::CreatePositionRequest {
            variant: variant as i32,
            source: Some(source),
            name: name.to_owned(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        };
    let fen = pb::create_position_request::Source::Fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1".into());
    let created = positions
        .create_position(create(
            pb::Variant::Chess,
            fen,
            "rook ending",
            &["endgame", "rook"],
        ))
        .await
        .unwrap()
        .into_inner();
    let a = created.position.unwrap();
    assert_eq!(a.tags, ["endgame", "rook"]);

    let piece = |square: &str, piece: &str| pb::PlacedPiece {
        square: square.into(),
        piece: piece.into(),
    };
    let board = pb::create_position_request::Source::Board(pb::Board {
        pieces: vec![piece("e0", "K"), piece("d9", "k"), piece("a3", "P")],
        turn: pb::Side::White as i32,
        castling: String::new(),
        en_passant: String::new(),
    });
    let b = positions
        .create_position(create(pb::Variant::Xiangqi, board, "", &["endgame"]))
        .await
        .unwrap()
        .into_inner()
        .position
        .unwrap();
    assert_eq!(b.fen, "3k5/9/9/9/9/9/P8/9/9/4K4 w - - 0 1");

    // Every problem is reported.
    let bad = pb::create_position_request::Source::Board(pb::Board {
        pieces: vec![piece("e1", "K"), piece("e1", "k"), piece("z9", "Q")],
        turn: pb::Side::White as i32,
        castling: String::new(),
        en_passant: String::new(),
    });
    let err = positions
        .create_position(create(pb::Variant::Chess, bad, "", &[]))
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "INVALID_FEN".to_owned())
    );
    let problems: Vec<String> = err
        .get_details_bad_request()
        .expect("BadRequest")
        .field_violations
        .into_iter()
        .map(|v| v.reason)
        .collect();
    assert_eq!(problems, ["SQUARE_TAKEN_TWICE", "BAD_SQUARE"], "{err:?}");
    let fen = pb::create_position_request::Source::Fen("8/8/8/8/8/8/8/8 w - - 0 1".into());
    let err = positions
        .create_position(create(pb::Variant::Chess, fen, "", &[]))
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "INVALID_FEN".to_owned())
    );
    assert!(
        err.message().contains("white has no king"),
        "{}",
        err.message()
    );

    let page = positions
        .list_positions(pb::ListPositionsRequest {
            tag: "endgame".into(),
            page_size: 1,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.positions.len(), 1);
    assert_eq!(page.positions[0].id, b.id, "newest first");
    let next = positions
        .list_positions(pb::ListPositionsRequest {
            tag: "endgame".into(),
            page_size: 1,
            page_token: page.next_page_token.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(next.positions[0].id, a.id);
    assert!(next.next_page_token.is_empty());
    // A page token of positions is not one of games.
    let err = GamesClient::new(server.channel().await)
        .list_games(pb::ListGamesRequest {
            page_token: page.next_page_token,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "INVALID_PAGE_TOKEN".to_owned()),
        "{err:?}"
    );
    let only_chess = positions
        .list_positions(pb::ListPositionsRequest {
            variant: pb::Variant::Chess as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(only_chess.positions.len(), 1);

    // A saved position starts a game.
    let mut games = GamesClient::new(server.channel().await);
    let start = pb::create_game_request::Start::PositionId(a.id.clone());
    let game = common::new_chess_game(&mut games, Some(start)).await;
    assert_eq!(game.game.unwrap().start_fen, a.fen);

    positions
        .delete_position(pb::DeletePositionRequest {
            id: a.id.clone(),
            owner_token: created.owner_token,
        })
        .await
        .unwrap();
    let err = positions
        .get_position(pb::GetPositionRequest { id: a.id })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::NotFound, "POSITION_NOT_FOUND".to_owned())
    );
    server.stop().await;
}

#[tokio::test]
async fn health_and_reflection_v1_and_v1alpha() {
    let server = TestServer::start().await;
    // Requests compressed with gzip, as every service accepts them.
    let gzip = tonic::codec::CompressionEncoding::Gzip;
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await)
        .send_compressed(gzip);
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "arbiter.v1.Games".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .status;
    assert_eq!(
        status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    use tonic_reflection::pb::{v1, v1alpha};
    let mut client =
        v1::server_reflection_client::ServerReflectionClient::new(server.channel().await)
            .send_compressed(gzip);
    let request = v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut stream = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        stream.next().await.unwrap().unwrap().message_response
    else {
        panic!("expected a service list");
    };
    let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
    for name in [
        "arbiter.v1.Rules",
        "arbiter.v1.Games",
        "arbiter.v1.Positions",
        "grpc.health.v1.Health",
    ] {
        assert!(names.contains(&name), "{names:?}");
    }
    let mut client =
        v1alpha::server_reflection_client::ServerReflectionClient::new(server.channel().await);
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let mut stream = client
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    assert!(stream.next().await.unwrap().is_ok());
    server.stop().await;
}

/// A browser's call: grpc-web over plain HTTP/1.1, with CORS.
#[tokio::test]
async fn grpc_web_over_http1_with_cors() {
    let server = TestServer::start().await;
    let text = common::http1_post(
        server.addr,
        "/arbiter.v1.Rules/LegalMoves",
        "application/grpc-web+proto",
        &common::start_legal_moves_frame(),
    )
    .await;
    assert!(text.starts_with("http/1.1 200"), "{text}");
    assert!(
        text.contains("access-control-allow-origin: http://example.test"),
        "{text}"
    );
    assert!(text.contains("grpc-status:0"), "{text}");
    assert!(text.contains("g1f3"), "the legal moves are in the body");
    server.stop().await;
}

/// Acknowledged moves survive `kill -9` of the real binary.
#[tokio::test]
async fn acknowledged_moves_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kill.db");
    let mut server = Serve::on(&db).start().await;
    let mut games = GamesClient::new(server.channel().await);
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    for (ply, text) in ["e4", "e5", "Nf3"].into_iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        common::play(&mut games, &id, token, text).await;
    }
    server.kill().await;
    let server = Serve::on(&db).start().await;
    let mut games = GamesClient::new(server.channel().await);
    let game = common::get_game(&mut games, &id).await;
    assert_eq!(game.ply, 3);
    assert_eq!(game.moves[2].r#move.as_ref().unwrap().san, "Nf3");
}
