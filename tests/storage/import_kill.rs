//! `kill -9` of the server in the middle of an ImportGames call: every
//! game answered IMPORTED is there after the restart, no game is there in
//! part, and importing the same collection again adds exactly the games
//! that were missing.

use crate::common;

use std::{collections::HashMap, time::Duration};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use common::{binary::Serve, long_game::long_game};
use sqlx::Row;
use tokio_stream::wrappers::ReceiverStream;

/// Games in the collection.
const GAMES: usize = 3000;
/// The server is killed once this many games were answered IMPORTED.
const KILLED_AFTER: usize = 400;

/// Game `n` of the collection: its White's name tells it, and it plays the
/// first 20 to 99 plies of one long game, unfinished.
fn game(line: &[String], n: usize) -> (String, usize) {
    let plies = 20 + n % 80;
    let mut pgn = format!(
        "[Event \"Archive\"]\n[Round \"{n}\"]\n[White \"white{n}\"]\n[Black \"black\"]\n\
         [Result \"*\"]\n\n"
    );
    for (ply, san) in line[..plies].iter().enumerate() {
        if ply.is_multiple_of(2) {
            pgn.push_str(&format!("{}. ", ply / 2 + 1));
        }
        pgn.push_str(san);
        pgn.push(' ');
    }
    pgn.push_str("*\n\n");
    (pgn, plies)
}

/// Sends the collection in 4 KiB pieces, as fast as the server takes them;
/// the answers, each told to `on_answer` as it comes, until the stream
/// ends or breaks.
async fn import(
    games: &mut GamesClient<tonic::transport::Channel>,
    collection: String,
    mut on_answer: impl FnMut(&pb::ImportGamesResponse),
) -> Vec<pb::ImportGamesResponse> {
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tokio::spawn(async move {
        for piece in collection.into_bytes().chunks(4096) {
            let message = pb::ImportGamesRequest {
                pgn: piece.to_vec(),
                ..Default::default()
            };
            if tx.send(message).await.is_err() {
                return;
            }
        }
    });
    let mut answers = Vec::new();
    let Ok(stream) = games.import_games(ReceiverStream::new(rx)).await else {
        return answers;
    };
    let mut stream = stream.into_inner();
    while let Ok(Some(answer)) = stream.message().await {
        on_answer(&answer);
        answers.push(answer);
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_during_an_import_keeps_every_answered_game_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("import.db");
    let serve = || Serve::on(&db).args(["--import-kib-per-second=0", "--create-rate=0"]);
    let mut server = serve().start().await;
    let line = long_game(99);
    let (collection, plies): (String, Vec<usize>) = (0..GAMES).map(|n| game(&line, n)).unzip();

    // Killed while the call goes on: the answers read until the stream
    // breaks.
    let mut games = GamesClient::new(server.channel().await);
    let mut imported = 0;
    let answered = import(&mut games, collection.clone(), |answer| {
        imported += usize::from(answer.result() == pb::ImportResult::Imported);
        if imported == KILLED_AFTER {
            server.signal("KILL");
        }
    })
    .await;
    server.kill().await;
    let acknowledged: HashMap<usize, String> = answered
        .iter()
        .filter(|a| a.result() == pb::ImportResult::Imported)
        .map(|a| (a.index as usize, a.game_id.clone()))
        .collect();
    assert!(acknowledged.len() >= KILLED_AFTER, "{}", acknowledged.len());
    assert!(acknowledged.len() < GAMES, "killed before the end");

    // Every game stored is whole; every game answered is stored.
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    let rows = sqlx::query(
        "SELECT g.id, g.white_name, g.ply, \
         (SELECT COUNT(*) FROM moves m WHERE m.game_seq = g.seq) FROM games g",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    let mut stored = HashMap::new();
    for row in &rows {
        let (id, white, ply, moves): (String, String, i64, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let n: usize = white.trim_start_matches("white").parse().unwrap();
        assert_eq!(
            (ply as usize, moves as usize),
            (plies[n], plies[n]),
            "game {n} is whole"
        );
        assert!(stored.insert(n, id).is_none(), "game {n} stored once");
    }
    for (n, id) in &acknowledged {
        assert_eq!(stored.get(n), Some(id), "answered game {n} was lost");
    }

    // The same collection again: the games stored are duplicates, the rest
    // are imported, and the archive is whole.
    let server = serve().start().await;
    let mut games = GamesClient::new(server.channel().await);
    let again = tokio::time::timeout(
        Duration::from_secs(120),
        import(&mut games, collection, |_| ()),
    )
    .await
    .expect("the import ends");
    assert_eq!(again.len(), GAMES);
    for answer in &again {
        let n = answer.index as usize;
        match stored.get(&n) {
            Some(id) => {
                assert_eq!(answer.result(), pb::ImportResult::Duplicate, "game {n}");
                assert_eq!(&answer.game_id, id);
            }
            None => assert_eq!(answer.result(), pb::ImportResult::Imported, "game {n}"),
        }
    }
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM games")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(count as usize, GAMES);
    pool.close().await;
}
