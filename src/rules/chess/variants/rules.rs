//! What sets each Lichess variant apart: its name, how its own end is
//! called, and the rules of its own that forbid a move chess would allow.

use std::fmt;

use shakmaty::{
    Bitboard, FromSetup, Move, Position, attacks,
    variant::{Antichess, Atomic, Crazyhouse, Horde, KingOfTheHill, RacingKings, ThreeCheck},
};

use crate::rules::{
    IllegalMove, IllegalReason, Termination, Variant,
    chess::{explain::Explained, names::role_name},
};

/// A shakmaty variant position Arbiter plays under Lichess's rules.
pub trait LichessRules:
    Position + FromSetup + Clone + Default + fmt::Debug + Send + Sync + 'static
{
    /// The variant.
    const VARIANT: Variant;
    /// Is the king royal: can it be checked, and does losing it lose?
    /// Not in antichess, where it is an ordinary piece.
    const ROYAL_KING: bool = true;
    /// How a game ended by the variant's own rule ends.
    const END: Termination;
    /// Do the fifty- and seventy-five-move rules apply? Not in Crazyhouse,
    /// where pieces in hand keep every game alive (as Lichess and
    /// python-chess play it).
    const MOVE_COUNT_RULES: bool = true;

    /// The termination of the variant's own end, reached here.
    fn end_termination(&self) -> Termination {
        Self::END
    }

    /// The rule of the variant the pseudo-legal move `m` breaks, where one
    /// of its own does (rather than leaving the king in check).
    fn broken_rule(&self, m: Move) -> Option<IllegalMove> {
        let _ = m;
        None
    }
}

impl<P: LichessRules> Explained for P {
    fn broken_rule(&self, m: Move) -> Option<IllegalMove> {
        LichessRules::broken_rule(self, m)
    }
}

impl LichessRules for Crazyhouse {
    const VARIANT: Variant = Variant::Crazyhouse;
    // Crazyhouse has no end of its own; never asked.
    const END: Termination = Termination::Checkmate;
    const MOVE_COUNT_RULES: bool = false;
}

impl LichessRules for Antichess {
    const VARIANT: Variant = Variant::Antichess;
    const ROYAL_KING: bool = false;
    const END: Termination = Termination::AllPiecesLost;

    /// A side without a legal move wins too: by stalemate.
    fn end_termination(&self) -> Termination {
        if self.us().is_empty() {
            Termination::AllPiecesLost
        } else {
            Termination::Stalemate
        }
    }

    fn broken_rule(&self, m: Move) -> Option<IllegalMove> {
        if m.is_capture() {
            return None;
        }
        let capture = self.capture_moves().first().copied()?;
        Some(IllegalMove::new(
            IllegalReason::CaptureCompulsory,
            format!(
                "in antichess a capture is compulsory: the {} on {} can capture on {}",
                role_name(capture.role()),
                capture.from().unwrap_or(capture.to()),
                capture.to()
            ),
        ))
    }
}

impl LichessRules for Atomic {
    const VARIANT: Variant = Variant::Atomic;
    const END: Termination = Termination::Explosion;

    fn broken_rule(&self, m: Move) -> Option<IllegalMove> {
        if !m.is_capture() {
            return None;
        }
        if m.role() == shakmaty::Role::King {
            return Some(IllegalMove::new(
                IllegalReason::KingCannotCapture,
                "in atomic a king cannot capture: the explosion would take it too",
            ));
        }
        let king = self.board().king_of(self.turn())?;
        let blast = attacks::king_attacks(m.to()) | Bitboard::from_square(m.to());
        blast.contains(king).then(|| {
            IllegalMove::new(
                IllegalReason::ExplodesOwnKing,
                format!(
                    "in atomic the capture on {} would explode your own king on {king}",
                    m.to()
                ),
            )
        })
    }
}

impl LichessRules for Horde {
    const VARIANT: Variant = Variant::Horde;
    const END: Termination = Termination::HordeDestroyed;
}

impl LichessRules for KingOfTheHill {
    const VARIANT: Variant = Variant::KingOfTheHill;
    const END: Termination = Termination::KingInTheCentre;
}

impl LichessRules for RacingKings {
    const VARIANT: Variant = Variant::RacingKings;
    const END: Termination = Termination::RaceFinished;

    fn broken_rule(&self, m: Move) -> Option<IllegalMove> {
        let mut after = self.clone();
        after.play_unchecked(m);
        after.is_check().then(|| {
            IllegalMove::new(
                IllegalReason::GivesCheck,
                "in racing kings no move may give check",
            )
        })
    }
}

impl LichessRules for ThreeCheck {
    const VARIANT: Variant = Variant::ThreeCheck;
    const END: Termination = Termination::ThreeChecks;
}
