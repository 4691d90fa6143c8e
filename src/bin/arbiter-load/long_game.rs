//! Long games for `--start-ply`: a fixed sequence of as many plies as asked,
//! none of which ends the game, and its PGN for `ImportGame`.
//!
//! The sequence is chosen by the rules library itself, so it holds for
//! whatever the rules judge: no move gives check (so no mate, no perpetual
//! check), no position occurs twice (so no repetition ending), no move the
//! rules forbid, and an irreversible move (a pawn step in chess, a capture in
//! xiangqi) once [`IRREVERSIBLE_DUE`] plies have passed without one, so that
//! no move-count rule (chess: 150 plies, xiangqi: 120) ever applies.

use std::fmt::Write;

use arbiter::rules::{Game, Record, chess::Chess, xiangqi::Xiangqi};

use crate::args::GameVariant;

/// Plies without an irreversible move after which the next move must be one.
const IRREVERSIBLE_DUE: u32 = 90;
/// Past this many such plies, a reversible move is no longer taken instead.
const IRREVERSIBLE_LAST: u32 = 110;

/// A deterministic choice of one of `n` things (xorshift): the same game
/// every run.
fn picker() -> impl FnMut(usize) -> usize {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// The first `plies` moves of the long game of `variant`, in coordinate
/// notation (chess UCI, xiangqi ICCS).
///
/// # Errors
///
/// The generator found no move that keeps the game going (it names the ply).
pub fn moves(variant: GameVariant, plies: usize) -> Result<Vec<String>, String> {
    match variant {
        GameVariant::Chess => generate(Chess::start(), plies),
        GameVariant::Xiangqi => generate(Xiangqi::start(), plies),
    }
}

fn generate<G: Game>(start: G, plies: usize) -> Result<Vec<String>, String> {
    let mut pick = picker();
    let mut record = Record::new(start);
    let mut moves = Vec::with_capacity(plies);
    while moves.len() < plies {
        let pos = record.current().clone();
        // Moves of the wanted kind (irreversible or not) that keep the game
        // going without check or a repeated position. Captures are taken
        // only as the irreversible move of last resort, so that chess keeps
        // its material (and its pawn steps) for long.
        let mut candidates = |irreversible: bool, captures: bool| -> Vec<G::Move> {
            pos.legal_moves()
                .into_iter()
                .filter(|&m| {
                    let mut next = pos.clone();
                    next.play(m);
                    if (next.halfmove_clock() == 0) != irreversible
                        || (pos.is_capture(m) && !captures)
                        || next.is_check()
                        || G::forbidden(&record, m).is_some()
                    {
                        return false;
                    }
                    record.push(m);
                    let fits = record.repetitions() == 1 && !record.verdict().is_over();
                    record.pop();
                    fits
                })
                .collect()
        };
        let clock = pos.halfmove_clock();
        let due = clock >= IRREVERSIBLE_DUE;
        let mut found = candidates(due, false);
        if found.is_empty() && due {
            found = candidates(true, true);
        }
        if found.is_empty() && clock < IRREVERSIBLE_LAST {
            found = candidates(!due, !due);
        }
        if found.is_empty() {
            return Err(format!(
                "no {} move keeps the long game going at ply {}",
                G::VARIANT,
                moves.len() + 1
            ));
        }
        let m = found[pick(found.len())];
        moves.push(pos.coordinate_notation(m));
        record.push(m);
    }
    Ok(moves)
}

/// `moves` as an unfinished PGN game.
pub fn pgn(moves: &[String]) -> String {
    let mut text =
        String::from("[White \"load white\"]\n[Black \"load black\"]\n[Result \"*\"]\n\n");
    for (ply, m) in moves.iter().enumerate() {
        if ply.is_multiple_of(2) {
            // Writing to a String cannot fail.
            let _ = write!(text, "{}. ", ply / 2 + 1);
        }
        text.push_str(m);
        text.push(' ');
    }
    text.push('*');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_games_are_the_same_every_time_and_grow_by_extension() {
        let short = moves(GameVariant::Xiangqi, 50).unwrap();
        let long = moves(GameVariant::Xiangqi, 120).unwrap();
        assert_eq!(short[..], long[..50]);
    }

    #[test]
    fn the_pgn_numbers_the_moves_and_leaves_the_game_open() {
        let moves = ["e2e4", "e7e5", "g1f3"].map(String::from);
        let text = pgn(&moves);
        assert!(text.ends_with("\n\n1. e2e4 e7e5 2. g1f3 *"), "{text}");
        assert!(text.contains("[Result \"*\"]"));
    }
}
