//! `Players.Seek`'s and `Players.WatchLobby`'s streams.
//!
//! A real-time seek's stream is a task that looks at its seek when the
//! player's bell rings (a game of theirs created here: the pool pairs on
//! the server that leads) and every [`LOOK_EVERY`] (every
//! [`LOOK_EVERY_FOLLOWING`] where this server runs the pool, whose
//! pairings ring here), sends the game once the seek is paired, and
//! withdraws the seek when the reader goes. A lobby stream sends the
//! difference between the lobby it last sent and the one the pool's task
//! last read.

use std::{
    collections::{HashMap, HashSet},
    pin::Pin,
    time::Duration,
};

use tokio::sync::{mpsc, watch};
use tokio_stream::{Stream, wrappers::ReceiverStream};
use tonic::Status;

use super::{convert, proto as pb};
use crate::{
    games::Games,
    players::{Lobby, Seeks},
    rules::Variant,
    store::StoredSeek,
};

/// How often a seek's stream looks whether another server paired it.
pub const LOOK_EVERY: Duration = Duration::from_secs(1);
/// How often it looks where this server pairs (and rings its bell).
const LOOK_EVERY_FOLLOWING: Duration = Duration::from_secs(5);
/// Lobby messages waiting for the reader: one that stops reading holds
/// its task at this many, and the lobby it reads later is sent as a
/// difference.
const QUEUED: usize = 64;

/// A Seek stream.
pub type SeekStream = Pin<Box<dyn Stream<Item = Result<pb::SeekResponse, Status>> + Send>>;
/// A WatchLobby stream.
pub type LobbyStream = Pin<Box<dyn Stream<Item = Result<pb::WatchLobbyResponse, Status>> + Send>>;

/// The stream of `seek`, just made: the seek, then (a real-time one's)
/// game; `held` is kept until it ends.
pub(super) fn seek(
    seeks: Seeks,
    games: Games,
    seek: StoredSeek,
    mut shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    held: impl Send + 'static,
) -> SeekStream {
    let first = pb::SeekResponse {
        seek: Some(convert::seek(&seek)),
        game: None,
    };
    if seek.holder.is_none() {
        return Box::pin(tokio_stream::once(Ok(first)));
    }
    let (tx, rx) = mpsc::channel(2);
    tokio::spawn(async move {
        let _held = held;
        let mut bell = games.bells().listen(&seek.player);
        if tx.send(Ok(first)).await.is_ok() {
            loop {
                match seeks.paired(&seek.id).await {
                    Ok(None) => {}
                    Ok(Some(game)) => {
                        let paired = pb::SeekResponse {
                            seek: None,
                            game: Some(convert::game(&game)),
                        };
                        let _ = tx.send(Ok(paired)).await;
                        return;
                    }
                    Err(error) => {
                        let _ = tx.send(Err(error.into())).await;
                        return;
                    }
                }
                let every = if games.leads() {
                    LOOK_EVERY_FOLLOWING
                } else {
                    LOOK_EVERY
                };
                tokio::select! {
                    _ = bell.changed() => {}
                    () = tokio::time::sleep(every) => {}
                    () = tx.closed() => break,
                    () = &mut shutdown => break,
                }
            }
        }
        seeks.end_stream(&seek).await;
    });
    Box::pin(ReceiverStream::new(rx))
}

/// The lobby's stream: its seeks (of `variant` only, if given) as they
/// are added and removed; `held` is kept until it ends.
pub(super) fn lobby(
    mut lobby: watch::Receiver<Lobby>,
    variant: Option<Variant>,
    mut shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    held: impl Send + 'static,
) -> LobbyStream {
    let (tx, rx) = mpsc::channel(QUEUED);
    tokio::spawn(async move {
        let _held = held;
        let mut sent: HashSet<String> = HashSet::new();
        loop {
            let now = lobby.borrow_and_update().clone();
            let open: HashMap<&str, &StoredSeek> = now
                .iter()
                .filter(|s| variant.is_none_or(|v| s.variant == v))
                .map(|s| (s.id.as_str(), s))
                .collect();
            let removed: Vec<String> = sent
                .iter()
                .filter(|id| !open.contains_key(id.as_str()))
                .cloned()
                .collect();
            for id in removed {
                sent.remove(&id);
                let message = pb::WatchLobbyResponse {
                    added: None,
                    removed: id,
                };
                if tx.send(Ok(message)).await.is_err() {
                    return;
                }
            }
            for seek in now.iter().filter(|s| open.contains_key(s.id.as_str())) {
                if sent.insert(seek.id.clone()) {
                    let message = pb::WatchLobbyResponse {
                        added: Some(convert::seek(seek)),
                        removed: String::new(),
                    };
                    if tx.send(Ok(message)).await.is_err() {
                        return;
                    }
                }
            }
            tokio::select! {
                changed = lobby.changed() => if changed.is_err() { return },
                () = tx.closed() => return,
                () = &mut shutdown => return,
            }
        }
    });
    Box::pin(ReceiverStream::new(rx))
}
