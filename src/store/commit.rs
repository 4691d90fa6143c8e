//! Group commit: game changes, and on SQLite games to create (see
//! [`Backend::batches_creates`]), wait in a bounded queue; one task takes
//! what is queued (at most the batch size), writes each in turn in one
//! transaction, commits once, and only then answers each caller. On
//! PostgreSQL there are several such queues and tasks (see
//! [`Backend::committers`]); a game's changes always go to the same one. A
//! game to create whose id or join code another game has already (the odds
//! are nil but not zero) is refused alone, with a database error.
//! What a batch writes, and how its statements are shaped, is
//! `store::write`'s business.
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
    Backend, StoreError, StoredGame, names, now_millis,
    player_log::{Log, Logged},
    write::{self, Applied, GameWrite, Written},
    writer::Writer,
};

/// Changes that may wait for the writer at once, beyond which a caller
/// waits to queue.
pub const QUEUE_CAPACITY: usize = 4096;

/// Default most changes committed in one transaction.
pub const DEFAULT_BATCH_MAX: usize = 64;

/// A write waiting for its batch, and where its caller waits for the answer
/// (boxed: the queue's slots stay small).
enum Queued {
    Change {
        write: Box<GameWrite>,
        answer: oneshot::Sender<Result<Written, StoreError>>,
    },
    Create {
        new: Box<StoredGame>,
        answer: oneshot::Sender<Result<StoredGame, StoreError>>,
    },
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
        let queue = write.game.seq.unsigned_abs() as usize;
        let write = Box::new(write);
        self.queue(queue, Queued::Change { write, answer }).await?;
        answered.await.map_err(|_| gone())?
    }

    /// Creates `new` in the next batch; answers once that batch is
    /// committed (or failed).
    pub(super) async fn create(&self, new: StoredGame) -> Result<StoredGame, StoreError> {
        let (answer, answered) = oneshot::channel();
        // Any queue will do: nothing else of the game is queued yet.
        let new = Box::new(new);
        self.queue(0, Queued::Create { new, answer }).await?;
        answered.await.map_err(|_| gone())?
    }

    async fn queue(&self, queue: usize, queued: Queued) -> Result<(), StoreError> {
        self.queues[queue % self.queues.len()]
            .send(queued)
            .await
            .map_err(|_| gone())
    }
}

/// The committer has stopped (the store is closing).
fn gone() -> StoreError {
    StoreError::Unavailable(sqlx::Error::PoolClosed)
}

/// Batches in a row that may keep the write connection while more changes
/// are queued, before it goes back to the pool for the other writers
/// (positions saved, an engine seat's wait), which wait for it meanwhile.
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
    batch: Vec<Queued>,
    held: Option<PoolConnection<Any>>,
) -> Option<PoolConnection<Any>> {
    let size = batch.len();
    let mut changes = Vec::with_capacity(size);
    let mut creates = Vec::new();
    let mut created_answers = Vec::new();
    for queued in batch {
        match queued {
            Queued::Change { write, answer } => changes.push((*write, answer)),
            Queued::Create { new, answer } => {
                created_answers.push(answer);
                creates.push(new);
            }
        }
    }
    // One order of row locks for every server's batches (PostgreSQL): two
    // batches never wait for each other's rows. Stable, so that two changes
    // of one game keep their order. New games lock no row of another, and
    // the new players' names are added first, in order (see `names`).
    changes.sort_by_key(|(write, _)| write.game.seq);
    let written = async {
        let mut tx = writer.begin_on(held).await?;
        let now = now_millis();
        names::remember(
            tx.conn(),
            creates
                .iter()
                .flat_map(|new| [new.white_name.as_str(), new.black_name.as_str()]),
        )
        .await?;
        let mut created = Vec::with_capacity(creates.len());
        for new in creates {
            created.push(write::insert_game_in(tx.conn(), backend, *new).await?);
        }
        let mut writes: Vec<&mut GameWrite> = changes.iter_mut().map(|(write, _)| write).collect();
        let applied = write::write_changes(tx.conn(), backend, &mut writes, now).await?;
        let written: Vec<&GameWrite> = changes
            .iter()
            .zip(&applied)
            .filter(|(_, applied)| matches!(applied, Applied::Written { .. }))
            .map(|((write, _), _)| write)
            .collect();
        write::write_records(tx.conn(), backend, &written, now).await?;
        logged_for_players(&created, &changes, &applied)
            .append(tx.conn(), backend)
            .await?;
        let conn = tx.commit_holding(size).await?;
        Ok::<_, StoreError>((created, applied, conn))
    }
    .await;
    match written {
        Ok((created, applied, conn)) => {
            for (answer, created) in created_answers.into_iter().zip(created) {
                drop(answer.send(created));
            }
            for ((write, answer), applied) in changes.into_iter().zip(applied) {
                let game = write.game;
                let written = match applied {
                    Applied::Written { created } => Ok(Written::Committed { game, created }),
                    Applied::Stale => Ok(Written::Stale(game)),
                    Applied::LeaseLost { shard } => Err(StoreError::LeaseLost { shard }),
                };
                drop(answer.send(written));
            }
            Some(conn)
        }
        Err(error) => {
            for answer in created_answers {
                drop(answer.send(Err(error.shared())));
            }
            for (_, answer) in changes {
                drop(answer.send(Err(error.shared())));
            }
            None
        }
    }
}

/// What a batch logs for players: the games it created (those created
/// with a change too) started, and the games its changes ended.
fn logged_for_players(
    created: &[Result<StoredGame, StoreError>],
    changes: &[(GameWrite, oneshot::Sender<Result<Written, StoreError>>)],
    applied: &[Applied],
) -> Log {
    let mut log = Log::default();
    for game in created.iter().flatten() {
        log.game(Logged::GameStarted, game);
    }
    for ((write, _), applied) in changes.iter().zip(applied) {
        let Applied::Written { created } = applied else {
            continue;
        };
        if write.ends() {
            log.game(Logged::GameEnded, &write.game);
        }
        // A player who took a seat: the game starts for them.
        log.add(Logged::GameStarted, &write.game.id, write.bound());
        if let Some(game) = created {
            log.game(Logged::GameStarted, game);
        }
    }
    log
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
