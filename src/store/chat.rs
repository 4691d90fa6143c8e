//! Games' chat (`migrations/*/…_game_chat.sql`): lines numbered from 1 per
//! game in commit order, the oldest dropped beyond the number kept. On
//! PostgreSQL each line is announced on the change feed, so that every
//! server's readers of the game's chat read it at once.

use sqlx::{AnyConnection, Row, any::AnyRow};

use super::{Backend, Store, StoreError, changes, now_millis, rows::decoded};
use crate::rules::named;

named! {
    /// A game's chat rooms, as Lichess has them.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum ChatRoom, refused as UnknownRoom ("chat room") {
        /// The players' room: only the game's players write and read it.
        Player = "player",
        /// The spectators' room: any player writes it, anyone reads it.
        Spectator = "spectator",
    }
}

/// A line of a game's chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChatLine {
    /// Its number in the game's chat.
    pub seq: i64,
    pub room: ChatRoom,
    /// The writer, if still a player.
    pub player_id: Option<String>,
    pub username: String,
    pub text: String,
    pub sent_at: i64,
}

fn line_of(row: &AnyRow) -> Result<StoredChatLine, sqlx::Error> {
    Ok(StoredChatLine {
        seq: row.get(0),
        room: decoded(row, 1)?,
        player_id: row.get(2),
        username: row.get(3),
        text: row.get(4),
        sent_at: row.get(5),
    })
}

/// Announces a new line of game `id`'s chat (in the writing transaction).
async fn announce(conn: &mut AnyConnection, backend: Backend, id: &str) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        changes::announce_chat(conn, id).await?;
    }
    Ok(())
}

impl Store {
    /// Adds a line to game `game_id`'s chat, keeping its last `kept` lines.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn add_chat_line(
        &self,
        game_id: &str,
        room: ChatRoom,
        player_id: &str,
        username: &str,
        text: &str,
        kept: u32,
    ) -> Result<StoredChatLine, StoreError> {
        let sent_at = now_millis();
        let mut tx = self.writer.begin().await?;
        let seq: i64 = sqlx::query_scalar(
            "INSERT INTO game_chat_heads (game_id, head) VALUES ($1, 1) \
             ON CONFLICT (game_id) DO UPDATE SET head = game_chat_heads.head + 1 \
             RETURNING head",
        )
        .bind(game_id)
        .fetch_one(tx.conn())
        .await?;
        sqlx::query(
            "INSERT INTO game_chat (game_id, seq, room, player_id, username, text, sent_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(game_id)
        .bind(seq)
        .bind(room.name())
        .bind(player_id)
        .bind(username)
        .bind(text)
        .bind(sent_at)
        .execute(tx.conn())
        .await?;
        sqlx::query("DELETE FROM game_chat WHERE game_id = $1 AND seq <= $2")
            .bind(game_id)
            .bind(seq - i64::from(kept))
            .execute(tx.conn())
            .await?;
        announce(tx.conn(), self.backend, game_id).await?;
        tx.commit().await?;
        Ok(StoredChatLine {
            seq,
            room,
            player_id: Some(player_id.to_owned()),
            username: username.to_owned(),
            text: text.to_owned(),
            sent_at,
        })
    }

    /// Game `game_id`'s chat lines after number `after` in `rooms`, oldest
    /// first, at most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure, or a line that does not read back.
    pub async fn chat_lines(
        &self,
        game_id: &str,
        after: i64,
        rooms: &[ChatRoom],
        limit: u32,
    ) -> Result<Vec<StoredChatLine>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, room, player_id, username, text, sent_at FROM game_chat \
             WHERE game_id = $1 AND seq > $2 AND (room = $3 OR room = $4) \
             ORDER BY seq LIMIT $5",
        )
        .bind(game_id)
        .bind(after)
        .bind(rooms.first().map(|room| room.name()))
        .bind(rooms.get(1).map(|room| room.name()))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(line_of).collect::<Result<_, _>>()?)
    }
}
