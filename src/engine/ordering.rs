//! Move ordering: hash move, captures by most valuable victim / least
//! valuable attacker, killer moves, then quiet moves by history.

use std::collections::HashMap;

use super::Evaluate;

/// What the search has learnt about good moves so far.
pub(super) struct Heuristics<G: Evaluate> {
    killers: Vec<[Option<G::Move>; 2]>,
    history: HashMap<G::Move, i32>,
}

impl<G: Evaluate> Heuristics<G> {
    pub fn new() -> Heuristics<G> {
        Heuristics {
            killers: Vec::new(),
            history: HashMap::new(),
        }
    }

    /// Sorts `moves` best first.
    pub fn order(&self, pos: &G, moves: &mut [G::Move], hash_move: Option<G::Move>, ply: usize) {
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        moves.sort_by_cached_key(|&m| {
            let score = if Some(m) == hash_move {
                1_000_000
            } else if pos.is_capture(m) {
                100_000 + 10 * pos.victim_value(m) - pos.attacker_value(m)
            } else if killers.contains(&Some(m)) {
                90_000
            } else {
                self.history.get(&m).copied().unwrap_or(0).min(80_000)
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
        *self.history.entry(m).or_insert(0) += depth * depth;
    }
}
