//! `Games.WatchPlayer`: one stream of a player's games, by the seats it
//! holds. Each seat is a watcher of its game's basic events (encoded once
//! by the games' hub for every watcher, and heard from other servers
//! through the store's change feed like any watch); the stream reads them
//! in turn and tells the player what concerns it: the game started, its
//! turn, an offer to answer, the end. It holds no queue of its own beyond
//! one event's messages, so a reader that falls behind one of its games is
//! ended with `WATCHER_TOO_SLOW` as a game's watcher is.
//!
//! Bounded: seats per stream and streams in all (the flags of
//! [`PlayerLimits`]); each stream takes one of its connection's watch
//! streams, and each seat one of its game's watchers.

use std::{
    collections::{HashSet, VecDeque},
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    task::{Context, Poll},
};

use tokio_stream::Stream;
use tonic::{Request, Status};

use super::{
    convert,
    error::{invalid_argument, shutting_down, too_many_watchers},
    player_events::{self, EventStream, Held, Opened, PerPlayer, Sources, Start},
    proto as pb,
    request::trace_game,
    seat_events::{Seat, Told, is_end, player_events, poll_seats},
    seek_streams::{self, LobbyStream, SeekStream},
    streams::{Place, Streams},
};
use crate::{
    games::{FollowedSeat, Games, View},
    players::{Challenges, Players, Seeks},
    reason::Reason,
    rules::Variant,
    store::StoredSeek,
};

/// Default [`PlayerLimits::max_seats`].
pub const DEFAULT_PLAYER_STREAM_MAX_SEATS: usize = 64;
/// Default [`PlayerLimits::max_streams`].
pub const DEFAULT_MAX_PLAYER_STREAMS: usize = 1000;

/// How far player streams go.
#[derive(Clone, Copy, Debug)]
pub struct PlayerLimits {
    /// Seats one stream may follow.
    pub max_seats: usize,
    /// Player streams open at once on this server.
    pub max_streams: usize,
    /// WatchEvents streams one player may have open at once.
    pub max_per_player: usize,
}

/// Opens WatchPlayer and WatchEvents streams, within their limits.
#[derive(Clone, Debug)]
pub struct PlayerStreams {
    games: Games,
    streams: Arc<Streams>,
    limits: PlayerLimits,
    /// Player streams open now.
    open: Arc<AtomicUsize>,
    /// WatchEvents streams open now, by player.
    per_player: Arc<PerPlayer>,
}

impl PlayerStreams {
    /// Each stream takes a place in `streams`, and follows its seats within
    /// `limits`.
    pub fn new(games: Games, streams: Arc<Streams>, limits: PlayerLimits) -> PlayerStreams {
        PlayerStreams {
            games,
            streams,
            limits,
            open: Arc::default(),
            per_player: Arc::default(),
        }
    }

    /// The WatchEvents stream of `player`, who makes `request`, from
    /// `start`.
    pub(super) fn watch_events<T>(
        &self,
        request: &Request<T>,
        player: String,
        start: Start,
        (challenges, players): (Challenges, Players),
    ) -> Result<EventStream, Status> {
        let player_place = self.per_player.take(&player, self.limits.max_per_player)?;
        let opened = self.take()?;
        let place = request
            .remote_addr()
            .map(|addr| self.streams.take_place(addr))
            .transpose()?;
        Ok(player_events::watch(
            Sources {
                games: self.games.clone(),
                challenges,
                players,
            },
            player,
            start,
            self.limits.max_seats,
            self.streams.shutdown(),
            Held {
                _opened: opened,
                _player_place: player_place,
                _place: place,
            },
        ))
    }

    /// The places a Seek or WatchLobby stream holds: one among the open
    /// player streams, one among its connection's and address's.
    fn hold<T>(&self, request: &Request<T>) -> Result<(Opened, Option<Place>), Status> {
        let opened = self.take()?;
        let place = request
            .remote_addr()
            .map(|addr| self.streams.take_place(addr))
            .transpose()?;
        Ok((opened, place))
    }

    /// The stream of `seek`, just made by `request`'s caller (a
    /// correspondence seek's holds no place: it ends at once).
    pub(super) fn seek<T>(
        &self,
        request: &Request<T>,
        seeks: Seeks,
        seek: StoredSeek,
    ) -> Result<SeekStream, Status> {
        let held = if seek.holder.is_some() {
            Some(self.hold(request)?)
        } else {
            None
        };
        Ok(seek_streams::seek(
            seeks,
            self.games.clone(),
            seek,
            self.streams.shutdown(),
            held,
        ))
    }

    /// The lobby's stream, of `variant`'s seeks only if given.
    pub(super) fn lobby<T>(
        &self,
        request: &Request<T>,
        seeks: &Seeks,
        variant: Option<Variant>,
    ) -> Result<LobbyStream, Status> {
        let held = self.hold(request)?;
        Ok(seek_streams::lobby(
            seeks.watch_lobby(),
            variant,
            self.streams.shutdown(),
            held,
        ))
    }

    /// A place among the open streams.
    fn take(&self) -> Result<Opened, Status> {
        let max = self.limits.max_streams;
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| too_many_watchers("player_streams", max))?;
        Ok(Opened(Arc::clone(&self.open)))
    }
}

impl PlayerStreams {
    /// The stream of `request`'s seats: `GAME_STARTED` (and what is
    /// pending) for each ongoing game, `GAME_ENDED` for each finished
    /// one, then their events.
    pub async fn watch_player(
        &self,
        request: &Request<pb::WatchPlayerRequest>,
    ) -> Result<PlayerStream, Status> {
        let asked = &request.get_ref().seats;
        let max_seats = self.limits.max_seats;
        if asked.is_empty() {
            return Err(invalid_argument(
                "seats",
                Reason::MissingField,
                "name at least one seat: its game_id and seat_token",
            ));
        }
        if asked.len() > max_seats {
            return Err(invalid_argument(
                "seats",
                Reason::TooLong,
                format!("at most {max_seats} seats may be followed by one stream"),
            ));
        }
        let opened = self.take()?;
        let place = request
            .remote_addr()
            .map(|addr| self.streams.take_place(addr))
            .transpose()?;
        let mut distinct = HashSet::new();
        let mut seats = Vec::new();
        let mut queued = VecDeque::new();
        for asked in asked {
            if !distinct.insert((&asked.game_id, &asked.seat_token)) {
                continue;
            }
            let id = trace_game(&asked.game_id)?;
            let FollowedSeat {
                game,
                side,
                watcher,
            } = self.games.follow_seat(&id, &asked.seat_token).await?;
            let game = convert::game_in(&game, View::Basic);
            let mut told = Told::default();
            let events = player_events(side, &mut told, &game, None);
            if !events.iter().any(is_end) {
                queued.push_back(pb::WatchPlayerResponse {
                    kind: pb::PlayerEventKind::GameStarted as i32,
                    game: Some(game.clone()),
                    side: convert::side(side),
                    r#move: None,
                });
                seats.push(Seat {
                    game_id: asked.game_id.clone(),
                    side,
                    watcher,
                    told,
                });
            }
            queued.extend(events);
        }
        Ok(PlayerStream {
            seats,
            next: 0,
            queued,
            shutdown: self.streams.shutdown(),
            done: false,
            _opened: opened,
            _place: place,
        })
    }
}

/// A player's games' events; ends once every game followed has ended, with
/// `WATCHER_TOO_SLOW` if it fell behind one, and with UNAVAILABLE when the
/// server shuts down.
pub struct PlayerStream {
    seats: Vec<Seat>,
    /// The seat read first next time, so that a busy game does not keep
    /// the others waiting.
    next: usize,
    queued: VecDeque<pb::WatchPlayerResponse>,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    done: bool,
    _opened: Opened,
    _place: Option<Place>,
}

impl Stream for PlayerStream {
    type Item = Result<pb::WatchPlayerResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if let Some(event) = this.queued.pop_front() {
                return Poll::Ready(Some(Ok(event)));
            }
            if this.seats.is_empty() {
                this.done = true;
                continue;
            }
            if this.shutdown.as_mut().poll(cx).is_ready() {
                this.done = true;
                return Poll::Ready(Some(Err(shutting_down(
                    "the server is shutting down; watch again",
                ))));
            }
            match std::task::ready!(poll_seats(&mut this.seats, &mut this.next, cx)) {
                Ok(events) => this.queued.extend(events),
                Err(status) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(status)));
                }
            }
        }
    }
}
