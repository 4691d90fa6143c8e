//! What a change records for whichever server runs the game's flag timer
//! and engine seat (its owner, see `ownership`), when that server is not the
//! one that made the change: when the side to move runs out of time
//! (`StoredClock::flag_at`) and, if an engine seat is to move, when it
//! should have moved by (`StoredGame::engine_due_at`: its thinking time and
//! [`ENGINE_MARGIN`] after its turn began). The owner, told of the change by
//! the store's change feed, arms its timer and wakes its engine seat from
//! the game's row alone.

use super::play::turn_after;
use crate::{
    rules::Side,
    store::{StoredClock, StoredEngine},
};

/// Added to an engine seat's thinking time in `engine_due_at`: the time a
/// search may take beyond its own to be written.
pub const ENGINE_MARGIN: std::time::Duration = std::time::Duration::from_secs(3);

/// Records in `clock` when the side to move after `ply` moves from
/// `start_fen` runs out.
pub(in crate::games) fn stamp_flag(start_fen: &str, ply: usize, clock: &mut Option<StoredClock>) {
    if let Some(stored) = clock {
        stored.flag_at = super::GameClock::from_stored(stored)
            .deadline(turn_after(start_fen, ply), ply)
            .map(|(at, _)| at);
    }
}

/// When the engine seat to move after `ply` moves should have moved by, its
/// turn beginning at `now`; `None` if a human is to move. `engines` are
/// White's and Black's seats.
pub(in crate::games) fn engine_due_at(
    start_fen: &str,
    ply: usize,
    engines: [Option<StoredEngine>; 2],
    now: i64,
) -> Option<i64> {
    let [white, black] = engines;
    let seat = match turn_after(start_fen, ply) {
        Side::White => white,
        Side::Black => black,
    }?;
    let margin = i64::try_from(ENGINE_MARGIN.as_millis()).unwrap_or(i64::MAX);
    Some(now.saturating_add(seat.movetime_ms).saturating_add(margin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_turn_falls_due_after_its_thinking_time_and_margin() {
        let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let engine = StoredEngine {
            level: 3,
            movetime_ms: 500,
        };
        assert_eq!(
            engine_due_at(chess, 1, [None, Some(engine)], 1_000),
            Some(4_500)
        );
        assert_eq!(engine_due_at(chess, 0, [None, Some(engine)], 1_000), None);
    }
}
