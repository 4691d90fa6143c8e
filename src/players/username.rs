//! Usernames as Lichess allows them, so that Lichess clients can address
//! Arbiter's players: 2 to 20 ASCII letters, digits, `_` and `-`, starting
//! and ending with a letter or digit, unique in any case.

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
        assert_eq!(
            Username::parse("DrNykterstein").unwrap().id(),
            "drnykterstein"
        );
    }
}
