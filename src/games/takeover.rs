//! What lets any server take over a game's flag and engine turn when the
//! server that ran them is gone (several servers on one PostgreSQL store).
//!
//! Every change records, with the game, when the side to move runs out of
//! time (`StoredClock::flag_at`) and, if an engine seat is to move, when it
//! should have moved by (`StoredGame::engine_due_at`: its thinking time and
//! [`ENGINE_TAKEOVER_MARGIN`] after its turn began). On a shared store each
//! server looks every [`SWEEP_INTERVAL`] for the games past either, through
//! an index: a due flag falls, and an overdue engine seat gets its search
//! here. Whichever servers act, the flag falls once (recorded only if the
//! game is still at the version it was checked on) and the engine's move is written once (with the
//! game's expected ply).

use std::time::Duration;

use super::{Games, flag::Unexpired, screen::turn_after};
use crate::{
    rules::Side,
    store::{StoredClock, StoredEngine},
};

/// How often a server on a shared store looks for due flags and overdue
/// engine turns: a flag whose timer went with its server falls at most
/// about this late.
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// How long past its thinking time an engine seat's turn may go before
/// another server searches it: a search queued behind others for longer
/// than this may run twice (one move is written).
pub const ENGINE_TAKEOVER_MARGIN: Duration = Duration::from_secs(3);

/// Games a sweep takes up of each kind, at most.
const SWEEP_BATCH: u32 = 100;

/// Records in `clock` when the side to move after `ply` moves from
/// `start_fen` runs out.
pub(super) fn stamp_flag(start_fen: &str, ply: usize, clock: &mut Option<StoredClock>) {
    if let Some(stored) = clock {
        stored.flag_at = super::GameClock::from_stored(stored)
            .deadline(turn_after(start_fen, ply), ply)
            .map(|(at, _)| at);
    }
}

/// When the engine seat to move after `ply` moves should have moved by, its
/// turn beginning at `now`; `None` if a human is to move. `engines` are
/// White's and Black's seats.
pub(super) fn engine_due_at(
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
    let margin = i64::try_from(ENGINE_TAKEOVER_MARGIN.as_millis()).unwrap_or(i64::MAX);
    Some(now.saturating_add(seat.movetime_ms).saturating_add(margin))
}

/// Every [`SWEEP_INTERVAL`] until the store closes: ends the games whose
/// flag is due and searches for the engine seats that are overdue.
pub(super) async fn sweep(games: Games) {
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if games.store.is_closed() {
            return;
        }
        let now = games.time.now();
        match games.store.due_flags(now, SWEEP_BATCH).await {
            Ok(due) => {
                for id in due {
                    if let Err(Unexpired::Failed(error)) = games.expire_if_due(&id).await {
                        tracing::warn!(game_id = %id, %error, "a due flag was not recorded");
                    }
                }
            }
            Err(error) => tracing::debug!(%error, "cannot look for due flags"),
        }
        match games.store.due_engine_turns(now, SWEEP_BATCH).await {
            Ok(due) => due.iter().for_each(|id| games.wake_engine(id)),
            Err(error) => tracing::debug!(%error, "cannot look for overdue engine seats"),
        }
    }
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
