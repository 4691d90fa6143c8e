//! A seat's moves and actions: playing a move, resigning, offering,
//! answering and claiming a draw, aborting; each judged and written through
//! the game's live entry, then told to its watchers.

use super::GameId;
use super::{
    Games, Mover, flag,
    model::{
        Ending, EventKind, GameClock, GameError, GameView, MoveText, MoveView, SeatClaim, abort,
        end_aborted, ensure_ongoing, ensure_ply, ensure_seated, ensure_turn, finish, is_admin,
        offered_by_opponent, play, seat,
    },
    screen::Needs,
};
use crate::{
    reason::Reason,
    rules::{DrawClaim, Side, referee::Referee},
    store::{StoredGame, Update},
};

impl Games {
    /// Plays a move for the seat `claim` holds.
    ///
    /// # Errors
    ///
    /// See [`GameError`]: every rule of the service maps to one variant.
    pub async fn make_move(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
        text: impl Into<MoveText<'_>>,
        expected_ply: Option<u32>,
    ) -> Result<(GameView, MoveView), GameError> {
        let played = self
            .play_as(id, Mover::Seat(claim.into()), text.into(), expected_ply)
            .await?;
        if played.0.white_engine.is_some() || played.0.black_engine.is_some() {
            self.wake_engine(id);
        }
        Ok(played)
    }

    pub(super) async fn play_as(
        &self,
        id: &str,
        mover: Mover<'_>,
        text: MoveText<'_>,
        expected_ply: Option<u32>,
    ) -> Result<(GameView, MoveView), GameError> {
        if let Mover::Seat(claim) = mover {
            self.screen(id, claim, Needs::Move { expected_ply }).await?;
        }
        let now = self.time.now();
        let fence = match mover {
            Mover::Seat(_) => None,
            Mover::Engine(_, fence) => fence,
        };
        let (view, expired) = self
            .change_fenced(id, fence, |game, record| {
                let side = match mover {
                    Mover::Seat(claim) => seat(game, claim)?,
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
                if game.draw_offer == Some(side.other()) {
                    game.draw_offer = None; // moving declines the opponent's offer
                }
                // A move answers any takeback proposal: it no longer fits.
                game.takeback_offer = None;
                Ok::<_, GameError>(Update {
                    value: None,
                    event: EventKind::Move.name(),
                    side: Some(side),
                })
            })
            .await?;
        if expired.is_some() {
            self.arm_clock(&view);
            return Err(GameError::GameOver(format!(
                "the move came too late: {}",
                view.outcome.description
            )));
        }
        self.arm_clock(&view);
        let played = view.moves.last().cloned().expect("a move was just played");
        Ok((view, played))
    }

    /// Resigns for the seat `claim` holds.
    ///
    /// # Errors
    ///
    /// See [`GameError`].
    pub async fn resign(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
    ) -> Result<GameView, GameError> {
        self.act(id, claim.into(), EventKind::Resigned, |game, side, _| {
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
    pub async fn offer_draw(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
    ) -> Result<GameView, GameError> {
        self.act(id, claim.into(), EventKind::DrawOffered, |game, side, _| {
            match game.draw_offer {
                Some(s) if s == side => {
                    return Err(GameError::precondition(
                        Reason::DrawAlreadyOffered,
                        "you already offered a draw; wait for the answer",
                    ));
                }
                // Offering while the opponent's offer stands is accepting it.
                Some(_) => finish(game, None, Ending::Agreement),
                None => game.draw_offer = Some(side),
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
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
        accept: bool,
    ) -> Result<GameView, GameError> {
        let event = if accept {
            EventKind::DrawAccepted
        } else {
            EventKind::DrawDeclined
        };
        self.act(id, claim.into(), event, |game, side, _| {
            offered_by_opponent(game.draw_offer, side, "draw offer")?;
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
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
        text: &str,
    ) -> Result<GameView, GameError> {
        let now = self.time.now();
        self.act(
            id,
            claim.into(),
            EventKind::DrawClaimed,
            |game, side, record| {
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
                    play(&mut trial_game, trial.as_mut(), text.into(), now)?;
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
            },
        )
        .await
    }

    /// Aborts a game in which not both sides have moved; with the operator
    /// credential as the claim's token, any ongoing game.
    ///
    /// # Errors
    ///
    /// See [`GameError`].
    pub async fn abort(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
    ) -> Result<GameView, GameError> {
        let claim = claim.into();
        if claim
            .token()
            .is_some_and(|token| is_admin(self.admin.as_ref(), token))
        {
            return self.abort_as_operator(id).await;
        }
        self.act(id, claim, EventKind::Aborted, |game, _, _| {
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
        self.arm_clock(&view);
        Ok(view)
    }

    /// A seat action on an ongoing game; publishes the resulting event.
    pub(super) async fn act(
        &self,
        id: &str,
        claim: SeatClaim<'_>,
        event: EventKind,
        change: impl Fn(&mut StoredGame, Side, &dyn Referee) -> Result<(), GameError>,
    ) -> Result<GameView, GameError> {
        // Only an abort goes before the open seat is taken.
        let needs = if event == EventKind::Aborted {
            Needs::Seat
        } else {
            Needs::Opponent
        };
        self.screen(id, claim, needs).await?;
        let (view, ()) = self
            .change(id, |game, record| {
                let side = seat(game, claim)?;
                ensure_ongoing(game)?;
                if needs.opponent() {
                    ensure_seated(game)?;
                }
                change(game, side, record)?;
                Ok::<_, GameError>(Update {
                    value: (),
                    event: event.name(),
                    side: Some(side),
                })
            })
            .await?;
        // A takeback restarts the turn; an ending stops the clock.
        self.arm_clock(&view);
        Ok(view)
    }
}
