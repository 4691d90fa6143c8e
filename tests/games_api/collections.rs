//! ImportGames: a PGN collection sent in pieces of any size, answered game
//! by game, each game imported once however often the file comes, and
//! bounded per call.

use std::time::Duration;

use crate::common::{self, TestServer};

use arbiter::{api::proto as pb, server::ServerConfig};
use tonic::{Code, transport::Channel};

type Games = pb::games_client::GamesClient<Channel>;

/// Five games: a decisive chess game, an unfinished one, one with a move
/// that cannot be played, a xiangqi game, and a game that is not UTF-8.
fn collection() -> Vec<u8> {
    let mut pgn = String::new();
    pgn.push_str(
        "[Event \"Club\"]\n[Round \"1\"]\n[White \"Élodie\"]\n[Black \"Bo\"]\n[Result \"1-0\"]\n\n\
         1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n",
    );
    pgn.push_str(
        "[Event \"Club\"]\n[Round \"2\"]\n[White \"Bo\"]\n[Black \"Élodie\"]\n[Result \"*\"]\n\n\
         1. d4 {a comment\n[that is no tag]} d5 *\n\n",
    );
    pgn.push_str("[Event \"Club\"]\n[Round \"3\"]\n\n1. e4 e5 2. Ke3 *\n\n");
    pgn.push_str(
        "[Event \"Xiangqi\"]\n[Variant \"xiangqi\"]\n[Result \"*\"]\n\n1. h2e2 h9g7 *\n\n",
    );
    let mut bytes = pgn.into_bytes();
    bytes.extend_from_slice(b"[Event \"Broken\"]\n\n1. e4 \xff *\n");
    bytes
}

/// Imports `pgn` in pieces of `piece` bytes; every answer, or the status
/// the stream ended with.
async fn import(
    games: &mut Games,
    pgn: &[u8],
    piece: usize,
) -> (Vec<pb::ImportGamesResponse>, Option<tonic::Status>) {
    let pieces: Vec<pb::ImportGamesRequest> = pgn
        .chunks(piece)
        .map(|chunk| pb::ImportGamesRequest {
            pgn: chunk.to_vec(),
            ..Default::default()
        })
        .collect();
    let mut stream = match games.import_games(tokio_stream::iter(pieces)).await {
        Ok(answer) => answer.into_inner(),
        Err(status) => return (Vec::new(), Some(status)),
    };
    let mut answers = Vec::new();
    loop {
        match stream.message().await {
            Ok(Some(answer)) => answers.push(answer),
            Ok(None) => return (answers, None),
            Err(status) => return (answers, Some(status)),
        }
    }
}

fn results(answers: &[pb::ImportGamesResponse]) -> Vec<pb::ImportResult> {
    answers.iter().map(|a| a.result()).collect()
}

#[tokio::test]
async fn a_collection_in_pieces_is_answered_game_by_game_and_imported_once() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let pgn = collection();
    let (first, ended) = import(&mut games, &pgn, 7).await;
    assert!(ended.is_none(), "{ended:?}");
    use pb::ImportResult::{Duplicate, Imported, Refused};
    assert_eq!(
        results(&first),
        [Imported, Imported, Refused, Imported, Refused]
    );
    assert_eq!(
        first.iter().map(|a| a.index).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    // The refused games say why, and which they are.
    assert_eq!(first[2].reason, "INVALID_PGN");
    assert!(first[2].message.contains("move 3"), "{}", first[2].message);
    assert_eq!(first[2].tags["Round"], "3");
    assert_eq!(first[4].reason, "INVALID_PGN");
    assert_eq!(first[4].tags["Event"], "Broken");
    assert_eq!(
        first[4].progress,
        Some(pb::ImportProgress {
            bytes_read: pgn.len() as u64,
            games_read: 5,
            imported: 3,
            duplicates: 0,
            refused: 2,
        })
    );
    // The games are there as the PGN said; the unfinished one can be
    // played on.
    let mate = common::get_game(&mut games, &first[0].game_id).await;
    assert_eq!(
        (mate.ply, mate.white.unwrap().display_name.as_str()),
        (7, "Élodie")
    );
    assert_eq!(mate.outcome.unwrap().winner, pb::Side::White as i32);
    assert!(
        first[0].white_token.is_empty(),
        "a finished game has no seats"
    );
    let unfinished = &first[1];
    assert_eq!(unfinished.tags["White"], "Bo");
    let played = common::play(
        &mut games,
        &unfinished.game_id,
        &unfinished.white_token,
        "c4",
    )
    .await;
    assert_eq!(played.ply, 3);
    let xiangqi = common::get_game(&mut games, &first[3].game_id).await;
    assert_eq!(xiangqi.variant, pb::Variant::Xiangqi as i32);

    // The same file again, in other pieces: nothing is added.
    let (again, ended) = import(&mut games, &pgn, 1000).await;
    assert!(ended.is_none(), "{ended:?}");
    assert_eq!(
        results(&again),
        [Duplicate, Duplicate, Refused, Duplicate, Refused]
    );
    for n in [0, 1, 3] {
        assert_eq!(again[n].game_id, first[n].game_id);
    }
    assert!(again[1].white_token.is_empty(), "no seat token twice");
    // The same game in another notation is the same game.
    let uci = "[Event \"Club\"]\n[Round \"1\"]\n[White \"Élodie\"]\n[Black \"Bo\"]\n\
               [Result \"1-0\"]\n\n1. e2e4 e7e5 2. d1h5 b8c6 3. f1c4 g8f6 4. h5f7 1-0\n";
    let (uci, _) = import(&mut games, uci.as_bytes(), 64).await;
    assert_eq!(results(&uci), [Duplicate]);
    assert_eq!(uci[0].game_id, first[0].game_id);
    assert_eq!(listed(&mut games, Default::default()).await.len(), 3);
    server.stop().await;
}

#[tokio::test]
async fn an_import_stops_at_its_games_limit_and_refuses_a_bad_variant() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        import_max_games: 2,
        ..config
    })
    .await;
    let mut games = server.games().await;
    let three = "[Round \"1\"]\n\n1. e4 *\n[Round \"2\"]\n\n1. d4 *\n[Round \"3\"]\n\n1. c4 *\n";
    let (answers, ended) = import(&mut games, three.as_bytes(), 10).await;
    assert_eq!(answers.len(), 2, "the first two are imported");
    let ended = ended.expect("the call ends over its limit");
    assert_eq!(
        common::code_and_reason(&ended),
        (Code::ResourceExhausted, "TOO_MANY_GAMES".into())
    );
    use tonic_types::StatusExt;
    assert_eq!(
        ended.get_details_error_info().unwrap().metadata["limit"],
        "2"
    );

    let bad = pb::ImportGamesRequest {
        pgn: b"1. e4 *".to_vec(),
        variant: 99,
        ..Default::default()
    };
    let mut stream = games
        .import_games(tokio_stream::iter([bad]))
        .await
        .unwrap()
        .into_inner();
    let refused = stream.message().await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    server.stop().await;
}

/// The games' ids ListGames gives for `filter`, newest first.
async fn listed(games: &mut Games, filter: pb::ListGamesRequest) -> Vec<String> {
    games
        .list_games(filter)
        .await
        .unwrap()
        .into_inner()
        .games
        .into_iter()
        .map(|game| game.id)
        .collect()
}

#[tokio::test]
async fn games_are_found_by_opening_result_and_rating() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let pgn = "[Result \"0-1\"]\n\n1. e4 c5 2. Nf3 0-1\n\
               [Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 1/2-1/2\n\
               [Result \"1-0\"]\n\n1. d4 d5 2. c4 e6 1-0\n\
               [Result \"*\"]\n\n1. e4 c5 *\n";
    let (imported, _) = import(&mut games, pgn.as_bytes(), 100).await;
    let ids: Vec<String> = imported.iter().map(|a| a.game_id.clone()).collect();
    assert_eq!(ids.len(), 4);
    let by_opening = |opening: &str| pb::ListGamesRequest {
        opening: opening.into(),
        ..Default::default()
    };
    // Named when imported (ongoing games too), by an ECO volume, group or
    // code, or a name's family, variation or whole name, in any case.
    assert_eq!(
        listed(&mut games, by_opening("B2")).await,
        [ids[3].clone(), ids[0].clone()]
    );
    assert_eq!(
        listed(&mut games, by_opening("queen's GAMBIT")).await,
        [ids[1].clone()]
    );
    assert_eq!(
        listed(&mut games, by_opening("sicilian defense")).await,
        [ids[3].clone(), ids[0].clone()]
    );
    assert_eq!(
        listed(&mut games, by_opening("Queen's Gambit Declined")).await,
        [ids[2].clone()]
    );
    assert!(listed(&mut games, by_opening("E9")).await.is_empty());
    let by_result = |result: pb::ResultFilter| pb::ListGamesRequest {
        result: result as i32,
        ..Default::default()
    };
    assert_eq!(
        listed(&mut games, by_result(pb::ResultFilter::BlackWon)).await,
        [ids[0].clone()]
    );
    assert_eq!(
        listed(&mut games, by_result(pb::ResultFilter::Drawn)).await,
        [ids[1].clone()]
    );
    assert_eq!(
        listed(&mut games, by_result(pb::ResultFilter::WhiteWon)).await,
        [ids[2].clone()]
    );
    let rated = |rated: bool| pb::ListGamesRequest {
        rated: Some(rated),
        ..Default::default()
    };
    assert!(listed(&mut games, rated(true)).await.is_empty());
    assert_eq!(listed(&mut games, rated(false)).await.len(), 4);
    // A game played here is named when it ends.
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    for (token, played) in [
        (&created.white_token, "e4"),
        (&created.black_token, "c5"),
        (&created.white_token, "Nf3"),
    ] {
        common::play(&mut games, &id, token, played).await;
    }
    assert_eq!(
        listed(&mut games, by_opening("B27")).await,
        [ids[0].clone()]
    );
    common::resign(&mut games, &id, &created.black_token).await;
    assert_eq!(
        listed(&mut games, by_opening("B27")).await,
        [id.clone(), ids[0].clone()]
    );
    let refused = games
        .list_games(pb::ListGamesRequest {
            result: 9,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&refused),
        (Code::InvalidArgument, "UNKNOWN_ENUM_VALUE".into())
    );
    server.stop().await;
}

/// Games that ended before openings were stored are named once the server
/// starts: finished chess games only, each once.
#[tokio::test]
async fn games_that_ended_before_openings_were_stored_are_named_at_start() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let pgn = "[Result \"0-1\"]\n\n1. e4 c5 2. Nf3 0-1\n[Result \"*\"]\n\n1. e4 c5 *\n";
    let (imported, _) = import(&mut games, pgn.as_bytes(), 100).await;
    let finished = imported[0].game_id.clone();
    let sicilian = || pb::ListGamesRequest {
        opening: "B2".into(),
        ..Default::default()
    };
    assert_eq!(listed(&mut games, sicilian()).await.len(), 2);
    // As a store from before openings: none named, every game to look at.
    let db = server.stop().await;
    let pool = db.pool().await;
    sqlx::raw_sql(
        "DELETE FROM game_openings; DELETE FROM game_positions; \
         UPDATE history_backfill SET next_seq = 0, last_seq = (SELECT max(seq) FROM games)",
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    let server = TestServer::start_on(&db).await;
    let mut games = server.games().await;
    crate::wait_until!(
        Duration::from_secs(10),
        listed(&mut games, sicilian()).await == [finished.clone()],
        "the finished game is not named"
    );
    let after_c5 = pb::ListGamesRequest {
        position: "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2".into(),
        ..Default::default()
    };
    assert_eq!(listed(&mut games, after_c5).await, [finished]);
    server.stop().await;
}

/// Games are found by a position they reached, whatever the order of the
/// moves that led there and the FEN's move counters.
#[tokio::test]
async fn games_are_found_by_a_position_they_reached() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    // Two move orders to one Queen's Gambit Declined position; another
    // opening; a xiangqi game.
    let pgn = "[Result \"1-0\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 1-0\n\
               [Result \"0-1\"]\n\n1. c4 e6 2. Nc3 d5 3. d4 0-1\n\
               [Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2\n\
               [Variant \"xiangqi\"]\n[Result \"*\"]\n\n1. h2e2 h9g7 *\n";
    let (imported, _) = import(&mut games, pgn.as_bytes(), 1_000).await;
    let ids: Vec<String> = imported.iter().map(|a| a.game_id.clone()).collect();
    assert_eq!(ids.len(), 4, "{imported:?}");
    let reached = |fen: &str| pb::ListGamesRequest {
        position: fen.into(),
        ..Default::default()
    };
    let qgd = "rnbqkbnr/ppp2ppp/4p3/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq - 1 3";
    assert_eq!(
        listed(&mut games, reached(qgd)).await,
        [ids[1].clone(), ids[0].clone()]
    );
    // The move counters do not count.
    let counters = qgd.replace(" 1 3", " 0 9");
    assert_eq!(listed(&mut games, reached(&counters)).await.len(), 2);
    // The start: every chess game; with a result, those of it.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(listed(&mut games, reached(start)).await.len(), 3);
    let drawn = pb::ListGamesRequest {
        result: pb::ResultFilter::Drawn as i32,
        ..reached(start)
    };
    assert_eq!(listed(&mut games, drawn).await, [ids[2].clone()]);
    let xiangqi = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR r";
    assert_eq!(listed(&mut games, reached(xiangqi)).await, [ids[3].clone()]);
    let refused = games
        .list_games(reached("not a position"))
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&refused),
        (Code::InvalidArgument, "INVALID_FEN".into())
    );
    server.stop().await;
}

/// An imported game's export keeps its Event, Site, Date and Round (the
/// unknown ones as `?`), and the export imported again is the same games.
#[tokio::test]
async fn an_imported_collection_exports_as_itself_and_reimports_as_duplicates() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let mut pgn = collection();
    pgn.extend_from_slice(
        b"\n[Event \"Open\"]\n[Site \"Z\xc3\xbcrich SUI\"]\n[Date \"2020.01.02\"]\n\
          [Round \"3\"]\n[White \"Ann\"]\n[Black \"Ben\"]\n[Result \"*\"]\n\n1. e4 e5 2. Qh5 Nc6 \
          3. Bc4 Nf6 4. Qxf7# *\n",
    );
    let (first, _) = import(&mut games, &pgn, 4096).await;
    let imported: Vec<&str> = first
        .iter()
        .filter(|a| a.result() == pb::ImportResult::Imported)
        .map(|a| a.game_id.as_str())
        .collect();
    assert_eq!(imported.len(), 4, "{first:?}");
    let mut stream = games
        .export_games(pb::ExportGamesRequest {
            filter: Some(pb::ListGamesRequest::default()),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut exported = String::new();
    while let Some(game) = stream.message().await.unwrap() {
        exported.push_str(&game.pgn);
        exported.push('\n');
    }
    assert!(exported.contains(
        "[Event \"Open\"]\n[Site \"Zürich SUI\"]\n[Date \"2020.01.02\"]\n[Round \"3\"]\n\
         [White \"Ann\"]\n[Black \"Ben\"]\n[Result \"1-0\"]"
    ));
    // The club's games have no Site and no Date.
    assert!(
        exported.contains("[Event \"Club\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"1\"]")
    );
    let (again, status) = import(&mut games, exported.as_bytes(), 1000).await;
    assert!(status.is_none(), "{status:?}");
    assert_eq!(again.len(), 4);
    for answer in &again {
        assert_eq!(answer.result(), pb::ImportResult::Duplicate, "{answer:?}");
        assert!(imported.contains(&answer.game_id.as_str()));
    }
    server.stop().await;
}
