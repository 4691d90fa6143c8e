//! Persistence in SQLite or PostgreSQL through sqlx. Knows SQL and the
//! stored shapes; nothing of gRPC and nothing of the rules.
//!
//! Both backends run the same statements through sqlx's `Any` driver
//! (placeholders are `$1`, `$2`, ..., which both read); where their SQL
//! differs, [`Backend`] says how. Each has its own migrations
//! (`migrations/sqlite`, `migrations/postgres`) to the same tables.

mod analyses;
mod backend;
mod challenges;
mod changes;
mod chat;
mod commit;
mod earlier_games;
mod events;
mod game_search;
mod games;
mod holds;
mod imports;
mod leases;
mod names;
mod player_log;
mod players;
mod positions;
mod presence;
mod ratings;
mod rows;
mod seeks;
mod sql;
#[cfg(test)]
pub(crate) mod testing;
mod write;
mod writer;

use std::{sync::Arc, time::Duration};

use sqlx::{AnyPool, Connection, any::AnyPoolOptions};
use tokio::sync::watch;

pub use analyses::StoredPositionAnalysis;
pub use backend::{Backend, DatabaseUrl, DatabaseUrlError};
pub use challenges::{
    Acceptance, ChallengeAnswered, ChallengeState, ParseChallengeStateError, StoredChallenge,
    TooManyChallenges,
};
pub use changes::{Change, RECONNECTS as LISTENER_RECONNECTS};
pub use chat::{ChatRoom, StoredChatLine};
pub use commit::{DEFAULT_BATCH_MAX, QUEUE_CAPACITY};
pub use earlier_games::{EarlierGame, EarlierIndex, EarlierWindow};
pub use events::History;
pub use imports::{ImportedGame, Stored};
pub use leases::{Fence, Lease, shard_of};
pub use player_log::{Logged, LoggedEvent};
pub use players::{PlayerOrigin, StoredPlayer, UsernameTaken};
pub use positions::{NewPosition, PositionFilter, StoredPosition};
pub use presence::StoredPresence;
pub use ratings::{Ranked, RateGame, RatedEnd, RatingChange, StoredRating};
pub use rows::{
    GameFilter, GameHead, GameNotFound, OpenSeat, OpeningFilter, OpeningLevel, StoredClock,
    StoredEngine, StoredGame, StoredMove, StoredOpening, StoredRematch, StoredRoster, Update,
};
pub use seeks::{Pairing, SeekGone, StoredSeek, TooManySeeks};
pub use write::{Base, GameWrite, Written};

/// The settings of every SQLite connection: WAL, a commit flushed before it
/// is answered, foreign keys, and a wait for a lock held by another
/// connection.
pub const SQLITE_SETTINGS: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
                                   PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000";

/// How long the store waits at start-up for the database to answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A store error: the database failed (not the caller's fault).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot serve the request now but may soon: a full disk,
    /// an I/O error, a lock held too long, no connection to be had, a
    /// server shutting down. Nothing was written; retrying later is right.
    #[error("the database is unavailable: {0}")]
    Unavailable(sqlx::Error),
    /// Anything else: stored data that does not read back, a failed
    /// constraint (a bug).
    #[error("database error: {0}")]
    Database(sqlx::Error),
    /// A write only the owner of the game's shard may make was refused:
    /// this process no longer holds that lease (another took it over).
    #[error("the lease on shard {shard} is no longer held")]
    LeaseLost { shard: i64 },
    #[error("database migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// `--database-url` names no database Arbiter can use.
    #[error(transparent)]
    Url(#[from] DatabaseUrlError),
    /// The database named by the URL could not be reached or opened at
    /// start-up.
    #[error("cannot open the database {url}: {source}")]
    Open {
        /// The URL, its password masked.
        url: String,
        source: sqlx::Error,
    },
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if backend::is_unavailable(&e) {
            StoreError::Unavailable(e)
        } else {
            StoreError::Database(e)
        }
    }
}

/// The database.
///
/// Reads go through a pool; writes through a pool of their own (see
/// [`writer`]), game changes grouped into shared transactions (see
/// [`commit`]): one connection on SQLite, which admits one writer at a time
/// anyway (writers that contend for its lock sleep in its busy handler, up
/// to 100 ms a try; queueing them on one connection keeps latency flat), and
/// several on PostgreSQL. Every game write checks, in its transaction, the
/// version it was judged on, so two writers of one game cannot both win,
/// whichever process they are in.
///
/// A write that fails leaves nothing behind: its connection is replaced, and
/// while writes keep failing the store says so ([`Store::writable`]) and
/// retries a small write every second until one succeeds.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    writer: Arc<writer::Writer>,
    /// Game changes wait here for the writer (see [`commit`]).
    committer: Arc<commit::Committer>,
    backend: Backend,
    url: Arc<DatabaseUrl>,
    /// Changes any process made (PostgreSQL only).
    feed: Option<Arc<changes::Feed>>,
}

/// A page of results and the cursor of the next one.
#[derive(Clone, Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Pass as `before` to get the next page; `None` on the last page.
    pub next: Option<i64>,
}

impl Store {
    /// Opens the database at `url` and applies its migrations:
    /// `sqlite://arbiter.db` (created if missing), `sqlite::memory:`, or
    /// `postgres://user:password@host:port/database`.
    ///
    /// Every acknowledged write is durable: SQLite runs in WAL mode with
    /// `synchronous = FULL`; PostgreSQL answers a commit once it is flushed
    /// (its default, `synchronous_commit = on`). An in-memory SQLite
    /// database lives in the one writer connection: a write that fails takes
    /// it along (use it for throwaway runs only). Several processes may open
    /// one PostgreSQL database at once; its migrations run under a lock.
    ///
    /// # Errors
    ///
    /// The URL is malformed or of an unknown kind ([`StoreError::Url`]), the
    /// database cannot be reached or opened ([`StoreError::Open`]), or it
    /// cannot be migrated.
    pub async fn connect(url: &str) -> Result<Store, StoreError> {
        let url = DatabaseUrl::parse(url)?;
        sqlx::any::install_default_drivers();
        let backend = url.backend();
        let open = |source| StoreError::Open {
            url: url.masked(),
            source,
        };
        // One connection first, for its own error: a pool that cannot
        // connect only says that it timed out.
        let first = tokio::time::timeout(
            CONNECT_TIMEOUT,
            sqlx::AnyConnection::connect(&url.connect_url()),
        )
        .await
        .unwrap_or_else(|_| {
            Err(sqlx::Error::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
            )))
        })
        .map_err(open)?;
        first.close().await.map_err(open)?;
        let writer = backend
            .pool_options(backend.writer_connections())
            .connect(&url.connect_url())
            .await
            .map_err(open)?;
        backend.migrate(&writer).await?;
        if backend == Backend::Sqlite {
            Store::forget_presence(&writer).await.map_err(open)?;
            let indexed = names::index_missing_players(&writer).await?;
            if indexed > 0 {
                tracing::info!(games = indexed, "player names indexed for search");
            }
        }
        // An in-memory database exists per connection: share the writer.
        let pool = if url.is_in_memory() {
            writer.clone()
        } else {
            backend
                .pool_options(backend.reader_connections())
                .connect(&url.connect_url())
                .await
                .map_err(open)?
        };
        let feed = match backend {
            Backend::Sqlite => None,
            Backend::Postgres => Some(Arc::new(
                changes::listen(&url.connect_url()).await.map_err(open)?,
            )),
        };
        let writer = writer::Writer::start(writer, backend);
        Ok(Store {
            pool,
            committer: Arc::new(commit::Committer::start(&writer, backend)),
            writer,
            backend,
            url: Arc::new(url),
            feed,
        })
    }

    /// The database's URL (shown with its password masked).
    pub fn url(&self) -> &DatabaseUrl {
        &self.url
    }

    /// The feed of game changes made by any process on the database, for
    /// the one caller that takes it; `None` on SQLite (one process makes
    /// every change) and once taken.
    pub fn changes(&self) -> Option<tokio::sync::mpsc::Receiver<Change>> {
        self.feed.as_ref()?.take()
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

    /// Commits at most `changes` game changes in one transaction (default
    /// [`DEFAULT_BATCH_MAX`]).
    pub fn set_write_batch_max(&self, changes: usize) {
        self.committer.set_batch_max(changes);
    }

    /// Has [`Store::close`] been called?
    pub fn is_closed(&self) -> bool {
        self.writer.pool.is_closed()
    }

    /// Stops the probe and closes every connection.
    pub async fn close(&self) {
        self.writer.stop_probe();
        if let Some(feed) = &self.feed {
            feed.stop();
        }
        self.pool.close().await;
        self.writer.pool.close().await;
    }
}

impl Backend {
    /// Pool options for `connections` connections, each set up as the
    /// store needs it.
    fn pool_options(self, connections: u32) -> AnyPoolOptions {
        let options = AnyPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(self.acquire_timeout());
        match self {
            // sqlx's `Any` driver takes SQLite's settings from the URL only,
            // and these have no URL form.
            Backend::Sqlite => options.after_connect(|conn, _| {
                Box::pin(
                    async move { sqlx::raw_sql(SQLITE_SETTINGS).execute(conn).await.map(drop) },
                )
            }),
            Backend::Postgres => options,
        }
    }

    /// How long a request waits for a connection: on SQLite, the queue for
    /// the one writer; on PostgreSQL, a server that may be down, which a
    /// caller should hear of soon.
    fn acquire_timeout(self) -> Duration {
        match self {
            Backend::Sqlite => Duration::from_secs(30),
            Backend::Postgres => Duration::from_secs(5),
        }
    }

    async fn migrate(self, pool: &AnyPool) -> Result<(), StoreError> {
        match self {
            Backend::Sqlite => sqlx::migrate!("./migrations/sqlite").run(pool).await?,
            Backend::Postgres => sqlx::migrate!("./migrations/postgres").run(pool).await?,
        }
        Ok(())
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
        let broken = || sqlx::Error::Protocol("expected 5 bytes, got 0 at EOF".into());
        for e in [sqlx::Error::PoolTimedOut, sqlx::Error::PoolClosed, broken()] {
            assert!(matches!(StoreError::from(e), StoreError::Unavailable(_)));
        }
        for e in [sqlx::Error::RowNotFound, sqlx::Error::BeginFailed] {
            assert!(matches!(StoreError::from(e), StoreError::Database(_)));
        }
    }

    #[tokio::test]
    async fn a_failed_write_leaves_no_transaction_behind() {
        let store = crate::store::testing::store().await;
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
