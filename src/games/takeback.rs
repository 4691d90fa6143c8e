//! Takebacks: a seat proposes to take its last move back, the opponent
//! accepts or declines; an engine seat grants them unless the game says
//! otherwise. The undone moves stay in the game's history (the
//! `undone_moves` table, under the takeback's event), not silently erased.

use super::{
    EventKind, GameError, GameView, Games, Needs, engine_seat::engine_of, ensure_ongoing,
    offered_by_opponent, replay, seat, view_of,
};
use crate::{
    rules::Side,
    store::{StoredGame, Update},
};

/// Plies to undo so that `side` is to move again before its last move.
fn plies_to_undo(game: &StoredGame, side: Side) -> Result<usize, GameError> {
    let to_move = replay(game)?.turn();
    let plies = if to_move == side { 2 } else { 1 };
    if game.moves.len() < plies {
        return Err(GameError::precondition(
            "NO_MOVE_TO_TAKE_BACK",
            "you have no move to take back",
        ));
    }
    Ok(plies)
}

/// Takes `plies` moves back at `now`, keeping them as undone; the clocks
/// keep their times and the turn starts anew.
fn take_back(game: &mut StoredGame, plies: usize, now: i64) {
    if let Some(clock) = &mut game.clock {
        clock.turn_started_at = now;
    }
    for _ in 0..plies {
        if let Some(m) = game.moves.pop() {
            game.undone.push(m);
        }
    }
    game.takeback_offer = None;
    game.draw_offer = None;
}

impl Games {
    /// Proposes to take back the seat's last move (and the opponent's reply,
    /// if there is one). Against an engine seat that grants takebacks the
    /// moves are taken back at once.
    ///
    /// # Errors
    ///
    /// See [`GameError`]; nothing to take back or a pending proposal of
    /// one's own is `FailedPrecondition`.
    pub async fn propose_takeback(&self, id: &str, token: &str) -> Result<GameView, GameError> {
        self.screen(id, token, Needs::Seat).await?;
        let now = self.time.now();
        let (stored, event) = self
            .store
            .update_game(id, |game| {
                let side = seat(game, token)?;
                ensure_ongoing(game)?;
                if game.takeback_offer.as_deref() == Some(side.name()) {
                    return Err(GameError::precondition(
                        "TAKEBACK_ALREADY_PROPOSED",
                        "you already proposed a takeback; wait for the answer",
                    ));
                }
                let plies = plies_to_undo(game, side)?;
                let event = if engine_of(game, side.other()).is_some() {
                    if !game.engine_grants_takebacks {
                        return Err(GameError::precondition(
                            "ENGINE_DECLINES_TAKEBACKS",
                            "the engine in this game does not grant takebacks",
                        ));
                    }
                    take_back(game, plies, now);
                    EventKind::TakebackAccepted
                } else {
                    game.takeback_offer = Some(side.name().to_owned());
                    EventKind::TakebackProposed
                };
                Ok::<_, GameError>(Update {
                    value: event,
                    event: event.name(),
                    side: Some(side.name().to_owned()),
                })
            })
            .await?;
        let view = view_of(&stored)?;
        self.hub.publish(event, &view, None);
        self.arm_clock(&view);
        Ok(view)
    }

    /// Accepts (the moves are taken back) or declines the opponent's
    /// takeback proposal.
    ///
    /// # Errors
    ///
    /// See [`GameError`]; no proposal from the opponent is
    /// `FailedPrecondition`.
    pub async fn respond_to_takeback(
        &self,
        id: &str,
        token: &str,
        accept: bool,
    ) -> Result<GameView, GameError> {
        let event = if accept {
            EventKind::TakebackAccepted
        } else {
            EventKind::TakebackDeclined
        };
        let now = self.time.now();
        self.act(id, token, event, |game, side, _| {
            offered_by_opponent(game.takeback_offer.as_deref(), side, "takeback proposal")?;
            if accept {
                let plies = plies_to_undo(game, side.other())?;
                take_back(game, plies, now);
            } else {
                game.takeback_offer = None;
            }
            Ok(())
        })
        .await
    }
}
