//! Flag fall, detected by the server: one timer per timed game, re-armed
//! after every change, ends the game the moment the side to move runs out
//! (also for games whose time ran out while the server was down).

use super::{
    Ending, EventKind, GameClock, GameError, GameView, Games, abort, clock::Expiry, ensure_ongoing,
    finish, replay, view_of,
};
use crate::{
    rules::referee::Referee,
    store::{StoredGame, Update},
};

/// Ends `game` for `expiry`: the side out of time loses, unless its
/// opponent could not win by any legal sequence (then it is a draw); a game
/// whose first moves never came is aborted. Returns the event.
pub(super) fn expire(game: &mut StoredGame, record: &dyn Referee, expiry: Expiry) -> EventKind {
    match expiry {
        Expiry::Flag(loser) => {
            if record.has_insufficient_material(loser.other()) {
                finish(game, None, Ending::TimeoutVsInsufficientMaterial);
            } else {
                finish(game, Some(loser.other()), Ending::Timeout);
            }
            EventKind::Flagged
        }
        Expiry::NoStart => {
            abort(game);
            EventKind::Aborted
        }
    }
}

/// Why a flag timer leaves a game alone.
enum Unexpired {
    /// The side to move still has time (the game changed since the timer
    /// was armed): nothing is written.
    NotDue,
    Failed(GameError),
}

impl<E: Into<GameError>> From<E> for Unexpired {
    fn from(e: E) -> Unexpired {
        Unexpired::Failed(e.into())
    }
}

impl Games {
    /// Restarts the timers of the ongoing timed games (flags that fell while
    /// the server was down fall at once).
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn resume_clocks(&self) -> Result<usize, GameError> {
        let ids = self.store.ongoing_clocked_games().await?;
        for id in &ids {
            self.arm_clock(&self.get(id).await?);
        }
        Ok(ids.len())
    }

    /// (Re)arms the flag timer of `game`, superseding the previous one
    /// (nothing for an untimed or finished game: it has no side to move).
    pub(super) fn arm_clock(&self, game: &GameView) {
        let (Some(clock), Some(turn)) = (game.clock, game.turn) else {
            return;
        };
        let Some((deadline, _)) = clock.deadline(turn, game.ply as usize) else {
            return;
        };
        let generation = {
            let mut timers = self.timers.lock().unwrap_or_else(|e| e.into_inner());
            let generation = timers.entry(game.id.clone()).or_insert(0);
            *generation += 1;
            *generation
        };
        let games = self.clone();
        let id = game.id.clone();
        tokio::spawn(async move {
            games.time.sleep_until(deadline).await;
            let current = {
                let timers = games.timers.lock().unwrap_or_else(|e| e.into_inner());
                timers.get(&id).copied()
            };
            if current == Some(generation)
                && let Err(e) = games.expire_if_due(&id).await
            {
                tracing::error!(game_id = %id, error = %e, "flag timer failed");
            }
        });
    }

    /// Ends game `id` if the side to move is out of time now.
    async fn expire_if_due(&self, id: &str) -> Result<(), GameError> {
        let now = self.time.now();
        let result = self
            .store
            .update_game(id, |game| {
                ensure_ongoing(game)?;
                let record = replay(game)?;
                let clock = GameClock::from_stored(&game.clock.ok_or(Unexpired::NotDue)?);
                let (deadline, expiry) = clock
                    .deadline(record.turn(), game.moves.len())
                    .ok_or(Unexpired::NotDue)?;
                if now < deadline {
                    return Err(Unexpired::NotDue);
                }
                let event = expire(game, record.as_ref(), expiry);
                Ok(Update {
                    value: event,
                    event: event.name(),
                    side: None,
                })
            })
            .await;
        match result {
            Ok((stored, event)) => {
                self.timers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(id);
                let view = view_of(&stored)?;
                self.hub.publish(event, &view, None);
                Ok(())
            }
            Err(Unexpired::NotDue | Unexpired::Failed(GameError::GameOver(_))) => Ok(()),
            Err(Unexpired::Failed(e)) => Err(e),
        }
    }
}
