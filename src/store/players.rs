//! Players and their tokens (`migrations/*/…_players.sql`).

use sqlx::Row;

use super::{Store, StoreError, now_millis};

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPlayer {
    /// The username in lower case.
    pub id: String,
    pub username: String,
    pub display_name: String,
    /// Unix milliseconds (set by the store on insert).
    pub created_at: i64,
}

/// The player's id (their username in any case) is another player's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsernameTaken;

impl Store {
    /// Creates `player`, with the token hashed `token_hash` if it has one,
    /// in one transaction.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_player(
        &self,
        player: StoredPlayer,
        token_hash: Option<&str>,
    ) -> Result<Result<StoredPlayer, UsernameTaken>, StoreError> {
        let created_at = now_millis();
        let mut tx = self.writer.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO players (id, username, display_name, created_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING seq",
        )
        .bind(&player.id)
        .bind(&player.username)
        .bind(&player.display_name)
        .bind(created_at)
        .fetch_optional(tx.conn())
        .await?;
        if let (Some(_), Some(token_hash)) = (&inserted, token_hash) {
            insert_token(tx.conn(), &player.id, token_hash, created_at).await?;
        }
        // Committed either way: a transaction dropped open is taken for a
        // failing database.
        tx.commit().await?;
        Ok(match inserted {
            Some(_) => Ok(StoredPlayer {
                created_at,
                ..player
            }),
            None => Err(UsernameTaken),
        })
    }

    /// The player whose id is `id`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn player(&self, id: &str) -> Result<Option<StoredPlayer>, StoreError> {
        let row =
            sqlx::query("SELECT id, username, display_name, created_at FROM players WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|row| StoredPlayer {
            id: row.get(0),
            username: row.get(1),
            display_name: row.get(2),
            created_at: row.get(3),
        }))
    }

    /// The id of the player holding the token hashed `token_hash`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn player_of_token(&self, token_hash: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT player_id FROM player_tokens WHERE token_hash = $1")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|row| row.get(0)))
    }

    /// Gives player `id` the token hashed `token_hash`, unless they hold
    /// `most` tokens already (`false`).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn add_player_token(
        &self,
        id: &str,
        token_hash: &str,
        most: usize,
    ) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        let held: i64 = sqlx::query("SELECT count(*) FROM player_tokens WHERE player_id = $1")
            .bind(id)
            .fetch_one(tx.conn())
            .await?
            .get(0);
        let room = usize::try_from(held).unwrap_or(usize::MAX) < most;
        if room {
            insert_token(tx.conn(), id, token_hash, now_millis()).await?;
        }
        tx.commit().await?;
        Ok(room)
    }

    /// Revokes player `id`'s token hashed `token_hash`, or all their tokens
    /// (`None`); how many were.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn revoke_player_tokens(
        &self,
        id: &str,
        token_hash: Option<&str>,
    ) -> Result<u64, StoreError> {
        let mut tx = self.writer.begin().await?;
        let done = match token_hash {
            Some(hash) => {
                sqlx::query("DELETE FROM player_tokens WHERE player_id = $1 AND token_hash = $2")
                    .bind(id)
                    .bind(hash)
                    .execute(tx.conn())
                    .await?
            }
            None => {
                sqlx::query("DELETE FROM player_tokens WHERE player_id = $1")
                    .bind(id)
                    .execute(tx.conn())
                    .await?
            }
        };
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}

async fn insert_token(
    conn: &mut sqlx::AnyConnection,
    id: &str,
    token_hash: &str,
    created_at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO player_tokens (token_hash, player_id, created_at) VALUES ($1, $2, $3)")
        .bind(token_hash)
        .bind(id)
        .bind(created_at)
        .execute(conn)
        .await
        .map(drop)
}
