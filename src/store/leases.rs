//! Leases on shards of games, for servers sharing one database: the owner
//! of a shard's lease runs the flag timers and engine seats of its games.
//!
//! The `leases` table has one row per shard (the migration sets how many);
//! game `id` is in shard [`shard_of`]. A row names its owner, the time its
//! lease runs out (the database's clock, so servers' clocks need not agree)
//! and an epoch, bumped whenever the lease changes hands. The owner renews
//! its rows; once a row's time is past, any server may claim it (`SELECT
//! ... FOR UPDATE SKIP LOCKED`, so that claimers never wait on each other),
//! its owner too, at a new epoch.
//!
//! The shards are shared evenly: each server records itself in the
//! `replicas` table with its leases' time, so that every renewal knows how
//! many servers are live, and holds its fair share of the shards: their
//! count divided by the servers live, one more for the first servers (by
//! name) while some remain, so that the shares add up to the shards (64
//! over 3: 22, 21, 21). It claims no more than that, and gives up (as a
//! server that stops does) the leases it holds beyond it, for the servers
//! short of their share to claim at their next renewal.
//!
//! A write that must come from the owner alone (an engine seat's move)
//! checks, in its own transaction, that the row still names it at the
//! epoch it started with, and holds the row so that nobody claims it
//! before the write commits: a server that lost its lease, or gave it up,
//! cannot write.

use sqlx::{AnyConnection, Row};

use super::{Backend, Store, StoreError};

/// An owner's lease on a shard, as a fenced write presents it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    pub shard: i64,
    pub owner: String,
    pub epoch: i64,
}

/// A lease held: its shard and epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lease {
    pub shard: i64,
    pub epoch: i64,
}

/// The shard of game `id` among `shards`: FNV-1a of the id, so that every
/// server, whatever its build, agrees.
pub fn shard_of(id: &str, shards: i64) -> i64 {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    i64::try_from(hash % shards.max(1).unsigned_abs()).unwrap_or(0)
}

impl Store {
    /// How many shards the games are split into.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn lease_shards(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT count(*) FROM leases")
            .fetch_one(&self.pool)
            .await?)
    }

    /// Renews `owner`'s leases for `duration_ms` more, keeping its fair
    /// share of the shards (see the module's doc) and giving the others up;
    /// claims leases whose time is past, up to that share; records `owner`
    /// as live exactly as long as its leases. The leases `owner` holds now.
    ///
    /// # Errors
    ///
    /// Database failure: then `owner` holds what it held until its leases
    /// run out.
    pub async fn renew_and_claim_leases(
        &self,
        owner: &str,
        duration_ms: i64,
    ) -> Result<Vec<Lease>, StoreError> {
        let now = self.backend.now_millis_sql();
        // One statement renews the leases kept, gives the extra ones up and
        // claims the missing ones, at one time read once (so the leases held
        // all run out together). `owner` counts itself among the live (its
        // row may be new, or have run out). It renews only the leases whose
        // time is not past, which no claimer locks, and claims the others
        // anew (its own too, at a new epoch), skipping those locked: so two
        // renewals never wait on each other. The WHERE tests the row itself,
        // not `mine`, for a row claimed meanwhile to be left alone. Every SET
        // expression reads the row as it was: a time past there means a
        // lease claimed.
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "WITH clock (now) AS (SELECT {now}), \
             live (n, rank) AS (SELECT 1 + count(*), count(CASE WHEN owner < $1 THEN 1 END) \
             FROM replicas WHERE expires_at > (SELECT now FROM clock) AND owner <> $1), \
             shards (n) AS (SELECT count(*) FROM leases), \
             fair (n) AS (SELECT shards.n / live.n \
             + CASE WHEN live.rank < shards.n % live.n THEN 1 ELSE 0 END FROM shards, live), \
             mine (shard) AS (SELECT shard FROM leases \
             WHERE owner = $1 AND expires_at > (SELECT now FROM clock)), \
             held (n) AS (SELECT count(*) FROM mine), \
             kept (shard) AS (SELECT shard FROM mine ORDER BY shard LIMIT (SELECT n FROM fair)) \
             UPDATE leases SET \
             epoch = CASE WHEN expires_at <= (SELECT now FROM clock) \
             THEN epoch + 1 ELSE epoch END, \
             owner = CASE WHEN expires_at <= (SELECT now FROM clock) \
             OR shard IN (SELECT shard FROM kept) THEN $1 ELSE '' END, \
             expires_at = CASE WHEN expires_at <= (SELECT now FROM clock) \
             OR shard IN (SELECT shard FROM kept) THEN (SELECT now FROM clock) + $2 ELSE 0 END \
             WHERE (owner = $1 AND expires_at > (SELECT now FROM clock)) \
             OR shard IN (SELECT shard FROM leases WHERE expires_at <= (SELECT now FROM clock) \
             ORDER BY shard LIMIT (SELECT CASE WHEN fair.n > held.n \
             THEN fair.n - held.n ELSE 0 END FROM fair, held){skip}) \
             RETURNING shard, epoch, owner, expires_at",
            skip = self.backend.lock_skipping_locked(),
        )))
        .bind(owner)
        .bind(duration_ms)
        .fetch_all(&self.writer.pool)
        .await?;
        let held: Vec<_> = rows
            .iter()
            .filter(|row| row.get::<String, _>(2) == owner)
            .collect();
        // Live exactly as long as the leases: whoever sees them run out
        // sees this replica gone, and claims them up to a share without it.
        let expires_at: Option<i64> = held.first().map(|row| row.get(3));
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO replicas (owner, expires_at) VALUES ($1, COALESCE($2, {now} + $3)) \
             ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at"
        )))
        .bind(owner)
        .bind(expires_at)
        .bind(duration_ms)
        .execute(&self.writer.pool)
        .await?;
        Ok(held
            .iter()
            .map(|row| Lease {
                shard: row.get(0),
                epoch: row.get(1),
            })
            .collect())
    }

    /// Deletes the rows of replicas whose time is past (gone without
    /// giving their leases up).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn forget_gone_replicas(&self) -> Result<(), StoreError> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM replicas WHERE expires_at <= {}",
            self.backend.now_millis_sql()
        )))
        .execute(&self.writer.pool)
        .await?;
        Ok(())
    }

    /// Gives up `owner`'s leases at once (a server that stops), so that
    /// other servers claim them at their next renewal, not at expiry.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn release_leases(&self, owner: &str) -> Result<(), StoreError> {
        // Gone first, so that no renewal leaves a share for it.
        sqlx::query("DELETE FROM replicas WHERE owner = $1")
            .bind(owner)
            .execute(&self.writer.pool)
            .await?;
        sqlx::query("UPDATE leases SET owner = '', expires_at = 0 WHERE owner = $1")
            .bind(owner)
            .execute(&self.writer.pool)
            .await?;
        Ok(())
    }
}

/// Checks, inside a write transaction, that `fence`'s lease is still held
/// at its epoch, and holds its row until the transaction ends.
pub(super) async fn check(
    tx: &mut AnyConnection,
    backend: Backend,
    fence: &Fence,
) -> Result<(), StoreError> {
    let held = sqlx::query(sqlx::AssertSqlSafe(format!(
        "SELECT shard FROM leases WHERE shard = $1 AND owner = $2 AND epoch = $3{}",
        backend.lock_for_share()
    )))
    .bind(fence.shard)
    .bind(&fence.owner)
    .bind(fence.epoch)
    .fetch_optional(tx)
    .await?;
    match held {
        Some(_) => Ok(()),
        None => Err(StoreError::LeaseLost { shard: fence.shard }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_stays_in_its_shard_and_games_spread() {
        assert_eq!(shard_of("abc", 64), shard_of("abc", 64));
        let shards: std::collections::HashSet<i64> = (0..1000)
            .map(|n| shard_of(&format!("game{n}"), 64))
            .collect();
        assert_eq!(shards.len(), 64);
        assert!(shards.iter().all(|s| (0..64).contains(s)));
        assert_eq!(shard_of("abc", 0), 0);
    }

    /// Leases held by each of `owners` once they renewed in turn until
    /// nothing changes hands (at most 5 rounds).
    async fn settled(store: &Store, owners: &[&str]) -> Vec<usize> {
        let mut held = Vec::new();
        for _ in 0..5 {
            let mut now = Vec::new();
            for owner in owners {
                now.push(store.renew_and_claim_leases(owner, 60_000).await.unwrap());
            }
            if now == held {
                break;
            }
            held = now;
        }
        held.iter().map(Vec::len).collect()
    }

    #[tokio::test]
    async fn the_shards_are_shared_evenly_among_the_replicas_live() {
        let store = crate::store::testing::store().await;
        // Each joins the ones before: the shares add up to the shards, the
        // first (by name) taking one more while some remain.
        assert_eq!(settled(&store, &["a"]).await, [64]);
        assert_eq!(settled(&store, &["a", "b"]).await, [32, 32]);
        assert_eq!(settled(&store, &["a", "b", "c"]).await, [22, 21, 21]);
        assert_eq!(settled(&store, &["d", "a", "b", "c"]).await, [16; 4]);
        assert_eq!(
            settled(&store, &["a", "b", "c", "d", "e"]).await,
            [13, 13, 13, 13, 12]
        );
        // One gone: the others share its shards.
        store.release_leases("b").await.unwrap();
        assert_eq!(settled(&store, &["a", "c", "d", "e"]).await, [16; 4]);
        // Gone unreleased: its row runs out with its leases.
        store.renew_and_claim_leases("e", 0).await.unwrap();
        assert_eq!(settled(&store, &["a", "c", "d"]).await, [22, 21, 21]);
        store.forget_gone_replicas().await.unwrap();
        let replicas: i64 = sqlx::query_scalar("SELECT count(*) FROM replicas")
            .fetch_one(&store.pool)
            .await
            .unwrap();
        assert_eq!(replicas, 3);
        // Fewer shards than replicas: some hold none.
        sqlx::query("DELETE FROM leases WHERE shard >= 2")
            .execute(&store.writer.pool)
            .await
            .unwrap();
        assert_eq!(settled(&store, &["a", "c", "d"]).await, [1, 1, 0]);
        store.close().await;
    }

    /// A change to game `id` under `fence`: the game's version after it.
    async fn fenced_change(store: &Store, id: &str, fence: &Fence) -> Result<i64, StoreError> {
        let game = store.game(id).await?.expect("the game is stored");
        let write = super::super::GameWrite {
            base: super::super::Base::of(&game),
            game,
            event: "draw_offered",
            side: None,
            fence: Some(fence.clone()),
            creates: None,
            rating: None,
            opening: None,
            positions: Vec::new(),
        };
        match store.write_game(write).await? {
            super::super::Written::Committed { game, .. } => Ok(game.version),
            super::super::Written::Stale(_) => panic!("nothing else wrote the game"),
        }
    }

    #[tokio::test]
    async fn a_write_fenced_by_a_lease_taken_over_is_refused() {
        let store = crate::store::testing::store().await;
        let game = store
            .insert_game(super::super::StoredGame {
                id: "g1".into(),
                variant: crate::rules::Variant::Chess,
                start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                white_name: "W".into(),
                black_name: "B".into(),
                white_token_hash: "w".into(),
                black_token_hash: "b".into(),
                white_engine: None,
                black_engine: None,
                moves: Vec::new(),
                status: crate::rules::Status::Ongoing,
                winner: None,
                termination: None,
                engine_grants_takebacks: true,
                clock: None,
                open: None,
                rematch_of: None,
                engine_due_at: None,
                xiangqi_rules: None,
                ..Default::default()
            })
            .await
            .unwrap();
        let shard = shard_of(&game.id, store.lease_shards().await.unwrap());
        // Claimed by `a`, for no time: it runs out at once.
        let leases = store.renew_and_claim_leases("a", 0).await.unwrap();
        assert_eq!(leases.len(), 64);
        let epoch = leases.iter().find(|l| l.shard == shard).unwrap().epoch;
        let fence = Fence {
            shard,
            owner: "a".into(),
            epoch,
        };
        assert_eq!(fenced_change(&store, &game.id, &fence).await.unwrap(), 1);
        // `b` takes the lease over: `a`'s write is refused, nothing written.
        let taken = store.renew_and_claim_leases("b", 60_000).await.unwrap();
        assert!(taken.contains(&Lease {
            shard,
            epoch: epoch + 1
        }));
        assert!(matches!(
            fenced_change(&store, &game.id, &fence).await,
            Err(StoreError::LeaseLost { .. })
        ));
        assert_eq!(store.game(&game.id).await.unwrap().unwrap().version, 1);
        assert!(
            store
                .renew_and_claim_leases("a", 0)
                .await
                .unwrap()
                .is_empty()
        );
        let fence = Fence {
            owner: "b".into(),
            epoch: epoch + 1,
            ..fence
        };
        assert_eq!(fenced_change(&store, &game.id, &fence).await.unwrap(), 2);
        // Given up, the lease is claimed at once by another.
        store.release_leases("b").await.unwrap();
        assert_eq!(
            store
                .renew_and_claim_leases("c", 60_000)
                .await
                .unwrap()
                .len(),
            64
        );
        store.close().await;
    }
}
