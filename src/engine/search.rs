//! Iterative deepening with aspiration windows over a principal variation
//! search, with quiescence search, check extensions and mate distances.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use super::{
    Evaluate,
    ordering::Heuristics,
    tt::{Bound, Entry, Table},
};
use crate::rules::{Game, Record};

/// A mate score; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
const MAX_PLY: usize = 128;
const ASPIRATION: i32 = 40;

/// When to stop searching.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Deepest iteration.
    pub depth: u32,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Transposition table size in MiB.
    pub hash_mb: usize,
}

impl Limits {
    /// Search to a fixed depth.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth,
            nodes: None,
            deadline: None,
            hash_mb: 16,
        }
    }
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// The best move; `None` when the side to move has no legal move.
    pub best: Option<M>,
    /// Centipawns for the side to move, or `MATE - plies` for a mate.
    pub score: i32,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// The principal variation, starting with `best`.
    pub pv: Vec<M>,
}

struct Searcher<'a, G: Evaluate> {
    limits: &'a Limits,
    stop: &'a AtomicBool,
    table: Table<G::Move>,
    heuristics: Heuristics<G>,
    /// Repetition keys of the game so far and of the current search path.
    path: Vec<u64>,
    nodes: u64,
    stopped: bool,
}

/// Searches the current position of `record` (its history counts for
/// repetitions) within `limits`.
pub fn search<G: Evaluate>(record: &Record<G>, limits: &Limits) -> SearchResult<G::Move> {
    search_with(record, limits, &AtomicBool::new(false), |_| {})
}

/// [`search`], also stopping when `stop` becomes true, and handing every
/// completed iteration to `report`.
pub fn search_with<G: Evaluate>(
    record: &Record<G>,
    limits: &Limits,
    stop: &AtomicBool,
    mut report: impl FnMut(&SearchResult<G::Move>),
) -> SearchResult<G::Move> {
    let root = record.current().clone();
    let mut searcher = Searcher {
        limits,
        stop,
        table: Table::new(limits.hash_mb),
        heuristics: Heuristics::new(),
        path: record
            .positions()
            .iter()
            .map(Game::repetition_key)
            .collect(),
        nodes: 0,
        stopped: false,
    };
    let legal = root.legal_moves();
    let mut result = SearchResult {
        best: legal.first().copied(),
        score: 0,
        depth: 0,
        nodes: 0,
        pv: legal.first().copied().into_iter().collect(),
    };
    if legal.len() <= 1 {
        return result;
    }
    let mut score = 0;
    for depth in 1..=limits.depth.max(1) {
        let (mut alpha, mut beta) = if depth >= 4 {
            (score - ASPIRATION, score + ASPIRATION)
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let value = searcher.negamax(
                &root,
                i32::try_from(depth).unwrap_or(i32::MAX),
                alpha,
                beta,
                0,
            );
            if searcher.stopped {
                break;
            }
            if value <= alpha {
                alpha = -INFINITY;
            } else if value >= beta {
                beta = INFINITY;
            } else {
                score = value;
                break;
            }
        }
        if searcher.stopped {
            break;
        }
        let pv = searcher.principal_variation(&root);
        if let Some(&best) = pv.first() {
            result = SearchResult {
                best: Some(best),
                score,
                depth,
                nodes: searcher.nodes,
                pv,
            };
            report(&result);
        }
        // A mate within the full-width horizon is the shortest there is;
        // one found through extensions may still shorten with depth.
        if score.abs() >= MATE_BOUND && MATE - score.abs() <= i32::try_from(depth).unwrap_or(0) {
            break;
        }
    }
    result.nodes = searcher.nodes;
    result
}

impl<G: Evaluate> Searcher<'_, G> {
    fn out_of_budget(&mut self) -> bool {
        if self.nodes.is_multiple_of(1024) {
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.limits.nodes.is_some_and(|n| self.nodes >= n);
            self.stopped |= late || spent || self.stop.load(Ordering::Relaxed);
        }
        self.stopped
    }

    /// Has the position repeated since the last irreversible move? Any
    /// repetition inside the search is scored as a draw.
    fn is_repetition(&self, pos: &G) -> bool {
        let last = self.path.len() - 1;
        let window = (pos.halfmove_clock() as usize).min(last);
        self.path[last - window..last]
            .iter()
            .any(|&k| k == self.path[last])
    }

    fn negamax(&mut self, pos: &G, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        if ply > 0 && self.is_repetition(pos) {
            return 0;
        }
        let in_check = pos.is_check();
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiescence(pos, alpha, beta, ply);
        }
        let key = *self.path.last().expect("path has the root");
        let entry = self.table.probe(key);
        if let Some(e) = entry.filter(|e| ply > 0 && e.depth >= depth) {
            let score = from_table(e.score, ply);
            match e.bound {
                Bound::Exact => return score,
                Bound::Lower if score >= beta => return score,
                Bound::Upper if score <= alpha => return score,
                _ => {}
            }
        }
        let mut moves: Vec<G::Move> = pos.legal_moves().into_iter().collect();
        if moves.is_empty() {
            return no_moves::<G>(in_check, ply);
        }
        self.heuristics
            .order(pos, &mut moves, entry.and_then(|e| e.best), ply);
        let original_alpha = alpha;
        let mut best = (-INFINITY, None);
        for (i, &m) in moves.iter().enumerate() {
            let mut child = pos.clone();
            child.play(m);
            self.path.push(child.repetition_key());
            // Check extension: a move that gives check is searched a ply deeper.
            let gives_check = child.is_check();
            let next = depth - 1 + i32::from(gives_check);
            // Late-move reduction: quiet moves far down the ordered list are
            // first searched a ply shallower, and again at full depth if they
            // turn out to beat alpha.
            let reduction =
                i32::from(depth >= 3 && i >= 4 && !in_check && !gives_check && !pos.is_capture(m));
            let score = if i == 0 {
                -self.negamax(&child, next, -beta, -alpha, ply + 1)
            } else {
                let mut probe =
                    -self.negamax(&child, next - reduction, -alpha - 1, -alpha, ply + 1);
                if reduction > 0 && probe > alpha {
                    probe = -self.negamax(&child, next, -alpha - 1, -alpha, ply + 1);
                }
                if probe > alpha && probe < beta {
                    -self.negamax(&child, next, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            };
            self.path.pop();
            if self.stopped {
                return 0;
            }
            if score > best.0 {
                best = (score, Some(m));
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if !pos.is_capture(m) {
                    self.heuristics.reward(m, depth, ply);
                }
                break;
            }
        }
        let bound = if best.0 >= beta {
            Bound::Lower
        } else if best.0 > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(Entry {
            key,
            best: best.1,
            depth,
            score: to_table(best.0, ply),
            bound,
        });
        best.0
    }

    /// Captures only (every move when in check), until the position is quiet.
    fn quiescence(&mut self, pos: &G, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let in_check = pos.is_check();
        let mut moves: Vec<G::Move> = pos.legal_moves().into_iter().collect();
        if moves.is_empty() {
            return no_moves::<G>(in_check, ply);
        }
        if !in_check {
            let stand_pat = pos.evaluate();
            if stand_pat >= beta || ply >= MAX_PLY {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            moves.retain(|&m| pos.is_capture(m));
        } else if ply >= MAX_PLY {
            return pos.evaluate();
        }
        self.heuristics.order(pos, &mut moves, None, ply);
        for m in moves {
            let mut child = pos.clone();
            child.play(m);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score >= beta {
                return score;
            }
            alpha = alpha.max(score);
        }
        alpha
    }

    /// Follows the table's best moves from the root.
    fn principal_variation(&self, root: &G) -> Vec<G::Move> {
        let mut pv = Vec::new();
        let mut pos = root.clone();
        let mut seen = Vec::new();
        while let Some(m) = self.table.probe(pos.repetition_key()).and_then(|e| e.best) {
            if !pos.legal_moves().contains(&m)
                || seen.contains(&pos.repetition_key())
                || pv.len() >= 32
            {
                break;
            }
            seen.push(pos.repetition_key());
            pv.push(m);
            pos.play(m);
        }
        pv
    }
}

/// The score of a position without legal moves, for the side to move.
fn no_moves<G: Evaluate>(in_check: bool, ply: usize) -> i32 {
    if in_check || G::STALEMATE_IS_LOSS {
        -MATE + i32::try_from(ply).unwrap_or(0)
    } else {
        0
    }
}

/// Mate scores are stored relative to the node, not the root.
fn to_table(score: i32, ply: usize) -> i32 {
    let ply = i32::try_from(ply).unwrap_or(0);
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    let ply = i32::try_from(ply).unwrap_or(0);
    if score >= MATE_BOUND {
        score - ply
    } else if score <= -MATE_BOUND {
        score + ply
    } else {
        score
    }
}
