//! A player's game: its stream (`gameFull`, then a `gameState` whenever
//! the state changes, closed when the game ends) and the actions (move,
//! abort, resign, draw and takeback answers, claims, chat), the same for
//! the Bot and the Board API.

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_stream::{StreamExt, wrappers::ReceiverStream};
use tonic::Status;

use super::{Services, answer::Answer, form::Call, shapes};
use crate::api::proto::{self as pb, games_server::Games as _};

/// Lines waiting for the reader.
const QUEUED: usize = 16;
/// The longest chat line, as Lichess's.
const MAX_CHAT: usize = 140;

fn no_such_game() -> Answer {
    Answer::not_found("No such game")
}

/// The side `player` holds in `game`, if any.
fn side_of(game: &pb::Game, player: &str) -> Option<pb::Side> {
    let holds = |seat: &Option<pb::Seat>| seat.as_ref().is_some_and(|s| s.player_id == player);
    if holds(&game.white) {
        Some(pb::Side::White)
    } else if holds(&game.black) {
        Some(pb::Side::Black)
    } else {
        None
    }
}

fn is_over(game: &pb::Game) -> bool {
    game.outcome
        .as_ref()
        .is_some_and(|o| o.status != pb::OutcomeStatus::Ongoing as i32)
}

/// `GET /api/{bot,board}/game/stream/{id}`.
pub(super) async fn stream(services: &Services, call: &Call, id: &str) -> Answer {
    let (me, _) = match services.me(call).await {
        Ok(me) => me,
        Err(refused) => return refused,
    };
    let watched = services
        .games
        .watch_game(call.request(pb::WatchGameRequest {
            game_id: id.to_owned(),
            view: pb::GameView::Full as i32,
            ..Default::default()
        }))
        .await;
    let mut events = match watched {
        Ok(events) => events.into_inner(),
        Err(status) => return status.into(),
    };
    let game = match events.next().await {
        Some(Ok(first)) => first.game.unwrap_or_default(),
        Some(Err(status)) => return status.into(),
        None => return no_such_game(),
    };
    if side_of(&game, &me.id).is_none() {
        return no_such_game();
    }
    let player = |seat: &Option<pb::Seat>| {
        seat.as_ref()
            .map(|s| s.player_id.clone())
            .unwrap_or_default()
    };
    let white = services.profile_if_any(call, &player(&game.white)).await;
    let black = services.profile_if_any(call, &player(&game.black)).await;
    let full = shapes::game_full(&game, white.as_ref(), black.as_ref());
    let (tx, rx) = mpsc::channel(QUEUED);
    // Bounded: a queue of one line less than the channel's.
    let _ = tx.try_send(full);
    if !is_over(&game) {
        let last = shapes::game_state(&game);
        tokio::spawn(follow(events, tx, last));
    }
    Answer::Stream(Box::pin(ReceiverStream::new(rx)))
}

/// Sends a `gameState` whenever the game's state differs from the `last`
/// one sent, until the game ends or the reader goes.
async fn follow(
    mut events: impl tokio_stream::Stream<Item = Result<pb::WatchGameResponse, Status>> + Unpin,
    tx: mpsc::Sender<Value>,
    mut last: Value,
) {
    loop {
        let next = tokio::select! {
            () = tx.closed() => return,
            next = events.next() => next,
        };
        let Some(Ok(event)) = next else { return };
        let Some(game) = event.game else { continue };
        let state = shapes::game_state(&game);
        if state != last {
            if tx.send(state.clone()).await.is_err() {
                return;
            }
            last = state;
        }
        if is_over(&game) {
            return;
        }
    }
}

/// `GET /api/stream/game/{id}`: anyone may watch. The game first, then a
/// line per move, then the game again when it ends.
pub(super) async fn spectate(services: &Services, call: &Call, id: &str) -> Answer {
    let watched = services
        .games
        .watch_game(call.request(pb::WatchGameRequest {
            game_id: id.to_owned(),
            view: pb::GameView::Basic as i32,
            ..Default::default()
        }))
        .await;
    let mut events = match watched {
        Ok(events) => events.into_inner(),
        Err(status) => return status.into(),
    };
    let game = match events.next().await {
        Some(Ok(first)) => first.game.unwrap_or_default(),
        Some(Err(status)) => return status.into(),
        None => return no_such_game(),
    };
    let (tx, rx) = mpsc::channel(QUEUED);
    let _ = tx.try_send(shapes::spectated(&game));
    if !is_over(&game) {
        tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    () = tx.closed() => return,
                    next = events.next() => next,
                };
                let Some(Ok(event)) = next else { return };
                let Some(game) = event.game else { continue };
                if let Some(played) = event.r#move.as_ref()
                    && tx
                        .send(shapes::spectated_move(&game, played))
                        .await
                        .is_err()
                {
                    return;
                }
                if is_over(&game) {
                    let _ = tx.send(shapes::spectated(&game)).await;
                    return;
                }
            }
        });
    }
    Answer::Stream(Box::pin(ReceiverStream::new(rx)))
}

/// `POST /api/{bot,board}/game/{id}/…`.
pub(super) async fn act(services: &Services, call: &Call, id: &str, action: &[&str]) -> Answer {
    let acted = match action {
        ["move", uci] => make_move(services, call, id, uci).await,
        ["abort"] => services
            .games
            .abort(call.request(pb::AbortRequest {
                game_id: id.to_owned(),
                ..Default::default()
            }))
            .await
            .map(drop),
        ["resign"] => services
            .games
            .resign(call.request(pb::ResignRequest {
                game_id: id.to_owned(),
                ..Default::default()
            }))
            .await
            .map(drop),
        ["draw", answer @ ("yes" | "no")] => {
            offer(services, call, id, Offer::Draw, *answer == "yes").await
        }
        ["takeback", answer @ ("yes" | "no")] => {
            offer(services, call, id, Offer::Takeback, *answer == "yes").await
        }
        ["claim-draw"] => services
            .games
            .claim_draw(call.request(pb::ClaimDrawRequest {
                game_id: id.to_owned(),
                ..Default::default()
            }))
            .await
            .map(drop),
        ["claim-victory"] => {
            return Answer::bad_request(
                "there is no victory to claim: Arbiter ends a game whose player left by their clock",
            );
        }
        ["chat"] => return chat(call),
        _ => return Answer::not_found("no such endpoint"),
    };
    match acted {
        Ok(()) => Answer::ok(),
        Err(status) => status.into(),
    }
}

/// A move in Lichess's coordinates, then the draw offer that may come with
/// it (`offeringDraw=true`).
async fn make_move(services: &Services, call: &Call, id: &str, text: &str) -> Result<(), Status> {
    let game = services.game(call, id).await?;
    let Some(uci) = shapes::read_move(game.variant, text) else {
        return Err(Status::invalid_argument(format!("{text} is off the board")));
    };
    services
        .games
        .make_move(call.request(pb::MakeMoveRequest {
            game_id: id.to_owned(),
            r#move: uci,
            ..Default::default()
        }))
        .await?;
    if call.flag("offeringDraw").ok().flatten() == Some(true) {
        services
            .games
            .offer_draw(call.request(pb::OfferDrawRequest {
                game_id: id.to_owned(),
                ..Default::default()
            }))
            .await?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Offer {
    Draw,
    Takeback,
}

/// `yes`: accepts the opponent's offer, or makes one; `no`: declines the
/// opponent's, if they made one.
async fn offer(
    services: &Services,
    call: &Call,
    id: &str,
    offer: Offer,
    yes: bool,
) -> Result<(), Status> {
    let game = services.game(call, id).await?;
    let pending = match offer {
        Offer::Draw => game.draw_offer,
        Offer::Takeback => game.takeback_offer,
    };
    let (me, _) = services
        .me(call)
        .await
        .map_err(|_| Status::unauthenticated("No such token"))?;
    let mine = side_of(&game, &me.id).ok_or_else(|| Status::not_found("No such game"))?;
    let theirs = pending != 0 && pending != mine as i32;
    let game_id = id.to_owned();
    match (offer, theirs, yes) {
        (_, false, false) => Ok(()),
        (Offer::Draw, true, accept) => services
            .games
            .respond_to_draw(call.request(pb::RespondToDrawRequest {
                game_id,
                accept,
                ..Default::default()
            }))
            .await
            .map(drop),
        (Offer::Takeback, true, accept) => services
            .games
            .respond_to_takeback(call.request(pb::RespondToTakebackRequest {
                game_id,
                accept,
                ..Default::default()
            }))
            .await
            .map(drop),
        (Offer::Draw, false, true) => services
            .games
            .offer_draw(call.request(pb::OfferDrawRequest {
                game_id,
                ..Default::default()
            }))
            .await
            .map(drop),
        (Offer::Takeback, false, true) => services
            .games
            .propose_takeback(call.request(pb::ProposeTakebackRequest {
                game_id,
                ..Default::default()
            }))
            .await
            .map(drop),
    }
}

/// `GET /game/export/{id}`: the game's PGN.
pub(super) async fn export(services: &Services, call: &Call, id: &str) -> Answer {
    let exported = services
        .games
        .export_game(call.request(pb::ExportGameRequest {
            game_id: id.to_owned(),
            ..Default::default()
        }))
        .await;
    match exported {
        Ok(exported) => Answer::Pgn(exported.into_inner().pgn),
        Err(status) => status.into(),
    }
}

/// A chat line: checked, and answered as Lichess answers it.
fn chat(call: &Call) -> Answer {
    let Some(text) = call.field("text") else {
        return Answer::bad_request("text is required");
    };
    if text.chars().count() > MAX_CHAT {
        return Answer::bad_request(format!("a chat line has at most {MAX_CHAT} characters"));
    }
    match call.field("room") {
        Some("player" | "spectator") => Answer::ok(),
        _ => Answer::bad_request("room must be player or spectator"),
    }
}

impl Services {
    /// Game `id` without its moves.
    async fn game(&self, call: &Call, id: &str) -> Result<pb::Game, Status> {
        let game = self
            .games
            .get_game(call.request(pb::GetGameRequest {
                game_id: id.to_owned(),
                view: pb::GameView::Basic as i32,
            }))
            .await?
            .into_inner()
            .game;
        game.ok_or_else(|| Status::not_found("No such game"))
    }
}
