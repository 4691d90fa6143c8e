//! A variant-erased view of a game record, for callers that learn the
//! variant at run time (the API, the store). This is where a runtime
//! [`Variant`] meets the generic rules, once.

use super::{
    FenProblem, Game, MoveDescription, MoveError, MoveText, Packed, Quoted, Record, ReplayError,
    RuleChoices, Side, Variant, Verdict,
};
use crate::with_game;

/// One problem with a position given as FEN plus moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionProblem {
    /// Stable machine-readable code.
    pub code: &'static str,
    /// A sentence a developer can act on.
    pub message: String,
    /// Index of the offending move, `None` for a FEN problem.
    pub move_index: Option<usize>,
}

/// A position given as FEN plus moves that could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid position: {}", .problems.iter().map(|p| p.message.as_str()).collect::<Vec<_>>().join("; "))]
pub struct InvalidPosition {
    /// Every problem found (never empty).
    pub problems: Vec<PositionProblem>,
}

/// A move played in a record, with the position it led to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub description: MoveDescription,
    pub fen_after: String,
}

/// A game record whose variant is known only at run time.
pub trait Referee: Send + Sync {
    /// The variant.
    fn variant(&self) -> Variant;
    /// The start position's FEN (the earliest kept: see
    /// [`Referee::first_kept`]).
    fn start_fen(&self) -> String;
    /// The current position's FEN.
    fn fen(&self) -> String;
    /// The side to move.
    fn turn(&self) -> Side;
    /// Number of moves played.
    fn ply(&self) -> usize;
    /// Is the side to move in check?
    fn is_check(&self) -> bool;
    /// How often the current position has occurred, counting itself.
    fn repetitions(&self) -> usize;
    /// The rules' judgement of the current position.
    fn verdict(&self) -> Verdict;
    /// Can `side` not win by any sequence of legal moves (material alone)?
    fn has_insufficient_material(&self, side: Side) -> bool;
    /// Every legal move of the current position that the rules in force
    /// let the side to move play, given the history (the moves listed by
    /// every method below).
    fn legal_moves(&self) -> Vec<MoveDescription>;
    /// Describes every legal move of the current position to `each`, in the
    /// order of [`Referee::legal_moves`], without collecting them.
    fn describe_legal_moves(&self, each: &mut dyn FnMut(&MoveDescription));
    /// Every legal move of the current position in coordinate notation.
    fn legal_moves_coordinates(&self) -> Vec<String>;
    /// Writes every legal move of the current position in coordinate
    /// notation to `each`, in the same order, without collecting them.
    fn coordinates_of_legal_moves(&self, each: &mut dyn FnMut(&str));
    /// Every legal move of the current position in coordinate notation, in
    /// one string, separated by single spaces.
    fn legal_moves_coordinates_text(&self) -> String;
    /// Every move played so far (from [`Referee::first_kept`] on).
    fn history(&self) -> Vec<PlayedMove>;
    /// The move played at `ply` (0 = the first), if it was.
    fn played(&self, ply: usize) -> Option<PlayedMove>;
    /// Plays move text (any notation), refusing it once the game is over.
    ///
    /// # Errors
    ///
    /// Unreadable, ambiguous or illegal text, or the game is over.
    fn play(&mut self, text: &str) -> Result<PlayedMove, MoveError>;
    /// Plays move text as a recorded game did, even past a repetition or
    /// move-count ending (see [`Record::play_recorded`]).
    ///
    /// # Errors
    ///
    /// Unreadable, ambiguous or illegal text.
    fn play_recorded(&mut self, text: &str) -> Result<PlayedMove, MoveError>;
    /// Takes the last move back (none past [`Referee::first_kept`]).
    fn undo(&mut self);
    /// A copy to try things on.
    fn boxed_clone(&self) -> Box<dyn Referee>;
    /// The ply of the earliest position kept (see [`Record::first_kept`]).
    fn first_kept(&self) -> usize;
    /// The record packed small (see [`Packed`]).
    fn pack(self: Box<Self>) -> Box<dyn PackedReferee>;
}

/// A [`Packed`] record whose variant is known only at run time.
pub trait PackedReferee: Send + Sync {
    /// The record again.
    fn unpack(self: Box<Self>) -> Box<dyn Referee>;
    /// Number of moves played from the start.
    fn ply(&self) -> usize;
    /// The ply of the earliest position kept.
    fn first_kept(&self) -> usize;
    /// The bytes it holds, on the heap and in its own struct.
    fn bytes(&self) -> usize;
}

impl<G: Game> PackedReferee for Packed<G> {
    fn unpack(self: Box<Self>) -> Box<dyn Referee> {
        Box::new(Packed::unpack(*self))
    }
    fn ply(&self) -> usize {
        Packed::ply(self)
    }
    fn first_kept(&self) -> usize {
        Packed::first_kept(self)
    }
    fn bytes(&self) -> usize {
        size_of::<Self>() + self.heap_bytes()
    }
}

impl<G: Game> Referee for Record<G> {
    fn variant(&self) -> Variant {
        G::VARIANT
    }
    fn start_fen(&self) -> String {
        self.start().fen()
    }
    fn fen(&self) -> String {
        self.current().fen()
    }
    fn turn(&self) -> Side {
        self.current().turn()
    }
    fn ply(&self) -> usize {
        Record::ply(self)
    }
    fn is_check(&self) -> bool {
        self.current().is_check()
    }
    fn repetitions(&self) -> usize {
        Record::repetitions(self)
    }
    fn verdict(&self) -> Verdict {
        Record::verdict(self)
    }
    fn has_insufficient_material(&self, side: Side) -> bool {
        self.current().has_insufficient_material(side)
    }
    fn legal_moves(&self) -> Vec<MoveDescription> {
        let mut described = Vec::new();
        self.describe_legal_moves(&mut |d| described.push(d.clone()));
        described
    }
    fn describe_legal_moves(&self, each: &mut dyn FnMut(&MoveDescription)) {
        let pos = self.current();
        let moves = pos.legal_moves();
        // The whole list is described (a game may share work across it,
        // such as disambiguation), and the moves refused are left out.
        let mut listed = moves.iter();
        pos.describe_each(&moves, |d| {
            if listed.next().is_some_and(|&m| self.allows(m)) {
                each(d);
            }
        });
    }
    fn legal_moves_coordinates(&self) -> Vec<String> {
        let mut coordinates = Vec::new();
        self.coordinates_of_legal_moves(&mut |text| coordinates.push(text.into()));
        coordinates
    }
    fn coordinates_of_legal_moves(&self, each: &mut dyn FnMut(&str)) {
        let pos = self.current();
        for m in pos.legal_moves().into_iter().filter(|&m| self.allows(m)) {
            let mut text = MoveText::default();
            pos.push_coordinate_notation(m, &mut text);
            each(&text);
        }
    }
    fn legal_moves_coordinates_text(&self) -> String {
        let pos = self.current();
        let moves = pos.legal_moves();
        let mut text = String::with_capacity(moves.len() * 6);
        for m in moves.into_iter().filter(|&m| self.allows(m)) {
            if !text.is_empty() {
                text.push(' ');
            }
            pos.push_coordinate_notation(m, &mut text);
        }
        text
    }
    fn history(&self) -> Vec<PlayedMove> {
        (self.first_kept()..Record::ply(self))
            .filter_map(|ply| self.played(ply))
            .collect()
    }
    fn played(&self, ply: usize) -> Option<PlayedMove> {
        let ply = ply.checked_sub(self.first_kept())?;
        let m = *self.moves().get(ply)?;
        let positions = self.positions();
        Some(PlayedMove {
            description: positions[ply].describe(m),
            fen_after: positions.get(ply + 1)?.fen(),
        })
    }
    fn play(&mut self, text: &str) -> Result<PlayedMove, MoveError> {
        let before = self.current().clone();
        let m = self.play_text(text)?;
        Ok(PlayedMove {
            description: before.describe(m),
            fen_after: self.current().fen(),
        })
    }
    fn play_recorded(&mut self, text: &str) -> Result<PlayedMove, MoveError> {
        let before = self.current().clone();
        let m = Record::play_recorded(self, text)?;
        Ok(PlayedMove {
            description: before.describe(m),
            fen_after: self.current().fen(),
        })
    }
    fn undo(&mut self) {
        self.pop();
    }
    fn boxed_clone(&self) -> Box<dyn Referee> {
        Box::new(self.clone())
    }
    fn first_kept(&self) -> usize {
        Record::first_kept(self)
    }
    fn pack(self: Box<Self>) -> Box<dyn PackedReferee> {
        Box::new(Record::pack(*self))
    }
}

/// Sets up a record under the default rules from an optional FEN (`None`
/// or empty = standard start) and moves in any notation.
///
/// # Errors
///
/// Every FEN problem, or the first move that cannot be played.
pub fn referee<S: AsRef<str>>(
    variant: Variant,
    fen: Option<&str>,
    moves: &[S],
) -> Result<Box<dyn Referee>, InvalidPosition> {
    referee_under(variant, RuleChoices::default(), fen, moves)
}

/// [`referee`] under the rule `choices`.
///
/// # Errors
///
/// Every FEN problem, or the first move that cannot be played (under the
/// choices: a move they refuse, or any move once they end the game).
pub fn referee_under<S: AsRef<str>>(
    variant: Variant,
    choices: RuleChoices,
    fen: Option<&str>,
    moves: &[S],
) -> Result<Box<dyn Referee>, InvalidPosition> {
    with_game!(variant, G => boxed::<G, S>(choices, fen, moves))
}

/// The record of [`referee_under`] for a game known at compile time.
fn boxed<G: Game, S: AsRef<str>>(
    choices: RuleChoices,
    fen: Option<&str>,
    moves: &[S],
) -> Result<Box<dyn Referee>, InvalidPosition> {
    record_under::<G, S>(G::options(choices), fen, moves).map(|r| Box::new(r) as Box<dyn Referee>)
}

/// [`referee`] for a game known at compile time.
///
/// # Errors
///
/// Every FEN problem, or the first move that cannot be played.
pub fn record<G: Game, S: AsRef<str>>(
    fen: Option<&str>,
    moves: &[S],
) -> Result<Record<G>, InvalidPosition> {
    record_under(G::Options::default(), fen, moves)
}

/// [`record`] under `options`.
///
/// # Errors
///
/// Every FEN problem, or the first move that cannot be played.
pub fn record_under<G: Game, S: AsRef<str>>(
    options: G::Options,
    fen: Option<&str>,
    moves: &[S],
) -> Result<Record<G>, InvalidPosition> {
    let start = match fen.filter(|f| !f.trim().is_empty()) {
        None => G::start(),
        Some(fen) => G::from_fen(fen).map_err(|e| InvalidPosition {
            problems: e
                .problems
                .iter()
                .map(|p| PositionProblem {
                    code: p.code(),
                    message: p.to_string(),
                    move_index: None,
                })
                .collect(),
        })?,
    };
    Record::replay_under(start, options, moves.iter().map(AsRef::as_ref)).map_err(
        |ReplayError { ply, text, error }| InvalidPosition {
            problems: vec![PositionProblem {
                code: error.code(),
                message: format!("move {} ({}): {error}", ply + 1, Quoted(&text)),
                move_index: Some(ply),
            }],
        },
    )
}
