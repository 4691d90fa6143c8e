//! Challenges (`migrations/*/…_challenges.sql`): made, listed, answered,
//! and accepted in the transaction that creates their game.

use sqlx::{Row, any::AnyRow};

use super::{
    Store, StoreError, StoredClock, StoredEngine, StoredGame,
    holds::hold_player,
    player_log::{Log, Logged},
    rows::{decoded, decoded_option, time_control_columns},
    write::insert_game_in,
};
use crate::rules::{Side, Variant, named};

named! {
    /// Where a stored challenge stands (one past its expiry reads as open
    /// here: the caller compares `expires_at` with its clock).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum ChallengeState, refused as ParseChallengeStateError ("challenge state") {
        Open = "open",
        Accepted = "accepted",
        Declined = "declined",
        Canceled = "canceled",
    }
}

/// A stored challenge (validated by the caller).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChallenge {
    pub id: String,
    /// Player ids.
    pub challenger: String,
    pub destination: Option<String>,
    /// An open challenge only these players may accept (empty: anyone).
    pub open_to: Vec<String>,
    /// A challenge to the engine.
    pub engine: Option<StoredEngine>,
    pub variant: Variant,
    pub start_fen: Option<String>,
    pub xiangqi_rules: Option<String>,
    /// The time control's columns of a clock (its times left unused);
    /// `None`: untimed.
    pub clock: Option<StoredClock>,
    /// The challenger's colour (`None`: drawn at acceptance).
    pub color: Option<Side>,
    pub rated: bool,
    /// Made for two other players: `challenger` made it and does not play,
    /// until the first to accept takes a seat and becomes the challenger.
    pub for_others: bool,
    pub state: ChallengeState,
    pub decline_reason: Option<String>,
    pub game_id: Option<String>,
    pub acceptor: Option<String>,
    /// Unix milliseconds.
    pub created_at: i64,
    pub expires_at: i64,
}

/// A challenge is accepted by this player at this time: only if it still
/// waits for an answer then.
#[derive(Clone, Debug)]
pub struct Acceptance<'a> {
    pub challenge: &'a str,
    pub acceptor: &'a str,
    pub now: i64,
}

/// The challenge was answered (or expired) before this answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChallengeAnswered;

const COLUMNS: &str = "id, challenger, destination, open_to, engine_level, engine_movetime_ms, \
     variant, start_fen, xiangqi_rules, clock_initial_ms, clock_increment_ms, clock_delay_ms, \
     clock_grace_ms, clock_days_per_move, timed, color, status, decline_reason, game_id, \
     acceptor, created_at, expires_at, rated, for_others";

/// Only challenges waiting for an answer at `$1`.
const WAITING: &str = "status = 'open' AND expires_at > $1";

/// The challenger has as many challenges waiting for an answer as they
/// may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooManyChallenges;

fn challenge_from_row(row: &AnyRow) -> Result<StoredChallenge, sqlx::Error> {
    let open_to: Option<String> = row.get(3);
    let engine = match (row.get::<Option<i64>, _>(4), row.get::<Option<i64>, _>(5)) {
        (Some(level), Some(movetime_ms)) => Some(StoredEngine { level, movetime_ms }),
        _ => None,
    };
    let clock = (row.get::<i64, _>(14) != 0).then(|| time_control_columns(row, 9));
    Ok(StoredChallenge {
        id: row.get(0),
        challenger: row.get(1),
        destination: row.get(2),
        open_to: open_to
            .map(|ids| ids.split(',').map(str::to_owned).collect())
            .unwrap_or_default(),
        engine,
        variant: decoded(row, 6)?,
        start_fen: row.get(7),
        xiangqi_rules: row.get(8),
        clock,
        color: decoded_option(row, 15)?,
        state: decoded(row, 16)?,
        decline_reason: row.get(17),
        game_id: row.get(18),
        acceptor: row.get(19),
        created_at: row.get(20),
        expires_at: row.get(21),
        rated: row.get::<i64, _>(22) != 0,
        for_others: row.get::<i64, _>(23) != 0,
    })
}

/// Logs the withdrawal of challenge `id` for the players it was made to:
/// its destination and open-to columns are `row`'s `column` and the next.
pub(super) fn log_withdrawn(log: &mut Log, id: &str, row: &AnyRow, column: usize) {
    let destination: Option<String> = row.get(column);
    let open_to: Option<String> = row.get(column + 1);
    let to = destination
        .as_deref()
        .into_iter()
        .chain(open_to.iter().flat_map(|ids| ids.split(',')));
    log.add(Logged::ChallengeCanceled, id, to);
}

impl Store {
    /// Saves `challenge`, unless (with `max_waiting`) its challenger has
    /// that many challenges waiting for an answer already.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_challenge(
        &self,
        challenge: &StoredChallenge,
        max_waiting: Option<usize>,
    ) -> Result<Result<(), TooManyChallenges>, StoreError> {
        let c = challenge;
        let mut tx = self.writer.begin().await?;
        if let Some(most) = max_waiting {
            hold_player(tx.conn(), self.backend, &c.challenger).await?;
            let waiting: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT count(*) FROM challenges WHERE {WAITING} AND challenger = $2"
            )))
            .bind(c.created_at)
            .bind(&c.challenger)
            .fetch_one(tx.conn())
            .await?;
            if usize::try_from(waiting).unwrap_or(usize::MAX) >= most {
                tx.commit().await?;
                return Ok(Err(TooManyChallenges));
            }
        }
        sqlx::query(
            "INSERT INTO challenges (id, challenger, destination, open_to, engine_level, \
             engine_movetime_ms, variant, start_fen, xiangqi_rules, clock_initial_ms, \
             clock_increment_ms, clock_delay_ms, clock_grace_ms, clock_days_per_move, timed, \
             color, status, decline_reason, game_id, acceptor, created_at, expires_at, rated, \
             for_others) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
             $18, $19, $20, $21, $22, $23, $24)",
        )
        .bind(&c.id)
        .bind(&c.challenger)
        .bind(&c.destination)
        .bind((!c.open_to.is_empty()).then(|| c.open_to.join(",")))
        .bind(c.engine.map(|e| e.level))
        .bind(c.engine.map(|e| e.movetime_ms))
        .bind(c.variant.name())
        .bind(&c.start_fen)
        .bind(&c.xiangqi_rules)
        .bind(c.clock.map(|t| t.initial_ms))
        .bind(c.clock.map(|t| t.increment_ms))
        .bind(c.clock.map(|t| t.delay_ms))
        .bind(c.clock.and_then(|t| t.grace_ms))
        .bind(c.clock.and_then(|t| t.days_per_move))
        .bind(i64::from(c.clock.is_some()))
        .bind(c.color.map(Side::name))
        .bind(c.state.name())
        .bind(&c.decline_reason)
        .bind(&c.game_id)
        .bind(&c.acceptor)
        .bind(c.created_at)
        .bind(c.expires_at)
        .bind(i64::from(c.rated))
        .bind(i64::from(c.for_others))
        .execute(tx.conn())
        .await?;
        if c.state == ChallengeState::Open {
            let mut log = Log::default();
            let to = c.destination.iter().chain(&c.open_to);
            log.add(Logged::Challenge, &c.id, to.map(String::as_str));
            log.append(tx.conn(), self.backend).await?;
        }
        tx.commit().await?;
        Ok(Ok(()))
    }

    /// The challenge `id`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn challenge(&self, id: &str) -> Result<Option<StoredChallenge>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM challenges WHERE id = $1");
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(challenge_from_row).transpose()?)
    }

    /// The challenges waiting at `now` for `player`'s answer, made to them
    /// or open to them, newest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn challenges_to(
        &self,
        player: &str,
        now: i64,
        limit: usize,
    ) -> Result<Vec<StoredChallenge>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM challenges WHERE {WAITING} AND (destination = $2 OR \
             (destination IS NULL AND engine_level IS NULL AND challenger != $2 AND \
             (open_to IS NULL OR ',' || open_to || ',' LIKE '%,' || $2 || ',%'))) \
             ORDER BY seq DESC LIMIT $3"
        );
        self.challenges_where(sql, player, now, limit).await
    }

    /// The challenges `player` made that wait for an answer at `now`,
    /// newest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn challenges_from(
        &self,
        player: &str,
        now: i64,
        limit: usize,
    ) -> Result<Vec<StoredChallenge>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM challenges WHERE {WAITING} AND challenger = $2 \
             ORDER BY seq DESC LIMIT $3"
        );
        self.challenges_where(sql, player, now, limit).await
    }

    async fn challenges_where(
        &self,
        sql: String,
        player: &str,
        now: i64,
        limit: usize,
    ) -> Result<Vec<StoredChallenge>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(now)
            .bind(player)
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(challenge_from_row)
            .collect::<Result<_, _>>()?)
    }

    /// Records the challenge `id`'s answer (`Declined`, with its reason, or
    /// `Canceled`) if it still waits for one at `now`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn answer_challenge(
        &self,
        id: &str,
        state: ChallengeState,
        decline_reason: Option<&str>,
        now: i64,
    ) -> Result<Result<(), ChallengeAnswered>, StoreError> {
        let mut tx = self.writer.begin().await?;
        let answered = sqlx::query(
            "UPDATE challenges SET status = $2, decline_reason = $3 \
             WHERE id = $4 AND status = 'open' AND expires_at > $1 \
             RETURNING challenger, destination, open_to",
        )
        .bind(now)
        .bind(state.name())
        .bind(decline_reason)
        .bind(id)
        .fetch_optional(tx.conn())
        .await?;
        if let Some(row) = &answered {
            // The other side is told: the challenger of a decline, those
            // it was made to of a withdrawal.
            let mut log = Log::default();
            match state {
                ChallengeState::Declined => {
                    let challenger: String = row.get(0);
                    log.add(Logged::ChallengeDeclined, id, [challenger.as_str()]);
                }
                _ => log_withdrawn(&mut log, id, row, 1),
            }
            log.append(tx.conn(), self.backend).await?;
        }
        tx.commit().await?;
        Ok(match answered {
            Some(_) => Ok(()),
            None => Err(ChallengeAnswered),
        })
    }

    /// The first player to accept challenge `id`, made for two others,
    /// takes a seat as its challenger, playing `color` (`None`: drawn when
    /// the game starts), if nobody took one before and it still waits at
    /// `now`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn take_first_seat(
        &self,
        id: &str,
        taker: &str,
        color: Option<Side>,
        now: i64,
    ) -> Result<Result<(), ChallengeAnswered>, StoreError> {
        let mut tx = self.writer.begin().await?;
        let taken = sqlx::query(
            "UPDATE challenges SET challenger = $2, color = $3, for_others = 0 \
             WHERE id = $4 AND status = 'open' AND expires_at > $1 AND for_others = 1",
        )
        .bind(now)
        .bind(taker)
        .bind(color.map(Side::name))
        .bind(id)
        .execute(tx.conn())
        .await?;
        tx.commit().await?;
        Ok(if taken.rows_affected() == 0 {
            Err(ChallengeAnswered)
        } else {
            Ok(())
        })
    }

    /// Creates `new`, the game of the challenge `acceptance` accepts, in
    /// one transaction with the acceptance: neither if the challenge no
    /// longer waits for an answer, so that a challenge starts one game
    /// whoever races.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_game_accepting(
        &self,
        new: StoredGame,
        acceptance: &Acceptance<'_>,
    ) -> Result<Result<StoredGame, ChallengeAnswered>, StoreError> {
        let mut tx = self.writer.begin().await?;
        let accepted = sqlx::query(
            "UPDATE challenges SET status = 'accepted', game_id = $2, acceptor = $3 \
             WHERE id = $4 AND status = 'open' AND expires_at > $1 AND for_others = 0",
        )
        .bind(acceptance.now)
        .bind(&new.id)
        .bind(acceptance.acceptor)
        .bind(acceptance.challenge)
        .execute(tx.conn())
        .await?;
        if accepted.rows_affected() == 0 {
            tx.commit().await?;
            return Ok(Err(ChallengeAnswered));
        }
        let game = insert_game_in(tx.conn(), self.backend, new).await??;
        Log::started(&game).append(tx.conn(), self.backend).await?;
        tx.commit().await?;
        Ok(Ok(game))
    }
}
