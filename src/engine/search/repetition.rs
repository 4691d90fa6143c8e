//! Repetitions during the search.
//!
//! As in Pikafish (`rule_judge`): the first time the search
//! meets a position again, within its own line or against the game's
//! history, it takes the cycle as one that would be repeated to the third
//! occurrence, and scores it as the rules would then end the game. In chess
//! that is a draw. In xiangqi the cycle is judged by the rules library
//! ([`Evaluate::repetition_loser`]): the side that checked or chased
//! perpetually loses (scored as being mated there), otherwise it is a draw.
//! A loss is only taken for a cycle within the search's line, or at the
//! third occurrence of a position of the game: a cycle that began in the
//! game has not been forced on the side it blames, which may still leave it
//! (scored as a mate at once, it was a false "mate in 1"); its positions are
//! searched on, not answered from the transposition table. So the engine
//! does not chase into a lost repetition, and repeats when the opponent's
//! chasing makes the repetition a win. The judge is asked only when a
//! position repeats, which few nodes do.

use super::{Evaluate, MATE, Searcher};

/// What a position's earlier occurrences make of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Repetition {
    /// No earlier occurrence since the last irreversible move.
    New,
    /// The rules end the game here: the score for the side to move.
    Scored(i32),
    /// A cycle that began in the game's history and blames a side, which
    /// can still leave it before the third occurrence.
    Open,
}

impl<G: Evaluate> Searcher<'_, G> {
    /// What earlier occurrences of the current position since the last
    /// irreversible move make of it. A repetition is a draw unless the game
    /// judges its cycle ([`Evaluate::repetition_loser`]): then the loser is
    /// mated here.
    pub(super) fn repetition(&mut self, pos: &G, ply: usize) -> Repetition {
        let last = self.path.len() - 1;
        let window = (pos.halfmove_clock() as usize).min(last.saturating_sub(self.barrier));
        let key = self.path[last].key;
        let mut occurrences = (last - window..last)
            .rev()
            .filter(|&i| self.path[i].key == key);
        let Some(earlier) = occurrences.next() else {
            return Repetition::New;
        };
        if !self.judged {
            return Repetition::Scored(0);
        }
        // No loser (or, never expected, a cycle that cannot be rebuilt):
        // a draw.
        let Some(loser) = self
            .cycle(earlier)
            .and_then(|(positions, moves)| G::repetition_loser(&positions, &moves))
        else {
            return Repetition::Scored(0);
        };
        // A cycle that began in the game's history ends the game only at
        // the third occurrence: until then the side to blame can still
        // leave it, so the position is searched on.
        if earlier < self.history.len() && occurrences.next().is_none() {
            return Repetition::Open;
        }
        self.verdicts += 1;
        let win = MATE - i32::try_from(ply).unwrap_or(0);
        Repetition::Scored(if loser == pos.turn() { -win } else { win })
    }

    /// The positions of the path from index `first` to the current one,
    /// and the moves between them. Positions of the game come from its
    /// history; those of the search line are replayed from the root (only
    /// the keys are kept along the line, the cycle is rebuilt when needed).
    fn cycle(&self, first: usize) -> Option<(Vec<G>, Vec<G::Move>)> {
        let root = self.history.len() - 1;
        // No null move inside a cycle: repetitions are not looked for
        // across one.
        let moves = self.path[first + 1..]
            .iter()
            .map(|v| v.last_move)
            .collect::<Option<Vec<G::Move>>>()?;
        let mut pos = self.history[first.min(root)].clone();
        for v in &self.path[root + 1..=first.max(root)] {
            // The line may pass (a null move) before the cycle starts.
            match v.last_move {
                Some(m) => pos.play(m),
                None => pos = pos.null_move()?,
            }
        }
        let mut positions = Vec::with_capacity(moves.len() + 1);
        positions.push(pos);
        for (i, &m) in (first + 1..).zip(&moves) {
            let next = match self.history.get(i) {
                Some(p) => p.clone(),
                None => {
                    let mut p = positions[positions.len() - 1].clone();
                    p.play(m);
                    p
                }
            };
            positions.push(next);
        }
        Some((positions, moves))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::{
        engine::{Limits, TranspositionTable},
        rules::{Record, chess::Chess, xiangqi::Xiangqi},
    };

    /// What `repetition` makes of the position after `moves`.
    fn repetition_after<G: Evaluate>(fen: &str, moves: &[&str]) -> Repetition {
        let mut record = Record::new(G::from_fen(fen).unwrap());
        for m in moves {
            record.play_text(m).unwrap();
        }
        let (limits, stop) = (Limits::depth(1), AtomicBool::new(false));
        let mut table = TranspositionTable::new(1);
        let mut searcher = Searcher::new(&record, &limits, &mut table, &stop);
        searcher.repetition(record.current(), 3)
    }

    #[test]
    fn perpetual_check_and_chase_lose_in_xiangqi_and_draw_in_chess() {
        // Red's chariot checks on every move and the position comes back:
        // a second time Red can still leave the cycle, a third time it has
        // lost.
        let checks = [
            "a7a9", "e9e8", "a9a8", "e8e9", "a8a9", "e9e8", "a9a8", "e8e9", "a8a9",
        ];
        let fen = "4k4/9/R8/9/9/9/9/9/9/5K3 w - - 0 1";
        let xiangqi = |fen: &str, moves: &[&str]| repetition_after::<Xiangqi>(fen, moves);
        assert_eq!(xiangqi(fen, &checks), Repetition::Scored(MATE - 3));
        assert_eq!(xiangqi(fen, &checks[..5]), Repetition::Open);
        assert_eq!(xiangqi(fen, &checks[..4]), Repetition::New);
        // Both sides' moves without check: a plain draw at once.
        let quiet = ["a7b7", "e9d9", "b7a7", "d9e9"];
        assert_eq!(xiangqi(fen, &quiet), Repetition::Scored(0));
        // Black's chariot chases the unprotected horse round the cycle:
        // Black loses, so Red, to move, wins.
        let chase = [
            "d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0", "c3d3",
        ];
        let fen = "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1";
        assert_eq!(xiangqi(fen, &chase), Repetition::Scored(MATE - 3));
        assert_eq!(xiangqi(fen, &chase[..4]), Repetition::Open);
        // The same checking cycle in chess is a draw at once.
        let chess = ["a6a8", "e8e7", "a8a7", "e7e8", "a7a8"];
        assert_eq!(
            repetition_after::<Chess>("4k3/8/R7/8/8/8/8/5K2 w - - 0 1", &chess),
            Repetition::Scored(0)
        );
    }
}
