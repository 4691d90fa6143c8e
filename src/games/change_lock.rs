//! One change of a game at a time in this process.
//!
//! Changes are judged on a game as it stands and written only if the store
//! still holds that version; two changes of one game judged side by side
//! would have the loser judged again on a game read afresh. Against another
//! server that is the only way, but within one process it would let a busy
//! game (two engine seats answering each other at once) turn an operator's
//! abort or a resignation away as a conflict: the loser keeps losing to the
//! next move. So a game's changes here wait for each other, in their order
//! of arrival, and a change is judged again only after another server's
//! write.
//!
//! A lock exists while a change holds or waits for it: the map holds only
//! the games being changed, and so is bounded by the requests in flight.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard},
};

use tokio::sync::{Mutex as TurnLock, OwnedMutexGuard};

/// The locks of the games being changed.
#[derive(Debug, Default)]
pub(super) struct ChangeLocks {
    by_id: Mutex<HashMap<String, Arc<TurnLock<()>>>>,
}

/// Game `id`'s lock, held: its other changes in this process wait until it
/// is dropped.
pub(super) struct ChangeLock<'a> {
    locks: &'a ChangeLocks,
    id: &'a str,
    _held: OwnedMutexGuard<()>,
}

impl ChangeLocks {
    fn by_id(&self) -> MutexGuard<'_, HashMap<String, Arc<TurnLock<()>>>> {
        self.by_id.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for game `id`'s earlier changes, then holds its lock.
    pub(super) async fn lock<'a>(&'a self, id: &'a str) -> ChangeLock<'a> {
        let lock = Arc::clone(self.by_id().entry(id.to_owned()).or_default());
        ChangeLock {
            locks: self,
            id,
            _held: lock.lock_owned().await,
        }
    }

    /// Games being changed or waited for now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_id().len()
    }
}

impl Drop for ChangeLock<'_> {
    fn drop(&mut self) {
        let mut by_id = self.locks.by_id();
        // Held by the map and by this guard only: nobody waits.
        if by_id
            .get(self.id)
            .is_some_and(|lock| Arc::strong_count(lock) == 2)
        {
            by_id.remove(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn changes_of_one_game_wait_in_turn_and_leave_nothing_behind() {
        let locks = Arc::new(ChangeLocks::default());
        let first = locks.lock("a").await;
        // Another game is not held up.
        drop(locks.lock("b").await);
        let waiting = tokio::spawn({
            let locks = Arc::clone(&locks);
            async move {
                let _second = locks.lock("a").await;
            }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "the second change waits");
        drop(first);
        waiting.await.unwrap();
        assert_eq!(locks.len(), 0);
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_leaves_nothing_behind() {
        let locks = ChangeLocks::default();
        let held = locks.lock("a").await;
        let gave_up = tokio::time::timeout(Duration::from_millis(10), locks.lock("a")).await;
        assert!(gave_up.is_err());
        drop(held);
        assert_eq!(locks.len(), 0);
    }
}
