use sqlx::{AnyConnection, Row, any::AnyRow};

use super::{Backend, Fence, Store, StoreError, changes, game_search, leases, now_millis};

/// A game to create (validated by the caller; tokens already hashed).
#[derive(Clone, Debug)]
pub struct NewGame {
    pub id: String,
    pub variant: String,
    pub start_fen: String,
    pub white_name: String,
    pub black_name: String,
    pub white_token_hash: String,
    pub black_token_hash: String,
    pub white_engine: Option<StoredEngine>,
    pub black_engine: Option<StoredEngine>,
    /// Moves already played (an imported game); empty for a new game.
    pub moves: Vec<StoredMove>,
    /// `ongoing`, or how an imported game ended (with `winner` and
    /// `termination`).
    pub status: String,
    pub winner: Option<String>,
    pub termination: Option<String>,
    /// Does an engine seat grant the human's takebacks?
    pub engine_grants_takebacks: bool,
    pub clock: Option<StoredClock>,
    /// When the engine seat to move should have moved by (`None`: a human
    /// is to move).
    pub engine_due_at: Option<i64>,
    /// A xiangqi game's repetition rules, by name (`None` for chess).
    pub xiangqi_rules: Option<String>,
}

/// A game's clock columns (see `migrations/0004_clocks.sql`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredClock {
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub delay_ms: i64,
    /// `Some` for a correspondence game (0 = no limit).
    pub days_per_move: Option<i64>,
    /// Time for each side's first move (`None`: the default).
    pub grace_ms: Option<i64>,
    pub white_ms: i64,
    pub black_ms: i64,
    pub turn_started_at: i64,
    /// The ply at which an engine seat waits for a search slot (see
    /// `migrations/sqlite/0008_engine_seat_waits.sql`).
    pub engine_waiting_ply: Option<i64>,
    /// When the side to move runs out of time, as of this state (`None`:
    /// nothing can run out); the owner of the game's lease arms its timer
    /// from it after another server's change.
    pub flag_at: Option<i64>,
}

/// A seat played by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredEngine {
    /// 1-10.
    pub level: i64,
    pub movetime_ms: i64,
}

/// A stored move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMove {
    pub ply: i64,
    /// Coordinate notation (chess UCI, xiangqi ICCS).
    pub uci: String,
    pub fen_after: String,
    pub played_at: i64,
}

/// A stored game with its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    pub seq: i64,
    pub id: String,
    pub variant: String,
    pub start_fen: String,
    pub white_name: String,
    pub black_name: String,
    pub white_token_hash: String,
    pub black_token_hash: String,
    pub white_engine: Option<StoredEngine>,
    pub black_engine: Option<StoredEngine>,
    /// `ongoing`, `decisive`, `drawn` or `aborted`.
    pub status: String,
    /// `white` or `black`.
    pub winner: Option<String>,
    pub termination: Option<String>,
    /// The side with a pending draw offer.
    pub draw_offer: Option<String>,
    /// The side with a pending takeback proposal.
    pub takeback_offer: Option<String>,
    /// Does an engine seat grant the human's takebacks?
    pub engine_grants_takebacks: bool,
    /// The clock, for a timed game.
    pub clock: Option<StoredClock>,
    /// When the engine seat to move should have moved by (`None`: a human
    /// is to move); the owner of the game's lease wakes its engine from it
    /// after another server's change.
    pub engine_due_at: Option<i64>,
    /// A xiangqi game's repetition rules, by name (`None` for chess).
    pub xiangqi_rules: Option<String>,
    /// Bumped by every change; orders the game's events.
    pub version: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub moves: Vec<StoredMove>,
    /// Moves a change took back (popped from `moves`, last first); written
    /// to the takeback's history, never read back.
    pub undone: Vec<StoredMove>,
}

/// A game's row without its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameHead {
    /// The game, with `moves` left empty.
    pub game: StoredGame,
    /// Moves played.
    pub ply: usize,
}

/// Which games to list.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// `Some(false)`: ongoing only; `Some(true)`: finished only.
    pub finished: Option<bool>,
    pub variant: Option<String>,
    /// Only games with a player whose name contains this (case-insensitive,
    /// in Unicode).
    pub player: Option<String>,
    /// Only games that ended this way (stored termination code).
    pub termination: Option<String>,
    /// Only games created at or after this (unix milliseconds).
    pub created_from: Option<i64>,
    /// Only games created before this (unix milliseconds).
    pub created_until: Option<i64>,
    /// Only games older than this cursor.
    pub before: Option<i64>,
    pub limit: u32,
}

/// A change made by [`Store::update_game`]: the value to hand back and the
/// event to record in the game's history.
#[derive(Clone, Debug)]
pub struct Update<T> {
    pub value: T,
    /// Event kind, e.g. `move`, `draw_offered`, `resigned`.
    pub event: &'static str,
    /// The side that caused it.
    pub side: Option<String>,
}

/// The game asked for (by this id) does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameNotFound(pub String);

pub(super) const GAME_COLUMNS: &str = "seq, id, variant, start_fen, white_name, black_name, white_token_hash, \
     black_token_hash, status, winner, termination, draw_offer, version, created_at, updated_at, \
     white_engine_level, white_engine_movetime_ms, black_engine_level, black_engine_movetime_ms, \
     takeback_offer, engine_grants_takebacks, clock_initial_ms, clock_increment_ms, clock_delay_ms, \
     clock_days_per_move, clock_white_ms, clock_black_ms, clock_turn_started_at, clock_grace_ms, \
     clock_engine_waiting_ply, clock_flag_at, engine_due_at, xiangqi_rules";

impl Store {
    /// Creates a game (with its moves, for an imported one) in one
    /// transaction.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_game(&self, new: NewGame) -> Result<StoredGame, StoreError> {
        let now = now_millis();
        let mut tx = self.writer.begin().await?;
        let seq: i64 = sqlx::query(
            "INSERT INTO games (id, variant, start_fen, white_name, black_name, white_token_hash, \
             black_token_hash, status, winner, termination, ply, created_at, updated_at, \
             white_engine_level, white_engine_movetime_ms, black_engine_level, \
             black_engine_movetime_ms, engine_grants_takebacks, clock_initial_ms, \
             clock_increment_ms, clock_delay_ms, clock_days_per_move, clock_white_ms, \
             clock_black_ms, clock_turn_started_at, clock_grace_ms, clock_flag_at, \
             engine_due_at, xiangqi_rules) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
             $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29) \
             RETURNING seq",
        )
        .bind(&new.id)
        .bind(&new.variant)
        .bind(&new.start_fen)
        .bind(&new.white_name)
        .bind(&new.black_name)
        .bind(&new.white_token_hash)
        .bind(&new.black_token_hash)
        .bind(&new.status)
        .bind(&new.winner)
        .bind(&new.termination)
        .bind(new.moves.len() as i64)
        .bind(now)
        .bind(now)
        .bind(new.white_engine.map(|e| e.level))
        .bind(new.white_engine.map(|e| e.movetime_ms))
        .bind(new.black_engine.map(|e| e.level))
        .bind(new.black_engine.map(|e| e.movetime_ms))
        .bind(i64::from(new.engine_grants_takebacks))
        .bind(new.clock.map(|c| c.initial_ms))
        .bind(new.clock.map(|c| c.increment_ms))
        .bind(new.clock.map(|c| c.delay_ms))
        .bind(new.clock.and_then(|c| c.days_per_move))
        .bind(new.clock.map(|c| c.white_ms))
        .bind(new.clock.map(|c| c.black_ms))
        .bind(new.clock.map(|c| c.turn_started_at))
        .bind(new.clock.and_then(|c| c.grace_ms))
        .bind(new.clock.and_then(|c| c.flag_at))
        .bind(new.engine_due_at)
        .bind(&new.xiangqi_rules)
        .fetch_one(tx.conn())
        .await?
        .get(0);
        insert_moves(tx.conn(), seq, None, &new.moves).await?;
        game_search::index_players(
            tx.conn(),
            self.backend,
            seq,
            &new.white_name,
            &new.black_name,
        )
        .await?;
        if self.backend == Backend::Postgres {
            changes::announce(tx.conn(), &new.id, 0).await?;
        }
        tx.commit().await?;
        Ok(StoredGame {
            seq,
            id: new.id,
            variant: new.variant,
            start_fen: new.start_fen,
            white_name: new.white_name,
            black_name: new.black_name,
            white_token_hash: new.white_token_hash,
            black_token_hash: new.black_token_hash,
            white_engine: new.white_engine,
            black_engine: new.black_engine,
            status: new.status,
            winner: new.winner,
            termination: new.termination,
            draw_offer: None,
            takeback_offer: None,
            engine_grants_takebacks: new.engine_grants_takebacks,
            clock: new.clock,
            engine_due_at: new.engine_due_at,
            xiangqi_rules: new.xiangqi_rules,
            version: 0,
            created_at: now,
            updated_at: now,
            moves: new.moves,
            undone: Vec::new(),
        })
    }

    /// A game with its moves.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn game(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let mut conn = self.pool.acquire().await?;
        load_game(&mut conn, id, "").await
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
        Ok(row.map(|row| GameHead {
            game: game_from_row(&row),
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

    /// Changes a game atomically: reads it under a write lock (the
    /// database's on SQLite, the game row's on PostgreSQL), lets `change` decide (and mutate the game: new
    /// moves are appended to `moves`), then writes the result. If `change`
    /// fails, nothing is written. Concurrent updates of one game, from this
    /// process or another on the same database, are serialised, so each
    /// sees the other's result.
    ///
    /// # Errors
    ///
    /// `change`'s error, [`GameNotFound`], or a database failure.
    pub async fn update_game<T, E>(
        &self,
        id: &str,
        change: impl FnOnce(&mut StoredGame) -> Result<Update<T>, E>,
    ) -> Result<(StoredGame, T), E>
    where
        E: From<StoreError> + From<GameNotFound>,
    {
        self.update_game_fenced(id, None, change).await
    }

    /// [`Store::update_game`], and with `fence`, only while its lease is
    /// held, checked in the same transaction (see [`leases`]).
    ///
    /// # Errors
    ///
    /// As `update_game`'s, and [`StoreError::LeaseLost`].
    pub async fn update_game_fenced<T, E>(
        &self,
        id: &str,
        fence: Option<&Fence>,
        change: impl FnOnce(&mut StoredGame) -> Result<Update<T>, E>,
    ) -> Result<(StoredGame, T), E>
    where
        E: From<StoreError> + From<GameNotFound>,
    {
        let mut tx = self.writer.begin().await?;
        if let Some(fence) = fence {
            leases::check(tx.conn(), self.backend, fence).await?;
        }
        let lock = self.backend.lock_for_update();
        let Some(mut game) = load_game(tx.conn(), id, lock).await? else {
            tx.rollback().await?;
            return Err(GameNotFound(id.to_owned()).into());
        };
        let known_moves = game.moves.len();
        let update = match change(&mut game) {
            Ok(update) => update,
            Err(refused) => {
                tx.rollback().await?;
                return Err(refused);
            }
        };
        let now = now_millis();
        game.version += 1;
        game.updated_at = now;
        write_game(tx.conn(), &game, known_moves, &update, now)
            .await
            .map_err(StoreError::from)?;
        if self.backend == Backend::Postgres {
            changes::announce(tx.conn(), &game.id, game.version)
                .await
                .map_err(StoreError::from)?;
        }
        tx.commit().await?;
        Ok((game, update.value))
    }
}

async fn write_game<T>(
    tx: &mut AnyConnection,
    game: &StoredGame,
    known_moves: usize,
    update: &Update<T>,
    now: i64,
) -> Result<(), sqlx::Error> {
    if !game.undone.is_empty() {
        sqlx::query("DELETE FROM moves WHERE game_seq = $1 AND ply >= $2")
            .bind(game.seq)
            .bind(game.moves.len() as i64)
            .execute(&mut *tx)
            .await?;
        insert_moves(tx, game.seq, Some(game.version), &game.undone).await?;
    }
    let kept = known_moves.min(game.moves.len());
    insert_moves(tx, game.seq, None, &game.moves[kept..]).await?;
    sqlx::query(
        "UPDATE games SET status = $1, winner = $2, termination = $3, draw_offer = $4, \
         takeback_offer = $5, clock_white_ms = $6, clock_black_ms = $7, \
         clock_turn_started_at = $8, ply = $9, version = $10, updated_at = $11, \
         clock_flag_at = $13, engine_due_at = $14 WHERE seq = $12",
    )
    .bind(&game.status)
    .bind(&game.winner)
    .bind(&game.termination)
    .bind(&game.draw_offer)
    .bind(&game.takeback_offer)
    .bind(game.clock.map(|c| c.white_ms))
    .bind(game.clock.map(|c| c.black_ms))
    .bind(game.clock.map(|c| c.turn_started_at))
    .bind(game.moves.len() as i64)
    .bind(game.version)
    .bind(now)
    .bind(game.seq)
    .bind(game.clock.and_then(|c| c.flag_at))
    .bind(game.engine_due_at)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO game_events (game_seq, version, kind, side, created_at, ply, status, \
         winner, termination, draw_offer, takeback_offer, clock_white_ms, clock_black_ms, \
         clock_turn_started_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
    )
    .bind(game.seq)
    .bind(game.version)
    .bind(update.event)
    .bind(&update.side)
    .bind(now)
    .bind(game.moves.len() as i64)
    .bind(&game.status)
    .bind(&game.winner)
    .bind(&game.termination)
    .bind(&game.draw_offer)
    .bind(&game.takeback_offer)
    .bind(game.clock.map(|c| c.white_ms))
    .bind(game.clock.map(|c| c.black_ms))
    .bind(game.clock.map(|c| c.turn_started_at))
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Inserts `moves` into the game's moves, or, with `undone_by` (the
/// takeback's version), into its undone moves.
async fn insert_moves(
    tx: &mut AnyConnection,
    game_seq: i64,
    undone_by: Option<i64>,
    moves: &[StoredMove],
) -> Result<(), sqlx::Error> {
    for m in moves {
        let insert = match undone_by {
            Some(version) => sqlx::query(
                "INSERT INTO undone_moves (game_seq, version, ply, uci, fen_after, played_at) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(game_seq)
            .bind(version),
            None => sqlx::query(
                "INSERT INTO moves (game_seq, ply, uci, fen_after, played_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(game_seq),
        };
        insert
            .bind(m.ply)
            .bind(&m.uci)
            .bind(&m.fen_after)
            .bind(m.played_at)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

/// Game `id` with its moves; `lock` is appended to the read of its row
/// (`Backend::lock_for_update` in a write transaction).
pub(super) async fn load_game(
    conn: &mut AnyConnection,
    id: &str,
    lock: &str,
) -> Result<Option<StoredGame>, StoreError> {
    let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1{lock}");
    let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let mut game = game_from_row(&row);
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

pub(super) fn game_from_row(row: &AnyRow) -> StoredGame {
    StoredGame {
        seq: row.get(0),
        id: row.get(1),
        variant: row.get(2),
        start_fen: row.get(3),
        white_name: row.get(4),
        black_name: row.get(5),
        white_token_hash: row.get(6),
        black_token_hash: row.get(7),
        status: row.get(8),
        winner: row.get(9),
        termination: row.get(10),
        draw_offer: row.get(11),
        version: row.get(12),
        created_at: row.get(13),
        updated_at: row.get(14),
        white_engine: engine_from_row(row, 15),
        black_engine: engine_from_row(row, 17),
        takeback_offer: row.get(19),
        engine_grants_takebacks: row.get::<i64, _>(20) != 0,
        clock: clock_from_row(row, 21),
        engine_due_at: row.get(31),
        xiangqi_rules: row.get(32),
        moves: Vec::new(),
        undone: Vec::new(),
    }
}

fn clock_from_row(row: &AnyRow, column: usize) -> Option<StoredClock> {
    let get = |i: usize| row.get::<Option<i64>, _>(column + i);
    Some(StoredClock {
        initial_ms: get(0).unwrap_or(0),
        increment_ms: get(1).unwrap_or(0),
        delay_ms: get(2).unwrap_or(0),
        days_per_move: get(3),
        grace_ms: get(7),
        engine_waiting_ply: get(8),
        flag_at: get(9),
        white_ms: get(4)?,
        black_ms: get(5)?,
        turn_started_at: get(6)?,
    })
}

fn engine_from_row(row: &AnyRow, column: usize) -> Option<StoredEngine> {
    let level: Option<i64> = row.get(column);
    let movetime_ms: Option<i64> = row.get(column + 1);
    Some(StoredEngine {
        level: level?,
        movetime_ms: movetime_ms?,
    })
}
