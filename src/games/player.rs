//! Following a player's seats: a watcher of each seat's game, from the
//! game as it is now, after its token has been checked. The API turns the
//! games' events into the player's (started, your turn, offers to answer,
//! ended); across servers the games' channels hear other servers' writes
//! as every watcher's do.

use super::GameId;
use super::{
    Games, Role, Watcher,
    model::{GameError, GameView, SeatClaim, View, seat},
};
use crate::rules::Side;

/// A seat followed: its game as it is now, its side, and a watcher of the
/// game's events after that.
#[derive(Debug)]
pub struct FollowedSeat {
    pub game: GameView,
    pub side: Side,
    pub watcher: Watcher,
}

impl Games {
    /// Follows the seat of game `id` holding `token`.
    ///
    /// # Errors
    ///
    /// Unknown game, a token of neither seat, too many watchers of the
    /// game, or storage.
    pub async fn follow_seat(&self, id: &GameId, token: &str) -> Result<FollowedSeat, GameError> {
        self.follow(id, SeatClaim::Token(token)).await
    }

    /// Follows the seat of game `id` that `claim` holds.
    ///
    /// # Errors
    ///
    /// Unknown game, a claim on neither seat, too many watchers of the
    /// game, or storage.
    pub async fn follow(
        &self,
        id: &GameId,
        claim: SeatClaim<'_>,
    ) -> Result<FollowedSeat, GameError> {
        // Subscribed before the game is read, as a watch is: nothing
        // between the two is missed.
        let mut watcher = self.hub.subscribe(id, View::Basic, Role::Player)?;
        let stored = self.load(id).await?;
        let side = seat(&stored, claim)?;
        let game = super::model::view_of(&stored)?;
        watcher.seen(game.version);
        self.hear_others(id, game.version).await;
        Ok(FollowedSeat {
            game,
            side,
            watcher,
        })
    }

    /// The side of game `id`'s seat holding `token`: its watchers are the
    /// game's players.
    ///
    /// # Errors
    ///
    /// Unknown game, a token of neither seat, or storage.
    pub async fn seat_of(&self, id: &GameId, token: &str) -> Result<Side, GameError> {
        seat(&self.load(id).await?, SeatClaim::Token(token))
    }
}
