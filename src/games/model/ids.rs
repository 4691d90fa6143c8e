//! Game and position ids, and the secret tokens (seat, owner) that go with
//! them.

use rand::Rng;
use sha2::{Digest, Sha256};

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
}
