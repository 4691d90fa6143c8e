//! A store for unit tests on the backend the run asks for: SQLite in a
//! temporary directory (the default), or with
//! `ARBITER_TEST_BACKEND=postgres` a fresh database on the server at
//! `ARBITER_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`), dropped with the store.

use std::{
    ops::Deref,
    sync::atomic::{AtomicU32, Ordering},
};

use sqlx::{Connection, PgConnection};

use super::Store;

/// A store on a fresh database, removed when dropped.
pub struct TestStore {
    store: Store,
    _dir: Option<tempfile::TempDir>,
    database: Option<String>,
}

impl Deref for TestStore {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

fn server_url() -> String {
    std::env::var("ARBITER_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A fresh store on this run's backend.
pub async fn store() -> TestStore {
    match std::env::var("ARBITER_TEST_BACKEND").as_deref() {
        Ok("postgres") => postgres().await,
        Ok("sqlite") | Err(_) => {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite://{}", dir.path().join("unit.db").display());
            TestStore {
                store: Store::connect(&url).await.unwrap(),
                _dir: Some(dir),
                database: None,
            }
        }
        Ok(other) => panic!("ARBITER_TEST_BACKEND={other}: expected sqlite or postgres"),
    }
}

async fn postgres() -> TestStore {
    static CREATED: AtomicU32 = AtomicU32::new(0);
    let server = server_url();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let name = format!(
        "arbiter_unit_{}_{}_{nanos}",
        std::process::id(),
        CREATED.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = PgConnection::connect(&server).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .unwrap();
    let _ = admin.close().await;
    let (base, _) = server.rsplit_once('/').expect("the URL names a database");
    TestStore {
        store: Store::connect(&format!("{base}/{name}")).await.unwrap(),
        _dir: None,
        database: Some(name),
    }
}

impl Drop for TestStore {
    fn drop(&mut self) {
        let Some(name) = self.database.take() else {
            return;
        };
        // Drop runs inside the test's runtime, which cannot block on
        // itself: the database is dropped from a thread of its own.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let mut admin = PgConnection::connect(&server_url()).await.ok()?;
                let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
                    .execute(&mut admin)
                    .await
                    .ok()
            })
        })
        .join();
    }
}
