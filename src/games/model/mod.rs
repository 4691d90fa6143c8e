//! The game as the services judge it: typed pieces of the stored game
//! (ids, seats, clocks, endings, views), the event vocabulary, PGN, and the
//! rules of play (`play`) as functions of the stored game. No task, no
//! store call: everything here is decided from what it is given.

mod admin;
mod claim;
mod clock;
pub mod collection;
mod ending;
mod error;
mod events;
pub(in crate::games) mod ids;
mod move_text;
mod names;
pub mod pgn;
mod play;
mod rating;
mod reached;
mod seats;
pub(in crate::games) mod takeover;
mod view;

pub use crate::rules::Status;
pub use admin::AdminToken;
pub(crate) use admin::is_admin;
pub use claim::SeatClaim;
pub(in crate::games) use claim::seat;
pub(in crate::games) use clock::Expiry;
pub use clock::{FIRST_MOVE_GRACE, GameClock, ManualTime, SystemTime, TimeControl, TimeSource};
pub use ending::Ending;
pub use error::{GameError, Refusal};
pub use events::{EncodeEvent, EventKind, GameEvent, Published};
pub use ids::{GameId, is_well_formed_id, new_id};
pub(crate) use ids::{hash_token, new_token};
pub use move_text::MoveText;
pub(crate) use names::{hidden_character, refuse_hidden_characters};
pub use pgn::{PgnLimits, PgnNotation, PgnOptions};
pub(in crate::games) use play::{
    abort, end_aborted, ensure_ongoing, ensure_ply, ensure_seated, ensure_turn, finish, new_game,
    offered_by_opponent, play, replay, rule_choices, seat_name, side_title, turn_after,
};
pub(in crate::games) use rating::rated_end;
pub use rating::{
    IDLE_GROWTH_PER_MS, INITIAL as INITIAL_RATING, PROVISIONAL_DEVIATION, Speed, perf, rate,
};
pub use reached::{INDEXED_PLIES, position_key, position_keys};
pub(in crate::games) use seats::engine_of;
pub use seats::{EngineSeat, SeatSpec};
pub use view::{GameView, MoveView, OutcomeView, Rated, View, opening_of};
pub(in crate::games) use view::{move_view, move_views, view_of};
pub(in crate::games) use view::{stored_opening, stored_opening_of};
