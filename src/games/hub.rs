//! The live feed of game events, in memory: one channel per watched game
//! and view (the game without its move list, or the whole game: see
//! [`View`]), holding each event encoded once, as watchers of that view
//! receive it, and shared by all of them.
//!
//! A channel lives while it has watchers: the first subscription opens it,
//! and the last watcher to leave or the game's end removes it. Each has its
//! own backlog, so that watchers of the small events are not dropped for
//! the bytes of the whole game's.
//! Its backlog keeps the events some watcher has not read yet, and no more
//! than [`Watching::buffer_bytes`] and [`MAX_BACKLOG`] events: the publisher
//! drops the oldest beyond that. A watcher whose next event was dropped fell
//! that far behind (unless the store told it that event already: see
//! `replay`); it learns so ([`FellBehind`]) when it is next polled,
//! so that a watcher which never reads (its connection's send window full,
//! and nothing polling it) costs no more than the bounded backlog.
//!
//! A channel takes its game's events in version order, each once. This
//! server's changes publish their events while the game's change is held,
//! so they come in order; another server's changes are heard of through the
//! store, late or twice: an event not newer than the last one is a
//! duplicate and dropped, and one that skips a version is refused ([`Gap`])
//! so that the caller tells the missed events first, from the store.
//!
//! The channel is written here rather than taken from a broadcast crate
//! (`tokio::sync::broadcast` bounds a channel by its count of messages)
//! for two things those lack: a bound in bytes, per game and view, so that
//! a stalled watcher of whole games costs no more than `buffer_bytes`
//! however large the game; and one encoding per event and view, shared by
//! every watcher down to the socket.

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        Arc, Mutex, MutexGuard,
        atomic::{AtomicUsize, Ordering},
    },
    task::{Context, Poll, Waker},
};

use super::model::{
    EncodeEvent, EventKind, GameError, GameEvent, GameView, MoveView, Published, Status, View,
};

/// An event was refused: the channel's last event is `after`, and the ones
/// between it and the refused one have to come first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Gap {
    pub after: i64,
}

/// Most events a game's backlog holds, however small.
pub const MAX_BACKLOG: usize = 256;

/// How games are watched.
#[derive(Clone, Copy, Debug)]
pub struct Watching {
    /// Encoded bytes a watcher may fall behind by; also the most a game's
    /// backlog holds (at least its newest event is kept).
    pub buffer_bytes: usize,
    /// Spectators one game may have at once, of either view (its players'
    /// watchers are not counted: they always get their streams).
    pub max_per_game: usize,
    pub encode: EncodeEvent,
}

/// A watcher's next event was dropped from its game's backlog before it
/// read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FellBehind {
    /// The version of the last event the watcher received (or of its
    /// snapshot).
    pub last_version: i64,
    /// The backlog's byte bound it fell behind by.
    pub limit_bytes: usize,
}

#[derive(Debug)]
struct Held {
    event: Arc<Published>,
    /// Watchers that still have to read it.
    unread: usize,
}

/// A watched game's channel.
#[derive(Debug, Default)]
struct Channel {
    backlog: VecDeque<Held>,
    /// The sequence number of the backlog's first event (of the next one
    /// when it is empty).
    first: u64,
    /// Encoded bytes in the backlog.
    bytes: usize,
    /// The watchers, each with the waker to call when an event comes.
    watchers: HashMap<u64, Option<Waker>>,
    /// Of those, the spectators.
    spectators: usize,
    next_watcher: u64,
    /// The game is over: no event follows the last one.
    ended: bool,
    /// The version of the last event published, or of the first watcher's
    /// snapshot; `None` until either.
    last: Option<i64>,
    /// Events were lost that cannot be told again: every watcher ends as
    /// having fallen behind once it has read what came before.
    broken: bool,
}

impl Channel {
    /// Whether the event of `version` comes next (false: a duplicate).
    ///
    /// # Errors
    ///
    /// It skips a version.
    fn takes(&self, version: i64) -> Result<bool, Gap> {
        match self.last {
            Some(last) if version <= last => Ok(false),
            Some(last) if version > last + 1 => Err(Gap { after: last }),
            _ => Ok(true),
        }
    }

    /// No event follows the backlog: the game ended or events were lost.
    fn closed(&self) -> bool {
        self.ended || self.broken
    }

    /// The sequence number the next event gets.
    fn end(&self) -> u64 {
        self.first + self.backlog.len() as u64
    }

    /// Drops the events every watcher has read, then the oldest while the
    /// backlog is over its bounds (keeping the newest).
    fn trim(&mut self, buffer_bytes: usize) {
        while let Some(front) = self.backlog.front() {
            let over = self.bytes > buffer_bytes || self.backlog.len() > MAX_BACKLOG;
            if front.unread > 0 && !(over && self.backlog.len() > 1) {
                break;
            }
            self.bytes -= front.event.size();
            self.backlog.pop_front();
            self.first += 1;
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// A watched game's channels, one for each view it is watched in.
#[derive(Debug, Default)]
struct Views([Option<Arc<Mutex<Channel>>>; 2]);

impl Views {
    fn slot(&mut self, view: View) -> &mut Option<Arc<Mutex<Channel>>> {
        &mut self.0[match view {
            View::Basic => 0,
            View::Full => 1,
        }]
    }

    /// The channels open, with their views.
    fn open(&self) -> impl Iterator<Item = (View, &Arc<Mutex<Channel>>)> {
        [View::Basic, View::Full]
            .into_iter()
            .zip(&self.0)
            .filter_map(|(view, channel)| Some((view, channel.as_ref()?)))
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// The version of the last event every channel took (the oldest), if
    /// one took any.
    fn last(&self) -> Option<i64> {
        self.open().filter_map(|(_, c)| lock(c).last).min()
    }
}

/// The channels of the watched games.
#[derive(Debug)]
pub(super) struct Hub {
    watching: Watching,
    channels: Mutex<HashMap<String, Views>>,
    /// Watchers alive, of every game.
    watchers: AtomicUsize,
}

impl Hub {
    pub(super) fn new(watching: Watching) -> Hub {
        Hub {
            watching,
            channels: Mutex::default(),
            watchers: AtomicUsize::new(0),
        }
    }

    /// Games with a channel now.
    pub(super) fn watched_games(&self) -> usize {
        lock(&self.channels).len()
    }

    /// Watchers alive now.
    pub(super) fn watchers(&self) -> usize {
        self.watchers.load(Ordering::Relaxed)
    }

    /// A watcher of game `id` in `view` from the next event on.
    ///
    /// # Errors
    ///
    /// The game has as many watchers as it may have.
    pub(super) fn subscribe(
        self: &Arc<Hub>,
        id: &str,
        view: View,
        role: Role,
    ) -> Result<Watcher, GameError> {
        // The watcher joins under the map's lock: a last watcher leaving
        // meanwhile must not remove the channel it joins.
        let mut channels = lock(&self.channels);
        let views = channels.entry(id.to_owned()).or_default();
        let spectators: usize = views.open().map(|(_, c)| lock(c).spectators).sum();
        if role == Role::Spectator && spectators >= self.watching.max_per_game {
            if views.is_empty() {
                channels.remove(id);
            }
            return Err(GameError::TooManyWatchers {
                limit: self.watching.max_per_game,
            });
        }
        let channel = views.slot(view).get_or_insert_with(Arc::default);
        if lock(channel).closed() {
            // Its last watchers are still reading the end; a new watcher
            // starts from the snapshot, which tells it.
            *channel = Arc::default();
        }
        let channel = Arc::clone(channel);
        let mut state = lock(&channel);
        let key = state.next_watcher;
        state.next_watcher += 1;
        state.watchers.insert(key, None);
        if role == Role::Spectator {
            state.spectators += 1;
        }
        let next = state.end();
        drop(state);
        self.watchers.fetch_add(1, Ordering::Relaxed);
        Ok(Watcher {
            hub: Arc::clone(self),
            id: id.to_owned(),
            view,
            role,
            channel,
            key,
            next,
            seen: i64::MIN,
        })
    }

    /// The version of the last event game `id`'s channels took (the
    /// oldest of them), if it has a channel and one took any.
    pub(super) fn last_version(&self, id: &str) -> Option<i64> {
        lock(&self.channels).get(id)?.last()
    }

    /// The games with a channel now, each with its last event's version
    /// (the oldest of its channels').
    pub(super) fn watched(&self) -> Vec<(String, Option<i64>)> {
        lock(&self.channels)
            .iter()
            .map(|(id, views)| (id.clone(), views.last()))
            .collect()
    }

    /// Game `id`'s events after its last one are lost: its watchers end as
    /// having fallen behind (and may watch again from a snapshot).
    pub(super) fn lose_events(&self, id: &str) {
        let Some(views) = lock(&self.channels).remove(id) else {
            return;
        };
        for (_, channel) in views.open() {
            let wakers: Vec<Waker> = {
                let mut state = lock(channel);
                state.broken = true;
                state
                    .watchers
                    .values_mut()
                    .filter_map(Option::take)
                    .collect()
            };
            wakers.into_iter().for_each(Waker::wake);
        }
    }

    /// The event as watchers of `view` receive it.
    pub(super) fn encode(
        &self,
        kind: EventKind,
        game: &GameView,
        played: Option<&MoveView>,
        view: View,
    ) -> Published {
        Published {
            version: game.version,
            messages: (self.watching.encode)(GameEvent { kind, game, played }, view),
            game_over: game.outcome.status != Status::Ongoing,
            ends: game.is_final(),
        }
    }

    /// Sends the event to the game's watchers, if it has any; encodes it
    /// once for all the watchers of each view. The game's channels close
    /// if it ended.
    ///
    /// # Errors
    ///
    /// The event skips a version after a channel's last event (the oldest
    /// such is told); the channels it does not skip for took it.
    pub(super) fn publish(
        &self,
        kind: EventKind,
        game: &GameView,
        played: Option<MoveView>,
    ) -> Result<(), Gap> {
        let open: Vec<(View, Arc<Mutex<Channel>>)> =
            match lock(&self.channels).get(game.id.as_str()) {
                Some(views) => views.open().map(|(v, c)| (v, Arc::clone(c))).collect(),
                None => return Ok(()),
            };
        let mut gap: Option<Gap> = None;
        for (view, channel) in open {
            let event = GameEvent {
                kind,
                game,
                played: played.as_ref(),
            };
            if let Err(skipped) = self.publish_to(&channel, view, event) {
                gap = Some(gap.map_or(skipped, |g| Gap {
                    after: g.after.min(skipped.after),
                }));
            }
        }
        gap.map_or(Ok(()), Err)
    }

    /// [`Hub::publish`] to one of the game's channels, of `view`.
    fn publish_to(
        &self,
        channel: &Arc<Mutex<Channel>>,
        view: View,
        event: GameEvent<'_>,
    ) -> Result<(), Gap> {
        let game = event.game;
        if !lock(channel).takes(game.version)? {
            return Ok(());
        }
        // Encoded outside the locks: a long game's record takes a while.
        let event = Arc::new(self.encode(event.kind, game, event.played, view));
        let wakers: Vec<Waker> = {
            let mut state = lock(channel);
            if state.closed() || state.watchers.is_empty() {
                return Ok(());
            }
            // Checked again: another event may have come while this one was
            // encoded.
            if !state.takes(event.version)? {
                return Ok(());
            }
            state.last = Some(event.version);
            state.bytes += event.size();
            state.ended = event.ends;
            let unread = state.watchers.len();
            state.backlog.push_back(Held { event, unread });
            state.trim(self.watching.buffer_bytes);
            state
                .watchers
                .values_mut()
                .filter_map(Option::take)
                .collect()
        };
        wakers.into_iter().for_each(Waker::wake);
        if game.is_final() {
            self.remove(&game.id, view, channel, false);
        }
        Ok(())
    }

    /// Removes `channel`, game `id`'s of `view`, if it is still there (and,
    /// `if_unwatched`, nobody watches it: checked under the map's lock, so
    /// that a watcher joining meanwhile keeps it).
    fn remove(&self, id: &str, view: View, channel: &Arc<Mutex<Channel>>, if_unwatched: bool) {
        let mut channels = lock(&self.channels);
        let Some(views) = channels.get_mut(id) else {
            return;
        };
        let slot = views.slot(view);
        if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, channel))
            && (!if_unwatched || lock(channel).watchers.is_empty())
        {
            *slot = None;
        }
        if views.is_empty() {
            channels.remove(id);
        }
    }
}

/// Who watches a game: one of its players (with a seat's token) or anyone
/// else. Only spectators count against the game's cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Player,
    Spectator,
}

/// One watcher of a game; leaves the game's channel when dropped.
#[derive(Debug)]
pub struct Watcher {
    hub: Arc<Hub>,
    id: String,
    view: View,
    role: Role,
    channel: Arc<Mutex<Channel>>,
    key: u64,
    /// The sequence number of the next event to read.
    next: u64,
    /// The version of the last event received.
    seen: i64,
}

impl Watcher {
    /// Skips the events up to `version` (those the snapshot already shows).
    /// The first watcher's snapshot is where its channel's events start.
    pub(super) fn seen(&mut self, version: i64) {
        self.seen = version;
        lock(&self.channel).last.get_or_insert(version);
    }

    /// The next event newer than the last one received; `None` after the
    /// game's end.
    ///
    /// # Errors
    ///
    /// The next event was dropped before this watcher read it.
    pub fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Arc<Published>, FellBehind>>> {
        let mut state = lock(&self.channel);
        if self.next < state.first {
            // Events it had not read were dropped, all older than the
            // backlog's first: it fell behind, unless it had them already
            // (told from the store).
            let dropped_up_to = state
                .backlog
                .front()
                .map_or(state.last, |held| Some(held.event.version - 1));
            if dropped_up_to.is_none_or(|version| version > self.seen) {
                return Poll::Ready(Some(Err(FellBehind {
                    last_version: self.seen,
                    limit_bytes: self.hub.watching.buffer_bytes,
                })));
            }
            self.next = state.first;
        }
        while self.next < state.end() {
            let index = (self.next - state.first) as usize;
            let held = &mut state.backlog[index];
            held.unread -= 1;
            let event = Arc::clone(&held.event);
            self.next += 1;
            state.trim(self.hub.watching.buffer_bytes);
            if event.version > self.seen {
                self.seen = event.version;
                return Poll::Ready(Some(Ok(event)));
            }
        }
        if state.ended {
            return Poll::Ready(None);
        }
        if state.broken {
            return Poll::Ready(Some(Err(FellBehind {
                last_version: self.seen,
                limit_bytes: self.hub.watching.buffer_bytes,
            })));
        }
        state.watchers.insert(self.key, Some(cx.waker().clone()));
        Poll::Pending
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.hub.watchers.fetch_sub(1, Ordering::Relaxed);
        let unwatched = {
            let mut state = lock(&self.channel);
            state.watchers.remove(&self.key);
            if self.role == Role::Spectator {
                state.spectators -= 1;
            }
            let from = self.next.saturating_sub(state.first) as usize;
            for held in state.backlog.iter_mut().skip(from) {
                held.unread -= 1;
            }
            state.trim(self.hub.watching.buffer_bytes);
            state.watchers.is_empty()
        };
        if unwatched {
            self.hub.remove(&self.id, self.view, &self.channel, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::atomic::{AtomicUsize, Ordering},
        task::Wake,
    };

    use bytes::Bytes;

    use super::*;
    use crate::{
        games::{GameId, OutcomeView},
        rules::Variant,
    };

    /// Every event encodes to one message of 100 bytes (300 in full).
    fn encode(_: GameEvent<'_>, view: View) -> Vec<Bytes> {
        let len = match view {
            View::Basic => 100,
            View::Full => 300,
        };
        vec![Bytes::from(vec![0; len])]
    }

    fn hub(buffer_bytes: usize, max_per_game: usize) -> Arc<Hub> {
        Arc::new(Hub::new(Watching {
            buffer_bytes,
            max_per_game,
            encode,
        }))
    }

    fn game(id: &str, version: i64, over: bool) -> GameView {
        GameView {
            id: GameId::stored(id),
            variant: Variant::Chess,
            rules: Default::default(),
            version,
            start_fen: String::new(),
            fen: String::new(),
            turn: None,
            ply: 0,
            moves: Default::default(),
            outcome: OutcomeView {
                status: if over { Status::Drawn } else { Status::Ongoing },
                winner: None,
                ending: None,
                claimable: Vec::new(),
                description: String::new(),
            },
            white_name: String::new(),
            black_name: String::new(),
            white_player: None,
            black_player: None,
            rated: false,
            white_rating: None,
            black_rating: None,
            white_engine: None,
            black_engine: None,
            draw_offer: None,
            takeback_offer: None,
            clock: None,
            is_check: false,
            created_at: 0,
            updated_at: 0,
            open_seat: None,
            rematch_of: None,
            // An ended game's channel closes once its rematch exists.
            rematch: over.then(|| "next".to_owned()),
            rematch_offer: None,
        }
    }

    fn publish(hub: &Hub, version: i64) -> Result<(), Gap> {
        hub.publish(EventKind::DrawOffered, &game("g", version, false), None)
    }

    type Next = Option<Result<i64, FellBehind>>;

    /// The next event's version, `None` at the end; panics if none is ready.
    fn next(watcher: &mut Watcher) -> Next {
        match watcher.poll_next(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(next) => next.map(|r| r.map(|event| event.version)),
            Poll::Pending => panic!("no event ready"),
        }
    }

    fn pending(watcher: &mut Watcher) -> bool {
        watcher
            .poll_next(&mut Context::from_waker(Waker::noop()))
            .is_pending()
    }

    fn backlog(watcher: &Watcher) -> (usize, usize) {
        let state = lock(&watcher.channel);
        (state.backlog.len(), state.bytes)
    }

    #[test]
    fn a_channel_lives_while_its_game_has_watchers() {
        let hub = hub(1000, 10);
        publish(&hub, 1).unwrap(); // nobody watches: nothing is kept
        assert_eq!(hub.watched_games(), 0);
        let first = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let second = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let other = hub.subscribe("h", View::Basic, Role::Spectator).unwrap();
        assert_eq!((hub.watched_games(), hub.watchers()), (2, 3));
        drop(first);
        assert_eq!((hub.watched_games(), hub.watchers()), (2, 2));
        drop(second);
        assert_eq!((hub.watched_games(), hub.watchers()), (1, 1));
        drop(other);
        assert_eq!((hub.watched_games(), hub.watchers()), (0, 0));
    }

    #[test]
    fn every_watcher_reads_every_event_once_and_read_events_are_dropped() {
        let hub = hub(1000, 10);
        let mut a = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let mut b = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        a.seen(0);
        b.seen(0);
        assert!(pending(&mut a));
        publish(&hub, 1).unwrap();
        publish(&hub, 2).unwrap();
        assert_eq!(next(&mut a), Some(Ok(1)));
        assert_eq!(next(&mut a), Some(Ok(2)));
        assert!(pending(&mut a));
        assert_eq!(backlog(&a), (2, 200), "b has not read them");
        assert_eq!(next(&mut b), Some(Ok(1)));
        assert_eq!(backlog(&a), (1, 100));
        drop(b);
        assert_eq!(backlog(&a), (0, 0), "nobody needs them any more");
    }

    #[test]
    fn events_not_newer_than_the_snapshot_are_skipped() {
        let hub = hub(1000, 10);
        let mut watcher = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        publish(&hub, 4).unwrap();
        watcher.seen(5);
        publish(&hub, 5).unwrap();
        publish(&hub, 6).unwrap();
        assert_eq!(next(&mut watcher), Some(Ok(6)));
        assert!(pending(&mut watcher));
        assert_eq!(backlog(&watcher), (0, 0));
    }

    #[test]
    fn events_come_in_version_order_once_each() {
        let hub = hub(1000, 10);
        let mut watcher = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        watcher.seen(3);
        assert_eq!(hub.last_version("g"), Some(3));
        assert_eq!(publish(&hub, 5), Err(Gap { after: 3 }), "4 is missing");
        publish(&hub, 4).unwrap();
        publish(&hub, 5).unwrap();
        publish(&hub, 4).unwrap(); // a duplicate: dropped
        assert_eq!(next(&mut watcher), Some(Ok(4)));
        assert_eq!(next(&mut watcher), Some(Ok(5)));
        assert!(pending(&mut watcher));
        assert_eq!(hub.watched(), [("g".to_owned(), Some(5))]);
    }

    #[test]
    fn lost_events_end_every_watcher_as_fallen_behind() {
        let hub = hub(1000, 10);
        let mut watcher = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        watcher.seen(1);
        publish(&hub, 2).unwrap();
        hub.lose_events("g");
        assert_eq!(hub.watched_games(), 0);
        assert_eq!(next(&mut watcher), Some(Ok(2)), "what came before is read");
        assert!(matches!(
            next(&mut watcher),
            Some(Err(FellBehind {
                last_version: 2,
                ..
            }))
        ));
        // A new watcher starts afresh.
        let mut again = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        again.seen(2);
        publish(&hub, 3).unwrap();
        assert_eq!(next(&mut again), Some(Ok(3)));
    }

    #[test]
    fn a_stalled_watcher_costs_a_bounded_backlog_then_learns_it_fell_behind() {
        let hub = hub(1000, 10);
        let mut stalled = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let mut reader = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        stalled.seen(0);
        reader.seen(0);
        publish(&hub, 1).unwrap();
        publish(&hub, 2).unwrap();
        assert_eq!(next(&mut stalled), Some(Ok(1)));
        for version in 1..=50 {
            if version > 2 {
                publish(&hub, version).unwrap();
            }
            assert_eq!(next(&mut reader), Some(Ok(version)));
            let (events, bytes) = backlog(&reader);
            assert!(
                bytes <= 1000 && events <= 10,
                "{events} events, {bytes} bytes"
            );
        }
        let behind = FellBehind {
            last_version: 1,
            limit_bytes: 1000,
        };
        assert_eq!(next(&mut stalled), Some(Err(behind)));
        drop(stalled);
        assert_eq!(backlog(&reader), (0, 0));
        // The reader goes on.
        publish(&hub, 51).unwrap();
        assert_eq!(next(&mut reader), Some(Ok(51)));
    }

    /// A watcher that was told the dropped events from the store (it
    /// marks them seen) has not fallen behind.
    #[test]
    fn dropped_events_already_seen_are_no_fall_behind() {
        let hub = hub(1000, 10);
        let mut watcher = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        for version in 1..=30 {
            publish(&hub, version).unwrap();
        }
        assert_eq!(backlog(&watcher), (10, 1000), "20 were dropped");
        watcher.seen(20);
        assert_eq!(next(&mut watcher), Some(Ok(21)));
        let mut late = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        for version in 31..=45 {
            publish(&hub, version).unwrap();
        }
        late.seen(34);
        assert!(matches!(
            next(&mut late),
            Some(Err(FellBehind {
                last_version: 34,
                ..
            }))
        ));
    }

    #[test]
    fn the_backlog_holds_at_most_max_backlog_events_and_always_the_newest() {
        let small = hub(usize::MAX, 10);
        let mut watcher = small.subscribe("g", View::Basic, Role::Spectator).unwrap();
        for version in 1..=MAX_BACKLOG as i64 + 10 {
            publish(&small, version).unwrap();
        }
        assert_eq!(backlog(&watcher).0, MAX_BACKLOG);
        assert!(matches!(next(&mut watcher), Some(Err(_))));
        // A budget below one event still keeps the newest.
        let tiny = hub(10, 10);
        let mut watcher = tiny.subscribe("g", View::Basic, Role::Spectator).unwrap();
        watcher.seen(0);
        publish(&tiny, 1).unwrap();
        assert_eq!(backlog(&watcher), (1, 100));
        assert_eq!(next(&mut watcher), Some(Ok(1)));
    }

    #[test]
    fn the_end_closes_the_channel_and_its_watchers_read_it() {
        let hub = hub(1000, 10);
        let mut watcher = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        watcher.seen(0);
        publish(&hub, 1).unwrap();
        hub.publish(EventKind::Resigned, &game("g", 2, true), None)
            .unwrap();
        assert_eq!(hub.watched_games(), 0);
        // A new watcher meanwhile gets a channel of its own, which the old
        // watcher leaving does not remove.
        let newer = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        assert_eq!(next(&mut watcher), Some(Ok(1)));
        assert_eq!(next(&mut watcher), Some(Ok(2)));
        assert_eq!(next(&mut watcher), None);
        drop(watcher);
        assert_eq!(hub.watched_games(), 1);
        drop(newer);
        assert_eq!(hub.watched_games(), 0);
    }

    /// Each view has its channel: its watchers get its encoding, and the
    /// others' bytes do not count against them; a game's cap counts both,
    /// and a channel behind the other is caught up alone.
    #[test]
    fn each_view_has_its_own_channel() {
        let hub = hub(1000, 3);
        let mut basic = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let mut full = hub.subscribe("g", View::Full, Role::Spectator).unwrap();
        basic.seen(0);
        full.seen(0);
        for version in 1..=5 {
            publish(&hub, version).unwrap();
        }
        assert_eq!(backlog(&basic), (5, 500));
        assert_eq!(backlog(&full), (3, 900), "the oldest full ones dropped");
        assert_eq!(next(&mut basic), Some(Ok(1)));
        assert!(matches!(next(&mut full), Some(Err(_))), "fell behind");
        drop(full);
        let _second = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let mut late = hub.subscribe("g", View::Full, Role::Spectator).unwrap();
        assert!(
            matches!(
                hub.subscribe("g", View::Full, Role::Spectator),
                Err(GameError::TooManyWatchers { limit: 3 })
            ),
            "three watchers of either view"
        );
        late.seen(3);
        assert_eq!(hub.last_version("g"), Some(3), "the oldest channel's");
        assert_eq!(publish(&hub, 6), Err(Gap { after: 3 }));
        assert_eq!(next(&mut basic), Some(Ok(2)), "the basic channel took it");
        publish(&hub, 4).unwrap();
        publish(&hub, 5).unwrap();
        publish(&hub, 6).unwrap();
        assert_eq!(next(&mut late), Some(Ok(4)));
        assert_eq!(hub.last_version("g"), Some(6));
        drop(late);
        assert_eq!(hub.watched_games(), 1);
    }

    #[test]
    fn a_game_has_at_most_max_per_game_watchers() {
        let hub = hub(1000, 2);
        let first = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let _second = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        let refused = hub
            .subscribe("g", View::Basic, Role::Spectator)
            .unwrap_err();
        assert!(
            matches!(refused, GameError::TooManyWatchers { limit: 2 }),
            "{refused:?}"
        );
        let _other_game = hub.subscribe("h", View::Basic, Role::Spectator).unwrap();
        drop(first);
        hub.subscribe("g", View::Basic, Role::Spectator)
            .expect("a place was freed");
    }

    #[test]
    fn spectators_filling_a_game_leave_its_players_their_streams() {
        let hub = hub(1000, 2);
        let _crowd: Vec<_> = (0..2)
            .map(|_| hub.subscribe("g", View::Full, Role::Spectator).unwrap())
            .collect();
        assert!(hub.subscribe("g", View::Basic, Role::Spectator).is_err());
        let players: Vec<_> = (0..3)
            .map(|_| hub.subscribe("g", View::Basic, Role::Player).unwrap())
            .collect();
        // Players leaving free no spectator's place.
        drop(players);
        assert!(hub.subscribe("g", View::Basic, Role::Spectator).is_err());
    }

    /// A watcher that joins while the last one leaves still gets the next
    /// event (its channel stays in the map).
    #[test]
    fn joining_while_the_last_watcher_leaves_misses_nothing() {
        let hub = hub(1000, 10);
        for version in 1..=2_000 {
            let leaving = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
            let barrier = Arc::new(std::sync::Barrier::new(2));
            let leaver = {
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    drop(leaving);
                })
            };
            barrier.wait();
            let mut joining = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
            leaver.join().unwrap();
            joining.seen(version - 1);
            publish(&hub, version).unwrap();
            assert_eq!(next(&mut joining), Some(Ok(version)), "round {version}");
        }
    }

    #[test]
    fn an_event_wakes_its_waiting_watchers() {
        struct Count(AtomicUsize);
        impl Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let hub = hub(1000, 10);
        let mut watcher = hub.subscribe("g", View::Basic, Role::Spectator).unwrap();
        watcher.seen(0);
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&count));
        assert!(
            watcher
                .poll_next(&mut Context::from_waker(&waker))
                .is_pending()
        );
        publish(&hub, 1).unwrap();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        publish(&hub, 2).unwrap();
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "woken once per wait");
        assert_eq!(next(&mut watcher), Some(Ok(1)));
    }
}
