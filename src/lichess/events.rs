//! `GET /api/stream/event`: Players.WatchEvents as Lichess's event stream
//! (`gameStart`, `gameFinish`, `challenge`, `challengeCanceled`,
//! `challengeDeclined`). As on Lichess, a token's second stream replaces
//! its first, and a stream opened again tells the games in play and the
//! waiting challenges first (WatchEvents does).

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_stream::{StreamExt, wrappers::ReceiverStream};

use super::{Services, account::Profiles, answer::Answer, form::Call};
use crate::api::proto::{self as pb, players_server::Players as _};

/// Lines waiting for the reader.
const QUEUED: usize = 16;

/// Each token's open stream: its number, and how to end it.
type Open = Arc<Mutex<HashMap<String, (u64, oneshot::Sender<()>)>>>;

/// The open event stream of each token, told to end when the token opens
/// another.
#[derive(Default)]
pub(super) struct EventStreams {
    open: Open,
    next: AtomicU64,
}

/// A stream's entry, removed when it ends (unless replaced already).
struct Entry {
    open: Open,
    token: String,
    number: u64,
}

impl Drop for Entry {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open
            .get(&self.token)
            .is_some_and(|(n, _)| *n == self.number)
        {
            open.remove(&self.token);
        }
    }
}

impl EventStreams {
    /// Opens `token`'s stream, ending the one it had open.
    fn open(&self, token: &str) -> (Entry, oneshot::Receiver<()>) {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let (replace, replaced) = oneshot::channel();
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, earlier)) = open.insert(token.to_owned(), (number, replace)) {
            let _ = earlier.send(());
        }
        let entry = Entry {
            open: Arc::clone(&self.open),
            token: token.to_owned(),
            number,
        };
        (entry, replaced)
    }
}

pub(super) async fn stream(services: &Services, call: &Call) -> Answer {
    let Some(token) = call.token() else {
        return Answer::no_such_token();
    };
    let (me, _) = match services.me(call).await {
        Ok(me) => me,
        Err(refused) => return refused,
    };
    let (entry, mut replaced) = services.events.open(token);
    let events = match services
        .players
        .watch_events(call.request(pb::WatchEventsRequest::default()))
        .await
    {
        Ok(events) => events.into_inner(),
        Err(status) => return status.into(),
    };
    let (tx, rx) = mpsc::channel(QUEUED);
    let services = services.clone();
    let call = call.clone();
    tokio::spawn(async move {
        let _entry = entry;
        let mut events = events;
        let mut profiles = Profiles::default();
        loop {
            let next = tokio::select! {
                () = tx.closed() => return,
                _ = &mut replaced => return,
                next = events.next() => next,
            };
            // An error ends the stream, as Lichess closes it: the client
            // connects again.
            let Some(Ok(event)) = next else { return };
            if let Some(line) = line(&services, &call, &mut profiles, &me.id, event).await
                && tx.send(line).await.is_err()
            {
                return;
            }
        }
    });
    Answer::Stream(Box::pin(ReceiverStream::new(rx)))
}

/// The Lichess line of `event`, if Lichess tells it.
async fn line(
    services: &Services,
    call: &Call,
    profiles: &mut Profiles,
    me: &str,
    event: pb::WatchEventsResponse,
) -> Option<Value> {
    use pb::PlayerEventKind as Kind;
    let kind = Kind::try_from(event.kind).ok()?;
    let kind_name = match kind {
        Kind::GameStarted => "gameStart",
        Kind::GameEnded => "gameFinish",
        Kind::Challenge => "challenge",
        Kind::ChallengeCanceled => "challengeCanceled",
        Kind::ChallengeDeclined => "challengeDeclined",
        _ => return None,
    };
    if let Some(game) = event.game {
        let game = services.game_event(call, profiles, &game, me).await;
        return Some(json!({ "type": kind_name, "game": game }));
    }
    let challenge = event.challenge?;
    let challenge = services
        .challenge_json(call, profiles, &challenge, me)
        .await;
    Some(json!({ "type": kind_name, "challenge": challenge }))
}
