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
    /// The Lichess variants of chess.
    Crazyhouse,
    Antichess,
    Atomic,
    Horde,
    KingOfTheHill,
    RacingKings,
    ThreeCheck,
}

impl Variant {
    /// Every variant, in a stable order.
    pub const ALL: [Variant; 10] = [
        Variant::Chess,
        Variant::Xiangqi,
        Variant::Chess960,
        Variant::Crazyhouse,
        Variant::Antichess,
        Variant::Atomic,
        Variant::Horde,
        Variant::KingOfTheHill,
        Variant::RacingKings,
        Variant::ThreeCheck,
    ];

    /// The name used on the command line and in messages: Lichess's key
    /// for the variant (read in any case).
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Xiangqi => "xiangqi",
            Variant::Chess960 => "chess960",
            Variant::Crazyhouse => "crazyhouse",
            Variant::Antichess => "antichess",
            Variant::Atomic => "atomic",
            Variant::Horde => "horde",
            Variant::KingOfTheHill => "kingOfTheHill",
            Variant::RacingKings => "racingKings",
            Variant::ThreeCheck => "threeCheck",
        }
    }

    /// The variant's name in a PGN `Variant` tag, as Lichess writes it.
    pub const fn title(self) -> &'static str {
        match self {
            Variant::Chess => "Standard",
            Variant::Xiangqi => "Xiangqi",
            Variant::Chess960 => "Chess960",
            Variant::Crazyhouse => "Crazyhouse",
            Variant::Antichess => "Antichess",
            Variant::Atomic => "Atomic",
            Variant::Horde => "Horde",
            Variant::KingOfTheHill => "King of the Hill",
            Variant::RacingKings => "Racing Kings",
            Variant::ThreeCheck => "Three-check",
        }
    }

    /// The game's name in UCI's `UCI_Variant`, as Fairy-Stockfish names it
    /// (Chess960 is chess with `UCI_Chess960`).
    pub const fn uci_name(self) -> &'static str {
        match self {
            Variant::Chess | Variant::Chess960 => "chess",
            Variant::KingOfTheHill => "kingofthehill",
            Variant::RacingKings => "racingkings",
            Variant::ThreeCheck => "3check",
            other => other.name(),
        }
    }

    /// Is this a game of chess (its pieces, board and notation), under any
    /// start and castling rules?
    pub const fn is_chess(self) -> bool {
        matches!(self, Variant::Chess | Variant::Chess960)
    }

    /// Is this one of the Lichess variants of chess (chess pieces and
    /// notation, rules of its own)?
    pub const fn is_chess_variant(self) -> bool {
        !matches!(self, Variant::Chess | Variant::Chess960 | Variant::Xiangqi)
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
#[error(
    "unknown variant {0:?}: expected one of chess, xiangqi, chess960, crazyhouse, antichess, \
     atomic, horde, kingOfTheHill, racingKings, threeCheck"
)]
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
            $crate::rules::Variant::Crazyhouse => {
                type $G = $crate::rules::variants::Crazyhouse;
                $body
            }
            $crate::rules::Variant::Antichess => {
                type $G = $crate::rules::variants::Antichess;
                $body
            }
            $crate::rules::Variant::Atomic => {
                type $G = $crate::rules::variants::Atomic;
                $body
            }
            $crate::rules::Variant::Horde => {
                type $G = $crate::rules::variants::Horde;
                $body
            }
            $crate::rules::Variant::KingOfTheHill => {
                type $G = $crate::rules::variants::KingOfTheHill;
                $body
            }
            $crate::rules::Variant::RacingKings => {
                type $G = $crate::rules::variants::RacingKings;
                $body
            }
            $crate::rules::Variant::ThreeCheck => {
                type $G = $crate::rules::variants::ThreeCheck;
                $body
            }
        }
    };
}
