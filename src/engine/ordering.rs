//! Move ordering: hash move, captures that do not lose material by most
//! valuable victim / least valuable attacker, killer moves, quiet moves by
//! history, then captures that lose material.

use super::Evaluate;

/// History slots, indexed by [`Evaluate::move_key`] (folded).
const HISTORY_SIZE: usize = 1 << 15;
/// History scores stay within plus or minus this.
const HISTORY_MAX: i32 = 16_384;

/// What the search has learnt about good moves so far.
pub(super) struct Heuristics<G: Evaluate> {
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<i32>,
}

impl<G: Evaluate> Heuristics<G> {
    pub fn new() -> Heuristics<G> {
        Heuristics {
            killers: Vec::new(),
            history: vec![0; HISTORY_SIZE],
        }
    }

    fn history(&self, m: G::Move) -> i32 {
        self.history[G::move_key(m) as usize % HISTORY_SIZE]
    }

    /// Sorts `moves` best first; `hash_move` is a [`Evaluate::move_key`].
    pub fn order(&self, pos: &G, moves: &mut [G::Move], hash_move: u32, ply: usize) {
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        moves.sort_by_cached_key(|&m| {
            let score = if hash_move != 0 && G::move_key(m) == hash_move {
                1_000_000
            } else if pos.is_capture(m) {
                let mvv_lva = 10 * pos.victim_value(m) - pos.attacker_value(m);
                if pos.exchange_at_least(m, 0) {
                    100_000 + mvv_lva
                } else {
                    -100_000 + mvv_lva
                }
            } else if killers.contains(&Some(m)) {
                90_000
            } else {
                self.history(m)
            };
            -score
        });
    }

    /// A quiet move caused a beta cut-off; the quiet moves tried before it
    /// (`failed`) did not.
    pub fn reward(&mut self, m: G::Move, failed: &[G::Move], depth: i32, ply: usize) {
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None; 2]);
        }
        let slot = &mut self.killers[ply];
        if slot[0] != Some(m) {
            slot[1] = slot[0];
            slot[0] = Some(m);
        }
        let bonus = (depth * depth).min(400);
        self.adjust(m, bonus);
        for &f in failed {
            self.adjust(f, -bonus);
        }
    }

    /// Moves a history score towards the bound `bonus` points at, slowing
    /// as it nears it, so old successes fade.
    fn adjust(&mut self, m: G::Move, bonus: i32) {
        let entry = &mut self.history[G::move_key(m) as usize % HISTORY_SIZE];
        *entry += bonus * 32 - *entry * bonus.abs() * 32 / HISTORY_MAX;
    }
}
