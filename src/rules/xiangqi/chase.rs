//! Threats in the sense of the chase rule (Asian rules): the pieces a side
//! could win with its next move.
//!
//! A side threatens an enemy piece when one of its pieces can legally
//! capture it and the capture is not answered: the chased piece has no
//! protector that could legally recapture (a pinned protector, or one whose
//! recapture would expose its general, including to the flying general,
//! does not count). A horse or cannon threatens a chariot even when it is
//! protected. Legality is decided by the move generator on the positions
//! themselves, so pins and the flying general are exact.
//!
//! Not threats: attacks by the general or a soldier (they may chase), on the
//! general (that is check) or on a soldier that has not crossed the river,
//! and attacks between two pieces of one kind that could capture each other
//! (only a one-sided attack, from a blocked horse or on a pinned piece,
//! counts).
//!
//! Only the repetition judge asks for threats, when a position repeats, so
//! none of this touches move generation.

use super::{
    Xiangqi,
    attacks::{HORSE_ATTACKERS, across_river},
    bitboard::Bitboard,
    moves::Move,
    piece::Kind,
    square::Square,
};
use crate::rules::{Game, Side};

/// One threat: the `kind` on `attacker` can win the `victim_kind` on
/// `victim`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Threat {
    pub(super) attacker: Square,
    pub(super) kind: Kind,
    pub(super) victim: Square,
    pub(super) victim_kind: Kind,
    /// The victim has a real protector (only a chariot threatened by a horse
    /// or cannon is threatened while protected).
    pub(super) protected: bool,
}

impl Xiangqi {
    /// The points of the enemy pieces `side` threatens.
    pub(super) fn threatened_by(&self, side: Side) -> Bitboard {
        let mut victims = Bitboard::EMPTY;
        self.each_threat(side, |threat| {
            victims |= Bitboard::from_square(threat.victim)
        });
        victims
    }

    /// The points of the enemy pieces `side`'s piece on `attacker` threatens.
    pub(super) fn threatened_from(&self, side: Side, attacker: Square) -> Bitboard {
        let mut victims = Bitboard::EMPTY;
        self.each_threat(side, |threat| {
            if threat.attacker == attacker {
                victims |= Bitboard::from_square(threat.victim);
            }
        });
        victims
    }

    /// A threat of `side` against the piece on `victim`, if there is one.
    pub(super) fn threat_on(&self, side: Side, victim: Square) -> Option<Threat> {
        let mut found = None;
        self.each_threat(side, |threat| {
            if threat.victim == victim && found.is_none() {
                found = Some(threat);
            }
        });
        found
    }

    /// This position with `side` to move (the other side is never in check
    /// in a legal position, so the moves are well defined).
    fn with_turn(&self, side: Side) -> Xiangqi {
        let mut pos = self.clone();
        pos.turn = side;
        pos
    }

    /// Calls `visit` with every threat of `side`.
    fn each_threat(&self, side: Side, mut visit: impl FnMut(Threat)) {
        let mover = self.with_turn(side);
        let theirs = self.sides[super::side_index(!side)];
        for m in mover.legal_moves() {
            let (from, to) = (m.from(), m.to());
            if !theirs.contains(to) {
                continue;
            }
            let (Some(kind), Some(victim_kind)) = (self.kind_at(from), self.kind_at(to)) else {
                continue;
            };
            if !can_chase(kind) || !can_be_chased(victim_kind, !side, to) {
                continue;
            }
            let mut after = mover.clone();
            after.play_move(m);
            let protected = after.legal_moves().iter().any(|r| r.to() == to);
            let stronger =
                victim_kind == Kind::Chariot && matches!(kind, Kind::Horse | Kind::Cannon);
            if protected && !stronger {
                continue;
            }
            if kind == victim_kind && self.with_turn(!side).is_legal(Move::new(to, from)) {
                // Two pieces of a kind attacking each other: mutual, not a chase.
                continue;
            }
            visit(Threat {
                attacker: from,
                kind,
                victim: to,
                victim_kind,
                protected,
            });
        }
    }

    /// `side`'s chariots that stand on the leg of an enemy horse aimed at
    /// their general: they cannot move without exposing it.
    pub(super) fn chariots_pinned_by_horses(&self, side: Side) -> Bitboard {
        let general = self.general(side);
        let horses = self.pieces_of(!side, Kind::Horse);
        let chariots = self.pieces_of(side, Kind::Chariot);
        HORSE_ATTACKERS[general.index()]
            .iter()
            .filter(|leg| (leg.targets & horses).any())
            .map(|leg| Bitboard::from_square(leg.block) & chariots)
            .fold(Bitboard::EMPTY, |pinned, chariot| pinned | chariot)
    }

    /// Is `m` one of the legal moves?
    fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }
}

/// The general and the soldiers may chase: their attacks are no offence.
const fn can_chase(kind: Kind) -> bool {
    !matches!(kind, Kind::General | Kind::Soldier)
}

/// The general is checked, not chased; a soldier of `side` on `sq` can be
/// chased only once it has crossed the river.
const fn can_be_chased(kind: Kind, side: Side, sq: Square) -> bool {
    match kind {
        Kind::General => false,
        Kind::Soldier => across_river(side, sq),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threats(fen: &str, side: Side) -> Vec<String> {
        let pos = Xiangqi::from_fen(fen).expect("valid FEN");
        pos.threatened_by(side)
            .into_iter()
            .map(|sq| sq.to_string())
            .collect()
    }

    #[test]
    fn unprotected_pieces_are_threatened() {
        // The chariot on c3 attacks the lone horse on c2.
        assert_eq!(
            threats("3k5/9/9/9/9/9/2r6/2N6/9/4K4 w - - 0 1", Side::Black),
            ["c2"]
        );
        // The same horse protected by a chariot: no threat.
        assert!(threats("3k5/9/9/9/9/9/2r6/2N6/9/2R1K4 w - - 0 1", Side::Black).is_empty());
    }

    #[test]
    fn a_pinned_protector_does_not_protect() {
        // The chariot on d5 attacks the advisor on d0. Its horse on e2 is
        // pinned by the chariot on e9, and its general may not take back
        // onto the open d file: both protectors are fake. The horse itself
        // is threatened by the chariot on e9.
        assert_eq!(
            threats("3kr4/9/9/9/3r5/9/9/4N4/9/3AK4 w - - 0 1", Side::Black),
            ["d0", "e2"]
        );
    }

    #[test]
    fn the_general_cannot_recapture_into_the_flying_general() {
        // The minimal chase: the general on e0 cannot take back on d0 with
        // the black general on the open d file.
        assert_eq!(
            threats("3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1", Side::Black),
            ["d0"]
        );
        // A black piece on the d file makes the recapture legal.
        assert!(threats("3k5/9/9/3n5/9/9/3r5/9/9/3NK4 w - - 0 1", Side::Black).is_empty());
    }

    #[test]
    fn horse_or_cannon_threaten_a_protected_chariot() {
        // The horse on b2 attacks both chariots, which protect each other.
        assert_eq!(
            threats("3k5/9/9/9/9/2R6/9/1n7/9/2R1K4 w - - 0 1", Side::Black),
            ["c0", "c4"]
        );
    }

    #[test]
    fn soldiers_and_generals_neither_chase_nor_are_chased_early() {
        // A black soldier on d3 has crossed the river ...
        assert_eq!(
            threats("3k5/9/9/9/9/9/3p5/9/9/3RK4 w - - 0 1", Side::White),
            ["d3"]
        );
        // ... one on c6 has not.
        assert!(threats("3k5/9/9/2p6/9/9/9/9/9/2R1K4 w - - 0 1", Side::White).is_empty());
        // A red soldier attacking an unprotected chariot is no chase.
        assert!(threats("3k5/9/9/9/2r6/2P6/9/9/9/4K4 w - - 0 1", Side::White).is_empty());
    }

    #[test]
    fn mutual_attacks_of_one_kind_are_not_threats() {
        // Two chariots facing each other.
        assert!(threats("3k5/9/9/9/2r3R2/9/9/9/9/4K4 w - - 0 1", Side::Black).is_empty());
        // A blocked horse on c2 (leg c3 taken) cannot answer the horse on b4:
        // one-sided.
        assert_eq!(
            threats("3k5/9/9/9/9/1n7/2p6/2N6/9/4K4 w - - 0 1", Side::Black),
            ["c2"]
        );
    }
}
