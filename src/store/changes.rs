//! Changes made by any process on a PostgreSQL database, heard through
//! LISTEN/NOTIFY: every game write announces `version:id` on one channel in
//! its transaction, every write that logs a player's event (see
//! `player_log`) `player:id`, every chat line `chat:id`, and every change
//! of a seat's presence `presence:id` (PostgreSQL delivers it at commit,
//! never for a rolled back one), and each process listens on a connection
//! of its own.
//!
//! Notifications sent while a listener is disconnected are lost, so after
//! every reconnect the feed says [`Change::Missed`] once it listens again:
//! whoever follows games reads them again from the store. A listener outage
//! delays what it hears; it never loses a change.

use std::{sync::Mutex, time::Duration};

use sqlx::{AnyConnection, postgres::PgListener};
use tokio::sync::mpsc;

/// The notification channel.
pub(super) const CHANNEL: &str = "arbiter_game_changes";

/// The counter of the listener's reconnections (see `api::metrics`).
pub const RECONNECTS: &str = "arbiter_store_listener_reconnects_total";

/// Changes the feed holds for its reader before the listener waits.
const BUFFER: usize = 1024;

/// The longest pause between attempts to listen again.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// What the feed heard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Game `id` was written; `version` is its version after the write.
    Game { id: String, version: i64 },
    /// An event was logged for player `id`.
    Player { id: String },
    /// A line was added to game `game`'s chat.
    Chat { game: String },
    /// A stream of a player of game `game` opened or closed.
    Presence { game: String },
    /// The listener was disconnected and listens again: changes may have
    /// been missed meanwhile.
    Missed,
}

/// The feed of a store on PostgreSQL: its receiver, until someone takes
/// it, and its task, stopped when the store closes.
#[derive(Debug)]
pub(super) struct Feed {
    receiver: Mutex<Option<mpsc::Receiver<Change>>>,
    task: tokio::task::AbortHandle,
}

impl Feed {
    pub(super) fn take(&self) -> Option<mpsc::Receiver<Change>> {
        self.receiver
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    pub(super) fn stop(&self) {
        self.task.abort();
    }
}

/// Announces that game `id` is at `version` (in the writing transaction).
pub(super) async fn announce(
    conn: &mut AnyConnection,
    id: &str,
    version: i64,
) -> Result<(), sqlx::Error> {
    notify(conn, payload(id, version)).await
}

/// Announces that an event was logged for player `id` (in the logging
/// transaction).
pub(super) async fn announce_player(conn: &mut AnyConnection, id: &str) -> Result<(), sqlx::Error> {
    notify(conn, format!("{PLAYER}{id}")).await
}

/// Announces a new line of game `id`'s chat (in the writing transaction).
pub(super) async fn announce_chat(conn: &mut AnyConnection, id: &str) -> Result<(), sqlx::Error> {
    notify(conn, format!("{CHAT}{id}")).await
}

/// Announces that a seat of game `id` came or left (in the writing
/// transaction).
pub(super) async fn announce_presence(
    conn: &mut AnyConnection,
    id: &str,
) -> Result<(), sqlx::Error> {
    notify(conn, format!("{PRESENCE}{id}")).await
}

async fn notify(conn: &mut AnyConnection, payload: String) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)::text")
        .bind(CHANNEL)
        .bind(payload)
        .execute(conn)
        .await
        .map(drop)
}

/// What a player's announcement starts with (never a version's digits).
const PLAYER: &str = "player:";
/// What a chat line's announcement starts with.
const CHAT: &str = "chat:";
/// What a presence's announcement starts with.
const PRESENCE: &str = "presence:";

/// What is announced of game `id` at `version`: `version:id`.
pub(super) fn payload(id: &str, version: i64) -> String {
    format!("{version}:{id}")
}

/// Starts listening on the database at `url`; the feed runs until its
/// receiver is dropped or it is stopped.
pub(super) async fn listen(url: &str) -> Result<Feed, sqlx::Error> {
    let listener = connect(url).await?;
    let (sender, receiver) = mpsc::channel(BUFFER);
    let task = tokio::spawn(run(url.to_owned(), listener, sender));
    Ok(Feed {
        receiver: Mutex::new(Some(receiver)),
        task: task.abort_handle(),
    })
}

async fn connect(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// Reads notifications into `sender`; after a lost connection, listens
/// again (backing off while the database does not answer) and says
/// [`Change::Missed`].
async fn run(url: String, mut listener: PgListener, sender: mpsc::Sender<Change>) {
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => {
                if let Some(change) = parse(notification.payload())
                    && sender.send(change).await.is_err()
                {
                    return; // nobody reads the feed any more
                }
                continue;
            }
            Ok(None) => tracing::warn!("the database listener lost its connection"),
            Err(error) => tracing::warn!(%error, "the database listener failed"),
        }
        let mut backoff = Duration::from_millis(100);
        listener = loop {
            if sender.is_closed() {
                return;
            }
            match connect(&url).await {
                Ok(listener) => break listener,
                Err(error) => {
                    tracing::warn!(%error, "the database listener cannot listen again yet");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        };
        tracing::info!("the database listener listens again");
        metrics::counter!(RECONNECTS).increment(1);
        if sender.send(Change::Missed).await.is_err() {
            return;
        }
    }
}

/// `version:id`, as [`payload`] writes it, or `player:id`, `chat:id`,
/// `presence:id`.
fn parse(payload: &str) -> Option<Change> {
    if let Some(id) = payload.strip_prefix(PLAYER) {
        return Some(Change::Player { id: id.to_owned() });
    }
    if let Some(id) = payload.strip_prefix(CHAT) {
        return Some(Change::Chat {
            game: id.to_owned(),
        });
    }
    if let Some(id) = payload.strip_prefix(PRESENCE) {
        return Some(Change::Presence {
            game: id.to_owned(),
        });
    }
    let (version, id) = payload.split_once(':')?;
    Some(Change::Game {
        id: id.to_owned(),
        version: version.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_announces() {
        assert_eq!(
            parse("12:abc:d"),
            Some(Change::Game {
                id: "abc:d".into(),
                version: 12
            })
        );
        assert_eq!(
            parse("player:al:ice"),
            Some(Change::Player {
                id: "al:ice".into()
            })
        );
        assert_eq!(parse("chat:abc"), Some(Change::Chat { game: "abc".into() }));
        assert_eq!(
            parse("presence:abc"),
            Some(Change::Presence { game: "abc".into() })
        );
        assert_eq!(parse("x:abc"), None);
        assert_eq!(parse("abc"), None);
    }
}
