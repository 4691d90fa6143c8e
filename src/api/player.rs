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
    error::{invalid_argument, player_too_slow, shutting_down, too_many_watchers},
    frames::unframed,
    proto as pb,
    request::trace_game,
    streams::{Place, Streams},
};
use crate::{
    games::{FollowedSeat, Games, View, Watcher},
    reason::Reason,
    rules::Side,
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
}

/// Opens WatchPlayer streams, within their limits.
#[derive(Debug)]
pub struct PlayerStreams {
    games: Games,
    streams: Arc<Streams>,
    limits: PlayerLimits,
    /// Player streams open now.
    open: Arc<AtomicUsize>,
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
        }
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

/// A stream's place among the open player streams, given back on drop.
#[derive(Debug)]
struct Opened(Arc<AtomicUsize>);

impl Drop for Opened {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a seat has been told of its game's state.
#[derive(Debug, Default, PartialEq, Eq)]
struct Told {
    /// The ply its turn was told at, while it is still its turn.
    turn: Option<u32>,
    /// The opponent's pending draw offer was told.
    draw_offer: bool,
    /// The opponent's pending takeback proposal was told.
    takeback_offer: bool,
}

/// A seat followed.
#[derive(Debug)]
struct Seat {
    game_id: String,
    side: Side,
    watcher: Watcher,
    told: Told,
}

/// The player's events for the game `game` (after the move `played`, if
/// one was), seen from `side`, given what was `told` before; updates
/// `told`. The game is over if the last event is `GAME_ENDED`.
fn player_events(
    side: Side,
    told: &mut Told,
    game: &pb::Game,
    played: Option<&pb::PlayedMove>,
) -> Vec<pb::WatchPlayerResponse> {
    let event =
        |kind: pb::PlayerEventKind, played: Option<&pb::PlayedMove>| pb::WatchPlayerResponse {
            kind: kind as i32,
            game: Some(game.clone()),
            side: convert::side(side),
            r#move: played.cloned(),
        };
    let ongoing = game
        .outcome
        .as_ref()
        .is_some_and(|o| o.status == pb::OutcomeStatus::Ongoing as i32);
    if !ongoing {
        return vec![event(pb::PlayerEventKind::GameEnded, None)];
    }
    let mine = convert::side(side);
    let theirs = convert::side(side.other());
    let mut events = Vec::new();
    let draw_offer = game.draw_offer == theirs;
    if draw_offer && !told.draw_offer {
        events.push(event(pb::PlayerEventKind::DrawOffered, None));
    }
    told.draw_offer = draw_offer;
    let takeback_offer = game.takeback_offer == theirs;
    if takeback_offer && !told.takeback_offer {
        events.push(event(pb::PlayerEventKind::TakebackProposed, None));
    }
    told.takeback_offer = takeback_offer;
    if game.turn != mine {
        told.turn = None;
    } else if told.turn != Some(game.ply) {
        told.turn = Some(game.ply);
        events.push(event(pb::PlayerEventKind::YourTurn, played));
    }
    events
}

fn is_end(event: &pb::WatchPlayerResponse) -> bool {
    event.kind == pb::PlayerEventKind::GameEnded as i32
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
            trace_game(&asked.game_id)?;
            let FollowedSeat {
                game,
                side,
                watcher,
            } = self
                .games
                .follow_seat(&asked.game_id, &asked.seat_token)
                .await?;
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

impl PlayerStream {
    /// Reads the seats' watchers in turn until one has an event (its
    /// player events queued, the seat dropped once its game ended).
    fn poll_seats(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Status>> {
        for _ in 0..self.seats.len() {
            let index = self.next % self.seats.len();
            self.next = index + 1;
            let seat = &mut self.seats[index];
            let event = match seat.watcher.poll_next(cx) {
                Poll::Pending => continue,
                Poll::Ready(None) => None,
                Poll::Ready(Some(Err(behind))) => {
                    return Poll::Ready(Err(player_too_slow(&seat.game_id, behind)));
                }
                Poll::Ready(Some(Ok(event))) => Some(event),
            };
            let mut ended = event.is_none();
            for frame in event.iter().flat_map(|event| &event.messages) {
                let message = unframed(frame)?;
                let Some(game) = &message.game else { continue };
                let events =
                    player_events(seat.side, &mut seat.told, game, message.r#move.as_ref());
                ended = events.iter().any(is_end);
                self.queued.extend(events);
                if ended {
                    break;
                }
            }
            if ended {
                self.seats.swap_remove(index);
            }
            return Poll::Ready(Ok(()));
        }
        Poll::Pending
    }
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
            if let Err(status) = std::task::ready!(this.poll_seats(cx)) {
                this.done = true;
                return Poll::Ready(Some(Err(status)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(turn: pb::Side, ply: u32, draw_offer: pb::Side, status: pb::OutcomeStatus) -> pb::Game {
        pb::Game {
            turn: turn as i32,
            ply,
            draw_offer: draw_offer as i32,
            outcome: Some(pb::Outcome {
                status: status as i32,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn kinds(events: &[pb::WatchPlayerResponse]) -> Vec<pb::PlayerEventKind> {
        events
            .iter()
            .map(|e| pb::PlayerEventKind::try_from(e.kind).unwrap())
            .collect()
    }

    /// Each turn, offer and end is told once, as the game's state shows it.
    #[test]
    fn a_seat_is_told_its_turns_offers_and_end_once_each() {
        use pb::{
            OutcomeStatus::{Drawn, Ongoing},
            PlayerEventKind::{DrawOffered, GameEnded, YourTurn},
            Side::*,
        };
        let mut told = Told::default();
        let black = Side::Black;
        let mut step = |g: pb::Game| kinds(&player_events(black, &mut told, &g, None));
        assert_eq!(step(game(White, 0, Unspecified, Ongoing)), []);
        assert_eq!(step(game(Black, 1, Unspecified, Ongoing)), [YourTurn]);
        assert_eq!(
            step(game(Black, 1, White, Ongoing)),
            [DrawOffered],
            "no second turn"
        );
        assert_eq!(step(game(White, 2, Unspecified, Ongoing)), []);
        assert_eq!(step(game(Black, 3, Unspecified, Ongoing)), [YourTurn]);
        // A takeback to the same ply gives the turn back: told again.
        assert_eq!(step(game(White, 2, Unspecified, Ongoing)), []);
        assert_eq!(
            step(game(Black, 3, White, Ongoing)),
            [DrawOffered, YourTurn]
        );
        assert_eq!(step(game(Unspecified, 3, Unspecified, Drawn)), [GameEnded]);
    }
}
