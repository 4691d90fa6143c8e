//! Group commit: game changes wait in a bounded queue; one task takes what
//! is queued (at most the batch size), writes each change in turn in one
//! transaction, commits once, and only then answers each caller. On
//! PostgreSQL there are several such queues and tasks (see
//! [`Backend::committers`]); a game's changes always go to the same one.
//! How a batch's statements are shaped is `store::batch`'s business.
//!
//! Nothing waits for a batch to fill: the task takes whatever is queued when
//! it is free, so a lone change is committed as soon as it arrives, and under
//! load the changes that queued during one commit share the next. Each change
//! is checked against the game's version (and the clock columns written
//! without one, see [`Base`]) in the same transaction: one that finds the game
//! changed since it was judged writes nothing and is answered
//! [`Written::Stale`], which never affects the rest of its batch (nor does
//! one whose lease is lost, answered [`StoreError::LeaseLost`]). A failed
//! statement or commit fails the whole batch: every caller in it gets the
//! error, and nothing of it is acknowledged.

use std::sync::{
    Arc, Weak,
    atomic::{AtomicUsize, Ordering},
};

use sqlx::{Any, pool::PoolConnection};
use tokio::sync::{mpsc, oneshot};

use super::{
    Backend, Fence, NewGame, StoreError, StoredGame, batch, games, now_millis, writer::Writer,
};

/// Changes that may wait for the writer at once, beyond which a caller
/// waits to queue.
pub const QUEUE_CAPACITY: usize = 4096;

/// Default most changes committed in one transaction.
pub const DEFAULT_BATCH_MAX: usize = 64;

/// A game change to write: the game as changed, what it was judged on, the
/// event to record, and what else the write needs.
#[derive(Clone, Debug)]
pub struct GameWrite {
    /// The game after the change (its version and time are set on writing).
    pub game: StoredGame,
    /// The stored state the change was judged on.
    pub base: Base,
    /// Event kind, e.g. `move`, `draw_offered`, `resigned`.
    pub event: &'static str,
    /// The side that caused it.
    pub side: Option<String>,
    /// Written only while this lease is held (an engine seat's move, by
    /// the game's owner), checked in the same transaction.
    pub fence: Option<Fence>,
    /// A game created with the change, both or neither (a rematch).
    pub creates: Option<NewGame>,
}

/// The stored state a change was judged on: the write goes through only if
/// the game is still there. Besides the version, the two clock columns an
/// engine seat's wait for a search slot sets without a new version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    pub version: i64,
    /// Moves stored.
    pub moves: usize,
    pub turn_started_at: Option<i64>,
    pub engine_waiting_ply: Option<i64>,
    /// White's and Black's names as stored (the name search follows them).
    pub names: (String, String),
}

impl GameWrite {
    /// Whether the change renames a player (whose names the search indexes).
    pub(super) fn renames(&self) -> bool {
        let (white, black) = &self.base.names;
        (white, black) != (&self.game.white_name, &self.game.black_name)
    }
}

impl Base {
    /// What `game`, as stored, is.
    pub fn of(game: &StoredGame) -> Base {
        Base {
            version: game.version,
            moves: game.moves.len(),
            turn_started_at: game.clock.map(|c| c.turn_started_at),
            engine_waiting_ply: game.clock.and_then(|c| c.engine_waiting_ply),
            names: (game.white_name.clone(), game.black_name.clone()),
        }
    }
}

/// How a change was written.
#[derive(Debug)]
pub enum Written {
    /// Committed: the game as stored now (its new version), and the game
    /// created with it.
    Committed {
        game: StoredGame,
        created: Option<Box<StoredGame>>,
    },
    /// The game changed after the change was judged: nothing was written;
    /// judge it again on the stored game.
    Stale(StoredGame),
}

/// What one change of a batch came to.
pub(super) enum Applied {
    Written {
        created: Option<Box<StoredGame>>,
    },
    /// The game is not as the change's base says.
    Stale,
    /// The change's fence names a lease no longer held.
    LeaseLost {
        shard: i64,
    },
}

struct Queued {
    write: GameWrite,
    answer: oneshot::Sender<Result<Written, StoreError>>,
}

/// The queues of game changes and the tasks that commit them, one a
/// queue: a game's changes always go to the same one.
#[derive(Debug)]
pub(super) struct Committer {
    queues: Vec<mpsc::Sender<Queued>>,
    batch_max: Arc<AtomicUsize>,
}

impl Committer {
    /// The committer writing through `writer`; its tasks end when the
    /// committer is dropped.
    pub(super) fn start(writer: &Arc<Writer>, backend: Backend) -> Committer {
        let batch_max = Arc::new(AtomicUsize::new(DEFAULT_BATCH_MAX));
        let committers = backend.committers();
        let queues = (0..committers)
            .map(|_| {
                let (queue, queued) = mpsc::channel(QUEUE_CAPACITY / committers);
                tokio::spawn(run(
                    Arc::downgrade(writer),
                    backend,
                    queued,
                    Arc::clone(&batch_max),
                ));
                queue
            })
            .collect();
        Committer { queues, batch_max }
    }

    pub(super) fn set_batch_max(&self, changes: usize) {
        self.batch_max.store(changes.max(1), Ordering::Relaxed);
    }

    /// Writes `write` in the next batch; answers once that batch is
    /// committed (or failed).
    pub(super) async fn write(&self, write: GameWrite) -> Result<Written, StoreError> {
        let (answer, answered) = oneshot::channel();
        let gone = || StoreError::Unavailable(sqlx::Error::PoolClosed);
        let queue = write.game.seq.unsigned_abs() as usize % self.queues.len();
        self.queues[queue]
            .send(Queued { write, answer })
            .await
            .map_err(|_| gone())?;
        answered.await.map_err(|_| gone())?
    }
}

/// Batches in a row that may keep the write connection while more changes
/// are queued, before it goes back to the pool for the other writers (games
/// created, positions saved), which wait for it meanwhile.
const BATCHES_HOLDING: usize = 8;

async fn run(
    writer: Weak<Writer>,
    backend: Backend,
    mut queued: mpsc::Receiver<Queued>,
    batch_max: Arc<AtomicUsize>,
) {
    let mut batch = Vec::new();
    let mut held = None;
    let mut holding = 0;
    while queued
        .recv_many(&mut batch, batch_max.load(Ordering::Relaxed))
        .await
        > 0
    {
        let Some(writer) = writer.upgrade() else {
            return;
        };
        let conn = commit(&writer, backend, std::mem::take(&mut batch), held.take()).await;
        holding += 1;
        if queued.is_empty() || holding >= BATCHES_HOLDING {
            holding = 0;
        } else {
            held = conn;
        }
    }
}

/// Writes and commits `batch` (on `held`, a connection the batch before
/// committed on, if given), then answers each of its callers; the
/// connection, if the batch committed.
async fn commit(
    writer: &Writer,
    backend: Backend,
    mut batch: Vec<Queued>,
    held: Option<PoolConnection<Any>>,
) -> Option<PoolConnection<Any>> {
    // One order of row locks for every server's batches (PostgreSQL): two
    // batches never wait for each other's rows. Stable, so that two changes
    // of one game keep their order.
    batch.sort_by_key(|q| q.write.game.seq);
    let size = batch.len();
    let written = async {
        let mut tx = writer.begin_on(held).await?;
        let now = now_millis();
        let mut writes: Vec<&mut GameWrite> = batch.iter_mut().map(|q| &mut q.write).collect();
        let applied = games::write_changes(tx.conn(), backend, &mut writes, now).await?;
        let written: Vec<&GameWrite> = batch
            .iter()
            .zip(&applied)
            .filter(|(_, applied)| matches!(applied, Applied::Written { .. }))
            .map(|(queued, _)| &queued.write)
            .collect();
        batch::write_records(tx.conn(), backend, &written, now).await?;
        let conn = tx.commit_holding(size).await?;
        Ok::<_, StoreError>((applied, conn))
    }
    .await;
    match written {
        Ok((applied, conn)) => {
            for (queued, applied) in batch.into_iter().zip(applied) {
                let game = queued.write.game;
                let written = match applied {
                    Applied::Written { created } => Ok(Written::Committed { game, created }),
                    Applied::Stale => Ok(Written::Stale(game)),
                    Applied::LeaseLost { shard } => Err(StoreError::LeaseLost { shard }),
                };
                drop(queued.answer.send(written));
            }
            Some(conn)
        }
        Err(error) => {
            for queued in batch {
                drop(queued.answer.send(Err(error.shared())));
            }
            None
        }
    }
}

impl StoreError {
    /// This error again, for one more caller of a failed batch: of the same
    /// kind, with the same message.
    fn shared(&self) -> StoreError {
        let again = sqlx::Error::Io(std::io::Error::other(self.to_string()));
        match self {
            StoreError::Unavailable(_) => StoreError::Unavailable(again),
            _ => StoreError::Database(again),
        }
    }
}
