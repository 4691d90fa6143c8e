use super::{Game, IllegalMove, IllegalReason, MoveError, Quoted, Verdict};

/// A game as the rules see it: a start position, the moves played from it,
/// and every position along the way, so that history rules (repetition,
/// perpetual check) can be judged.
///
/// A record unpacked from a [`Packed`] one holds the positions, keys and
/// moves from ply [`Record::first_kept`] on (the last irreversible move):
/// indices into [`Record::positions`] and [`Record::moves`] count from
/// there, and no rule looks further back.
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
    /// The ply of `positions[0]`: 0 unless unpacked.
    first: usize,
}

/// A record packed small, to be kept between a game's changes: the
/// position at its last irreversible move, and the keys and moves since,
/// from which [`Packed::unpack`] replays the positions in between. Nothing
/// before that move is kept: no repetition reaches back past it, nor does
/// any rule looking at a repetition cycle or the checks of the plies since
/// it.
#[derive(Clone, Debug)]
pub struct Packed<G: Game> {
    options: G::Options,
    first_position: G,
    keys: Box<[u64]>,
    moves: Box<[G::Move]>,
    first: usize,
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
            first: 0,
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

    /// The starting position (the earliest kept: see [`Record::first_kept`]).
    pub fn start(&self) -> &G {
        &self.positions[0]
    }

    /// The ply of the earliest position kept (0 unless unpacked): moves
    /// are taken back down to it at most.
    pub fn first_kept(&self) -> usize {
        self.first
    }

    /// Number of moves played from the start.
    pub fn ply(&self) -> usize {
        self.first + self.moves.len()
    }

    /// The record packed small (see [`Packed`]).
    pub fn pack(self) -> Packed<G> {
        let Record {
            options,
            mut positions,
            keys,
            moves,
            first,
        } = self;
        let last = keys.len() - 1;
        let drop = last - (positions[last].halfmove_clock() as usize).min(last);
        Packed {
            options,
            first_position: positions.swap_remove(drop),
            keys: keys[drop..].into(),
            moves: moves[drop..].into(),
            first: first + drop,
        }
    }

    /// The position after the last move.
    pub fn current(&self) -> &G {
        self.positions
            .last()
            .expect("a record always has its start position")
    }

    /// The moves played, in order (from [`Record::first_kept`] on).
    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Every position, from the start (index 0; the earliest kept, see
    /// [`Record::first_kept`]) to the current one.
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

impl<G: Game> Packed<G> {
    /// The record again, its positions since the last irreversible move
    /// replayed, with room for a few more moves.
    pub fn unpack(self) -> Record<G> {
        let mut positions = Vec::with_capacity(self.moves.len() + 3);
        let mut position = self.first_position;
        for &m in &self.moves {
            let next = {
                let mut next = position.clone();
                next.play(m);
                next
            };
            positions.push(position);
            position = next;
        }
        positions.push(position);
        let mut keys = self.keys.into_vec();
        keys.reserve(2);
        let mut moves = self.moves.into_vec();
        moves.reserve(2);
        Record {
            options: self.options,
            positions,
            keys,
            moves,
            first: self.first,
        }
    }

    /// The ply of the earliest position kept.
    pub fn first_kept(&self) -> usize {
        self.first
    }

    /// Number of moves played from the start.
    pub fn ply(&self) -> usize {
        self.first + self.moves.len()
    }

    /// The bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.keys) + size_of_val(&*self.moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{chess::Chess, xiangqi::Xiangqi};

    /// Packed and unpacked after every move, a record judges as the whole
    /// one does, and plays on the same.
    fn packs_as_it_plays<G: Game>(start: G, moves: &[&str]) {
        let mut whole = Record::new(start.clone());
        let mut packed = Record::new(start).pack();
        for m in moves {
            whole.play_text(m).unwrap();
            let mut record = packed.unpack();
            record.play_text(m).unwrap();
            assert_eq!(record.ply(), whole.ply());
            assert_eq!(record.current().fen(), whole.current().fen());
            assert_eq!(record.repetitions(), whole.repetitions());
            assert_eq!(record.verdict(), whole.verdict(), "after {m}");
            assert!(record.first_kept() <= whole.ply());
            packed = record.pack();
        }
    }

    #[test]
    fn a_packed_record_judges_as_the_whole_one() {
        packs_as_it_plays(
            Chess::start(),
            &[
                "e4", "e5", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8",
            ],
        );
        // Black's chariot chases the horse its general cannot protect.
        let chase = Xiangqi::from_fen("3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1").unwrap();
        let moves = [
            "d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0", "c3d3",
        ];
        packs_as_it_plays(chase, &moves);
        let mut whole =
            Record::new(Xiangqi::from_fen("3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1").unwrap());
        for m in moves {
            whole.play_text(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        assert!(whole.verdict().end.is_some());
    }
}
