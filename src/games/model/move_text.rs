//! A move as a seat wrote it: the text, and how its coordinates number
//! xiangqi's ranks (clients of Fairy-Stockfish and pychess-variants count
//! 1-10; the rules 0-9).

use super::GameError;
use crate::rules::{MoveError, Ranks, Variant};

/// A seat's move text and its ranks.
#[derive(Clone, Copy, Debug)]
pub struct MoveText<'a> {
    pub text: &'a str,
    pub ranks: Ranks,
}

impl<'a> From<&'a str> for MoveText<'a> {
    /// Text in any notation the rules read, ranks as theirs.
    fn from(text: &'a str) -> MoveText<'a> {
        MoveText {
            text,
            ranks: Ranks::AsRules,
        }
    }
}

impl<'a> From<&'a String> for MoveText<'a> {
    fn from(text: &'a String) -> MoveText<'a> {
        MoveText::from(text.as_str())
    }
}

impl MoveText<'_> {
    /// The move as the rules of `variant` read it.
    pub(in crate::games) fn read(self, variant: Variant) -> Result<String, GameError> {
        if variant != Variant::Xiangqi {
            return Ok(self.text.to_owned());
        }
        self.ranks.read(self.text).ok_or_else(|| {
            GameError::BadMove(MoveError::Unparsable {
                text: self.text.to_owned(),
                expected: "a coordinate move with files a-i and ranks 1-10 (h3e3)",
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_xiangqi_coordinates_are_renumbered() {
        let from_one = |text| MoveText {
            text,
            ranks: Ranks::FromOne,
        };
        assert_eq!(from_one("h3e3").read(Variant::Xiangqi).unwrap(), "h2e2");
        assert_eq!(from_one("e2e4").read(Variant::Chess).unwrap(), "e2e4");
        assert_eq!(
            MoveText::from("h2e2").read(Variant::Xiangqi).unwrap(),
            "h2e2"
        );
        assert!(matches!(
            from_one("h0e0").read(Variant::Xiangqi),
            Err(GameError::BadMove(MoveError::Unparsable { .. }))
        ));
    }
}
