//! How coordinate moves number xiangqi's ranks: the rules (ICCS, Pikafish)
//! count 0-9 from Red's side, Fairy-Stockfish and its GUIs 1-10. FENs are
//! the same in both.

use super::xiangqi::Square;

/// How xiangqi moves in coordinates number the ranks (chess moves are only
/// ever written as the rules write them).
///
/// ```
/// use arbiter::rules::Ranks;
///
/// assert_eq!(Ranks::FromOne.read("h3e3").as_deref(), Some("h2e2"));
/// assert_eq!(Ranks::FromOne.write("h9g7".to_owned()), "h10g8");
/// assert_eq!(Ranks::FromOne.read("h0e0"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranks {
    /// As the rules write them: chess 1-8, xiangqi 0-9 (ICCS, as Pikafish).
    AsRules,
    /// Xiangqi ranks 1-10, as Fairy-Stockfish: ICCS `h2e2` is `h3e3`, `h9g7`
    /// is `h10g8`.
    FromOne,
}

impl Ranks {
    /// A move written with these ranks, as the rules read it: a coordinate
    /// move renumbered, other notations (WXF, Chinese) as they are, which
    /// have no ranks. None for a coordinate move off the board.
    pub fn read(self, text: &str) -> Option<String> {
        let points = match (self, points(text)) {
            (Ranks::FromOne, Some(points)) => points,
            _ => return Some(text.to_owned()),
        };
        let [from, to] = points.map(|(file, rank)| {
            let file = file.to_ascii_lowercase().checked_sub(b'a')?;
            Square::new(file, rank.checked_sub(1)?)
        });
        Some(format!("{}{}", from?, to?))
    }

    /// A move the rules wrote in coordinates, with these ranks.
    pub fn write(self, text: String) -> String {
        match (self, points(&text)) {
            (Ranks::FromOne, Some([(from_file, from_rank), (to_file, to_rank)])) => format!(
                "{}{}{}{}",
                char::from(from_file),
                from_rank + 1,
                char::from(to_file),
                to_rank + 1
            ),
            _ => text,
        }
    }
}

/// The file letter and rank number of each point of a coordinate move
/// (`h3e3`, `h10g8`); None for other notations.
fn points(text: &str) -> Option<[(u8, u8); 2]> {
    let split = text
        .char_indices()
        .skip(1)
        .find(|(_, c)| c.is_ascii_alphabetic())?
        .0;
    let (from, to) = text.split_at(split);
    Some([point(from)?, point(to)?])
}

/// `h3`, `h10`: a letter and one or two digits.
fn point(text: &str) -> Option<(u8, u8)> {
    let (&file, rank) = text.as_bytes().split_first()?;
    let is_rank = (1..=2).contains(&rank.len()) && rank.iter().all(u8::is_ascii_digit);
    (file.is_ascii_alphabetic() && is_rank)
        .then(|| (file, rank.iter().fold(0, |n, d| n * 10 + d - b'0')))
}
