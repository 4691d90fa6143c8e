use std::{error::Error, fmt, hash::Hash, ops::Deref};

use super::{IllegalMove, MoveText, Quoted, Record, RuleChoices, Side, Variant, Verdict};

/// The rules of one game, applied to one of its positions.
///
/// A value of a `Game` type is a legal position (it can only be built from
/// [`Game::start`], a valid FEN, or by playing legal moves). Moves are small
/// `Copy` values that are only meaningful in the position that produced them.
pub trait Game: Clone + Send + Sync + Sized + 'static {
    /// A move of this game.
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;
    /// The legal moves of a position (stack-allocated in practice).
    type MoveList: Deref<Target = [Self::Move]> + IntoIterator<Item = Self::Move>;
    /// One reason a FEN is rejected.
    type FenError: FenProblem;
    /// Rule options a game may vary (e.g. the xiangqi move limit); `()` when
    /// the rules have none.
    type Options: Clone + Default + fmt::Debug + Send + Sync + 'static;

    /// The variant these rules implement.
    const VARIANT: Variant;

    /// The standard starting position.
    fn start() -> Self;

    /// The options `choices` make for this game; the default options when
    /// none of them is about it.
    fn options(choices: RuleChoices) -> Self::Options {
        let _ = choices;
        Self::Options::default()
    }

    /// Parses a FEN strictly, reporting every problem found.
    ///
    /// # Errors
    ///
    /// Returns every syntax or legality problem. Syntax problems stop the
    /// parse early; position problems are all collected.
    fn from_fen(fen: &str) -> Result<Self, InvalidFen<Self::FenError>>;

    /// The position as a FEN in the game's standard form.
    fn fen(&self) -> String;

    /// The side to move.
    fn turn(&self) -> Side;

    /// Every legal move.
    fn legal_moves(&self) -> Self::MoveList;

    /// The number of legal moves (perft counts leaves with it; a game may
    /// count faster than it generates).
    fn count_legal_moves(&self) -> usize {
        self.legal_moves().len()
    }

    /// Is there a legal move (not mate, not stalemate)? A game may answer
    /// at the first move it finds.
    fn has_legal_moves(&self) -> bool {
        self.count_legal_moves() > 0
    }

    /// Plays `m`, which must be one of [`Game::legal_moves`].
    fn play(&mut self, m: Self::Move);

    /// Is the side to move in check?
    fn is_check(&self) -> bool;

    /// Does `m` capture a piece?
    fn is_capture(&self, m: Self::Move) -> bool;

    /// Half-moves since the last irreversible move (capture, or pawn move in
    /// chess), the counter move-limit rules are judged on.
    fn halfmove_clock(&self) -> u32;

    /// Identity of the position for repetition rules: equal keys mean the
    /// same position under the game's rules.
    fn repetition_key(&self) -> u64;

    /// The repetition key of `next`, the position after `m` is played here,
    /// whose own key is `key`. A game that can update its key from the move
    /// saves hashing the whole board again at every ply of a replay.
    fn next_repetition_key(&self, key: u64, m: Self::Move, next: &Self) -> u64 {
        let _ = (key, m);
        next.repetition_key()
    }

    /// True when `side` cannot win by any sequence of legal moves, judged on
    /// material alone (needed for flag-fall adjudication).
    fn has_insufficient_material(&self, side: Side) -> bool;

    /// Reads a move in any notation the game supports.
    ///
    /// # Errors
    ///
    /// [`MoveError::Unparsable`] when the text is not a move in any notation,
    /// [`MoveError::Ambiguous`] when it fits several legal moves, and
    /// [`MoveError::Illegal`] with the precise reason otherwise.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Appends the canonical coordinate notation of `m` (UCI for chess, ICCS
    /// for xiangqi) to `text`.
    fn push_coordinate_notation(&self, m: Self::Move, text: &mut impl Extend<char>);

    /// The canonical coordinate notation of `m` (UCI for chess, ICCS for
    /// xiangqi).
    fn coordinate_notation(&self, m: Self::Move) -> String {
        let mut text = String::with_capacity(5);
        self.push_coordinate_notation(m, &mut text);
        text
    }

    /// Describes `m` (played from this position) in every notation.
    fn describe(&self, m: Self::Move) -> MoveDescription {
        let mut d = MoveDescription::default();
        self.describe_into(m, &mut d);
        d
    }

    /// Writes the description of `m` (played from this position) over `d`,
    /// in place: built in locals and then moved, the texts of some 40
    /// descriptions per answer cost more to copy than to write.
    fn describe_into(&self, m: Self::Move, d: &mut MoveDescription);

    /// Describes every move of `moves`, the legal moves of this position, to
    /// `each` in turn (a game may share work across the list, such as
    /// disambiguation). One description at a time, rewritten in place: an
    /// answer can write each out as it comes instead of collecting some 40
    /// of them first.
    fn describe_each(&self, moves: &Self::MoveList, mut each: impl FnMut(&MoveDescription)) {
        let mut d = MoveDescription::default();
        for &m in moves.iter() {
            self.describe_into(m, &mut d);
            each(&d);
        }
    }

    /// Every move of `moves`, the legal moves of this position, described.
    fn describe_all(&self, moves: &Self::MoveList) -> Vec<MoveDescription> {
        let mut described = Vec::with_capacity(moves.len());
        self.describe_each(moves, |d| described.push(d.clone()));
        described
    }

    /// Judges the game that led to the record's current position, under the
    /// record's options: its end, if the rules end it, and the draws a player
    /// could claim. `has_moves` says whether the current position has a
    /// legal move (callers often know already; it decides mate and
    /// stalemate).
    fn adjudicate(record: &Record<Self>, has_moves: bool) -> Verdict;

    /// Why the rules in force forbid the legal move `m` in the current
    /// position of `record`, given its history; `None` (the default) when
    /// they do not. Only xiangqi, under rules that refuse a forbidden
    /// repetition instead of losing by it, forbids any.
    fn forbidden(record: &Record<Self>, m: Self::Move) -> Option<IllegalMove> {
        let _ = (record, m);
        None
    }
}

/// A move, described in every notation for clients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveDescription {
    /// Coordinate notation: chess UCI (`e1g1` for castling), xiangqi ICCS.
    pub uci: MoveText,
    /// Chess SAN with check marks; xiangqi WXF.
    pub san: MoveText,
    /// Xiangqi Chinese notation; `None` for chess.
    pub chinese: Option<MoveText>,
    /// Origin square name.
    pub from: MoveText,
    /// Destination square name (for castling: the king's destination).
    pub to: MoveText,
    /// The moving piece as a FEN letter (upper case = white / red).
    pub piece: char,
    /// The captured piece as a FEN letter, if any.
    pub captured: Option<char>,
    /// The piece promoted to, as a FEN letter, if any.
    pub promotion: Option<char>,
    /// Does the move give check?
    pub is_check: bool,
    /// Is the move castling?
    pub is_castling: bool,
    /// Is the move an en-passant capture?
    pub is_en_passant: bool,
}

impl MoveDescription {
    /// Empties every notation, to write another move's in its place
    /// ([`Game::describe_into`]).
    pub fn clear_texts(&mut self) {
        for text in [&mut self.uci, &mut self.san, &mut self.from, &mut self.to] {
            text.clear();
        }
        if let Some(chinese) = &mut self.chinese {
            chinese.clear();
        }
    }

    /// Does the move capture a piece?
    pub fn is_capture(&self) -> bool {
        self.captured.is_some()
    }
}

/// A typed reason a FEN was rejected.
pub trait FenProblem: Error + Clone + PartialEq + Send + Sync + 'static {
    /// A stable, machine-readable code (`SCREAMING_SNAKE_CASE`).
    fn code(&self) -> &'static str;
}

/// A rejected FEN, with every problem found (never empty).
#[derive(Clone, Debug, PartialEq)]
pub struct InvalidFen<E> {
    pub problems: Vec<E>,
}

impl<E> InvalidFen<E> {
    /// A rejection with a single problem.
    pub fn one(problem: E) -> InvalidFen<E> {
        InvalidFen {
            problems: vec![problem],
        }
    }
}

impl<E: fmt::Display> fmt::Display for InvalidFen<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid FEN: ")?;
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl<E: fmt::Debug + fmt::Display> Error for InvalidFen<E> {}

/// Move text that could not be turned into a legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in any notation of the game.
    #[error("{} is not a move: expected {expected}", Quoted(.text))]
    Unparsable {
        text: String,
        expected: &'static str,
    },
    /// The text fits several legal moves.
    #[error("{} is ambiguous: it could be {}", Quoted(.text), candidates.join(" or "))]
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
    /// The text names a move the rules forbid.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

impl MoveError {
    /// A stable, machine-readable code (`SCREAMING_SNAKE_CASE`), as a
    /// position's problems carry it.
    pub const fn code(&self) -> &'static str {
        match self {
            MoveError::Unparsable { .. } => "UNPARSABLE_MOVE",
            MoveError::Ambiguous { .. } => "AMBIGUOUS_MOVE",
            MoveError::Illegal(e) => e.reason.code(),
        }
    }
}
