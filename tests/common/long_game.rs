//! Long games for tests: as many plies as wanted, none of which ends the
//! game, and their PGN.

use std::collections::HashMap;

use arbiter::rules::{Game, Record, xiangqi::Xiangqi};
use shakmaty::{Chess, EnPassantMode, Move, Position, Role, san::San, zobrist::Zobrist64};

/// A deterministic choice of one of `n` things (xorshift), the same
/// sequence every run.
fn picker() -> impl FnMut(usize) -> usize {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// A deterministic chess game of `plies` SAN moves that never ends: no
/// captures, no checks, no position a third time, and a single pawn step
/// every 90 plies so that no move-count rule applies.
pub fn long_game(plies: usize) -> Vec<String> {
    let mut pick = picker();
    let mut pos = Chess::default();
    let mut seen: HashMap<Zobrist64, u32> = HashMap::new();
    let mut sans = Vec::with_capacity(plies);
    while sans.len() < plies {
        let fits = |m: &Move, pawns: bool| {
            let pawn_step = m.role() == Role::Pawn
                && !m.is_promotion()
                && m.from().is_some_and(|from| from.distance(m.to()) == 1);
            if m.is_capture() || (m.role() == Role::Pawn && !pawn_step) || pawn_step != pawns {
                return false;
            }
            let after = pos.clone().play(*m).expect("legal");
            !after.is_check()
                && !after.legal_moves().is_empty()
                && seen
                    .get(&after.zobrist_hash(EnPassantMode::Legal))
                    .is_none_or(|&n| n < 2)
        };
        let legal = pos.legal_moves();
        let due = pos.halfmoves() >= 90;
        let mut candidates: Vec<&Move> = legal.iter().filter(|m| fits(m, due)).collect();
        if candidates.is_empty() && pos.halfmoves() < 140 {
            candidates = legal.iter().filter(|m| fits(m, !due)).collect();
        }
        assert!(
            !candidates.is_empty(),
            "the generator is stuck at ply {}",
            sans.len()
        );
        let m = *candidates[pick(candidates.len())];
        sans.push(San::from_move(&pos, m).to_string());
        pos.play_unchecked(m);
        *seen
            .entry(pos.zobrist_hash(EnPassantMode::Legal))
            .or_default() += 1;
    }
    sans
}

/// A deterministic xiangqi game of `plies` ICCS moves that never ends, as
/// Arbiter's rules judge it: no checks, no position a second time, and a
/// capture once 100 plies have passed without one, so that the move limit
/// (120 plies) never applies.
pub fn long_xiangqi_game(plies: usize) -> Vec<String> {
    let mut pick = picker();
    let mut record = Record::new(Xiangqi::start());
    let mut moves = Vec::with_capacity(plies);
    while moves.len() < plies {
        let pos = record.current().clone();
        let mut fits = |captures: bool| -> Vec<_> {
            let legal = pos.legal_moves().into_iter();
            legal
                .filter(|&m| {
                    if pos.is_capture(m) != captures {
                        return false;
                    }
                    record.push(m);
                    let fits = !record.current().is_check()
                        && record.repetitions() == 1
                        && !record.verdict().is_over();
                    record.pop();
                    fits
                })
                .collect()
        };
        let due = pos.halfmove_clock() >= 100;
        let mut candidates = fits(due);
        if candidates.is_empty() && pos.halfmove_clock() < 110 {
            candidates = fits(!due);
        }
        assert!(
            !candidates.is_empty(),
            "the generator is stuck at ply {}",
            moves.len()
        );
        let m = candidates[pick(candidates.len())];
        moves.push(pos.coordinate_notation(m));
        record.push(m);
    }
    moves
}

/// The first `plies` of `sans` as PGN, unfinished.
pub fn pgn(sans: &[String], plies: usize) -> String {
    let mut text = String::from("[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n\n");
    for (ply, san) in sans[..plies].iter().enumerate() {
        if ply.is_multiple_of(2) {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(san);
        text.push(' ');
    }
    text.push('*');
    text
}
