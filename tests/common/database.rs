//! A fresh database for each test, on the backend the run asks for:
//! SQLite in a temporary directory (the default), or PostgreSQL with
//! `ARBITER_TEST_BACKEND=postgres`, a uniquely named database on the server
//! at `ARBITER_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`), dropped when the last
//! handle goes.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicU32, Ordering},
    },
    time::Duration,
};

use sqlx::{Connection, PgConnection};

/// The server the PostgreSQL tests create their databases on.
pub fn postgres_server_url() -> String {
    std::env::var("ARBITER_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// Does this run put the API tests on PostgreSQL?
pub fn backend_is_postgres() -> bool {
    match std::env::var("ARBITER_TEST_BACKEND").as_deref() {
        Ok("postgres") => true,
        Ok("sqlite") | Err(_) => false,
        Ok(other) => panic!("ARBITER_TEST_BACKEND={other}: expected sqlite or postgres"),
    }
}

/// A test database; clones share it.
#[derive(Clone, Debug)]
pub struct TestDatabase(Arc<Kind>);

#[derive(Debug)]
enum Kind {
    Sqlite {
        path: PathBuf,
        /// Removed with the last handle (`None`: the caller's file).
        _dir: Option<tempfile::TempDir>,
    },
    Postgres {
        name: String,
        url: String,
    },
}

impl TestDatabase {
    /// A fresh database on this run's backend.
    pub async fn fresh() -> TestDatabase {
        if backend_is_postgres() {
            TestDatabase::postgres()
                .await
                .unwrap_or_else(|e| panic!("ARBITER_TEST_BACKEND=postgres: {e}"))
        } else {
            let dir = tempfile::tempdir().expect("temp dir");
            TestDatabase(Arc::new(Kind::Sqlite {
                path: dir.path().join("arbiter.db"),
                _dir: Some(dir),
            }))
        }
    }

    /// The SQLite file at `path`, which the caller keeps.
    pub fn sqlite_file(path: &Path) -> TestDatabase {
        TestDatabase(Arc::new(Kind::Sqlite {
            path: path.to_owned(),
            _dir: None,
        }))
    }

    /// A fresh PostgreSQL database, or why there is none (the server does
    /// not answer).
    pub async fn postgres() -> Result<TestDatabase, String> {
        static CREATED: AtomicU32 = AtomicU32::new(0);
        let server = postgres_server_url();
        let mut admin = connect(&server).await?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let name = format!(
            "arbiter_test_{}_{}_{nanos}",
            std::process::id(),
            CREATED.fetch_add(1, Ordering::Relaxed)
        );
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut admin)
            .await
            .map_err(|e| format!("cannot create a database on {server}: {e}"))?;
        let _ = admin.close().await;
        let url = match server.rsplit_once('/') {
            Some((base, _)) => format!("{base}/{name}"),
            None => panic!("ARBITER_TEST_POSTGRES_URL={server} names no database"),
        };
        Ok(TestDatabase(Arc::new(Kind::Postgres { name, url })))
    }

    /// `--database-url` for it.
    pub fn url(&self) -> String {
        match &*self.0 {
            Kind::Sqlite { path, .. } => format!("sqlite://{}", path.display()),
            Kind::Postgres { url, .. } => url.clone(),
        }
    }

    /// The SQLite file (for tests that reach into SQLite itself).
    pub fn path(&self) -> &Path {
        match &*self.0 {
            Kind::Sqlite { path, .. } => path,
            Kind::Postgres { .. } => panic!("this test reaches into SQLite: run it on SQLite"),
        }
    }

    /// A pool of its own on it, to read what the server stored (SQL that
    /// both backends read: `$1` parameters).
    pub async fn pool(&self) -> sqlx::AnyPool {
        sqlx::any::install_default_drivers();
        sqlx::AnyPool::connect(&self.url()).await.unwrap()
    }

    pub fn is_postgres(&self) -> bool {
        matches!(&*self.0, Kind::Postgres { .. })
    }
}

/// Connects to the PostgreSQL server at `url`, or says why not.
async fn connect(url: &str) -> Result<PgConnection, String> {
    match tokio::time::timeout(Duration::from_secs(5), PgConnection::connect(url)).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(e)) => Err(format!("PostgreSQL at {url} does not answer: {e}")),
        Err(_) => Err(format!("PostgreSQL at {url} does not answer within 5 s")),
    }
}

impl Drop for Kind {
    fn drop(&mut self) {
        let Kind::Postgres { name, .. } = self else {
            return;
        };
        // Drop may run inside a runtime (which cannot block on itself): drop
        // the database from a thread of its own.
        let name = std::mem::take(name);
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let mut admin = connect(&postgres_server_url()).await?;
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut admin)
                .await
                .map_err(|e| e.to_string())?;
                let _ = admin.close().await;
                Ok::<_, String>(())
            })
        })
        .join();
        if let Ok(Err(e)) = dropped {
            eprintln!("could not drop a test database: {e}");
        }
    }
}

/// For tests that need PostgreSQL whatever the run's backend: a fresh
/// database, or `None` after saying why the test is skipped, when no server
/// answers. Under `CI=true` nothing is skipped: no server fails the test.
pub async fn postgres_or_skip(test: &str) -> Option<TestDatabase> {
    match TestDatabase::postgres().await {
        Ok(db) => Some(db),
        Err(why) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!(
                "skipped {test}: {why} (set ARBITER_TEST_POSTGRES_URL; CI=true fails instead)"
            );
            None
        }
        Err(why) => panic!("{test} needs PostgreSQL: {why}"),
    }
}
