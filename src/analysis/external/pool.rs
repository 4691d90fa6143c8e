//! Each game's engine processes: at most so many at once, kept between
//! searches, and replaced after a failure.

use std::{
    fmt,
    sync::{Arc, Mutex, PoisonError},
    time::Instant,
};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{EngineFailure, EngineStartError, UciEngine, UciEngines, process::EngineProcess};
use crate::{analysis::AnalysisError, rules::Variant};

/// The external engines' pools, by game.
#[derive(Debug, Default)]
pub(crate) struct Pools {
    chess: Option<Arc<Pool>>,
    xiangqi: Option<Arc<Pool>>,
    /// The chess engine's processes set to Chess960.
    chess960: Option<Arc<Pool>>,
    /// Each Lichess variant's engine, set to it.
    variants: Vec<Arc<Pool>>,
}

impl Pools {
    pub(crate) fn new(engines: &UciEngines) -> Pools {
        let pool = |variant| {
            let engine = engines.get(variant)?.clone();
            Some(Pool::new(variant, engine, engines.processes))
        };
        Pools {
            chess: pool(Variant::Chess),
            xiangqi: pool(Variant::Xiangqi),
            chess960: pool(Variant::Chess960),
            variants: Variant::ALL
                .into_iter()
                .filter(|v| v.is_chess_variant())
                .filter_map(pool)
                .collect(),
        }
    }

    /// The pool of `variant`'s engine, if it has one.
    pub(crate) fn get(&self, variant: Variant) -> Option<&Arc<Pool>> {
        match variant {
            Variant::Chess => self.chess.as_ref(),
            Variant::Xiangqi => self.xiangqi.as_ref(),
            Variant::Chess960 => self.chess960.as_ref(),
            variant => self.variants.iter().find(|pool| pool.variant == variant),
        }
    }

    /// Starts a process of each engine, kept for the first search. The
    /// chess engine's Chess960 processes start with the first Chess960
    /// search, so that a chess engine without Chess960 serves chess.
    pub(crate) async fn start(&self) -> Result<(), EngineStartError> {
        let first = [&self.chess, &self.xiangqi].into_iter().flatten();
        for pool in first.chain(&self.variants) {
            let variant = pool.variant;
            let process = EngineProcess::start(variant, &pool.engine)
                .await
                .map_err(|failure| EngineStartError { variant, failure })?;
            tracing::info!(%variant, engine = %pool.engine.path.display(), name = %process.name, ranks = ?process.ranks, "external engine started");
            pool.idle().push(process);
        }
        Ok(())
    }
}

/// One game's engine processes.
pub(crate) struct Pool {
    variant: Variant,
    engine: UciEngine,
    /// One permit a process, running or not.
    free: Arc<Semaphore>,
    /// Processes between searches.
    idle: Mutex<Vec<EngineProcess>>,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("variant", &self.variant)
            .field("engine", &self.engine)
            .field("free", &self.free.available_permits())
            .finish_non_exhaustive()
    }
}

impl Pool {
    fn new(variant: Variant, engine: UciEngine, processes: usize) -> Arc<Pool> {
        Arc::new(Pool {
            variant,
            engine,
            free: Arc::new(Semaphore::new(processes.max(1))),
            idle: Mutex::default(),
        })
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<EngineProcess>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The error a search fails with when this engine fails.
    pub(super) fn failed(&self, failure: EngineFailure) -> AnalysisError {
        tracing::warn!(variant = %self.variant, engine = %self.engine.path.display(), %failure, "external engine failed; it is restarted for the next search");
        AnalysisError::Engine {
            variant: self.variant,
            failure,
        }
    }

    /// A process for one search: an idle one, or a new one when none idles
    /// and fewer than the most run. Waits for one until `until`.
    pub(super) async fn take(self: &Arc<Pool>, until: Instant) -> Result<Lease, AnalysisError> {
        let asked = Instant::now();
        let permit = tokio::time::timeout_at(until.into(), Arc::clone(&self.free).acquire_owned())
            .await
            .map_err(|_| AnalysisError::NoTurn(asked.elapsed()))?
            .expect("the semaphore is never closed");
        let idle = std::iter::from_fn(|| self.idle().pop()).find_map(|mut process| {
            // One that died idle is dropped here, and replaced.
            process.alive().then_some(process)
        });
        let process = match idle {
            Some(process) => process,
            None => EngineProcess::start(self.variant, &self.engine)
                .await
                .map_err(|failure| self.failed(failure))?,
        };
        Ok(Lease {
            process,
            pool: Arc::clone(self),
            _permit: permit,
        })
    }
}

/// A process taken for a search. Dropped, it is killed (`kill_on_drop`).
pub(super) struct Lease {
    pub(super) process: EngineProcess,
    pool: Arc<Pool>,
    _permit: OwnedSemaphorePermit,
}

impl Lease {
    /// Puts the process back for the next search.
    pub(super) fn give_back(self) {
        let Lease {
            process,
            pool,
            _permit,
        } = self;
        pool.idle().push(process);
    }

    /// Kills the process after `failure`; the next search starts another.
    pub(super) async fn fail(self, failure: EngineFailure) -> AnalysisError {
        self.process.kill().await;
        self.pool.failed(failure)
    }
}
