//! `Players.WatchEvents`: one stream of a player's games and challenges.
//!
//! A task per stream looks at the player's ongoing games and waiting
//! challenges when the stream opens, whenever the player's bell rings (a
//! game of theirs created here, a challenge made to them) and every
//! [`LOOK_EVERY`] (for what other servers did); it follows each game it
//! finds as WatchPlayer follows a seat, and sends the reader what concerns
//! the player. The channel to the reader holds [`QUEUED`] messages: a
//! reader that stops reading stops the task, whose games' watchers then
//! fall behind and end the stream with `WATCHER_TOO_SLOW`.

use std::{
    collections::{HashMap, HashSet},
    pin::Pin,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use tokio::sync::mpsc;
use tokio_stream::{Stream, wrappers::ReceiverStream};
use tonic::Status;

use super::{
    convert::{self, challenge},
    error::{shutting_down, too_many_watchers},
    proto as pb,
    seat_events::{Seat, Told, is_end, player_events, poll_seats},
    streams::Place,
};
use crate::{
    games::{GameError, Games, SeatClaim, View},
    players::{Challenge, ChallengeStatus, Challenges},
    store::GameFilter,
};

/// How often a stream looks for what other servers did.
pub const LOOK_EVERY: Duration = Duration::from_secs(5);
/// Default `--max-streams-per-player`.
pub const DEFAULT_MAX_STREAMS_PER_PLAYER: usize = 8;
/// Messages waiting for the reader.
const QUEUED: usize = 64;

/// A WatchEvents stream.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchEventsResponse, Status>> + Send>>;

/// A stream's place among the open player streams, given back on drop.
#[derive(Debug)]
pub(super) struct Opened(pub(super) Arc<AtomicUsize>);

impl Drop for Opened {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The streams each player has open, within a limit.
#[derive(Debug, Default)]
pub struct PerPlayer {
    open: Mutex<HashMap<String, usize>>,
}

impl PerPlayer {
    /// A place among `player`'s streams, if they have fewer than `max`.
    pub(super) fn take(self: &Arc<Self>, player: &str, max: usize) -> Result<PlayerPlace, Status> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(player.to_owned()).or_default();
        if *count >= max {
            return Err(too_many_watchers("player", max));
        }
        *count += 1;
        Ok(PlayerPlace {
            of: Arc::clone(self),
            player: player.to_owned(),
        })
    }
}

/// A stream's place among its player's, given back on drop.
#[derive(Debug)]
pub(super) struct PlayerPlace {
    of: Arc<PerPlayer>,
    player: String,
}

impl Drop for PlayerPlace {
    fn drop(&mut self) {
        let mut open = self.of.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.player) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.player);
            }
        }
    }
}

/// What a stream holds while it runs: places given back when it ends.
pub(super) struct Held {
    pub(super) _opened: Opened,
    pub(super) _player_place: PlayerPlace,
    pub(super) _place: Option<Place>,
}

/// The stream of `player`'s events, following at most `max_games` games.
pub(super) fn watch(
    games: Games,
    challenges: Challenges,
    player: String,
    max_games: usize,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    held: Held,
) -> EventStream {
    let (tx, rx) = mpsc::channel(QUEUED);
    let task = Task {
        bell: games.bells().listen(&player),
        games,
        challenges,
        player,
        max_games,
        tx,
        followed: Vec::new(),
        next: 0,
        told_challenges: HashSet::new(),
    };
    tokio::spawn(task.run(shutdown, held));
    Box::pin(ReceiverStream::new(rx))
}

struct Task {
    games: Games,
    challenges: Challenges,
    player: String,
    max_games: usize,
    tx: mpsc::Sender<Result<pb::WatchEventsResponse, Status>>,
    bell: tokio::sync::watch::Receiver<u64>,
    followed: Vec<Seat>,
    /// The followed game read first next time, so that a busy game does
    /// not keep the others waiting.
    next: usize,
    /// The challenges waiting at the last look, made to the player (told)
    /// or by them.
    told_challenges: HashSet<String>,
}

impl Task {
    async fn run(
        mut self,
        mut shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
        _held: Held,
    ) {
        loop {
            let looked = match self.look().await {
                Ok(events) => events.into_iter().map(Ok).collect(),
                Err(status) => vec![Err(status)],
            };
            for message in looked {
                let last = message.is_err();
                if self.tx.send(message).await.is_err() || last {
                    return;
                }
            }
            let next_look = tokio::time::Instant::now() + LOOK_EVERY;
            loop {
                let heard = tokio::select! {
                    () = &mut shutdown => Err(shutting_down("the server is shutting down; watch again")),
                    () = self.tx.closed() => return,
                    rung = self.bell.changed() => match rung {
                        Ok(()) => break,
                        Err(_) => return,
                    },
                    () = tokio::time::sleep_until(next_look) => break,
                    heard = next_events(&mut self.followed, &mut self.next) => heard,
                };
                match heard {
                    Ok(events) => {
                        for event in events {
                            if self.tx.send(Ok(event)).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(status) => {
                        let _ = self.tx.send(Err(status)).await;
                        return;
                    }
                }
            }
        }
    }

    /// The player's games not followed yet, and challenges not told yet.
    async fn look(&mut self) -> Result<Vec<pb::WatchEventsResponse>, Status> {
        let mut events = Vec::new();
        let room = self.max_games.saturating_sub(self.followed.len());
        if room > 0 {
            let ongoing = self
                .games
                .list(GameFilter {
                    finished: Some(false),
                    player_id: Some(self.player.clone()),
                    limit: u32::try_from(self.max_games).unwrap_or(u32::MAX),
                    ..GameFilter::default()
                })
                .await?;
            let new: Vec<String> = ongoing
                .items
                .into_iter()
                .map(|game| game.id)
                .filter(|id| !self.followed.iter().any(|seat| &seat.game_id == id))
                .take(room)
                .collect();
            for id in new {
                let followed = match self
                    .games
                    .follow(&id, SeatClaim::Player(&self.player))
                    .await
                {
                    Ok(followed) => followed,
                    // Gone since it was listed, or at its watchers' limit:
                    // looked at again next time.
                    Err(GameError::NotFound(_) | GameError::TooManyWatchers { .. }) => continue,
                    Err(other) => return Err(other.into()),
                };
                let view = convert::game_in(&followed.game, View::Basic);
                let mut told = Told::default();
                let told_now = player_events(followed.side, &mut told, &view, None);
                if told_now.iter().any(is_end) {
                    continue;
                }
                events.push(game_event(pb::WatchPlayerResponse {
                    kind: pb::PlayerEventKind::GameStarted as i32,
                    game: Some(view.clone()),
                    side: convert::side(followed.side),
                    r#move: None,
                }));
                events.extend(told_now.into_iter().map(game_event));
                self.followed.push(Seat {
                    game_id: id,
                    side: followed.side,
                    watcher: followed.watcher,
                    told,
                });
            }
        }
        let (incoming, outgoing) = self.challenges.list(&self.player).await?;
        // Listed newest first; told in the order they were made.
        for waiting in incoming.iter().rev() {
            if !self.told_challenges.contains(&waiting.stored.id) {
                events.push(challenge_event(pb::PlayerEventKind::Challenge, waiting));
            }
        }
        // Those no longer waiting were answered: withdrawn ones made to
        // the player, declined ones the player made, are told.
        let waiting: HashSet<String> = incoming
            .iter()
            .chain(&outgoing)
            .map(|c| c.stored.id.clone())
            .collect();
        for gone in self.told_challenges.difference(&waiting) {
            let Ok(answered) = self.challenges.challenge(gone).await else {
                continue;
            };
            let mine = answered.stored.challenger == self.player;
            let kind = match answered.status {
                ChallengeStatus::Canceled if !mine => pb::PlayerEventKind::ChallengeCanceled,
                ChallengeStatus::Declined if mine => pb::PlayerEventKind::ChallengeDeclined,
                _ => continue,
            };
            events.push(challenge_event(kind, &answered));
        }
        self.told_challenges = waiting;
        Ok(events)
    }
}

fn challenge_event(kind: pb::PlayerEventKind, about: &Challenge) -> pb::WatchEventsResponse {
    pb::WatchEventsResponse {
        kind: kind as i32,
        challenge: Some(challenge(about)),
        ..Default::default()
    }
}

fn game_event(event: pb::WatchPlayerResponse) -> pb::WatchEventsResponse {
    pb::WatchEventsResponse {
        kind: event.kind,
        game: event.game,
        side: event.side,
        r#move: event.r#move,
        challenge: None,
    }
}

/// The next events of the followed games (a game that ended is no longer
/// followed); pending while nothing is followed.
async fn next_events(
    followed: &mut Vec<Seat>,
    next: &mut usize,
) -> Result<Vec<pb::WatchEventsResponse>, Status> {
    let told = std::future::poll_fn(|cx| poll_seats(followed, next, cx)).await?;
    Ok(told.into_iter().map(game_event).collect())
}
