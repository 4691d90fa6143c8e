//! Game ids and seat tokens.

use rand::Rng;
use sha2::{Digest, Sha256};

const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// A short random id (80 bits), easy to read aloud.
pub fn new_id() -> String {
    let mut rng = rand::rng();
    (0..16)
        .map(|_| char::from(ID_ALPHABET[rng.random_range(0..ID_ALPHABET.len())]))
        .collect()
}

/// A secret seat token (256 bits).
pub(super) fn new_token() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    hex::encode(bytes)
}

/// Tokens are stored only as their SHA-256.
pub(super) fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}
