//! Iterative deepening with aspiration windows over a principal variation
//! search: null-move pruning, reverse futility, futility, late-move and
//! static-exchange pruning, late-move and internal iterative reductions,
//! check extensions, quiescence search and mate distances, with repetitions
//! judged by the game's own rules, and several best lines on request
//! (multi-PV: each line's root search leaves out the moves of the lines
//! before it). How repetitions are scored: [`repetition`].

mod repetition;

use std::{
    sync::{LazyLock, atomic::AtomicBool},
    time::Instant,
};

use super::{
    Evaluate, Interrupt, Limits,
    ordering::Heuristics,
    tt::{Bound, Entry, TranspositionTable},
};
use crate::rules::Record;
use repetition::Repetition;

/// A mate score; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this are mates (or, in xiangqi, wins by the opponent's
/// perpetual check or chase).
const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
const MAX_PLY: usize = 128;
const ASPIRATION: i32 = 40;
/// Plies searched past a mate's length before it is taken as the shortest.
const MATE_MARGIN: i32 = 4;
/// Reverse futility: a position this far above beta per remaining ply is
/// not searched further.
const FUTILITY_MARGIN: i32 = 90;
/// Late-move pruning: at depth 1, 2 and 3 (non-PV, not in check) only this
/// many moves are searched (then captures and checks), unless the game
/// prunes by [`Evaluate::MOVE_COUNT_PRUNING`] (up to depth
/// [`MOVE_COUNT_DEPTH`]).
const LATE_MOVES: [usize; 4] = [0, 8, 14, 24];
const MOVE_COUNT_DEPTH: i32 = 6;
/// No static evaluation at this ply (in check, or not computed).
const NO_EVAL: i32 = i32::MIN;
/// Delta pruning margin in quiescence search.
const DELTA_MARGIN: i32 = 200;
/// Exchange pruning near the horizon: a capture losing more than this per
/// remaining ply, or a quiet move losing more than this times the square of
/// the remaining plies, is skipped.
const LOSING_CAPTURE_MARGIN: i32 = 100;
const LOSING_QUIET_MARGIN: i32 = 30;

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult<M> {
    /// The deepest completed iteration.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// The best lines with different first moves, best first, as many as
    /// [`Limits::multipv`] asked for and the position has moves (none
    /// without a legal move).
    pub lines: Vec<Line<M>>,
}

impl<M: Copy> SearchResult<M> {
    /// The best move; `None` when the side to move has no legal move.
    pub fn best(&self) -> Option<M> {
        self.pv().first().copied()
    }

    /// The score of the best line (see [`Line::score`]).
    pub fn score(&self) -> i32 {
        self.lines.first().map_or(0, |line| line.score)
    }

    /// The principal variation, starting with [`SearchResult::best`].
    pub fn pv(&self) -> &[M] {
        self.lines.first().map_or(&[], |line| &line.pv)
    }
}

/// One line of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<M> {
    /// Centipawns for the side to move, or `MATE - plies` for a mate.
    pub score: i32,
    /// The line, its first move first.
    pub pv: Vec<M>,
}

/// One position on the game's path and the search's current line.
#[derive(Clone, Copy)]
struct Visit<M> {
    key: u64,
    /// The side to move is in check (the move into it gave check).
    in_check: bool,
    /// The move that led here (`None` for the game's start, and for a null
    /// move), to replay a repetition cycle for the judge.
    last_move: Option<M>,
}

struct Searcher<'a, G: Evaluate> {
    limits: &'a Limits,
    stop: &'a dyn Interrupt,
    table: &'a mut TranspositionTable,
    heuristics: Heuristics<G>,
    /// The game's positions up to the root (`path` starts with them).
    history: &'a [G],
    /// Repetition cycles are judged by the game's rules
    /// ([`Evaluate::judges_repetitions`]) rather than all drawn.
    judged: bool,
    /// Repetitions the judge scored as a win or loss, so far: a node whose
    /// search met one does not store a mate-like score (see `negamax`).
    verdicts: u64,
    /// The game so far and the current search line.
    path: Vec<Visit<G::Move>>,
    /// Index in `path` of the first position after the last null move's:
    /// repetitions are not looked for across a null move.
    barrier: usize,
    /// The best move of the last completed root search (the table may keep
    /// a deeper, older entry for the root from an earlier search).
    root_best: Option<G::Move>,
    /// Root moves left out of the current root search (the first moves of
    /// the lines already found at this depth, in a multi-line search).
    excluded: Vec<G::Move>,
    /// The static evaluation at each ply of the current line (`NO_EVAL`
    /// where none was taken), to tell whether a side's position improves.
    evals: Vec<i32>,
    nodes: u64,
    stopped: bool,
}

/// Searches the current position of `record` (its history counts for
/// repetitions) within `limits`, with a fresh transposition table of
/// `limits.hash_mb`.
pub fn search<G: Evaluate>(record: &Record<G>, limits: &Limits) -> SearchResult<G::Move> {
    let mut table = TranspositionTable::new(limits.hash_mb);
    search_with(record, limits, &mut table, &AtomicBool::new(false), |_| {})
}

/// [`search`] with a caller's table (kept between the moves of a game), also
/// stopping when `stop` says so, and handing every completed iteration to
/// `report`.
pub fn search_with<G: Evaluate>(
    record: &Record<G>,
    limits: &Limits,
    table: &mut TranspositionTable,
    stop: &dyn Interrupt,
    mut report: impl FnMut(&SearchResult<G::Move>),
) -> SearchResult<G::Move> {
    let root = record.current().clone();
    let mut searcher = Searcher::new(record, limits, table, stop);
    let legal = root.legal_moves();
    let lines: Vec<Line<G::Move>> = legal
        .iter()
        .take(limits.multipv.max(1))
        .map(|&m| Line {
            score: 0,
            pv: vec![m],
        })
        .collect();
    let mut result = SearchResult {
        depth: 0,
        nodes: 0,
        lines,
    };
    if legal.len() <= 1 {
        return result;
    }
    // Each line's score at the previous depth centres its aspiration window.
    let mut scores = vec![0; result.lines.len()];
    for depth in 1..=limits.depth.max(1) {
        let mut lines = Vec::with_capacity(scores.len());
        searcher.excluded.clear();
        for score in &mut scores {
            let Some(line) = searcher.root_search(&root, depth, *score) else {
                break;
            };
            *score = line.score;
            searcher.excluded.extend(line.pv.first());
            lines.push(line);
        }
        if searcher.stopped {
            break;
        }
        // A later line may come out better than an earlier one once it has
        // been searched on its own.
        lines.sort_by_key(|line| -line.score);
        result = SearchResult {
            depth,
            nodes: searcher.nodes,
            lines,
        };
        report(&result);
        let score = result.score();
        // A mate well within the horizon is taken as the shortest; pruning
        // can hide a shorter one (a quiet first move, say) for a few plies
        // more, so the search goes on a little past the first mate found.
        if score.abs() >= MATE_BOUND
            && MATE - score.abs() + MATE_MARGIN <= i32::try_from(depth).unwrap_or(0)
        {
            break;
        }
        // Another iteration would not finish in the time left.
        if limits.soft_deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
    }
    result.nodes = searcher.nodes;
    result
}

impl<'a, G: Evaluate> Searcher<'a, G> {
    fn new(
        record: &'a Record<G>,
        limits: &'a Limits,
        table: &'a mut TranspositionTable,
        stop: &'a dyn Interrupt,
    ) -> Searcher<'a, G> {
        Searcher {
            limits,
            stop,
            table,
            heuristics: Heuristics::new(),
            history: record.positions(),
            judged: G::judges_repetitions(record.options()),
            verdicts: 0,
            path: record
                .positions()
                .iter()
                .enumerate()
                .map(|(i, p)| Visit {
                    key: p.repetition_key(),
                    in_check: p.is_check(),
                    last_move: i.checked_sub(1).map(|m| record.moves()[m]),
                })
                .collect(),
            barrier: 0,
            root_best: None,
            excluded: Vec::new(),
            evals: vec![NO_EVAL; MAX_PLY],
            nodes: 0,
            stopped: false,
        }
    }

    /// Searches the root to `depth` (leaving out the excluded moves) within
    /// an aspiration window around `guess`, widened on failure; `None` when
    /// the search was stopped.
    fn root_search(&mut self, root: &G, depth: u32, guess: i32) -> Option<Line<G::Move>> {
        let (mut alpha, mut beta) = if depth >= 4 {
            (guess - ASPIRATION, guess + ASPIRATION)
        } else {
            (-INFINITY, INFINITY)
        };
        let depth = i32::try_from(depth).unwrap_or(i32::MAX);
        let mut delta = ASPIRATION;
        loop {
            let score = self.negamax(root, depth, alpha, beta, 0);
            if self.stopped {
                return None;
            }
            if G::GRADUAL_ASPIRATION && score <= alpha {
                delta *= 2;
                beta = (alpha + beta) / 2;
                alpha = if delta > 500 {
                    -INFINITY
                } else {
                    (score - delta).max(-INFINITY)
                };
            } else if G::GRADUAL_ASPIRATION && score >= beta {
                delta *= 2;
                beta = if delta > 500 {
                    INFINITY
                } else {
                    (score + delta).min(INFINITY)
                };
            } else if score <= alpha {
                alpha = -INFINITY;
            } else if score >= beta {
                beta = INFINITY;
            } else {
                let pv = self.principal_variation(root, self.root_best);
                return Some(Line { score, pv });
            }
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes.is_multiple_of(1024) {
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.limits.nodes.is_some_and(|n| self.nodes >= n);
            self.stopped |= late || spent || self.stop.interrupted();
        }
        self.stopped
    }

    /// The static evaluation, blurred by the level's noise: a weaker level
    /// misjudges positions a little, consistently, rather than blundering
    /// at random.
    fn evaluate(&self, pos: &G) -> i32 {
        let noise = self.limits.noise;
        if noise <= 0 {
            return pos.evaluate();
        }
        let key = self.path.last().map_or(0, |v| v.key) ^ self.limits.seed;
        let hash = key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
        let spread = u64::from(noise.unsigned_abs()) * 2 + 1;
        pos.evaluate() + i32::try_from(hash % spread).unwrap_or(0) - noise
    }

    fn play(&mut self, pos: &G, m: G::Move) -> G {
        let mut child = pos.clone();
        child.play(m);
        // The last visit is `pos` itself: its key updates with the move.
        let parent = self.path.last().expect("path has the root").key;
        let key = pos.next_repetition_key(parent, m, &child);
        debug_assert_eq!(key, child.repetition_key());
        self.path.push(Visit {
            key,
            in_check: child.is_check(),
            last_move: Some(m),
        });
        child
    }

    fn negamax(&mut self, pos: &G, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let repetition = if ply > 0 {
            self.repetition(pos, ply)
        } else {
            Repetition::New
        };
        if let Repetition::Scored(score) = repetition {
            return score;
        }
        let Visit { key, in_check, .. } = *self.path.last().expect("path has the root");
        let verdicts = self.verdicts;
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiescence(pos, alpha, beta, ply);
        }
        let entry = self.table.probe(key);
        let hash_move = entry.map_or(0, |e| e.best);
        // An open cycle's position is searched: its entry may come from a
        // line where the cycle's end was not in sight, and answered from it
        // the search would walk into the third occurrence unawares.
        if let Some(e) =
            entry.filter(|e| ply > 0 && e.depth >= depth && !matches!(repetition, Repetition::Open))
        {
            let score = from_table(e.score, ply);
            match e.bound {
                Bound::Exact => return score,
                Bound::Lower if score >= beta => return score,
                Bound::Upper if score <= alpha => return score,
                _ => {}
            }
        }
        let pv_node = beta - alpha > 1;
        // Internal iterative reduction: a node without a hash move was never
        // searched (or lost its entry), so its ordering is a guess; search it
        // a ply shallower.
        let depth = if hash_move == 0 && depth >= 4 && ply > 0 {
            depth - 1
        } else {
            depth
        };
        // The static evaluation where pruning may use it.
        let prunable = !pv_node && !in_check && ply > 0 && beta.abs() < MATE_BOUND;
        // Move-count pruning also asks whether the position improves, so
        // such a game takes the evaluation at every node out of check.
        let eval = if prunable || (G::MOVE_COUNT_PRUNING && !in_check) {
            self.evaluate(pos)
        } else {
            NO_EVAL
        };
        self.evals[ply] = eval;
        let improving = ply >= 2
            && eval != NO_EVAL
            && self.evals[ply - 2] != NO_EVAL
            && eval > self.evals[ply - 2];
        let static_eval = prunable.then_some(eval);
        if let Some(eval) = static_eval {
            // Reverse futility: far above beta near the horizon.
            if depth <= 3 && eval - FUTILITY_MARGIN * depth >= beta {
                return eval;
            }
            // Null move: if passing still beats beta, a real move would too.
            if depth >= 3
                && eval >= beta
                && let Some(passed) = pos.null_move()
            {
                let reduction = 3 + depth / 6;
                self.path.push(Visit {
                    key: passed.repetition_key(),
                    in_check: false,
                    last_move: None,
                });
                let barrier = std::mem::replace(&mut self.barrier, self.path.len());
                let score = -self.negamax(&passed, depth - reduction, -beta, -beta + 1, ply + 1);
                self.barrier = barrier;
                self.path.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }
        let mut moves: Vec<G::Move> = pos.legal_moves().into_iter().collect();
        if moves.is_empty() {
            return no_moves(pos, in_check, ply);
        }
        if ply == 0 {
            moves.retain(|m| !self.excluded.contains(m));
        }
        self.heuristics.order(pos, &mut moves, hash_move, ply);
        let original_alpha = alpha;
        let mut best = (-INFINITY, None);
        let mut quiets_tried = Vec::new();
        for (i, &m) in moves.iter().enumerate() {
            let quiet_move = !pos.is_capture(m);
            let child = self.play(pos, m);
            // Check extension: a move that gives check is searched a ply deeper.
            let gives_check = self.path.last().is_some_and(|v| v.in_check);
            if let Some(eval) = static_eval
                && i > 0
                && !gives_check
                && best.0 > -MATE_BOUND
                && self.skippable(pos, m, quiet_move, eval, alpha, depth, i, improving)
            {
                self.path.pop();
                continue;
            }
            let next = depth - 1 + i32::from(gives_check);
            // Late-move reduction: quiet moves far down the ordered list are
            // first searched shallower, and again at full depth if they turn
            // out to beat alpha.
            let quiet = !in_check && !gives_check && quiet_move;
            let reduction = if depth >= 3 && i >= 3 && quiet {
                (late_move_reduction(depth, i) - i32::from(pv_node))
                    .min(next - 1)
                    .max(1)
            } else {
                0
            };
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
                if quiet_move {
                    self.heuristics.reward(m, &quiets_tried, depth, ply);
                }
                break;
            }
            if quiet_move {
                quiets_tried.push(m);
            }
        }
        if ply == 0 {
            self.root_best = best.1;
        }
        // A repetition's verdict belongs to the line that led to it, not to
        // the position: stored, a perpetual-chase win found along one line
        // would be read as a forced mate wherever the position turns up
        // again. So a mate-like score from a subtree where the judge gave a
        // verdict is not stored. Drawn repetitions are stored, as Stockfish
        // stores them: a draw misread elsewhere costs little, a false mate
        // decides the game. Real mates found in such a subtree are searched
        // again, which costs little as verdicts are rare.
        if self.verdicts != verdicts && best.0.abs() >= MATE_BOUND {
            return best.0;
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
            best: best.1.map_or(0, G::move_key),
            depth,
            score: to_table(best.0, ply),
            bound,
        });
        best.0
    }

    /// Near the horizon of a node that may be pruned, is the `i`th move `m`
    /// (not the first, not a check) not worth searching? Late quiet moves,
    /// quiet moves that cannot lift a hopeless static evaluation to alpha,
    /// and moves that lose material in the exchange they start are skipped.
    /// `improving`: the static evaluation rose since the side's last move.
    #[allow(clippy::too_many_arguments)]
    fn skippable(
        &self,
        pos: &G,
        m: G::Move,
        quiet: bool,
        eval: i32,
        alpha: i32,
        depth: i32,
        i: usize,
        improving: bool,
    ) -> bool {
        if quiet {
            let late = if G::MOVE_COUNT_PRUNING {
                depth <= MOVE_COUNT_DEPTH
                    && i >= ((3 + depth * depth) / (2 - i32::from(improving))) as usize
            } else {
                depth <= 3 && i >= LATE_MOVES[depth as usize]
            };
            late || depth <= 3
                && (eval + FUTILITY_MARGIN * 2 * depth <= alpha
                    || !pos.exchange_at_least(m, -LOSING_QUIET_MARGIN * depth * depth))
        } else {
            depth <= 4 && !pos.exchange_at_least(m, -LOSING_CAPTURE_MARGIN * depth)
        }
    }

    /// Captures only (every move when in check), until the position is quiet.
    fn quiescence(&mut self, pos: &G, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        let in_check = self.path.last().is_some_and(|v| v.in_check);
        let mut moves: Vec<G::Move> = pos.legal_moves().into_iter().collect();
        if moves.is_empty() {
            return no_moves(pos, in_check, ply);
        }
        let mut stand_pat = None;
        if !in_check {
            let eval = self.evaluate(pos);
            if eval >= beta || ply >= MAX_PLY {
                return eval;
            }
            alpha = alpha.max(eval);
            stand_pat = Some(eval);
            // Captures that lose material are not what makes a position
            // unquiet.
            moves.retain(|&m| pos.is_capture(m) && pos.exchange_at_least(m, 0));
        } else if ply >= MAX_PLY {
            return self.evaluate(pos);
        }
        self.heuristics.order(pos, &mut moves, 0, ply);
        for m in moves {
            // Delta pruning: a capture that cannot lift the position to
            // alpha even with a margin is not worth a look.
            if let Some(stand_pat) = stand_pat
                && stand_pat + pos.victim_value(m) + DELTA_MARGIN < alpha
            {
                continue;
            }
            let child = self.play(pos, m);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1);
            self.path.pop();
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

    /// `first`, then the table's best moves.
    fn principal_variation(&self, root: &G, first: Option<G::Move>) -> Vec<G::Move> {
        let Some(first) = first else {
            return Vec::new();
        };
        let mut pv = vec![first];
        let mut pos = root.clone();
        pos.play(first);
        let mut seen = vec![root.repetition_key()];
        while let Some(best) = self.table.probe(pos.repetition_key()).map(|e| e.best) {
            let Some(m) = pos
                .legal_moves()
                .into_iter()
                .find(|&m| G::move_key(m) == best)
            else {
                break;
            };
            if seen.contains(&pos.repetition_key()) || pv.len() >= 32 {
                break;
            }
            seen.push(pos.repetition_key());
            pv.push(m);
            pos.play(m);
        }
        pv
    }
}

/// How many plies the `i`th move (0-based) at `depth` is first searched
/// shallower: growing with the logarithms of both, as in most engines.
fn late_move_reduction(depth: i32, i: usize) -> i32 {
    static TABLE: LazyLock<[[u8; 64]; 64]> = LazyLock::new(|| {
        let mut table = [[0; 64]; 64];
        for (d, row) in table.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                let base = 0.75 + (d as f64).ln() * (i as f64).ln() / 2.25;
                *r = base as u8;
            }
        }
        table
    });
    i32::from(TABLE[depth.clamp(0, 63) as usize][i.min(63)])
}

/// The score of a position without legal moves, for the side to move.
fn no_moves<G: Evaluate>(pos: &G, in_check: bool, ply: usize) -> i32 {
    let distance = i32::try_from(ply).unwrap_or(0);
    match pos.without_moves(in_check) {
        std::cmp::Ordering::Less => -MATE + distance,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => MATE - distance,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, chess::Chess};

    /// A table kept across a game's moves may hold a deeper entry for the
    /// new root, whose move only had to beat some old beta (here a check
    /// instead of the mate). The move played must come from the new search.
    #[test]
    fn the_root_move_comes_from_the_search_not_the_table() {
        let pos = Chess::from_fen("1R6/8/8/2QK4/k3P3/6P1/8/8 w - - 7 77").unwrap();
        let stale = pos.parse_move("Qc6+").unwrap();
        let mut table = TranspositionTable::new(1);
        table.store(Entry {
            key: pos.repetition_key(),
            best: Chess::move_key(stale),
            depth: 10,
            score: 500,
            bound: Bound::Lower,
        });
        let record = Record::new(pos.clone());
        let result = search_with(
            &record,
            &Limits::depth(1),
            &mut table,
            &AtomicBool::new(false),
            |_| {},
        );
        assert_eq!(pos.coordinate_notation(result.best().unwrap()), "c5b4");
        assert_eq!(result.pv(), [result.best().unwrap()]);
        assert_eq!(result.score(), MATE - 1);
    }
}
