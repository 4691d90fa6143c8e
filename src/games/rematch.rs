//! Rematches: a player of a finished game offers one; the opponent's
//! acceptance (an engine seat's at once) creates the new game with the
//! colours swapped, from the same start under the same rules and time
//! control, linked both ways (`rematch_of`, `rematch`). The offer, the
//! answer and the new game are written only if the finished game is still
//! at the version they were judged on, the new game in the same
//! transaction: one rematch per game, whoever races.
//!
//! Each player's token in the rematch is derived from its token in the
//! finished game ([`ids::successor_token`]): the acceptor gets it in its
//! answer, and the offerer, asking again with its old token (`OfferRematch`
//! answers with the rematch once it exists), gets it too; nobody else can.
//! At the offer the store keeps the hash of the offerer's one, for the
//! acceptance to seat it.

use super::GameId;
use super::{
    Games, SeatedGame,
    model::Status,
    model::{
        EventKind, GameClock, GameError, GameView, SeatClaim, engine_of, ids, replay, seat,
        side_title, takeover,
    },
};
use crate::{
    reason::Reason,
    rules::Side,
    store::{StoredGame, Update},
};

/// The finished game after a rematch call, and the rematch once created,
/// with the caller's seat in it.
#[derive(Clone, Debug)]
pub struct RematchAnswer {
    pub game: GameView,
    pub rematch: Option<SeatedGame>,
}

/// What a player asks about a rematch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    Offer,
    Accept,
    Decline,
}

/// Why a rematch call writes nothing: the rematch exists already (its id,
/// and the caller's side in the finished game), or a refusal.
enum Unwritten {
    Exists(String, Side),
    Refused(GameError),
}

impl<E: Into<GameError>> From<E> for Unwritten {
    fn from(e: E) -> Unwritten {
        Unwritten::Refused(e.into())
    }
}

impl Games {
    /// Offers a rematch of finished game `id` for the seat `claim` holds;
    /// accepts the opponent's offer if one stands, and creates the rematch
    /// at once against an engine seat. Once the rematch exists, answers it
    /// (and the caller's token in it) again.
    ///
    /// # Errors
    ///
    /// See [`GameError`]: an unknown seat, a game not over, a seat never
    /// taken, or the caller's own offer standing.
    pub async fn offer_rematch(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
    ) -> Result<RematchAnswer, GameError> {
        self.ask_rematch(id, claim.into(), Ask::Offer).await
    }

    /// Accepts (creating the rematch) or declines the opponent's offer of a
    /// rematch of game `id`. Accepting once the rematch exists answers it
    /// again.
    ///
    /// # Errors
    ///
    /// See [`GameError`]: no offer of the opponent's to answer.
    pub async fn respond_to_rematch(
        &self,
        id: &GameId,
        claim: impl Into<SeatClaim<'_>>,
        accept: bool,
    ) -> Result<RematchAnswer, GameError> {
        let ask = if accept { Ask::Accept } else { Ask::Decline };
        self.ask_rematch(id, claim.into(), ask).await
    }

    async fn ask_rematch(
        &self,
        id: &str,
        claim: SeatClaim<'_>,
        ask: Ask,
    ) -> Result<RematchAnswer, GameError> {
        // A player acting as such needs no token: theirs is a fresh one.
        let successor = claim
            .token()
            .map_or_else(ids::new_token, ids::successor_token);
        let now = self.time.now();
        let asked = self
            .change_creating(id, |game, _| {
                let side = seat(game, claim)?;
                let event = settle(game, side, ask, &successor)?;
                let created = (event == EventKind::RematchStarted)
                    .then(|| rematch_game(game, side, &successor, now))
                    .transpose()?;
                if let Some(new) = &created {
                    game.rematch.id = Some(new.id.clone());
                }
                let update = Update {
                    value: (side, event),
                    event: event.name(),
                    side: Some(side),
                };
                Ok::<_, Unwritten>((update, created))
            })
            .await;
        let (game, (side, _), created) = match asked {
            Ok(asked) => asked,
            Err(Unwritten::Refused(error)) => return Err(error),
            Err(Unwritten::Exists(rematch, side)) => {
                let game = self.view(id).await?;
                let rematch = self.view(&rematch).await?;
                return Ok(RematchAnswer {
                    game,
                    rematch: Some(SeatedGame {
                        game: rematch,
                        side: side.other(),
                        token: successor,
                    }),
                });
            }
        };
        let rematch = match created {
            None => None,
            Some(new) => {
                let engines = new.white_engine.is_some() || new.black_engine.is_some();
                let record = replay(&new)?;
                self.ring_players(&new);
                let rematch = self.live.keep(new, record)?;
                self.arm_clock(&rematch);
                if engines {
                    self.wake_engine(&rematch.id);
                }
                Some(SeatedGame {
                    game: rematch,
                    side: side.other(),
                    token: successor,
                })
            }
        };
        Ok(RematchAnswer { game, rematch })
    }
}

/// Decides `side`'s `ask` on finished `game` and records an offer or a
/// declining in it; the event it makes (`RematchStarted`: create the
/// rematch).
fn settle(
    game: &mut StoredGame,
    side: Side,
    ask: Ask,
    successor: &str,
) -> Result<EventKind, Unwritten> {
    if game.status == Status::Ongoing {
        return Err(GameError::precondition(
            Reason::GameNotOver,
            "the game is still being played: a rematch is offered once it is over",
        )
        .into());
    }
    if let Some(open) = &game.open {
        return Err(GameError::precondition(
            Reason::SeatOpen,
            format!(
                "nobody took the {} seat: there is nobody to play a rematch with",
                open.side
            ),
        )
        .into());
    }
    if let Some(rematch) = &game.rematch.id {
        if ask == Ask::Decline {
            return Err(GameError::precondition(
                Reason::NothingToAnswer,
                format!("the rematch exists already: game {rematch}"),
            )
            .into());
        }
        return Err(Unwritten::Exists(rematch.clone(), side));
    }
    let offer = game.rematch.offer;
    let by_opponent = offer == Some(side.other());
    let against_engine = engine_of(game, side.other()).is_some();
    match ask {
        Ask::Offer if offer == Some(side) => Err(GameError::precondition(
            Reason::RematchAlreadyOffered,
            "you already offered a rematch: wait for the answer (asking again once it is \
             accepted answers the rematch and your token in it)",
        )
        .into()),
        Ask::Offer if !by_opponent && !against_engine => {
            game.rematch.offer = Some(side);
            game.rematch.token_hash = Some(ids::hash_token(successor));
            Ok(EventKind::RematchOffered)
        }
        Ask::Offer => Ok(EventKind::RematchStarted),
        Ask::Accept | Ask::Decline if !by_opponent => Err(GameError::precondition(
            Reason::NothingToAnswer,
            "there is no rematch offer from your opponent to answer",
        )
        .into()),
        Ask::Accept => Ok(EventKind::RematchStarted),
        Ask::Decline => {
            game.rematch.offer = None;
            game.rematch.token_hash = None;
            Ok(EventKind::RematchDeclined)
        }
    }
}

/// The rematch of `game`, asked by `side` (whose token in it is
/// `successor`), at `now`: the colours swapped, the same start, rules,
/// time control and engine settings; the offerer's seat has the token the
/// offer recorded, an engine's a fresh one nobody is shown.
fn rematch_game(
    game: &mut StoredGame,
    side: Side,
    successor: &str,
    now: i64,
) -> Result<StoredGame, Unwritten> {
    let opponent_hash = match engine_of(game, side.other()) {
        Some(_) => ids::hash_token(&ids::new_token()),
        None => game.rematch.token_hash.take().ok_or_else(|| {
            GameError::Corrupt(format!(
                "game {}: a rematch offer without its token",
                game.id
            ))
        })?,
    };
    game.rematch.offer = None;
    let mine = ids::hash_token(successor);
    // The caller plays the other colour.
    let (white_token_hash, black_token_hash) = match side {
        Side::White => (opponent_hash, mine),
        Side::Black => (mine, opponent_hash),
    };
    let variant = game.variant;
    // A seat named after its side is named after its new one.
    let renamed = |name: &str, old: Side| {
        if name == side_title(variant, old) {
            side_title(variant, old.other()).to_owned()
        } else {
            name.to_owned()
        }
    };
    let engines = [game.black_engine, game.white_engine];
    let mut clock = game
        .clock
        .map(|c| GameClock::from_stored(&c).control.start(now).stored());
    takeover::stamp_flag(&game.start_fen, 0, &mut clock);
    Ok(StoredGame {
        id: ids::new_id(),
        variant: game.variant,
        start_fen: game.start_fen.clone(),
        white_name: renamed(&game.black_name, Side::Black),
        black_name: renamed(&game.white_name, Side::White),
        white_token_hash,
        black_token_hash,
        white_engine: engines[0],
        black_engine: engines[1],
        moves: Vec::new(),
        status: Status::Ongoing,
        winner: None,
        termination: None,
        engine_grants_takebacks: game.engine_grants_takebacks,
        clock,
        engine_due_at: takeover::engine_due_at(&game.start_fen, 0, engines, now),
        xiangqi_rules: game.xiangqi_rules.clone(),
        open: None,
        rematch_of: Some(game.id.clone()),
        white_player: game.black_player.clone(),
        black_player: game.white_player.clone(),
        ..StoredGame::default()
    })
}
