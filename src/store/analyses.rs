//! Game analyses: each position of a game as the engine evaluated it, by
//! search setting, written whole once.

use sqlx::Row;

use super::{Store, StoreError, now_millis};

/// One position of a stored game analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPositionAnalysis {
    /// `cp`, `mate` or `ended`.
    pub score_kind: String,
    /// From White's (Red's) point of view; for `ended`, 1 (White won), -1
    /// (Black won) or 0 (a draw).
    pub score: i64,
    pub depth: i64,
    /// The best line, moves in coordinates separated by spaces.
    pub pv: String,
}

impl Store {
    /// Stores the analysis of every position of the game `game_seq`, the
    /// start first, under `setting`; an analysis already stored for them
    /// stays.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_game_analysis(
        &self,
        game_seq: i64,
        setting: &str,
        positions: &[StoredPositionAnalysis],
    ) -> Result<(), StoreError> {
        let created_at = now_millis();
        let mut tx = self.writer.begin().await?;
        for (index, position) in positions.iter().enumerate() {
            sqlx::query(
                "INSERT INTO game_analyses \
                 (game_seq, setting, position, score_kind, score, depth, pv, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
            )
            .bind(game_seq)
            .bind(setting)
            .bind(index as i64)
            .bind(&position.score_kind)
            .bind(position.score)
            .bind(position.depth)
            .bind(&position.pv)
            .bind(created_at)
            .execute(tx.conn())
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The analysis of the game `game_seq` stored under `setting`, the
    /// start first (empty when there is none).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn game_analysis(
        &self,
        game_seq: i64,
        setting: &str,
    ) -> Result<Vec<StoredPositionAnalysis>, StoreError> {
        let rows = sqlx::query(
            "SELECT score_kind, score, depth, pv FROM game_analyses \
             WHERE game_seq = $1 AND setting = $2 ORDER BY position",
        )
        .bind(game_seq)
        .bind(setting)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| StoredPositionAnalysis {
                score_kind: row.get(0),
                score: row.get(1),
                depth: row.get(2),
                pv: row.get(3),
            })
            .collect())
    }

    /// The settings the game `game_seq` has a stored analysis under, the
    /// latest stored first.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn game_analysis_settings(&self, game_seq: i64) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query(
            "SELECT setting FROM game_analyses WHERE game_seq = $1 AND position = 0 \
             ORDER BY created_at DESC, setting",
        )
        .bind(game_seq)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }
}
