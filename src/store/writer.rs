//! The write pool: write transactions that never outlive a failure,
//! whether the database can write now, and the probe that finds out when it
//! can again.
//!
//! SQLite may or may not roll a transaction back by itself after an error
//! (`SQLITE_FULL`, `SQLITE_IOERR` and `SQLITE_BUSY` on `COMMIT` leave it
//! open), so a connection whose transaction did not end cleanly is never
//! reused: it is detached from the pool and closed (which rolls back), and
//! the pool opens a fresh one. Handing it on would make the next `BEGIN` fail
//! or, worse, nest inside the stale transaction and "commit" nothing.

use std::{
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use sqlx::{Any, AnyConnection, AnyPool, pool::PoolConnection};
use tokio::{
    sync::{Notify, watch},
    task::AbortHandle,
};

use super::{Backend, StoreError, now_millis};

/// How often the probe tries to write while writes fail.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// The write pool and its health.
#[derive(Debug)]
pub(super) struct Writer {
    pub(super) pool: AnyPool,
    backend: Backend,
    /// True while writes succeed.
    writable: watch::Sender<bool>,
    /// Wakes the probe: a write failed.
    failed: Arc<Notify>,
    /// Write transactions begun.
    begun: AtomicU64,
    probe: Mutex<Option<AbortHandle>>,
}

impl Writer {
    /// The writer on `pool`, with its probe running in the background until
    /// [`Writer::stop_probe`] or the writer is dropped.
    pub(super) fn start(pool: AnyPool, backend: Backend) -> Arc<Writer> {
        let writer = Arc::new(Writer {
            pool,
            backend,
            writable: watch::Sender::new(true),
            failed: Arc::default(),
            begun: AtomicU64::new(0),
            probe: Mutex::new(None),
        });
        let probe = tokio::spawn(probe(
            Arc::downgrade(&writer),
            writer.failed.clone(),
            backend.idle_probe_interval(),
        ));
        *writer.probe.lock().unwrap_or_else(|e| e.into_inner()) = Some(probe.abort_handle());
        writer
    }

    /// Begins a write transaction (see [`Backend::begin_write`]).
    pub(super) async fn begin(&self) -> Result<WriteTx<'_>, StoreError> {
        self.begin_on(None).await
    }

    /// Begins a write transaction on `held`, a connection of this pool that
    /// a transaction ended on cleanly ([`WriteTx::commit_holding`]), or on
    /// one from the pool.
    pub(super) async fn begin_on(
        &self,
        held: Option<PoolConnection<Any>>,
    ) -> Result<WriteTx<'_>, StoreError> {
        self.begun.fetch_add(1, Ordering::Relaxed);
        let conn = match held {
            Some(conn) => conn,
            None => self.pool.acquire().await.inspect_err(|_| {
                self.failed.notify_one();
            })?,
        };
        let mut tx = WriteTx {
            conn: Some(conn),
            writer: self,
        };
        // On failure the dropped `tx` discards the connection.
        sqlx::raw_sql(self.backend.begin_write())
            .execute(tx.conn())
            .await?;
        Ok(tx)
    }

    pub(super) fn writable(&self) -> watch::Receiver<bool> {
        self.writable.subscribe()
    }

    pub(super) fn transactions(&self) -> u64 {
        self.begun.load(Ordering::Relaxed)
    }

    pub(super) fn stop_probe(&self) {
        if let Some(probe) = self.probe.lock().unwrap_or_else(|e| e.into_inner()).take() {
            probe.abort();
        }
    }

    /// The smallest real write: one row rewritten.
    async fn probe_write(&self) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        sqlx::query(
            "INSERT INTO write_probe (id, written_at) VALUES (1, $1) \
             ON CONFLICT (id) DO UPDATE SET written_at = excluded.written_at",
        )
        .bind(now_millis())
        .execute(tx.conn())
        .await?;
        tx.commit().await
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.stop_probe();
    }
}

/// After a failed write, writes until one succeeds, every
/// [`PROBE_INTERVAL`]; marks the store unwritable meanwhile. With `idle`, it
/// also writes after that long without a failure, so that a database gone
/// while nothing was written is noticed too. One task per store; it ends
/// with the writer.
async fn probe(writer: Weak<Writer>, failed: Arc<Notify>, idle: Option<Duration>) {
    loop {
        match idle {
            Some(idle) => drop(tokio::time::timeout(idle, failed.notified()).await),
            None => failed.notified().await,
        }
        loop {
            let Some(writer) = writer.upgrade() else {
                return;
            };
            match writer.probe_write().await {
                Ok(()) => break,
                Err(error) => {
                    if writer.writable.send_replace(false) {
                        tracing::error!(%error, "the database cannot write; retrying every second");
                    }
                }
            }
            drop(writer);
            tokio::time::sleep(PROBE_INTERVAL).await;
        }
    }
}

/// A write transaction on a connection of the write pool. It ends with
/// [`WriteTx::commit`]; dropped otherwise (an
/// error, a cancelled request), or if the commit fails, it discards its
/// connection and wakes the probe.
#[derive(Debug)]
pub(super) struct WriteTx<'w> {
    conn: Option<PoolConnection<Any>>,
    writer: &'w Writer,
}

impl WriteTx<'_> {
    /// The connection, to run the transaction's statements on.
    pub(super) fn conn(&mut self) -> &mut AnyConnection {
        self.conn
            .as_mut()
            .expect("a transaction has its connection until it ends")
    }

    /// Commits; only then is the write acknowledged.
    pub(super) async fn commit(self) -> Result<(), StoreError> {
        self.commit_batch(1).await
    }

    /// Rolls back what the transaction did (a write it decided against),
    /// keeping its connection for the pool.
    pub(super) async fn rollback(mut self) -> Result<(), StoreError> {
        sqlx::raw_sql("ROLLBACK").execute(self.conn()).await?;
        // Outside any transaction now: fit for the pool.
        drop(self.conn.take());
        Ok(())
    }

    /// Commits a transaction holding `changes` changes (a group commit).
    pub(super) async fn commit_batch(self, changes: usize) -> Result<(), StoreError> {
        self.commit_holding(changes).await.map(drop)
    }

    /// [`WriteTx::commit_batch`], keeping the connection for another
    /// transaction ([`Writer::begin_on`]): returned to the pool, a
    /// connection is tested on its way back and again on its way out, two
    /// round trips that write nothing.
    pub(super) async fn commit_holding(
        mut self,
        changes: usize,
    ) -> Result<PoolConnection<Any>, StoreError> {
        let started = std::time::Instant::now();
        let committed = sqlx::raw_sql("COMMIT").execute(self.conn()).await;
        // Failed commits too: a slow failing disk shows.
        metrics::histogram!("arbiter_store_commit_seconds").record(started.elapsed());
        metrics::histogram!("arbiter_store_commit_batch_size").record(changes as f64);
        committed?;
        // Outside any transaction now: fit for the pool or another one.
        let conn = self
            .conn
            .take()
            .expect("a transaction has its connection until it ends");
        self.writer.writable.send_if_modified(|writable| {
            let was = std::mem::replace(writable, true);
            if !was {
                tracing::info!("the database writes again");
            }
            !was
        });
        Ok(conn)
    }
}

impl Drop for WriteTx<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // Closing the detached connection rolls back what it left open.
            drop(conn.detach());
            self.writer.failed.notify_one();
        }
    }
}
