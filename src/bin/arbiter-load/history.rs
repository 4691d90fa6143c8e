//! `--history N`: searches over a large history. Imports N games through
//! ImportGames (a generated collection: short chess games of eight
//! openings, results and player names from fixed pools), reporting the
//! import rate; then times one ListGames page (50 games) for each filter a
//! history page uses: the median and the slowest of 15 calls, and the games
//! found.
//!
//! The server must import that fast: `--import-kib-per-second 0`, and
//! `--create-rate 0` for the calls (each imports at most [`PER_CALL`]).
//! `--history 0` times the searches of a history imported before (the
//! search by creation time then asks for games created since now).

use std::time::{Duration, Instant, SystemTime};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use prost_types::Timestamp;
use tonic::transport::{Channel, Endpoint};

use crate::{Fatal, connect};

/// Games one ImportGames call imports (the server's default limit).
const PER_CALL: usize = 100_000;
/// ImportGames calls at once.
const CALLS_AT_ONCE: usize = 2;
/// Bytes of the collection a message carries.
const PIECE: usize = 60 * 1024;
/// Calls timed for each filter.
const SAMPLES: usize = 15;
/// The position after 1. e4 e5 2. Nf3 Nc6, which two of the lines reach.
const AFTER_NC6: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
/// Players' names: each plays about 2 games in 1,000.
const NAMES: usize = 1000;
/// The openings the games play (SAN): B50, D30, C60, C00, E61, A20, B12 and
/// C50 in the Lichess openings dataset.
const LINES: [&str; 8] = [
    "e4 c5 Nf3 d6 d4",
    "d4 d5 c4 e6",
    "e4 e5 Nf3 Nc6 Bb5",
    "e4 e6 d4 d5",
    "d4 Nf6 c4 g6 Nc3 Bg7",
    "c4 e5",
    "e4 c6 d4 d5",
    "e4 e5 Nf3 Nc6 Bc4",
];
const RESULTS: [&str; 3] = ["1-0", "0-1", "1/2-1/2"];

/// The `n`th game of the collection.
fn game(n: usize) -> String {
    let line = LINES[n % LINES.len()];
    let result = RESULTS[(n / LINES.len()) % RESULTS.len()];
    let white = n % NAMES;
    let black = (n * 7 + 3) % NAMES;
    let mut pgn = format!(
        "[Event \"History\"]\n[Round \"{n}\"]\n[White \"player{white:04}\"]\n\
         [Black \"player{black:04}\"]\n[Result \"{result}\"]\n\n"
    );
    for (ply, san) in line.split(' ').enumerate() {
        if ply % 2 == 0 {
            pgn.push_str(&format!("{}. ", ply / 2 + 1));
        }
        pgn.push_str(san);
        pgn.push(' ');
    }
    pgn.push_str(result);
    pgn.push_str("\n\n");
    pgn
}

/// Imports games `from..to` in one call: the games imported.
async fn import(channel: Channel, from: usize, to: usize) -> Result<usize, Fatal> {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tokio::spawn(async move {
        let mut piece = String::new();
        for n in from..to {
            piece.push_str(&game(n));
            if piece.len() >= PIECE {
                let pgn = std::mem::take(&mut piece).into_bytes();
                let message = pb::ImportGamesRequest {
                    pgn,
                    ..Default::default()
                };
                if tx.send(message).await.is_err() {
                    return;
                }
            }
        }
        let _ = tx
            .send(pb::ImportGamesRequest {
                pgn: piece.into_bytes(),
                ..Default::default()
            })
            .await;
    });
    let mut games = GamesClient::new(channel);
    let failed = |status: tonic::Status| Fatal(format!("ImportGames: {}", status.message()));
    let mut answers = games
        .import_games(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .map_err(failed)?
        .into_inner();
    let mut imported = 0;
    while let Some(answer) = answers.message().await.map_err(failed)? {
        if answer.result() != pb::ImportResult::Imported {
            return Err(Fatal(format!(
                "game {} not imported: {:?} {}",
                from + answer.index as usize,
                answer.result(),
                answer.message
            )));
        }
        imported += 1;
    }
    Ok(imported)
}

/// A ListGames filter of the table.
struct Search {
    name: &'static str,
    request: pb::ListGamesRequest,
}

fn searches(middle: SystemTime) -> Vec<Search> {
    let player = "player0042".to_owned();
    let since = Timestamp::from(middle);
    let search = |name, request| Search { name, request };
    vec![
        search("newest games", pb::ListGamesRequest::default()),
        search(
            "finished",
            pb::ListGamesRequest {
                status: pb::GameStatusFilter::Finished as i32,
                ..Default::default()
            },
        ),
        search(
            "player (a part of the name)",
            pb::ListGamesRequest {
                player: player.clone(),
                ..Default::default()
            },
        ),
        search(
            "player + variant + result",
            pb::ListGamesRequest {
                player: player.clone(),
                variant: pb::Variant::Chess as i32,
                result: pb::ResultFilter::WhiteWon as i32,
                ..Default::default()
            },
        ),
        search(
            "player + created since the middle of the fill",
            pb::ListGamesRequest {
                player: player.clone(),
                created_after: Some(since),
                ..Default::default()
            },
        ),
        search(
            "player, a part of 10 names (player004)",
            pb::ListGamesRequest {
                player: "player004".into(),
                ..Default::default()
            },
        ),
        search(
            "player, a part of 100 names (player00)",
            pb::ListGamesRequest {
                player: "player00".into(),
                ..Default::default()
            },
        ),
        search(
            "player matching no game",
            pb::ListGamesRequest {
                player: "nobody-here".into(),
                ..Default::default()
            },
        ),
        search(
            "opening by ECO (B50)",
            pb::ListGamesRequest {
                opening: "B50".into(),
                ..Default::default()
            },
        ),
        search(
            "opening + result",
            pb::ListGamesRequest {
                opening: "C6".into(),
                result: pb::ResultFilter::Drawn as i32,
                ..Default::default()
            },
        ),
        search(
            "opening by name (\"french defense\")",
            pb::ListGamesRequest {
                opening: "french defense".into(),
                ..Default::default()
            },
        ),
        search(
            "position after 1. e4 e5 2. Nf3 Nc6 (a quarter of the games)",
            pb::ListGamesRequest {
                position: AFTER_NC6.into(),
                ..Default::default()
            },
        ),
        search(
            "position + result",
            pb::ListGamesRequest {
                position: AFTER_NC6.into(),
                result: pb::ResultFilter::Drawn as i32,
                ..Default::default()
            },
        ),
        search(
            "result, oldest first",
            pb::ListGamesRequest {
                result: pb::ResultFilter::BlackWon as i32,
                oldest_first: true,
                ..Default::default()
            },
        ),
    ]
}

/// Imports `count` games, then times the searches.
pub(crate) async fn measure(endpoint: &Endpoint, count: usize) -> Result<(), Fatal> {
    let endpoint = endpoint.clone().timeout(Duration::from_secs(24 * 3600));
    let channels = connect(&endpoint, CALLS_AT_ONCE).await?;
    let began = Instant::now();
    let start = SystemTime::now();
    let calls: Vec<(usize, usize)> = (0..count)
        .step_by(PER_CALL)
        .map(|from| (from, (from + PER_CALL).min(count)))
        .collect();
    let mut imported = 0;
    let mut middle = start;
    for wave in calls.chunks(CALLS_AT_ONCE) {
        let running: Vec<_> = wave
            .iter()
            .zip(&channels)
            .map(|(&(from, to), channel)| tokio::spawn(import(channel.clone(), from, to)))
            .collect();
        for call in running {
            imported += call
                .await
                .map_err(|e| Fatal(format!("import task: {e}")))??;
        }
        if imported <= count / 2 {
            middle = SystemTime::now();
        }
    }
    let took = began.elapsed();
    if imported > 0 {
        println!(
            "imported {imported} games in {:.1} s: {:.0} games/s",
            took.as_secs_f64(),
            imported as f64 / took.as_secs_f64()
        );
        println!();
    }
    println!("| ListGames page of 50 | found | median ms | slowest ms |");
    println!("|---|---:|---:|---:|");
    let mut games = GamesClient::new(channels[0].clone());
    for search in searches(middle) {
        let mut times = Vec::with_capacity(SAMPLES);
        let mut found = 0;
        for _ in 0..SAMPLES {
            let asked = Instant::now();
            let page = games
                .list_games(search.request.clone())
                .await
                .map_err(|status| Fatal(format!("ListGames: {}", status.message())))?;
            times.push(asked.elapsed());
            found = page.into_inner().games.len();
        }
        times.sort();
        println!(
            "| {} | {found} | {:.2} | {:.2} |",
            search.name,
            times[SAMPLES / 2].as_secs_f64() * 1e3,
            times[SAMPLES - 1].as_secs_f64() * 1e3
        );
    }
    Ok(())
}
