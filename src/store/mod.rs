//! Persistence in SQLite through sqlx. Knows SQL and the stored shapes;
//! nothing of gRPC and nothing of the rules.

mod games;
mod positions;

use std::{str::FromStr, time::Duration};

use sqlx::{
    SqlitePool,
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
};

pub use games::{GameFilter, GameNotFound, NewGame, StoredGame, StoredMove, Update};
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
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
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
        // An in-memory database exists per connection: keep exactly one.
        let max = if url.contains(":memory:") { 1 } else { 4 };
        let pool = SqlitePoolOptions::new()
            .max_connections(max)
            .connect_with(options)
            .await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        Ok(Store { pool })
    }

    /// Closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
