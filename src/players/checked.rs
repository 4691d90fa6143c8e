//! Player tokens checked a moment ago, so that a player's every call does
//! not read the store (nor verify a JWT's signature again): a token's hash,
//! its player, and until when it is trusted.
//!
//! An entry is trusted for [`TRUSTED_FOR`] (a JWT's no longer than it
//! lives, and a key taken out of the provider's set stops it within that
//! time); revoking a token forgets it on
//! the server that revoked it at once, so another server may take a
//! revoked token until its entry is that old. At most [`CAPACITY`] entries
//! are held (about 150 bytes each); a full map starts over.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// How long a token read from the store is taken without reading it again.
pub const TRUSTED_FOR: Duration = Duration::from_secs(5);
/// The most entries held.
const CAPACITY: usize = 65_536;

/// Tokens checked a moment ago (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Checked {
    /// Token hash → (player id, until when it is trusted).
    entries: Mutex<HashMap<String, (String, Instant)>>,
}

impl Checked {
    /// The player of the token hashed `hash`, if it was read a moment ago.
    pub(super) fn player(&self, hash: &str) -> Option<String> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .get(hash)
            .filter(|(_, until)| Instant::now() < *until)
            .map(|(id, _)| id.clone())
    }

    /// Notes that the token hashed `hash` is player `id`'s.
    pub(super) fn remember(&self, hash: String, id: String) {
        self.remember_until(hash, id, Instant::now() + TRUSTED_FOR);
    }

    /// Notes that the token hashed `hash` is player `id`'s until `until`,
    /// or [`TRUSTED_FOR`] if that is sooner.
    pub(super) fn remember_until(&self, hash: String, id: String, until: Instant) {
        let now = Instant::now();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= CAPACITY {
            entries.retain(|_, (_, until)| now < *until);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(hash, (id, until.min(now + TRUSTED_FOR)));
    }

    /// Forgets the token hashed `hash`, or every token of player `id`.
    pub(super) fn forget(&self, id: &str, hash: Option<&str>) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match hash {
            Some(hash) => {
                entries.remove(hash);
            }
            None => entries.retain(|_, (player, _)| player != id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_remembered_and_forgotten() {
        let checked = Checked::default();
        checked.remember("h1".into(), "alice".into());
        checked.remember("h2".into(), "alice".into());
        checked.remember("h3".into(), "bob".into());
        assert_eq!(checked.player("h1").as_deref(), Some("alice"));
        checked.forget("alice", Some("h1"));
        assert_eq!(checked.player("h1"), None);
        checked.forget("alice", None);
        assert_eq!(checked.player("h2"), None);
        assert_eq!(checked.player("h3").as_deref(), Some("bob"));
        // Trusted no longer than it lives.
        checked.remember_until("h4".into(), "carol".into(), Instant::now());
        assert_eq!(checked.player("h4"), None);
    }
}
