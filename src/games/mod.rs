//! Game management: seats and their tokens, turns, draw offers, resignation,
//! aborts, and the live event feed. Between the API (which only translates)
//! and the store (which only persists); the rules are asked through
//! [`crate::rules::referee`].

mod admin;
mod change_lock;
mod clock;
mod ending;
mod engine_seat;
mod error;
mod flag;
mod hub;
mod ids;
mod import;
mod live;
mod names;
mod open_seat;
mod ownership;
mod pgn;
mod player;
pub mod positions;
mod rematch;
mod replay;
mod retelling;
mod screen;
mod takeback;
mod takeover;
mod telling;
mod view;

use std::{
    collections::HashSet,
    sync::{Arc, Mutex},
};

pub use admin::AdminToken;
pub(crate) use admin::is_admin;
pub use clock::{FIRST_MOVE_GRACE, GameClock, ManualTime, SystemTime, TimeControl, TimeSource};
pub use ending::Ending;
pub use engine_seat::{EngineSeat, SeatSpec};
pub use error::{GameError, Refusal};
pub use hub::{
    EncodeEvent, EventKind, FellBehind, GameEvent, MAX_BACKLOG, Published, Role, Watcher, Watching,
};
pub(crate) use ids::{hash_token, new_token};
pub use ids::{is_well_formed_id, new_id};
pub use live::DEFAULT_LIVE_GAMES;
pub(crate) use names::refuse_hidden_characters;
pub use open_seat::{DEFAULT_OPEN_SEAT_TIMEOUT, SeatedGame};
pub use ownership::LeaseTimes;
pub use pgn::{PgnLimits, PgnNotation};
pub use player::FollowedSeat;
pub use rematch::RematchAnswer;
pub use replay::{MAX_RETOLD, Replay, Replayed};
use screen::Needs;
pub use view::{GameView, MoveView, OutcomeView, Status, View};

use crate::{
    analysis::Analyst,
    reason::Reason,
    rules::{
        DrawClaim, MoveError, Quoted, RuleChoices, Side, Variant,
        referee::{Referee, referee_under},
        xiangqi::XiangqiRules,
    },
    store::{Fence, GameFilter, NewGame, Page, Store, StoredGame, StoredMove, Update},
};

/// Where a new game starts.
#[derive(Clone, Debug)]
pub enum Start {
    Standard,
    Fen(String),
    SavedPosition(String),
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
}

/// Who makes a move: a seat's holder (by token) or the engine in its seat.
#[derive(Clone, Copy, Debug)]
enum Mover<'a> {
    Token(&'a str),
    /// With the lease it holds the game by, on a shared store.
    Engine(Side, Option<&'a Fence>),
}

const MAX_NAME: usize = 100;

impl Games {
    /// The games service; engine seats search through `analyst`, clocks
    /// run on `time`, watchers are served as `watching` says.
    pub fn new(
        store: Store,
        analyst: Analyst,
        time: Arc<dyn TimeSource>,
        watching: Watching,
    ) -> Games {
        Games::with_live_games(store, analyst, time, watching, DEFAULT_LIVE_GAMES)
    }

    /// The service keeping at most `live_games` games in play in memory
    /// (see `games::live`).
    pub fn with_live_games(
        store: Store,
        analyst: Analyst,
        time: Arc<dyn TimeSource>,
        watching: Watching,
        live_games: usize,
    ) -> Games {
        let hub = Arc::new(hub::Hub::new(watching));
        let live = Arc::new(live::LiveGames::new(live_games));
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
        };
        if let Some(changes) = changes {
            tokio::spawn(telling::follow(games.clone(), changes));
        }
        tokio::spawn(open_seat::sweep(games.clone()));
        games
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

    /// Starts a game under the default rules.
    ///
    /// # Errors
    ///
    /// Bad names, an invalid FEN, an unknown saved position, or storage.
    pub async fn create(
        &self,
        variant: Variant,
        start: Start,
        white: SeatSpec,
        black: SeatSpec,
        engine_grants_takebacks: bool,
        time_control: Option<TimeControl>,
    ) -> Result<CreatedGame, GameError> {
        let choices = RuleChoices::default();
        self.create_under(
            variant,
            choices,
            start,
            white,
            black,
            engine_grants_takebacks,
            time_control,
        )
        .await
    }

    /// Starts a game, played under the rule `choices`.
    ///
    /// # Errors
    ///
    /// Bad names, an invalid FEN, an unknown saved position, or storage.
    #[allow(clippy::too_many_arguments)]
    pub async fn create_under(
        &self,
        variant: Variant,
        choices: RuleChoices,
        start: Start,
        white: SeatSpec,
        black: SeatSpec,
        engine_grants_takebacks: bool,
        time_control: Option<TimeControl>,
    ) -> Result<CreatedGame, GameError> {
        let open = open_seat::open_side(&white, &black)?;
        let white_name = seat_name("white.display_name", &white, variant, Side::White)?;
        let black_name = seat_name("black.display_name", &black, variant, Side::Black)?;
        let (field, fen) = match start {
            Start::Standard => ("fen", None),
            Start::Fen(fen) => ("fen", Some(fen)),
            Start::SavedPosition(id) => {
                let saved = if is_well_formed_id(&id) {
                    self.store.position(&id).await?
                } else {
                    None
                }
                .ok_or_else(|| GameError::position_not_found(&id))?;
                if saved.variant != variant.name() {
                    return Err(GameError::invalid(
                        "position_id",
                        Reason::VariantMismatch,
                        format!(
                            "position {} is a {} position, not {variant}",
                            Quoted(&id),
                            saved.variant
                        ),
                    ));
                }
                ("position_id", Some(saved.fen))
            }
        };
        let record = referee_under::<&str>(variant, choices, fen.as_deref(), &[])
            .map_err(|error| GameError::InvalidPosition { field, error })?;
        if let Some(end) = record.verdict().end {
            return Err(GameError::precondition(
                Reason::StartPositionDecided,
                format!(
                    "the start position is already decided: {}",
                    end.describe(variant)
                ),
            ));
        }
        let (new, [white_token, black_token]) =
            new_game(variant, choices, record.as_ref(), white_name, black_name);
        let now = self.time.now();
        let open = open.map(|side| self.open_seat(side, now));
        let mut clock = time_control.map(|tc| {
            let mut clock = tc.start(now).stored();
            clock.held = open.is_some();
            clock
        });
        takeover::stamp_flag(&new.start_fen, 0, &mut clock);
        let engines = [white.engine, black.engine].map(|seat| seat.map(EngineSeat::stored));
        let join_code = open.as_ref().map(|o| o.join_code.clone());
        let stored = self
            .store
            .insert_game(NewGame {
                white_engine: engines[0],
                black_engine: engines[1],
                engine_grants_takebacks,
                clock,
                engine_due_at: takeover::engine_due_at(&new.start_fen, 0, engines, now),
                open,
                ..new
            })
            .await?;
        let id = stored.id.clone();
        let game = self.live.keep(stored, record);
        self.arm_clock(&game);
        if white.engine.is_some() || black.engine.is_some() {
            self.wake_engine(&id);
        }
        // An engine's seat token is never handed out: nobody moves for it;
        // nor an open seat's: the joiner gets a token of its own.
        let shown = |token: String, seat: &SeatSpec| {
            if seat.engine.is_some() || seat.open {
                String::new()
            } else {
                token
            }
        };
        Ok(CreatedGame {
            game,
            white_token: shown(white_token, &white),
            black_token: shown(black_token, &black),
            join_code: join_code.unwrap_or_default(),
        })
    }

    /// A game.
    ///
    /// # Errors
    ///
    /// Unknown id, or storage.
    pub async fn get(&self, id: &str) -> Result<GameView, GameError> {
        let stored = self.load(id).await?;
        view_of(&stored)
    }

    async fn load(&self, id: &str) -> Result<StoredGame, GameError> {
        if !is_well_formed_id(id) {
            return Err(GameError::game_not_found(id));
        }
        self.store
            .game(id)
            .await?
            .ok_or_else(|| GameError::game_not_found(id))
    }

    /// The game as PGN.
    ///
    /// # Errors
    ///
    /// Unknown id, Chinese notation for chess, or storage.
    pub async fn export(&self, id: &str, notation: PgnNotation) -> Result<String, GameError> {
        pgn::write(&self.get(id).await?, notation)
    }

    /// Games, newest first, without moves.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn list(&self, filter: GameFilter) -> Result<Page<GameView>, GameError> {
        let page = self.store.games(filter).await?;
        Ok(Page {
            items: page.items.iter().map(GameView::summary).collect(),
            next: page.next,
        })
    }

    /// Plays a move for the seat holding `token`.
    ///
    /// # Errors
    ///
    /// See [`GameError`]: every rule of the service maps to one variant.
    pub async fn make_move(
        &self,
        id: &str,
        token: &str,
        text: &str,
        expected_ply: Option<u32>,
    ) -> Result<(GameView, MoveView), GameError> {
        let played = self
            .play_as(id, Mover::Token(token), text, expected_ply)
            .await?;
        if played.0.white_engine.is_some() || played.0.black_engine.is_some() {
            self.wake_engine(id);
        }
        Ok(played)
    }

    async fn play_as(
        &self,
        id: &str,
        mover: Mover<'_>,
        text: &str,
        expected_ply: Option<u32>,
    ) -> Result<(GameView, MoveView), GameError> {
        if let Mover::Token(token) = mover {
            self.screen(id, token, Needs::Move { expected_ply }).await?;
        }
        let now = self.time.now();
        let fence = match mover {
            Mover::Token(_) => None,
            Mover::Engine(_, fence) => fence,
        };
        let (view, expired) = self
            .change_fenced(id, fence, |game, record| {
                let side = match mover {
                    Mover::Token(token) => seat(game, token)?,
                    Mover::Engine(side, _) => side,
                };
                ensure_ongoing(game)?;
                ensure_seated(game)?;
                ensure_ply(expected_ply, game.moves.len())?;
                ensure_turn(record.variant(), record.turn(), side)?;
                if let Some(stored) = game.clock {
                    let mut clock = GameClock::from_stored(&stored);
                    if let Err(expiry) = clock.charge(side, game.moves.len(), now) {
                        // Too late: the move does not count, the flag does.
                        let event = flag::expire(game, record, expiry);
                        return Ok(Update {
                            value: Some(event),
                            event: event.name(),
                            side: None,
                        });
                    }
                    game.clock = Some(clock.stored());
                }
                play(game, record, text, now)?;
                if game.draw_offer.as_deref() == Some(side.other().name()) {
                    game.draw_offer = None; // moving declines the opponent's offer
                }
                // A move answers any takeback proposal: it no longer fits.
                game.takeback_offer = None;
                Ok::<_, GameError>(Update {
                    value: None,
                    event: EventKind::Move.name(),
                    side: Some(side.name().to_owned()),
                })
            })
            .await?;
        if let Some(event) = expired {
            self.tell(event, &view, None).await;
            self.arm_clock(&view);
            return Err(GameError::GameOver(format!(
                "the move came too late: {}",
                view.outcome.description
            )));
        }
        self.arm_clock(&view);
        let played = view.moves.last().cloned().expect("a move was just played");
        self.tell(EventKind::Move, &view, Some(played.clone()))
            .await;
        Ok((view, played))
    }

    /// Resigns for the seat holding `token`.
    ///
    /// # Errors
    ///
    /// See [`GameError`].
    pub async fn resign(&self, id: &str, token: &str) -> Result<GameView, GameError> {
        self.act(id, token, EventKind::Resigned, |game, side, _| {
            finish(game, Some(side.other()), Ending::Resignation);
            Ok(())
        })
        .await
    }

    /// Offers a draw to the opponent.
    ///
    /// # Errors
    ///
    /// See [`GameError`].
    pub async fn offer_draw(&self, id: &str, token: &str) -> Result<GameView, GameError> {
        self.act(id, token, EventKind::DrawOffered, |game, side, _| {
            match game.draw_offer.as_deref() {
                Some(s) if s == side.name() => {
                    return Err(GameError::precondition(
                        Reason::DrawAlreadyOffered,
                        "you already offered a draw; wait for the answer",
                    ));
                }
                // Offering while the opponent's offer stands is accepting it.
                Some(_) => finish(game, None, Ending::Agreement),
                None => game.draw_offer = Some(side.name().to_owned()),
            }
            Ok(())
        })
        .await
    }

    /// Accepts or declines the opponent's draw offer.
    ///
    /// # Errors
    ///
    /// See [`GameError`].
    pub async fn respond_to_draw(
        &self,
        id: &str,
        token: &str,
        accept: bool,
    ) -> Result<GameView, GameError> {
        let event = if accept {
            EventKind::DrawAccepted
        } else {
            EventKind::DrawDeclined
        };
        self.act(id, token, event, |game, side, _| {
            offered_by_opponent(game.draw_offer.as_deref(), side, "draw offer")?;
            game.draw_offer = None;
            if accept {
                finish(game, None, Ending::Agreement);
            }
            Ok(())
        })
        .await
    }

    /// Claims a draw (threefold repetition or fifty moves), optionally with
    /// the move that would produce it; the move is played if the claim holds.
    ///
    /// # Errors
    ///
    /// See [`GameError`]; an unfounded claim is `FailedPrecondition`.
    pub async fn claim_draw(
        &self,
        id: &str,
        token: &str,
        text: &str,
    ) -> Result<GameView, GameError> {
        let now = self.time.now();
        self.act(id, token, EventKind::DrawClaimed, |game, side, record| {
            ensure_turn(record.variant(), record.turn(), side)?;
            let mut trial = record.boxed_clone();
            let mut trial_game = game.clone();
            let with_move = !text.trim().is_empty();
            // A claim is made on the claimant's own time: once the flag has
            // fallen it comes too late (the flag timer ends the game), and a
            // claimed move is charged like any other.
            if let Some(stored) = game.clock {
                let mut clock = GameClock::from_stored(&stored);
                if clock.charge(side, game.moves.len(), now).is_err() {
                    return Err(GameError::GameOver(
                        "your time has run out: the claim came too late".to_owned(),
                    ));
                }
                if with_move {
                    trial_game.clock = Some(clock.stored());
                }
            }
            if with_move {
                play(&mut trial_game, trial.as_mut(), text, now)?;
            }
            let claim = trial.verdict().claimable.first().copied().ok_or_else(|| {
                GameError::precondition(
                    Reason::NoDrawToClaim,
                    "no draw can be claimed: the position has not occurred three times and \
                     fifty moves have not passed without capture or pawn move",
                )
            })?;
            *game = trial_game;
            let ending = match claim {
                DrawClaim::ThreefoldRepetition => {
                    Ending::Rules(crate::rules::Termination::ThreefoldRepetition)
                }
                DrawClaim::FiftyMoves => Ending::Rules(crate::rules::Termination::FiftyMoves),
            };
            finish(game, None, ending);
            Ok(())
        })
        .await
    }

    /// Aborts a game in which not both sides have moved; with the operator
    /// credential as `token`, any ongoing game.
    ///
    /// # Errors
    ///
    /// See [`GameError`].
    pub async fn abort(&self, id: &str, token: &str) -> Result<GameView, GameError> {
        if is_admin(self.admin.as_ref(), token) {
            return self.abort_as_operator(id).await;
        }
        self.act(id, token, EventKind::Aborted, |game, _, _| {
            if game.moves.len() >= 2 {
                return Err(GameError::precondition(
                    Reason::TooLateToAbort,
                    "both sides have moved: the game can no longer be aborted (resign or offer a draw)",
                ));
            }
            abort(game);
            Ok(())
        })
        .await
    }

    /// Aborts an ongoing game for the operator, recorded as such (no side
    /// in the game's history, `aborted_by_operator` as its termination).
    async fn abort_as_operator(&self, id: &str) -> Result<GameView, GameError> {
        let (view, ()) = self
            .change(id, |game, _| {
                ensure_ongoing(game)?;
                end_aborted(game, Ending::AbortedByOperator);
                Ok::<_, GameError>(Update {
                    value: (),
                    event: EventKind::Aborted.name(),
                    side: None,
                })
            })
            .await?;
        self.tell(EventKind::Aborted, &view, None).await;
        self.arm_clock(&view);
        Ok(view)
    }

    /// A snapshot of the game and the feed of what happens next, each
    /// event with the game in `view`. Nothing is kept for an unknown game.
    ///
    /// # Errors
    ///
    /// Unknown id, too many watchers of the game, or storage.
    pub async fn watch(
        &self,
        id: &str,
        view: View,
        role: Role,
    ) -> Result<(GameView, Watcher), GameError> {
        // Subscribe before reading, so nothing between the two is missed;
        // the watcher skips events not newer than the snapshot. On an
        // error the watcher is dropped, and with it the channel it opened.
        let mut watcher = self.hub.subscribe(id, view, role)?;
        let view = self.get(id).await?;
        watcher.seen(view.version);
        self.hear_others(id, view.version).await;
        Ok((view, watcher))
    }

    /// Games with watchers now (each has a channel in memory): for tests
    /// and monitoring.
    pub fn watched_games(&self) -> usize {
        self.hub.watched_games()
    }

    /// Games in play kept in memory now (for tests and monitoring).
    pub fn live_games(&self) -> usize {
        self.live.len()
    }

    /// Watchers of every game now (for monitoring).
    pub fn watchers(&self) -> usize {
        self.hub.watchers()
    }

    /// A seat action on an ongoing game; publishes the resulting event.
    async fn act(
        &self,
        id: &str,
        token: &str,
        event: EventKind,
        change: impl Fn(&mut StoredGame, Side, &dyn Referee) -> Result<(), GameError>,
    ) -> Result<GameView, GameError> {
        // Only an abort goes before the open seat is taken.
        let needs = if event == EventKind::Aborted {
            Needs::Seat
        } else {
            Needs::Opponent
        };
        self.screen(id, token, needs).await?;
        let (view, ()) = self
            .change(id, |game, record| {
                let side = seat(game, token)?;
                ensure_ongoing(game)?;
                if needs.opponent() {
                    ensure_seated(game)?;
                }
                change(game, side, record)?;
                Ok::<_, GameError>(Update {
                    value: (),
                    event: event.name(),
                    side: Some(side.name().to_owned()),
                })
            })
            .await?;
        self.tell(event, &view, None).await;
        // A takeback restarts the turn; an ending stops the clock.
        self.arm_clock(&view);
        Ok(view)
    }
}

/// The display name of `variant`'s `side` seat; left empty, an engine's
/// is "Arbiter (level N)", a human's the side's name in the game.
fn seat_name(
    field: &'static str,
    seat: &SeatSpec,
    variant: Variant,
    side: Side,
) -> Result<String, GameError> {
    refuse_hidden_characters(field, &seat.display_name)?;
    let name = seat.display_name.trim();
    if name.is_empty() {
        return Ok(match seat.engine {
            Some(engine) => engine.default_name(),
            None => side_title(variant, side).to_owned(),
        });
    }
    if name.chars().count() > MAX_NAME {
        return Err(GameError::invalid(
            field,
            Reason::TooLong,
            format!("a display name of at most {MAX_NAME} characters is allowed"),
        ));
    }
    Ok(name.to_owned())
}

/// What players of `variant` call `side`: "White" and "Black" in chess,
/// "Red" and "Black" in xiangqi.
fn side_title(variant: Variant, side: Side) -> &'static str {
    match (variant, side) {
        (Variant::Chess, Side::White) => "White",
        (Variant::Xiangqi, Side::White) => "Red",
        (_, Side::Black) => "Black",
    }
}

/// The side whose token this is.
fn seat(game: &StoredGame, token: &str) -> Result<Side, GameError> {
    if token.is_empty() {
        return Err(GameError::Unauthenticated(Refusal::new(
            Reason::SeatTokenMissing,
            "seat_token is required: use the token CreateGame returned for your seat",
        )));
    }
    let hash = ids::hash_token(token);
    if hash == game.white_token_hash {
        Ok(Side::White)
    } else if hash == game.black_token_hash {
        Ok(Side::Black)
    } else {
        Err(GameError::Unauthenticated(Refusal::new(
            Reason::SeatTokenUnknown,
            "seat_token does not belong to either seat of this game",
        )))
    }
}

/// Checks that the pending `offer` (a side's name) is the opponent's.
fn offered_by_opponent(offer: Option<&str>, side: Side, what: &str) -> Result<(), GameError> {
    if offer == Some(side.other().name()) {
        Ok(())
    } else {
        Err(GameError::precondition(
            Reason::NothingToAnswer,
            format!("there is no {what} from your opponent to answer"),
        ))
    }
}

/// Refuses what needs an opponent while the game's open seat waits for
/// one.
fn ensure_seated(game: &StoredGame) -> Result<(), GameError> {
    match &game.open {
        None => Ok(()),
        Some(open) => Err(GameError::precondition(
            Reason::SeatOpen,
            format!(
                "the {} seat is still open: the game starts when a player takes it with the \
                 join code (JoinGame)",
                open.side
            ),
        )),
    }
}

fn ensure_ongoing(game: &StoredGame) -> Result<(), GameError> {
    if game.status == "ongoing" {
        Ok(())
    } else {
        Err(GameError::GameOver(format!(
            "the game is over ({})",
            game.termination.as_deref().unwrap_or(&game.status)
        )))
    }
}

/// Checks that `side` is to move (`turn`) in a game of `variant`.
fn ensure_turn(variant: Variant, turn: Side, side: Side) -> Result<(), GameError> {
    if turn == side {
        Ok(())
    } else {
        Err(GameError::PermissionDenied(Refusal::new(
            Reason::NotYourTurn,
            format!(
                "it is {}'s turn, not {}'s",
                variant.side_name(turn),
                variant.side_name(side)
            ),
        )))
    }
}

/// Refuses a stale `expected_ply` (`ply` moves have been played).
fn ensure_ply(expected_ply: Option<u32>, ply: usize) -> Result<(), GameError> {
    if expected_ply.is_some_and(|expected| expected as usize != ply) {
        Err(GameError::Conflict {
            current_ply: ply as u32,
        })
    } else {
        Ok(())
    }
}

fn replay(game: &StoredGame) -> Result<Box<dyn Referee>, GameError> {
    let variant: Variant = game
        .variant
        .parse()
        .map_err(|e| GameError::Corrupt(format!("game {}: {e}", game.id)))?;
    let corrupt = |e: &dyn std::fmt::Display| {
        GameError::Corrupt(format!("game {} does not replay: {e}", game.id))
    };
    let choices = rule_choices(game).ok_or_else(|| {
        GameError::Corrupt(format!(
            "game {}: unknown xiangqi rules {}",
            game.id,
            Quoted(game.xiangqi_rules.as_deref().unwrap_or_default())
        ))
    })?;
    let mut record = referee_under::<&str>(variant, choices, Some(&game.start_fen), &[])
        .map_err(|e| corrupt(&e))?;
    // Stored moves were validated when played or imported; an imported game
    // may go on past a repetition nobody claimed.
    for m in &game.moves {
        record.play_recorded(&m.uci).map_err(|e| corrupt(&e))?;
    }
    Ok(record)
}

/// The rules `game` is played under (`None`: a name the rules do not know).
/// A xiangqi game stored without rules is an Asian one.
fn rule_choices(game: &StoredGame) -> Option<RuleChoices> {
    let xiangqi = match game.xiangqi_rules.as_deref() {
        None => XiangqiRules::default(),
        Some(name) => XiangqiRules::from_name(name)?,
    };
    Some(RuleChoices { xiangqi })
}

/// The view of a game read from the store (replayed).
fn view_of(game: &StoredGame) -> Result<GameView, GameError> {
    let record = replay(game)?;
    let moves = Arc::new(view::move_views(game, record.as_ref()));
    Ok(GameView::build(game, record.as_ref(), moves))
}

/// Plays `text` on `record` and appends it to `game`, ending the game if the
/// rules say so.
fn play(
    game: &mut StoredGame,
    record: &mut dyn Referee,
    text: &str,
    now: i64,
) -> Result<(), GameError> {
    let played = record.play(text).map_err(|e| match e {
        MoveError::Illegal(illegal) => GameError::Illegal(illegal),
        other => GameError::BadMove(other),
    })?;
    game.moves.push(StoredMove {
        ply: game.moves.len() as i64,
        uci: played.description.uci.into(),
        fen_after: played.fen_after,
        played_at: now,
    });
    if let Some(end) = record.verdict().end {
        finish(game, end.winner, Ending::Rules(end.termination));
    }
    Ok(())
}

/// A new game's stored fields with two fresh seat tokens, returned to be
/// shown once (only their hashes are stored): ongoing under the rule
/// `choices`, without moves, engines or clock.
fn new_game(
    variant: Variant,
    choices: RuleChoices,
    record: &dyn Referee,
    white_name: String,
    black_name: String,
) -> (NewGame, [String; 2]) {
    let tokens = [ids::new_token(), ids::new_token()];
    let game = NewGame {
        id: ids::new_id(),
        variant: variant.name().to_owned(),
        start_fen: record.start_fen(),
        white_name,
        black_name,
        white_token_hash: ids::hash_token(&tokens[0]),
        black_token_hash: ids::hash_token(&tokens[1]),
        white_engine: None,
        black_engine: None,
        moves: Vec::new(),
        status: "ongoing".to_owned(),
        winner: None,
        termination: None,
        engine_grants_takebacks: true,
        clock: None,
        engine_due_at: None,
        xiangqi_rules: (variant == Variant::Xiangqi).then(|| choices.xiangqi.name().to_owned()),
        open: None,
        rematch_of: None,
    };
    (game, tokens)
}

fn abort(game: &mut StoredGame) {
    end_aborted(game, Ending::Aborted);
}

/// Ends `game` as aborted, by the players or the server (`Aborted`) or by
/// the operator.
fn end_aborted(game: &mut StoredGame, ending: Ending) {
    game.status = "aborted".to_owned();
    game.termination = Some(ending.code().to_owned());
    game.draw_offer = None;
    game.takeback_offer = None;
}

fn finish(game: &mut StoredGame, winner: Option<Side>, ending: Ending) {
    game.status = if winner.is_some() {
        "decisive"
    } else {
        "drawn"
    }
    .to_owned();
    game.winner = winner.map(|s| s.name().to_owned());
    game.termination = Some(ending.code().to_owned());
    game.draw_offer = None;
    game.takeback_offer = None;
}
