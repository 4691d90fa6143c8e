//! The players' names as the game search indexes them: each name once,
//! folded in case (`player_names`), and the games each name played in
//! (`game_player_names`), written with their game in its transaction.
//!
//! A search finds the few names that match first, then reads each name's
//! games in order; see `game_search`.

use std::collections::BTreeSet;

use sqlx::{AnyConnection, AnyPool, Row};

use super::sql::Sql;

/// `name` with its case folded, as stored and searched.
pub(super) fn fold(name: &str) -> String {
    name.to_lowercase().replace('ς', "σ")
}

/// Adds the folded `names` to the names known, those not known yet (in
/// the transaction of `conn`).
///
/// On PostgreSQL a new name is a unique key another transaction may be
/// adding too, and one waits for the other: they are added in one
/// statement, in order, so that two transactions never wait for each
/// other. A batch adds all its games' names first, before any of its games.
pub(super) async fn remember<'a>(
    conn: &mut AnyConnection,
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(), sqlx::Error> {
    /// Names per statement (one parameter each).
    const BATCH: usize = 1_000;
    let names: BTreeSet<String> = names.into_iter().map(fold).collect();
    let names: Vec<String> = names.into_iter().collect();
    for chunk in names.chunks(BATCH) {
        let mut insert = Sql::default();
        insert.push("INSERT INTO player_names (name) VALUES ");
        for (i, name) in chunk.iter().enumerate() {
            insert.push(if i == 0 { "(" } else { ", (" });
            insert.bind(name.clone()).push(")");
        }
        insert.push(" ON CONFLICT (name) DO NOTHING");
        insert.build().execute(&mut *conn).await?;
    }
    Ok(())
}

/// Records the names of game `seq`'s players (in the game's transaction).
pub(super) async fn index_players(
    conn: &mut AnyConnection,
    seq: i64,
    white: &str,
    black: &str,
) -> Result<(), sqlx::Error> {
    remember(&mut *conn, [white, black]).await?;
    sqlx::query(
        "INSERT INTO game_player_names (name_id, game_seq) \
         SELECT id, $1 FROM player_names WHERE name IN ($2, $3)",
    )
    .bind(seq)
    .bind(fold(white))
    .bind(fold(black))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Indexes game `seq`'s players again after a name changed (a player took
/// an open seat, or left). A name no game has any more is forgotten.
pub(super) async fn reindex_players(
    conn: &mut AnyConnection,
    seq: i64,
    white: &str,
    black: &str,
) -> Result<(), sqlx::Error> {
    let was: Vec<i64> =
        sqlx::query_scalar("DELETE FROM game_player_names WHERE game_seq = $1 RETURNING name_id")
            .bind(seq)
            .fetch_all(&mut *conn)
            .await?;
    index_players(&mut *conn, seq, white, black).await?;
    for name_id in was {
        sqlx::query(
            "DELETE FROM player_names WHERE id = $1 \
             AND NOT EXISTS (SELECT 1 FROM game_player_names WHERE name_id = $1)",
        )
        .bind(name_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Indexes the names of the games that have no `game_player_names` row
/// yet: those created before the search tables existed (games get theirs
/// with their own insert, in seq order, so they are the ones past its last
/// row). Returns how many. SQLite only (PostgreSQL stores began with the
/// tables).
pub(super) async fn index_missing_players(pool: &AnyPool) -> Result<u64, sqlx::Error> {
    let last: i64 = sqlx::query("SELECT coalesce(max(game_seq), 0) FROM game_player_names")
        .fetch_one(pool)
        .await?
        .get(0);
    let missing = sqlx::query("SELECT seq, white_name, black_name FROM games WHERE seq > $1")
        .bind(last)
        .fetch_all(pool)
        .await?;
    if missing.is_empty() {
        return Ok(0);
    }
    let mut tx = pool.begin().await?;
    for row in &missing {
        index_players(&mut tx, row.get(0), row.get(1), row.get(2)).await?;
    }
    tx.commit().await?;
    Ok(missing.len() as u64)
}
