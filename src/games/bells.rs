//! Bells that players' event streams wait on: rung when something may
//! concern the player (a game with a seat of theirs created here, a
//! challenge made to them), so that the stream looks at once instead of at
//! its next periodic look. Only players with a stream open have a bell; a
//! bell nobody listens to any more is dropped when it is next rung, or
//! when the map grows.

use std::{collections::HashMap, sync::Mutex};

use tokio::sync::watch;

/// Bells kept before those nobody listens to are swept.
const SWEEP_PAST: usize = 1024;

/// The players' bells (see the module docs).
#[derive(Debug, Default)]
pub struct PlayerBells {
    bells: Mutex<HashMap<String, watch::Sender<u64>>>,
}

impl PlayerBells {
    /// Player `id`'s bell, to wait on.
    pub fn listen(&self, id: &str) -> watch::Receiver<u64> {
        let mut bells = self.bells.lock().unwrap_or_else(|e| e.into_inner());
        if bells.len() >= SWEEP_PAST {
            bells.retain(|_, bell| bell.receiver_count() > 0);
        }
        bells
            .entry(id.to_owned())
            .or_insert_with(|| watch::Sender::new(0))
            .subscribe()
    }

    /// Rings player `id`'s bell, if anyone listens to it.
    pub fn ring(&self, id: &str) {
        let mut bells = self.bells.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bell) = bells.get(id) {
            if bell.receiver_count() == 0 {
                bells.remove(id);
            } else {
                bell.send_modify(|rung| *rung += 1);
            }
        }
    }

    /// Bells held now.
    pub fn len(&self) -> usize {
        self.bells.lock().unwrap_or_else(|e| e.into_inner()).len()
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
        let bells = PlayerBells::default();
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
}
