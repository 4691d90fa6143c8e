//! The vocabulary of game events: what happened, the event as the service
//! tells it, and the event as its watchers receive it, encoded.

use bytes::Bytes;

use super::view::{GameView, MoveView, View};

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
    /// A player took the open seat.
    SeatJoined,
    /// A finished game's player offered a rematch.
    RematchOffered,
    /// The rematch offer was declined.
    RematchDeclined,
    /// The rematch was created (the game names it).
    RematchStarted,
    /// A player whose opponent left the game claimed it.
    VictoryClaimed,
}

impl EventKind {
    /// Every kind.
    const ALL: [EventKind; 16] = [
        EventKind::Move,
        EventKind::DrawOffered,
        EventKind::DrawDeclined,
        EventKind::DrawAccepted,
        EventKind::DrawClaimed,
        EventKind::Resigned,
        EventKind::Aborted,
        EventKind::TakebackProposed,
        EventKind::TakebackAccepted,
        EventKind::TakebackDeclined,
        EventKind::Flagged,
        EventKind::SeatJoined,
        EventKind::RematchOffered,
        EventKind::RematchDeclined,
        EventKind::RematchStarted,
        EventKind::VictoryClaimed,
    ];

    /// The kind recorded as `name`.
    pub fn from_name(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

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
            EventKind::SeatJoined => "seat_joined",
            EventKind::RematchOffered => "rematch_offered",
            EventKind::RematchDeclined => "rematch_declined",
            EventKind::RematchStarted => "rematch_started",
            EventKind::VictoryClaimed => "victory_claimed",
        }
    }

    /// Whether it happens after the game's end (about its rematch).
    pub const fn after_end(self) -> bool {
        matches!(
            self,
            EventKind::RematchOffered | EventKind::RematchDeclined | EventKind::RematchStarted
        )
    }
}

/// One event: the game after it, and the move if one was played.
#[derive(Clone, Copy, Debug)]
pub struct GameEvent<'a> {
    pub kind: EventKind,
    pub game: &'a GameView,
    pub played: Option<&'a MoveView>,
}

/// Encodes an event into the messages a watcher of a view receives for it,
/// once for all of them.
pub type EncodeEvent = fn(GameEvent<'_>, View) -> Vec<Bytes>;

/// An event as its watchers receive it.
#[derive(Debug)]
pub struct Published {
    /// The game's version after the event.
    pub version: i64,
    /// The encoded messages, in order.
    pub messages: Vec<Bytes>,
    /// Whether the game is over after it: a plain watcher's stream ends.
    pub game_over: bool,
    /// Whether nothing follows it: the game is over and its rematch, if
    /// one can be, exists (see [`GameView::is_final`]). A watcher that
    /// follows the rematch ends here.
    pub ends: bool,
}

impl Published {
    /// Encoded bytes.
    pub(in crate::games) fn size(&self) -> usize {
        self.messages.iter().map(Bytes::len).sum()
    }
}
