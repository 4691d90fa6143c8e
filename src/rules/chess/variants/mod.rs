//! The Lichess variants of chess, on shakmaty's variant positions:
//! Crazyhouse, Antichess, Atomic, Horde, King of the Hill, Racing Kings and
//! Three-check, each under Lichess's rules (as python-chess and
//! Fairy-Stockfish play them).
//!
//! ```
//! use arbiter::rules::{Game, variants::Crazyhouse};
//!
//! let pos = Crazyhouse::from_fen("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1").unwrap();
//! let drop = pos.parse_move("N@f3").unwrap();
//! assert_eq!(pos.coordinate_notation(drop), "N@f3");
//! ```

mod fen;
mod notation;
mod outcome;
mod rules;

use std::fmt;

use shakmaty::{CastlingMode, EnPassantMode, zobrist::Zobrist64};

pub use rules::LichessRules;

use super::fen::FenError;
use crate::rules::{Game, InvalidFen, MoveDescription, MoveError, Record, Side, Variant, Verdict};

/// A legal position of the Lichess variant `P`.
#[derive(Clone, Debug, Default)]
pub struct Lichess<P> {
    pos: P,
}

/// Crazyhouse: captured pieces change sides and may be dropped back.
pub type Crazyhouse = Lichess<shakmaty::variant::Crazyhouse>;
/// Antichess: captures are compulsory; losing every piece wins.
pub type Antichess = Lichess<shakmaty::variant::Antichess>;
/// Atomic: captures explode; exploding the enemy king wins.
pub type Atomic = Lichess<shakmaty::variant::Atomic>;
/// Horde: 36 white pawns against Black's army.
pub type Horde = Lichess<shakmaty::variant::Horde>;
/// King of the Hill: a king in the centre wins.
pub type KingOfTheHill = Lichess<shakmaty::variant::KingOfTheHill>;
/// Racing Kings: the first king to the eighth rank wins.
pub type RacingKings = Lichess<shakmaty::variant::RacingKings>;
/// Three-check: the third check wins.
pub type ThreeCheck = Lichess<shakmaty::variant::ThreeCheck>;

impl<P> Lichess<P> {
    fn of(pos: P) -> Lichess<P> {
        Lichess { pos }
    }

    /// The underlying shakmaty position (for the engine's evaluation).
    pub fn position(&self) -> &P {
        &self.pos
    }
}

impl<P: LichessRules> Lichess<P> {
    /// The same position with the other side to move (a "null move", for
    /// the engine's pruning); `None` where the rules do not allow it.
    pub fn pass(&self) -> Option<Lichess<P>> {
        if self.pos.is_check() || self.pos.is_variant_end() {
            return None;
        }
        let mut setup = self.pos.to_setup(EnPassantMode::Legal);
        setup.swap_turn();
        P::from_setup(setup, CastlingMode::Standard)
            .ok()
            .map(Lichess::of)
    }
}

impl<P: LichessRules> fmt::Display for Lichess<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fen::write(&self.pos))
    }
}

impl<P: LichessRules> Game for Lichess<P> {
    type Move = shakmaty::Move;
    type MoveList = shakmaty::MoveList;
    type FenError = FenError;
    type Options = ();

    const VARIANT: Variant = P::VARIANT;

    fn start() -> Lichess<P> {
        Lichess::default()
    }

    fn from_fen(fen: &str) -> Result<Lichess<P>, InvalidFen<FenError>> {
        fen::parse(fen)
    }

    fn fen(&self) -> String {
        fen::write(&self.pos)
    }

    fn turn(&self) -> Side {
        super::side_of(self.pos.turn())
    }

    fn legal_moves(&self) -> shakmaty::MoveList {
        self.pos.legal_moves()
    }

    fn play(&mut self, m: shakmaty::Move) {
        self.pos.play_unchecked(m);
    }

    fn is_check(&self) -> bool {
        P::ROYAL_KING && self.pos.is_check()
    }

    fn is_capture(&self, m: shakmaty::Move) -> bool {
        m.is_capture()
    }

    fn halfmove_clock(&self) -> u32 {
        self.pos.halfmoves()
    }

    fn repetition_key(&self) -> u64 {
        // Pockets and checks left are part of the key, as in python-chess.
        self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    fn has_insufficient_material(&self, side: Side) -> bool {
        self.pos.has_insufficient_material(super::color_of(side))
    }

    fn parse_move(&self, text: &str) -> Result<shakmaty::Move, MoveError> {
        notation::parse(&self.pos, text)
    }

    fn push_coordinate_notation(&self, m: shakmaty::Move, text: &mut impl Extend<char>) {
        notation::push_coordinates(m, text);
    }

    fn describe_into(&self, m: shakmaty::Move, d: &mut MoveDescription) {
        notation::describe_into(&self.pos, m, d);
    }

    fn adjudicate(record: &Record<Lichess<P>>, has_moves: bool) -> Verdict {
        outcome::adjudicate(record, has_moves)
    }
}
