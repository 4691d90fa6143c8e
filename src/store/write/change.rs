//! A game change as the committer takes it, and what writing it came to.

use crate::{
    rules::{Side, Status},
    store::{Fence, RatedEnd, StoredGame, StoredOpening},
};

/// A game change to write: the game as changed, what it was judged on, the
/// event to record, and what else the write needs.
#[derive(Clone, Debug)]
pub struct GameWrite {
    /// The game after the change (its version and time are set on writing).
    pub game: StoredGame,
    /// The stored state the change was judged on.
    pub base: Base,
    /// Event kind, e.g. `move`, `draw_offered`, `resigned`.
    pub event: &'static str,
    /// The side that caused it.
    pub side: Option<Side>,
    /// Written only while this lease is held (an engine seat's move, by
    /// the game's owner), checked in the same transaction.
    pub fence: Option<Fence>,
    /// A game created with the change, both or neither (a rematch).
    pub creates: Option<StoredGame>,
    /// The ratings the change applies, ending a rated game.
    pub rating: Option<RatedEnd>,
    /// The opening the change names, ending a chess game.
    pub opening: Option<StoredOpening>,
    /// The keys of the positions the game reached, ending it (see
    /// `games::model::reached`); empty otherwise.
    pub positions: Vec<i64>,
}

/// The stored state a change was judged on: the write goes through only if
/// the game is still there. Besides the version, the two clock columns an
/// engine seat's wait for a search slot sets without a new version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    pub version: i64,
    /// Moves stored.
    pub moves: usize,
    pub turn_started_at: Option<i64>,
    pub engine_waiting_ply: Option<i64>,
    /// White's and Black's names as stored (the name search follows them).
    pub names: (String, String),
    /// The players White's and Black's seats are bound to, as stored.
    pub players: (Option<String>, Option<String>),
    /// The game was being played (a change that finishes it ends it).
    pub ongoing: bool,
}

impl GameWrite {
    /// Whether the change renames a seat or binds it to a player (a seat
    /// taken): names the search indexes, players whose games these are.
    pub(in crate::store) fn renames(&self) -> bool {
        let (white, black) = &self.base.names;
        (white, black) != (&self.game.white_name, &self.game.black_name) || !self.bound().is_empty()
    }

    /// The players the change binds a seat to.
    pub(in crate::store) fn bound(&self) -> Vec<&str> {
        let was = &self.base.players;
        [
            (&was.0, &self.game.white_player),
            (&was.1, &self.game.black_player),
        ]
        .into_iter()
        .filter(|(was, now)| was.is_none() && now.is_some())
        .filter_map(|(_, now)| now.as_deref())
        .collect()
    }

    /// Whether the change ends its game.
    pub(in crate::store) fn ends(&self) -> bool {
        self.base.ongoing && self.game.status != Status::Ongoing
    }
}

impl Base {
    /// What `game`, as stored, is.
    pub fn of(game: &StoredGame) -> Base {
        Base {
            version: game.version,
            moves: game.moves.len(),
            turn_started_at: game.clock.map(|c| c.turn_started_at),
            engine_waiting_ply: game.clock.and_then(|c| c.engine_waiting_ply),
            names: (game.white_name.clone(), game.black_name.clone()),
            players: (game.white_player.clone(), game.black_player.clone()),
            ongoing: game.status == Status::Ongoing,
        }
    }
}

/// How a change was written.
#[derive(Debug)]
pub enum Written {
    /// Committed: the game as stored now (its new version), and the game
    /// created with it.
    Committed {
        game: StoredGame,
        created: Option<Box<StoredGame>>,
    },
    /// The game changed after the change was judged: nothing was written;
    /// judge it again on the stored game.
    Stale(StoredGame),
}

/// What one change of a batch came to.
pub(in crate::store) enum Applied {
    Written {
        created: Option<Box<StoredGame>>,
    },
    /// The game is not as the change's base says.
    Stale,
    /// The change's fence names a lease no longer held.
    LeaseLost {
        shard: i64,
    },
}
