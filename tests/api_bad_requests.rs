//! Requests a client should not send: bytes that are not the method's
//! message, messages over the size limit, and inputs long enough that an
//! error quoting them whole would not fit a client's trailer limit. Each
//! gets a status that says whose fault it is, never INTERNAL.

mod common;

use arbiter::api::proto::{
    self as pb, games_client::GamesClient, positions_client::PositionsClient,
    rules_client::RulesClient,
};
use common::{TestServer, raw::Raw};
use http::uri::PathAndQuery;
use prost::Message;
use tonic::{Code, Request, Status, transport::Channel};
use tonic_types::StatusExt;

/// Methods that answer with a stream.
const STREAMING: [&str; 2] = ["/arbiter.v1.Games/WatchGame", "/arbiter.v1.Engine/Analyze"];

/// Calls `path` with `message` as the request's bytes; the error status.
async fn refused(channel: &Channel, path: &'static str, message: Vec<u8>) -> Status {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.expect("connection");
    let path = PathAndQuery::from_static(path);
    let answer = if STREAMING.contains(&path.as_str()) {
        grpc.server_streaming(Request::new(message), path, Raw)
            .await
            .map(drop)
    } else {
        grpc.unary(Request::new(message), path, Raw).await.map(drop)
    };
    answer.expect_err("the request is refused")
}

/// One method of each service and each kind of route: the generated
/// services, `LegalMoves`' own route, streams, and health.
const METHODS: [&str; 9] = [
    "/arbiter.v1.Rules/LegalMoves",
    "/arbiter.v1.Rules/ValidateMove",
    "/arbiter.v1.Positions/CreatePosition",
    "/arbiter.v1.Games/MakeMove",
    "/arbiter.v1.Games/WatchGame",
    "/arbiter.v1.Games/ImportGame",
    "/arbiter.v1.Engine/BestMove",
    "/arbiter.v1.Engine/Analyze",
    "/grpc.health.v1.Health/Check",
];

#[tokio::test]
async fn bytes_that_are_not_the_message_are_invalid_arguments() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    // A position whose FEN is not UTF-8, inside a LegalMovesRequest.
    let not_utf8 = vec![0x0A, 0x05, 0x08, 0x01, 0x12, 0x01, 0xFF];
    let bodies: [(&str, Vec<u8>); 4] = [
        ("invalid varint", vec![0xFF; 64]),
        ("wire type", vec![0x08, 0x01, 0x0A, 0x01]),
        ("buffer underflow", vec![0x0A, 0x50, 0x08]),
        ("UTF-8", not_utf8),
    ];
    for path in METHODS {
        for (what, body) in &bodies {
            let status = refused(&channel, path, body.clone()).await;
            assert_eq!(status.code(), Code::InvalidArgument, "{path}: {status:?}");
            assert!(
                status
                    .message()
                    .starts_with("the request is not a valid message"),
                "{path}: {status:?}"
            );
            let info = status.get_details_error_info().expect("ErrorInfo");
            assert_eq!(info.reason, "MALFORMED_REQUEST", "{path}");
            if path == METHODS[0] {
                assert!(status.message().contains(what), "{path}: {status:?}");
            }
        }
    }
    // The connection still serves.
    let mut rules = RulesClient::new(channel);
    let answer = rules
        .legal_moves(pb::LegalMovesRequest::default())
        .await
        .unwrap_err();
    assert_eq!(
        answer.code(),
        Code::InvalidArgument,
        "no variant: {answer:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn unknown_methods_say_where_to_look() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    for path in [
        "/arbiter.v1.Rules/NoSuchMethod",
        "/arbiter.v1.NoSuchService/Get",
    ] {
        let status = refused(&channel, path, Vec::new()).await;
        assert_eq!(
            common::code_and_reason(&status),
            (Code::Unimplemented, "UNKNOWN_METHOD".to_owned()),
            "{path}"
        );
        assert!(status.message().contains("reflection"), "{status:?}");
    }
    server.stop().await;
}

/// Every service refuses a message over its limit: 64 KiB for Rules,
/// Positions, Engine and Games, 1 MiB for ImportGame, 4 KiB for health.
#[tokio::test]
async fn messages_over_the_limit_exhaust_resources() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    let request = pb::LegalMovesRequest {
        position: Some(pb::Position {
            variant: pb::Variant::Chess as i32,
            fen: "x".repeat(1024 * 1024),
            moves: vec![],
        }),
        detail: 0,
    };
    let body = request.encode_to_vec();
    for path in METHODS {
        let limit = if path == "/arbiter.v1.Games/ImportGame" {
            arbiter::api::DEFAULT_MAX_IMPORT_REQUEST_BYTES
        } else if path.starts_with("/grpc.health") {
            arbiter::api::MAX_SMALL_REQUEST_BYTES
        } else {
            arbiter::api::DEFAULT_MAX_REQUEST_BYTES
        };
        let status = refused(&channel, path, body.clone()).await;
        assert_eq!(status.code(), Code::ResourceExhausted, "{path}: {status:?}");
        assert_eq!(
            status.message(),
            format!(
                "the request message is {} bytes; the server accepts at most {limit} bytes",
                body.len()
            ),
            "{path}"
        );
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.reason, "REQUEST_TOO_LARGE");
        assert_eq!(info.metadata["found_bytes"], body.len().to_string());
        assert_eq!(info.metadata["limit_bytes"], limit.to_string());
    }
    server.stop().await;
}

#[tokio::test]
async fn grpc_web_bodies_that_are_not_messages_are_invalid_arguments() {
    let server = TestServer::start().await;
    for (content_type, body) in [
        (
            "application/grpc-web+proto",
            common::grpc_frame(&[0xFF; 50]),
        ),
        // `base64` ends its output with a newline, which is not base64.
        ("application/grpc-web-text", b"AAAAAAA=\n".to_vec()),
        ("application/grpc-web-text", b"!!!not base64***".to_vec()),
    ] {
        for path in [
            "/arbiter.v1.Rules/LegalMoves",
            "/grpc.health.v1.Health/Check",
        ] {
            let text = common::http1_post(server.addr, path, content_type, &body).await;
            assert!(text.starts_with("http/1.1 200"), "{text}");
            assert!(
                text.contains("grpc-status: 3") || text.contains("grpc-status:3"),
                "{content_type} {path}: {text}"
            );
        }
    }
    server.stop().await;
}

/// Error messages quote long inputs cut short: gRPC clients refuse
/// trailers of more than 8-16 KiB, and would report that instead of the
/// status.
#[tokio::test]
async fn errors_quote_long_inputs_cut_short() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    let long = "q".repeat(20_000);
    let mut games = GamesClient::new(channel.clone());
    let mut positions = PositionsClient::new(channel.clone());
    let mut rules = RulesClient::new(channel);
    let created = common::new_chess_game(&mut games, None).await;
    let statuses = [
        games
            .make_move(pb::MakeMoveRequest {
                game_id: created.game.unwrap().id,
                seat_token: created.white_token,
                r#move: long.clone(),
                expected_ply: None,
                ..Default::default()
            })
            .await
            .unwrap_err(),
        games
            .get_game(pb::GetGameRequest {
                game_id: long.clone(),
                ..Default::default()
            })
            .await
            .unwrap_err(),
        games
            .export_game(pb::ExportGameRequest {
                game_id: long.clone(),
                ..Default::default()
            })
            .await
            .unwrap_err(),
        games
            .import_game(pb::ImportGameRequest {
                pgn: format!("1. e4 {long} *"),
                ..Default::default()
            })
            .await
            .unwrap_err(),
        positions
            .get_position(pb::GetPositionRequest { id: long.clone() })
            .await
            .unwrap_err(),
        positions
            .create_position(pb::CreatePositionRequest {
                variant: pb::Variant::Chess as i32,
                source: Some(pb::create_position_request::Source::Board(pb::Board {
                    pieces: vec![pb::PlacedPiece {
                        square: long.clone(),
                        piece: long.clone(),
                    }],
                    turn: pb::Side::White as i32,
                    ..Default::default()
                })),
                ..Default::default()
            })
            .await
            .unwrap_err(),
        rules
            .validate_move(pb::ValidateMoveRequest {
                position: Some(pb::Position {
                    variant: pb::Variant::Xiangqi as i32,
                    ..Default::default()
                }),
                r#move: long.clone(),
            })
            .await
            .unwrap_err(),
        rules
            .legal_moves(pb::LegalMovesRequest {
                position: Some(pb::Position {
                    variant: pb::Variant::Chess as i32,
                    fen: String::new(),
                    moves: vec![long.clone()],
                }),
                detail: 0,
            })
            .await
            .unwrap_err(),
    ];
    // A tag is named by its index.
    let tags = positions
        .create_position(pb::CreatePositionRequest {
            variant: pb::Variant::Chess as i32,
            source: Some(pb::create_position_request::Source::Fen(String::new())),
            tags: vec![long.clone()],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        tags.message(),
        "tags: tags[0] has 20000 characters: a tag has 1 to 64 characters, none of them a \
         control character"
    );
    let cut = format!("{:?}... (20000 characters)", &long[..32]);
    for status in statuses {
        assert!(
            matches!(status.code(), Code::NotFound | Code::InvalidArgument),
            "{status:?}"
        );
        assert!(status.message().contains(&cut), "{status:?}");
        assert!(status.message().len() < 300, "{status:?}");
        assert!(status.details().len() < 1024, "{status:?}");
    }
    server.stop().await;
}
