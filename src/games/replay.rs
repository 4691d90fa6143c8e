//! Resuming a watch after the version a client saw last: the game's events
//! after it, told again from the store, then its live events, with neither
//! a gap nor a duplicate.
//!
//! The watcher subscribes before the store is read, so that what happens
//! while the store is read waits in the game's channel. The events are read
//! at once (one snapshot of the store) and the watcher is marked as having
//! seen the last of them, so that it reads on from the channel, which skips
//! what the store told. They are told one at a time as the client reads
//! them, the game replayed once and carried from one event to the next
//! (see `retelling`); live events wait in the game's bounded backlog
//! meanwhile, so a client that reads the replay more slowly than the game
//! goes on falls behind as any watcher does.
//!
//! A resume from further back than [`MAX_RETOLD`] events, or from before
//! events kept the game's state (they cannot be told again), starts from
//! the game as it is now (a snapshot) instead: one message that a client
//! takes as it takes a new watch's first.

use std::{
    pin::Pin,
    task::{Context, Poll, ready},
};

use super::GameId;
use super::{
    Games, Role, Watcher,
    hub::MAX_BACKLOG,
    model::{GameError, GameView, Published, View},
    retelling::Retelling,
    retelling::Told,
};
use crate::reason::Reason;

/// The most past events a resume tells; from further back it is answered
/// with a snapshot. As many as a watched game keeps for its watchers: a
/// client further behind than that has lost its place anyway.
pub const MAX_RETOLD: usize = MAX_BACKLOG;

/// What a replay tells next.
#[derive(Debug)]
pub enum Replayed {
    /// A past event, encoded as it was told live.
    Event(Published),
    /// The game as it is now: the events after the version asked for are
    /// too many, or cannot be told again. Live events follow.
    Snapshot(Box<GameView>),
    /// Every past event was told: the watcher's live events follow.
    Done,
}

/// What a read of the store brought.
enum Read {
    Events(Box<Retelling>),
    /// Too many events, or events that cannot be told again.
    Untold(Box<GameView>),
    /// Other servers' changes were heard.
    Heard,
}

type Reading = Pin<Box<dyn Future<Output = Result<Read, GameError>> + Send>>;

/// A watcher's past events, from the store (see the module docs).
pub struct Replay {
    games: Games,
    id: String,
    /// How the events show the game.
    view: View,
    /// The version of the last event told.
    told: i64,
    /// Events read and not yet told.
    events: Option<Box<Retelling>>,
    reading: Option<Reading>,
    /// The events were told: the live events come next.
    done: bool,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("id", &self.id)
            .field("told", &self.told)
            .field("telling", &self.events.is_some())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl Games {
    /// Game `id` as it is now, a watcher of it in `view`, and its events
    /// after `version` to tell that watcher first, encoded as that view's
    /// live events are. Nothing is kept for an unknown game.
    ///
    /// # Errors
    ///
    /// A negative version or one the game has not reached, an unknown id,
    /// too many watchers of the game, or storage.
    pub async fn resume(
        &self,
        id: &GameId,
        version: i64,
        view: View,
        role: Role,
    ) -> Result<(GameView, Watcher, Replay), GameError> {
        if version < 0 {
            return Err(GameError::invalid(
                "from_version",
                Reason::ValueOutOfRange,
                format!("{version} is not a version: a game's versions start at 0"),
            ));
        }
        // Subscribed before the store is read: nothing between is missed.
        let watcher = self.hub.subscribe(id, view, role)?;
        let game = self.get(id).await?;
        if version > game.version {
            return Err(GameError::VersionAhead {
                asked: version,
                current: game.version,
            });
        }
        let replay = Replay {
            games: self.clone(),
            id: id.to_string(),
            view,
            told: version,
            events: None,
            reading: None,
            done: false,
        };
        Ok((game, watcher, replay))
    }
}

impl Replay {
    /// The next past event for `watcher`, which this replay marks as having
    /// seen them once the store has no more.
    ///
    /// # Errors
    ///
    /// The store fails, or a stored event does not read back.
    pub fn poll_next(
        &mut self,
        watcher: &mut Watcher,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Replayed, GameError>> {
        loop {
            if let Some(events) = &mut self.events {
                if let Some(told) = events.next_event() {
                    let Told { kind, game, played } = told?;
                    self.told = game.version;
                    return Poll::Ready(Ok(Replayed::Event(self.games.hub.encode(
                        kind,
                        &game,
                        played.as_ref(),
                        self.view,
                    ))));
                }
                self.events = None;
            }
            if self.done {
                return Poll::Ready(Ok(Replayed::Done));
            }
            let reading = self.reading.get_or_insert_with(|| {
                let (games, id, after) = (self.games.clone(), self.id.clone(), self.told);
                Box::pin(async move {
                    Ok(
                        match games.store.events_since(&id, after, MAX_RETOLD + 1).await? {
                            Some(events) if events.len() <= MAX_RETOLD => {
                                Read::Events(Box::new(Retelling::new(events)))
                            }
                            _ => Read::Untold(Box::new(games.view(&id).await?)),
                        },
                    )
                })
            });
            let read = ready!(reading.as_mut().poll(cx));
            self.reading = None;
            match read? {
                Read::Events(events) => {
                    let last = events.last_version().unwrap_or(self.told);
                    self.events = Some(events);
                    self.seen(watcher, last);
                }
                Read::Untold(game) => {
                    self.told = game.version;
                    self.seen(watcher, game.version);
                    return Poll::Ready(Ok(Replayed::Snapshot(game)));
                }
                Read::Heard => self.done = true,
            }
        }
    }

    /// Marks `watcher` as having seen every event up to `version` (the
    /// last the store has), and hears other servers' changes next.
    fn seen(&mut self, watcher: &mut Watcher, version: i64) {
        watcher.seen(version);
        let (games, id) = (self.games.clone(), self.id.clone());
        self.reading = Some(Box::pin(async move {
            games.hear_others(&id, version).await;
            Ok(Read::Heard)
        }));
    }
}
