//! Move ordering: hash move, captures by most valuable victim / least
//! valuable attacker, killer moves, then quiet moves by history.

use super::Evaluate;

/// History slots, indexed by [`Evaluate::move_key`] (folded).
const HISTORY_SIZE: usize = 1 << 15;

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
                100_000 + 10 * pos.victim_value(m) - pos.attacker_value(m)
            } else if killers.contains(&Some(m)) {
                90_000
            } else {
                self.history(m).min(80_000)
            };
            -score
        });
    }

    /// A quiet move caused a beta cut-off.
    pub fn reward(&mut self, m: G::Move, depth: i32, ply: usize) {
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None; 2]);
        }
        let slot = &mut self.killers[ply];
        if slot[0] != Some(m) {
            slot[1] = slot[0];
            slot[0] = Some(m);
        }
        let entry = &mut self.history[G::move_key(m) as usize % HISTORY_SIZE];
        *entry = entry.saturating_add(depth * depth);
    }
}
