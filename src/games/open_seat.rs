//! Open seats: a game created with one seat left open, for a player to
//! take with the game's join code (the "send a link to a friend" flow).
//!
//! The host gets its own token and the join code; `JoinGame` takes the seat
//! under the game's write lock, so of two players racing for it exactly one
//! gets it (the other hears `SEAT_TAKEN`), whichever servers they call. The
//! clocks are held while the seat is open (nothing runs, nothing falls):
//! the turn starts when the seat is taken. Moves and offers wait for the
//! seat (`SEAT_OPEN`); the host may abort.
//!
//! A game whose seat nobody takes within the server's open-seat timeout is
//! aborted (`unjoined`). Every server sweeps for them through an index, on
//! SQLite as on PostgreSQL, and the abort is written only if the game is
//! still at the version it was checked on: it happens once, whichever
//! servers see it due.

use std::time::Duration;

use rand::Rng;

use super::{
    Games,
    model::Status,
    model::{
        EventKind, GameError, GameView, SeatSpec, end_aborted, ensure_ongoing, ids,
        refuse_hidden_characters, seat_name, view_of,
    },
};
use crate::{
    reason::Reason,
    rules::Side,
    store::{OpenSeat, Update},
};

/// How long an open seat waits for a player by default.
pub const DEFAULT_OPEN_SEAT_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// The join code's symbols: Crockford's base 32 (no I, L, O or U), so that
/// a code read aloud or typed from a screen comes out right.
const CODE_ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/// Symbols in a join code: 50 bits, so that guessing one (JoinGame counts
/// against the creating calls' rate limit) is hopeless within its timeout.
pub const CODE_LENGTH: usize = 10;

/// Open games an expiry sweep takes up at most.
const SWEEP_BATCH: u32 = 100;

/// How often each server looks for open seats nobody took in time: an
/// open game expires at most about this late. Whichever servers look, the
/// expiry is recorded once (checked again in its write).
const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// A game and the caller's seat in it, with the seat's token.
#[derive(Clone, Debug)]
pub struct SeatedGame {
    pub game: GameView,
    pub side: Side,
    pub token: String,
}

fn new_join_code() -> String {
    let mut rng = rand::rng();
    (0..CODE_LENGTH)
        .map(|_| char::from(CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())]))
        .collect()
}

/// `text` as a join code: case, spaces and dashes do not matter, and the
/// letters Crockford reads as digits (O, I, L) are read so; `None` if it
/// cannot be one.
fn read_join_code(text: &str) -> Option<String> {
    let code: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            c => c,
        })
        .collect();
    (code.len() == CODE_LENGTH && code.bytes().all(|b| CODE_ALPHABET.contains(&b))).then_some(code)
}

fn join_code_unknown() -> GameError {
    GameError::NotFound(super::Refusal::new(
        Reason::JoinCodeUnknown,
        "no game has this join code",
    ))
}

fn require_join_code(code: &str) -> Result<(), GameError> {
    if code.trim().is_empty() {
        return Err(GameError::invalid(
            "join_code",
            Reason::MissingField,
            "join_code is required: the code CreateGame gave the host",
        ));
    }
    Ok(())
}

fn seat_taken() -> GameError {
    GameError::precondition(Reason::SeatTaken, "another player has taken the seat")
}

/// The seat left open of a new game's `white` and `black`, if one is:
/// one seat at most, taking nothing of its own (no name, no engine), and
/// facing a human, the host.
pub(super) fn open_side(white: &SeatSpec, black: &SeatSpec) -> Result<Option<Side>, GameError> {
    let (side, open, host) = match (white.open, black.open) {
        (false, false) => return Ok(None),
        (true, true) => {
            return Err(GameError::invalid(
                "black.open",
                Reason::InvalidOpenSeat,
                "only one seat may be left open: the other is the host's",
            ));
        }
        (true, false) => (Side::White, white, black),
        (false, true) => (Side::Black, black, white),
    };
    let field = match side {
        Side::White => "white.open",
        Side::Black => "black.open",
    };
    let refuse = |message: &str| {
        Err(GameError::invalid(
            field,
            Reason::InvalidOpenSeat,
            message.to_owned(),
        ))
    };
    if open.engine.is_some() {
        return refuse("an open seat is for a player to take: it cannot be the engine's");
    }
    if !open.display_name.trim().is_empty() {
        return refuse("an open seat takes its display name from the player who joins");
    }
    if host.engine.is_some() {
        return refuse("the seat facing an open seat is the host's: it cannot be the engine's");
    }
    Ok(Some(side))
}

impl Games {
    /// The open seat of a game created at `now` on `side`, with a fresh
    /// join code.
    pub(super) fn open_seat(&self, side: Side, now: i64) -> OpenSeat {
        let timeout = i64::try_from(self.open_seat_timeout.as_millis()).unwrap_or(i64::MAX);
        OpenSeat {
            side,
            join_code: new_join_code(),
            until: now.saturating_add(timeout),
        }
    }

    /// The game whose open seat `code` takes, and that seat's side: what a
    /// player sees before joining.
    ///
    /// # Errors
    ///
    /// As [`Games::join`]'s, but for the name.
    pub async fn open_seat_of(&self, code: &str) -> Result<(GameView, Side), GameError> {
        let id = self.game_of_join_code(code).await?;
        let game = self.load(&id).await?;
        ensure_ongoing(&game)?;
        let view = view_of(&game)?;
        let side = view.open_seat.ok_or_else(seat_taken)?;
        Ok((view, side))
    }

    /// The id of the game whose join code is `code`.
    async fn game_of_join_code(&self, code: &str) -> Result<String, GameError> {
        require_join_code(code)?;
        let code = read_join_code(code).ok_or_else(join_code_unknown)?;
        self.store
            .game_by_join_code(&code)
            .await?
            .ok_or_else(join_code_unknown)
    }

    /// Takes the open seat of the game whose join code is `code`, for a
    /// player shown as `display_name` (empty: the player's name, else the
    /// side's); with `player` (id and display name), the seat is bound to
    /// that player, who plays it with their own credential too.
    ///
    /// # Errors
    ///
    /// No code, an unknown code, a bad name, a game that is over (expired
    /// or aborted) or a seat already taken, the player holding the other
    /// seat, or storage.
    pub async fn join(
        &self,
        code: &str,
        display_name: &str,
        player: Option<(&str, &str)>,
    ) -> Result<SeatedGame, GameError> {
        require_join_code(code)?;
        refuse_hidden_characters("display_name", display_name)?;
        let id = self.game_of_join_code(code).await?;
        let token = ids::new_token();
        let now = self.time.now();
        let (game, side) = self
            .change(&id, |game, _| {
                ensure_ongoing(game)?;
                let Some(open) = game.open.take() else {
                    return Err(seat_taken());
                };
                let side = open.side;
                let variant = game.variant;
                let (other, seat_player) = match side {
                    Side::White => (&game.black_player, &mut game.white_player),
                    Side::Black => (&game.white_player, &mut game.black_player),
                };
                if let Some((id, _)) = player
                    && other.as_deref() == Some(id)
                {
                    return Err(GameError::invalid(
                        "join_code",
                        Reason::InvalidPlayerSeat,
                        "one player holds at most one seat of a game: this game's other seat is \
                         yours",
                    ));
                }
                *seat_player = player.map(|(id, _)| id.to_owned());
                let shown = match (display_name.trim(), player) {
                    ("", Some((_, name))) => name,
                    _ => display_name,
                };
                let spec = SeatSpec {
                    display_name: shown.to_owned(),
                    ..SeatSpec::default()
                };
                let name = seat_name("display_name", &spec, variant, side)?;
                let hash = ids::hash_token(&token);
                match side {
                    Side::White => (game.white_name, game.white_token_hash) = (name, hash),
                    Side::Black => (game.black_name, game.black_token_hash) = (name, hash),
                }
                // The first turn starts now.
                if let Some(clock) = &mut game.clock {
                    clock.held = false;
                    clock.turn_started_at = now;
                }
                Ok::<_, GameError>(Update {
                    value: side,
                    event: EventKind::SeatJoined.name(),
                    side: Some(side),
                })
            })
            .await?;
        self.arm_clock(&game);
        Ok(SeatedGame { game, side, token })
    }

    /// Aborts game `id` if its seat is still open past its time, and tells
    /// its watchers; nothing otherwise.
    async fn expire_open_seat(&self, id: &str) -> Result<(), GameError> {
        let now = self.time.now();
        let expired = self
            .change(id, |game, _| {
                let due = game.status == Status::Ongoing
                    && game.open.as_ref().is_some_and(|o| o.until <= now);
                if !due {
                    return Err(Unexpired(None));
                }
                end_aborted(game, super::Ending::Unjoined);
                Ok(Update {
                    value: (),
                    event: EventKind::Aborted.name(),
                    side: None,
                })
            })
            .await;
        let game = match expired {
            Ok((game, ())) => game,
            Err(Unexpired(None)) => return Ok(()),
            Err(Unexpired(Some(error))) => return Err(error),
        };
        self.arm_clock(&game);
        Ok(())
    }
}

/// Why an open seat's expiry wrote nothing: not due (`None`), or an error.
struct Unexpired(Option<GameError>);

impl<E: Into<GameError>> From<E> for Unexpired {
    fn from(e: E) -> Unexpired {
        Unexpired(Some(e.into()))
    }
}

/// Every [`SWEEP_INTERVAL`] until the store closes: aborts the games whose
/// open seat nobody took in time.
pub(super) async fn sweep(games: Games) {
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if games.store.is_closed() {
            return;
        }
        match games
            .store
            .due_open_seats(games.time.now(), SWEEP_BATCH)
            .await
        {
            Ok(due) => {
                for id in due {
                    if let Err(error) = games.expire_open_seat(&id).await {
                        tracing::warn!(game_id = %id, %error, "an open seat's expiry was not recorded");
                    }
                }
            }
            Err(error) => tracing::debug!(%error, "cannot look for expired open seats"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_codes_read_back_however_typed() {
        let code = new_join_code();
        assert_eq!(read_join_code(&code).as_deref(), Some(code.as_str()));
        assert_eq!(
            read_join_code("k7q2-m9xa 3b").as_deref(),
            Some("K7Q2M9XA3B")
        );
        assert_eq!(read_join_code("OIL0000000").as_deref(), Some("0110000000"));
        for bad in ["", "K7Q2M9XA3", "K7Q2M9XA3BB", "K7Q2M9XA3U", "K7Q2M9XA3é"] {
            assert_eq!(read_join_code(bad), None, "{bad}");
        }
    }
}
