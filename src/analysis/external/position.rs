//! A position Arbiter checked, as an external engine is given it, and the
//! engine's moves read back on it.

use crate::rules::{Game, MoveDescription, Ranks, Record, Variant};

/// A checked position: what an external engine is told, and how its answer
/// reads.
pub(crate) trait UciPosition: Send + Sync {
    fn variant(&self) -> Variant;

    /// `position fen ... [moves ...]`: the start FEN and the moves played
    /// since, in coordinates with `ranks`, all written by the rules.
    fn command(&self, ranks: Ranks) -> String;

    /// Legal moves in the position to search.
    fn legal_moves(&self) -> usize;

    /// The engine's `moves` (coordinates with `ranks`) played from the
    /// position to search, up to the first one that is not a legal move
    /// written as the rules write it.
    fn line(&self, moves: &[&str], ranks: Ranks) -> Vec<MoveDescription>;
}

impl<G: Game> UciPosition for Record<G> {
    fn variant(&self) -> Variant {
        G::VARIANT
    }

    fn command(&self, ranks: Ranks) -> String {
        let mut command = format!("position fen {}", self.start().fen());
        if !self.moves().is_empty() {
            command.push_str(" moves");
        }
        for (position, &m) in self.positions().iter().zip(self.moves()) {
            command.push(' ');
            command.push_str(&ranks.write(position.coordinate_notation(m)));
        }
        command
    }

    fn legal_moves(&self) -> usize {
        self.current().count_legal_moves()
    }

    fn line(&self, moves: &[&str], ranks: Ranks) -> Vec<MoveDescription> {
        let mut position = self.current().clone();
        let mut line = Vec::new();
        for text in moves {
            let Some(m) = ranks
                .read(text)
                .and_then(|read| position.parse_move(&read).ok())
                .filter(|&m| ranks.write(position.coordinate_notation(m)) == *text)
            else {
                break;
            };
            line.push(position.describe(m));
            position.play(m);
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{chess::Chess, xiangqi::Xiangqi};

    #[test]
    fn writes_what_the_rules_wrote_and_reads_coordinates_only() {
        let chess = Record::replay(Chess::start(), ["e4", "e5"]).unwrap();
        assert_eq!(
            chess.command(Ranks::AsRules),
            "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4 e7e5"
        );
        let line = chess.line(&["g1f3", "b8c6", "Nf3", "e1e2"], Ranks::AsRules);
        assert_eq!(
            line.iter().map(|d| d.san.as_str()).collect::<Vec<_>>(),
            ["Nf3", "Nc6"]
        );
        let xiangqi = Record::replay(Xiangqi::start(), ["h2e2"]).unwrap();
        assert!(xiangqi.command(Ranks::FromOne).ends_with(" moves h3e3"));
        assert!(xiangqi.command(Ranks::AsRules).ends_with(" moves h2e2"));
        assert_eq!(xiangqi.line(&["h10g8"], Ranks::FromOne).len(), 1);
        assert!(xiangqi.line(&["h9g7"], Ranks::FromOne).is_empty());
    }
}
