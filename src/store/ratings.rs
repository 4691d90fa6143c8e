//! Ratings (`migrations/*/…_ratings.sql`): a rated game's end updates both
//! players' ratings in the transaction that ends it, so that a rating is
//! applied exactly once, whatever fails or races; and the reads of
//! ratings, their history and the leaderboards.

use sqlx::{AnyConnection, Row, any::AnyRow};

use super::{Backend, Store, StoreError, StoredGame};

/// A player's rating in one perf (a variant at a speed), as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredRating {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    /// Rated games played in the perf.
    pub games: i64,
    /// When it last changed (unix milliseconds).
    pub updated_at: i64,
}

/// Both players' new ratings, from their ratings before the game (`games`
/// 0: none yet), White's score (1, ½ or 0) and the time.
pub type RateGame = fn(StoredRating, StoredRating, f64, i64) -> (StoredRating, StoredRating);

/// The rating of a rated game's end: its perf, its players, White's score
/// and how ratings change.
#[derive(Clone, Debug)]
pub struct RatedEnd {
    pub perf: String,
    pub white: String,
    pub black: String,
    pub white_score: f64,
    /// A rating before any game in the perf.
    pub initial: StoredRating,
    pub rate: RateGame,
}

/// A line of a player's rating history: after a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    pub game_id: String,
    pub rating: f64,
    pub deviation: f64,
    pub diff: i64,
    pub at: i64,
}

/// A leaderboard's line.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    pub player_id: String,
    pub rating: StoredRating,
}

fn rating_from_row(row: &AnyRow, column: usize) -> StoredRating {
    StoredRating {
        rating: row.get(column),
        deviation: row.get(column + 1),
        volatility: row.get(column + 2),
        games: row.get(column + 3),
        updated_at: row.get(column + 4),
    }
}

/// Applies `rated` to both players' ratings and records it in `game` (its
/// row, already updated by the change, and the game handed back), in the
/// transaction of `tx`.
pub(super) async fn apply(
    tx: &mut AnyConnection,
    backend: Backend,
    game: &mut StoredGame,
    rated: &RatedEnd,
    now: i64,
) -> Result<(), sqlx::Error> {
    // Locked in the order of their ids, so that two games of the same two
    // players never wait on each other.
    let mut players = [rated.white.as_str(), rated.black.as_str()];
    players.sort_unstable();
    let mut before = Vec::with_capacity(2);
    for player in players {
        before.push((
            player,
            lock(tx, backend, player, &rated.perf, rated.initial).await?,
        ));
    }
    let before_of = |player: &str| {
        before
            .iter()
            .find(|(p, _)| *p == player)
            .map_or(rated.initial, |(_, r)| *r)
    };
    let (white_before, black_before) = (before_of(&rated.white), before_of(&rated.black));
    let (white, black) = (rated.rate)(white_before, black_before, rated.white_score, now);
    let diff = |after: StoredRating, before: StoredRating| {
        after.rating.round() as i64 - before.rating.round() as i64
    };
    for (player, after, diff) in [
        (&rated.white, white, diff(white, white_before)),
        (&rated.black, black, diff(black, black_before)),
    ] {
        sqlx::query(
            "UPDATE player_ratings SET rating = $1, deviation = $2, volatility = $3, \
             games = $4, updated_at = $5 WHERE player_id = $6 AND perf = $7",
        )
        .bind(after.rating)
        .bind(after.deviation)
        .bind(after.volatility)
        .bind(after.games)
        .bind(after.updated_at)
        .bind(player)
        .bind(&rated.perf)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO rating_history (player_id, perf, game_id, rating, deviation, diff, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(player)
        .bind(&rated.perf)
        .bind(&game.id)
        .bind(after.rating)
        .bind(after.deviation)
        .bind(diff)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    game.white_rating = Some(white_before.rating.round() as i64);
    game.black_rating = Some(black_before.rating.round() as i64);
    game.white_rating_diff = Some(diff(white, white_before));
    game.black_rating_diff = Some(diff(black, black_before));
    sqlx::query(
        "UPDATE games SET white_rating = $1, black_rating = $2, white_rating_diff = $3, \
         black_rating_diff = $4 WHERE seq = $5",
    )
    .bind(game.white_rating)
    .bind(game.black_rating)
    .bind(game.white_rating_diff)
    .bind(game.black_rating_diff)
    .bind(game.seq)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// `player`'s rating in `perf`, `initial` for a first game, its row locked
/// until the transaction ends.
async fn lock(
    tx: &mut AnyConnection,
    backend: Backend,
    player: &str,
    perf: &str,
    initial: StoredRating,
) -> Result<StoredRating, sqlx::Error> {
    sqlx::query(
        "INSERT INTO player_ratings (player_id, perf, rating, deviation, volatility, games, \
         updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
    )
    .bind(player)
    .bind(perf)
    .bind(initial.rating)
    .bind(initial.deviation)
    .bind(initial.volatility)
    .bind(initial.games)
    .bind(initial.updated_at)
    .execute(&mut *tx)
    .await?;
    let sql = format!(
        "SELECT rating, deviation, volatility, games, updated_at FROM player_ratings \
         WHERE player_id = $1 AND perf = $2{}",
        backend.lock_for_update()
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(player)
        .bind(perf)
        .fetch_one(&mut *tx)
        .await?;
    Ok(rating_from_row(&row, 0))
}

impl Store {
    /// Player `id`'s ratings, by perf.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn ratings_of(&self, id: &str) -> Result<Vec<(String, StoredRating)>, StoreError> {
        let rows = sqlx::query(
            "SELECT perf, rating, deviation, volatility, games, updated_at FROM player_ratings \
             WHERE player_id = $1 ORDER BY perf",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| (row.get(0), rating_from_row(row, 1)))
            .collect())
    }

    /// Player `id`'s rating history in `perf`, newest first, at most
    /// `limit` lines.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn rating_history(
        &self,
        id: &str,
        perf: &str,
        limit: usize,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let rows = sqlx::query(
            "SELECT game_id, rating, deviation, diff, at FROM rating_history \
             WHERE player_id = $1 AND perf = $2 ORDER BY seq DESC LIMIT $3",
        )
        .bind(id)
        .bind(perf)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| RatingChange {
                game_id: row.get(0),
                rating: row.get(1),
                deviation: row.get(2),
                diff: row.get(3),
                at: row.get(4),
            })
            .collect())
    }

    /// The best ratings in `perf` whose deviation at `now`, grown by
    /// `growth` times the squared volatility for each millisecond since
    /// the rating's last game, is below `max_deviation` (established
    /// ratings), at most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn leaderboard(
        &self,
        perf: &str,
        max_deviation: f64,
        growth: f64,
        now: i64,
        limit: usize,
    ) -> Result<Vec<Ranked>, StoreError> {
        let rows = sqlx::query(
            "SELECT player_id, rating, deviation, volatility, games, updated_at \
             FROM player_ratings WHERE perf = $1 AND deviation < $2 \
             AND deviation * deviation + volatility * volatility * $3 * ($4 - updated_at) \
             < $2 * $2 \
             ORDER BY rating DESC LIMIT $5",
        )
        .bind(perf)
        .bind(max_deviation)
        .bind(growth)
        .bind(now)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| Ranked {
                player_id: row.get(0),
                rating: rating_from_row(row, 1),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    /// Established ratings only, grown by inactivity, best first, one perf.
    #[tokio::test]
    async fn the_leaderboard_holds_established_ratings_of_its_perf() {
        let store = crate::store::testing::store().await;
        let now = 1_000_000_000_000;
        let year = 365 * 86_400_000;
        // Lichess's growth: 173.7178² × 0.21436 a day, per squared volatility.
        let growth = 173.7178 * 173.7178 * 0.21436 / 86_400_000.0;
        for (player, perf, rating, deviation, updated_at) in [
            ("ann", "chess_blitz", 1900.0, 60.0, now),
            ("ben", "chess_blitz", 2100.0, 50.0, now - 3 * year),
            ("cid", "chess_blitz", 2000.0, 109.0, now),
            ("dan", "chess_blitz", 2200.0, 120.0, now),
            ("eve", "chess_rapid", 2300.0, 60.0, now),
            ("fay", "chess_blitz", 1700.0, 45.0, now - 86_400_000),
        ] {
            sqlx::query(
                "INSERT INTO player_ratings \
                 (player_id, perf, rating, deviation, volatility, games, updated_at) \
                 VALUES ($1, $2, $3, $4, 0.06, 30, $5)",
            )
            .bind(player)
            .bind(perf)
            .bind(rating)
            .bind(deviation)
            .bind(updated_at)
            .execute(&store.writer.pool)
            .await
            .unwrap();
        }
        let board = store
            .leaderboard("chess_blitz", 110.0, growth, now, 10)
            .await
            .unwrap();
        let names: Vec<&str> = board.iter().map(|r| r.player_id.as_str()).collect();
        // Ben's 50 has grown past 110 in three idle years; Dan is provisional.
        assert_eq!(names, ["cid", "ann", "fay"]);
        let top = store
            .leaderboard("chess_blitz", 110.0, growth, now, 1)
            .await
            .unwrap();
        assert_eq!(top.len(), 1);
    }
}
