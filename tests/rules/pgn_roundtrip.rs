//! PGN import and export through gRPC on a few hundred real games: chess
//! games written by python-chess (Stockfish-vs-Arbiter match games and the
//! differential fixture's games) and the CCPD xiangqi records in WXF (as
//! pyffish writes it) and ICCS (`tools/gen_pgn_fixtures.py`). Every game is
//! imported, exported, and imported again with the same moves; exports in
//! every notation re-import identically. Malformed PGN is refused with the
//! first bad move named.

use crate::common;

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use common::{TestServer, export};
use tonic::{Code, transport::Channel};

/// The games of a PGN file (each starts with its tag section).
fn split_games(text: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut current = String::new();
    let mut in_movetext = false;
    for line in text.lines() {
        if line.starts_with('[') && in_movetext {
            games.push(std::mem::take(&mut current));
            in_movetext = false;
        }
        if !line.starts_with('[') && !line.trim().is_empty() {
            in_movetext = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        games.push(current);
    }
    games
}

async fn import(
    games: &mut GamesClient<Channel>,
    pgn: &str,
    variant: pb::Variant,
) -> Result<pb::Game, tonic::Status> {
    games
        .import_game(pb::ImportGameRequest {
            pgn: pgn.to_owned(),
            variant: variant as i32,
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner().game.unwrap())
}

fn moves(game: &pb::Game) -> Vec<String> {
    game.moves
        .iter()
        .map(|m| m.r#move.as_ref().unwrap().uci.clone())
        .collect()
}

/// Imports every game of `file`, round-trips it through export in each of
/// `notations`, and returns how many games there were.
async fn round_trip(file: &str, variant: pb::Variant, notations: &[pb::PgnNotation]) -> usize {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let text = std::fs::read_to_string(file).unwrap();
    let all = split_games(&text);
    for (i, pgn) in all.iter().enumerate() {
        let game = import(&mut games, pgn, pb::Variant::Unspecified)
            .await
            .unwrap_or_else(|e| panic!("{file} game {i}: {}\n{pgn}", e.message()));
        assert_eq!(game.variant, variant as i32);
        let result = pgn
            .lines()
            .find_map(|l| l.strip_prefix("[Result \""))
            .and_then(|l| l.strip_suffix("\"]"))
            .unwrap_or("*");
        let outcome = game.outcome.as_ref().unwrap();
        let status = match result {
            "1-0" | "0-1" => pb::OutcomeStatus::Decisive,
            "1/2-1/2" => pb::OutcomeStatus::Drawn,
            _ => pb::OutcomeStatus::Ongoing,
        };
        // A game the rules end without the PGN's say (python-chess writes
        // "*" for a fixture game that ends by the rules) is finished anyway.
        if status != pb::OutcomeStatus::Ongoing {
            assert_eq!(
                outcome.status, status as i32,
                "{file} game {i}: {outcome:?}"
            );
        }
        for &notation in notations {
            let exported = export(&mut games, &game.id, notation).await;
            let again = import(&mut games, &exported, pb::Variant::Unspecified)
                .await
                .unwrap_or_else(|e| {
                    panic!("{file} game {i} {notation:?}: {}\n{exported}", e.message())
                });
            assert_eq!(moves(&again), moves(&game), "{file} game {i} {notation:?}");
            assert_eq!(again.start_fen, game.start_fen);
            assert_eq!(again.outcome, game.outcome, "{file} game {i} {notation:?}");
        }
    }
    server.stop().await;
    all.len()
}

#[tokio::test]
async fn chess_games_round_trip() {
    let n = round_trip(
        "tests/fixtures/chess/games.pgn",
        pb::Variant::Chess,
        &[pb::PgnNotation::Standard, pb::PgnNotation::Coordinates],
    )
    .await;
    assert!(n >= 190, "{n} games");
}

#[tokio::test]
async fn xiangqi_games_round_trip() {
    let n = round_trip(
        "tests/fixtures/xiangqi/games.pgn",
        pb::Variant::Xiangqi,
        &[
            pb::PgnNotation::Standard,
            pb::PgnNotation::Coordinates,
            pb::PgnNotation::Chinese,
        ],
    )
    .await;
    assert!(n >= 370, "{n} games");
}

#[tokio::test]
async fn malformed_pgn_is_refused_with_the_first_bad_move() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let cases: [(&str, pb::Variant, &str, &str); 8] = [
        (
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. Qxf7 *",
            pb::Variant::Unspecified,
            "move 7 (\"Qxf7\", line 1)",
            "INVALID_PGN",
        ),
        (
            "1. e4 e5\n2. Ke3 *",
            pb::Variant::Unspecified,
            "move 3 (\"Ke3\", line 2)",
            "INVALID_PGN",
        ),
        (
            "1. e4 zz9 *",
            pb::Variant::Unspecified,
            "move 2 (\"zz9\"",
            "INVALID_PGN",
        ),
        (
            "[Variant \"shogi\"]\n\n1. e4 *",
            pb::Variant::Unspecified,
            "not supported",
            "INVALID_PGN",
        ),
        (
            "[Variant \"xiangqi\"]\n\n1. h2e2 *",
            pb::Variant::Chess,
            "request says",
            "VARIANT_MISMATCH",
        ),
        (
            "[FEN \"8/8/8 w - - 0 1\"]\n\n1. e4 *",
            pb::Variant::Unspecified,
            "[FEN]",
            "INVALID_FEN",
        ),
        (
            "1. f3 e5 2. g4 Qh4# 1-0",
            pb::Variant::Unspecified,
            "contradicts",
            "INVALID_PGN",
        ),
        (
            "1. e4 {unclosed",
            pb::Variant::Unspecified,
            "unterminated comment",
            "INVALID_PGN",
        ),
    ];
    for (pgn, variant, needle, reason) in cases {
        let status = import(&mut games, pgn, variant).await.unwrap_err();
        assert_eq!(
            common::code_and_reason(&status),
            (Code::InvalidArgument, reason.to_owned()),
            "{pgn}"
        );
        assert!(
            status.message().contains(needle),
            "{pgn}: {}",
            status.message()
        );
    }
    // An unfinished import can be played on with its seat tokens.
    let imported = games
        .import_game(pb::ImportGameRequest {
            pgn: "[White \"Ann\"]\n[Black \"?\"]\n\n1. e4 e5 *".into(),
            variant: 0,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let game = imported.game.unwrap();
    assert_eq!(
        (game.ply, game.white.as_ref().unwrap().display_name.as_str()),
        (2, "Ann")
    );
    assert_eq!(game.black.as_ref().unwrap().display_name, "Black");
    games
        .make_move(pb::MakeMoveRequest {
            game_id: game.id.clone(),
            seat_token: imported.white_token,
            r#move: "Nf3".into(),
            expected_ply: Some(2),
            ..Default::default()
        })
        .await
        .unwrap();
    server.stop().await;
}
