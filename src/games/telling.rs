//! Telling watchers every event of their games, in order and once each,
//! whoever made it: a change here tells its own event while the game's
//! change is held (see `live`); another server's change is told from the
//! store, and an event the hub refuses because one before it has not been
//! told yet is told after the missed ones, read from the store. On
//! PostgreSQL the store's change feed says when another server wrote a
//! watched game, and after the feed's listener reconnects every watched
//! game is read again.

use std::time::Duration;

use tokio::sync::mpsc;

use super::{
    Games,
    hub::Hub,
    hub::MAX_BACKLOG,
    model::{EventKind, GameView, MoveView},
    retelling::Retelling,
    retelling::Told,
};
use crate::store::{Change, Store, StoreError};

/// The longest pause between tries to read missed events (about 3 s in
/// all) before their watchers are told they fell behind.
const MAX_RETRY: Duration = Duration::from_millis(1600);

impl Games {
    /// Tells the watchers of `view`'s game that `kind` happened, after the
    /// events before it they have not been told.
    pub(super) async fn tell(&self, kind: EventKind, view: &GameView, played: Option<MoveView>) {
        if let Err(gap) = self.hub.publish(kind, view, played) {
            catch_up(&self.hub, &self.store, &view.id, gap.after).await;
        }
    }

    /// Tells game `id`'s watchers, one of which has just seen `version`,
    /// what other servers wrote meanwhile: a change between that watcher's
    /// read and its channel knowing the version went unheard. Nothing to do
    /// when no other server writes.
    pub(super) async fn hear_others(&self, id: &str, version: i64) {
        if self.shared_store {
            let last = self.hub.last_version(id).unwrap_or(version);
            catch_up(&self.hub, &self.store, id, last).await;
        }
    }
}

/// Tells game `id`'s watchers its events after version `after`, from the
/// store; if they cannot be told (the game's early events kept no state, or
/// the store fails), its watchers end as having fallen behind, so that they
/// watch again from a snapshot.
pub(super) async fn catch_up(hub: &Hub, store: &Store, id: &str, mut after: i64) {
    let mut retry = Duration::from_millis(50);
    loop {
        let events = match store.events_since(id, after, MAX_BACKLOG).await {
            Ok(Some(events)) => events,
            Ok(None) => return hub.lose_events(id),
            // A connection the database dropped, say: worth a few tries.
            Err(StoreError::Unavailable(_)) if retry <= MAX_RETRY => {
                tokio::time::sleep(retry).await;
                retry *= 2;
                continue;
            }
            Err(error) => {
                tracing::warn!(%error, game = id, "cannot read a watched game's events");
                return hub.lose_events(id);
            }
        };
        let more = events.len() == MAX_BACKLOG;
        let mut events = Retelling::new(events);
        while let Some(told) = events.next_event() {
            let Told { kind, game, played } = match told {
                Ok(told) => told,
                Err(error) => {
                    tracing::warn!(%error, game = id, "a stored event cannot be told");
                    return hub.lose_events(id);
                }
            };
            after = game.version;
            // In order from the channel's last event: at most duplicates,
            // which it drops.
            let _ = hub.publish(kind, &game, played);
        }
        if !more {
            return;
        }
    }
}

/// Follows the store's change feed until it ends (the store closes): tells
/// this server's watchers the events other servers' writes made, drops the
/// live games they made stale, arms the games this server owns again, and
/// rings the bells of players whose events were logged, of games whose
/// chat has a new line and of games whose seats came or left (every bell
/// after the feed missed some).
pub(super) async fn follow(games: Games, mut changes: mpsc::Receiver<Change>) {
    let (hub, store) = (&games.hub, &games.store);
    while let Some(change) = changes.recv().await {
        match change {
            Change::Game { id, version } => {
                games.live.forget_before(&id, version);
                if let Some(last) = hub.last_version(&id)
                    && last < version
                {
                    catch_up(hub, store, &id, last).await;
                }
                games.follow_owned(&id).await;
            }
            Change::Player { id } => games.bells.ring(&id),
            Change::Chat { game } => games.chat_bells.ring(&game),
            Change::Presence { game } => games.presence_bells.ring(&game),
            Change::Missed => {
                games.bells.ring_all();
                games.chat_bells.ring_all();
                games.presence_bells.ring_all();
                games.live.clear();
                for (id, last) in hub.watched() {
                    if let Some(last) = last {
                        catch_up(hub, store, &id, last).await;
                    }
                }
                games.resume_owned().await;
            }
        }
    }
}
