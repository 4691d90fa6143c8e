//! Takebacks: a seat proposes to take its last move back, the opponent
//! accepts or declines; an engine seat grants them unless the game says
//! otherwise. The undone moves stay in the game's history (the
//! `undone_moves` table, under the takeback's event), not silently erased.
//!
//! On a clock, a takeback is made on the time of the side to move: the turn
//! it cuts short is charged in full first (no increment), so that taking
//! back never buys time; if that side's flag has already fallen, the flag
//! wins and the game ends on time, as it would for a move made too late.

use super::GameId;
use super::{
    Games, flag,
    model::{
        EventKind, GameClock, GameError, GameView, SeatClaim, engine_of, ensure_ongoing,
        offered_by_opponent, seat,
    },
    screen::Needs,
};
use crate::{
    reason::Reason,
    rules::{Side, referee::Referee},
    store::{StoredGame, Update},
};

/// Plies to undo so that `side` is to move again before its last move.
fn plies_to_undo(game: &StoredGame, record: &dyn Referee, side: Side) -> Result<usize, GameError> {
    let plies = if record.turn() == side { 2 } else { 1 };
    if game.moves.len() < plies {
        return Err(GameError::precondition(
            Reason::NoMoveToTakeBack,
            "you have no move to take back",
        ));
    }
    Ok(plies)
}

/// Takes `plies` moves back at `now`, keeping them as undone, after
/// charging the side to move the turn it spent; the next turn starts at
/// `now`. Returns `TakebackAccepted`, or the flag's event when the side to
/// move was out of time (then the game is over and nothing is undone).
fn take_back(game: &mut StoredGame, record: &dyn Referee, plies: usize, now: i64) -> EventKind {
    if let Some(stored) = game.clock {
        let mut clock = GameClock::from_stored(&stored);
        if let Err(expiry) = clock.charge_interrupted_turn(record.turn(), game.moves.len(), now) {
            return flag::expire(game, record, expiry);
        }
        game.clock = Some(clock.stored());
    }
    for _ in 0..plies {
        if let Some(m) = game.moves.pop() {
            game.undone.push(m);
        }
    }
    game.takeback_offer = None;
    game.draw_offer = None;
    EventKind::TakebackAccepted
}

/// The change `event` records: by `side`, or by nobody for the flag.
fn recorded(event: EventKind, side: Side) -> Update<EventKind> {
    let by_flag = matches!(event, EventKind::Flagged | EventKind::Aborted);
    Update {
        value: event,
        event: event.name(),
        side: (!by_flag).then_some(side),
    }
}

impl Games {
    /// Proposes to take back the seat's last move (and the opponent's reply,
    /// if there is one). Against an engine seat that grants takebacks the
    /// moves are taken back at once.
    ///
    /// # Errors
    ///
    /// See [`GameError`]; nothing to take back, a pending proposal (one's
    /// own, or the opponent's, to be answered first) or a flag that has
    /// fallen (`GameOver`) is `FailedPrecondition`.
    pub async fn propose_takeback(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
    ) -> Result<GameView, GameError> {
        let claim = claim.into();
        self.screen(id, claim, Needs::Opponent).await?;
        let now = self.time.now();
        let (view, event) = self
            .change(id, |game, record| {
                let side = seat(game, claim)?;
                ensure_ongoing(game)?;
                match game.takeback_offer {
                    Some(s) if s == side => {
                        return Err(GameError::precondition(
                            Reason::TakebackAlreadyProposed,
                            "you already proposed a takeback; wait for the answer",
                        ));
                    }
                    Some(_) => {
                        return Err(GameError::precondition(
                            Reason::TakebackPending,
                            "your opponent proposed a takeback: answer it with RespondToTakeback",
                        ));
                    }
                    None => {}
                }
                let plies = plies_to_undo(game, record, side)?;
                let event = if engine_of(game, side.other()).is_some() {
                    if !game.engine_grants_takebacks {
                        return Err(GameError::precondition(
                            Reason::EngineDeclinesTakebacks,
                            "the engine in this game does not grant takebacks",
                        ));
                    }
                    take_back(game, record, plies, now)
                } else {
                    game.takeback_offer = Some(side);
                    EventKind::TakebackProposed
                };
                Ok::<_, GameError>(recorded(event, side))
            })
            .await?;
        self.published(view, event).await
    }

    /// Accepts (the moves are taken back) or declines the opponent's
    /// takeback proposal.
    ///
    /// # Errors
    ///
    /// See [`GameError`]; no proposal from the opponent, or a flag that
    /// has fallen (`GameOver`), is `FailedPrecondition`.
    pub async fn respond_to_takeback(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
        accept: bool,
    ) -> Result<GameView, GameError> {
        let claim = claim.into();
        self.screen(id, claim, Needs::Opponent).await?;
        let now = self.time.now();
        let (view, event) = self
            .change(id, |game, record| {
                let side = seat(game, claim)?;
                ensure_ongoing(game)?;
                offered_by_opponent(game.takeback_offer, side, "takeback proposal")?;
                let event = if accept {
                    let plies = plies_to_undo(game, record, side.other())?;
                    take_back(game, record, plies, now)
                } else {
                    game.takeback_offer = None;
                    EventKind::TakebackDeclined
                };
                Ok::<_, GameError>(recorded(event, side))
            })
            .await?;
        self.published(view, event).await
    }

    /// Tells watchers of `event`, and re-arms the clock when moves were
    /// taken back; a takeback the flag beat is refused (the game is over).
    async fn published(&self, view: GameView, event: EventKind) -> Result<GameView, GameError> {
        // A takeback restarts the turn; an ending stops the clock.
        self.arm_clock(&view);
        match event {
            EventKind::Flagged | EventKind::Aborted => Err(GameError::GameOver(format!(
                "the takeback came too late: {}",
                view.outcome.description
            ))),
            _ => Ok(view),
        }
    }
}
