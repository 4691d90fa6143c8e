//! Persistence in SQLite through sqlx. Knows SQL and the stored shapes;
//! nothing of gRPC and nothing of the rules.

mod game_search;
mod games;
mod positions;
mod writer;

use std::{str::FromStr, sync::Arc, time::Duration};

use sqlx::{
    SqlitePool,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
};
use tokio::sync::watch;

pub use games::{
    GameFilter, GameHead, GameNotFound, NewGame, StoredClock, StoredEngine, StoredGame, StoredMove,
    Update,
};
pub use positions::{NewPosition, PositionFilter, StoredPosition};

/// A store error: the database failed (not the caller's fault).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot serve the request now but may soon: a full disk,
    /// an I/O error, a lock held too long, no connection to be had. Nothing
    /// was written; retrying later is right.
    #[error("the database is unavailable: {0}")]
    Unavailable(sqlx::Error),
    /// Anything else: stored data that does not read back, a failed
    /// constraint (a bug).
    #[error("database error: {0}")]
    Database(sqlx::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if is_unavailable(&e) {
            StoreError::Unavailable(e)
        } else {
            StoreError::Database(e)
        }
    }
}

/// Does `e` mean the database cannot be used now, rather than that
/// something is wrong with the data or the statement?
fn is_unavailable(e: &sqlx::Error) -> bool {
    // Primary result codes (https://sqlite.org/rescode.html); sqlx reports
    // the extended code, whose low byte is the primary one.
    const BUSY: i32 = 5;
    const LOCKED: i32 = 6;
    const NOMEM: i32 = 7;
    const READONLY: i32 = 8;
    const IOERR: i32 = 10;
    const FULL: i32 = 13;
    const CANTOPEN: i32 = 14;
    const PROTOCOL: i32 = 15;
    match e {
        sqlx::Error::Database(db) => db
            .code()
            .and_then(|code| code.parse::<i32>().ok())
            .is_some_and(|code| {
                matches!(
                    code & 0xff,
                    BUSY | LOCKED | NOMEM | READONLY | IOERR | FULL | CANTOPEN | PROTOCOL
                )
            }),
        sqlx::Error::Io(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        _ => false,
    }
}

/// The database.
///
/// Reads go through a small pool; every write goes through one connection.
/// SQLite admits one writer at a time anyway, and writers that contend for
/// its lock wait in its busy handler, which sleeps (up to 100 ms a try);
/// queueing them on one pooled connection instead keeps write latency flat.
///
/// A write that fails leaves nothing behind: its connection is replaced, and
/// while writes keep failing the store says so ([`Store::writable`]) and
/// retries a small write every second until one succeeds.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    writer: Arc<writer::Writer>,
}

/// A page of results and the cursor of the next one.
#[derive(Clone, Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Pass as `before` to get the next page; `None` on the last page.
    pub next: Option<i64>,
}

impl Store {
    /// Opens (creating if missing) the database at `url`, e.g.
    /// `sqlite://arbiter.db` or `sqlite::memory:`, and applies migrations.
    ///
    /// Every acknowledged write is durable: WAL with `synchronous = FULL`.
    /// An in-memory database lives in the one writer connection: a write
    /// that fails takes it along (use it for throwaway runs only).
    ///
    /// # Errors
    ///
    /// The database cannot be opened or migrated.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("./migrations").run(&writer).await?;
        let indexed = game_search::index_missing_players(&mut *writer.acquire().await?).await?;
        if indexed > 0 {
            tracing::info!(games = indexed, "player names indexed for search");
        }
        // An in-memory database exists per connection: share the writer.
        let pool = if url.contains(":memory:") {
            writer.clone()
        } else {
            SqlitePoolOptions::new()
                .max_connections(4)
                .connect_with(options)
                .await?
        };
        Ok(Store {
            pool,
            writer: writer::Writer::start(writer),
        })
    }

    /// Whether writes succeed now; it changes when a write fails and when
    /// one succeeds again.
    pub fn writable(&self) -> watch::Receiver<bool> {
        self.writer.writable()
    }

    /// Write transactions begun since the store opened (for tests and
    /// monitoring).
    pub fn write_transactions(&self) -> u64 {
        self.writer.transactions()
    }

    /// Has [`Store::close`] been called?
    pub fn is_closed(&self) -> bool {
        self.writer.pool.is_closed()
    }

    /// Stops the probe and closes every connection.
    pub async fn close(&self) {
        self.writer.stop_probe();
        self.pool.close().await;
        self.writer.pool.close().await;
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_that_cannot_serve_now_is_unavailable_not_broken() {
        for e in [sqlx::Error::PoolTimedOut, sqlx::Error::PoolClosed] {
            assert!(matches!(StoreError::from(e), StoreError::Unavailable(_)));
        }
        for e in [sqlx::Error::RowNotFound, sqlx::Error::BeginFailed] {
            assert!(matches!(StoreError::from(e), StoreError::Database(_)));
        }
    }

    #[tokio::test]
    async fn a_failed_write_leaves_no_transaction_behind() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("w.db").display());
        let store = Store::connect(&url).await.unwrap();
        // A statement fails inside the transaction; the transaction is
        // dropped without COMMIT or ROLLBACK.
        {
            let mut tx = store.writer.begin().await.unwrap();
            assert!(
                sqlx::query("INSERT INTO no_such_table VALUES (1)")
                    .execute(tx.conn())
                    .await
                    .is_err()
            );
        }
        // The next write starts a transaction of its own (on a connection
        // still inside the old one, `BEGIN` would fail) and commits it.
        let mut tx = store.writer.begin().await.unwrap();
        sqlx::raw_sql("CREATE TABLE scratch (x INTEGER); INSERT INTO scratch VALUES (7)")
            .execute(tx.conn())
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let x: i64 = sqlx::query_scalar("SELECT x FROM scratch")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(x, 7);
        store.close().await;
    }
}
