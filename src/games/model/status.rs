//! Where a game stands, and which game it is, as the stored row names them:
//! read and written here only.

use crate::{rules::Variant, store::StoredGame};

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ongoing,
    Decisive,
    Drawn,
    Aborted,
}

impl Status {
    /// The name the store keeps.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ongoing => "ongoing",
            Status::Decisive => "decisive",
            Status::Drawn => "drawn",
            Status::Aborted => "aborted",
        }
    }

    /// Where `game` stands (a name no status has reads as ongoing).
    pub(in crate::games) fn of(game: &StoredGame) -> Status {
        match game.status.as_str() {
            "decisive" => Status::Decisive,
            "drawn" => Status::Drawn,
            "aborted" => Status::Aborted,
            _ => Status::Ongoing,
        }
    }

    /// A game that ended, with or without a winner.
    pub(in crate::games) const fn ended(decisive: bool) -> Status {
        if decisive {
            Status::Decisive
        } else {
            Status::Drawn
        }
    }

    /// Records `self` as `game`'s status.
    pub(in crate::games) fn set(self, game: &mut StoredGame) {
        self.name().clone_into(&mut game.status);
    }
}

/// Whether `game` is still being played.
pub(in crate::games) fn is_ongoing(game: &StoredGame) -> bool {
    Status::of(game) == Status::Ongoing
}

/// The game `game` is of, for a summary that must not fail (a replay reads
/// the name strictly).
pub(in crate::games) fn variant_of(game: &StoredGame) -> Variant {
    game.variant.parse().unwrap_or(Variant::Chess)
}
