//! [`MoveText`]: a move's notation or a square's name, stored inline.

use std::{
    fmt,
    hash::{Hash, Hasher},
    ops::Deref,
};

/// A short text stored inline rather than on the heap: a move in one
/// notation, or a square's name. Describing every legal move writes five of
/// them per move, so `LegalMoves` would otherwise allocate some 200 strings
/// per answer.
///
/// It holds up to [`MoveText::CAPACITY`] bytes; the longest notation, four
/// Chinese characters, takes 12. Text is added a whole character at a time,
/// so it is always valid UTF-8; a character that does not fit is left out.
///
/// ```
/// use arbiter::rules::MoveText;
///
/// let mut san = MoveText::from("Nb");
/// san.extend("d7+".chars());
/// assert_eq!(san, "Nbd7+");
/// assert_eq!(san.len(), 5);
/// assert_eq!(MoveText::from("炮二平五").as_bytes().len(), 12);
/// ```
///
/// Bytes past the length are not part of the text (a cleared text keeps
/// them), so equality and hashing look at [`MoveText::as_bytes`] only.
#[derive(Clone, Copy, Default)]
pub struct MoveText {
    len: u8,
    bytes: [u8; MoveText::CAPACITY],
}

impl MoveText {
    /// Bytes a text can hold: with its length, the size of a `String`.
    pub const CAPACITY: usize = 23;

    /// The text's UTF-8 bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only whole characters are ever stored, so this never fails.
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// The text of `chars`: what the notations build, a few characters each.
    #[inline]
    pub fn from_chars<const N: usize>(chars: [char; N]) -> MoveText {
        let mut text = MoveText::default();
        text.extend(chars);
        text
    }

    /// Empties the text, to write another in its place.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends `c`, unless it does not fit.
    pub fn push(&mut self, c: char) {
        self.extend([c]);
    }
}

impl Extend<char> for MoveText {
    // Always inline: describing a xiangqi answer's moves calls it some 200
    // times with two to four known characters, and as a call it took 6% of
    // the whole answer.
    #[inline(always)]
    fn extend<I: IntoIterator<Item = char>>(&mut self, chars: I) {
        // The length stays in a register until the end.
        let mut len = usize::from(self.len);
        for c in chars {
            let width = c.len_utf8();
            if let Some(slot) = self.bytes.get_mut(len..len + width) {
                c.encode_utf8(slot);
                len += width;
            } else {
                debug_assert!(false, "{:?} has no room for {c:?}", self.as_str());
            }
        }
        // At most CAPACITY, which fits a byte.
        self.len = len as u8;
    }
}

impl FromIterator<char> for MoveText {
    #[inline]
    fn from_iter<I: IntoIterator<Item = char>>(chars: I) -> MoveText {
        let mut t = MoveText::default();
        t.extend(chars);
        t
    }
}

impl From<&str> for MoveText {
    fn from(text: &str) -> MoveText {
        text.chars().collect()
    }
}

impl From<MoveText> for String {
    fn from(text: MoveText) -> String {
        text.as_str().to_owned()
    }
}

impl Deref for MoveText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for MoveText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for MoveText {
    fn eq(&self, other: &MoveText) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for MoveText {}

impl Hash for MoveText {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq<str> for MoveText {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for MoveText {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for MoveText {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, RandomState};

    use super::*;

    #[test]
    fn a_cleared_text_equals_a_new_one() {
        let mut text = MoveText::from("Nbd7+");
        text.clear();
        text.extend("e4".chars());
        assert_eq!(text, MoveText::from("e4"));
        let state = RandomState::new();
        assert_eq!(state.hash_one(text), state.hash_one(MoveText::from("e4")));
    }

    #[test]
    fn fills_up_with_whole_characters_only() {
        let mut text = MoveText::from("a".repeat(MoveText::CAPACITY - 2).as_str());
        assert_eq!(text.len(), 21);
        text.push('é');
        assert_eq!(text.len(), 23);
        assert!(text.ends_with('é'));
    }

    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "no room"))]
    fn a_character_that_does_not_fit_is_left_out() {
        let mut text = MoveText::from("a".repeat(MoveText::CAPACITY - 2).as_str());
        text.push('炮');
        assert_eq!(text.len(), 21);
    }
}
