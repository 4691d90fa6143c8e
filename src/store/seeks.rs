//! Seeks (`migrations/*/…_seeks.sql`): made, listed, withdrawn, and
//! paired in the transaction that creates their game.

use sqlx::{Row, any::AnyRow};

use super::{
    Store, StoreError, StoredClock, StoredGame,
    holds::hold_player,
    player_log::Log,
    rows::{decoded, decoded_option, time_control_columns},
    write::insert_game_in,
};
use crate::rules::{Side, Variant};

/// A stored seek (validated by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeek {
    pub id: String,
    /// The seeker's id.
    pub player: String,
    /// The seeker's rating in the seek's perf when they sought.
    pub rating: i64,
    pub variant: Variant,
    pub xiangqi_rules: Option<String>,
    /// The time control's columns (its times left unused).
    pub clock: StoredClock,
    pub rated: bool,
    /// The opponents' ratings the seeker accepts, both ends included.
    pub rating_min: Option<i64>,
    pub rating_max: Option<i64>,
    /// The seeker's colour (`None`: either).
    pub color: Option<Side>,
    /// The server whose stream keeps a real-time seek alive; `None` for a
    /// correspondence seek, which lives until it is paired or withdrawn.
    pub holder: Option<String>,
    /// The game the seek was paired into.
    pub game_id: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
}

/// Two seeks paired at `now`: only if both are still open then.
#[derive(Clone, Copy, Debug)]
pub struct Pairing<'a> {
    pub seeks: [&'a str; 2],
    pub now: i64,
    /// A real-time game: the players' other real-time seeks are withdrawn.
    pub realtime: bool,
}

/// A seek of the pairing was paired or withdrawn before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeekGone;

/// The seeker has as many open seeks as they may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManySeeks;

/// Paired seeks are kept this long for their streams to find their game.
const PAIRED_KEPT_MS: i64 = 60_000;

const COLUMNS: &str = "id, player, rating, variant, xiangqi_rules, clock_initial_ms, \
     clock_increment_ms, clock_delay_ms, clock_grace_ms, clock_days_per_move, rated, rating_min, \
     rating_max, color, holder, game_id, created_at";

/// Open seeks whose holder lives: none (correspondence), the server `$1`
/// asking, or a replica whose time is not past.
const LIVE: &str = "status = 'open' AND (holder IS NULL OR holder = $1 OR holder IN \
     (SELECT owner FROM replicas WHERE expires_at > $2))";

fn seek_from_row(row: &AnyRow) -> Result<StoredSeek, sqlx::Error> {
    Ok(StoredSeek {
        id: row.get(0),
        player: row.get(1),
        rating: row.get(2),
        variant: decoded(row, 3)?,
        xiangqi_rules: row.get(4),
        clock: time_control_columns(row, 5),
        rated: row.get::<i64, _>(10) != 0,
        rating_min: row.get(11),
        rating_max: row.get(12),
        color: decoded_option(row, 13)?,
        holder: row.get(14),
        game_id: row.get(15),
        created_at: row.get(16),
    })
}

impl Store {
    /// Saves `seek`, unless its player has `max_open` open seeks already.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_seek(
        &self,
        seek: &StoredSeek,
        max_open: usize,
    ) -> Result<Result<(), TooManySeeks>, StoreError> {
        let s = seek;
        let mut tx = self.writer.begin().await?;
        hold_player(tx.conn(), self.backend, &s.player).await?;
        let open: i64 =
            sqlx::query_scalar("SELECT count(*) FROM seeks WHERE player = $1 AND status = 'open'")
                .bind(&s.player)
                .fetch_one(tx.conn())
                .await?;
        if usize::try_from(open).unwrap_or(usize::MAX) >= max_open {
            tx.commit().await?;
            return Ok(Err(TooManySeeks));
        }
        sqlx::query(
            "INSERT INTO seeks (id, player, rating, variant, xiangqi_rules, clock_initial_ms, \
             clock_increment_ms, clock_delay_ms, clock_grace_ms, clock_days_per_move, rated, \
             rating_min, rating_max, color, holder, status, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'open', $16)",
        )
        .bind(&s.id)
        .bind(&s.player)
        .bind(s.rating)
        .bind(s.variant.name())
        .bind(&s.xiangqi_rules)
        .bind(s.clock.initial_ms)
        .bind(s.clock.increment_ms)
        .bind(s.clock.delay_ms)
        .bind(s.clock.grace_ms)
        .bind(s.clock.days_per_move)
        .bind(i64::from(s.rated))
        .bind(s.rating_min)
        .bind(s.rating_max)
        .bind(s.color.map(Side::name))
        .bind(&s.holder)
        .bind(s.created_at)
        .execute(tx.conn())
        .await?;
        tx.commit().await?;
        Ok(Ok(()))
    }

    /// The seek `id`, open or paired.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn seek(&self, id: &str) -> Result<Option<StoredSeek>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM seeks WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(seek_from_row).transpose()?)
    }

    /// The open seeks whose holder lives at `now` (server `me` asking),
    /// oldest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn open_seeks(
        &self,
        me: &str,
        now: i64,
        limit: usize,
    ) -> Result<Vec<StoredSeek>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM seeks WHERE {LIVE} ORDER BY seq LIMIT $3");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(me)
            .bind(now)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.iter().map(seek_from_row).collect::<Result<_, _>>()?)
    }

    /// Deletes seek `id` of `player` if it is still open: whether it was.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn withdraw_seek(&self, id: &str, player: &str) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        let done =
            sqlx::query("DELETE FROM seeks WHERE id = $1 AND player = $2 AND status = 'open'")
                .bind(id)
                .bind(player)
                .execute(tx.conn())
                .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    /// Deletes the open seeks whose holder is gone (a server that stopped
    /// without withdrawing them), and the paired seeks kept long enough
    /// for their streams.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn sweep_seeks(&self, me: &str, now: i64) -> Result<u64, StoreError> {
        let mut tx = self.writer.begin().await?;
        let done = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM seeks WHERE (status = 'open' AND NOT ({LIVE})) \
             OR (status = 'paired' AND paired_at < $3)"
        )))
        .bind(me)
        .bind(now)
        .bind(now - PAIRED_KEPT_MS)
        .execute(tx.conn())
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// The colour of `player`'s latest game with a seat of theirs, if any.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn latest_color(&self, player: &str) -> Result<Option<Side>, StoreError> {
        let row = sqlx::query(
            "SELECT (SELECT max(seq) FROM games WHERE white_player = $1), \
             (SELECT max(seq) FROM games WHERE black_player = $1)",
        )
        .bind(player)
        .fetch_one(&self.pool)
        .await?;
        let (white, black): (Option<i64>, Option<i64>) = (row.get(0), row.get(1));
        Ok(match (white, black) {
            (None, None) => None,
            (w, b) if w > b => Some(Side::White),
            _ => Some(Side::Black),
        })
    }

    /// Creates `new`, the game of `pairing`, in one transaction with both
    /// seeks marked paired: neither if one of them is no longer open, so
    /// that a seek is paired once whichever servers pair.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_game_pairing(
        &self,
        new: StoredGame,
        pairing: &Pairing<'_>,
    ) -> Result<Result<StoredGame, SeekGone>, StoreError> {
        let mut tx = self.writer.begin().await?;
        let [first, second] = pairing.seeks;
        let paired = sqlx::query(
            "UPDATE seeks SET status = 'paired', game_id = $1, paired_at = $2 \
             WHERE id IN ($3, $4) AND status = 'open'",
        )
        .bind(&new.id)
        .bind(pairing.now)
        .bind(first)
        .bind(second)
        .execute(tx.conn())
        .await?;
        if paired.rows_affected() != 2 {
            tx.rollback().await?;
            return Ok(Err(SeekGone));
        }
        if pairing.realtime {
            sqlx::query(
                "DELETE FROM seeks WHERE status = 'open' AND holder IS NOT NULL AND player IN \
                 (SELECT player FROM seeks WHERE id IN ($1, $2))",
            )
            .bind(first)
            .bind(second)
            .execute(tx.conn())
            .await?;
        }
        let game = insert_game_in(tx.conn(), self.backend, new).await??;
        Log::started(&game).append(tx.conn(), self.backend).await?;
        tx.commit().await?;
        Ok(Ok(game))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Status;

    fn seek(id: &str, player: &str, holder: Option<&str>) -> StoredSeek {
        StoredSeek {
            id: id.into(),
            player: player.into(),
            rating: 1500,
            variant: Variant::Chess,
            xiangqi_rules: None,
            clock: StoredClock {
                initial_ms: 180_000,
                increment_ms: 2_000,
                delay_ms: 0,
                days_per_move: None,
                grace_ms: Some(30_000),
                white_ms: 0,
                black_ms: 0,
                turn_started_at: 0,
                engine_waiting_ply: None,
                flag_at: None,
                held: false,
            },
            rated: false,
            rating_min: None,
            rating_max: Some(1600),
            color: Some(Side::Black),
            holder: holder.map(str::to_owned),
            game_id: None,
            created_at: 1,
        }
    }

    fn game(id: &str) -> StoredGame {
        StoredGame {
            id: id.into(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            status: Status::Ongoing,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn a_seek_is_paired_once_with_its_game_and_read_back_whole() {
        let store = crate::store::testing::store().await;
        for s in [
            seek("a", "alice", Some("me")),
            seek("b", "bob", Some("me")),
            seek("a2", "alice", Some("me")),
            seek("c", "carol", None),
        ] {
            store.insert_seek(&s, 4).await.unwrap().unwrap();
        }
        assert_eq!(
            store.seek("c").await.unwrap(),
            Some(seek("c", "carol", None))
        );
        let pairing = |seeks| Pairing {
            seeks,
            now: 5,
            realtime: true,
        };
        let paired = store
            .insert_game_pairing(game("g1"), &pairing(["a", "b"]))
            .await
            .unwrap();
        assert!(paired.is_ok());
        assert_eq!(
            store.seek("a").await.unwrap().unwrap().game_id.as_deref(),
            Some("g1")
        );
        assert_eq!(
            store.seek("a2").await.unwrap(),
            None,
            "one real-time game at a time"
        );
        // A seek paired already pairs no more: no game either.
        let again = store
            .insert_game_pairing(game("g2"), &pairing(["b", "c"]))
            .await
            .unwrap();
        assert_eq!(again.unwrap_err(), SeekGone);
        assert!(store.game("g2").await.unwrap().is_none());
        assert!(store.seek("c").await.unwrap().unwrap().game_id.is_none());
        let open: Vec<_> = store.open_seeks("me", 5, 10).await.unwrap();
        assert_eq!(
            open.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["c"]
        );
    }

    #[tokio::test]
    async fn seeks_are_limited_per_player_and_those_of_servers_gone_are_swept() {
        let store = crate::store::testing::store().await;
        store
            .insert_seek(&seek("a", "alice", Some("gone")), 2)
            .await
            .unwrap()
            .unwrap();
        store
            .insert_seek(&seek("b", "alice", Some("me")), 2)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            store
                .insert_seek(&seek("c", "alice", None), 2)
                .await
                .unwrap(),
            Err(TooManySeeks)
        );
        assert_eq!(store.open_seeks("me", 5, 10).await.unwrap().len(), 1);
        assert_eq!(store.sweep_seeks("me", 5).await.unwrap(), 1);
        assert!(store.seek("a").await.unwrap().is_none());
        assert!(store.withdraw_seek("b", "alice").await.unwrap());
        assert!(!store.withdraw_seek("b", "alice").await.unwrap());
    }
}
