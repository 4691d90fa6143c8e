//! Players and their tokens (`migrations/*/…_players.sql`).

use sqlx::Row;

use super::{
    Store, StoreError, challenges::log_withdrawn, holds::hold_player, names::reindex_players,
    now_millis, player_log::Log,
};

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPlayer {
    /// The username in lower case, or the identity provider's subject.
    pub id: String,
    pub username: String,
    pub display_name: String,
    /// Unix milliseconds (set by the store on insert).
    pub created_at: i64,
    /// A bot account (Lichess's BOT title).
    pub bot: bool,
    pub origin: PlayerOrigin,
}

/// Where a player comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerOrigin {
    /// Enrolled by Arbiter (CreatePlayer): the id is the username in lower
    /// case.
    Enrolled,
    /// Named by the platform's identity provider: the id is its subject.
    Provider,
    /// Enrolled before the origin was recorded.
    Unrecorded,
}

impl PlayerOrigin {
    fn column(self) -> Option<i64> {
        match self {
            PlayerOrigin::Enrolled => Some(0),
            PlayerOrigin::Provider => Some(1),
            PlayerOrigin::Unrecorded => None,
        }
    }

    fn of_column(value: Option<i64>) -> PlayerOrigin {
        match value {
            Some(0) => PlayerOrigin::Enrolled,
            Some(_) => PlayerOrigin::Provider,
            None => PlayerOrigin::Unrecorded,
        }
    }
}

/// The player's id, or their username in any case, is another player's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsernameTaken;

/// The columns a [`StoredPlayer`] is read from.
const PLAYER_COLUMNS: &str = "id, username, display_name, created_at, bot, from_provider";

fn player_from_row(row: &sqlx::any::AnyRow) -> StoredPlayer {
    StoredPlayer {
        id: row.get(0),
        username: row.get(1),
        display_name: row.get(2),
        created_at: row.get(3),
        bot: row.get::<i64, _>(4) != 0,
        origin: PlayerOrigin::of_column(row.get(5)),
    }
}

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
        // The unique indexes keep ids, and usernames in any case, apart;
        // the look at the username covers players from before the second.
        let inserted = sqlx::query(
            "INSERT INTO players (id, username, display_name, created_at, from_provider) \
             SELECT $1, $2, $3, $4, $5 \
             WHERE NOT EXISTS (SELECT 1 FROM players WHERE lower(username) = lower($2)) \
             ON CONFLICT DO NOTHING RETURNING seq",
        )
        .bind(&player.id)
        .bind(&player.username)
        .bind(&player.display_name)
        .bind(created_at)
        .bind(player.origin.column())
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
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {PLAYER_COLUMNS} FROM players WHERE id = $1 AND deleted_at IS NULL"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(player_from_row))
    }

    /// Whether player `id` was deleted (their id stays theirs).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn player_deleted(&self, id: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT 1 FROM players WHERE id = $1 AND deleted_at IS NOT NULL")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// The player whose username is `username`, in any case (ASCII, as
    /// usernames are).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn player_by_username(
        &self,
        username: &str,
    ) -> Result<Option<StoredPlayer>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {PLAYER_COLUMNS} FROM players \
             WHERE lower(username) = lower($1) AND deleted_at IS NULL ORDER BY seq LIMIT 1"
        )))
        .bind(username)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(player_from_row))
    }

    /// Makes player `id` a bot account; whether there is such a player.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn make_bot(&self, id: &str) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        let marked = sqlx::query("UPDATE players SET bot = 1 WHERE id = $1 AND deleted_at IS NULL")
            .bind(id)
            .execute(tx.conn())
            .await?;
        tx.commit().await?;
        Ok(marked.rows_affected() > 0)
    }

    /// Deletes player `id` at `now`, in one transaction: their tokens,
    /// ratings, rating history, open seeks and waiting challenges go, and
    /// their stored games name them `neutral` and are bound to nobody on
    /// their side. The player's row stays, marked, so their id is never
    /// another player's. Whether there was such a player.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn delete_player(
        &self,
        id: &str,
        neutral: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        let marked = sqlx::query(
            "UPDATE players SET deleted_at = $2, display_name = $3 \
             WHERE id = $1 AND deleted_at IS NULL",
        )
        .bind(id)
        .bind(now)
        .bind(neutral)
        .execute(tx.conn())
        .await?;
        if marked.rows_affected() == 0 {
            tx.commit().await?;
            return Ok(false);
        }
        for sql in [
            "DELETE FROM player_tokens WHERE player_id = $1",
            "DELETE FROM player_ratings WHERE player_id = $1",
            "DELETE FROM rating_history WHERE player_id = $1",
            "DELETE FROM seeks WHERE player = $1",
            "DELETE FROM player_events WHERE player_id = $1",
        ] {
            sqlx::query(sql).bind(id).execute(tx.conn()).await?;
        }
        let withdrawn = sqlx::query(
            "UPDATE challenges SET status = 'canceled' \
             WHERE status = 'open' AND (challenger = $1 OR destination = $1) \
             RETURNING id, destination, open_to, challenger, expires_at",
        )
        .bind(id)
        .fetch_all(tx.conn())
        .await?;
        // Those the player's waiting challenges were made to are told they
        // were withdrawn.
        let mut log = Log::default();
        for row in &withdrawn {
            let (challenge, challenger): (String, String) = (row.get(0), row.get(3));
            if challenger == id && row.get::<i64, _>(4) > now {
                log_withdrawn(&mut log, &challenge, row, 1);
            }
        }
        log.append(tx.conn(), self.backend).await?;
        sqlx::query("UPDATE game_chat SET player_id = NULL, username = $2 WHERE player_id = $1")
            .bind(id)
            .bind(neutral)
            .execute(tx.conn())
            .await?;
        let games = sqlx::query(
            "SELECT seq, white_name, black_name, CASE WHEN white_player = $1 THEN 1 ELSE 0 END \
             FROM games \
             WHERE white_player = $1 OR black_player = $1",
        )
        .bind(id)
        .fetch_all(tx.conn())
        .await?;
        for game in &games {
            let (seq, white, black): (i64, String, String) =
                (game.get(0), game.get(1), game.get(2));
            let now_named = if game.get::<i64, _>(3) == 1 {
                (neutral, black.as_str())
            } else {
                (white.as_str(), neutral)
            };
            sqlx::query(
                "UPDATE games SET white_name = $2, black_name = $3, \
                 white_player = CASE WHEN white_player = $4 THEN NULL ELSE white_player END, \
                 black_player = CASE WHEN black_player = $4 THEN NULL ELSE black_player END \
                 WHERE seq = $1",
            )
            .bind(seq)
            .bind(now_named.0)
            .bind(now_named.1)
            .bind(id)
            .execute(tx.conn())
            .await?;
            reindex_players(tx.conn(), seq, now_named.0, now_named.1).await?;
        }
        tx.commit().await?;
        Ok(true)
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
        hold_player(tx.conn(), self.backend, id).await?;
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
