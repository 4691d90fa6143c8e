//! Giving the memory of closed connections back to the system.
//!
//! The server's allocator (mimalloc, `main.rs`) keeps a page freed on one
//! thread in that thread's heap until the thread collects it, and gives a
//! free page's memory back to the system only at a collection that comes at
//! least its purge delay (1 s) after the page went free. A runtime thread
//! that goes idle once a burst of streams has closed does neither, so what
//! the streams took stayed resident for good: reused by the next burst,
//! never returned (BENCHMARKS.md, "Hostile clients",
//! points 3 and 16). So:
//!
//! - a connection that closes, or whose last watch stream ends, is a
//!   [`release`]: it counts one more and wakes the purging task;
//! - each runtime thread, when it parks ([`on_park`], the runtime's park
//!   hook), collects its heap once if there has been a release since it last
//!   did: on every other park it reads one atomic counter, nothing more;
//! - one task ([`purge_after_releases`]) waits a little after a
//!   release, wakes the threads that were idle already (they collect as they
//!   park again), then has the allocator purge every free page, whatever
//!   thread freed it; a burst of releases costs one or two such rounds.
//!
//! In a process whose global allocator is not mimalloc (in-process tests),
//! the collections find mimalloc's heaps empty and do nothing.

use std::{
    cell::Cell,
    sync::atomic::{AtomicU64, Ordering},
    time::Duration,
};

use tokio::sync::{Notify, watch};

/// How long after a release the purging task wakes the idle threads: the
/// rest of a burst of closing streams is freed by then, and comes in the
/// same round.
pub const COLLECT_AFTER: Duration = Duration::from_millis(300);
/// How long after waking them it purges: time for them to run and park.
/// The purge is forced: pages freed less than mimalloc's purge delay ago
/// (1 s) are returned too.
pub const PURGE_AFTER: Duration = Duration::from_millis(200);

/// Releases so far.
static RELEASES: AtomicU64 = AtomicU64::new(0);
/// Wakes the purging task at a release.
static RELEASED: Notify = Notify::const_new();

thread_local! {
    /// The releases this thread had seen at its last collection.
    static COLLECTED: Cell<u64> = const { Cell::new(0) };
}

/// Memory has just been freed in bulk (a connection closed, say): the
/// threads collect their heaps when they next park, and it is purged some
/// [`COLLECT_AFTER`] + [`PURGE_AFTER`] later.
pub fn release() {
    RELEASES.fetch_add(1, Ordering::Relaxed);
    RELEASED.notify_one();
}

/// A [`release`] when dropped: declared first in a task, it comes after
/// everything else the task held has been freed.
pub struct Release;

impl Drop for Release {
    fn drop(&mut self) {
        release();
    }
}

/// The runtime's park hook: collects this thread's heap if there has been a
/// release since it last did.
pub fn on_park() {
    let releases = RELEASES.load(Ordering::Relaxed);
    if COLLECTED.get() != releases {
        COLLECTED.set(releases);
        // SAFETY: mimalloc's collection may run on any thread at any time;
        // it only moves this thread's free pages back to their arenas.
        unsafe { libmimalloc_sys::mi_collect(false) };
    }
}

/// After each release (bursts of releases together), has every runtime
/// thread collect its heap and the allocator purge its free pages, until
/// `shutdown` turns true.
pub async fn purge_after_releases(mut shutdown: watch::Receiver<bool>) {
    let stopped = async move {
        let _ = shutdown.wait_for(|stop| *stop).await;
    };
    let purging = async {
        loop {
            RELEASED.notified().await;
            tokio::time::sleep(COLLECT_AFTER).await;
            // Threads already parked at the release have not collected: a
            // release for them, and a task more than there are threads, so
            // that the runtime wakes the parked ones to take them (each then
            // parks again, and collects).
            RELEASES.fetch_add(1, Ordering::Relaxed);
            let workers = tokio::runtime::Handle::current().metrics().num_workers();
            for _ in 0..=workers {
                tokio::spawn(async {});
            }
            tokio::time::sleep(PURGE_AFTER).await;
            // SAFETY: as in `on_park`; forced, it also gives every free page
            // of every arena back to the system, whichever thread freed it.
            unsafe { libmimalloc_sys::mi_collect(true) };
        }
    };
    tokio::select! {
        () = stopped => {}
        () = purging => {}
    }
}
