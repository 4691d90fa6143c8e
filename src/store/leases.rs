//! Leases on shards of games, for servers sharing one database: the owner
//! of a shard's lease runs the flag timers and engine seats of its games.
//!
//! The `leases` table has one row per shard (the migration sets how many);
//! game `id` is in shard [`shard_of`]. A row names its owner, the time its
//! lease runs out (the database's clock, so servers' clocks need not agree)
//! and an epoch, bumped whenever the lease changes hands. The owner renews
//! its rows; once a row's time is past, any server may claim it (`SELECT
//! ... FOR UPDATE SKIP LOCKED`, so that claimers never wait on each other).
//! A write that must come from the owner alone (an engine seat's move)
//! checks, in its own transaction, that the row still names it at the
//! epoch it started with, and holds the row so that nobody claims it
//! before the write commits: a server that lost its lease cannot write.

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

    /// Renews `owner`'s leases for `duration_ms` more, then claims every
    /// lease whose time is past; the leases `owner` holds now.
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
        let renewed = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE leases SET expires_at = {now} + $1 WHERE owner = $2 RETURNING shard, epoch"
        )))
        .bind(duration_ms)
        .bind(owner)
        .fetch_all(&self.writer.pool)
        .await?;
        let claimed = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE leases SET owner = $1, epoch = epoch + 1, expires_at = {now} + $2 \
             WHERE shard IN (SELECT shard FROM leases WHERE expires_at <= {now}{skip}) \
             RETURNING shard, epoch",
            skip = self.backend.lock_skipping_locked(),
        )))
        .bind(owner)
        .bind(duration_ms)
        .fetch_all(&self.writer.pool)
        .await?;
        Ok(renewed
            .iter()
            .chain(&claimed)
            .map(|row| Lease {
                shard: row.get(0),
                epoch: row.get(1),
            })
            .collect())
    }

    /// Gives up `owner`'s leases at once (a server that stops), so that
    /// other servers claim them at their next renewal, not at expiry.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn release_leases(&self, owner: &str) -> Result<(), StoreError> {
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
        };
        match store.write_game(write).await? {
            super::super::Written::Committed { game, .. } => Ok(game.version),
            super::super::Written::Stale(_) => panic!("nothing else wrote the game"),
        }
    }

    #[tokio::test]
    async fn a_write_fenced_by_a_lease_taken_over_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("leases.db").display());
        let store = Store::connect(&url).await.unwrap();
        let game = store
            .insert_game(super::super::NewGame {
                id: "g1".into(),
                variant: "chess".into(),
                start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
                white_name: "W".into(),
                black_name: "B".into(),
                white_token_hash: "w".into(),
                black_token_hash: "b".into(),
                white_engine: None,
                black_engine: None,
                moves: Vec::new(),
                status: "ongoing".into(),
                winner: None,
                termination: None,
                engine_grants_takebacks: true,
                clock: None,
                open: None,
                rematch_of: None,
                engine_due_at: None,
                xiangqi_rules: None,
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
