//! The positions a game reached, as the store finds games by them: each
//! position's board, side to move and castling (not its move counters, nor
//! an en passant square), hashed to 64 bits, for the start and the first
//! [`INDEXED_PLIES`] moves of a game, each position once.

use sha2::{Digest, Sha256};

/// The plies whose positions a stored game is found by: an opening and
/// early middlegame, so that a game costs at most this many rows.
pub const INDEXED_PLIES: usize = 80;

/// The key games that reached `fen`'s position are found by.
pub fn position_key(fen: &str) -> i64 {
    let mut fields: Vec<&str> = fen.split_whitespace().take(3).collect();
    // Xiangqi's Red moves as `w` in stored FENs, and may be written `r`.
    if fields.get(1) == Some(&"r") {
        fields[1] = "w";
    }
    let mut text = fields.join(" ");
    // A FEN without castling rights written (xiangqi's, often) has none.
    if fields.len() == 2 {
        text.push_str(" -");
    }
    let digest = Sha256::digest(text.as_bytes());
    let mut key = [0u8; 8];
    key.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(key)
}

/// The keys of the positions a game from `start_fen` through the positions
/// `fens` reached, within its first [`INDEXED_PLIES`] moves, each once.
pub fn position_keys<'a>(start_fen: &'a str, fens: impl IntoIterator<Item = &'a str>) -> Vec<i64> {
    let mut keys: Vec<i64> = std::iter::once(start_fen)
        .chain(fens.into_iter().take(INDEXED_PLIES))
        .map(position_key)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_is_the_same_whatever_its_move_counters() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let later = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3";
        assert_eq!(position_key(start), position_key(later));
        let no_castling = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        assert_ne!(position_key(start), position_key(no_castling));
        let xiangqi = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
        assert_eq!(
            position_key(xiangqi),
            position_key(&format!("{xiangqi} - - 0 1"))
        );
        assert_eq!(
            position_key(xiangqi),
            position_key(&xiangqi.replace(" w", " r"))
        );
    }

    #[test]
    fn a_game_keeps_each_position_once_within_its_first_plies() {
        let start = "8/8/8/8/8/8/8/K6k w - - 0 1";
        let there = "8/8/8/8/8/8/8/1K5k b - - 1 1";
        let back = "8/8/8/8/8/8/8/K6k w - - 2 2";
        assert_eq!(position_keys(start, [there, back]).len(), 2);
        let long: Vec<String> = (0..200)
            .map(|n| format!("{n}/8/8/8/8/8/8/8 w - - 0 1"))
            .collect();
        let keys = position_keys(start, long.iter().map(String::as_str));
        assert_eq!(keys.len(), INDEXED_PLIES + 1);
    }
}
