//! Each player's log of events (`migrations/*/…_player_events.sql`): what
//! a resumed WatchEvents stream must not miss, written in the transaction
//! of the change that causes it. Entries are numbered from 1 per player in
//! commit order (the player's `events_head`, taken in that transaction),
//! so a reader that has seen number `n` misses nothing by reading on from
//! `n`. On PostgreSQL the players logged to are announced on the change
//! feed, so every server's streams read at once.

use sqlx::{AnyConnection, Row};

use super::{Backend, Store, StoreError, StoredGame, changes, now_millis, rows::decoded, sql::Sql};
use crate::rules::named;

named! {
    /// What a log entry tells.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Logged, refused as UnknownLogged ("player event") {
        /// A game with a seat of the player's was created (its subject).
        GameStarted = "game_started",
        /// A game of theirs ended.
        GameEnded = "game_ended",
        /// A challenge was made to them (to them, or open to them by name).
        Challenge = "challenge",
        /// A challenge made to them was withdrawn.
        ChallengeCanceled = "challenge_canceled",
        /// A challenge they made was declined.
        ChallengeDeclined = "challenge_declined",
    }
}

/// An entry of a player's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedEvent {
    /// Its number in the player's log.
    pub seq: i64,
    pub kind: Logged,
    /// The game's id, or the challenge's.
    pub subject: String,
}

/// Entries to log in a transaction, appended together before it commits.
#[derive(Debug, Default)]
pub(super) struct Log {
    /// Player, kind, subject.
    entries: Vec<(String, Logged, String)>,
}

impl Log {
    /// The start of `game`, for the players of its seats.
    pub(super) fn started(game: &StoredGame) -> Log {
        let mut log = Log::default();
        log.game(Logged::GameStarted, game);
        log
    }

    /// `kind` of `game`, for the players of its seats (once for a player
    /// in both).
    pub(super) fn game(&mut self, kind: Logged, game: &StoredGame) {
        let white = game.white_player.as_deref();
        let black = game.black_player.as_deref().filter(|b| Some(*b) != white);
        self.add(kind, &game.id, white.into_iter().chain(black));
    }

    /// `kind` of `subject`, for each of `players`.
    pub(super) fn add<'a>(
        &mut self,
        kind: Logged,
        subject: &str,
        players: impl IntoIterator<Item = &'a str>,
    ) {
        for player in players {
            self.entries
                .push((player.to_owned(), kind, subject.to_owned()));
        }
    }

    /// Appends the entries in the transaction of `conn`, player by player
    /// in the order of their ids: every transaction takes the players'
    /// rows in one order, so two never wait for each other's. An entry for
    /// an id no player has is dropped.
    pub(super) async fn append(
        mut self,
        conn: &mut AnyConnection,
        backend: Backend,
    ) -> Result<(), sqlx::Error> {
        // Stable: a player's entries keep the order they were added in.
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        let now = now_millis();
        for run in self.entries.chunk_by(|a, b| a.0 == b.0) {
            let player = &run[0].0;
            let count = i64::try_from(run.len()).unwrap_or(i64::MAX);
            let head: Option<i64> = sqlx::query_scalar(
                "UPDATE players SET events_head = events_head + $2 WHERE id = $1 \
                 RETURNING events_head",
            )
            .bind(player)
            .bind(count)
            .fetch_optional(&mut *conn)
            .await?;
            let Some(head) = head else { continue };
            let mut sql = Sql::default();
            sql.push(
                "INSERT INTO player_events (player_id, seq, kind, subject, created_at) VALUES ",
            );
            for (n, (_, kind, subject)) in run.iter().enumerate() {
                let seq = head - count + 1 + i64::try_from(n).unwrap_or(i64::MAX);
                if n > 0 {
                    sql.push(", ");
                }
                sql.push("(")
                    .bind(player.clone())
                    .push(", ")
                    .bind(seq)
                    .push(", ")
                    .bind(kind.name().to_owned())
                    .push(", ")
                    .bind(subject.clone())
                    .push(", ")
                    .bind(now)
                    .push(")");
            }
            sql.build().execute(&mut *conn).await?;
            if backend == Backend::Postgres {
                changes::announce_player(&mut *conn, player).await?;
            }
        }
        Ok(())
    }
}

impl Store {
    /// The number of player `id`'s last logged event (0: none yet).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn player_events_head(&self, id: &str) -> Result<i64, StoreError> {
        let head: Option<i64> = sqlx::query_scalar("SELECT events_head FROM players WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(head.unwrap_or(0))
    }

    /// Whether player `id`'s log holds every event after number `after`:
    /// not if `after` is past their last, or if some after it were pruned.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn player_events_kept_after(&self, id: &str, after: i64) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT events_head, (SELECT min(seq) FROM player_events WHERE player_id = $1) \
             FROM players WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(after == 0);
        };
        let (head, oldest): (i64, Option<i64>) = (row.get(0), row.get(1));
        // Numbers never skip: the entries after `after` are all there if
        // the oldest kept is the next one (or there are none to keep).
        Ok((0..=head).contains(&after)
            && (after == head || oldest.is_some_and(|oldest| oldest <= after + 1)))
    }

    /// Player `id`'s logged events after number `after`, oldest first, at
    /// most `limit`.
    ///
    /// # Errors
    ///
    /// Database failure, or a kind of entry this build does not know.
    pub async fn player_events_after(
        &self,
        id: &str,
        after: i64,
        limit: usize,
    ) -> Result<Vec<LoggedEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, kind, subject FROM player_events WHERE player_id = $1 AND seq > $2 \
             ORDER BY seq LIMIT $3",
        )
        .bind(id)
        .bind(after)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let events = rows
            .iter()
            .map(|row| {
                Ok(LoggedEvent {
                    seq: row.get(0),
                    kind: decoded(row, 1)?,
                    subject: row.get(2),
                })
            })
            .collect::<Result<_, sqlx::Error>>()?;
        Ok(events)
    }

    /// Deletes the logged events made before `before` (Unix
    /// milliseconds); how many.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn prune_player_events(&self, before: i64) -> Result<u64, StoreError> {
        let mut tx = self.writer.begin().await?;
        let done = sqlx::query("DELETE FROM player_events WHERE created_at < $1")
            .bind(before)
            .execute(tx.conn())
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn log(store: &Store, player: &str, kind: Logged, subject: &str) {
        let mut tx = store.writer.begin().await.unwrap();
        let mut log = Log::default();
        log.add(kind, subject, [player]);
        log.append(tx.conn(), store.backend).await.unwrap();
        tx.commit().await.unwrap();
    }

    /// Numbers follow each other per player; a cursor is good while every
    /// event after it is kept, and pruning old ones makes older cursors
    /// bad.
    #[tokio::test]
    async fn a_players_log_is_numbered_read_on_and_pruned() {
        let store = crate::store::testing::store().await;
        for id in ["alice", "bob"] {
            let player = crate::store::StoredPlayer {
                id: id.into(),
                username: id.into(),
                display_name: id.into(),
                created_at: 0,
                bot: false,
                origin: crate::store::PlayerOrigin::Enrolled,
            };
            store.insert_player(player, None).await.unwrap().unwrap();
        }
        assert_eq!(store.player_events_head("alice").await.unwrap(), 0);
        assert!(store.player_events_kept_after("alice", 0).await.unwrap());
        log(&store, "alice", Logged::Challenge, "c1").await;
        log(&store, "bob", Logged::GameStarted, "g1").await;
        log(&store, "alice", Logged::GameStarted, "g1").await;
        // An id no player has is logged for nobody.
        log(&store, "nobody", Logged::GameStarted, "g1").await;
        assert_eq!(store.player_events_head("alice").await.unwrap(), 2);
        let after_first = store.player_events_after("alice", 1, 10).await.unwrap();
        assert_eq!(
            after_first,
            [LoggedEvent {
                seq: 2,
                kind: Logged::GameStarted,
                subject: "g1".into()
            }]
        );
        assert!(store.player_events_kept_after("alice", 0).await.unwrap());
        assert!(!store.player_events_kept_after("alice", 3).await.unwrap());
        assert!(!store.player_events_kept_after("alice", -1).await.unwrap());

        // Everything so far is old: pruned.
        let pruned = store.prune_player_events(now_millis() + 1).await.unwrap();
        assert_eq!(pruned, 3);
        assert!(store.player_events_kept_after("alice", 2).await.unwrap());
        assert!(!store.player_events_kept_after("alice", 1).await.unwrap());
        log(&store, "alice", Logged::GameEnded, "g1").await;
        assert_eq!(
            store.player_events_after("alice", 2, 10).await.unwrap()[0].seq,
            3
        );
        assert!(store.player_events_kept_after("alice", 2).await.unwrap());
        assert!(!store.player_events_kept_after("alice", 1).await.unwrap());
        store.close().await;
    }

    #[test]
    fn kinds_read_back_as_written() {
        for kind in Logged::ALL {
            assert_eq!(kind.name().parse::<Logged>(), Ok(kind));
        }
        assert!("moved".parse::<Logged>().is_err());
    }
}
