//! Resuming a watch after the version a client saw last: the game's events
//! after it, told again from the store a page at a time as the client reads
//! them, then its live events, with neither a gap nor a duplicate.
//!
//! The watcher subscribes before the first page is read, so that what
//! happens while the store is read waits in the game's channel. Once a page
//! comes back short (the store had nothing more), the watcher is marked as
//! having seen that page's last event, and reads on from the channel, which
//! skips what the store told. A resuming watcher holds one page of
//! [`REPLAY_PAGE`] events at most; live events wait in the game's bounded
//! backlog meanwhile, so a client that reads the replay more slowly than
//! the game goes on falls behind as any watcher does.
//!
//! Events recorded before events kept the game's state cannot be told
//! again: a resume from before them starts from the game as it is now (a
//! snapshot) instead.

use std::{
    collections::VecDeque,
    pin::Pin,
    task::{Context, Poll, ready},
};

use super::{GameError, GameView, Games, Published, Role, View, Watcher, telling::told_again};
use crate::{reason::Reason, store::PastEvent};

/// Most events a resuming watcher reads from the store at once.
pub const REPLAY_PAGE: usize = 16;

/// What a replay tells next.
#[derive(Debug)]
pub enum Replayed {
    /// A past event, encoded as it was told live.
    Event(Published),
    /// The game as it is now: the events after the version asked for
    /// cannot be told again. Live events follow.
    Snapshot(Box<GameView>),
    /// Every past event was told: the watcher's live events follow.
    Done,
}

/// What a read of the store brought.
enum Read {
    Page(Vec<PastEvent>),
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
    page: VecDeque<PastEvent>,
    reading: Option<Reading>,
    /// The store had no more: after `page` come the live events.
    done: bool,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("id", &self.id)
            .field("told", &self.told)
            .field("page", &self.page.len())
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
        id: &str,
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
            id: id.to_owned(),
            view,
            told: version,
            page: VecDeque::new(),
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
            if let Some(event) = self.page.pop_front() {
                let (kind, game, played) = told_again(&event).ok_or_else(|| {
                    GameError::Corrupt(format!(
                        "game {}: its {} event of version {} does not read back",
                        self.id, event.kind, event.game.version
                    ))
                })?;
                self.told = game.version;
                return Poll::Ready(Ok(Replayed::Event(self.games.hub.encode(
                    kind,
                    &game,
                    played.as_ref(),
                    self.view,
                ))));
            }
            if self.done {
                return Poll::Ready(Ok(Replayed::Done));
            }
            let reading = self.reading.get_or_insert_with(|| {
                let (games, id, after) = (self.games.clone(), self.id.clone(), self.told);
                Box::pin(async move {
                    Ok(
                        match games.store.events_since(&id, after, REPLAY_PAGE).await? {
                            Some(events) => Read::Page(events),
                            None => Read::Untold(Box::new(games.get(&id).await?)),
                        },
                    )
                })
            });
            let read = ready!(reading.as_mut().poll(cx));
            self.reading = None;
            match read? {
                Read::Page(events) => {
                    let last_page = events.len() < REPLAY_PAGE;
                    self.page.extend(events);
                    if last_page {
                        let last = self.page.back().map_or(self.told, |e| e.game.version);
                        self.seen(watcher, last);
                    }
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
