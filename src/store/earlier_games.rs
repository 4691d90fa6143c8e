//! Games indexed after the fact: the games that ended before positions
//! (and openings) were stored are read a window of games at a time, with
//! the positions of their first moves, and indexed; how far it has gone is
//! kept (`history_backfill`), so that it goes on after a restart and ends
//! once.

use std::collections::{BTreeMap, btree_map::Entry};

use sqlx::Row;

use super::{
    Store, StoreError, StoredOpening,
    rows::decoded,
    write::{index_positions, name_opening},
};
use crate::rules::Variant;

/// A finished game with no positions stored: the positions after each of
/// its first moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierGame {
    pub seq: i64,
    pub variant: Variant,
    pub start_fen: String,
    pub fens: Vec<String>,
}

/// A window of games to index, and where it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierWindow {
    pub games: Vec<EarlierGame>,
    /// The last seq the window covers: the progress once it is indexed.
    pub through: i64,
}

/// What an earlier game is indexed by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EarlierIndex {
    pub seq: i64,
    pub opening: Option<StoredOpening>,
    pub positions: Vec<i64>,
}

impl Store {
    /// The next window of at most `span` games past the progress kept:
    /// its finished games with no positions stored, each with the
    /// positions after its first `plies` moves; `None` once every game is
    /// indexed.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn earlier_games(
        &self,
        span: i64,
        plies: i64,
    ) -> Result<Option<EarlierWindow>, StoreError> {
        let Some(progress) = sqlx::query("SELECT next_seq, last_seq FROM history_backfill")
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let (after, last): (i64, i64) = (progress.get(0), progress.get(1));
        if after >= last {
            return Ok(None);
        }
        let through = after.saturating_add(span).min(last);
        let rows = sqlx::query(
            "SELECT games.seq, games.variant, games.start_fen, moves.fen_after \
             FROM games JOIN moves ON moves.game_seq = games.seq \
             WHERE games.seq > $1 AND games.seq <= $2 AND games.status != 'ongoing' \
             AND moves.ply < $3 \
             AND NOT EXISTS (SELECT 1 FROM game_positions WHERE game_seq = games.seq) \
             ORDER BY games.seq, moves.ply",
        )
        .bind(after)
        .bind(through)
        .bind(plies)
        .fetch_all(&self.pool)
        .await?;
        let mut games: BTreeMap<i64, EarlierGame> = BTreeMap::new();
        for row in &rows {
            let seq: i64 = row.get(0);
            let game = match games.entry(seq) {
                Entry::Occupied(game) => game.into_mut(),
                Entry::Vacant(place) => place.insert(EarlierGame {
                    seq,
                    variant: decoded(row, 1)?,
                    start_fen: row.get(2),
                    fens: Vec::new(),
                }),
            };
            game.fens.push(row.get(3));
        }
        Ok(Some(EarlierWindow {
            games: games.into_values().collect(),
            through,
        }))
    }

    /// Stores what `indexed` games are indexed by (an opening named
    /// meanwhile stays) and moves the progress to `through`, in one
    /// transaction.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn index_earlier_games(
        &self,
        indexed: &[EarlierIndex],
        through: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        for game in indexed {
            if let Some(opening) = &game.opening {
                name_opening(tx.conn(), game.seq, opening).await?;
            }
            index_positions(tx.conn(), game.seq, &game.positions).await?;
        }
        sqlx::query("UPDATE history_backfill SET next_seq = $1 WHERE id = 1 AND next_seq < $1")
            .bind(through)
            .execute(tx.conn())
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
