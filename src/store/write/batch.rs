//! The statements of a batch of game changes (see `store::commit`), shaped
//! so that a batch costs few round trips to the database whatever its size.
//!
//! Every statement is a round trip: to the connection's own thread on
//! SQLite, to the server on PostgreSQL. On SQLite a run of games' updates
//! goes in one call (sqlx's SQLite driver runs every statement of a query's
//! text, each answering its rows changed), in runs of 1, 2, 4, ... 32
//! statements so that a handful of texts is prepared and kept. Rows to
//! insert (moves, events) go as one JSON array of arrays, one parameter
//! whatever their number: the statement's text never changes, so it is
//! prepared once, and no statement has thousands of parameters (SQLite finds
//! a numbered parameter by walking a list of them, once per parameter bound).

use serde_json::{Value, json};
use sqlx::{AnyConnection, Either, Executor};
use tokio_stream::StreamExt;

use super::change::GameWrite;
use crate::{
    rules::Side,
    store::{Backend, StoredMove, changes, sql::Sql},
};

/// Most games' updates in one call on SQLite.
const UPDATES_A_CALL: usize = 32;

/// Updates each game of `writes` in turn if it is still as its write's base
/// says, with its new version and `now`; the games updated. A game that was
/// updated has its new version and time set.
pub(in crate::store) async fn update_games(
    conn: &mut AnyConnection,
    backend: Backend,
    writes: &mut [&mut GameWrite],
    now: i64,
) -> Result<Vec<bool>, sqlx::Error> {
    let mut updated = Vec::with_capacity(writes.len());
    let mut rest = &mut writes[..];
    while !rest.is_empty() {
        let size = match backend {
            // The largest run of the sizes kept that the rest fills.
            Backend::Sqlite => 1 << rest.len().min(UPDATES_A_CALL).ilog2(),
            Backend::Postgres => 1,
        };
        let (run, after) = rest.split_at_mut(size);
        let mut sql = Sql::default();
        for (n, write) in run.iter().enumerate() {
            if n > 0 {
                sql.push("; ");
            }
            push_update(&mut sql, write, now);
        }
        let mut changed = Vec::with_capacity(run.len());
        let mut steps = conn.fetch_many(sql.build());
        while let Some(step) = steps.next().await {
            if let Either::Left(done) = step? {
                changed.push(done.rows_affected());
            }
        }
        drop(steps);
        if changed.len() != run.len() {
            return Err(sqlx::Error::Protocol(format!(
                "{} updates answered {} results",
                run.len(),
                changed.len()
            )));
        }
        for (write, changed) in run.iter_mut().zip(changed) {
            let done = changed > 0;
            if done {
                write.game.version = write.base.version + 1;
                write.game.updated_at = now;
            }
            updated.push(done);
        }
        rest = after;
    }
    Ok(updated)
}

/// The update of `write`'s game, checked against its base: its version, and
/// the two clock columns an engine seat's wait sets without a new version.
fn push_update(sql: &mut Sql, write: &GameWrite, now: i64) {
    let GameWrite { game, base, .. } = write;
    let clock = game.clock;
    let open = game.open.as_ref();
    sql.push("UPDATE games SET status = ")
        .bind(game.status.name().to_owned())
        .push(", winner = ")
        .bind(side_name(game.winner))
        .push(", termination = ")
        .bind(game.termination.clone())
        .push(", draw_offer = ")
        .bind(side_name(game.draw_offer))
        .push(", takeback_offer = ")
        .bind(side_name(game.takeback_offer))
        .push(", clock_white_ms = ")
        .bind(clock.map(|c| c.white_ms))
        .push(", clock_black_ms = ")
        .bind(clock.map(|c| c.black_ms))
        .push(", clock_turn_started_at = ")
        .bind(clock.map(|c| c.turn_started_at))
        .push(", clock_flag_at = ")
        .bind(clock.and_then(|c| c.flag_at))
        .push(", ply = ")
        .bind(game.moves.len() as i64)
        .push(", version = ")
        .bind(base.version + 1)
        .push(", updated_at = ")
        .bind(now)
        .push(", engine_due_at = ")
        .bind(game.engine_due_at);
    // Names and players are written only by the change that renames (a
    // seat taken), so that a change judged on a game cached before its
    // names were replaced (a player deleted) cannot bring them back.
    if write.renames() {
        sql.push(", white_name = ")
            .bind(game.white_name.clone())
            .push(", black_name = ")
            .bind(game.black_name.clone())
            .push(", white_player = ")
            .bind(game.white_player.clone())
            .push(", black_player = ")
            .bind(game.black_player.clone());
    }
    sql.push(", white_token_hash = ")
        .bind(game.white_token_hash.clone())
        .push(", black_token_hash = ")
        .bind(game.black_token_hash.clone())
        .push(", open_seat = ")
        .bind(side_name(open.map(|o| o.side)))
        .push(", open_until = ")
        .bind(open.map(|o| o.until))
        .push(", rematch = ")
        .bind(game.rematch.id.clone())
        .push(", rematch_offer = ")
        .bind(side_name(game.rematch.offer))
        .push(", rematch_token_hash = ")
        .bind(game.rematch.token_hash.clone())
        .push(" WHERE seq = ")
        .bind(game.seq)
        .push(" AND version = ")
        .bind(base.version)
        .push(" AND clock_turn_started_at IS NOT DISTINCT FROM ")
        .bind(base.turn_started_at)
        .push(" AND clock_engine_waiting_ply IS NOT DISTINCT FROM ")
        .bind(base.engine_waiting_ply);
}

/// A table rows are inserted into from JSON: its name and its columns, each
/// with whether it holds integers (text otherwise).
struct Table {
    name: &'static str,
    columns: &'static [(&'static str, bool)],
}

const MOVES: Table = Table {
    name: "moves",
    columns: &[
        ("game_seq", true),
        ("ply", true),
        ("uci", false),
        ("fen_after", false),
        ("played_at", true),
    ],
};

const UNDONE_MOVES: Table = Table {
    name: "undone_moves",
    columns: &[
        ("game_seq", true),
        ("version", true),
        ("ply", true),
        ("uci", false),
        ("fen_after", false),
        ("played_at", true),
    ],
};

const EVENTS: Table = Table {
    name: "game_events",
    columns: &[
        ("game_seq", true),
        ("version", true),
        ("kind", false),
        ("side", false),
        ("created_at", true),
        ("ply", true),
        ("status", false),
        ("winner", false),
        ("termination", false),
        ("draw_offer", false),
        ("takeback_offer", false),
        ("clock_white_ms", true),
        ("clock_black_ms", true),
        ("clock_turn_started_at", true),
        ("open_seat", false),
        ("rematch", false),
        ("rematch_offer", false),
    ],
};

impl Table {
    /// `INSERT INTO` the table the rows of the JSON array of arrays in
    /// parameter `$param` (one array a row, a value a column, in order).
    fn insert_from_json(&self, backend: Backend, param: usize) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(name, _)| *name).collect();
        let values: Vec<String> = self
            .columns
            .iter()
            .enumerate()
            .map(|(n, (_, integer))| match (backend, integer) {
                (Backend::Postgres, true) => format!("(value ->> {n})::bigint"),
                _ => format!("value ->> {n}"),
            })
            .collect();
        let rows = match backend {
            Backend::Sqlite => format!("json_each(${param})"),
            Backend::Postgres => format!("json_array_elements(${param}::json)"),
        };
        format!(
            "INSERT INTO {} ({}) SELECT {} FROM {rows}",
            self.name,
            names.join(", "),
            values.join(", ")
        )
    }
}

/// Inserts `moves` of game `game_seq` into its moves, or, with `undone_by`
/// (the takeback's version), into its undone moves.
pub(in crate::store) async fn insert_moves(
    conn: &mut AnyConnection,
    backend: Backend,
    game_seq: i64,
    undone_by: Option<i64>,
    moves: &[StoredMove],
) -> Result<(), sqlx::Error> {
    if moves.is_empty() {
        return Ok(());
    }
    let (table, rows) = match undone_by {
        None => (MOVES, moves.iter().map(|m| move_row(game_seq, m)).collect()),
        Some(version) => (
            UNDONE_MOVES,
            moves
                .iter()
                .map(|m| json!([game_seq, version, m.ply, m.uci, m.fen_after, m.played_at]))
                .collect(),
        ),
    };
    sqlx::query(sqlx::AssertSqlSafe(table.insert_from_json(backend, 1)))
        .bind(Value::Array(rows).to_string())
        .execute(conn)
        .await
        .map(drop)
}

fn move_row(game_seq: i64, m: &StoredMove) -> Value {
    json!([game_seq, m.ply, m.uci, m.fen_after, m.played_at])
}

/// Records the moves played and the event of each change of a batch that
/// was written, at `now`, in one call; on PostgreSQL announces them too.
pub(in crate::store) async fn write_records(
    conn: &mut AnyConnection,
    backend: Backend,
    written: &[&GameWrite],
    now: i64,
) -> Result<(), sqlx::Error> {
    if written.is_empty() {
        return Ok(());
    }
    let played: Vec<Value> = written
        .iter()
        .flat_map(|write| {
            let kept = write.base.moves.min(write.game.moves.len());
            let seq = write.game.seq;
            write.game.moves[kept..]
                .iter()
                .map(move |m| move_row(seq, m))
        })
        .collect();
    let events: Vec<Value> = written.iter().map(|write| event_row(write, now)).collect();
    let played = Value::Array(played).to_string();
    let events = Value::Array(events).to_string();
    let moves_sql = MOVES.insert_from_json(backend, 1);
    let events_sql = EVENTS.insert_from_json(backend, 2);
    let query = match backend {
        Backend::Sqlite => sqlx::query(sqlx::AssertSqlSafe(format!("{moves_sql}; {events_sql}")))
            .bind(played)
            .bind(events),
        // The changes are announced in the same statement; PostgreSQL
        // delivers the notifications at commit.
        Backend::Postgres => {
            let versions: Vec<String> = written
                .iter()
                .map(|write| changes::payload(&write.game.id, write.game.version))
                .collect();
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "WITH moved AS ({moves_sql}), told AS ({events_sql}) \
                 SELECT pg_notify($3, value)::text FROM json_array_elements_text($4::json)"
            )))
            .bind(played)
            .bind(events)
            .bind(changes::CHANNEL)
            .bind(json!(versions).to_string())
        }
    };
    query.execute(conn).await.map(drop)
}

/// A side's stored name (bound by value: the query outlives its game).
fn side_name(side: Option<Side>) -> Option<String> {
    side.map(|side| side.name().to_owned())
}

/// The event row of `write`: the game's state after its change.
fn event_row(write: &GameWrite, now: i64) -> Value {
    let GameWrite {
        game, event, side, ..
    } = write;
    let clock = game.clock;
    json!([
        game.seq,
        game.version,
        event,
        side.map(Side::name),
        now,
        game.moves.len(),
        game.status.name(),
        game.winner.map(Side::name),
        game.termination,
        game.draw_offer.map(Side::name),
        game.takeback_offer.map(Side::name),
        clock.map(|c| c.white_ms),
        clock.map(|c| c.black_ms),
        clock.map(|c| c.turn_started_at),
        game.open.as_ref().map(|o| o.side.name()),
        game.rematch.id,
        game.rematch.offer.map(Side::name),
    ])
}
