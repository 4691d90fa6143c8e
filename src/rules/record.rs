use super::{Game, IllegalMove, IllegalReason, MoveError, Quoted, Verdict};

/// A game as the rules see it: a start position, the moves played from it,
/// and every position along the way, so that history rules (repetition,
/// perpetual check) can be judged.
///
/// ```
/// use arbiter::rules::{chess::Chess, Game, Record, Termination};
///
/// let mut record = Record::new(Chess::start());
/// for m in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"] {
///     record.play_text(m).unwrap();
/// }
/// assert_eq!(record.repetitions(), 3);
/// assert!(!record.verdict().is_over());
/// assert_eq!(record.verdict().claimable.len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Record<G: Game> {
    options: G::Options,
    positions: Vec<G>,
    keys: Vec<u64>,
    moves: Vec<G::Move>,
}

/// A move of a replayed history that could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number} ({}): {error}", Quoted(.text), number = .ply + 1)]
pub struct ReplayError {
    /// Zero-based index of the offending move in the list.
    pub ply: usize,
    /// The move text as given.
    pub text: String,
    pub error: MoveError,
}

impl<G: Game> Record<G> {
    /// A record with no moves yet, under the default rule options.
    pub fn new(start: G) -> Record<G> {
        Record::with_options(start, G::Options::default())
    }

    /// A record with no moves yet, under the given rule options.
    pub fn with_options(start: G, options: G::Options) -> Record<G> {
        Record::with_room(start, options, 0)
    }

    /// A record with no moves yet, with room for `plies` of them: one
    /// allocation per list for a whole history.
    fn with_room(start: G, options: G::Options, plies: usize) -> Record<G> {
        let mut keys = Vec::with_capacity(plies + 1);
        keys.push(start.repetition_key());
        let mut positions = Vec::with_capacity(plies + 1);
        positions.push(start);
        Record {
            options,
            keys,
            positions,
            moves: Vec::with_capacity(plies),
        }
    }

    /// Replays `moves` (text in any notation) from `start`.
    ///
    /// # Errors
    ///
    /// The first move that cannot be played, with its index.
    pub fn replay<S: AsRef<str>>(
        start: G,
        moves: impl IntoIterator<Item = S>,
    ) -> Result<Record<G>, ReplayError> {
        Record::replay_under(start, G::Options::default(), moves)
    }

    /// Replays `moves` (text in any notation) from `start` under `options`:
    /// a move they forbid, or any move once they end the game, is refused.
    ///
    /// # Errors
    ///
    /// The first move that cannot be played, with its index.
    pub fn replay_under<S: AsRef<str>>(
        start: G,
        options: G::Options,
        moves: impl IntoIterator<Item = S>,
    ) -> Result<Record<G>, ReplayError> {
        let moves = moves.into_iter();
        let mut record = Record::with_room(start, options, moves.size_hint().0);
        for (ply, text) in moves.enumerate() {
            let text = text.as_ref();
            record.play_text(text).map_err(|error| ReplayError {
                ply,
                text: text.to_owned(),
                error,
            })?;
        }
        Ok(record)
    }

    /// The rule options the record is judged under.
    pub fn options(&self) -> &G::Options {
        &self.options
    }

    /// The starting position.
    pub fn start(&self) -> &G {
        &self.positions[0]
    }

    /// The position after the last move.
    pub fn current(&self) -> &G {
        self.positions
            .last()
            .expect("a record always has its start position")
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Every position, from the start (index 0) to the current one.
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// Plays a legal move (one of the current position's legal moves).
    pub fn push(&mut self, m: G::Move) {
        let mut next = self.current().clone();
        next.play(m);
        let key = self
            .current()
            .next_repetition_key(self.keys[self.keys.len() - 1], m, &next);
        debug_assert_eq!(key, next.repetition_key());
        self.keys.push(key);
        self.positions.push(next);
        self.moves.push(m);
    }

    /// Takes back the last move, if any.
    pub fn pop(&mut self) -> Option<G::Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.keys.pop();
        Some(m)
    }

    /// Reads move text in any notation and plays it.
    ///
    /// # Errors
    ///
    /// The move is unreadable, ambiguous or illegal, or the game is over.
    pub fn play_text(&mut self, text: &str) -> Result<G::Move, MoveError> {
        // Reading the move first saves generating the moves twice: a legal
        // move means the position is neither mate nor stalemate. Whatever
        // the text, a finished game refuses it as finished.
        let parsed = self.current().parse_move(text);
        let verdict = match parsed {
            Ok(_) => G::adjudicate(self, true),
            Err(_) => self.verdict(),
        };
        if let Some(end) = verdict.end {
            return Err(IllegalMove::new(
                IllegalReason::GameOver,
                format!("the game is already over: {}", end.describe(G::VARIANT)),
            )
            .into());
        }
        let m = parsed?;
        if let Some(forbidden) = G::forbidden(self, m) {
            return Err(forbidden.into());
        }
        self.push(m);
        Ok(m)
    }

    /// Plays move text that must be legal in the current position, without
    /// asking whether the rules have already ended the game: for recorded
    /// games, in which a repetition or move-count ending had to be claimed
    /// or applied by someone and play may have gone on.
    ///
    /// # Errors
    ///
    /// The move is unreadable, ambiguous or illegal.
    pub fn play_recorded(&mut self, text: &str) -> Result<G::Move, MoveError> {
        let m = self.current().parse_move(text)?;
        self.push(m);
        Ok(m)
    }

    /// How many times the current position has occurred, counting itself.
    ///
    /// Only the positions since the last irreversible move can repeat it, so
    /// only those are scanned.
    pub fn repetitions(&self) -> usize {
        1 + self.earlier_occurrences().count()
    }

    /// Indices (into [`Record::positions`]) of the earlier positions identical
    /// to the current one, most recent first.
    pub fn earlier_occurrences(&self) -> impl Iterator<Item = usize> + '_ {
        let last = self.keys.len() - 1;
        let window = (self.current().halfmove_clock() as usize).min(last);
        (last - window..last)
            .rev()
            .filter(move |&i| self.keys[i] == self.keys[last])
    }

    /// How many times the position after the legal move `m` has occurred
    /// before it (since the last irreversible move), without playing `m`
    /// into the record.
    pub fn occurrences_after(&self, m: G::Move) -> usize {
        let current = self.current();
        let mut next = current.clone();
        next.play(m);
        let key = current.next_repetition_key(self.keys[self.keys.len() - 1], m, &next);
        let window = (next.halfmove_clock() as usize).min(self.keys.len());
        self.keys[self.keys.len() - window..]
            .iter()
            .filter(|&&k| k == key)
            .count()
    }

    /// Is the legal move `m` one the options in force let the side to move
    /// play, given the history (see [`Game::forbidden`])?
    pub fn allows(&self, m: G::Move) -> bool {
        G::forbidden(self, m).is_none()
    }

    /// The rules' judgement of the current position.
    pub fn verdict(&self) -> Verdict {
        G::adjudicate(self, self.current().has_legal_moves())
    }
}
