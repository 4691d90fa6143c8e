//! What a player is told of a game they have a seat in, from the game's
//! state after each of its events: the turn, an offer to answer, the end.
//! WatchPlayer and WatchEvents tell it alike.

use std::task::{Context, Poll};

use tonic::Status;

use super::{convert, error::player_too_slow, frames::unframed, proto as pb};
use crate::{games::Watcher, rules::Side};

/// What a seat has been told of its game's state.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Told {
    /// The ply its turn was told at, while it is still its turn.
    turn: Option<u32>,
    /// The opponent's pending draw offer was told.
    draw_offer: bool,
    /// The opponent's pending takeback proposal was told.
    takeback_offer: bool,
}

/// A seat followed.
#[derive(Debug)]
pub(super) struct Seat {
    pub(super) game_id: String,
    pub(super) side: Side,
    pub(super) watcher: Watcher,
    pub(super) told: Told,
}

/// The player's events for the game `game` (after the move `played`, if
/// one was), seen from `side`, given what was `told` before; updates
/// `told`. The game is over if the last event is `GAME_ENDED`.
pub(super) fn player_events(
    side: Side,
    told: &mut Told,
    game: &pb::Game,
    played: Option<&pb::PlayedMove>,
) -> Vec<pb::WatchPlayerResponse> {
    let event =
        |kind: pb::PlayerEventKind, played: Option<&pb::PlayedMove>| pb::WatchPlayerResponse {
            kind: kind as i32,
            game: Some(game.clone()),
            side: convert::side(side),
            r#move: played.cloned(),
        };
    let ongoing = game
        .outcome
        .as_ref()
        .is_some_and(|o| o.status == pb::OutcomeStatus::Ongoing as i32);
    if !ongoing {
        return vec![event(pb::PlayerEventKind::GameEnded, None)];
    }
    let mine = convert::side(side);
    let theirs = convert::side(side.other());
    let mut events = Vec::new();
    let draw_offer = game.draw_offer == theirs;
    if draw_offer && !told.draw_offer {
        events.push(event(pb::PlayerEventKind::DrawOffered, None));
    }
    told.draw_offer = draw_offer;
    let takeback_offer = game.takeback_offer == theirs;
    if takeback_offer && !told.takeback_offer {
        events.push(event(pb::PlayerEventKind::TakebackProposed, None));
    }
    told.takeback_offer = takeback_offer;
    if game.turn != mine {
        told.turn = None;
    } else if told.turn != Some(game.ply) {
        told.turn = Some(game.ply);
        events.push(event(pb::PlayerEventKind::YourTurn, played));
    }
    events
}

pub(super) fn is_end(event: &pb::WatchPlayerResponse) -> bool {
    event.kind == pb::PlayerEventKind::GameEnded as i32
}

/// Reads `seats`' watchers in turn, from the one after `next`, until one
/// has an event: the player's events it makes, the seat dropped once its
/// game ended; pending while none has one.
pub(super) fn poll_seats(
    seats: &mut Vec<Seat>,
    next: &mut usize,
    cx: &mut Context<'_>,
) -> Poll<Result<Vec<pb::WatchPlayerResponse>, Status>> {
    for _ in 0..seats.len() {
        let index = *next % seats.len();
        *next = index + 1;
        let seat = &mut seats[index];
        let event = match seat.watcher.poll_next(cx) {
            Poll::Pending => continue,
            Poll::Ready(None) => None,
            Poll::Ready(Some(Err(behind))) => {
                return Poll::Ready(Err(player_too_slow(&seat.game_id, behind)));
            }
            Poll::Ready(Some(Ok(event))) => Some(event),
        };
        let mut ended = event.is_none();
        let mut told = Vec::new();
        for frame in event.iter().flat_map(|event| &event.messages) {
            let message = unframed(frame)?;
            let Some(game) = &message.game else { continue };
            let events = player_events(seat.side, &mut seat.told, game, message.r#move.as_ref());
            ended = events.iter().any(is_end);
            told.extend(events);
            if ended {
                break;
            }
        }
        if ended {
            seats.swap_remove(index);
        }
        return Poll::Ready(Ok(told));
    }
    Poll::Pending
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(turn: pb::Side, ply: u32, draw_offer: pb::Side, status: pb::OutcomeStatus) -> pb::Game {
        pb::Game {
            turn: turn as i32,
            ply,
            draw_offer: draw_offer as i32,
            outcome: Some(pb::Outcome {
                status: status as i32,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn kinds(events: &[pb::WatchPlayerResponse]) -> Vec<pb::PlayerEventKind> {
        events
            .iter()
            .map(|e| pb::PlayerEventKind::try_from(e.kind).unwrap())
            .collect()
    }

    /// Each turn, offer and end is told once, as the game's state shows it.
    #[test]
    fn a_seat_is_told_its_turns_offers_and_end_once_each() {
        use pb::{
            OutcomeStatus::{Drawn, Ongoing},
            PlayerEventKind::{DrawOffered, GameEnded, YourTurn},
            Side::*,
        };
        let mut told = Told::default();
        let black = Side::Black;
        let mut step = |g: pb::Game| kinds(&player_events(black, &mut told, &g, None));
        assert_eq!(step(game(White, 0, Unspecified, Ongoing)), []);
        assert_eq!(step(game(Black, 1, Unspecified, Ongoing)), [YourTurn]);
        assert_eq!(
            step(game(Black, 1, White, Ongoing)),
            [DrawOffered],
            "no second turn"
        );
        assert_eq!(step(game(White, 2, Unspecified, Ongoing)), []);
        assert_eq!(step(game(Black, 3, Unspecified, Ongoing)), [YourTurn]);
        // A takeback to the same ply gives the turn back: told again.
        assert_eq!(step(game(White, 2, Unspecified, Ongoing)), []);
        assert_eq!(
            step(game(Black, 3, White, Ongoing)),
            [DrawOffered, YourTurn]
        );
        assert_eq!(step(game(Unspecified, 3, Unspecified, Drawn)), [GameEnded]);
    }
}
