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
use crate::{
    reason::Reason,
    rules::{Quoted, RuleChoices, Side, Variant, referee::referee_under},
    store::StoredGame,
};

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
        bound_players(&white, &black)?;
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
            .insert_game(StoredGame {
                white_engine: engines[0],
                black_engine: engines[1],
                engine_grants_takebacks,
                clock,
                engine_due_at: takeover::engine_due_at(&new.start_fen, 0, engines, now),
                open,
                white_player: white.player.clone(),
                black_player: black.player.clone(),
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
