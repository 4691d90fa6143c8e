use std::{fmt, str::FromStr};

use super::Side;

/// The games Arbiter referees.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    #[default]
    Chess,
    Xiangqi,
    /// Chess from one of 960 start positions (Fischer random chess).
    Chess960,
}

impl Variant {
    /// Every variant, in a stable order.
    pub const ALL: [Variant; 3] = [Variant::Chess, Variant::Xiangqi, Variant::Chess960];

    /// The lower-case name used on the command line and in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Xiangqi => "xiangqi",
            Variant::Chess960 => "chess960",
        }
    }

    /// Is this a game of chess (its pieces, board and notation), under any
    /// start and castling rules?
    pub const fn is_chess(self) -> bool {
        matches!(self, Variant::Chess | Variant::Chess960)
    }

    /// What players of this game call `side`, in lower case as used in
    /// messages: "white" and "black" in chess, "red" and "black" in
    /// xiangqi.
    ///
    /// ```
    /// use arbiter::rules::{Side, Variant};
    /// assert_eq!(Variant::Xiangqi.side_name(Side::White), "red");
    /// assert_eq!(Variant::Chess.side_name(Side::White), "white");
    /// ```
    pub const fn side_name(self, side: Side) -> &'static str {
        match (self, side) {
            (Variant::Xiangqi, Side::White) => "red",
            _ => side.name(),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is not one of [`Variant::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?}: expected one of chess, xiangqi, chess960")]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;

    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseVariantError(s.to_owned()))
    }
}

/// Runs `$body` with the type alias `$G` bound to the [`Game`](crate::rules::Game)
/// implementation of `$variant`.
///
/// This is the one place where a runtime [`Variant`] becomes a type; everything
/// behind it is generic.
///
/// ```
/// use arbiter::{rules::{Game, Variant}, with_game};
///
/// let n = with_game!(Variant::Chess, G => G::start().legal_moves().len());
/// assert_eq!(n, 20);
/// ```
#[macro_export]
macro_rules! with_game {
    ($variant:expr, $G:ident => $body:expr) => {
        match $variant {
            $crate::rules::Variant::Chess => {
                type $G = $crate::rules::chess::Chess;
                $body
            }
            $crate::rules::Variant::Xiangqi => {
                type $G = $crate::rules::xiangqi::Xiangqi;
                $body
            }
            $crate::rules::Variant::Chess960 => {
                type $G = $crate::rules::chess::Chess960;
                $body
            }
        }
    };
}
