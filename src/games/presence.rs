//! Who is at the board, and claiming a game the opponent left (Lichess's
//! `opponentGone` and `claim-victory`).
//!
//! A seat is present while one of its player's game streams is open, on
//! any server (the store counts them). It has left once its last stream
//! closed and nothing happened in the game since; after
//! `--claim-victory-after` of that, in a timed game both sides have moved
//! in, its opponent may claim the game. A seat whose player never opened a
//! stream, or whose stream a crashed server never closed, is never taken
//! to have left: its game ends by its clock. Every change of a seat's
//! presence rings the game's presence bell, here or, on a shared store,
//! through the change feed on every server.

use std::time::Duration;

use tokio::sync::watch;

use super::GameId;
use super::{
    Games, Status,
    model::{Ending, EventKind, GameError, GameView, SeatClaim, finish, seat},
};
use crate::{
    reason::Reason,
    rules::Side,
    store::{StoredGame, StoredPresence},
};

/// Default `--claim-victory-after`.
pub const DEFAULT_CLAIM_VICTORY_AFTER: Duration = Duration::from_secs(30);

/// How long a seat has been away from its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Absence {
    /// Since the later of its last stream's closing and the game's last
    /// change.
    pub away: Duration,
    /// Until its opponent may claim the game (zero: now).
    pub claim_in: Duration,
}

/// A stream of a seat's player open on the game: the seat is present until
/// it is dropped.
#[derive(Debug)]
pub struct Attendance {
    games: Games,
    id: String,
    side: Side,
}

impl Drop for Attendance {
    fn drop(&mut self) {
        let (games, id, side) = (self.games.clone(), std::mem::take(&mut self.id), self.side);
        tokio::spawn(async move {
            let over = games
                .store
                .game_head(&id)
                .await
                .ok()
                .flatten()
                .is_none_or(|head| head.game.status != Status::Ongoing);
            let now = games.time.now();
            match games.store.leave(&id, side, now, over).await {
                Ok(()) => games.presence_bells.ring(&id),
                Err(error) => tracing::warn!(%error, game = id, "a seat's leaving is not stored"),
            }
        });
    }
}

impl Games {
    /// The service on which a player may claim a game `after` its opponent
    /// left it.
    #[must_use]
    pub fn with_claim_victory_after(self, after: Duration) -> Games {
        Games {
            claim_victory_after: after,
            ..self
        }
    }

    /// How long after the opponent left a player may claim the game.
    pub fn claim_victory_after(&self) -> Duration {
        self.claim_victory_after
    }

    /// `side`'s player opened a stream of game `id`.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn attend(&self, id: &GameId, side: Side) -> Result<Attendance, GameError> {
        self.store.arrive(id, side).await?;
        self.presence_bells.ring(id);
        Ok(Attendance {
            games: self.clone(),
            id: id.to_string(),
            side,
        })
    }

    /// Rung whenever a seat of game `id` comes or leaves.
    pub fn listen_presence(&self, id: &str) -> watch::Receiver<u64> {
        self.presence_bells.listen(id)
    }

    /// How long `side` has been away from game `id`, if it left (see the
    /// module docs): `None` while present, or where leaving is not judged.
    ///
    /// # Errors
    ///
    /// NOT_FOUND for no such game; storage.
    pub async fn absence(&self, id: &GameId, side: Side) -> Result<Option<Absence>, GameError> {
        let head = self
            .store
            .game_head(id)
            .await?
            .ok_or_else(|| GameError::game_not_found(id))?;
        let presence = self.store.presence(id, side).await?;
        let now = self.time.now();
        Ok(away_since(&head.game, head.ply, presence).map(|since| {
            let away = millis(now.saturating_sub(since));
            Absence {
                away,
                claim_in: self.claim_victory_after.saturating_sub(away),
            }
        }))
    }

    /// The seat `claim` holds claims game `id`, which its opponent left
    /// `--claim-victory-after` ago or more: it wins.
    ///
    /// # Errors
    ///
    /// FAILED_PRECONDITION `OPPONENT_PRESENT` while the opponent has not
    /// left for that long (or cannot be judged to: an untimed game, one
    /// before both sides moved); otherwise as any seat action.
    pub async fn claim_victory(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
    ) -> Result<GameView, GameError> {
        let claim = claim.into();
        let head = self
            .store
            .game_head(id)
            .await?
            .ok_or_else(|| GameError::game_not_found(id))?;
        let side = seat(&head.game, claim)?;
        let presence = self.store.presence(id, side.other()).await?;
        let now = self.time.now();
        self.act(id, claim, EventKind::VictoryClaimed, |game, side, _| {
            let away = away_since(game, game.moves.len(), presence)
                .map(|since| millis(now.saturating_sub(since)));
            match away {
                Some(away) if away >= self.claim_victory_after => {
                    finish(game, Some(side), Ending::Abandoned);
                    Ok(())
                }
                Some(away) => Err(GameError::precondition(
                    Reason::OpponentPresent,
                    format!(
                        "your opponent left the game; you may claim it in {} s",
                        (self.claim_victory_after - away).as_secs_f64().ceil()
                    ),
                )),
                None => Err(GameError::precondition(
                    Reason::OpponentPresent,
                    "your opponent has not left the game (a victory is claimed in a timed game \
                     both sides have moved in, once the opponent has no stream of it open)",
                )),
            }
        })
        .await
    }
}

/// Since when a seat whose presence is `presence` has been away from
/// `game` (`ply` moves played), if it left and leaving is judged there.
fn away_since(game: &StoredGame, ply: usize, presence: Option<StoredPresence>) -> Option<i64> {
    let judged = game.status == Status::Ongoing && game.clock.is_some() && ply >= 2;
    let left_at = presence.filter(|p| p.streams == 0)?.left_at?;
    judged.then(|| left_at.max(game.updated_at))
}

fn millis(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}
