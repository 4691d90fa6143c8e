//! `raw-commit`: one-row INSERT transactions to a scratch table, no gRPC:
//! the commit rate of a database with the store's settings, to compare
//! `make-move` with in the same run.
//!
//! The settings are the store's (`src/store/mod.rs`, `Backend::pool_options`;
//! `src/store/backend.rs`): sqlx's `Any` driver; SQLite in WAL mode with
//! `synchronous = FULL`, one writer connection that every task queues on,
//! each transaction begun with `BEGIN IMMEDIATE`; PostgreSQL with its default
//! `synchronous_commit = on`, one connection per task.

use std::{
    fmt,
    sync::{
        Arc,
        atomic::{AtomicI64, Ordering},
    },
    time::Duration,
};

use arbiter::store::{Backend, DatabaseUrl, SQLITE_SETTINGS, now_millis};
use sqlx::{AnyPool, AssertSqlSafe, any::AnyPoolOptions};
use tonic::Status;

use crate::{Fatal, describe};

/// How long a task waits for the connection (SQLite: the queue for the one
/// writer).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(30);

/// The database of `--raw-database` and the scratch table the tool made in
/// it.
pub struct ScratchDatabase {
    url: DatabaseUrl,
    /// The URL to connect with (a SQLite file is created if missing).
    connect_url: String,
    table: String,
    /// The next row's id, shared by every run.
    next_id: Arc<AtomicI64>,
}

impl ScratchDatabase {
    /// Checks `url`, then creates the scratch table (named after this
    /// process, so that two tools on one database do not meet).
    ///
    /// # Errors
    ///
    /// The URL is not a SQLite or PostgreSQL one, or the table cannot be
    /// created.
    pub async fn create(given: &str) -> Result<ScratchDatabase, Fatal> {
        let url = DatabaseUrl::parse(given)
            .map_err(|err| Fatal(format!("invalid --raw-database: {err}")))?;
        if given.contains(":memory:") {
            return Err(Fatal(
                "--raw-database must be a file or a server: an in-memory database is not \
                 written to disk"
                    .into(),
            ));
        }
        sqlx::any::install_default_drivers();
        // `url` shows only masked: connect with what was given.
        let connect_url = match url.backend() {
            Backend::Sqlite if !given.contains("mode=") => {
                let separator = if given.contains('?') { '&' } else { '?' };
                format!("{given}{separator}mode=rwc")
            }
            _ => given.to_owned(),
        };
        let scratch = ScratchDatabase {
            url,
            connect_url,
            table: format!("arbiter_load_scratch_{}", std::process::id()),
            next_id: Arc::default(),
        };
        scratch
            .execute(&format!(
                "CREATE TABLE {} (id BIGINT PRIMARY KEY, written_at BIGINT NOT NULL)",
                scratch.table
            ))
            .await?;
        Ok(scratch)
    }

    /// The kind of database.
    pub fn backend(&self) -> Backend {
        self.url.backend()
    }

    /// Database connections for `tasks` tasks: SQLite's one writer, or one
    /// each on PostgreSQL.
    pub fn connections(&self, tasks: usize) -> usize {
        match self.backend() {
            Backend::Sqlite => 1,
            Backend::Postgres => tasks,
        }
    }

    /// Opens the connections of a run of `tasks` tasks; each task's
    /// [`Committer`] shares them.
    ///
    /// # Errors
    ///
    /// The database cannot be reached.
    pub async fn committers(&self, tasks: usize) -> Result<Vec<Committer>, Fatal> {
        let connections = u32::try_from(self.connections(tasks)).unwrap_or(u32::MAX);
        let pool = self.pool(connections).await?;
        let insert: Arc<str> = format!(
            "INSERT INTO {} (id, written_at) VALUES ($1, $2)",
            self.table
        )
        .into();
        Ok((0..tasks)
            .map(|_| Committer {
                pool: pool.clone(),
                begin: match self.backend() {
                    Backend::Sqlite => "BEGIN IMMEDIATE",
                    Backend::Postgres => "BEGIN",
                },
                insert: Arc::clone(&insert),
                next_id: Arc::clone(&self.next_id),
            })
            .collect())
    }

    /// Drops the scratch table.
    ///
    /// # Errors
    ///
    /// The database cannot be reached.
    pub async fn drop_table(self) -> Result<(), Fatal> {
        self.execute(&format!("DROP TABLE {}", self.table)).await
    }

    async fn pool(&self, connections: u32) -> Result<AnyPool, Fatal> {
        let options = AnyPoolOptions::new()
            .max_connections(connections)
            .min_connections(connections)
            .acquire_timeout(ACQUIRE_TIMEOUT);
        let options = match self.backend() {
            Backend::Sqlite => options.after_connect(|conn, _| {
                Box::pin(
                    async move { sqlx::raw_sql(SQLITE_SETTINGS).execute(conn).await.map(drop) },
                )
            }),
            Backend::Postgres => options,
        };
        options
            .connect(&self.connect_url)
            .await
            .map_err(|err| Fatal(format!("cannot open {}: {}", self.url, describe(&err))))
    }

    /// Runs one statement outside the measured runs.
    async fn execute(&self, statement: &str) -> Result<(), Fatal> {
        let pool = self.pool(1).await?;
        // The statements name the table this tool made up.
        let result = sqlx::raw_sql(AssertSqlSafe(statement.to_owned()))
            .execute(&pool)
            .await;
        pool.close().await;
        result.map(drop).map_err(|err| {
            Fatal(format!(
                "{statement} on {} failed: {}",
                self.url,
                describe(&err)
            ))
        })
    }
}

impl fmt::Display for ScratchDatabase {
    /// The database, its password masked.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.url.fmt(f)
    }
}

/// One task's side of a `raw-commit` run.
pub struct Committer {
    pool: AnyPool,
    begin: &'static str,
    insert: Arc<str>,
    next_id: Arc<AtomicI64>,
}

impl Committer {
    /// One transaction inserting one row, committed. A connection whose
    /// transaction failed is closed (which rolls it back), as the store
    /// does, so the next one starts clean.
    pub async fn commit(&self) -> Result<(), Status> {
        let failed = |err: sqlx::Error| Status::unavailable(describe(&err));
        let mut conn = self.pool.acquire().await.map_err(failed)?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let result = async {
            sqlx::raw_sql(self.begin).execute(&mut *conn).await?;
            sqlx::query(AssertSqlSafe(Arc::clone(&self.insert)))
                .bind(id)
                .bind(now_millis())
                .execute(&mut *conn)
                .await?;
            sqlx::raw_sql("COMMIT").execute(&mut *conn).await
        }
        .await;
        if let Err(err) = result {
            drop(conn.detach());
            return Err(failed(err));
        }
        Ok(())
    }
}
