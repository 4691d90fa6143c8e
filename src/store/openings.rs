//! Openings named after the fact: the chess games that ended before
//! openings were stored are read a window of games at a time, with the
//! positions of their first moves, and named; how far it has gone is kept
//! (`opening_backfill`), so that it goes on after a restart and ends once.

use std::collections::BTreeMap;

use sqlx::Row;

use super::{Store, StoreError, StoredOpening, write::name_opening};

/// A finished chess game with no opening stored: the positions after each
/// of its first moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnnamedGame {
    pub seq: i64,
    pub start_fen: String,
    pub fens: Vec<String>,
}

/// A window of games to name, and where it ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnnamedWindow {
    pub games: Vec<UnnamedGame>,
    /// The last seq the window covers: the progress once it is named.
    pub through: i64,
}

impl Store {
    /// The next window of at most `span` games past the progress kept:
    /// its finished chess games with no opening, each with the positions
    /// after its first `plies` moves; `None` once every game is named.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn unnamed_games(
        &self,
        span: i64,
        plies: i64,
    ) -> Result<Option<UnnamedWindow>, StoreError> {
        let Some(progress) = sqlx::query("SELECT next_seq, last_seq FROM opening_backfill")
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
            "SELECT games.seq, games.start_fen, moves.fen_after \
             FROM games JOIN moves ON moves.game_seq = games.seq \
             WHERE games.seq > $1 AND games.seq <= $2 AND games.variant = 'chess' \
             AND games.status != 'ongoing' AND moves.ply < $3 \
             AND NOT EXISTS (SELECT 1 FROM game_openings WHERE game_seq = games.seq) \
             ORDER BY games.seq, moves.ply",
        )
        .bind(after)
        .bind(through)
        .bind(plies)
        .fetch_all(&self.pool)
        .await?;
        let mut games: BTreeMap<i64, UnnamedGame> = BTreeMap::new();
        for row in &rows {
            let seq: i64 = row.get(0);
            games
                .entry(seq)
                .or_insert_with(|| UnnamedGame {
                    seq,
                    start_fen: row.get(1),
                    fens: Vec::new(),
                })
                .fens
                .push(row.get(2));
        }
        Ok(Some(UnnamedWindow {
            games: games.into_values().collect(),
            through,
        }))
    }

    /// Stores the openings `named` (a game named meanwhile keeps its own)
    /// and moves the progress to `through`, in one transaction.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn name_openings(
        &self,
        named: &[(i64, StoredOpening)],
        through: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        for (seq, opening) in named {
            name_opening(tx.conn(), *seq, opening).await?;
        }
        sqlx::query("UPDATE opening_backfill SET next_seq = $1 WHERE id = 1 AND next_seq < $1")
            .bind(through)
            .execute(tx.conn())
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
