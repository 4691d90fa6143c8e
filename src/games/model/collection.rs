//! PGN collections: games one after another in a text that arrives in
//! pieces of any size, split into the games' texts without holding more
//! than the game being read.

/// A game of a collection, or why it cannot be read as text.
#[derive(Debug, PartialEq, Eq)]
pub enum CollectedGame {
    Text(String),
    /// Longer than the splitter's cap: its bytes were dropped as they came.
    TooLong {
        bytes: usize,
        tags: Vec<(String, String)>,
    },
    /// Not UTF-8.
    NotText {
        tags: Vec<(String, String)>,
    },
}

/// Splits a PGN collection into games: a game ends where a tag line
/// (`[Name "value"]`) follows its movetext, outside a `{comment}`.
#[derive(Debug)]
pub struct PgnSplitter {
    /// The most bytes one game may have.
    cap: usize,
    /// The current line, until its end comes.
    line: Vec<u8>,
    /// The game being read (its complete lines), unless it went past `cap`.
    game: Vec<u8>,
    /// The bytes of the game being read, kept or not.
    game_bytes: usize,
    /// The tags of a game past `cap`, read as its lines came.
    dropped_tags: Vec<(String, String)>,
    too_long: bool,
    /// The current line went past the cap: the rest of it is dropped too.
    line_dropped: bool,
    in_comment: bool,
    /// The game being read has movetext: its next tag line starts another.
    moves_seen: bool,
    at_start: bool,
}

/// The tags a refused game is named by in an answer.
pub const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

impl PgnSplitter {
    /// A splitter for games of at most `cap` bytes.
    pub fn new(cap: usize) -> PgnSplitter {
        PgnSplitter {
            cap,
            line: Vec::new(),
            game: Vec::new(),
            game_bytes: 0,
            dropped_tags: Vec::new(),
            too_long: false,
            line_dropped: false,
            in_comment: false,
            moves_seen: false,
            at_start: true,
        }
    }

    /// Reads the next piece; the games it completes, in order.
    pub fn feed(&mut self, mut piece: &[u8]) -> Vec<CollectedGame> {
        let mut done = Vec::new();
        while let Some(end) = piece.iter().position(|&b| b == b'\n') {
            self.take_line_part(&piece[..=end]);
            let line = std::mem::take(&mut self.line);
            self.line_dropped = false;
            self.end_line(line, &mut done);
            piece = &piece[end + 1..];
        }
        self.take_line_part(piece);
        done
    }

    /// The last game, once the collection has ended.
    pub fn finish(mut self) -> Option<CollectedGame> {
        let line = std::mem::take(&mut self.line);
        let mut done = Vec::new();
        if !line.is_empty() {
            self.end_line(line, &mut done);
        }
        done.extend(self.take_game());
        done.pop()
    }

    /// A line's bytes, as far as they have come; a line past the cap is
    /// not kept, only counted (and taken for movetext).
    fn take_line_part(&mut self, part: &[u8]) {
        if !self.line_dropped && self.line.len() + part.len() <= self.cap {
            self.line.extend_from_slice(part);
            return;
        }
        self.drop_game();
        self.moves_seen = true;
        self.line_dropped = true;
        self.game_bytes += self.line.len() + part.len();
        self.line.clear();
    }

    /// Keeps only the roster tags of the game being read, past the cap.
    fn drop_game(&mut self) {
        if !self.too_long {
            self.dropped_tags = tags_of(&self.game);
            self.too_long = true;
        }
        self.game = Vec::new();
    }

    fn end_line(&mut self, mut line: Vec<u8>, done: &mut Vec<CollectedGame>) {
        if std::mem::take(&mut self.at_start) && line.starts_with("\u{feff}".as_bytes()) {
            line.drain(..3);
        }
        let text = String::from_utf8_lossy(&line);
        let trimmed = text.trim_start();
        let tag_line = !self.in_comment && trimmed.starts_with('[');
        if tag_line && self.moves_seen {
            done.extend(self.take_game());
        }
        if tag_line {
            if self.too_long {
                self.dropped_tags.extend(tag_of(trimmed));
            }
        } else if !trimmed.starts_with('%') {
            self.scan_movetext(trimmed);
        }
        self.game_bytes += line.len();
        if self.too_long || self.game_bytes > self.cap {
            self.drop_game();
        } else {
            self.game.extend_from_slice(&line);
        }
    }

    /// Notes movetext and comments in a line that is not a tag line.
    fn scan_movetext(&mut self, line: &str) {
        for c in line.chars() {
            match (self.in_comment, c) {
                (true, '}') => self.in_comment = false,
                (true, _) => {}
                (false, '{') => self.in_comment = true,
                (false, ';') => return,
                (false, c) if !c.is_whitespace() => self.moves_seen = true,
                (false, _) => {}
            }
        }
    }

    /// The game read so far (none if it is empty), and a fresh start.
    fn take_game(&mut self) -> Option<CollectedGame> {
        let game = std::mem::take(&mut self.game);
        let bytes = std::mem::take(&mut self.game_bytes);
        let dropped_tags = std::mem::take(&mut self.dropped_tags);
        self.moves_seen = false;
        self.in_comment = false;
        if std::mem::take(&mut self.too_long) {
            return Some(CollectedGame::TooLong {
                bytes,
                tags: dropped_tags,
            });
        }
        if game.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(match String::from_utf8(game) {
            Ok(text) => CollectedGame::Text(text),
            Err(e) => CollectedGame::NotText {
                tags: tags_of(e.as_bytes()),
            },
        })
    }
}

/// The roster tags of a game's text, read line by line (whether or not
/// the rest of it reads).
pub fn tags_of(text: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(text)
        .lines()
        .filter_map(|line| tag_of(line.trim_start()))
        .collect()
}

/// `[Name "value"]` of [`ROSTER`], as written (escapes left alone).
fn tag_of(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (name, value) = inner.split_once(char::is_whitespace)?;
    let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
    ROSTER
        .contains(&name)
        .then(|| (name.to_owned(), value.chars().take(200).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "[Event \"a\"]\n[White \"x\"]\n\n1. e4 e5 {a comment\n[not a tag]} 2. Nf3 1-0\n\n\
                       [Event \"b\"]\n\n1. d4 ; [comment\n d5 *\n";

    fn texts(games: Vec<CollectedGame>) -> Vec<String> {
        games
            .into_iter()
            .map(|g| match g {
                CollectedGame::Text(t) => t,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn split_in(text: &[u8], piece: usize, cap: usize) -> Vec<CollectedGame> {
        let mut splitter = PgnSplitter::new(cap);
        let mut games = Vec::new();
        for chunk in text.chunks(piece) {
            games.extend(splitter.feed(chunk));
        }
        games.extend(splitter.finish());
        games
    }

    #[test]
    fn games_split_at_the_tag_line_after_movetext_whatever_the_pieces() {
        let whole = texts(split_in(TWO.as_bytes(), TWO.len(), 1 << 20));
        assert_eq!(whole.len(), 2);
        assert!(whole[0].starts_with("[Event \"a\"]") && whole[0].contains("1-0"));
        assert!(whole[1].starts_with("[Event \"b\"]") && whole[1].ends_with("d5 *\n"));
        for piece in [1, 2, 3, 7, 64] {
            assert_eq!(texts(split_in(TWO.as_bytes(), piece, 1 << 20)), whole);
        }
    }

    #[test]
    fn a_character_cut_between_pieces_is_whole_and_a_bom_is_dropped() {
        let text = "\u{feff}[White \"Élodie\"]\n\n1. e4 *\n".as_bytes();
        let games = texts(split_in(text, 1, 1 << 20));
        assert_eq!(games, ["[White \"Élodie\"]\n\n1. e4 *\n"]);
    }

    #[test]
    fn a_game_past_the_cap_is_dropped_with_its_tags_and_the_next_is_read() {
        let long = format!(
            "[Event \"long\"]\n[Round \"3\"]\n\n1. e4 {{{}}} *\n[Event \"short\"]\n\n1. d4 *\n",
            "x".repeat(500)
        );
        let games = split_in(long.as_bytes(), 10, 200);
        assert_eq!(games.len(), 2);
        match &games[0] {
            CollectedGame::TooLong { bytes, tags } => {
                assert!(*bytes > 500, "{bytes}");
                assert_eq!(
                    tags,
                    &[
                        ("Event".to_owned(), "long".to_owned()),
                        ("Round".to_owned(), "3".to_owned())
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            games[1],
            CollectedGame::Text("[Event \"short\"]\n\n1. d4 *\n".into())
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_refuse_their_game_only() {
        let mut text = b"[Event \"bad\"]\n\n1. e4 \xff *\n".to_vec();
        text.extend_from_slice(b"[Event \"good\"]\n\n1. e4 *\n");
        let games = split_in(&text, 5, 1 << 20);
        assert_eq!(
            games[0],
            CollectedGame::NotText {
                tags: vec![("Event".to_owned(), "bad".to_owned())]
            }
        );
        assert!(matches!(&games[1], CollectedGame::Text(t) if t.contains("good")));
    }

    #[test]
    fn blank_input_has_no_game() {
        assert!(split_in(b"\n \r\n", 2, 100).is_empty());
    }
}
