use std::{fmt, str::FromStr};

/// One of the two players.
///
/// In xiangqi, `White` is Red (who moves first) and `Black` is Black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// The other side.
    #[must_use]
    pub const fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// Lower-case English name, as used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

/// A name that is neither `white` nor `black`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown side {0:?}: expected white or black")]
pub struct ParseSideError(pub String);

/// Reads the name [`Side::name`] writes.
impl FromStr for Side {
    type Err = ParseSideError;

    fn from_str(s: &str) -> Result<Side, ParseSideError> {
        [Side::White, Side::Black]
            .into_iter()
            .find(|side| side.name() == s)
            .ok_or_else(|| ParseSideError(s.to_owned()))
    }
}

impl std::ops::Not for Side {
    type Output = Side;
    fn not(self) -> Side {
        self.other()
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
