//! Saved custom positions: validated once on the way in, stored in standard
//! FEN. Whoever saves a position gets its owner token (shown once, kept
//! only as its SHA-256), which deleting it requires; the operator
//! credential deletes any position, also those saved before positions had
//! owners.

use super::model::{
    AdminToken, GameError, Refusal, hash_token, is_admin, new_token, refuse_hidden_characters,
};
use crate::{
    reason::Reason,
    rules::{
        Side, Variant,
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

/// A saved position and its owner token (shown once).
#[derive(Clone, Debug)]
pub struct CreatedPosition {
    pub position: StoredPosition,
    pub owner_token: String,
}

/// The positions service.
#[derive(Clone, Debug)]
pub struct Positions {
    store: Store,
    admin: Option<AdminToken>,
}

impl Positions {
    pub fn new(store: Store) -> Positions {
        Positions { store, admin: None }
    }

    /// The service with the operator credential `admin` (deletes any
    /// position).
    #[must_use]
    pub fn with_admin_token(self, admin: Option<AdminToken>) -> Positions {
        Positions { admin, ..self }
    }

    /// Validates and saves a position; the answer carries its owner token.
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
    ) -> Result<CreatedPosition, GameError> {
        refuse_hidden_characters("name", name)?;
        let name = name.trim();
        if name.chars().count() > MAX_NAME {
            return Err(GameError::invalid(
                "name",
                Reason::TooLong,
                format!("at most {MAX_NAME} characters"),
            ));
        }
        let tags = clean_tags(tags)?;
        let (field, fen) = match source {
            Source::Fen(fen) => ("fen", fen),
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
                let fen = fen_from_pieces(variant, &pieces, turn, &extras).map_err(|problems| {
                    GameError::InvalidPosition {
                        field: "board",
                        error: InvalidPosition { problems },
                    }
                })?;
                ("board", fen)
            }
        };
        let record = referee::<&str>(variant, Some(&fen), &[])
            .map_err(|error| GameError::InvalidPosition { field, error })?;
        let owner_token = new_token();
        let position = self
            .store
            .insert_position(NewPosition {
                id: crate::games::new_id(),
                variant: variant.name().to_owned(),
                fen: record.fen(),
                name: name.to_owned(),
                tags,
                owner_token_hash: hash_token(&owner_token),
            })
            .await?;
        Ok(CreatedPosition {
            position,
            owner_token,
        })
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

    /// Deletes a saved position for the holder of its owner token or of
    /// the operator credential.
    ///
    /// # Errors
    ///
    /// No token (`Unauthenticated`, `OWNER_TOKEN_MISSING`), unknown id, a
    /// token that is neither (`Unauthenticated`, `OWNER_TOKEN_UNKNOWN`), or
    /// storage.
    pub async fn delete(&self, id: &str, token: &str) -> Result<(), GameError> {
        if token.is_empty() {
            return Err(GameError::Unauthenticated(Refusal::new(
                Reason::OwnerTokenMissing,
                "owner_token is required: use the token CreatePosition returned",
            )));
        }
        let owner = self.get(id).await?.owner_token_hash;
        let owns = owner.as_deref() == Some(hash_token(token).as_str());
        if !owns && !is_admin(self.admin.as_ref(), token) {
            let message = if owner.is_some() {
                "owner_token is not this position's owner token"
            } else {
                "this position was saved before positions had owner tokens: \
                 only the operator credential deletes it"
            };
            return Err(GameError::Unauthenticated(Refusal::new(
                Reason::OwnerTokenUnknown,
                message,
            )));
        }
        if self.store.delete_position(id).await? {
            Ok(())
        } else {
            Err(GameError::position_not_found(id))
        }
    }
}

/// The tags trimmed, sorted and without repeats; INVALID_ARGUMENT naming
/// the bad ones (by index: a tag may be long) otherwise.
fn clean_tags(tags: &[String]) -> Result<Vec<String>, GameError> {
    const LISTED: usize = 3;
    // Only the listed problems are written out.
    let mut bad = tags
        .iter()
        .enumerate()
        .filter_map(|(i, tag)| tag_problem(tag).map(|problem| format!("tags[{i}] {problem}")));
    let listed: Vec<String> = bad.by_ref().take(LISTED).collect();
    let unlisted = bad.count();
    let mut clean: Vec<String> = tags.iter().map(|t| t.trim().to_owned()).collect();
    clean.sort();
    clean.dedup();
    let (reason, message) = if !listed.is_empty() {
        let more = match unlisted {
            0 => String::new(),
            more => format!(" (and {more} more)"),
        };
        let message = format!(
            "{}{more}: a tag has 1 to {MAX_TAG} characters, none of them a control character",
            listed.join("; ")
        );
        (Reason::InvalidTag, message)
    } else if clean.len() > MAX_TAGS {
        let message = format!("at most {MAX_TAGS} different tags, not {}", clean.len());
        (Reason::TooLong, message)
    } else {
        return Ok(clean);
    };
    Err(GameError::invalid("tags", reason, message))
}

/// What is wrong with `tag`, if anything. A control character (a newline
/// above all) would split it when tags are stored and read back.
fn tag_problem(tag: &str) -> Option<String> {
    if let Some(c) = tag.chars().find(|c| c.is_control()) {
        return Some(format!("has a control character (U+{:04X})", u32::from(c)));
    }
    match tag.trim().chars().count() {
        0 => Some("is empty".to_owned()),
        n if n > MAX_TAG => Some(format!("has {n} characters")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(tags: &[&str]) -> Result<Vec<String>, String> {
        let tags: Vec<String> = tags.iter().map(|&t| t.to_owned()).collect();
        clean_tags(&tags).map_err(|e| e.to_string())
    }

    #[test]
    fn tags_are_trimmed_sorted_and_unique() {
        assert_eq!(tags(&[" b", "a ", "b"]), Ok(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn every_bad_tag_is_named_by_index() {
        let long = "x".repeat(65);
        assert_eq!(
            tags(&["ok", "", &long]),
            Err(
                "tags: tags[1] is empty; tags[2] has 65 characters: a tag has 1 to 64 \
                 characters, none of them a control character"
                    .into()
            )
        );
        assert_eq!(
            tags(&["", " ", "", "  ", "ok"]),
            Err(
                "tags: tags[0] is empty; tags[1] is empty; tags[2] is empty (and 1 more): \
                 a tag has 1 to 64 characters, none of them a control character"
                    .into()
            )
        );
        assert_eq!(
            tags(&["a\nb", "ok", "\u{7}"]),
            Err(
                "tags: tags[0] has a control character (U+000A); tags[2] has a control \
                 character (U+0007): a tag has 1 to 64 characters, none of them a control \
                 character"
                    .into()
            )
        );
        let many: Vec<String> = (0..33).map(|i| i.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(
            tags(&many),
            Err("tags: at most 32 different tags, not 33".into())
        );
    }
}
