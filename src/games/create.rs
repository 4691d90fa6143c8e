//! Creating games: seats and their names, the start position (standard, a
//! FEN or a saved position), clocks, engine seats and an open seat.

use super::{
    CreatedGame, Games, Start,
    model::{
        EngineSeat, GameError, SeatSpec, TimeControl, is_well_formed_id, new_game, seat_name,
        takeover,
    },
    open_seat,
};
use std::convert::Infallible;

use crate::{
    reason::Reason,
    rules::{
        Game, Quoted, RuleChoices, Side, Variant, chess::Chess960Start, referee::referee_under,
    },
    store::{Acceptance, ChallengeAnswered, StoreError, StoredGame},
};

/// The terms a game is played on, besides its seats and clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Terms {
    /// Does an engine seat grant the human's takebacks?
    pub engine_grants_takebacks: bool,
    /// Does the game's end change its players' ratings?
    pub rated: bool,
}

impl Games {
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
        let terms = Terms {
            engine_grants_takebacks,
            rated: false,
        };
        self.create_under(variant, choices, start, white, black, terms, time_control)
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
        terms: Terms,
        time_control: Option<TimeControl>,
    ) -> Result<CreatedGame, GameError> {
        let store = &self.store;
        let created = self
            .create_inserting(
                variant,
                choices,
                start,
                [white, black],
                terms,
                time_control,
                async |game| store.insert_game(game).await.map(Ok::<_, Infallible>),
            )
            .await?;
        Ok(match created {
            Ok(created) => created,
            Err(never) => match never {},
        })
    }

    /// Starts the game of a challenge `acceptance` accepts, in one
    /// transaction with the acceptance: the inner error, with no game, if
    /// the challenge no longer waits for an answer.
    ///
    /// # Errors
    ///
    /// Bad names, an invalid FEN, or storage.
    #[allow(clippy::too_many_arguments)]
    pub async fn create_accepting(
        &self,
        variant: Variant,
        choices: RuleChoices,
        start: Start,
        seats: [SeatSpec; 2],
        rated: bool,
        time_control: Option<TimeControl>,
        acceptance: &Acceptance<'_>,
    ) -> Result<Result<CreatedGame, ChallengeAnswered>, GameError> {
        let store = &self.store;
        let terms = Terms {
            engine_grants_takebacks: true,
            rated,
        };
        self.create_inserting(
            variant,
            choices,
            start,
            seats,
            terms,
            time_control,
            async |game| store.insert_game_accepting(game, acceptance).await,
        )
        .await
    }

    /// Starts a game, stored by `insert` (which may refuse it, `E`): in
    /// the transaction that answers a challenge or pairs seeks, say.
    ///
    /// # Errors
    ///
    /// Bad names, an invalid FEN, or storage.
    #[allow(clippy::too_many_arguments)]
    pub async fn create_inserting<E>(
        &self,
        variant: Variant,
        choices: RuleChoices,
        start: Start,
        [white, black]: [SeatSpec; 2],
        terms: Terms,
        time_control: Option<TimeControl>,
        insert: impl AsyncFnOnce(StoredGame) -> Result<Result<StoredGame, E>, StoreError>,
    ) -> Result<Result<CreatedGame, E>, GameError> {
        let open = open_seat::open_side(&white, &black)?;
        bound_players(&white, &black)?;
        if terms.rated {
            ratable(&white, &black, &start, time_control)?;
        }
        let white_name = seat_name("white.display_name", &white, variant, Side::White)?;
        let black_name = seat_name("black.display_name", &black, variant, Side::Black)?;
        let (field, fen) = match start {
            Start::Standard if variant == Variant::Chess960 => {
                ("fen", Some(Chess960Start::random().position().fen()))
            }
            Start::Standard => ("fen", None),
            Start::Chess960(number) if variant == Variant::Chess960 => {
                ("chess960_start", Some(number.position().fen()))
            }
            Start::Chess960(_) => {
                return Err(GameError::invalid(
                    "chess960_start",
                    Reason::VariantMismatch,
                    format!("a Chess960 start number is for Chess960 games, not {variant}"),
                ));
            }
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
        let stored = match insert(StoredGame {
            white_engine: engines[0],
            black_engine: engines[1],
            engine_grants_takebacks: terms.engine_grants_takebacks,
            rated: terms.rated,
            clock,
            engine_due_at: takeover::engine_due_at(&new.start_fen, 0, engines, now),
            open,
            white_player: white.player.clone(),
            black_player: black.player.clone(),
            ..new
        })
        .await?
        {
            Ok(stored) => stored,
            Err(refused) => return Ok(Err(refused)),
        };
        let id = stored.id.clone();
        self.ring_players(&stored);
        let game = self.live.keep(stored, record)?;
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
        Ok(Ok(CreatedGame {
            game,
            white_token: shown(white_token, &white),
            black_token: shown(black_token, &black),
            join_code: join_code.unwrap_or_default(),
        }))
    }
}

/// Refuses seats bound to players that are also the engine's or open, or
/// one player in both seats.
fn bound_players(white: &SeatSpec, black: &SeatSpec) -> Result<(), GameError> {
    for (field, seat) in [("white.player_id", white), ("black.player_id", black)] {
        if seat.player.is_some() && (seat.engine.is_some() || seat.open) {
            return Err(GameError::invalid(
                field,
                Reason::InvalidPlayerSeat,
                "a seat bound to a player is neither the engine's nor open",
            ));
        }
    }
    if white.player.is_some() && white.player == black.player {
        return Err(GameError::invalid(
            "black.player_id",
            Reason::InvalidPlayerSeat,
            "one player holds at most one seat of a game",
        ));
    }
    Ok(())
}

/// Refuses a rated game that cannot be: each seat a player's, a time
/// control, the standard start.
fn ratable(
    white: &SeatSpec,
    black: &SeatSpec,
    start: &Start,
    time_control: Option<TimeControl>,
) -> Result<(), GameError> {
    let why = if white.player.is_none() || black.player.is_none() {
        "both seats of a rated game are bound to players"
    } else if time_control.is_none() {
        "a rated game has a time control (its speed names the rating)"
    } else if !matches!(start, Start::Standard | Start::Chess960(_)) {
        "a rated game starts from the variant's start: the standard one, or a Chess960 one"
    } else {
        return Ok(());
    };
    Err(GameError::invalid("rated", Reason::InvalidRatedGame, why))
}
