//! Reading games: one, its PGN, a page of them, and watching one; the
//! counts the metrics show.

use super::GameId;
use super::{
    Games, Role, Watcher,
    model::{GameError, GameView, PgnOptions, View, is_well_formed_id, pgn, view_of},
};
use crate::store::{GameFilter, Page, StoredGame};

/// Where a page of a player's games, ongoing first, starts: among the
/// ongoing games or the finished ones, past a cursor or from the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerPages {
    Ongoing(Option<i64>),
    Finished(Option<i64>),
}

impl Games {
    /// A game.
    ///
    /// # Errors
    ///
    /// Unknown id, or storage.
    pub async fn get(&self, id: &GameId) -> Result<GameView, GameError> {
        self.view(id).await
    }

    /// Game `id` (one of the store's own) as clients see it.
    pub(super) async fn view(&self, id: &str) -> Result<GameView, GameError> {
        view_of(&self.load(id).await?)
    }

    pub(super) async fn load(&self, id: &str) -> Result<StoredGame, GameError> {
        if !is_well_formed_id(id) {
            return Err(GameError::game_not_found(id));
        }
        self.store
            .game(id)
            .await?
            .ok_or_else(|| GameError::game_not_found(id))
    }

    /// The game as PGN; with `analysis`, annotated with its latest stored
    /// analysis, if it has one.
    ///
    /// # Errors
    ///
    /// Unknown id, Chinese notation for chess, or storage.
    pub async fn export(&self, id: &GameId, options: PgnOptions) -> Result<String, GameError> {
        let stored = self.load(id).await?;
        let evals = match options.analysis {
            true => self.stored_evals(stored.seq, stored.moves.len()).await?,
            false => None,
        };
        let roster = self.store.roster(stored.seq).await?;
        pgn::write(
            &view_of(&stored)?,
            options.notation,
            options.clocks,
            evals.as_deref(),
            roster.as_ref(),
        )
    }

    /// The ids of a page of games, newest first, each with the key that,
    /// as a filter's `before`, selects the games after it.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn list_ids(&self, filter: GameFilter) -> Result<Page<(i64, GameId)>, GameError> {
        let page = self.store.games(filter).await?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .filter_map(|game| Some((game.seq, GameId::parse(&game.id).ok()?)))
                .collect(),
            next: page.next,
        })
    }

    /// Games, newest first, without moves.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn list(&self, filter: GameFilter) -> Result<Page<GameView>, GameError> {
        let page = self.store.games(filter).await?;
        Ok(Page {
            items: page.items.iter().map(GameView::summary).collect(),
            next: page.next,
        })
    }

    /// A player's games, ongoing first: the ongoing ones newest first,
    /// then the finished ones newest first, a page at a time from `from`;
    /// the page, and where the next one starts.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn list_ongoing_first(
        &self,
        filter: GameFilter,
        from: PlayerPages,
    ) -> Result<(Page<GameView>, Option<PlayerPages>), GameError> {
        let finished = |cursor| GameFilter {
            finished: Some(true),
            cursor,
            ..filter.clone()
        };
        let mut page = match from {
            PlayerPages::Finished(cursor) => {
                let page = self.list(finished(cursor)).await?;
                let next = page.next.map(|next| PlayerPages::Finished(Some(next)));
                return Ok((page, next));
            }
            PlayerPages::Ongoing(cursor) => {
                self.list(GameFilter {
                    finished: Some(false),
                    cursor,
                    ..filter.clone()
                })
                .await?
            }
        };
        if let Some(next) = page.next {
            return Ok((page, Some(PlayerPages::Ongoing(Some(next)))));
        }
        // The ongoing games ended within this page: the finished ones fill
        // the rest of it.
        let left = filter.limit.saturating_sub(page.items.len() as u32);
        let rest = self
            .list(GameFilter {
                // A full page still looks for one finished game: whether a
                // page follows.
                limit: left.max(1),
                ..finished(None)
            })
            .await?;
        if left == 0 {
            let next = (!rest.items.is_empty()).then_some(PlayerPages::Finished(None));
            return Ok((page, next));
        }
        page.items.extend(rest.items);
        page.next = rest.next;
        let next = rest.next.map(|next| PlayerPages::Finished(Some(next)));
        Ok((page, next))
    }

    /// A snapshot of the game and the feed of what happens next, each
    /// event with the game in `view`. Nothing is kept for an unknown game.
    ///
    /// # Errors
    ///
    /// Unknown id, too many watchers of the game, or storage.
    pub async fn watch(
        &self,
        id: &GameId,
        view: View,
        role: Role,
    ) -> Result<(GameView, Watcher), GameError> {
        // Subscribe before reading, so nothing between the two is missed;
        // the watcher skips events not newer than the snapshot. On an
        // error the watcher is dropped, and with it the channel it opened.
        let mut watcher = self.hub.subscribe(id, view, role)?;
        let view = self.get(id).await?;
        watcher.seen(view.version);
        self.hear_others(id, view.version).await;
        Ok((view, watcher))
    }

    /// Games with watchers now (each has a channel in memory): for tests
    /// and monitoring.
    pub fn watched_games(&self) -> usize {
        self.hub.watched_games()
    }

    /// Games in play kept in memory now (for tests and monitoring).
    pub fn live_games(&self) -> usize {
        self.live.len()
    }

    /// The bytes the games in play kept in memory count for now (see
    /// `--live-games-memory`).
    pub fn live_games_bytes(&self) -> usize {
        self.live.bytes()
    }

    /// Watchers of every game now (for monitoring).
    pub fn watchers(&self) -> usize {
        self.hub.watchers()
    }
}
