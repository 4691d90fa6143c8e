//! PGN collections, imported a batch at a time: every game read and replayed
//! as a single import reads it, the batch stored in one transaction, each
//! game's key once (the same game imported again is found, not stored).

use super::{
    Games,
    import::{Prepared, prepare, read_pgn},
    model::{
        GameError, GameId, Status,
        collection::{CollectedGame, tags_of},
        pgn::PgnLimits,
    },
};
use crate::{
    reason::Reason,
    rules::{Variant, xiangqi::XiangqiRules},
    store::{ImportedGame, Stored},
};

/// The most bytes one game of a collection may have.
pub const MAX_GAME_BYTES: usize = 1 << 20;

/// Games one import call stores past which the store's statistics are
/// brought up to date at its end.
const ANALYSE_AFTER: u32 = 10_000;

/// What became of one game of a collection.
#[derive(Debug)]
pub enum Imported {
    /// Stored now; with the seat tokens of an unfinished game.
    New {
        id: GameId,
        tokens: Option<[String; 2]>,
    },
    /// Imported before as this game.
    Before(GameId),
    Refused(GameError),
}

/// One game of a collection: its roster tags (as far as they read) and what
/// became of it.
#[derive(Debug)]
pub struct CollectionGame {
    pub tags: Vec<(String, String)>,
    pub imported: Imported,
}

impl Games {
    /// Tells that an import call stored `games` games: after many, the
    /// store's statistics are brought up to date in the background, so that
    /// searches of the history take the right index at once.
    pub fn imported(&self, games: u32) {
        if games >= ANALYSE_AFTER {
            let store = self.store.clone();
            tokio::spawn(async move {
                if let Err(error) = store.analyse_history().await {
                    tracing::warn!(%error, "the store's statistics were not brought up to date");
                }
            });
        }
    }

    /// Imports a batch of a collection's games (under the variant and rules
    /// [`Games::import`] takes, for each), in the batch's order: each game
    /// stored whole or not at all, and none twice.
    ///
    /// # Errors
    ///
    /// Storage (then nothing of the batch is stored).
    pub async fn import_batch(
        &self,
        batch: Vec<CollectedGame>,
        hint: Option<Variant>,
        rules: Option<XiangqiRules>,
    ) -> Result<Vec<CollectionGame>, GameError> {
        let limits = self.import_limits;
        // Replaying every move is CPU work: off the async threads.
        let read = tokio::task::spawn_blocking(move || {
            batch
                .into_iter()
                .map(|game| read_collected(game, hint, rules, limits))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()));
        // Each game that reads well is stored, and answered with its id
        // from the store's answers, in the same order.
        let mut to_store = Vec::new();
        let read: Vec<_> = read
            .into_iter()
            .map(|(tags, prepared)| {
                let tokens = prepared.map(
                    |Prepared {
                         game,
                         tokens,
                         key,
                         opening,
                         positions,
                         roster,
                         ..
                     }| {
                        let ongoing = game.status == Status::Ongoing;
                        to_store.push(ImportedGame {
                            key: Some(key),
                            game,
                            opening,
                            positions,
                            roster,
                        });
                        ongoing.then_some(tokens)
                    },
                );
                (tags, tokens)
            })
            .collect();
        let mut stored = self.store.insert_imported(to_store).await?.into_iter();
        read.into_iter()
            .map(|(tags, tokens)| {
                let imported = match tokens {
                    Ok(tokens) => match stored.next() {
                        Some(Stored::New(game)) => Imported::New {
                            id: GameId::stored(&game.id),
                            tokens,
                        },
                        Some(Stored::Before(id)) => Imported::Before(GameId::stored(&id)),
                        None => {
                            return Err(GameError::Corrupt(
                                "the store answered for fewer games than it was given".to_owned(),
                            ));
                        }
                    },
                    Err(refused) => Imported::Refused(refused),
                };
                Ok(CollectionGame { tags, imported })
            })
            .collect()
    }
}

/// A collection's game read and made ready to store, with its roster tags.
fn read_collected(
    game: CollectedGame,
    hint: Option<Variant>,
    rules: Option<XiangqiRules>,
    limits: PgnLimits,
) -> (Vec<(String, String)>, Result<Prepared, GameError>) {
    match game {
        CollectedGame::Text(text) => (
            tags_of(text.as_bytes()),
            read_pgn(&text, hint, rules, limits).and_then(prepare),
        ),
        CollectedGame::TooLong { bytes, tags } => (
            tags,
            Err(GameError::OverLimit {
                field: "pgn",
                reason: Reason::PgnTooLong,
                limit: "limit_bytes",
                value: MAX_GAME_BYTES,
                message: format!(
                    "the game has {bytes} bytes, more than the {} one game may have",
                    MAX_GAME_BYTES
                ),
            }),
        ),
        CollectedGame::NotText { tags } => (
            tags,
            Err(GameError::invalid(
                "pgn",
                Reason::InvalidPgn,
                "the game is not UTF-8 text".to_owned(),
            )),
        ),
    }
}
