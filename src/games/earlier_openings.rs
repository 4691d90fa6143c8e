//! Names the openings of the chess games that ended before openings were
//! stored: a background task that reads a window of games at a time,
//! names them as a game's end does, and keeps how far it went, so a
//! restart goes on where it stopped and the work is done once. Each window
//! is a short read and a short write, with a pause between windows, so
//! the games being played keep the store.

use std::time::Duration;

use super::{Games, model::stored_opening_of};
use crate::rules::{Variant, chess::openings::MAX_PLIES};

/// Games (by seq) looked at per window.
const WINDOW: i64 = 2_000;
/// The pause between windows.
const PAUSE: Duration = Duration::from_millis(50);
/// The wait before trying again after the store failed.
const RETRY: Duration = Duration::from_secs(5);

/// Names the earlier games' openings, window after window, until none is
/// left or the store closes.
pub(super) async fn name_earlier_games(games: Games) {
    let mut named_games = 0usize;
    loop {
        if games.store.is_closed() {
            return;
        }
        let window = match games.store.unnamed_games(WINDOW, MAX_PLIES as i64).await {
            Ok(Some(window)) => window,
            Ok(None) => break,
            Err(error) => {
                tracing::debug!(%error, "cannot read the games to name the openings of");
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        let named: Vec<_> = window
            .games
            .iter()
            .filter_map(|game| {
                let fens = game.fens.iter().map(String::as_str);
                Some((
                    game.seq,
                    stored_opening_of(Variant::Chess, &game.start_fen, fens)?,
                ))
            })
            .collect();
        if let Err(error) = games.store.name_openings(&named, window.through).await {
            tracing::debug!(%error, "cannot store the openings of earlier games");
            tokio::time::sleep(RETRY).await;
            continue;
        }
        named_games += named.len();
        tokio::time::sleep(PAUSE).await;
    }
    if named_games > 0 {
        tracing::info!(games = named_games, "openings of earlier games named");
    }
}
