use sqlx::{AnyConnection, Row, any::AnyRow};

use super::{
    Backend, Store, StoreError, batch, changes,
    commit::{Applied, GameWrite, Written},
    game_search, leases, now_millis,
};

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
    /// Who is still to take a seat, and how (`None`: both seats are taken).
    pub open: Option<OpenSeat>,
    /// The game this one is the rematch of.
    pub rematch_of: Option<String>,
}

/// A seat left open at creation, until a player takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenSeat {
    /// `white` or `black`.
    pub side: String,
    /// The code JoinGame takes the seat with (unique).
    pub join_code: String,
    /// When the game expires if nobody has taken the seat (unix
    /// milliseconds).
    pub until: i64,
}

/// A finished game's rematch, offered or created.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredRematch {
    /// The rematch's id, once created.
    pub id: Option<String>,
    /// The side offering one (`None`: no offer stands).
    pub offer: Option<String>,
    /// The hash of the offerer's token in the rematch to come.
    pub token_hash: Option<String>,
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
    /// A seat is open: no clock runs until it is taken (not a column of its
    /// own: the game's open seat says).
    pub held: bool,
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
    /// The seat still open, if one is. Its join code stays with the game
    /// (`join_code`) once taken, so that a late joiner hears it is.
    pub open: Option<OpenSeat>,
    pub join_code: Option<String>,
    /// The game this one is the rematch of.
    pub rematch_of: Option<String>,
    /// This game's rematch, offered or created.
    pub rematch: StoredRematch,
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

/// A change a game's judge makes: the value to hand back and the event to
/// record in the game's history.
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
     clock_engine_waiting_ply, clock_flag_at, engine_due_at, xiangqi_rules, join_code, open_seat, \
     open_until, rematch_of, rematch, rematch_offer, rematch_token_hash";

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
    pub async fn insert_game(&self, new: NewGame) -> Result<StoredGame, StoreError> {
        if self.backend.batches_creates() {
            return self.committer.create(new).await;
        }
        let mut tx = self.writer.begin().await?;
        let game = insert_game_in(tx.conn(), self.backend, new).await??;
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

/// Inserts a game (with its moves, for an imported one) in the transaction
/// of `tx`; the inner error, with nothing written, if another game has its
/// id or join code.
pub(super) async fn insert_game_in(
    tx: &mut AnyConnection,
    backend: Backend,
    new: NewGame,
) -> Result<Result<StoredGame, StoreError>, sqlx::Error> {
    let now = now_millis();
    let seq: Option<i64> = sqlx::query_scalar(
        "INSERT INTO games (id, variant, start_fen, white_name, black_name, white_token_hash, \
         black_token_hash, status, winner, termination, ply, created_at, updated_at, \
         white_engine_level, white_engine_movetime_ms, black_engine_level, \
         black_engine_movetime_ms, engine_grants_takebacks, clock_initial_ms, \
         clock_increment_ms, clock_delay_ms, clock_days_per_move, clock_white_ms, \
         clock_black_ms, clock_turn_started_at, clock_grace_ms, clock_flag_at, \
         engine_due_at, xiangqi_rules, join_code, open_seat, open_until, rematch_of) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
         $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33) \
         ON CONFLICT DO NOTHING RETURNING seq",
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
    .bind(new.open.as_ref().map(|o| &o.join_code))
    .bind(new.open.as_ref().map(|o| &o.side))
    .bind(new.open.as_ref().map(|o| o.until))
    .bind(&new.rematch_of)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(seq) = seq else {
        return Ok(Err(StoreError::Database(sqlx::Error::InvalidArgument(
            format!(
                "game {}: its id or join code is another game's already",
                new.id
            ),
        ))));
    };
    batch::insert_moves(&mut *tx, backend, seq, None, &new.moves).await?;
    game_search::index_players(&mut *tx, backend, seq, &new.white_name, &new.black_name).await?;
    // The other servers learn of the game (its clock or engine seat may be
    // theirs to run).
    if backend == Backend::Postgres {
        changes::announce(&mut *tx, &new.id, 0).await?;
    }
    Ok(Ok(StoredGame {
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
        join_code: new.open.as_ref().map(|o| o.join_code.clone()),
        open: new.open,
        rematch_of: new.rematch_of,
        rematch: StoredRematch::default(),
        version: 0,
        created_at: now,
        updated_at: now,
        moves: new.moves,
        undone: Vec::new(),
    }))
}

/// Writes each change of `writes`, in turn, in `tx` if its game is still as
/// its base says (and, with a fence, while its lease is held), with its new
/// version and `now`, and the game it creates; [`Applied::Stale`] or
/// [`Applied::LeaseLost`] if not, with nothing of it written. A game's row is
/// written first: its check decides, and on PostgreSQL it takes the row's
/// lock before anything else of the game is written. Runs of changes that
/// write their games' rows only go in as few calls as
/// [`batch::update_games`] makes; the new moves and the event of every
/// change are written with the rest of its batch's, by
/// [`batch::write_records`].
pub(super) async fn write_changes(
    tx: &mut AnyConnection,
    backend: Backend,
    writes: &mut [&mut GameWrite],
    now: i64,
) -> Result<Vec<Applied>, StoreError> {
    let mut applied = Vec::with_capacity(writes.len());
    let mut rest = &mut writes[..];
    while !rest.is_empty() {
        let rows_only = rest
            .iter()
            .take_while(|write| writes_row_only(write))
            .count();
        if rows_only == 0 {
            applied.push(write_change(tx, backend, rest[0], now).await?);
            rest = &mut rest[1..];
            continue;
        }
        let (run, after) = rest.split_at_mut(rows_only);
        let updated = batch::update_games(tx, backend, run, now).await?;
        applied.extend(updated.into_iter().map(|updated| match updated {
            true => Applied::Written { created: None },
            false => Applied::Stale,
        }));
        rest = after;
    }
    Ok(applied)
}

/// Whether `write` writes its game's row and nothing else (besides the
/// records every change has): no fence, no moves taken back, no names
/// changed, no game created.
fn writes_row_only(write: &GameWrite) -> bool {
    write.fence.is_none()
        && write.game.undone.is_empty()
        && write.creates.is_none()
        && !write.renames()
}

/// [`write_changes`] for one change, with whatever it writes besides its
/// game's row.
async fn write_change(
    tx: &mut AnyConnection,
    backend: Backend,
    write: &mut GameWrite,
    now: i64,
) -> Result<Applied, StoreError> {
    if let Some(fence) = &write.fence {
        match leases::check(&mut *tx, backend, fence).await {
            Err(StoreError::LeaseLost { shard }) => return Ok(Applied::LeaseLost { shard }),
            checked => checked?,
        }
    }
    if batch::update_games(&mut *tx, backend, &mut [&mut *write], now).await? != [true] {
        return Ok(Applied::Stale);
    }
    let renames = write.renames();
    let GameWrite {
        game,
        base,
        creates,
        ..
    } = write;
    if !game.undone.is_empty() {
        sqlx::query("DELETE FROM moves WHERE game_seq = $1 AND ply >= $2")
            .bind(game.seq)
            .bind(game.moves.len() as i64)
            .execute(&mut *tx)
            .await?;
        batch::insert_moves(tx, backend, game.seq, Some(game.version), &game.undone).await?;
    }
    if renames {
        game_search::reindex_players(
            &mut *tx,
            backend,
            game.seq,
            (&base.names.0, &base.names.1),
            (&game.white_name, &game.black_name),
        )
        .await?;
    }
    let created = match creates.take() {
        Some(new) => Some(Box::new(insert_game_in(&mut *tx, backend, new).await??)),
        None => None,
    };
    // Taken back and recorded: the store never reads them back.
    game.undone.clear();
    Ok(Applied::Written { created })
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
    let open = open_from_row(row, 33);
    let mut clock = clock_from_row(row, 21);
    if let Some(clock) = &mut clock {
        clock.held = open.is_some();
    }
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
        clock,
        engine_due_at: row.get(31),
        xiangqi_rules: row.get(32),
        join_code: row.get(33),
        open,
        rematch_of: row.get(36),
        rematch: StoredRematch {
            id: row.get(37),
            offer: row.get(38),
            token_hash: row.get(39),
        },
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
        held: false,
    })
}

/// The open seat of a game's row: its join code at `column`, then the
/// side and the expiry.
fn open_from_row(row: &AnyRow, column: usize) -> Option<OpenSeat> {
    Some(OpenSeat {
        join_code: row.get::<Option<String>, _>(column)?,
        side: row.get::<Option<String>, _>(column + 1)?,
        until: row.get::<Option<i64>, _>(column + 2)?,
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
