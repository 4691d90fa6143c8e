//! Requests a client should not send: bytes that are not the method's
//! message, messages over the size limit, and inputs long enough that an
//! error quoting them whole would not fit a client's trailer limit. Each
//! gets a status that says whose fault it is, never INTERNAL.

use crate::common::{self, SeatRequest};

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
            ..Default::default()
        }),
        detail: 0,
    };
    let body = request.encode_to_vec();
    for path in METHODS {
        let limit = if path == "/arbiter.v1.Games/ImportGame" {
            arbiter::server::DEFAULT_MAX_IMPORT_REQUEST_BYTES
        } else if path.starts_with("/grpc.health") {
            arbiter::server::MAX_SMALL_REQUEST_BYTES
        } else {
            arbiter::server::DEFAULT_MAX_REQUEST_BYTES
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
                    ..Default::default()
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

/// What a refusal must carry: its code, its `ErrorInfo` reason and, for a
/// field's problem, the first violation's field and reason.
struct Expected {
    what: &'static str,
    code: Code,
    reason: &'static str,
    violation: Option<(&'static str, &'static str)>,
}

const fn expect(what: &'static str, code: Code, reason: &'static str) -> Expected {
    Expected {
        what,
        code,
        reason,
        violation: None,
    }
}

/// INVALID_ARGUMENT for `reason`, whose first violation is `field`'s for
/// `violation`.
const fn field(
    what: &'static str,
    reason: &'static str,
    field: &'static str,
    violation: &'static str,
) -> Expected {
    Expected {
        what,
        code: Code::InvalidArgument,
        reason,
        violation: Some((field, violation)),
    }
}

/// Checks that `status` is `expected`: the code, an `ErrorInfo` in the
/// `arbiter.dev` domain with the reason, a `BadRequest` whose every
/// violation has a reason when it is a field's INVALID_ARGUMENT, and a
/// message that does not start with a code.
fn assert_refusal(status: &Status, expected: &Expected) {
    let what = expected.what;
    assert_eq!(status.code(), expected.code, "{what}: {status:?}");
    let info = status
        .get_details_error_info()
        .unwrap_or_else(|| panic!("{what}: no ErrorInfo in {status:?}"));
    assert_eq!(info.domain, "arbiter.dev", "{what}");
    assert_eq!(info.reason, expected.reason, "{what}: {status:?}");
    let starts_with_code = |text: &str| {
        text.split_once(':').is_some_and(|(head, _)| {
            head.len() > 2 && head.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        })
    };
    assert!(!starts_with_code(status.message()), "{what}: {status:?}");
    if let Some((field, reason)) = expected.violation {
        let violations = status
            .get_details_bad_request()
            .unwrap_or_else(|| panic!("{what}: no BadRequest in {status:?}"))
            .field_violations;
        assert!(!violations.is_empty(), "{what}");
        for v in &violations {
            assert!(!v.reason.is_empty(), "{what}: {v:?}");
            assert!(!starts_with_code(&v.description), "{what}: {v:?}");
        }
        assert_eq!(
            (violations[0].field.as_str(), violations[0].reason.as_str()),
            (field, reason),
            "{what}: {violations:?}"
        );
    }
}

/// A position of `variant` with `fen` and `moves`.
fn position(variant: pb::Variant, fen: &str, moves: &[&str]) -> Option<pb::Position> {
    Some(pb::Position {
        variant: variant as i32,
        fen: fen.to_owned(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        ..Default::default()
    })
}

/// Every kind of refusal, through the generated clients: each carries its
/// reason, and each field problem names its field with a reason of its own.
#[tokio::test]
async fn every_refusal_carries_its_reason() {
    use pb::create_game_request::Start;
    let server = TestServer::start().await;
    let channel = server.channel().await;
    let mut rules = RulesClient::new(channel.clone());
    let mut games = GamesClient::new(channel.clone());
    let mut positions = PositionsClient::new(channel.clone());
    let mut engine = server.engine().await;
    let chess = pb::Variant::Chess;
    let legal =
        |position: Option<pb::Position>, detail: i32| pb::LegalMovesRequest { position, detail };
    let validate = |position: Option<pb::Position>, text: &str| pb::ValidateMoveRequest {
        position,
        r#move: text.to_owned(),
    };
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let (white, black) = (created.white_token, created.black_token);
    let make_move = |token: &str, text: &str, expected_ply: Option<u32>| pb::MakeMoveRequest {
        game_id: id.clone(),
        seat_token: token.to_owned(),
        r#move: text.to_owned(),
        expected_ply,
        ..Default::default()
    };
    let new_game = |variant: i32, white: Option<pb::SeatRequest>| pb::CreateGameRequest {
        variant,
        white,
        black: common::seat("Bob"),
        ..Default::default()
    };
    let saved = positions
        .create_position(pb::CreatePositionRequest {
            variant: chess as i32,
            source: Some(pb::create_position_request::Source::Fen(String::new())),
            ..Default::default()
        })
        .await
        .expect("position saved")
        .into_inner()
        .position
        .unwrap()
        .id;
    let ambiguous = "k7/8/8/8/8/8/8/KN3N2 w - - 0 1";
    let mated = "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1";
    let mut refusals: Vec<(Status, Expected)> = vec![
        (
            rules.legal_moves(legal(None, 0)).await.unwrap_err(),
            field("no position", "MISSING_FIELD", "position", "MISSING_FIELD"),
        ),
        (
            rules
                .legal_moves(legal(position(pb::Variant::Unspecified, "", &[]), 0))
                .await
                .unwrap_err(),
            field(
                "no variant",
                "MISSING_VARIANT",
                "position.variant",
                "MISSING_VARIANT",
            ),
        ),
        (
            rules
                .legal_moves(pb::LegalMovesRequest {
                    position: Some(pb::Position {
                        variant: 99,
                        ..Default::default()
                    }),
                    detail: 0,
                })
                .await
                .unwrap_err(),
            field(
                "an unknown variant",
                "UNKNOWN_ENUM_VALUE",
                "position.variant",
                "UNKNOWN_ENUM_VALUE",
            ),
        ),
        (
            rules
                .legal_moves(legal(position(chess, "8/8/8/8/8/8/8/8 w - - 0 1", &[]), 0))
                .await
                .unwrap_err(),
            field("no kings", "INVALID_FEN", "position.fen", "MISSING_KING"),
        ),
        (
            rules
                .legal_moves(legal(position(chess, "", &["e2e4", "zz"]), 0))
                .await
                .unwrap_err(),
            field(
                "a history move that is no move",
                "INVALID_MOVES",
                "position.moves[1]",
                "UNPARSABLE_MOVE",
            ),
        ),
        (
            rules
                .legal_moves(legal(position(chess, "", &["e2e4", "e2e4"]), 0))
                .await
                .unwrap_err(),
            field(
                "an illegal history move",
                "INVALID_MOVES",
                "position.moves[1]",
                "NO_PIECE",
            ),
        ),
        (
            rules
                .legal_moves(legal(position(chess, "", &["a3"; 2_001]), 0))
                .await
                .unwrap_err(),
            field("a long history", "TOO_LONG", "position.moves", "TOO_LONG"),
        ),
        (
            rules
                .legal_moves(legal(position(chess, "", &[]), 99))
                .await
                .unwrap_err(),
            field(
                "an unknown detail",
                "UNKNOWN_ENUM_VALUE",
                "detail",
                "UNKNOWN_ENUM_VALUE",
            ),
        ),
        (
            rules
                .validate_move(validate(position(chess, "", &[]), "zz"))
                .await
                .unwrap_err(),
            field("no move", "UNPARSABLE_MOVE", "move", "UNPARSABLE_MOVE"),
        ),
        (
            rules
                .validate_move(validate(position(chess, ambiguous, &[]), "Nd2"))
                .await
                .unwrap_err(),
            field("two knights", "AMBIGUOUS_MOVE", "move", "AMBIGUOUS_MOVE"),
        ),
        (
            games
                .get_game(pb::GetGameRequest {
                    game_id: "nope".into(),
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            expect("an unknown game", Code::NotFound, "GAME_NOT_FOUND"),
        ),
        (
            games
                .create_game(new_game(0, common::seat("Alice")))
                .await
                .unwrap_err(),
            field(
                "a game of no variant",
                "MISSING_VARIANT",
                "variant",
                "MISSING_VARIANT",
            ),
        ),
        (
            games
                .create_game(new_game(chess as i32, common::seat(&"A".repeat(101))))
                .await
                .unwrap_err(),
            field(
                "a long display name",
                "TOO_LONG",
                "white.display_name",
                "TOO_LONG",
            ),
        ),
        (
            games
                .create_game(new_game(chess as i32, common::seat("Al\nice")))
                .await
                .unwrap_err(),
            field(
                "a display name of two lines",
                "CONTROL_CHARACTER",
                "white.display_name",
                "CONTROL_CHARACTER",
            ),
        ),
        (
            games
                .create_game(new_game(chess as i32, common::engine_seat(11, 0)))
                .await
                .unwrap_err(),
            field(
                "an engine level past 10",
                "VALUE_OUT_OF_RANGE",
                "white.engine.level",
                "VALUE_OUT_OF_RANGE",
            ),
        ),
        (
            games
                .create_game(pb::CreateGameRequest {
                    time_control: Some(pb::TimeControl::default()),
                    ..new_game(chess as i32, common::seat("Alice"))
                })
                .await
                .unwrap_err(),
            field(
                "an empty time control",
                "INVALID_TIME_CONTROL",
                "time_control",
                "INVALID_TIME_CONTROL",
            ),
        ),
        (
            games
                .create_game(pb::CreateGameRequest {
                    start: Some(Start::Fen(mated.into())),
                    ..new_game(chess as i32, common::seat("Alice"))
                })
                .await
                .unwrap_err(),
            expect(
                "a game from a mate",
                Code::FailedPrecondition,
                "START_POSITION_DECIDED",
            ),
        ),
        (
            games
                .create_game(pb::CreateGameRequest {
                    start: Some(Start::Fen("8/8/8/8/8/8/8/8 w - - 0 1".into())),
                    ..new_game(chess as i32, common::seat("Alice"))
                })
                .await
                .unwrap_err(),
            field("a game from no kings", "INVALID_FEN", "fen", "MISSING_KING"),
        ),
        (
            positions
                .create_position(pb::CreatePositionRequest {
                    variant: chess as i32,
                    source: Some(pb::create_position_request::Source::Fen(
                        "8/8/8/8/8/8/8/8 w - - 0 1".into(),
                    )),
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field(
                "a saved position of no kings",
                "INVALID_FEN",
                "fen",
                "MISSING_KING",
            ),
        ),
        (
            games
                .create_game(new_game(chess as i32, common::seat("Al\u{202E}ice")))
                .await
                .unwrap_err(),
            field(
                "a display name that renders reversed",
                "INVISIBLE_CHARACTER",
                "white.display_name",
                "INVISIBLE_CHARACTER",
            ),
        ),
        (
            games
                .list_games(pb::ListGamesRequest {
                    page_token: "x".into(),
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field(
                "a made-up page token",
                "INVALID_PAGE_TOKEN",
                "page_token",
                "INVALID_PAGE_TOKEN",
            ),
        ),
        (
            games
                .list_games(pb::ListGamesRequest {
                    page_size: -1,
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field(
                "a negative page size",
                "VALUE_OUT_OF_RANGE",
                "page_size",
                "VALUE_OUT_OF_RANGE",
            ),
        ),
        (
            games
                .export_game(pb::ExportGameRequest {
                    game_id: id.clone(),
                    notation: pb::PgnNotation::Chinese as i32,
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field(
                "Chinese notation for chess",
                "VARIANT_MISMATCH",
                "notation",
                "VARIANT_MISMATCH",
            ),
        ),
        (
            games
                .import_game(pb::ImportGameRequest {
                    pgn: "1. e4 e5 2. Ke3 *".into(),
                    variant: 0,
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field(
                "an illegal PGN move",
                "INVALID_PGN",
                "pgn",
                "NO_PIECE_CAN_REACH",
            ),
        ),
        (
            games
                .import_game(pb::ImportGameRequest {
                    pgn: "[Variant \"xiangqi\"]\n\n*".into(),
                    variant: chess as i32,
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field(
                "a xiangqi PGN said to be chess",
                "VARIANT_MISMATCH",
                "pgn",
                "VARIANT_MISMATCH",
            ),
        ),
        (
            games
                .make_move(make_move("", "e4", None))
                .await
                .unwrap_err(),
            expect("no seat token", Code::Unauthenticated, "SEAT_TOKEN_MISSING"),
        ),
        (
            games
                .make_move(make_move("not-a-token", "e4", None))
                .await
                .unwrap_err(),
            expect(
                "a stranger's token",
                Code::Unauthenticated,
                "SEAT_TOKEN_UNKNOWN",
            ),
        ),
        (
            games
                .make_move(make_move(&black, "e5", None))
                .await
                .unwrap_err(),
            expect("out of turn", Code::PermissionDenied, "NOT_YOUR_TURN"),
        ),
        (
            games
                .make_move(make_move(&white, "zz", None))
                .await
                .unwrap_err(),
            field("no move", "UNPARSABLE_MOVE", "move", "UNPARSABLE_MOVE"),
        ),
        (
            games
                .make_move(make_move(&white, "e1e2", None))
                .await
                .unwrap_err(),
            expect(
                "onto its own pawn",
                Code::FailedPrecondition,
                "OWN_PIECE_ON_DESTINATION",
            ),
        ),
        (
            games
                .make_move(make_move(&white, "e4", Some(3)))
                .await
                .unwrap_err(),
            expect("a stale ply", Code::Aborted, "PLY_CONFLICT"),
        ),
        (
            games
                .claim_draw(pb::ClaimDrawRequest {
                    game_id: id.clone(),
                    seat_token: white.clone(),
                    r#move: String::new(),
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            expect("no draw", Code::FailedPrecondition, "NO_DRAW_TO_CLAIM"),
        ),
        (
            games
                .respond_to_draw(pb::RespondToDrawRequest {
                    accept: true,
                    ..pb::RespondToDrawRequest::by_seat(id.clone(), white.clone())
                })
                .await
                .unwrap_err(),
            expect("no offer", Code::FailedPrecondition, "NOTHING_TO_ANSWER"),
        ),
        (
            games
                .propose_takeback(pb::ProposeTakebackRequest::by_seat(
                    id.clone(),
                    white.clone(),
                ))
                .await
                .unwrap_err(),
            expect(
                "nothing to take back",
                Code::FailedPrecondition,
                "NO_MOVE_TO_TAKE_BACK",
            ),
        ),
        (
            positions
                .get_position(pb::GetPositionRequest { id: "nope".into() })
                .await
                .unwrap_err(),
            expect("an unknown position", Code::NotFound, "POSITION_NOT_FOUND"),
        ),
        (
            positions
                .delete_position(pb::DeletePositionRequest {
                    id: saved,
                    owner_token: String::new(),
                })
                .await
                .unwrap_err(),
            expect(
                "no owner token",
                Code::Unauthenticated,
                "OWNER_TOKEN_MISSING",
            ),
        ),
        (
            positions
                .create_position(pb::CreatePositionRequest {
                    variant: chess as i32,
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field("no source", "MISSING_FIELD", "source", "MISSING_FIELD"),
        ),
        (
            positions
                .create_position(pb::CreatePositionRequest {
                    variant: chess as i32,
                    source: Some(pb::create_position_request::Source::Fen(String::new())),
                    tags: vec![String::new()],
                    ..Default::default()
                })
                .await
                .unwrap_err(),
            field("an empty tag", "INVALID_TAG", "tags", "INVALID_TAG"),
        ),
        (
            engine
                .best_move(pb::BestMoveRequest {
                    position: position(chess, "", &[]),
                    limits: Some(pb::SearchLimits {
                        depth: 1_000,
                        ..Default::default()
                    }),
                })
                .await
                .unwrap_err(),
            field(
                "a deep search",
                "VALUE_OUT_OF_RANGE",
                "limits.depth",
                "VALUE_OUT_OF_RANGE",
            ),
        ),
        (
            engine
                .best_move(pb::BestMoveRequest {
                    position: position(chess, mated, &[]),
                    limits: None,
                })
                .await
                .unwrap_err(),
            expect("a search after mate", Code::FailedPrecondition, "GAME_OVER"),
        ),
        (
            tonic_health::pb::health_client::HealthClient::new(channel.clone())
                .check(tonic_health::pb::HealthCheckRequest {
                    service: "nope".into(),
                })
                .await
                .unwrap_err(),
            expect(
                "an unknown service's health",
                Code::NotFound,
                "UNKNOWN_SERVICE",
            ),
        ),
    ];
    games
        .resign(pb::ResignRequest::by_seat(id.clone(), white.clone()))
        .await
        .expect("resigned");
    refusals.push((
        games
            .make_move(make_move(&white, "e4", None))
            .await
            .unwrap_err(),
        expect(
            "a move after resigning",
            Code::FailedPrecondition,
            "GAME_OVER",
        ),
    ));
    for (status, expected) in &refusals {
        assert_refusal(status, expected);
    }
    server.stop().await;
}
