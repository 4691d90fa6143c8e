//! Bells that streams wait on, one per id: a player's event streams on
//! the player's (rung when something may concern them: a game with a seat
//! of theirs created or ended here, a challenge made to them, an event
//! logged for them by another server), a game's chat readers on the game's
//! (rung by each line, here or heard from another server), so that a
//! stream looks at once instead of at its next periodic look. Only ids
//! with a stream open have a bell; a bell nobody listens to any more is
//! dropped when it is next rung, or when the map has doubled since it was
//! last swept (so that a sweep's cost is shared by the bells made since,
//! however many streams listen).

use std::{collections::HashMap, sync::Mutex};

use tokio::sync::watch;

/// Bells kept before those nobody listens to are first swept.
const SWEEP_PAST: usize = 1024;

/// Bells by id (see the module docs).
#[derive(Debug, Default)]
pub struct Bells {
    bells: Mutex<ById>,
}

#[derive(Debug, Default)]
struct ById {
    by_id: HashMap<String, watch::Sender<u64>>,
    /// Bells held after the last sweep.
    swept_to: usize,
}

impl Bells {
    /// The bell of `id`, to wait on.
    pub fn listen(&self, id: &str) -> watch::Receiver<u64> {
        let mut bells = self.bells.lock().unwrap_or_else(|e| e.into_inner());
        if bells.by_id.len() >= SWEEP_PAST.max(2 * bells.swept_to) {
            bells.by_id.retain(|_, bell| bell.receiver_count() > 0);
            bells.swept_to = bells.by_id.len();
        }
        bells
            .by_id
            .entry(id.to_owned())
            .or_insert_with(|| watch::Sender::new(0))
            .subscribe()
    }

    /// Rings the bell of `id`, if anyone listens to it.
    pub fn ring(&self, id: &str) {
        let mut bells = self.bells.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bell) = bells.by_id.get(id) {
            if bell.receiver_count() == 0 {
                bells.by_id.remove(id);
            } else {
                bell.send_modify(|rung| *rung += 1);
            }
        }
    }

    /// Rings every bell listened to.
    pub fn ring_all(&self) {
        let bells = self.bells.lock().unwrap_or_else(|e| e.into_inner());
        for bell in bells.by_id.values() {
            bell.send_modify(|rung| *rung += 1);
        }
    }

    /// Bells held now.
    pub fn len(&self) -> usize {
        let bells = self.bells.lock().unwrap_or_else(|e| e.into_inner());
        bells.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bell_rings_for_its_listeners_and_goes_with_them() {
        let bells = Bells::default();
        bells.ring("nobody");
        assert!(bells.is_empty(), "ringing makes no bell");
        let mut alice = bells.listen("alice");
        bells.ring("alice");
        assert!(alice.has_changed().unwrap());
        alice.mark_unchanged();
        drop(alice);
        bells.ring("alice");
        assert!(bells.is_empty(), "a bell nobody listens to is dropped");
    }

    #[test]
    fn bells_nobody_listens_to_are_swept_once_the_map_doubles() {
        let bells = Bells::default();
        // Many listeners held: no sweep finds anything to drop.
        let held: Vec<_> = (0..3000).map(|n| bells.listen(&format!("p{n}"))).collect();
        assert_eq!(bells.len(), 3000);
        drop(held);
        // The next sweep comes when the map has doubled since the last.
        let more: Vec<_> = (0..1000).map(|n| bells.listen(&format!("q{n}"))).collect();
        assert!(bells.len() <= 4000);
        let still: Vec<_> = (0..1000).map(|n| bells.listen(&format!("r{n}"))).collect();
        assert!(
            bells.len() <= 2000 + 1,
            "the 3000 bells nobody listens to went: {}",
            bells.len()
        );
        drop((more, still));
    }
}
