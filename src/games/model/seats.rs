//! Who sits in a seat: a player, the engine at a level, or nobody yet (an
//! open seat).

use std::time::Duration;

use crate::{
    engine::Level,
    rules::Side,
    store::{StoredEngine, StoredGame},
};

/// Who sits in a seat at creation.
#[derive(Clone, Debug, Default)]
pub struct SeatSpec {
    /// Shown to players; an engine seat defaults to "Arbiter (level N)".
    pub display_name: String,
    /// `Some` for a seat the engine plays.
    pub engine: Option<EngineSeat>,
    /// Left open for a player to take with the game's join code.
    pub open: bool,
    /// The player (by id, known to exist) the seat is bound to.
    pub player: Option<String>,
}

/// The engine's settings in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineSeat {
    pub level: Level,
    /// Thinking time per move.
    pub movetime: Duration,
}

impl EngineSeat {
    /// Default thinking time per move.
    pub const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);
    /// Longest thinking time per move.
    pub const MAX_MOVETIME: Duration = Duration::from_secs(30);

    pub(in crate::games) fn default_name(self) -> String {
        format!("Arbiter (level {})", self.level.get())
    }

    pub(crate) fn stored(self) -> StoredEngine {
        StoredEngine {
            level: i64::from(self.level.get()),
            movetime_ms: i64::try_from(self.movetime.as_millis()).unwrap_or(i64::MAX),
        }
    }

    pub(crate) fn from_stored(stored: Option<StoredEngine>) -> Option<EngineSeat> {
        let stored = stored?;
        Some(EngineSeat {
            level: Level::new(u32::try_from(stored.level).ok()?)?,
            movetime: Duration::from_millis(u64::try_from(stored.movetime_ms).ok()?),
        })
    }
}

/// The engine seat of `side`, if the engine plays it.
pub(in crate::games) fn engine_of(game: &StoredGame, side: Side) -> Option<EngineSeat> {
    EngineSeat::from_stored(match side {
        Side::White => game.white_engine,
        Side::Black => game.black_engine,
    })
}
