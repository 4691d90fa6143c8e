//! The players' names as the game search indexes them: folded in case,
//! written with their game in its transaction.

use sqlx::{AnyConnection, AnyPool, Row};

use super::{Backend, sql::Sql};

/// `name` with its case folded, as stored and searched.
pub(super) fn fold(name: &str) -> String {
    name.to_lowercase().replace('ς', "σ")
}

/// Records game `seq`'s folded player names (in the game's transaction).
pub(super) async fn index_players(
    conn: &mut AnyConnection,
    backend: Backend,
    seq: i64,
    white: &str,
    black: &str,
) -> Result<(), sqlx::Error> {
    let (white, black) = (fold(white), fold(black));
    let tables: &[&str] = match backend {
        Backend::Sqlite => &["game_names (game_seq", "game_names_trigrams (rowid"],
        Backend::Postgres => &["game_names (game_seq"],
    };
    for table in tables {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {table}, white, black) VALUES ($1, $2, $3)"
        )))
        .bind(seq)
        .bind(&white)
        .bind(&black)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Indexes game `seq`'s players again after a name changed (a player took
/// an open seat): `was` are the names as indexed until now.
pub(super) async fn reindex_players(
    conn: &mut AnyConnection,
    backend: Backend,
    seq: i64,
    was: (&str, &str),
    now: (&str, &str),
) -> Result<(), sqlx::Error> {
    let (white, black) = (fold(now.0), fold(now.1));
    sqlx::query("UPDATE game_names SET white = $2, black = $3 WHERE game_seq = $1")
        .bind(seq)
        .bind(&white)
        .bind(&black)
        .execute(&mut *conn)
        .await?;
    if backend == Backend::Sqlite {
        // A contentless FTS5 table forgets a row by its indexed text.
        sqlx::query(
            "INSERT INTO game_names_trigrams (game_names_trigrams, rowid, white, black) \
             VALUES ('delete', $1, $2, $3)",
        )
        .bind(seq)
        .bind(fold(was.0))
        .bind(fold(was.1))
        .execute(&mut *conn)
        .await?;
        sqlx::query("INSERT INTO game_names_trigrams (rowid, white, black) VALUES ($1, $2, $3)")
            .bind(seq)
            .bind(&white)
            .bind(&black)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Indexes the names of the games that have no `game_names` row yet:
/// those created before the table existed (games get theirs with their own
/// insert, in seq order, so they are the ones past its last row). Returns
/// how many. SQLite only (PostgreSQL stores began with the table).
pub(super) async fn index_missing_players(pool: &AnyPool) -> Result<u64, sqlx::Error> {
    /// Names written per statement (3 parameters each).
    const BATCH: usize = 1_000;
    let last: i64 = sqlx::query("SELECT coalesce(max(game_seq), 0) FROM game_names")
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
    for rows in missing.chunks(BATCH) {
        let mut insert = Sql::default();
        insert.push("INSERT INTO game_names (game_seq, white, black) VALUES ");
        for (i, row) in rows.iter().enumerate() {
            insert.push(if i == 0 { "(" } else { ", (" });
            insert.bind(row.get::<i64, _>(0)).push(", ");
            insert.bind(fold(row.get(1))).push(", ");
            insert.bind(fold(row.get(2))).push(")");
        }
        insert.build().execute(&mut *tx).await?;
    }
    sqlx::query(
        "INSERT INTO game_names_trigrams (rowid, white, black) \
         SELECT game_seq, white, black FROM game_names WHERE game_seq > $1",
    )
    .bind(last)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(missing.len() as u64)
}
