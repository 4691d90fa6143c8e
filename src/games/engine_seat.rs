//! Seats played by Arbiter's engine. When it is an engine seat's turn the
//! service searches (in a seat slot, which the Engine RPCs cannot take;
//! queued behind other seats, never refused), plays the move through the
//! same path as a human's, persists it and tells watchers; a human plays
//! against it with nothing but `MakeMove` and `WatchGame`.
//!
//! A seat that has to wait for a slot is marked as waiting in the store
//! first, which stops its clock (see `clock`): the flag timer finds no
//! deadline, and a restart keeps the mark. Once the slot is free its turn
//! starts then, and the position is read again (it may have changed).

use super::{
    Games, Mover,
    model::Status,
    model::{EngineSeat, GameError, engine_of, replay, rule_choices, view_of},
};
use crate::{
    analysis::{Job, SearchOrder},
    rules::{Clipped, Side},
    store::{StoreError, StoredGame},
};

impl Games {
    /// Restarts the engines of the ongoing games with an engine seat that
    /// are `owned` (after a restart or a takeover, the search that was
    /// running is lost, not the game); how many.
    pub(super) async fn resume_engines(
        &self,
        owned: impl Fn(&str) -> bool,
    ) -> Result<usize, GameError> {
        let ids = self.store.ongoing_engine_games().await?;
        let mut woken = 0;
        for id in ids.iter().filter(|id| owned(id)) {
            self.wake_engine(id);
            woken += 1;
        }
        Ok(woken)
    }

    /// Lets the engine move in game `id` if it is its turn and this server
    /// owns the game, in the background. At most one engine task runs per
    /// game.
    pub(super) fn wake_engine(&self, id: &str) {
        if !(self.ownership.owns(id) && self.claim_thinking(id)) {
            return;
        }
        let games = self.clone();
        let id = id.to_owned();
        tokio::spawn(async move {
            loop {
                match games.engine_turn(&id).await {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(e) => {
                        let error = e.to_string();
                        tracing::error!(game_id = %id, error = %Clipped(&error), "engine seat failed");
                    }
                }
                games.release_thinking(&id);
                // A human move committed between the last check and the
                // release found the game claimed and did not wake us: look
                // once more.
                let again = games.ownership.owns(&id)
                    && matches!(games.engine_to_move(&id).await, Ok(Some(_)));
                if !(again && games.claim_thinking(&id)) {
                    break;
                }
            }
        });
    }

    fn claim_thinking(&self, id: &str) -> bool {
        self.thinking
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned())
    }

    fn release_thinking(&self, id: &str) {
        self.thinking
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// The game, if it is ongoing and an engine seat is to move.
    async fn engine_to_move(
        &self,
        id: &str,
    ) -> Result<Option<(StoredGame, Side, EngineSeat)>, GameError> {
        let game = self.load(id).await?;
        if game.status != Status::Ongoing {
            return Ok(None);
        }
        let side = replay(&game)?.turn();
        Ok(engine_of(&game, side).map(|engine| (game, side, engine)))
    }

    /// Plays one engine move if it is an engine seat's turn; true if it
    /// moved.
    async fn engine_turn(&self, id: &str) -> Result<bool, GameError> {
        // The lease as the search begins: if it changes hands meanwhile,
        // the move is not written.
        let Ok(fence) = self.ownership.fence(id) else {
            return Ok(false);
        };
        let Some(mut turn) = self.engine_to_move(id).await? else {
            return Ok(false);
        };
        let marked = turn.0.clock.is_some_and(|c| c.engine_waiting_ply.is_some());
        let (slot, waited) = match self.analyst.try_seat() {
            Some(slot) => (slot, false),
            None => {
                self.store.engine_waits(id, turn.0.moves.len()).await?;
                (self.analyst.seat().await, true)
            }
        };
        if waited || marked {
            // The turn starts now; the flag timer learns the new deadline.
            self.store.start_engine_clock(id, self.time.now()).await?;
            let Some(current) = self.engine_to_move(id).await? else {
                return Ok(false);
            };
            self.arm_clock(&view_of(&current.0)?);
            turn = current;
        }
        let (game, side, engine) = turn;
        let variant = game.variant;
        let moves: Vec<&str> = game.moves.iter().map(|m| m.uci.as_str()).collect();
        let choices = rule_choices(&game)
            .ok_or_else(|| GameError::Corrupt(format!("game {id}: unknown xiangqi rules")))?;
        let job = Job::new(variant, choices, Some(&game.start_fen), &moves)
            .map_err(|e| GameError::Corrupt(format!("game {id}: {e}")))?;
        let order = SearchOrder::best_move(engine.movetime, engine.level);
        let analysis = slot.best_move(job, order).await;
        let Some(best) = analysis.best() else {
            return Ok(false);
        };
        let ply = u32::try_from(game.moves.len()).unwrap_or(u32::MAX);
        match self
            .play_as(
                id,
                Mover::Engine(side, fence.as_ref()),
                best.uci.as_str().into(),
                Some(ply),
            )
            .await
        {
            Ok(_) => Ok(true),
            // The game changed while the engine thought (a resignation, an
            // agreed draw, its move played by the server that took it over),
            // or this server lost the game's lease: nothing to play.
            Err(
                GameError::Conflict { .. }
                | GameError::GameOver(_)
                | GameError::Store(StoreError::LeaseLost { .. }),
            ) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
