//! Game rules: pure, synchronous, no I/O.
//!
//! Every game implements [`Game`]. Code above this layer (the search engine,
//! the store, the API) is generic over `Game`, and picks the concrete game in
//! exactly one place with [`with_game!`](crate::with_game).

pub mod chess;
mod choices;
pub mod fen_fields;
mod game;
mod illegal;
mod move_text;
mod named;
pub(crate) use named::named;
mod outcome;
pub mod perft;
pub mod placement;
mod quoted;
mod ranks;
mod record;
pub mod referee;
mod side;
mod status;
mod variant;
pub mod xiangqi;

pub use chess::variants;
pub use choices::RuleChoices;
pub use game::{FenProblem, Game, InvalidFen, MoveDescription, MoveError};
pub use illegal::{IllegalMove, IllegalReason};
pub use move_text::MoveText;
pub use outcome::{Chase, DrawClaim, GameEnd, Termination, Verdict};
pub use quoted::{Clipped, Quoted};
pub use ranks::Ranks;
pub use record::{Packed, Record, ReplayError};
pub use side::{ParseSideError, Side};
pub use status::{ParseStatusError, Status};
pub use variant::{ParseVariantError, Variant};
