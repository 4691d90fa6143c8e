//! Text from a request, as an error message quotes it and as a log line
//! writes it.

use std::fmt;

/// Text as an error message quotes it: in double quotes with Rust's
/// escapes (as `{:?}` writes it), and cut after its first
/// [`Quoted::SHOWN`] characters. Error messages travel back in a gRPC
/// trailer, and clients refuse trailers of more than 8-16 KiB: a message
/// that echoed a long input whole would hide the status it carries.
///
/// ```
/// use arbiter::rules::Quoted;
///
/// assert_eq!(Quoted("e9e8").to_string(), r#""e9e8""#);
/// assert_eq!(
///     Quoted(&"x".repeat(1000)).to_string(),
///     format!("{:?}... (1000 characters)", "x".repeat(32)),
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(pub &'a str);

impl Quoted<'_> {
    /// Characters shown of a longer text.
    pub const SHOWN: usize = 32;
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(Quoted::SHOWN) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => write!(
                f,
                "{:?}... ({} characters)",
                &self.0[..cut],
                self.0.chars().count()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole() {
        let exactly = "é".repeat(Quoted::SHOWN);
        assert_eq!(Quoted(&exactly).to_string(), format!("{exactly:?}"));
        assert_eq!(Quoted("a\"b\n").to_string(), r#""a\"b\n""#);
    }

    #[test]
    fn long_text_is_cut_on_a_character() {
        let text = format!("{}炮二平五", "马".repeat(30));
        assert_eq!(
            Quoted(&text).to_string(),
            format!("\"{}炮二\"... (34 characters)", "马".repeat(30))
        );
    }
}

/// A value as the logs write it: whole up to [`Clipped::SHOWN`]
/// characters, otherwise its first ones and its length in bytes.
///
/// ```
/// use arbiter::rules::Clipped;
///
/// assert_eq!(Clipped("/arbiter.v1.Games/GetGame").to_string(), "/arbiter.v1.Games/GetGame");
/// assert_eq!(
///     Clipped(&"x".repeat(1000)).to_string(),
///     format!("{}... (1000 bytes)", "x".repeat(128)),
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Clipped<'a>(pub &'a str);

impl Clipped<'_> {
    /// Characters written of a longer value.
    pub const SHOWN: usize = 128;
}

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(Clipped::SHOWN) {
            None => f.write_str(self.0),
            Some((cut, _)) => write!(f, "{}... ({} bytes)", &self.0[..cut], self.0.len()),
        }
    }
}
