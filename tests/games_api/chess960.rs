//! Chess960 through the Games and Rules services: numbered and random
//! starts, castling written and read king takes rook, the PGN round trip.

use crate::common::{self, code_and_reason, seat};

use arbiter::api::proto::{self as pb, create_game_request::Start, games_client::GamesClient};
use common::TestServer;
use tonic::{Code, transport::Channel};

/// Start 100: `QBBNRNKR`, the king on g1 and a rook on h1.
const START_100: &str = "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w KQkq - 0 1";

fn create(start: Option<Start>) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        variant: pb::Variant::Chess960 as i32,
        start,
        white: seat("W"),
        black: seat("B"),
        ..Default::default()
    }
}

/// A Chess960 game between "W" and "B" from `start`.
async fn started(games: &mut GamesClient<Channel>, start: Option<Start>) -> pb::CreateGameResponse {
    common::create_game_from(games, pb::Variant::Chess960, start, "W", "B").await
}

#[tokio::test]
async fn a_numbered_start_castles_king_takes_rook_and_exports_as_chess960() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = started(&mut games, Some(Start::Chess960Start(100))).await;
    let game = created.game.clone().unwrap();
    assert_eq!(game.start_fen, START_100);
    assert_eq!(game.chess960_start, Some(100));
    assert_eq!(game.variant, pb::Variant::Chess960 as i32);
    // The king stays on g1 and the rook comes to f1: castling is the king
    // taking its rook, read in either notation and written as UCI engines
    // with UCI_Chess960 and Lichess write it.
    for (ply, text, white) in [
        (0, "f1g3", true),
        (1, "Ng6", false),
        (2, "O-O", true),
        (3, "g8h8", false),
    ] {
        let token = if white {
            &created.white_token
        } else {
            &created.black_token
        };
        games
            .make_move(pb::MakeMoveRequest {
                game_id: game.id.clone(),
                seat_token: token.clone(),
                r#move: text.into(),
                expected_ply: Some(ply),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    let played = common::get_game(&mut games, &game.id).await;
    assert_eq!(
        played.fen,
        "qbbnrrk1/pppppppp/6n1/8/8/6N1/PPPPPPPP/QBBNRRK1 w - - 4 3"
    );
    let uci: Vec<_> = played
        .moves
        .iter()
        .map(|m| m.r#move.clone().unwrap().uci)
        .collect();
    assert_eq!(uci, ["f1g3", "f8g6", "g1h1", "g8h8"]);
    let san: Vec<_> = played
        .moves
        .iter()
        .map(|m| m.r#move.clone().unwrap().san)
        .collect();
    assert_eq!(san, ["Ng3", "Ng6", "O-O", "O-O"]);
    assert_eq!(played.chess960_start, Some(100));

    let pgn = common::export(&mut games, &game.id, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}");
    assert!(pgn.contains(&format!("[FEN \"{START_100}\"]")), "{pgn}");
    assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
    assert!(pgn.contains("1. Ng3 Ng6 2. O-O O-O *"), "{pgn}");
    // The export imports as the same Chess960 game.
    let imported = common::import(&mut games, pgn).await;
    assert_eq!(imported.variant, pb::Variant::Chess960 as i32);
    assert_eq!(imported.fen, played.fen);
    assert_eq!(imported.chess960_start, Some(100));
}

#[tokio::test]
async fn starts_are_drawn_at_random_numbered_or_refused() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    // No start: one drawn at random, its number told.
    let mut numbers = std::collections::BTreeSet::new();
    for _ in 0..8 {
        let game = started(&mut games, None).await.game.unwrap();
        let number = game.chess960_start.expect("a numbered start");
        assert!(number < 960);
        numbers.insert(number);
    }
    assert!(numbers.len() > 1, "eight draws gave {numbers:?}");
    // A Chess960 position from a FEN, in Shredder-FEN: no start number.
    let fen = "1r2k2r/pppppppp/8/8/8/8/PPPPPPPP/1R2K2R w HBhb - 0 1";
    let game = started(&mut games, Some(Start::Fen(fen.into())))
        .await
        .game
        .unwrap();
    assert_eq!(
        game.start_fen,
        "1r2k2r/pppppppp/8/8/8/8/PPPPPPPP/1R2K2R w KQkq - 0 1"
    );
    assert_eq!(game.chess960_start, None);
    let status = games
        .create_game(create(Some(Start::Chess960Start(960))))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "VALUE_OUT_OF_RANGE".to_owned())
    );
    let mut chess = create(Some(Start::Chess960Start(3)));
    chess.variant = pb::Variant::Chess as i32;
    let status = games.create_game(chess).await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "VARIANT_MISMATCH".to_owned())
    );
    // The same castling rights are not chess's.
    let mut chess = create(Some(Start::Fen(fen.into())));
    chess.variant = pb::Variant::Chess as i32;
    let status = games.create_game(chess).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
}

#[tokio::test]
async fn rules_list_castling_king_takes_rook() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let position = pb::Position {
        variant: pb::Variant::Chess960 as i32,
        fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into(),
        moves: vec!["e1h1".into(), "O-O-O".into()],
        ..Default::default()
    };
    let legal = rules
        .legal_moves(pb::LegalMovesRequest {
            position: Some(position),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    // Castled: the king on g1 with its rook on f1, Black's king on c8 and
    // the h8 rook guarding h1.
    let uci: Vec<_> = legal.moves.iter().map(|m| m.uci.as_str()).collect();
    assert!(uci.contains(&"g1f2") && uci.contains(&"f1f8"), "{uci:?}");
    assert!(legal.moves.iter().all(|m| !m.is_castling), "{uci:?}");
}
