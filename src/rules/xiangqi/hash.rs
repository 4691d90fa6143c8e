//! Zobrist keys for repetition detection.

use super::{
    Xiangqi,
    attacks::side_index,
    bitboard::Bitboard,
    moves::Move,
    piece::{Kind, Piece},
    square::Square,
};
use crate::rules::Side;

/// splitmix64, for compile-time random keys.
pub(super) const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

/// One key per (side, kind, point), then one for Black to move.
static KEYS: ([[[u64; Square::COUNT]; 7]; 2], u64) = {
    let mut keys = [[[0; Square::COUNT]; 7]; 2];
    let mut state = 0x5851_f42d_4c95_7f2d;
    let mut side = 0;
    while side < 2 {
        let mut kind = 0;
        while kind < 7 {
            let mut sq = 0;
            while sq < Square::COUNT {
                let (next, key) = splitmix(state);
                state = next;
                keys[side][kind][sq] = key;
                sq += 1;
            }
            kind += 1;
        }
        side += 1;
    }
    (keys, splitmix(state).1)
};

/// The Zobrist key of the placement and side to move.
pub(super) fn key(pos: &Xiangqi) -> u64 {
    let mut key = match pos.turn {
        Side::White => 0,
        Side::Black => KEYS.1,
    };
    for side in [Side::White, Side::Black] {
        for kind in Kind::ALL {
            let pieces: Bitboard = pos.pieces_of(side, kind);
            for sq in pieces {
                key ^= KEYS.0[side_index(side)][kind.index()][sq.index()];
            }
        }
    }
    key
}

/// The key after `m` is played in `pos`, whose key is `key`: the mover leaves
/// its point for the destination, a captured piece leaves the board, and the
/// turn passes. Equal to [`key`] of the position after the move.
pub(super) fn next_key(pos: &Xiangqi, key: u64, m: Move) -> u64 {
    let point =
        |piece: Piece, sq: Square| KEYS.0[side_index(piece.side)][piece.kind.index()][sq.index()];
    let mut key = key ^ KEYS.1;
    if let Some(piece) = pos.piece_at(m.from()) {
        key ^= point(piece, m.from()) ^ point(piece, m.to());
    }
    if let Some(captured) = pos.piece_at(m.to()) {
        key ^= point(captured, m.to());
    }
    key
}

#[cfg(test)]
mod tests {
    use super::{super::along_random_games, *};
    use crate::rules::Game;

    /// Along pseudo-random games (captures included), the updated key equals
    /// the key hashed from scratch at every ply.
    #[test]
    fn next_key_equals_key_after_the_move() {
        let mut captures = 0;
        along_random_games(|pos, m| {
            captures += usize::from(pos.piece_at(m.to()).is_some());
            let mut next = pos.clone();
            next.play_move(m);
            assert_eq!(
                next_key(pos, key(pos), m),
                key(&next),
                "{m} at {}",
                pos.fen()
            );
        });
        assert!(captures > 100, "only {captures} captures");
    }
}
