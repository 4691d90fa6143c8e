//! The stored shapes of games: the rows as the store reads and writes them,
//! and how a row of `games` reads back.

use std::str::FromStr;

use sqlx::{Row, any::AnyRow};

use crate::rules::{Side, Status, Variant};

/// A seat left open at creation, until a player takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenSeat {
    pub side: Side,
    /// The code JoinGame takes the seat with (unique).
    pub join_code: String,
    /// When the game expires if nobody has taken the seat (unix
    /// milliseconds).
    pub until: i64,
}

/// A finished game's rematch, offered or created.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredRematch {
    /// The rematch's id, once created.
    pub id: Option<String>,
    /// The side offering one (`None`: no offer stands).
    pub offer: Option<Side>,
    /// The hash of the offerer's token in the rematch to come.
    pub token_hash: Option<String>,
}

/// A game's clock columns (see `migrations/0004_clocks.sql`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredClock {
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub delay_ms: i64,
    /// `Some` for a correspondence game (0 = no limit).
    pub days_per_move: Option<i64>,
    /// Time for each side's first move (`None`: the default).
    pub grace_ms: Option<i64>,
    pub white_ms: i64,
    pub black_ms: i64,
    pub turn_started_at: i64,
    /// The ply at which an engine seat waits for a search slot (see
    /// `migrations/sqlite/0008_engine_seat_waits.sql`).
    pub engine_waiting_ply: Option<i64>,
    /// When the side to move runs out of time, as of this state (`None`:
    /// nothing can run out); the owner of the game's lease arms its timer
    /// from it after another server's change.
    pub flag_at: Option<i64>,
    /// A seat is open: no clock runs until it is taken (not a column of its
    /// own: the game's open seat says).
    pub held: bool,
}

/// A seat played by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredEngine {
    /// 1-10.
    pub level: i64,
    pub movetime_ms: i64,
}

/// A stored move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMove {
    pub ply: i64,
    /// Coordinate notation (chess UCI, xiangqi ICCS).
    pub uci: String,
    pub fen_after: String,
    pub played_at: i64,
}

/// A stored game with its moves; also a game to create, whose `seq`,
/// version, times, join code, offers and rematch the store sets (validated
/// by the caller; tokens already hashed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredGame {
    pub seq: i64,
    pub id: String,
    pub variant: Variant,
    pub start_fen: String,
    pub white_name: String,
    pub black_name: String,
    pub white_token_hash: String,
    pub black_token_hash: String,
    pub white_engine: Option<StoredEngine>,
    pub black_engine: Option<StoredEngine>,
    /// An imported game may be created ended, with `winner` and
    /// `termination`.
    pub status: Status,
    pub winner: Option<Side>,
    pub termination: Option<String>,
    /// The side with a pending draw offer.
    pub draw_offer: Option<Side>,
    /// The side with a pending takeback proposal.
    pub takeback_offer: Option<Side>,
    /// Does an engine seat grant the human's takebacks?
    pub engine_grants_takebacks: bool,
    /// The clock, for a timed game.
    pub clock: Option<StoredClock>,
    /// When the engine seat to move should have moved by (`None`: a human
    /// is to move); the owner of the game's lease wakes its engine from it
    /// after another server's change.
    pub engine_due_at: Option<i64>,
    /// A xiangqi game's repetition rules, by name (`None` for chess).
    pub xiangqi_rules: Option<String>,
    /// The seat still open, if one is. Its join code stays with the game
    /// (`join_code`) once taken, so that a late joiner hears it is.
    pub open: Option<OpenSeat>,
    pub join_code: Option<String>,
    /// The game this one is the rematch of.
    pub rematch_of: Option<String>,
    /// This game's rematch, offered or created.
    pub rematch: StoredRematch,
    /// The players the seats are bound to (their ids), if any.
    pub white_player: Option<String>,
    pub black_player: Option<String>,
    /// A rated game changes its players' ratings when it ends.
    pub rated: bool,
    /// Each player's rating before a rated game, and its change, once the
    /// game has ended rated.
    pub white_rating: Option<i64>,
    pub black_rating: Option<i64>,
    pub white_rating_diff: Option<i64>,
    pub black_rating_diff: Option<i64>,
    /// Bumped by every change; orders the game's events.
    pub version: i64,
    pub created_at: i64,
    pub updated_at: i64,
    /// Moves played (an imported game is created with its own).
    pub moves: Vec<StoredMove>,
    /// Moves a change took back (popped from `moves`, last first); written
    /// to the takeback's history, never read back.
    pub undone: Vec<StoredMove>,
}

/// A game's row without its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameHead {
    /// The game, with `moves` left empty.
    pub game: StoredGame,
    /// Moves played.
    pub ply: usize,
}

/// Which games to list.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// `Some(false)`: ongoing only; `Some(true)`: finished only.
    pub finished: Option<bool>,
    pub variant: Option<Variant>,
    /// Only games with a player whose name contains this (case-insensitive,
    /// in Unicode).
    pub player: Option<String>,
    /// Only games with a seat bound to this player (by id).
    pub player_id: Option<String>,
    /// Only games that ended this way (stored termination code).
    pub termination: Option<String>,
    /// Only games created at or after this (unix milliseconds).
    pub created_from: Option<i64>,
    /// Only games created before this (unix milliseconds).
    pub created_until: Option<i64>,
    /// Only games past this cursor (older, or newer oldest first).
    pub cursor: Option<i64>,
    /// Oldest first (else newest first).
    pub oldest_first: bool,
    /// Only games that ended with this winner (`Some(None)`: drawn).
    pub result: Option<Option<Side>>,
    /// Only rated (`true`) or casual (`false`) games.
    pub rated: Option<bool>,
    /// Only games named by an opening this selects.
    pub opening: Option<OpeningFilter>,
    /// Only games that reached the position of this key.
    pub position: Option<i64>,
    pub limit: u32,
}

/// Which openings a [`GameFilter`] selects: those whose `level` is `value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningFilter {
    pub level: OpeningLevel,
    pub value: String,
}

/// A level of the openings' classification, each searched by equality
/// through its own index in game order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningLevel {
    /// ECO volume: `B`.
    Volume,
    /// ECO group: `B5`.
    Group,
    /// ECO code: `B50`.
    Eco,
    /// The name before `:`, in lower case: `sicilian defense`.
    Family,
    /// The name before `,`, in lower case: `sicilian defense: najdorf
    /// variation`.
    Variation,
    /// The whole name, in lower case.
    Name,
}

impl OpeningLevel {
    /// The column of `game_openings` that holds it.
    pub(super) fn column(self) -> &'static str {
        match self {
            OpeningLevel::Volume => "eco_volume",
            OpeningLevel::Group => "eco_group",
            OpeningLevel::Eco => "eco",
            OpeningLevel::Family => "family",
            OpeningLevel::Variation => "variation",
            OpeningLevel::Name => "name",
        }
    }
}

/// An imported game's Event, Site, Date and Round, as its PGN gave them
/// (`None`: missing or unknown).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredRoster {
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub round: Option<String>,
}

/// The opening a game is named by, as stored: its ECO code and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredOpening {
    pub eco: String,
    pub name: String,
}

/// A change a game's judge makes: the value to hand back and the event to
/// record in the game's history.
#[derive(Clone, Debug)]
pub struct Update<T> {
    pub value: T,
    /// Event kind, e.g. `move`, `draw_offered`, `resigned`.
    pub event: &'static str,
    /// The side that caused it.
    pub side: Option<Side>,
}

/// The game asked for (by this id) does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameNotFound(pub String);

pub(super) const GAME_COLUMNS: &str = "seq, id, variant, start_fen, white_name, black_name, white_token_hash, \
     black_token_hash, status, winner, termination, draw_offer, version, created_at, updated_at, \
     white_engine_level, white_engine_movetime_ms, black_engine_level, black_engine_movetime_ms, \
     takeback_offer, engine_grants_takebacks, clock_initial_ms, clock_increment_ms, clock_delay_ms, \
     clock_days_per_move, clock_white_ms, clock_black_ms, clock_turn_started_at, clock_grace_ms, \
     clock_engine_waiting_ply, clock_flag_at, engine_due_at, xiangqi_rules, join_code, open_seat, \
     open_until, rematch_of, rematch, rematch_offer, rematch_token_hash, white_player, \
     black_player, rated, white_rating, black_rating, white_rating_diff, black_rating_diff";

/// The game of a row of `games`; a column whose value names nothing (a
/// status, side or variant no build wrote) fails the read.
pub(super) fn game_from_row(row: &AnyRow) -> Result<StoredGame, sqlx::Error> {
    let open = open_from_row(row, 33)?;
    let mut clock = clock_from_row(row, 21);
    if let Some(clock) = &mut clock {
        clock.held = open.is_some();
    }
    Ok(StoredGame {
        seq: row.get(0),
        id: row.get(1),
        variant: decoded(row, 2)?,
        start_fen: row.get(3),
        white_name: row.get(4),
        black_name: row.get(5),
        white_token_hash: row.get(6),
        black_token_hash: row.get(7),
        status: decoded(row, 8)?,
        winner: decoded_option(row, 9)?,
        termination: row.get(10),
        draw_offer: decoded_option(row, 11)?,
        version: row.get(12),
        created_at: row.get(13),
        updated_at: row.get(14),
        white_engine: engine_from_row(row, 15),
        black_engine: engine_from_row(row, 17),
        takeback_offer: decoded_option(row, 19)?,
        engine_grants_takebacks: row.get::<i64, _>(20) != 0,
        clock,
        engine_due_at: row.get(31),
        xiangqi_rules: row.get(32),
        join_code: row.get(33),
        open,
        rematch_of: row.get(36),
        rematch: StoredRematch {
            id: row.get(37),
            offer: decoded_option(row, 38)?,
            token_hash: row.get(39),
        },
        white_player: row.get(40),
        black_player: row.get(41),
        rated: row.get::<i64, _>(42) != 0,
        white_rating: row.get(43),
        black_rating: row.get(44),
        white_rating_diff: row.get(45),
        black_rating_diff: row.get(46),
        moves: Vec::new(),
        undone: Vec::new(),
    })
}

/// A time control's columns (`clock_initial_ms`, `clock_increment_ms`,
/// `clock_delay_ms`, `clock_grace_ms`, `clock_days_per_move`, from column
/// `first` on) as a clock whose times are left unused.
pub(super) fn time_control_columns(row: &AnyRow, first: usize) -> StoredClock {
    StoredClock {
        initial_ms: row.get::<Option<i64>, _>(first).unwrap_or(0),
        increment_ms: row.get::<Option<i64>, _>(first + 1).unwrap_or(0),
        delay_ms: row.get::<Option<i64>, _>(first + 2).unwrap_or(0),
        grace_ms: row.get(first + 3),
        days_per_move: row.get(first + 4),
        white_ms: 0,
        black_ms: 0,
        turn_started_at: 0,
        engine_waiting_ply: None,
        flag_at: None,
        held: false,
    }
}

/// The value named in text column `column`.
pub(super) fn decoded<T>(row: &AnyRow, column: usize) -> Result<T, sqlx::Error>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    row.get::<String, _>(column)
        .parse()
        .map_err(|e: T::Err| sqlx::Error::ColumnDecode {
            index: column.to_string(),
            source: Box::new(e),
        })
}

/// The value named in nullable text column `column`.
pub(super) fn decoded_option<T>(row: &AnyRow, column: usize) -> Result<Option<T>, sqlx::Error>
where
    T: FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match row.get::<Option<String>, _>(column) {
        None => Ok(None),
        Some(_) => decoded(row, column).map(Some),
    }
}

fn clock_from_row(row: &AnyRow, column: usize) -> Option<StoredClock> {
    let get = |i: usize| row.get::<Option<i64>, _>(column + i);
    Some(StoredClock {
        initial_ms: get(0).unwrap_or(0),
        increment_ms: get(1).unwrap_or(0),
        delay_ms: get(2).unwrap_or(0),
        days_per_move: get(3),
        grace_ms: get(7),
        engine_waiting_ply: get(8),
        flag_at: get(9),
        white_ms: get(4)?,
        black_ms: get(5)?,
        turn_started_at: get(6)?,
        held: false,
    })
}

/// The open seat of a game's row: its join code at `column`, then the
/// side and the expiry.
fn open_from_row(row: &AnyRow, column: usize) -> Result<Option<OpenSeat>, sqlx::Error> {
    let join_code = row.get::<Option<String>, _>(column);
    let side = decoded_option(row, column + 1)?;
    let until = row.get::<Option<i64>, _>(column + 2);
    Ok(join_code
        .zip(side)
        .zip(until)
        .map(|((join_code, side), until)| OpenSeat {
            side,
            join_code,
            until,
        }))
}

fn engine_from_row(row: &AnyRow, column: usize) -> Option<StoredEngine> {
    let level: Option<i64> = row.get(column);
    let movetime_ms: Option<i64> = row.get(column + 1);
    Some(StoredEngine {
        level: level?,
        movetime_ms: movetime_ms?,
    })
}
