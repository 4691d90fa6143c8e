//! The live feed of game events, in memory, one broadcast channel per
//! watched game.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use tokio::sync::broadcast;

use super::{GameView, MoveView};

/// Events a watcher may fall behind by before it is told it lagged.
const CAPACITY: usize = 256;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Move,
    DrawOffered,
    DrawDeclined,
    DrawAccepted,
    DrawClaimed,
    Resigned,
    Aborted,
    TakebackProposed,
    TakebackAccepted,
    TakebackDeclined,
    /// A flag fell.
    Flagged,
}

impl EventKind {
    /// The name recorded in the game's event history.
    pub const fn name(self) -> &'static str {
        match self {
            EventKind::Move => "move",
            EventKind::DrawOffered => "draw_offered",
            EventKind::DrawDeclined => "draw_declined",
            EventKind::DrawAccepted => "draw_accepted",
            EventKind::DrawClaimed => "draw_claimed",
            EventKind::Resigned => "resigned",
            EventKind::Aborted => "aborted",
            EventKind::TakebackProposed => "takeback_proposed",
            EventKind::TakebackAccepted => "takeback_accepted",
            EventKind::TakebackDeclined => "takeback_declined",
            EventKind::Flagged => "flagged",
        }
    }
}

/// One event: the game after it, and the move if one was played.
#[derive(Clone, Debug)]
pub struct GameEvent {
    pub kind: EventKind,
    pub game: Arc<GameView>,
    pub played: Option<MoveView>,
}

#[derive(Debug, Default)]
pub(super) struct Hub {
    channels: Mutex<HashMap<String, broadcast::Sender<GameEvent>>>,
}

impl Hub {
    pub(super) fn subscribe(&self, id: &str) -> broadcast::Receiver<GameEvent> {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        channels
            .entry(id.to_owned())
            .or_insert_with(|| broadcast::channel(CAPACITY).0)
            .subscribe()
    }

    pub(super) fn publish(&self, kind: EventKind, game: &GameView, played: Option<MoveView>) {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        let Some(sender) = channels.get(&game.id) else {
            return;
        };
        if sender.receiver_count() == 0 {
            channels.remove(&game.id);
            return;
        }
        let _ = sender.send(GameEvent {
            kind,
            game: Arc::new(game.clone()),
            played,
        });
    }
}
