//! A player leaves: their games in play end (aborted before both sides
//! moved, resigned after), and then, in one transaction, their tokens,
//! ratings, rating history, seeks and waiting challenges go, and their
//! stored games name them [`DELETED_NAME`] and are bound to nobody on
//! their side, whole for their opponents. Their id stays taken.

use super::Players;
use crate::{
    games::{GameError, GameId, Games, Refusal, SeatClaim},
    reason::Reason,
    rules::Quoted,
    store::GameFilter,
};

/// The name a deleted player's games give them.
pub const DELETED_NAME: &str = "Deleted player";
/// Games read at once while a leaving player's games in play are ended.
const PAGE: u32 = 100;

impl Players {
    /// Deletes player `id` (see the module docs): the number of their
    /// games that were in play.
    ///
    /// # Errors
    ///
    /// NOT_FOUND if there is no such player, or storage.
    pub async fn delete(&self, games: &Games, id: &str) -> Result<usize, GameError> {
        let player = self.get(id).await?;
        let mut ended = 0;
        let mut cursor = None;
        loop {
            let page = games
                .list(GameFilter {
                    finished: Some(false),
                    player_id: Some(player.id.clone()),
                    cursor,
                    limit: PAGE,
                    ..GameFilter::default()
                })
                .await?;
            for game in &page.items {
                let claim = SeatClaim::Player(&player.id);
                let id = GameId::parse(&game.id)?;
                let stopped = match games.abort(&id, claim).await {
                    Err(GameError::FailedPrecondition(_)) => games.resign(&id, claim).await,
                    aborted => aborted,
                };
                match stopped {
                    Ok(_) => ended += 1,
                    // Ended meanwhile, by the rules or the opponent.
                    Err(GameError::FailedPrecondition(_)) => {}
                    Err(error) => return Err(error),
                }
            }
            match page.next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let now = crate::store::now_millis();
        if !self
            .store
            .delete_player(&player.id, DELETED_NAME, now)
            .await?
        {
            return Err(GameError::NotFound(Refusal::new(
                Reason::PlayerNotFound,
                format!("player {} not found", Quoted(id)),
            )));
        }
        self.checked.forget(&player.id, None);
        Ok(ended)
    }
}
