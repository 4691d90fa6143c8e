//! Indexes the games that ended before positions (and openings) were
//! stored: a background task that reads a window of games at a time,
//! indexes them as a game's end does (the positions it reached, and a chess
//! game's opening), and keeps how far it went, so a restart goes on where
//! it stopped and the work is done once. Each window is a short read and a
//! short write, with a pause between windows, so the games being played
//! keep the store.

use std::time::Duration;

use super::{
    Games,
    model::{INDEXED_PLIES, position_keys, stored_opening_of},
};
use crate::store::EarlierIndex;

/// Games (by seq) looked at per window.
const WINDOW: i64 = 2_000;
/// The pause between windows.
const PAUSE: Duration = Duration::from_millis(50);
/// The wait before trying again after the store failed.
const RETRY: Duration = Duration::from_secs(5);

/// Indexes the earlier games, window after window, until none is left or
/// the store closes.
pub(super) async fn index_earlier_games(games: Games) {
    let mut indexed_games = 0usize;
    loop {
        if games.store.is_closed() {
            return;
        }
        let window = match games
            .store
            .earlier_games(WINDOW, INDEXED_PLIES as i64)
            .await
        {
            Ok(Some(window)) => window,
            Ok(None) => break,
            Err(error) => {
                tracing::debug!(%error, "cannot read the earlier games to index");
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        let indexed: Vec<EarlierIndex> = window
            .games
            .iter()
            .map(|game| {
                let fens = || game.fens.iter().map(String::as_str);
                EarlierIndex {
                    seq: game.seq,
                    opening: stored_opening_of(game.variant, &game.start_fen, fens()),
                    positions: position_keys(&game.start_fen, fens()),
                }
            })
            .collect();
        if let Err(error) = games
            .store
            .index_earlier_games(&indexed, window.through)
            .await
        {
            tracing::debug!(%error, "cannot store the index of earlier games");
            tokio::time::sleep(RETRY).await;
            continue;
        }
        indexed_games += indexed.len();
        tokio::time::sleep(PAUSE).await;
    }
    if indexed_games > 0 {
        tracing::info!(
            games = indexed_games,
            "earlier games indexed by position and opening"
        );
    }
}
