//! The external engines an operator configures.

use std::path::PathBuf;

use crate::rules::{Ranks, Variant};

/// An external UCI engine for one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciEngine {
    /// The engine's executable, run with no arguments.
    pub path: PathBuf,
    /// Options set after the handshake, in order, as `setoption name N
    /// value V` (after `UCI_Variant`, which Arbiter sets to the game when
    /// the engine has it).
    pub options: Vec<(String, String)>,
    /// How its xiangqi moves number the ranks; `None`: by its `id name`,
    /// 1-10 for Fairy-Stockfish and 0-9 for any other (Pikafish).
    pub ranks: Option<Ranks>,
}

/// The external engines, by game, and how many processes each may run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UciEngines {
    pub chess: Option<UciEngine>,
    pub xiangqi: Option<UciEngine>,
    /// The Lichess variants' engines (Fairy-Stockfish plays them all).
    pub variants: Vec<(Variant, UciEngine)>,
    /// Processes of one game's engine at once (at least 1).
    pub processes: usize,
}

impl UciEngines {
    /// The engine for `variant`, if there is one: Chess960 is played by
    /// the chess engine, set to it.
    pub fn get(&self, variant: Variant) -> Option<&UciEngine> {
        match variant {
            Variant::Chess | Variant::Chess960 => self.chess.as_ref(),
            Variant::Xiangqi => self.xiangqi.as_ref(),
            variant => self
                .variants
                .iter()
                .find(|(v, _)| *v == variant)
                .map(|(_, engine)| engine),
        }
    }
}
