//! Game and position ids, and the secret tokens (seat, owner) that go with
//! them.

use std::{fmt, ops::Deref};

use rand::Rng;
use sha2::{Digest, Sha256};

use super::error::GameError;

const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
const ID_LENGTH: usize = 16;

/// A short random id (80 bits), easy to read aloud.
pub fn new_id() -> String {
    let mut rng = rand::rng();
    (0..ID_LENGTH)
        .map(|_| char::from(ID_ALPHABET[rng.random_range(0..ID_ALPHABET.len())]))
        .collect()
}

/// Could `id` be one of ours (its length and alphabet)? An id that cannot
/// is refused before it reaches the database or the logs.
pub fn is_well_formed_id(id: &str) -> bool {
    id.len() == ID_LENGTH && id.bytes().all(|b| ID_ALPHABET.contains(&b))
}

/// A game's id, known to be well formed: checked once, where it comes in,
/// so that no id that cannot be a game's reaches the store or the logs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameId(String);

impl GameId {
    /// `id` as a game's id.
    ///
    /// # Errors
    ///
    /// NOT_FOUND (`GAME_NOT_FOUND`) for an id that cannot be a game's.
    pub fn parse(id: &str) -> Result<GameId, GameError> {
        if is_well_formed_id(id) {
            Ok(GameId(id.to_owned()))
        } else {
            Err(GameError::game_not_found(id))
        }
    }

    /// The id of a game the store holds (made here, so well formed).
    pub(in crate::games) fn stored(id: &str) -> GameId {
        GameId(id.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for GameId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A secret token (256 bits), shown once.
pub(crate) fn new_token() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    hex::encode(bytes)
}

/// The token a seat's holder gets in the game's rematch: derived from its
/// token (which only it knows), so that it can ask for it again with that
/// token, while the store keeps only hashes.
pub(crate) fn successor_token(token: &str) -> String {
    let mut digest = Sha256::new();
    digest.update(b"arbiter rematch seat\0");
    digest.update(token.as_bytes());
    hex::encode(digest.finalize())
}

/// Tokens are stored only as their SHA-256, and compared as such: how long
/// a comparison takes tells nothing about the secret.
pub(crate) fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_well_formed_and_others_are_not() {
        assert!(is_well_formed_id(&new_id()));
        for id in [
            "",
            "nope",
            "abcdefghijkmnpq",
            "abcdefghijkmnpqrs",
            "abcdefghijkmnpq1",
        ] {
            assert!(!is_well_formed_id(id), "{id}");
        }
        assert!(!is_well_formed_id("ABCDEFGHIJKMNPQR"));
        assert!(!is_well_formed_id("abcdefghijkmnpé"));
    }

    #[test]
    fn a_game_id_is_parsed_once_well_formed() {
        let id = new_id();
        assert_eq!(GameId::parse(&id).unwrap().as_str(), id);
        assert!(matches!(GameId::parse("nope"), Err(GameError::NotFound(_))));
    }
}
