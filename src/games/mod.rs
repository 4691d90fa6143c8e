//! Game management, in two floors.
//!
//! - [`model`]: the game as the services judge it: ids, seats, clocks,
//!   endings, views, the event vocabulary, PGN, and the rules of play as
//!   functions of the stored game. Nothing in it runs a task or reads the
//!   store.
//! - The services above it, one file a job, each an `impl Games` block:
//!   creating (`create`), reading and watching (`read`), a seat's moves and
//!   actions (`actions`), takebacks, open seats, rematches, engine seats,
//!   imports, player streams, saved positions (`positions`), game reviews
//!   (`review`: the engine's analysis of every move, kept), the operator's
//!   credential; the machinery they share: the live games and their change
//!   lock (`live`, `change_lock`, `screen`), flag timers (`flag`), ownership
//!   of games among replicas (`ownership`), and the event feed (`hub`,
//!   `telling`, `retelling`, `replay`).
//!
//! Between the API (which only translates) and the store (which only
//! persists); the rules are asked through [`crate::rules::referee`].

mod actions;
mod bells;
mod change_lock;
mod chat;
mod collection;
mod create;
mod earlier_games;
mod engine_seat;
mod flag;
mod hub;
mod import;
mod live;
pub mod model;
mod open_seat;
mod ownership;
mod player;
mod plies;
pub mod positions;
mod presence;
mod read;
mod rematch;
mod replay;
mod retelling;
mod review;
mod screen;
mod takeback;
mod telling;

use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
};

pub use bells::Bells;
pub use chat::{CHAT_READ, DEFAULT_CHAT_LINES, MAX_CHAT_LINE};
pub use collection::{CollectionGame, Imported, MAX_GAME_BYTES as MAX_COLLECTION_GAME_BYTES};
pub use create::Terms;
pub use hub::{FellBehind, MAX_BACKLOG, Role, Watcher, Watching};
pub use live::{DEFAULT_LIVE_GAMES, DEFAULT_LIVE_GAMES_MEMORY};
pub use model::collection::{CollectedGame, PgnSplitter};
pub use model::{
    AdminToken, EncodeEvent, Ending, EngineSeat, EventKind, FIRST_MOVE_GRACE, GameClock, GameError,
    GameEvent, GameId, GameView, ManualTime, MoveText, MoveView, OutcomeView, PgnLimits,
    PgnNotation, PgnOptions, Published, Refusal, SeatClaim, SeatSpec, Status, SystemTime,
    TimeControl, TimeSource, View, is_well_formed_id, new_id, position_key,
};
pub use open_seat::{DEFAULT_OPEN_SEAT_TIMEOUT, SeatedGame};
pub use ownership::LeaseTimes;
pub use player::FollowedSeat;
pub use presence::{Absence, Attendance, DEFAULT_CLAIM_VICTORY_AFTER};
pub use read::PlayerPages;
pub use rematch::RematchAnswer;
pub use replay::{MAX_RETOLD, Replay, Replayed};
pub use review::{
    DEFAULT_REVIEW_DEPTH, JudgementCounts, MAX_POSITION_TIME, MAX_REVIEW_TIME, MIN_POSITION_TIME,
    MoveReview, ReviewError, ReviewEvent, ReviewSearch, ReviewSource, Reviews,
};

use crate::{
    analysis::Analyst,
    rules::{Side, chess::Chess960Start},
    store::{Fence, Store},
};

/// Where a new game starts.
#[derive(Clone, Debug)]
pub enum Start {
    /// The variant's start: chess's and xiangqi's one, a Chess960 start
    /// drawn at random.
    Standard,
    Fen(String),
    SavedPosition(String),
    /// A Chess960 start by its number.
    Chess960(Chess960Start),
}

/// A new game and the seat tokens (shown once).
#[derive(Clone, Debug)]
pub struct CreatedGame {
    pub game: GameView,
    pub white_token: String,
    pub black_token: String,
    /// The code a player takes the open seat with (empty: none is open).
    pub join_code: String,
}

/// The games service.
#[derive(Clone, Debug)]
pub struct Games {
    store: Store,
    hub: Arc<hub::Hub>,
    analyst: Analyst,
    /// Games whose engine seat is thinking or about to.
    thinking: Arc<Mutex<HashSet<String>>>,
    /// The time clocks are run on.
    time: Arc<dyn TimeSource>,
    /// The flag timers of the timed games.
    timers: Arc<flag::Timers>,
    /// The operator credential, which aborts any game.
    admin: Option<AdminToken>,
    /// How much of a PGN text an import reads.
    import_limits: PgnLimits,
    /// Other servers write games too (the store has a change feed).
    shared_store: bool,
    /// The games in play, as their changes need them.
    live: Arc<live::LiveGames>,
    /// The games whose timers and engine seats this server runs.
    ownership: Arc<ownership::Ownership>,
    /// How long an open seat waits for a player before its game expires.
    open_seat_timeout: std::time::Duration,
    /// Players' event streams wait on these.
    bells: Arc<Bells>,
    /// Readers of a game's chat wait on these.
    chat_bells: Arc<Bells>,
    /// Lines a game's chat keeps.
    chat_lines: u32,
    /// Streams of a game's players wait on these for the seats' presence.
    presence_bells: Arc<Bells>,
    /// How long after the opponent left a player may claim the game.
    claim_victory_after: std::time::Duration,
}

/// Who makes a move: a seat's holder (by token or as its player) or the
/// engine in its seat.
#[derive(Clone, Copy, Debug)]
enum Mover<'a> {
    Seat(SeatClaim<'a>),
    /// With the lease it holds the game by, on a shared store.
    Engine(Side, Option<&'a Fence>),
}

impl Games {
    /// The games service; engine seats search through `analyst`, clocks
    /// run on `time`, watchers are served as `watching` says.
    pub fn new(
        store: Store,
        analyst: Analyst,
        time: Arc<dyn TimeSource>,
        watching: Watching,
    ) -> Games {
        let limits = [DEFAULT_LIVE_GAMES, DEFAULT_LIVE_GAMES_MEMORY];
        Games::with_live_games(store, analyst, time, watching, limits)
    }

    /// The service keeping games in play in memory (see `games::live`):
    /// `[count, bytes]`, at most that many games and bytes of them.
    pub fn with_live_games(
        store: Store,
        analyst: Analyst,
        time: Arc<dyn TimeSource>,
        watching: Watching,
        [live_games, live_games_memory]: [usize; 2],
    ) -> Games {
        let hub = Arc::new(hub::Hub::new(watching));
        let live = Arc::new(live::LiveGames::new(live_games, live_games_memory));
        let changes = store.changes();
        let shared_store = changes.is_some();
        let games = Games {
            store,
            hub,
            analyst,
            thinking: Arc::default(),
            time,
            timers: Arc::default(),
            admin: None,
            import_limits: PgnLimits::DEFAULT,
            shared_store,
            live,
            ownership: Arc::new(ownership::Ownership::new(shared_store)),
            open_seat_timeout: DEFAULT_OPEN_SEAT_TIMEOUT,
            bells: Arc::default(),
            chat_bells: Arc::default(),
            chat_lines: chat::DEFAULT_CHAT_LINES,
            presence_bells: Arc::default(),
            claim_victory_after: presence::DEFAULT_CLAIM_VICTORY_AFTER,
        };
        if let Some(changes) = changes {
            tokio::spawn(telling::follow(games.clone(), changes));
        }
        tokio::spawn(open_seat::sweep(games.clone()));
        tokio::spawn(earlier_games::index_earlier_games(games.clone()));
        games
    }

    /// This server's name among the servers sharing the store.
    pub fn server_name(&self) -> &str {
        self.ownership.server_name()
    }

    /// Whether this server runs what one server alone runs (see
    /// `ownership`).
    pub fn leads(&self) -> bool {
        self.ownership.leads()
    }

    /// The bells players' event streams wait on.
    pub fn bells(&self) -> &Bells {
        &self.bells
    }

    /// Rings the bells of the players `game`'s seats are bound to.
    fn ring_players(&self, game: &crate::store::StoredGame) {
        for player in [&game.white_player, &game.black_player]
            .into_iter()
            .flatten()
        {
            self.bells.ring(player);
        }
    }

    /// The service whose open seats wait `timeout` for a player.
    #[must_use]
    pub fn with_open_seat_timeout(self, open_seat_timeout: std::time::Duration) -> Games {
        Games {
            open_seat_timeout,
            ..self
        }
    }

    /// The service with the operator credential `admin` (aborts any game).
    #[must_use]
    pub fn with_admin_token(self, admin: Option<AdminToken>) -> Games {
        Games { admin, ..self }
    }

    /// The service reading at most `import_limits` of a PGN to import.
    #[must_use]
    pub fn with_import_limits(self, import_limits: PgnLimits) -> Games {
        Games {
            import_limits,
            ..self
        }
    }
}
