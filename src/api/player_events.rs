//! `Players.WatchEvents`: one stream of a player's games and challenges.
//!
//! What must not be missed (games started and ended, challenges made,
//! withdrawn and declined) is read from the player's log in the store
//! (`store::player_log`), written with the change that caused it: each
//! message carries the number of the last entry told as its cursor, and a
//! stream resumed after a cursor reads on from there, so nothing is told
//! twice or skipped. Turns and offers are state, not logged: each followed
//! game's watcher tells them as WatchPlayer does, and a resumed stream
//! tells them as they stand.
//!
//! A task per stream looks (reads the log, and what is going on) when the
//! stream opens, whenever the player's bell rings (a game of theirs created
//! or ended here, a challenge made to or answered for them, an entry logged
//! by another server, heard through the change feed), when a followed game
//! ends, and every [`LOOK_EVERY`] (for challenges open to anyone, which are
//! not logged); it follows each ongoing game as WatchPlayer follows a
//! seat, and sends the reader what concerns the player. The channel to the
//! reader holds [`QUEUED`] messages: a reader that stops reading stops the
//! task, whose games' watchers then fall behind and end the stream with
//! `WATCHER_TOO_SLOW`.

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
    error::{ErrorStatus, shutting_down, too_many_watchers},
    proto as pb,
    seat_events::{Seat, Told, is_end, player_events, poll_seats},
    streams::Place,
};
use crate::{
    games::{GameError, GameId, Games, SeatClaim, View},
    players::{Challenge, ChallengeStatus, Challenges, Players},
    reason::Reason,
    rules::Side,
    store::{GameFilter, Logged, LoggedEvent},
};

/// How often a stream looks without its bell.
pub const LOOK_EVERY: Duration = Duration::from_secs(5);
/// Logged events read at once.
const LOG_PAGE: usize = 64;
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

/// Where a stream starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// From what is going on now; `head` is the number of the player's last
    /// logged event when the stream opened.
    Now { head: i64 },
    /// After the player's logged event numbered so (checked to be kept).
    After(i64),
}

/// Where player `id`'s stream starts: after the cursor `after`, or (empty)
/// from now.
///
/// # Errors
///
/// OUT_OF_RANGE `EVENTS_EXPIRED` for a cursor whose events are no longer
/// all kept (or that is not one of the player's), or storage.
pub(super) async fn start(players: &Players, id: &str, after: &str) -> Result<Start, Status> {
    if after.is_empty() {
        return Ok(Start::Now {
            head: players.events_head(id).await?,
        });
    }
    match after.parse::<i64>() {
        Ok(after) if players.events_kept_after(id, after).await? => Ok(Start::After(after)),
        _ => Err(ErrorStatus::new(
            Reason::EventsExpired,
            format!(
                "the events after this cursor are no longer all kept (they are kept {} h), or \
                 it is not one of the player's: watch without `after` and load the state again",
                players.event_retention().as_secs() / 3600
            ),
        )
        .into()),
    }
}

/// What a stream reads from.
pub(super) struct Sources {
    pub(super) games: Games,
    pub(super) challenges: Challenges,
    pub(super) players: Players,
}

/// The stream of `player`'s events from `start`, following at most
/// `max_games` games.
pub(super) fn watch(
    sources: Sources,
    player: String,
    start: Start,
    max_games: usize,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    held: Held,
) -> EventStream {
    let (tx, rx) = mpsc::channel(QUEUED);
    let cursor = match start {
        Start::Now { head } => head,
        Start::After(after) => after,
    };
    let task = Task {
        bell: sources.games.bells().listen(&player),
        games: sources.games,
        challenges: sources.challenges,
        players: sources.players,
        player,
        max_games,
        tx,
        followed: Vec::new(),
        next: 0,
        cursor,
        first: Some(start),
        more: false,
        open_told: HashSet::new(),
        out: Vec::new(),
    };
    tokio::spawn(task.run(shutdown, held));
    Box::pin(ReceiverStream::new(rx))
}

struct Task {
    games: Games,
    challenges: Challenges,
    players: Players,
    player: String,
    max_games: usize,
    tx: mpsc::Sender<Result<pb::WatchEventsResponse, Status>>,
    bell: tokio::sync::watch::Receiver<u64>,
    followed: Vec<Seat>,
    /// The followed game read first next time, so that a busy game does
    /// not keep the others waiting.
    next: usize,
    /// The number of the last logged event told, or covered by what the
    /// stream told of the state it opened on.
    cursor: i64,
    /// Where the stream starts, until its first look.
    first: Option<Start>,
    /// Ongoing games were left unfollowed (no room, or at their watchers'
    /// limit): the next look lists them again.
    more: bool,
    /// The challenges open to anyone (not logged) waiting at the last
    /// look, told.
    open_told: HashSet<String>,
    /// Messages to send, each with the cursor at the time it was made.
    out: Vec<pb::WatchEventsResponse>,
}

impl Task {
    async fn run(
        mut self,
        mut shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
        _held: Held,
    ) {
        loop {
            if let Err(status) = self.look().await {
                let _ = self.tx.send(Err(status)).await;
                return;
            }
            if !self.flush().await {
                return;
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
                    Ok((events, dropped)) => {
                        for event in events {
                            self.push(game_event(event));
                        }
                        if !self.flush().await {
                            return;
                        }
                        // A game that ended: its end is logged by now, and
                        // told from the log.
                        if dropped {
                            break;
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

    /// Sends the messages made; false once the reader is gone.
    async fn flush(&mut self) -> bool {
        for message in std::mem::take(&mut self.out) {
            if self.tx.send(Ok(message)).await.is_err() {
                return false;
            }
        }
        true
    }

    fn push(&mut self, mut message: pb::WatchEventsResponse) {
        message.cursor = self.cursor.to_string();
        self.out.push(message);
    }

    /// Tells what was logged after the cursor, and on the first look what
    /// is going on: on a stream from now, the ongoing games (GAME_STARTED)
    /// and waiting challenges but those the log tells after; on a resumed
    /// one, the turns and offers of the ongoing games. Ongoing games are
    /// listed before the log is read: a game listed has its start logged
    /// by then.
    async fn look(&mut self) -> Result<(), Status> {
        let first = self.first.take();
        let ongoing = if first.is_some() || self.more {
            self.ongoing().await?
        } else {
            Vec::new()
        };
        self.more = false;
        let (incoming, _) = self.challenges.list(&self.player).await?;
        if let Some(Start::Now { .. }) = first {
            let mut logged = Vec::new();
            loop {
                let page = self.log_page(logged.last()).await?;
                let full = page.len() == LOG_PAGE;
                logged.extend(page);
                if !full {
                    break;
                }
            }
            let told_after: HashSet<&str> = logged
                .iter()
                .filter(|e| matches!(e.kind, Logged::GameStarted | Logged::Challenge))
                .map(|e| e.subject.as_str())
                .collect();
            for id in ongoing
                .iter()
                .filter(|id| !told_after.contains(id.as_str()))
            {
                self.follow_new(id, true).await?;
            }
            // Listed newest first: told in the order they were made.
            for waiting in incoming.iter().rev() {
                let stored = &waiting.stored;
                let logged = stored.destination.is_some() || !stored.open_to.is_empty();
                if logged && !told_after.contains(stored.id.as_str()) {
                    self.push(challenge_event(pb::PlayerEventKind::Challenge, waiting));
                }
            }
            for entry in logged {
                self.tell(entry).await?;
            }
        } else {
            loop {
                let page = self.log_page(None).await?;
                let full = page.len() == LOG_PAGE;
                for entry in page {
                    self.tell(entry).await?;
                }
                if !self.flush().await {
                    return Err(Status::cancelled("the reader is gone"));
                }
                if !full {
                    break;
                }
            }
            for id in &ongoing {
                self.follow_new(id, false).await?;
            }
        }
        self.tell_open_challenges(&incoming).await
    }

    /// The ids of the player's ongoing games, as many as may be followed.
    async fn ongoing(&self) -> Result<Vec<String>, Status> {
        let ongoing = self
            .games
            .list(GameFilter {
                finished: Some(false),
                player_id: Some(self.player.clone()),
                limit: u32::try_from(self.max_games).unwrap_or(u32::MAX),
                ..GameFilter::default()
            })
            .await?;
        Ok(ongoing
            .items
            .into_iter()
            .map(|game| game.id.to_string())
            .collect())
    }

    /// A page of the player's log after `after` (`None`: the cursor).
    async fn log_page(&self, after: Option<&LoggedEvent>) -> Result<Vec<LoggedEvent>, Status> {
        let after = after.map_or(self.cursor, |entry| entry.seq);
        Ok(self
            .players
            .events_after(&self.player, after, LOG_PAGE)
            .await?)
    }

    /// Tells the logged `entry`, which the cursor moves to.
    async fn tell(&mut self, entry: LoggedEvent) -> Result<(), Status> {
        self.cursor = entry.seq;
        let id = entry.subject.as_str();
        let kind = match entry.kind {
            Logged::GameStarted => {
                if self.follow_new(id, true).await? {
                    return Ok(());
                }
                // Not followed: over already (its end is logged after),
                // or no room for it yet.
                pb::PlayerEventKind::GameStarted
            }
            Logged::GameEnded => {
                self.followed.retain(|seat| seat.game_id != id);
                pb::PlayerEventKind::GameEnded
            }
            Logged::Challenge => pb::PlayerEventKind::Challenge,
            Logged::ChallengeCanceled => pb::PlayerEventKind::ChallengeCanceled,
            Logged::ChallengeDeclined => pb::PlayerEventKind::ChallengeDeclined,
        };
        if matches!(entry.kind, Logged::GameStarted | Logged::GameEnded) {
            let found = match GameId::parse(id) {
                Ok(id) => self.games.get(&id).await,
                Err(malformed) => Err(malformed),
            };
            let view = match found {
                Ok(view) => view,
                Err(GameError::NotFound(_)) => return Ok(()),
                Err(other) => return Err(other.into()),
            };
            let side = if view.white_player.as_deref() == Some(self.player.as_str()) {
                Side::White
            } else {
                Side::Black
            };
            self.push(game_event(pb::WatchPlayerResponse {
                kind: kind as i32,
                game: Some(convert::game_in(&view, View::Basic)),
                side: convert::side(side),
                r#move: None,
            }));
        } else {
            match self.challenges.challenge(id).await {
                Ok(about) => self.push(challenge_event(kind, &about)),
                Err(GameError::NotFound(_)) => {}
                Err(other) => return Err(other.into()),
            }
        }
        Ok(())
    }

    /// Follows game `id`, telling its turn and offers as they stand (after
    /// GAME_STARTED if `started`), unless it is followed already (true),
    /// over, or there is no room for it (false).
    async fn follow_new(&mut self, id: &str, started: bool) -> Result<bool, Status> {
        if self.followed.iter().any(|seat| seat.game_id == id) {
            return Ok(true);
        }
        if self.followed.len() >= self.max_games {
            self.more = true;
            return Ok(false);
        }
        let followed = match GameId::parse(id) {
            Ok(id) => {
                self.games
                    .follow(&id, SeatClaim::Player(&self.player))
                    .await
            }
            Err(malformed) => Err(malformed),
        };
        let followed = match followed {
            Ok(followed) => followed,
            Err(GameError::TooManyWatchers { .. }) => {
                self.more = true;
                return Ok(false);
            }
            Err(GameError::NotFound(_)) => return Ok(false),
            Err(other) => return Err(other.into()),
        };
        let view = convert::game_in(&followed.game, View::Basic);
        let mut told = Told::default();
        let told_now = player_events(followed.side, &mut told, &view, None);
        if told_now.iter().any(is_end) {
            return Ok(false);
        }
        if started {
            self.push(game_event(pb::WatchPlayerResponse {
                kind: pb::PlayerEventKind::GameStarted as i32,
                game: Some(view),
                side: convert::side(followed.side),
                r#move: None,
            }));
        }
        for event in told_now {
            self.push(game_event(event));
        }
        self.followed.push(Seat {
            game_id: id.to_owned(),
            side: followed.side,
            watcher: followed.watcher,
            told,
        });
        Ok(true)
    }

    /// Tells the challenges open to anyone that wait now and were not
    /// told, and the withdrawal of those told that no longer wait (these
    /// are not logged: there is no one player to log them for).
    async fn tell_open_challenges(&mut self, incoming: &[Challenge]) -> Result<(), Status> {
        let open: Vec<&Challenge> = incoming
            .iter()
            .filter(|c| c.stored.destination.is_none() && c.stored.open_to.is_empty())
            .collect();
        // Listed newest first: told in the order they were made.
        for waiting in open.iter().rev() {
            if !self.open_told.contains(&waiting.stored.id) {
                self.push(challenge_event(pb::PlayerEventKind::Challenge, waiting));
            }
        }
        let waiting: HashSet<String> = open.iter().map(|c| c.stored.id.clone()).collect();
        let gone: Vec<String> = self.open_told.difference(&waiting).cloned().collect();
        self.open_told = waiting;
        for id in gone {
            match self.challenges.challenge(&id).await {
                Ok(about) if about.status == ChallengeStatus::Canceled => {
                    self.push(challenge_event(
                        pb::PlayerEventKind::ChallengeCanceled,
                        &about,
                    ));
                }
                Ok(_) | Err(GameError::NotFound(_)) => {}
                Err(other) => return Err(other.into()),
            }
        }
        Ok(())
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
        ..Default::default()
    }
}

/// The next turns and offers of the followed games, and whether a game
/// stopped being followed (it ended: its end is logged); pending while
/// nothing is followed.
async fn next_events(
    followed: &mut Vec<Seat>,
    next: &mut usize,
) -> Result<(Vec<pb::WatchPlayerResponse>, bool), Status> {
    let count = followed.len();
    let mut told = std::future::poll_fn(|cx| poll_seats(followed, next, cx)).await?;
    told.retain(|event| !is_end(event));
    Ok((told, followed.len() < count))
}
