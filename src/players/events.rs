//! Players' event logs (see `store::player_log`): what WatchEvents resumes
//! from, kept `--player-events-retention` and pruned every
//! [`PRUNE_EVERY`].

use std::time::Duration;

use tokio::sync::watch;

use super::Players;
use crate::{
    games::GameError,
    store::{LoggedEvent, now_millis},
};

/// Default `--player-events-retention`: a week, for a device offline over
/// a weekend and more.
pub const DEFAULT_EVENT_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);
/// How often the logs are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

impl Players {
    /// Player events are kept `retention`.
    #[must_use]
    pub fn with_event_retention(self, retention: Duration) -> Players {
        Players {
            event_retention: retention,
            ..self
        }
    }

    /// How long player events are kept.
    pub fn event_retention(&self) -> Duration {
        self.event_retention
    }

    /// The number of player `id`'s last logged event (0: none yet).
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn events_head(&self, id: &str) -> Result<i64, GameError> {
        Ok(self.store.player_events_head(id).await?)
    }

    /// Whether player `id`'s log still holds every event after number
    /// `after` (not if some were pruned, or `after` is past the last).
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn events_kept_after(&self, id: &str, after: i64) -> Result<bool, GameError> {
        Ok(self.store.player_events_kept_after(id, after).await?)
    }

    /// Player `id`'s logged events after number `after`, oldest first, at
    /// most `limit`.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn events_after(
        &self,
        id: &str,
        after: i64,
        limit: usize,
    ) -> Result<Vec<LoggedEvent>, GameError> {
        Ok(self.store.player_events_after(id, after, limit).await?)
    }

    /// Prunes the events older than the retention now and every
    /// [`PRUNE_EVERY`] until `shutdown` (on a shared database every server
    /// does: deleting what another deleted costs nothing).
    pub fn keep_pruning_events(
        self,
        mut shutdown: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(PRUNE_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.wait_for(|stop| *stop) => return,
                    _ = tick.tick() => {}
                }
                let kept = i64::try_from(self.event_retention.as_millis()).unwrap_or(i64::MAX);
                match self
                    .store
                    .prune_player_events(now_millis().saturating_sub(kept))
                    .await
                {
                    Ok(0) => {}
                    Ok(pruned) => tracing::info!(pruned, "old player events pruned"),
                    Err(error) => tracing::warn!(%error, "pruning player events failed"),
                }
            }
        })
    }
}
