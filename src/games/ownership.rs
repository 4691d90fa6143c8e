//! Which games' flag timers and engine seats this server runs: every game
//! on SQLite (one process), and on PostgreSQL the games of the shards whose
//! leases it holds (see `store::leases`).
//!
//! A server renews its leases every [`LeaseTimes::renew_every`], keeping
//! its fair share of the shards among the servers live, and claims up to
//! that share those whose [`LeaseTimes::duration`] ran out. For the shards
//! it gains it arms the flag timers and wakes the engine seats of their
//! ongoing games; after another server's change to one of its games (heard
//! through the store's change feed) it arms that game again. The shards it
//! gives up beyond its share (a server joined) are lost as any other: their
//! timers stop. So when a server joins, the shards spread over it within
//! two `renew_every` (the others give some up, it claims them); when a
//! server dies, the others take its games over within `duration` plus
//! `renew_every`; one that stops gives its leases up, and the others take
//! over within `renew_every`. When its leases run out unrenewed (it cannot
//! reach the database), a server stops their timers.
//!
//! Flags need no more than that: whichever servers act, a flag falls once
//! (written only if the game is still at the version the fall was judged
//! on). An engine seat's move is written with
//! the game's expected ply and the lease's epoch, checked in the move's own
//! transaction, so a server that lost the lease while its engine thought
//! cannot write it: an engine move is played once.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Mutex,
        atomic::{AtomicI64, Ordering},
    },
    time::{Duration, Instant},
};

use super::{
    Games,
    model::Status,
    model::{GameError, new_id},
};
use crate::store::{Fence, Lease, shard_of};

/// How long a lease lasts unrenewed, and how often its owner renews it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseTimes {
    pub duration: Duration,
    pub renew_every: Duration,
}

impl LeaseTimes {
    /// `--lease-duration` and `--lease-renew-interval` by default: a dead
    /// server's games are taken over within about 6 s.
    pub const DEFAULT: LeaseTimes = LeaseTimes {
        duration: Duration::from_secs(5),
        renew_every: Duration::from_secs(1),
    };

    /// Checks that a lease is renewed at least twice in its duration, so
    /// that one slow renewal does not lose it.
    ///
    /// # Errors
    ///
    /// The renewal interval is zero or more than half the duration.
    pub fn check(self) -> Result<LeaseTimes, String> {
        if self.renew_every.is_zero() || self.renew_every * 2 > self.duration {
            return Err(format!(
                "the lease renewal interval ({:?}) must be more than zero and at most half \
                 the lease duration ({:?})",
                self.renew_every, self.duration
            ));
        }
        Ok(self)
    }
}

/// What this server owns.
#[derive(Debug)]
pub(super) enum Ownership {
    /// Every game: no other server writes the store (named as
    /// [`Ownership::server_name`] says).
    Everything(String),
    Leased(Leased),
}

/// The leases this server holds.
#[derive(Debug)]
pub(super) struct Leased {
    /// This server's name in the leases table, new at every start.
    owner: String,
    /// Shards the games are split into (known once ownership is taken).
    shards: AtomicI64,
    held: Mutex<Held>,
    /// Whether the leases were given up (at shutdown), held through each
    /// renewal: a renewal after it would claim them again.
    given_up: tokio::sync::Mutex<bool>,
}

#[derive(Debug, Default)]
struct Held {
    /// Epoch of each shard held.
    leases: HashMap<i64, i64>,
    /// Until when they are held for sure: their last renewal began before
    /// this by their duration.
    until: Option<Instant>,
}

/// The server does not own the game's shard now.
#[derive(Clone, Copy, Debug)]
pub(super) struct NotOwner;

impl Ownership {
    pub(super) fn new(shared_store: bool) -> Ownership {
        if shared_store {
            Ownership::Leased(Leased {
                owner: format!("{}-{}", std::process::id(), new_id()),
                shards: AtomicI64::new(0),
                held: Mutex::default(),
                given_up: tokio::sync::Mutex::new(false),
            })
        } else {
            Ownership::Everything(format!("{}-{}", std::process::id(), new_id()))
        }
    }

    /// Does this server run game `id`'s timer and engine seat?
    pub(super) fn owns(&self, id: &str) -> bool {
        self.fence(id).is_ok()
    }

    /// What a write only the owner of game `id` may make presents: nothing
    /// when this server owns every game, its lease on the game's shard
    /// otherwise.
    pub(super) fn fence(&self, id: &str) -> Result<Option<Fence>, NotOwner> {
        let Ownership::Leased(leased) = self else {
            return Ok(None);
        };
        let shard = shard_of(id, leased.shards.load(Ordering::Relaxed));
        let held = leased.held();
        let live = held.until.is_some_and(|until| Instant::now() < until);
        match held.leases.get(&shard) {
            Some(&epoch) if live => Ok(Some(Fence {
                shard,
                owner: leased.owner.clone(),
                epoch,
            })),
            _ => Err(NotOwner),
        }
    }

    /// This server's name among the replicas (`replicas.owner`); on
    /// SQLite, where there are none, a name of its own, new at every start.
    pub(super) fn server_name(&self) -> &str {
        match self {
            Ownership::Everything(name) => name,
            Ownership::Leased(leased) => &leased.owner,
        }
    }

    /// Whether this server runs what one server alone runs (the pairing
    /// pool): every server on SQLite; the holder of the first shard's live
    /// lease on PostgreSQL.
    pub(super) fn leads(&self) -> bool {
        match self {
            Ownership::Everything(_) => true,
            Ownership::Leased(leased) => {
                let held = leased.held();
                held.until.is_some_and(|until| Instant::now() < until)
                    && held.leases.contains_key(&0)
            }
        }
    }

    /// Leases held (0 on SQLite, where none is needed).
    pub(super) fn leases_held(&self) -> usize {
        match self {
            Ownership::Everything(_) => 0,
            Ownership::Leased(leased) => leased.held().leases.len(),
        }
    }
}

impl Leased {
    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the leases a renewal begun at `began` found held: the shards
    /// gained and lost since the last one.
    fn renewed(&self, leases: Vec<Lease>, began: Instant, times: LeaseTimes) -> Changed {
        let now: HashMap<i64, i64> = leases.into_iter().map(|l| (l.shard, l.epoch)).collect();
        let mut held = self.held();
        let changed = Changed::between(&held.leases, &now);
        held.leases = now;
        held.until = Some(began + times.duration);
        changed
    }

    /// After a renewal failed: the leases are lost once they ran out.
    fn unrenewed(&self) -> Changed {
        let mut held = self.held();
        if held.until.is_some_and(|until| Instant::now() < until) {
            return Changed::default();
        }
        let lost = std::mem::take(&mut held.leases).into_keys().collect();
        Changed {
            gained: HashSet::new(),
            lost,
        }
    }
}

/// Shards gained (or held again at a new epoch) and lost.
#[derive(Debug, Default)]
struct Changed {
    gained: HashSet<i64>,
    lost: HashSet<i64>,
}

impl Changed {
    fn between(before: &HashMap<i64, i64>, after: &HashMap<i64, i64>) -> Changed {
        Changed {
            gained: after
                .iter()
                .filter(|(shard, epoch)| before.get(shard) != Some(epoch))
                .map(|(shard, _)| *shard)
                .collect(),
            lost: before
                .keys()
                .filter(|shard| !after.contains_key(shard))
                .copied()
                .collect(),
        }
    }
}

impl Games {
    /// Takes ownership of games: on SQLite of all of them, on PostgreSQL of
    /// its share of the shards whose leases are free, renewed (and claimed
    /// up to its share) every `times.renew_every` from then on. Arms the
    /// flag timers and wakes the engine seats of the games owned; returns
    /// how many of each.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn take_ownership(&self, times: LeaseTimes) -> Result<(usize, usize), GameError> {
        let Ownership::Leased(leased) = &*self.ownership else {
            return self.arm_games(|_| true).await;
        };
        leased
            .shards
            .store(self.store.lease_shards().await?, Ordering::Relaxed);
        self.store.forget_gone_replicas().await?;
        let gained = self.renew_leases(leased, times).await?;
        let resumed = self.resume_shards(&gained).await?;
        tokio::spawn(self.clone().keep_leases(times));
        Ok(resumed)
    }

    /// Gives this server's leases up, for others to take over at once (at
    /// shutdown, before the store closes).
    pub async fn give_up_ownership(&self) {
        let Ownership::Leased(leased) = &*self.ownership else {
            return;
        };
        let mut given_up = leased.given_up.lock().await;
        *given_up = true;
        if let Err(error) = self.store.release_leases(&leased.owner).await {
            tracing::warn!(%error, "the leases were not given up: others take over at expiry");
        }
    }

    /// Leases this server holds (for monitoring).
    pub fn leases_held(&self) -> usize {
        self.ownership.leases_held()
    }

    /// Renews and claims leases; the shards gained.
    async fn renew_leases(
        &self,
        leased: &Leased,
        times: LeaseTimes,
    ) -> Result<HashSet<i64>, GameError> {
        let given_up = leased.given_up.lock().await;
        if *given_up {
            return Ok(HashSet::new());
        }
        let began = Instant::now();
        let duration = i64::try_from(times.duration.as_millis()).unwrap_or(i64::MAX);
        let changed = match self
            .store
            .renew_and_claim_leases(&leased.owner, duration)
            .await
        {
            Ok(leases) => leased.renewed(leases, began, times),
            Err(error) => {
                let changed = leased.unrenewed();
                self.drop_shards(leased, &changed.lost);
                return Err(error.into());
            }
        };
        self.drop_shards(leased, &changed.lost);
        if !changed.gained.is_empty() || !changed.lost.is_empty() {
            tracing::info!(
                gained = changed.gained.len(),
                lost = changed.lost.len(),
                held = leased.held().leases.len(),
                "game leases changed hands"
            );
        }
        Ok(changed.gained)
    }

    /// Renews the leases every `times.renew_every` until the store closes,
    /// taking over the games of the shards gained.
    async fn keep_leases(self, times: LeaseTimes) {
        let Ownership::Leased(leased) = &*self.ownership else {
            return;
        };
        let mut tick = tokio::time::interval(times.renew_every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tick.tick().await;
            if self.store.is_closed() {
                return;
            }
            let gained = match self.renew_leases(leased, times).await {
                Ok(gained) => gained,
                Err(error) => {
                    tracing::warn!(%error, "the game leases cannot be renewed now");
                    continue;
                }
            };
            if let Err(error) = self.resume_shards(&gained).await {
                // Their games are armed at the next change or renewal.
                tracing::warn!(%error, "the games of shards taken over are not all armed");
                leased.forget(&gained);
            }
        }
    }

    /// Arms the timers and wakes the engine seats of the games in `shards`.
    async fn resume_shards(&self, shards: &HashSet<i64>) -> Result<(usize, usize), GameError> {
        if shards.is_empty() {
            return Ok((0, 0));
        }
        let Ownership::Leased(leased) = &*self.ownership else {
            return Ok((0, 0));
        };
        let count = leased.shards.load(Ordering::Relaxed);
        self.arm_games(|id| shards.contains(&shard_of(id, count)))
            .await
    }

    /// Arms the timers and wakes the engine seats of the ongoing games that
    /// are `owned`: how many of each.
    async fn arm_games(&self, owned: impl Fn(&str) -> bool) -> Result<(usize, usize), GameError> {
        Ok((
            self.resume_engines(&owned).await?,
            self.resume_clocks(&owned).await?,
        ))
    }

    /// Arms the timers and wakes the engine seats of every game held
    /// again (after the change feed missed changes).
    pub(super) async fn resume_owned(&self) {
        let Ownership::Leased(leased) = &*self.ownership else {
            return;
        };
        let held: HashSet<i64> = leased.held().leases.keys().copied().collect();
        if let Err(error) = self.resume_shards(&held).await {
            tracing::warn!(%error, "the games owned are not all armed again");
        }
    }

    /// Stops the timers of the games in `lost` shards (their engine seats'
    /// moves are refused by the lease check).
    fn drop_shards(&self, leased: &Leased, lost: &HashSet<i64>) {
        if !lost.is_empty() {
            let count = leased.shards.load(Ordering::Relaxed);
            self.disarm_clocks(|id| lost.contains(&shard_of(id, count)));
        }
    }

    /// After another server's change to game `id`: if this server owns it,
    /// arms its flag timer for the game as stored and wakes its engine seat
    /// if it is to move.
    pub(super) async fn follow_owned(&self, id: &str) {
        if !self.ownership.owns(id) {
            return;
        }
        match self.store.game_head(id).await {
            Ok(Some(head)) => {
                let game = head.game;
                let ongoing = game.status == Status::Ongoing;
                self.arm_deadline(id, game.clock.and_then(|c| c.flag_at).filter(|_| ongoing));
                if ongoing && game.engine_due_at.is_some() {
                    self.wake_engine(id);
                }
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, game_id = %id, "a game owned cannot be read"),
        }
    }
}

impl Leased {
    /// Forgets `shards`, to gain (and arm) them again at the next renewal.
    fn forget(&self, shards: &HashSet<i64>) {
        self.held()
            .leases
            .retain(|shard, _| !shards.contains(shard));
    }
}
