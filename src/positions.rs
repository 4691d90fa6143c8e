//! Saved custom positions: validated once on the way in, stored in standard
//! FEN.

use crate::{
    games::GameError,
    rules::{
        Quoted, Side, Variant,
        placement::{Extras, fen_from_pieces},
        referee::{InvalidPosition, referee},
    },
    store::{NewPosition, Page, PositionFilter, Store, StoredPosition},
};

const MAX_NAME: usize = 200;
const MAX_TAGS: usize = 32;
const MAX_TAG: usize = 64;

/// Where a position comes from.
#[derive(Clone, Debug)]
pub enum Source {
    Fen(String),
    /// Pieces (square, FEN letter), side to move, castling, en passant.
    Board {
        pieces: Vec<(String, String)>,
        turn: Side,
        castling: String,
        en_passant: String,
    },
}

/// The positions service.
#[derive(Clone, Debug)]
pub struct Positions {
    store: Store,
}

impl Positions {
    pub fn new(store: Store) -> Positions {
        Positions { store }
    }

    /// Validates and saves a position.
    ///
    /// # Errors
    ///
    /// Every problem of the position, bad name or tags, or storage.
    pub async fn create(
        &self,
        variant: Variant,
        source: Source,
        name: &str,
        tags: &[String],
    ) -> Result<StoredPosition, GameError> {
        let name = name.trim();
        if name.chars().count() > MAX_NAME {
            return Err(GameError::InvalidArgument {
                field: "name",
                message: format!("at most {MAX_NAME} characters"),
            });
        }
        let mut tags: Vec<String> = tags.iter().map(|t| t.trim().to_owned()).collect();
        tags.sort();
        tags.dedup();
        let tag_problem = |tag: &String| match tag.chars().count() {
            0 => Some(format!(
                "a tag is empty: tags have 1 to {MAX_TAG} characters"
            )),
            n if n > MAX_TAG => Some(format!(
                "tag {} has {n} characters: at most {MAX_TAG}",
                Quoted(tag)
            )),
            _ => None,
        };
        let problem = if tags.len() > MAX_TAGS {
            Some(format!(
                "at most {MAX_TAGS} different tags, not {}",
                tags.len()
            ))
        } else {
            tags.iter().find_map(tag_problem)
        };
        if let Some(message) = problem {
            return Err(GameError::InvalidArgument {
                field: "tags",
                message,
            });
        }
        let fen = match source {
            Source::Fen(fen) => fen,
            Source::Board {
                pieces,
                turn,
                castling,
                en_passant,
            } => {
                let extras = Extras {
                    castling: &castling,
                    en_passant: &en_passant,
                };
                fen_from_pieces(variant, &pieces, turn, &extras)
                    .map_err(|problems| InvalidPosition { problems })?
            }
        };
        let record = referee::<&str>(variant, Some(&fen), &[])?;
        Ok(self
            .store
            .insert_position(NewPosition {
                id: crate::games::new_id(),
                variant: variant.name().to_owned(),
                fen: record.fen(),
                name: name.to_owned(),
                tags,
            })
            .await?)
    }

    /// A saved position.
    ///
    /// # Errors
    ///
    /// Unknown id, or storage.
    pub async fn get(&self, id: &str) -> Result<StoredPosition, GameError> {
        self.store
            .position(id)
            .await?
            .ok_or_else(|| GameError::position_not_found(id))
    }

    /// Saved positions, newest first.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn list(&self, filter: PositionFilter) -> Result<Page<StoredPosition>, GameError> {
        Ok(self.store.positions(filter).await?)
    }

    /// Deletes a saved position.
    ///
    /// # Errors
    ///
    /// Unknown id, or storage.
    pub async fn delete(&self, id: &str) -> Result<(), GameError> {
        if self.store.delete_position(id).await? {
            Ok(())
        } else {
            Err(GameError::position_not_found(id))
        }
    }
}
