//! Legal move generation.
//!
//! Moves are generated pseudo-legally from the tables, then filtered: when
//! the general is not in check, a move can only expose it if it leaves or
//! enters a "danger" point: the general's rank or file when an enemy
//! chariot, cannon or general stands on it (a cannon gains a screen, a line
//! opens), or a leg point of an enemy horse aimed at the general. Every
//! other move is legal without a test, so legal moves are counted with one
//! popcount per piece. The remaining moves (all of them when in check) are
//! tested by looking for attackers of the general on the board after the
//! move.

use super::{
    Xiangqi,
    attacks::{
        self, ADVISOR, CHECK_LINES, ELEPHANT, GENERAL, HORSE, HORSE_ATTACKERS, Occupied, SOLDIER,
        SOLDIER_ATTACKERS, file_mask, rank_mask, side_index,
    },
    bitboard::Bitboard,
    moves::{Move, MoveList},
    piece::Kind,
    square::Square,
};
use crate::rules::Side;

/// Receives generated legal moves.
trait Sink {
    /// Every point of `to` is a legal destination from `from`.
    fn all(&mut self, from: Square, to: Bitboard);
    /// One legal move.
    fn one(&mut self, from: Square, to: Square);
    /// Has it seen enough? Generation stops after the piece it is on.
    fn done(&self) -> bool {
        false
    }
}

impl Sink for MoveList {
    #[inline]
    fn all(&mut self, from: Square, to: Bitboard) {
        for to in to {
            self.push(Move::new(from, to));
        }
    }

    #[inline]
    fn one(&mut self, from: Square, to: Square) {
        self.push(Move::new(from, to));
    }
}

struct Counter(usize);

impl Sink for Counter {
    #[inline]
    fn all(&mut self, _: Square, to: Bitboard) {
        self.0 += to.count() as usize;
    }

    #[inline]
    fn one(&mut self, _: Square, _: Square) {
        self.0 += 1;
    }
}

/// Stops at the first legal move.
struct Any(bool);

impl Sink for Any {
    #[inline]
    fn all(&mut self, _: Square, to: Bitboard) {
        self.0 |= to.any();
    }

    #[inline]
    fn one(&mut self, _: Square, _: Square) {
        self.0 = true;
    }

    fn done(&self) -> bool {
        self.0
    }
}

/// The pieces other than the general, in generation order.
const NON_GENERALS: [Kind; 6] = [
    Kind::Chariot,
    Kind::Horse,
    Kind::Cannon,
    Kind::Advisor,
    Kind::Elephant,
    Kind::Soldier,
];

/// Where each kind of piece must stand to attack a point.
struct Sources {
    /// Chariots, and a general along an open file (the flying-general rule).
    chariot: Bitboard,
    cannon: Bitboard,
    horse: Bitboard,
    soldier: Bitboard,
}

impl Sources {
    /// For `by` pieces attacking `sq` with the board occupied as in
    /// `occupied`.
    // Always inline: left a call, it cost 2% of a `LegalMoves` answer,
    // which asks it of every move that may give check.
    #[inline(always)]
    fn new(sq: Square, by: Side, occupied: Occupied) -> Sources {
        let lines = attacks::lines(sq, occupied);
        Sources {
            chariot: lines.chariot,
            cannon: lines.cannon_captures,
            horse: attacks::leap(&HORSE_ATTACKERS[sq.index()], occupied.bits()),
            soldier: SOLDIER_ATTACKERS[side_index(by)][sq.index()],
        }
    }

    /// The points for a piece of `kind`.
    #[inline]
    fn of(&self, kind: Kind) -> Bitboard {
        match kind {
            Kind::Chariot | Kind::General => self.chariot,
            Kind::Cannon => self.cannon,
            Kind::Horse => self.horse,
            Kind::Soldier => self.soldier,
            Kind::Advisor | Kind::Elephant => Bitboard::EMPTY,
        }
    }

    /// The pieces among `pieces` (whose kinds `kinds` tells) on those
    /// points.
    #[inline]
    fn attackers(&self, kinds: &[Bitboard; 7], pieces: Bitboard) -> Bitboard {
        ((self.chariot & (kinds[Kind::Chariot.index()] | kinds[Kind::General.index()]))
            | (self.cannon & kinds[Kind::Cannon.index()])
            | (self.horse & kinds[Kind::Horse.index()])
            | (self.soldier & kinds[Kind::Soldier.index()]))
            & pieces
    }
}

impl Xiangqi {
    /// Every legal move.
    pub(super) fn generate_legal(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(&mut list);
        list
    }

    /// The number of legal moves, without listing them.
    pub(super) fn count_legal(&self) -> usize {
        let mut counter = Counter(0);
        self.generate(&mut counter);
        counter.0
    }

    /// Is there a legal move? Stops at the first piece that has one.
    pub(super) fn has_legal(&self) -> bool {
        let mut any = Any(false);
        self.generate(&mut any);
        any.0
    }

    /// The points a `side` piece of `kind` on `from` could move to on this
    /// board, own pieces and checks aside.
    #[inline]
    pub(super) fn reach(&self, side: Side, kind: Kind, from: Square) -> Bitboard {
        let occupied = self.occupied.bits();
        match kind {
            Kind::General => GENERAL[from.index()],
            Kind::Advisor => ADVISOR[from.index()],
            Kind::Elephant => attacks::leap(&ELEPHANT[from.index()], occupied),
            Kind::Horse => attacks::leap(&HORSE[from.index()], occupied),
            Kind::Chariot => attacks::lines(from, self.occupied).chariot,
            Kind::Cannon => {
                let lines = attacks::lines(from, self.occupied);
                (lines.chariot & !occupied) | lines.cannon_captures
            }
            Kind::Soldier => SOLDIER[side_index(side)][from.index()],
        }
    }

    /// The `by` pieces attacking `sq` with the board occupied as in
    /// `occupied`, ignoring the `by` pieces on `removed` (captured ones).
    #[inline]
    pub(super) fn attackers(
        &self,
        sq: Square,
        by: Side,
        occupied: Occupied,
        removed: Bitboard,
    ) -> Bitboard {
        Sources::new(sq, by, occupied).attackers(&self.kinds, self.sides[side_index(by)] & !removed)
    }

    /// Whether the legal move `m` checks the opponent's general. Found
    /// without playing `m` (describing every legal move asks it of each):
    /// the mover's other pieces attack through the lines and horse legs as
    /// `m` leaves them, the moved piece from its new point.
    pub(super) fn gives_check(&self, m: Move) -> bool {
        let (from, to) = (m.from(), m.to());
        let target = self.general(!self.turn);
        // The opponent is not in check before the move (a position where
        // the side not to move is in check is rejected), so a move that
        // neither leaves nor enters a point through which a piece could
        // attack the general cannot check: most moves stop here.
        let lines = CHECK_LINES[target.index()];
        if !(lines.contains(from) || lines.contains(to)) {
            return false;
        }
        let Some(moved) = self.kind_at(from) else {
            return false;
        };
        let sources = Sources::new(target, self.turn, self.occupied.moved(from, to));
        let others = self.sides[side_index(self.turn)] & !Bitboard::from_square(from);
        sources.attackers(&self.kinds, others).any() || sources.of(moved).contains(to)
    }

    /// The pieces giving check to `side`'s general.
    pub(super) fn checkers(&self, side: Side) -> Bitboard {
        self.attackers(self.general(side), !side, self.occupied, Bitboard::EMPTY)
    }

    /// The enemy pieces that would attack the mover's general after the
    /// pseudo-legal move `from`-`to`.
    #[inline]
    pub(super) fn attackers_after(&self, from: Square, to: Square) -> Bitboard {
        let general = self.general(self.turn);
        let target = if from == general { to } else { general };
        let occupied = self.occupied.moved(from, to);
        self.attackers(target, !self.turn, occupied, Bitboard::from_square(to))
    }

    /// Points whose emptying or filling may expose the general (see the
    /// module documentation); every point when in check.
    fn danger(&self, general: Square) -> Bitboard {
        if self.checkers(self.turn).any() {
            return Bitboard::ALL;
        }
        let theirs = self.sides[side_index(!self.turn)];
        let kinds = &self.kinds;
        let sliders = (kinds[Kind::Chariot.index()]
            | kinds[Kind::Cannon.index()]
            | kinds[Kind::General.index()])
            & theirs;
        let horses = kinds[Kind::Horse.index()] & theirs;
        let mut danger = Bitboard::EMPTY;
        for line in [rank_mask(general.rank()), file_mask(general.file())] {
            if (line & sliders).any() {
                danger |= line;
            }
        }
        for leg in &HORSE_ATTACKERS[general.index()] {
            if (leg.targets & horses).any() {
                danger |= Bitboard::from_square(leg.block);
            }
        }
        danger
    }

    fn generate<S: Sink>(&self, sink: &mut S) {
        let us = self.turn;
        let own = self.sides[side_index(us)];
        let general = self.general(us);
        let danger = self.danger(general);
        let tested = |from: Square, targets: Bitboard, sink: &mut S| {
            for to in targets {
                if self.attackers_after(from, to).is_empty() {
                    sink.one(from, to);
                }
            }
        };
        for kind in NON_GENERALS {
            for from in self.kinds[kind.index()] & own {
                let targets = self.reach(us, kind, from) & !own;
                let safe = if danger.contains(from) {
                    Bitboard::EMPTY
                } else {
                    targets & !danger
                };
                sink.all(from, safe);
                tested(from, targets ^ safe, sink);
                if sink.done() {
                    return;
                }
            }
        }
        tested(general, GENERAL[general.index()] & !own, sink);
    }
}

#[cfg(test)]
mod tests {
    use super::{super::along_random_games, *};
    use crate::rules::Game;

    /// Whether a position has a legal move agrees with counting them, along
    /// random games and in positions without one (mate, stalemate).
    #[test]
    fn has_legal_agrees_with_the_count() {
        let mut without = 0;
        let mut compare = |pos: &Xiangqi| {
            let count = pos.count_legal();
            assert_eq!(pos.has_legal(), count > 0, "{}", pos.fen());
            without += usize::from(count == 0);
        };
        along_random_games(|pos, m| {
            compare(pos);
            let mut after = pos.clone();
            after.play_move(m);
            compare(&after);
        });
        for fen in [
            "4k4/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1",
            "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1",
            "3k5/4R4/9/9/9/9/9/9/9/4K4 b - - 0 1",
        ] {
            compare(&Xiangqi::from_fen(fen).expect("valid FEN"));
        }
        assert!(without >= 2, "only {without} positions without a move");
    }

    /// For every legal move of every position along random games, and of
    /// positions built for discovered and cannon-screen checks, the
    /// shortcut agrees with playing the move and looking for checkers.
    #[test]
    fn gives_check_equals_check_after_the_move() {
        let mut checks = 0;
        let mut compare = |pos: &Xiangqi| {
            for &m in pos.legal_moves().iter() {
                let mut after = pos.clone();
                after.play_move(m);
                let expected = after.checkers(after.turn).any();
                assert_eq!(pos.gives_check(m), expected, "{m} at {}", pos.fen());
                checks += usize::from(expected);
            }
        };
        along_random_games(|pos, _| compare(pos));
        for fen in [
            // A horse on the chariot's file: moving it off discovers check.
            "4k4/9/9/9/4N4/9/9/9/9/3KR4 w - - 0 1",
            // A cannon behind two pieces: moving either off leaves a screen.
            "4k4/9/9/4p4/4P4/9/9/4C4/9/3K5 w - - 0 1",
            // A horse whose leg a move blocks or opens.
            "3k5/9/4H4/4p4/9/9/9/9/9/4K4 b - - 0 1",
            // A chariot on the leg of its own horse: moving it off along the
            // rank (off the general's lines) discovers check.
            "3k5/4R4/4N4/9/9/9/9/9/9/4K4 w - - 0 1",
            // Soldiers across the river beside the palace.
            "4k4/3P5/5P3/9/9/9/9/9/9/3K5 w - - 0 1",
        ] {
            compare(&Xiangqi::from_fen(fen).expect("valid FEN"));
        }
        assert!(checks > 200, "only {checks} checking moves");
    }
}
