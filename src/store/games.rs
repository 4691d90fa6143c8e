//! Games as the store keeps them: created and changed through the
//! committer (see `commit`), read back with their moves.

use sqlx::{AnyConnection, Row};

use super::{
    Store, StoreError,
    player_log::Log,
    rows::{GAME_COLUMNS, GameHead, StoredGame, StoredMove, game_from_row},
    write::{GameWrite, Written, insert_game_in},
};

impl Store {
    /// Creates a game (with its moves, for an imported one): on SQLite in
    /// the next group commit (see [`commit`]), on PostgreSQL in a
    /// transaction of its own (see [`Backend::batches_creates`]).
    ///
    /// # Errors
    ///
    /// Database failure, or (about never) another game with its id or join
    /// code.
    ///
    /// [`commit`]: super::commit
    pub async fn insert_game(&self, new: StoredGame) -> Result<StoredGame, StoreError> {
        if self.backend.batches_creates() {
            return self.committer.create(new).await;
        }
        let mut tx = self.writer.begin().await?;
        let game = insert_game_in(tx.conn(), self.backend, new).await??;
        Log::started(&game).append(tx.conn(), self.backend).await?;
        tx.commit().await?;
        Ok(game)
    }

    /// A game with its moves.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn game(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        // One snapshot: the row and its moves agree, though a change may
        // commit between the two reads.
        let mut tx = self.pool.begin_with(self.backend.begin_snapshot()).await?;
        let game = load_game(&mut tx, id).await?;
        tx.commit().await?;
        Ok(game)
    }

    /// A game's row alone, without its moves: one indexed read, never
    /// waiting for the writer.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn game_head(&self, id: &str) -> Result<Option<GameHead>, StoreError> {
        let sql = format!("SELECT {GAME_COLUMNS}, ply FROM games WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        Ok(Some(GameHead {
            game: game_from_row(&row)?,
            ply: usize::try_from(row.get::<i64, _>("ply")).unwrap_or(usize::MAX),
        }))
    }

    /// Ids of the ongoing games with a clock (to restart their timers after
    /// a restart).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn ongoing_clocked_games(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query(
            "SELECT id FROM games WHERE status = 'ongoing' \
             AND clock_turn_started_at IS NOT NULL ORDER BY seq",
        )
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
    }

    /// Ids of the ongoing games with an engine seat (to resume their engines
    /// after a restart).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn ongoing_engine_games(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query(
            "SELECT id FROM games WHERE status = 'ongoing' \
             AND (white_engine_level IS NOT NULL OR black_engine_level IS NOT NULL) ORDER BY seq",
        )
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
    }

    /// Notes that the engine seat to move at `ply` of game `id` waits for a
    /// search slot: its clock stops until [`Store::start_engine_clock`].
    /// Nothing if the game has moved on or has no clock.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn engine_waits(&self, id: &str, ply: usize) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        sqlx::query(
            "UPDATE games SET clock_engine_waiting_ply = $1 \
             WHERE id = $2 AND ply = $1 AND status = 'ongoing' \
             AND clock_turn_started_at IS NOT NULL",
        )
        .bind(ply as i64)
        .bind(id)
        .execute(tx.conn())
        .await?;
        tx.commit().await
    }

    /// Ends the wait of game `id`'s engine seat: if it still waits at the
    /// game's ply, its turn starts at `now`; a stale mark is cleared.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn start_engine_clock(&self, id: &str, now: i64) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        sqlx::query(
            "UPDATE games SET clock_turn_started_at = CASE \
             WHEN clock_engine_waiting_ply = ply THEN $1 ELSE clock_turn_started_at END, \
             clock_engine_waiting_ply = NULL \
             WHERE id = $2 AND clock_engine_waiting_ply IS NOT NULL",
        )
        .bind(now)
        .bind(id)
        .execute(tx.conn())
        .await?;
        tx.commit().await
    }

    /// Writes a game change in the next group commit (see [`commit`]): only
    /// if the game is still as `write.base` says, in the same transaction.
    ///
    /// # Errors
    ///
    /// A database failure (of the change's batch).
    ///
    /// [`commit`]: super::commit
    pub async fn write_game(&self, write: GameWrite) -> Result<Written, StoreError> {
        self.committer.write(write).await
    }

    /// The id of the game whose join code is `code`, if one has it: one
    /// read through the code's unique index.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn game_by_join_code(&self, code: &str) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query("SELECT id FROM games WHERE join_code = $1")
            .bind(code)
            .fetch_optional(&self.pool)
            .await?
            .map(|r| r.get(0)))
    }

    /// Ids of the ongoing games whose open seat nobody took by `now`, the
    /// longest overdue first, at most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn due_open_seats(&self, now: i64, limit: u32) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query(
            "SELECT id FROM games WHERE status = 'ongoing' AND open_until <= $1 \
             ORDER BY open_until LIMIT $2",
        )
        .bind(now)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
    }
}

/// Game `id` with its moves (read in one snapshot: see
/// [`Backend::begin_snapshot`]).
pub(super) async fn load_game(
    conn: &mut AnyConnection,
    id: &str,
) -> Result<Option<StoredGame>, StoreError> {
    let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
    let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let mut game = game_from_row(&row)?;
    game.moves = sqlx::query(
        "SELECT ply, uci, fen_after, played_at FROM moves WHERE game_seq = $1 ORDER BY ply",
    )
    .bind(game.seq)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(|r| StoredMove {
        ply: r.get(0),
        uci: r.get(1),
        fen_after: r.get(2),
        played_at: r.get(3),
    })
    .collect();
    Ok(Some(game))
}
