//! The rules of play, as functions of the stored game: whose seat a token
//! is, whose turn it is, what a player may do now, playing a move, and how
//! a game ends. The services judge every request with these.

use std::fmt::Display;

use super::{
    Status,
    ending::Ending,
    error::{GameError, Refusal},
    ids,
    move_text::MoveText,
    names::refuse_hidden_characters,
    seats::SeatSpec,
};
use crate::{
    reason::Reason,
    rules::{
        MoveError, Quoted, RuleChoices, Side, Variant,
        referee::{Referee, referee_under},
        xiangqi::XiangqiRules,
    },
    store::{StoredGame, StoredMove},
};

const MAX_NAME: usize = 100;

/// The display name of `variant`'s `side` seat; left empty, an engine's
/// is "Arbiter (level N)", a human's the side's name in the game.
pub(in crate::games) fn seat_name(
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
pub(in crate::games) fn side_title(variant: Variant, side: Side) -> &'static str {
    match (variant, side) {
        (Variant::Xiangqi, Side::White) => "Red",
        (_, Side::White) => "White",
        (_, Side::Black) => "Black",
    }
}

/// Checks that the pending `offer` (a side's name) is the opponent's.
pub(in crate::games) fn offered_by_opponent(
    offer: Option<Side>,
    side: Side,
    what: &str,
) -> Result<(), GameError> {
    if offer == Some(side.other()) {
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
pub(in crate::games) fn ensure_seated(game: &StoredGame) -> Result<(), GameError> {
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

pub(in crate::games) fn ensure_ongoing(game: &StoredGame) -> Result<(), GameError> {
    if game.status == Status::Ongoing {
        Ok(())
    } else {
        Err(GameError::GameOver(format!(
            "the game is over ({})",
            game.termination.as_deref().unwrap_or(game.status.name())
        )))
    }
}

/// Checks that `side` is to move (`turn`) in a game of `variant`.
pub(in crate::games) fn ensure_turn(
    variant: Variant,
    turn: Side,
    side: Side,
) -> Result<(), GameError> {
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
pub(in crate::games) fn ensure_ply(expected_ply: Option<u32>, ply: usize) -> Result<(), GameError> {
    if expected_ply.is_some_and(|expected| expected as usize != ply) {
        Err(GameError::Conflict {
            current_ply: ply as u32,
        })
    } else {
        Ok(())
    }
}

pub(in crate::games) fn replay(game: &StoredGame) -> Result<Box<dyn Referee>, GameError> {
    let variant = game.variant;
    let corrupt =
        |e: &dyn Display| GameError::Corrupt(format!("game {} does not replay: {e}", game.id));
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
pub(in crate::games) fn rule_choices(game: &StoredGame) -> Option<RuleChoices> {
    let xiangqi = match game.xiangqi_rules.as_deref() {
        None => XiangqiRules::default(),
        Some(name) => XiangqiRules::from_name(name)?,
    };
    Some(RuleChoices { xiangqi })
}

/// Plays `text` on `record` and appends it to `game`, ending the game if the
/// rules say so.
pub(in crate::games) fn play(
    game: &mut StoredGame,
    record: &mut dyn Referee,
    text: MoveText<'_>,
    now: i64,
) -> Result<(), GameError> {
    let text = text.read(record.variant())?;
    let played = record.play(&text).map_err(|e| match e {
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
pub(in crate::games) fn new_game(
    variant: Variant,
    choices: RuleChoices,
    record: &dyn Referee,
    white_name: String,
    black_name: String,
) -> (StoredGame, [String; 2]) {
    let tokens = [ids::new_token(), ids::new_token()];
    let game = StoredGame {
        id: ids::new_id(),
        variant,
        start_fen: record.start_fen(),
        white_name,
        black_name,
        white_token_hash: ids::hash_token(&tokens[0]),
        black_token_hash: ids::hash_token(&tokens[1]),
        white_engine: None,
        black_engine: None,
        moves: Vec::new(),
        status: Status::Ongoing,
        winner: None,
        termination: None,
        engine_grants_takebacks: true,
        clock: None,
        engine_due_at: None,
        xiangqi_rules: (variant == Variant::Xiangqi).then(|| choices.xiangqi.name().to_owned()),
        open: None,
        rematch_of: None,
        ..StoredGame::default()
    };
    (game, tokens)
}

pub(in crate::games) fn abort(game: &mut StoredGame) {
    end_aborted(game, Ending::Aborted);
}

/// Ends `game` as aborted, by the players or the server (`Aborted`) or by
/// the operator.
pub(in crate::games) fn end_aborted(game: &mut StoredGame, ending: Ending) {
    game.status = Status::Aborted;
    game.termination = Some(ending.code().to_owned());
    game.draw_offer = None;
    game.takeback_offer = None;
}

pub(in crate::games) fn finish(game: &mut StoredGame, winner: Option<Side>, ending: Ending) {
    game.status = Status::ended(winner.is_some());
    game.winner = winner;
    game.termination = Some(ending.code().to_owned());
    game.draw_offer = None;
    game.takeback_offer = None;
}

/// The side to move after `ply` moves from `start_fen` (a stored FEN, whose
/// second field is `w` or `b` in both games).
pub(in crate::games) fn turn_after(start_fen: &str, ply: usize) -> Side {
    let first = match start_fen.split_whitespace().nth(1) {
        Some("b") => Side::Black,
        _ => Side::White,
    };
    if ply.is_multiple_of(2) {
        first
    } else {
        first.other()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_alternates_from_the_start_position() {
        let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(turn_after(chess, 0), Side::White);
        assert_eq!(turn_after(chess, 3), Side::Black);
        let black_first = "4k3/8/8/8/8/8/8/4K3 b - - 0 1";
        assert_eq!(turn_after(black_first, 0), Side::Black);
        assert_eq!(turn_after(black_first, 1), Side::White);
    }
}
