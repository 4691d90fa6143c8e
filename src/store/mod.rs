//! Persistence in SQLite through sqlx. Knows SQL and the stored shapes;
//! nothing of gRPC and nothing of the rules.

mod game_search;
mod games;
mod positions;

use std::{str::FromStr, time::Duration};

use sqlx::{
    SqlitePool,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
};

pub use games::{
    GameFilter, GameNotFound, NewGame, StoredClock, StoredEngine, StoredGame, StoredMove, Update,
};
pub use positions::{NewPosition, PositionFilter, StoredPosition};

/// A store error: the database failed (not the caller's fault).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
}

/// The database.
///
/// Reads go through a small pool; every write goes through one connection.
/// SQLite admits one writer at a time anyway, and writers that contend for
/// its lock wait in its busy handler, which sleeps (up to 100 ms a try);
/// queueing them on one pooled connection instead keeps write latency flat.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    writer: SqlitePool,
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
        Ok(Store { pool, writer })
    }

    /// Closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
        self.writer.close().await;
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
