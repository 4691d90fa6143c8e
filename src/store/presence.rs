//! Who is at the board (`migrations/*/…_seat_presence.sql`): each seat's
//! count of open game streams, on every server, and when its last one
//! closed. On PostgreSQL each change is announced on the change feed, so
//! that every server's streams of the game look at once.

use sqlx::{AnyConnection, Row};

use super::{Backend, Store, StoreError, changes};
use crate::rules::Side;

/// A seat's presence as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredPresence {
    /// Game streams of the seat's player open now.
    pub streams: i64,
    /// When the last of them closed, if none is open.
    pub left_at: Option<i64>,
}

async fn announce(conn: &mut AnyConnection, backend: Backend, id: &str) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        changes::announce_presence(conn, id).await?;
    }
    Ok(())
}

impl Store {
    /// A stream of `side`'s player in game `game_id` opened.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn arrive(&self, game_id: &str, side: Side) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        sqlx::query(
            "INSERT INTO seat_presence (game_id, side, streams, left_at) VALUES ($1, $2, 1, NULL) \
             ON CONFLICT (game_id, side) DO UPDATE \
             SET streams = seat_presence.streams + 1, left_at = NULL",
        )
        .bind(game_id)
        .bind(side.name())
        .execute(tx.conn())
        .await?;
        announce(tx.conn(), self.backend, game_id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A stream of `side`'s player in game `game_id` closed at `now`; once
    /// the game is over its seats' rows go.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn leave(
        &self,
        game_id: &str,
        side: Side,
        now: i64,
        game_over: bool,
    ) -> Result<(), StoreError> {
        let mut tx = self.writer.begin().await?;
        if game_over {
            sqlx::query("DELETE FROM seat_presence WHERE game_id = $1")
                .bind(game_id)
                .execute(tx.conn())
                .await?;
        } else {
            sqlx::query(
                "UPDATE seat_presence SET streams = streams - 1, \
                 left_at = CASE WHEN streams = 1 THEN $3 ELSE left_at END \
                 WHERE game_id = $1 AND side = $2 AND streams > 0",
            )
            .bind(game_id)
            .bind(side.name())
            .bind(now)
            .execute(tx.conn())
            .await?;
        }
        announce(tx.conn(), self.backend, game_id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// `side`'s presence in game `game_id`, if a stream of its player ever
    /// opened there.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn presence(
        &self,
        game_id: &str,
        side: Side,
    ) -> Result<Option<StoredPresence>, StoreError> {
        let row = sqlx::query(
            "SELECT streams, left_at FROM seat_presence WHERE game_id = $1 AND side = $2",
        )
        .bind(game_id)
        .bind(side.name())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|row| StoredPresence {
            streams: row.get(0),
            left_at: row.get(1),
        }))
    }

    /// Forgets every presence: on a store no other server shares, no stream
    /// is open before this server starts.
    pub(super) async fn forget_presence(writer: &sqlx::AnyPool) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM seat_presence")
            .execute(writer)
            .await
            .map(drop)
    }
}
