//! Usernames as Lichess allows them, so that Lichess clients can address
//! Arbiter's players: 2 to 20 ASCII letters, digits, `_` and `-`, starting
//! and ending with a letter or digit, unique in any case. A new one, as
//! Lichess's sign-up asks, starts with a letter and has no `_` or `-` next
//! to another.

use std::fmt;

use crate::{games::GameError, reason::Reason};

const MIN: usize = 2;
const MAX: usize = 20;

/// A checked username.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    /// `name`, if it is a username.
    ///
    /// # Errors
    ///
    /// INVALID_ARGUMENT (`INVALID_USERNAME`) saying what is wrong.
    pub fn parse(name: &str) -> Result<Username, GameError> {
        let bytes = name.as_bytes();
        let refuse = |why: &str| {
            Err(GameError::invalid(
                "username",
                Reason::InvalidUsername,
                format!("a username {why}"),
            ))
        };
        if !(MIN..=MAX).contains(&bytes.len()) {
            return refuse(&format!("has {MIN} to {MAX} characters"));
        }
        if !bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
        {
            return refuse("holds only ASCII letters, digits, `_` and `-`");
        }
        if !bytes[0].is_ascii_alphanumeric() || !bytes[bytes.len() - 1].is_ascii_alphanumeric() {
            return refuse("starts and ends with a letter or a digit");
        }
        Ok(Username(name.to_owned()))
    }

    /// `name`, if a new player may take it.
    ///
    /// # Errors
    ///
    /// INVALID_ARGUMENT (`INVALID_USERNAME`) saying what is wrong.
    pub fn new_name(name: &str) -> Result<Username, GameError> {
        let username = Username::parse(name)?;
        let refuse = |why: &str| {
            Err(GameError::invalid(
                "username",
                Reason::InvalidUsername,
                format!("a new username {why}"),
            ))
        };
        let separator = |b: &u8| *b == b'_' || *b == b'-';
        let bytes = name.as_bytes();
        if !bytes[0].is_ascii_alphabetic() {
            return refuse("starts with a letter");
        }
        if bytes
            .windows(2)
            .any(|pair| separator(&pair[0]) && separator(&pair[1]))
        {
            return refuse("has no `_` or `-` next to another");
        }
        Ok(username)
    }

    /// The player id it gives: the username in lower case.
    pub fn id(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Username {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_follow_lichess_rules() {
        for good in ["ab", "Magnus_Carlsen", "x-1", "A1234567890123456789"] {
            assert!(Username::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "a",
            "A12345678901234567890",
            "_ab",
            "ab-",
            "a b",
            "élodie",
            "a.b",
        ] {
            assert!(Username::parse(bad).is_err(), "{bad}");
        }
        for old_style in ["1ab", "a__b", "a-_b"] {
            assert!(Username::parse(old_style).is_ok(), "{old_style}");
            assert!(Username::new_name(old_style).is_err(), "{old_style}");
        }
        assert!(Username::new_name("Magnus_Carlsen-2").is_ok());
        assert_eq!(
            Username::parse("DrNykterstein").unwrap().id(),
            "drnykterstein"
        );
    }
}
