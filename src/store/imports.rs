//! Games imported from collections, kept by the key of what was imported
//! so that the same game imported again is found instead of stored twice.

use sqlx::{AnyConnection, Row};

use super::{
    Backend, Store, StoreError, names,
    player_log::Log,
    rows::{StoredGame, StoredOpening, StoredRoster},
    write::{index_positions, insert_game_in, name_opening},
};

/// A game of a collection, ready to store, with the key of what was
/// imported.
#[derive(Debug)]
pub struct ImportedGame {
    /// What was imported (none: stored whatever was before).
    pub key: Option<String>,
    pub game: StoredGame,
    /// The opening it is named by.
    pub opening: Option<StoredOpening>,
    /// The keys of the positions it reached.
    pub positions: Vec<i64>,
    /// Its Event, Site, Date and Round.
    pub roster: StoredRoster,
}

/// What became of an [`ImportedGame`].
#[derive(Debug)]
pub enum Stored {
    /// Stored now.
    New(Box<StoredGame>),
    /// Imported before as the game of this id (earlier, or earlier in the
    /// same batch).
    Before(String),
}

impl Store {
    /// Brings the query planner's statistics of the game history up to date
    /// (PostgreSQL, where autovacuum would only later): after a bulk import
    /// they tell which index serves a search best. SQLite plans by its
    /// indexes alone.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn analyse_history(&self) -> Result<(), StoreError> {
        if self.backend == Backend::Postgres {
            sqlx::query(
                "ANALYZE games, game_player_names, player_names, game_openings, game_positions",
            )
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }

    /// Stores a batch of imported games in one transaction, each game whole
    /// and each key once; the answer is in the batch's order.
    ///
    /// # Errors
    ///
    /// Database failure (nothing of the batch is stored), or (about never)
    /// a game whose id is another's.
    pub async fn insert_imported(
        &self,
        batch: Vec<ImportedGame>,
    ) -> Result<Vec<Stored>, StoreError> {
        let mut tx = self.writer.begin().await?;
        names::remember(
            tx.conn(),
            batch
                .iter()
                .flat_map(|new| [new.game.white_name.as_str(), new.game.black_name.as_str()]),
        )
        .await?;
        let mut stored = Vec::with_capacity(batch.len());
        for ImportedGame {
            key,
            game,
            opening,
            positions,
            roster,
        } in batch
        {
            if let Some(key) = key
                && let Some(before) = claim_key(tx.conn(), &key, &game.id).await?
            {
                stored.push(Stored::Before(before));
                continue;
            }
            let game = insert_game_in(tx.conn(), self.backend, game).await??;
            if let Some(opening) = &opening {
                name_opening(tx.conn(), game.seq, opening).await?;
            }
            index_positions(tx.conn(), game.seq, &positions).await?;
            sqlx::query(
                "INSERT INTO game_roster (game_seq, event, site, date, round) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(game.seq)
            .bind(roster.event)
            .bind(roster.site)
            .bind(roster.date)
            .bind(roster.round)
            .execute(tx.conn())
            .await?;
            Log::started(&game).append(tx.conn(), self.backend).await?;
            stored.push(Stored::New(Box::new(game)));
        }
        tx.commit().await?;
        Ok(stored)
    }
}

impl Store {
    /// The Event, Site, Date and Round game `seq` was imported with, if it
    /// was imported with any.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn roster(&self, seq: i64) -> Result<Option<StoredRoster>, StoreError> {
        let row =
            sqlx::query("SELECT event, site, date, round FROM game_roster WHERE game_seq = $1")
                .bind(seq)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|row| StoredRoster {
            event: row.get(0),
            site: row.get(1),
            date: row.get(2),
            round: row.get(3),
        }))
    }
}

/// Claims `key` for the game `id`; the game that holds it already, if one
/// does. A concurrent import of the same game waits for this one's
/// transaction, then finds its game.
async fn claim_key(
    tx: &mut AnyConnection,
    key: &str,
    id: &str,
) -> Result<Option<String>, sqlx::Error> {
    let claimed = sqlx::query(
        "INSERT INTO imported_games (import_key, game_id) VALUES ($1, $2) \
         ON CONFLICT DO NOTHING",
    )
    .bind(key)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if claimed.rows_affected() > 0 {
        return Ok(None);
    }
    sqlx::query_scalar("SELECT game_id FROM imported_games WHERE import_key = $1")
        .bind(key)
        .fetch_one(tx)
        .await
        .map(Some)
}
