//! Past events told again as their watchers were told them: the game right
//! after each event, with its record (the position and its repetitions) and
//! its move views carried from one event to the next, so that telling `n`
//! events of a game of `p` plies replays the game once, O(p + n), rather
//! than from its start for each event, O(p * n).

use std::sync::Arc;

use super::{
    live::follow_moves,
    model::{EventKind, GameError, GameView, MoveView, move_views, replay},
};
use crate::{
    rules::referee::Referee,
    store::{History, StoredGame},
};

/// An event as its watchers were told it.
pub(super) struct Told {
    pub(super) kind: EventKind,
    /// The game right after it.
    pub(super) game: GameView,
    /// The move, if one was played.
    pub(super) played: Option<MoveView>,
}

/// A game's past events, each told as its watchers were told it.
pub(super) struct Retelling {
    history: History,
    /// The record and the move views of the last event told.
    record: Option<Box<dyn Referee>>,
    moves: Arc<Vec<MoveView>>,
}

impl Retelling {
    pub(super) fn new(history: History) -> Retelling {
        Retelling {
            history,
            record: None,
            moves: Arc::default(),
        }
    }

    /// The version of the newest event (`None`: there is none).
    pub(super) fn last_version(&self) -> Option<i64> {
        self.history.last_version()
    }

    /// The next event: its kind, the game right after it and the move if
    /// one was played; `None` once every event was told.
    ///
    /// # Errors
    ///
    /// The event or the game does not read back.
    pub(super) fn next_event(&mut self) -> Option<Result<Told, GameError>> {
        let (kind, game) = self.history.next_event()?;
        Some(told(&mut self.record, &mut self.moves, &kind, game))
    }
}

/// The event of `kind` that left `game` as it is, the record and the move
/// views carried to it from the last event's (`record`, `moves`).
fn told(
    record: &mut Option<Box<dyn Referee>>,
    moves: &mut Arc<Vec<MoveView>>,
    kind: &str,
    game: &StoredGame,
) -> Result<Told, GameError> {
    let kind = EventKind::from_name(kind).ok_or_else(|| {
        GameError::Corrupt(format!(
            "game {}: its {kind} event of version {} does not read back",
            game.id, game.version
        ))
    })?;
    let record = match record {
        Some(record) => {
            follow_moves(game, record.as_mut(), moves)?;
            record
        }
        None => {
            let replayed = replay(game)?;
            *moves = Arc::new(move_views(game, replayed.as_ref()));
            record.insert(replayed)
        }
    };
    let view = GameView::build(game, record.as_ref(), Arc::clone(moves));
    let played = match kind {
        EventKind::Move => view.moves.last().cloned(),
        _ => None,
    };
    Ok(Told {
        kind,
        game: view,
        played,
    })
}
