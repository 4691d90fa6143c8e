//! A game's chat: a players' room, which only the game's players write and
//! read, and a spectators' room, which any player writes and anyone reads
//! (as Lichess has them). Lines are stored (the last `--chat-lines` of each
//! game), and each rings the game's chat bell, here or, on a shared store,
//! through the change feed on every server, so that readers waiting on it
//! read the new lines at once.

use tokio::sync::watch;

use super::GameId;
use super::{
    Games,
    model::{GameError, Refusal, refuse_hidden_characters},
};
use crate::{
    reason::Reason,
    store::{ChatRoom, StoredChatLine, StoredGame},
};

/// Default `--chat-lines`: lines a game's chat keeps.
pub const DEFAULT_CHAT_LINES: u32 = 200;
/// The longest chat line, in characters (Lichess's).
pub const MAX_CHAT_LINE: usize = 140;
/// Lines one read answers with at most.
pub const CHAT_READ: u32 = 100;

/// Whether player `player` holds a seat of `game`.
fn seated(game: &StoredGame, player: &str) -> bool {
    [&game.white_player, &game.black_player]
        .into_iter()
        .any(|seat| seat.as_deref() == Some(player))
}

impl Games {
    /// The service whose games' chats keep their last `lines` lines.
    #[must_use]
    pub fn with_chat_lines(self, lines: u32) -> Games {
        Games {
            chat_lines: lines.max(1),
            ..self
        }
    }

    /// Says `text` in game `id`'s `room` as player `player_id`, named
    /// `username`.
    ///
    /// # Errors
    ///
    /// INVALID_ARGUMENT for an empty, too long or unprintable text;
    /// NOT_FOUND for no such game; PERMISSION_DENIED `NOT_YOUR_SEAT` in the
    /// players' room for someone not playing; storage.
    pub async fn say(
        &self,
        id: &GameId,
        room: ChatRoom,
        (player_id, username): (&str, &str),
        text: &str,
    ) -> Result<StoredChatLine, GameError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(GameError::invalid(
                "text",
                Reason::MissingField,
                "a chat line needs text",
            ));
        }
        let length = text.chars().count();
        if length > MAX_CHAT_LINE {
            return Err(GameError::OverLimit {
                field: "text",
                reason: Reason::TooLong,
                limit: "limit_chat_line",
                value: MAX_CHAT_LINE,
                message: format!(
                    "a chat line has at most {MAX_CHAT_LINE} characters, not {length}"
                ),
            });
        }
        refuse_hidden_characters("text", text)?;
        let game = self.load(id).await?;
        if room == ChatRoom::Player && !seated(&game, player_id) {
            return Err(GameError::PermissionDenied(Refusal::new(
                Reason::NotYourSeat,
                "only the game's players write in its players' room",
            )));
        }
        let line = self
            .store
            .add_chat_line(id, room, player_id, username, text, self.chat_lines)
            .await?;
        self.chat_bells.ring(id);
        Ok(line)
    }

    /// Game `id`'s chat lines after number `after` that `reader` (a player
    /// id; None: anyone) may read: the players' room for the game's
    /// players, the spectators' room for all. At most [`CHAT_READ`].
    ///
    /// # Errors
    ///
    /// NOT_FOUND for no such game; storage.
    pub async fn chat(
        &self,
        id: &GameId,
        reader: Option<&str>,
        after: i64,
    ) -> Result<Vec<StoredChatLine>, GameError> {
        let game = self.load(id).await?;
        let rooms: &[ChatRoom] = if reader.is_some_and(|reader| seated(&game, reader)) {
            &[ChatRoom::Player, ChatRoom::Spectator]
        } else {
            &[ChatRoom::Spectator]
        };
        Ok(self.store.chat_lines(id, after, rooms, CHAT_READ).await?)
    }

    /// Game `id`'s chat bell, rung by each new line.
    pub fn listen_chat(&self, id: &str) -> watch::Receiver<u64> {
        self.chat_bells.listen(id)
    }
}
