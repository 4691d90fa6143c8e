//! `Games.WatchGame`: a game's snapshot, or its past events when resuming,
//! then its events, encoded once.
//!
//! A watched game's events carry the game without its move list, or the
//! whole game for watchers that asked for it (the snapshot always does).
//! Built as a generated message for each watcher, one event cost each of
//! them the game again, queued until sent. Here the games' hub holds each
//! event as the gRPC frames of its messages, encoded once per view
//! ([`encode_event`]),
//! and the answer's body (see `routes`) hands those very bytes to HTTP/2: every watcher
//! shares them, even while they wait in a stalled connection's send buffer.
//! The stream reads the hub directly, so a watcher that falls behind is told
//! so (`WATCHER_TOO_SLOW`) rather than queued for. The messages are prost's
//! own bytes (the tests compare them), so clients see no difference. tonic
//! decodes the request and answers errors before the stream; every other
//! `Games` method goes to the generated service.
//!
//! Watchers are capped per game (by the hub: spectators only, so that a
//! game's players always get their streams), per connection and per
//! address (here, by the request's remote address). Resumes
//! (`from_version`), which read the store and replay the game, are capped
//! per caller's address while their past events are told.

use std::{
    collections::VecDeque,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll, ready},
};

use bytes::Bytes;
use tokio_stream::Stream;
use tonic::{Request, Status};

use super::{
    convert,
    error::{resume_limit, shutting_down, watcher_too_slow},
    frames::snapshot,
    proto as pb,
    request::trace_game,
    streams::{Place, Streams},
};
use crate::{
    games::{
        GameView, Games, Published, Replay, Replayed, Role, Status as GameStatus, View, Watcher,
    },
    peers::{Peer, PeerSlot, PeerSlots},
};

/// When a watch stream ends: after the game's end, or (following the
/// rematch) once nothing more happens to the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    GameOver,
    Final,
}

impl Ending {
    fn of(follow_rematch: bool) -> Ending {
        if follow_rematch {
            Ending::Final
        } else {
            Ending::GameOver
        }
    }

    /// Whether nothing follows `game` as it is now.
    fn after(self, game: &GameView) -> bool {
        match self {
            Ending::GameOver => game.outcome.status != GameStatus::Ongoing,
            Ending::Final => game.is_final(),
        }
    }

    /// Whether nothing follows `event`.
    fn at(self, event: &Published) -> bool {
        match self {
            Ending::GameOver => event.game_over,
            Ending::Final => event.ends,
        }
    }
}

/// Opens WatchGame streams.
#[derive(Debug)]
pub struct Watchers {
    games: Games,
    streams: Arc<Streams>,
    /// Resumes telling their past events, per caller.
    resumes: Arc<PeerSlots>,
}

impl Watchers {
    /// Each stream takes a place in `streams`; one address may have at
    /// most `max_resumes_per_peer` resumes telling their past events at
    /// once (0: no limit).
    pub fn new(games: Games, streams: Arc<Streams>, max_resumes_per_peer: usize) -> Watchers {
        Watchers {
            games,
            streams,
            resumes: PeerSlots::new(max_resumes_per_peer),
        }
    }

    /// The watch streams' places and the server's shutdown, which other
    /// streams of the Games service share.
    pub(super) fn streams(&self) -> &Streams {
        &self.streams
    }

    /// The stream of `request`'s game: its snapshot, then its events; or,
    /// resuming after `from_version`, its events after that version.
    pub async fn watch(
        &self,
        request: &Request<pb::WatchGameRequest>,
    ) -> Result<WatchStream, Status> {
        let pb::WatchGameRequest {
            game_id: id,
            from_version,
            view,
            follow_rematch,
            seat_token,
        } = request.get_ref();
        let ending = Ending::of(*follow_rematch);
        let id = &trace_game(id)?;
        let view = convert::view(*view, View::Basic)?;
        let place = request
            .remote_addr()
            .map(|addr| self.streams.take_place(addr))
            .transpose()?;
        let role = if seat_token.is_empty() {
            Role::Spectator
        } else {
            self.games.seat_of(id, seat_token).await?;
            Role::Player
        };
        let (queued, over, watcher, replay) = match *from_version {
            None => {
                let (game, watcher) = self.games.watch(id, view, role).await?;
                let over = ending.after(&game);
                (VecDeque::from([snapshot(&game)]), over, watcher, None)
            }
            Some(version) => {
                let slot = request
                    .remote_addr()
                    .map(|addr| {
                        self.resumes
                            .try_take(Peer::of(addr))
                            .ok_or_else(|| resume_limit(self.resumes.limit()))
                    })
                    .transpose()?;
                let (game, watcher, replay) = self.games.resume(id, version, view, role).await?;
                // The client has seen a finished game's last event.
                let over = ending.after(&game) && game.version == version;
                let resuming = Resuming {
                    replay,
                    _slot: slot,
                };
                (VecDeque::new(), over, watcher, Some(resuming))
            }
        };
        Ok(WatchStream {
            over,
            ending,
            watcher,
            replay,
            queued,
            shutdown: self.streams.shutdown(),
            done: false,
            _place: place,
        })
    }
}

/// A resume's past events, and its caller's place among the resumes until
/// they are told.
struct Resuming {
    replay: Replay,
    _slot: Option<PeerSlot>,
}

/// A game's snapshot (or its past events, when resuming), then its events
/// as framed messages; ends after the game's end, with `WATCHER_TOO_SLOW`
/// for a watcher that fell behind, and with UNAVAILABLE when the server
/// shuts down. Dropping it (the client went away) leaves the game's
/// channel.
pub struct WatchStream {
    /// The game is over: nothing follows the messages queued.
    over: bool,
    /// When the stream ends.
    ending: Ending,
    watcher: Watcher,
    /// The past events to tell before the watcher's, when resuming.
    replay: Option<Resuming>,
    /// Messages not yet sent: the snapshot, or the current event's.
    queued: VecDeque<Bytes>,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    done: bool,
    _place: Option<Place>,
}

impl Stream for WatchStream {
    type Item = Result<Bytes, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        loop {
            if let Some(message) = this.queued.pop_front() {
                return Poll::Ready(Some(Ok(message)));
            }
            if this.over {
                this.done = true;
                return Poll::Ready(None);
            }
            if this.shutdown.as_mut().poll(cx).is_ready() {
                this.done = true;
                return Poll::Ready(Some(Err(shutting_down(
                    "the server is shutting down; watch again",
                ))));
            }
            if let Some(resuming) = &mut this.replay {
                match ready!(resuming.replay.poll_next(&mut this.watcher, cx)) {
                    Ok(Replayed::Event(event)) => {
                        this.over = this.ending.at(&event);
                        this.queued.extend(event.messages);
                    }
                    Ok(Replayed::Snapshot(game)) => {
                        this.over = this.ending.after(&game);
                        this.queued.push_back(snapshot(&game));
                    }
                    Ok(Replayed::Done) => this.replay = None,
                    Err(error) => {
                        this.done = true;
                        return Poll::Ready(Some(Err(error.into())));
                    }
                }
                continue;
            }
            match ready!(this.watcher.poll_next(cx)) {
                Some(Ok(event)) => {
                    this.over = this.ending.at(&event);
                    this.queued.extend(event.messages.iter().cloned());
                }
                Some(Err(behind)) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(watcher_too_slow(behind))));
                }
                None => {
                    this.done = true;
                    return Poll::Ready(None);
                }
            }
        }
    }
}
