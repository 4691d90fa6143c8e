//! The write of a batch of game changes in one transaction: each change
//! checked against its base and written, the games created with them, then
//! every new move and event in as few statements as the batch allows. The
//! committer (`commit`) calls it; nothing here queues or commits.

mod batch;
mod change;

use sqlx::AnyConnection;

pub use self::change::{Base, GameWrite, Written};
pub(super) use self::{batch::write_records, change::Applied};
use super::{
    Backend, StoreError, changes, leases, names, now_millis, ratings,
    rows::{StoredGame, StoredOpening, StoredRematch},
    sql::Sql,
};
use crate::rules::Side;

/// Inserts a game (with its moves, for an imported one) in the transaction
/// of `tx`; the inner error, with nothing written, if another game has its
/// id or join code.
pub(super) async fn insert_game_in(
    tx: &mut AnyConnection,
    backend: Backend,
    new: StoredGame,
) -> Result<Result<StoredGame, StoreError>, sqlx::Error> {
    let now = now_millis();
    let seq: Option<i64> = sqlx::query_scalar(
        "INSERT INTO games (id, variant, start_fen, white_name, black_name, white_token_hash, \
         black_token_hash, status, winner, termination, ply, created_at, updated_at, \
         white_engine_level, white_engine_movetime_ms, black_engine_level, \
         black_engine_movetime_ms, engine_grants_takebacks, clock_initial_ms, \
         clock_increment_ms, clock_delay_ms, clock_days_per_move, clock_white_ms, \
         clock_black_ms, clock_turn_started_at, clock_grace_ms, clock_flag_at, \
         engine_due_at, xiangqi_rules, join_code, open_seat, open_until, rematch_of, \
         white_player, black_player, rated) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
         $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, \
         $35, $36) \
         ON CONFLICT DO NOTHING RETURNING seq",
    )
    .bind(&new.id)
    .bind(new.variant.name())
    .bind(&new.start_fen)
    .bind(&new.white_name)
    .bind(&new.black_name)
    .bind(&new.white_token_hash)
    .bind(&new.black_token_hash)
    .bind(new.status.name())
    .bind(new.winner.map(Side::name))
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
    .bind(new.open.as_ref().map(|o| o.side.name()))
    .bind(new.open.as_ref().map(|o| o.until))
    .bind(&new.rematch_of)
    .bind(&new.white_player)
    .bind(&new.black_player)
    .bind(i64::from(new.rated))
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
    names::index_players(&mut *tx, seq, &new.white_name, &new.black_name).await?;
    // The other servers learn of the game (its clock or engine seat may be
    // theirs to run).
    if backend == Backend::Postgres {
        changes::announce(&mut *tx, &new.id, 0).await?;
    }
    Ok(Ok(StoredGame {
        seq,
        draw_offer: None,
        takeback_offer: None,
        join_code: new.open.as_ref().map(|o| o.join_code.clone()),
        rematch: StoredRematch::default(),
        version: 0,
        created_at: now,
        updated_at: now,
        undone: Vec::new(),
        ..new
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

/// Names game `seq`'s opening (once: a name given stays), with each level
/// of it searched by.
pub(super) async fn name_opening(
    tx: &mut AnyConnection,
    seq: i64,
    opening: &StoredOpening,
) -> Result<(), sqlx::Error> {
    fn before(text: &str, end: char) -> &str {
        text.split(end).next().unwrap_or(text)
    }
    sqlx::query(
        "INSERT INTO game_openings \
         (game_seq, eco, name, eco_volume, eco_group, family, variation) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
    )
    .bind(seq)
    .bind(&opening.eco)
    .bind(&opening.name)
    .bind(opening.eco.get(..1).unwrap_or_default())
    .bind(opening.eco.get(..2).unwrap_or_default())
    .bind(before(&opening.name, ':'))
    .bind(before(&opening.name, ','))
    .execute(tx)
    .await?;
    Ok(())
}

/// Records that game `seq` reached the positions `keys` (once: a key
/// recorded stays).
pub(super) async fn index_positions(
    tx: &mut AnyConnection,
    seq: i64,
    keys: &[i64],
) -> Result<(), sqlx::Error> {
    /// Rows per statement (two parameters each).
    const ROWS: usize = 400;
    for chunk in keys.chunks(ROWS) {
        let mut insert = Sql::default();
        insert.push("INSERT INTO game_positions (position_key, game_seq) VALUES ");
        for (i, key) in chunk.iter().enumerate() {
            insert.push(if i == 0 { "(" } else { ", (" });
            insert.bind(*key).push(", ").bind(seq).push(")");
        }
        insert.push(" ON CONFLICT DO NOTHING");
        insert.build().execute(&mut *tx).await?;
    }
    Ok(())
}

/// Whether `write` writes its game's row and nothing else (besides the
/// records every change has): no fence, no moves taken back, no names
/// changed, no game created.
fn writes_row_only(write: &GameWrite) -> bool {
    write.fence.is_none()
        && write.rating.is_none()
        && write.opening.is_none()
        && write.positions.is_empty()
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
        creates,
        rating,
        opening,
        positions,
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
        names::reindex_players(&mut *tx, game.seq, &game.white_name, &game.black_name).await?;
    }
    if let Some(rated) = rating {
        ratings::apply(&mut *tx, backend, game, rated, now).await?;
    }
    if let Some(opening) = opening {
        name_opening(&mut *tx, game.seq, opening).await?;
    }
    index_positions(&mut *tx, game.seq, positions).await?;
    let created = match creates.take() {
        Some(new) => Some(Box::new(insert_game_in(&mut *tx, backend, new).await??)),
        None => None,
    };
    // Taken back and recorded: the store never reads them back.
    game.undone.clear();
    Ok(Applied::Written { created })
}
