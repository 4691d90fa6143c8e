//! Repetition judgement (Asian rules).
//!
//! When a position occurs for the third time the game ends, and each side's
//! conduct over the cycle since the first of those occurrences is judged:
//!
//! * **Perpetual check**: a side that gave check with every one of its moves
//!   in the cycle loses.
//! * **Perpetual chase**: a side whose every move in the cycle chases the
//!   same piece loses. A move chases a piece when, after it, the side
//!   threatens the piece (see [`chase`](super::chase)) and the threat is
//!   the move's doing: it was not there before the move, or the moved piece
//!   attacks the piece anew (even one another piece attacks already, AXF
//!   diagrams 63-66), or the moved piece keeps up a threat that the
//!   opponent's reply answers (a chariot that follows a fleeing horse along
//!   a line). A threat standing unchanged through the move and the reply,
//!   or one by another piece that was there before, is no chase.
//!   Pieces are followed by identity along the cycle: the chased piece may
//!   flee from point to point, it stays the one piece. A checking move is
//!   not a chase (one check, one chase is allowed).
//! * Under [`XiangqiRules::RepetitionDraws`] every third occurrence draws;
//!   under [`XiangqiRules::AsianRefusing`] the move that would complete an
//!   offence is refused instead ([`forbidden`]).
//!
//! Check ranks above chase: if any side checks perpetually, chases are not
//! looked at. A side that offends alone loses; if both offend in the same
//! way, or neither does, the game is drawn by repetition. One exception, AXF
//! diagram 39 (as Fairy-Stockfish and Pikafish judge it): when both sides
//! chase and only one of them chases a chariot pinned by a horse, that side
//! loses; the pinned chariot, which cannot flee, may threaten its pinner.

use super::{Xiangqi, XiangqiRules, bitboard::Bitboard, moves::Move, piece::side_name};
use crate::rules::{Chase, Game, GameEnd, IllegalMove, IllegalReason, Record, Side, Termination};

/// The plies of the repetition cycle: the positions from the first
/// occurrence of the current position to the current one, and the moves
/// between them (`moves[i]` leads from `positions[i]` to `positions[i + 1]`).
struct Cycle<'a> {
    positions: &'a [Xiangqi],
    moves: &'a [Move],
}

impl Cycle<'_> {
    /// The moves of the cycle with the positions before and after each.
    fn plies(&self) -> impl Iterator<Item = (&Xiangqi, Move, &Xiangqi)> {
        self.positions
            .windows(2)
            .zip(self.moves)
            .map(|(pair, &m)| (&pair[0], m, &pair[1]))
    }

    /// The reply to the move at ply `k`, and the position after it. The
    /// reply to the cycle's last move is its first move: the position it
    /// leaves is the one the cycle ends in.
    fn reply(&self, k: usize) -> Option<(Move, &Xiangqi)> {
        let next = if k + 1 < self.moves.len() { k + 1 } else { 0 };
        Some((*self.moves.get(next)?, self.positions.get(next + 1)?))
    }

    /// The move that led to ply `k`'s position, and the position it left.
    /// The cycle's first position is its last one, so its predecessor is
    /// the last move's.
    fn previous(&self, k: usize) -> Option<(Move, &Xiangqi)> {
        let prev = k.checked_sub(1).unwrap_or(self.moves.len().checked_sub(1)?);
        Some((*self.moves.get(prev)?, self.positions.get(prev)?))
    }

    /// `threats` of the side to move at ply `k`, read before its move. In
    /// check a side threatens nothing (every capture but an answer to the
    /// check is illegal): they are read before the check, and its move
    /// renews what it threatened then.
    fn before(&self, k: usize, threats: impl Fn(&Xiangqi) -> Bitboard) -> Option<Bitboard> {
        let before = self.positions.get(k)?;
        if !before.is_check() {
            return Some(threats(before));
        }
        let (checking, earlier) = self.previous(k)?;
        Some(moved_on(threats(earlier), checking))
    }

    /// The positions reached by `side`'s moves in the cycle.
    fn after_moves_of(&self, side: Side) -> impl Iterator<Item = &Xiangqi> {
        self.plies()
            .filter(move |(before, ..)| before.turn == side)
            .map(|(.., after)| after)
    }
}

/// Did `side` give check with every one of its moves in the cycle?
fn perpetual_check(cycle: &Cycle<'_>, side: Side) -> bool {
    let mut moves = cycle.after_moves_of(side).peekable();
    moves.peek().is_some() && moves.all(Game::is_check)
}

/// A side's perpetual chase.
struct PerpetualChase {
    chase: Chase,
    /// One of the pieces chased throughout is a chariot pinned by a horse
    /// (AXF diagram 39): such a chase outweighs the pinned chariot's own
    /// threats against its pinner.
    of_pinned_chariot: bool,
}

/// Pieces followed along the cycle by identity: a set of points that moves
/// with the pieces on them.
#[derive(Clone, Copy)]
struct Followed(Option<Bitboard>);

impl Followed {
    /// The opponent's move `m`: a followed piece that flees stays followed.
    fn carry(&mut self, m: Move) {
        if let Some(set) = self.0.as_mut() {
            *set = moved_on(*set, m);
        }
    }

    /// Keeps the pieces also in `now` (all of them at the first call).
    fn keep(&mut self, now: Bitboard) -> Bitboard {
        let set = self.0.map_or(now, |set| set & now);
        self.0 = Some(set);
        set
    }
}

/// The points of the pieces on `set` after move `m` (the moved piece is
/// followed to its destination).
fn moved_on(set: Bitboard, m: Move) -> Bitboard {
    if set.contains(m.from()) {
        set ^ Bitboard::from_square(m.from()) ^ Bitboard::from_square(m.to())
    } else {
        set
    }
}

/// Which of the threats standing after a move are taken as its chases.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counted {
    /// Those the move made: the rule.
    Made,
    /// All of them, made or standing through the move (see
    /// [`Xiangqi::chase_counting_standing_threats`]).
    Standing,
}

/// The chase, if every move of `side` in the cycle was a chase of one and
/// the same piece: it threatens the piece after the move, and either did
/// not before it, or the moved piece itself makes the threat and either did
/// not make it from where it came or the opponent's reply answers it (a
/// threat that persists unchanged through the move and the reply, or one
/// the move has nothing to do with, is no chase). With
/// [`Counted::Standing`] every threat after the move counts.
fn perpetual_chase(cycle: &Cycle<'_>, side: Side, counted: Counted) -> Option<PerpetualChase> {
    let mut chased = Followed(None);
    let mut pinned = Followed(None);
    let mut last = None;
    for (k, (before, m, after)) in cycle.plies().enumerate() {
        if before.turn != side {
            chased.carry(m);
            pinned.carry(m);
            continue;
        }
        if after.is_check() {
            return None;
        }
        let threats = after.threatened_by(side);
        let before_threats = cycle.before(k, |pos| pos.threatened_by(side))?;
        let (reply, replied) = cycle.reply(k)?;
        // A check is no answer to a threat.
        let answered = if replied.is_check() {
            Bitboard::EMPTY
        } else {
            threats & !moved_on(replied.threatened_by(side), reply.reversed())
        };
        let by_mover = after.threatened_from(side, m.to());
        let followed = answered & by_mover;
        // The moved piece chases what it attacks anew, even a piece another
        // one attacks already (AXF diagrams 63-66: a chariot may not chase a
        // chariot that a cannon pins to its file and attacks).
        let fresh = by_mover & !cycle.before(k, |pos| pos.threatened_from(side, m.from()))?;
        let chases = match counted {
            Counted::Made => threats & (!before_threats | followed | fresh),
            Counted::Standing => threats,
        };
        let set = chased.keep(chases);
        if set.is_empty() {
            return None;
        }
        pinned.keep(chases & after.chariots_pinned_by_horses(!side));
        last = Some((after, set));
    }
    let (after, set) = last?;
    let victim = set.first()?;
    let threat = after.threat_on(side, victim)?;
    Some(PerpetualChase {
        chase: Chase {
            chaser: side,
            chasing: threat.kind,
            chased: threat.victim_kind,
            on: threat.victim,
            protected: threat.protected,
        },
        of_pinned_chariot: pinned.0.is_some_and(Bitboard::any),
    })
}

/// Under [`XiangqiRules::AsianRefusing`], why the legal move `m` is
/// refused: it would make a position occur for the third time with the
/// mover losing by perpetual check or chase.
pub(super) fn forbidden(record: &Record<Xiangqi>, m: Move) -> Option<IllegalMove> {
    if record.options().rules != XiangqiRules::AsianRefusing || record.occurrences_after(m) < 2 {
        return None;
    }
    let mover = record.current().turn;
    let mut after = record.clone();
    after.push(m);
    let end = offence(&after)?;
    if end.winner == Some(mover) {
        return None;
    }
    Some(match end.chase {
        Some(chase) => IllegalMove::new(
            IllegalReason::PerpetualChase,
            format!("{m} would complete a perpetual chase ({chase}): play another move"),
        ),
        None => IllegalMove::new(
            IllegalReason::PerpetualCheck,
            format!(
                "{m} would complete a perpetual check by {}: play another move",
                side_name(mover)
            ),
        ),
    })
}

/// The end of the game if the current position occurs for the third time.
pub(super) fn judge(record: &Record<Xiangqi>) -> Option<GameEnd> {
    if record.repetitions() < 3 {
        return None;
    }
    if record.options().rules == XiangqiRules::RepetitionDraws {
        return Some(GameEnd::draw(Termination::ThreefoldRepetition));
    }
    offence(record).or(Some(GameEnd::draw(Termination::ThreefoldRepetition)))
}

/// The offence that decides the current third occurrence: a perpetual
/// check or chase by one side (a win for the other), or `None`.
fn offence(record: &Record<Xiangqi>) -> Option<GameEnd> {
    if record.repetitions() < 3 {
        return None;
    }
    // The first of the last three occurrences (most recent first).
    let first = record.earlier_occurrences().nth(1)?;
    Xiangqi::judge_cycle(
        record.positions().get(first..)?,
        record.moves().get(first..)?,
    )
}

impl Xiangqi {
    /// The offence that decides the repetition cycle `positions` (its first
    /// and last positions the same, `moves[i]` leading from `positions[i]`
    /// to `positions[i + 1]`): a perpetual check or chase by one side, as a
    /// win for the other, or `None` when the repetition is a draw. This is
    /// the rule a third occurrence is judged by, applied to one given cycle
    /// (the engine judges the cycles its search runs into with it).
    pub fn judge_cycle(positions: &[Xiangqi], moves: &[Move]) -> Option<GameEnd> {
        let cycle = Cycle { positions, moves };
        let checks = |side| perpetual_check(&cycle, side);
        match (checks(Side::White), checks(Side::Black)) {
            (true, false) => return Some(GameEnd::win(Side::Black, Termination::PerpetualCheck)),
            (false, true) => return Some(GameEnd::win(Side::White, Termination::PerpetualCheck)),
            (true, true) => return None,
            (false, false) => {}
        }
        let chases = |side| perpetual_chase(&cycle, side, Counted::Made);
        match (chases(Side::White), chases(Side::Black)) {
            (Some(only), None) | (None, Some(only)) => Some(GameEnd::perpetual_chase(only.chase)),
            (Some(red), Some(black)) if red.of_pinned_chariot != black.of_pinned_chariot => {
                let offender = if red.of_pinned_chariot { red } else { black };
                Some(GameEnd::perpetual_chase(offender.chase))
            }
            _ => None,
        }
    }

    /// The perpetual chase `side` would be guilty of in the cycle (as
    /// [`judge_cycle`](Self::judge_cycle) takes it) if every threat standing
    /// after each of its moves counted as a chase, whether the move made it
    /// or it stood through the move. The rule counts only the threats a move
    /// makes; Fairy-Stockfish counts many standing ones too. A cycle it
    /// convicts and the judge acquits is told to differ for that reason
    /// alone when this convicts the same side.
    pub fn chase_counting_standing_threats(
        positions: &[Xiangqi],
        moves: &[Move],
        side: Side,
    ) -> Option<Chase> {
        let cycle = Cycle { positions, moves };
        perpetual_chase(&cycle, side, Counted::Standing).map(|found| found.chase)
    }
}
