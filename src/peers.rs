//! Limits per caller. A caller is known by its IP address (an IPv6 one by
//! its /64, the block one site is usually given, so that one machine cannot
//! become thousands of callers); two limits use it: how many engine searches
//! it holds at once ([`PeerSlots`]: engine searches, connections, streams)
//! and how fast it may do something ([`PeerRate`]: create games, fail a
//! credential check). The rate may be kept by other keys too ([`Rate`]:
//! the Lichess API's calls per token).

use std::{
    collections::HashMap,
    hash::Hash,
    net::{IpAddr, Ipv6Addr, SocketAddr},
    num::NonZeroU32,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use governor::{
    Quota, RateLimiter,
    clock::{Clock, DefaultClock},
    middleware::StateInformationMiddleware,
    state::keyed::DefaultKeyedStateStore,
};

/// A caller as the limits count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Peer(IpAddr);

impl Peer {
    /// The peer behind a connection from `addr`.
    pub fn of(addr: SocketAddr) -> Peer {
        match addr.ip().to_canonical() {
            IpAddr::V6(v6) => {
                let [a, b, c, d, ..] = v6.segments();
                Peer(IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0)))
            }
            v4 => Peer(v4),
        }
    }
}

/// At most `limit` things at once per peer (0: no limit). The table holds
/// only peers holding something, so its size is bounded by what is held.
#[derive(Debug)]
pub struct PeerSlots {
    limit: usize,
    held: Mutex<HashMap<Peer, usize>>,
}

/// One thing held by a peer; dropping it gives the place back.
#[derive(Debug)]
pub struct PeerSlot {
    slots: Arc<PeerSlots>,
    peer: Peer,
}

impl PeerSlots {
    /// At most `limit` at once per peer; 0 for no limit.
    pub fn new(limit: usize) -> Arc<PeerSlots> {
        Arc::new(PeerSlots {
            limit,
            held: Mutex::default(),
        })
    }

    /// The limit (0: none).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// A place for `peer`, or `None` when it already holds `limit`.
    pub fn try_take(self: &Arc<Self>, peer: Peer) -> Option<PeerSlot> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let count = held.entry(peer).or_insert(0);
        if self.limit > 0 && *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(PeerSlot {
            slots: self.clone(),
            peer,
        })
    }

    #[cfg(test)]
    fn peers(&self) -> usize {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = held.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.peer);
            }
        }
    }
}

/// Callers a [`Rate`] remembers before it forgets those whose bucket has
/// filled up again (which say nothing a fresh one would not). Past that the
/// table holds only peers that called within their bucket's refill time, so
/// it is bounded by the calls of that time; it is pruned again each time it
/// has doubled.
const MAX_PEERS: usize = 65_536;

/// The limiter tells, with each call admitted, how many more its caller
/// may make at once.
type Limiter<K, C> = RateLimiter<K, DefaultKeyedStateStore<K>, C, StateInformationMiddleware>;

/// A rate per caller known by `K`: `burst` calls at once, refilled at
/// `per_second` (GCRA, governor's keyed limiter).
#[derive(Debug)]
pub struct Rate<K: Hash + Eq + Clone, C: Clock = DefaultClock> {
    per_second: u32,
    burst: u32,
    limiter: Limiter<K, C>,
    clock: C,
    /// The table's size that makes the next call prune it.
    prune_at: AtomicUsize,
}

/// A rate per peer address.
pub type PeerRate<C = DefaultClock> = Rate<Peer, C>;

/// A call refused by a [`Rate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimited {
    pub per_second: u32,
    pub burst: u32,
    /// When the next call would be admitted.
    pub retry_after: Duration,
}

impl<K: Hash + Eq + Clone> Rate<K> {
    /// `per_second` calls a second per caller after a first `burst` (at
    /// least 1); `None` when `per_second` is 0 (no limit).
    pub fn new(per_second: u32, burst: u32) -> Option<Rate<K>> {
        Rate::with_clock(per_second, burst, DefaultClock::default())
    }
}

impl<K: Hash + Eq + Clone, C: Clock + Clone> Rate<K, C> {
    fn with_clock(per_second: u32, burst: u32, clock: C) -> Option<Rate<K, C>> {
        let rate = NonZeroU32::new(per_second)?;
        let burst = burst.max(1);
        let quota = Quota::per_second(rate).allow_burst(NonZeroU32::new(burst)?);
        Some(Rate {
            per_second,
            burst,
            limiter: RateLimiter::dashmap_with_clock(quota, clock.clone()).with_middleware(),
            clock,
            prune_at: AtomicUsize::new(MAX_PEERS),
        })
    }

    /// The time one call's place takes to come back.
    pub fn interval(&self) -> Duration {
        Duration::from_secs(1) / self.per_second
    }

    /// The rate a second, and the burst.
    pub fn quota(&self) -> (u32, u32) {
        (self.per_second, self.burst)
    }

    /// Admits one call from `caller` now, saying how many more it may make
    /// at once; or says when to retry.
    ///
    /// # Errors
    ///
    /// [`RateLimited`] when the caller's bucket is empty.
    pub fn admit(&self, caller: K) -> Result<u32, RateLimited> {
        self.prune();
        self.limiter
            .check_key(&caller)
            .map(|admitted| admitted.remaining_burst_capacity())
            .map_err(|not_until| RateLimited {
                per_second: self.per_second,
                burst: self.burst,
                retry_after: not_until
                    .wait_time_from(self.clock.now())
                    .max(Duration::from_millis(1)),
            })
    }

    /// Takes `n` units of `caller`'s share (a rate counted in units, such
    /// as KiB), waiting until its bucket holds them; more than the burst is
    /// taken as the burst.
    pub async fn take(&self, caller: K, n: u32) {
        let Some(n) = NonZeroU32::new(n.min(self.burst)) else {
            return;
        };
        self.prune();
        while let Ok(Err(not_until)) = self.limiter.check_key_n(&caller, n) {
            tokio::time::sleep(not_until.wait_time_from(self.clock.now())).await;
        }
    }

    /// Forgets the callers whose bucket is full again, once the table has
    /// grown past its mark.
    fn prune(&self) {
        if self.limiter.len() >= self.prune_at.load(Ordering::Relaxed) {
            self.limiter.retain_recent();
            let left = self.limiter.len();
            self.prune_at
                .store(MAX_PEERS.max(left.saturating_mul(2)), Ordering::Relaxed);
        }
    }

    #[cfg(test)]
    fn peers(&self) -> usize {
        self.limiter.len()
    }
}

#[cfg(test)]
mod tests {
    use governor::clock::FakeRelativeClock;

    use super::*;

    fn peer(n: u32) -> Peer {
        Peer(IpAddr::from(n.to_be_bytes()))
    }

    #[test]
    fn ipv6_peers_are_their_64_and_mapped_ipv4_is_ipv4() {
        let a: SocketAddr = "[2001:db8:1:2:aaaa::1]:5".parse().unwrap();
        let b: SocketAddr = "[2001:db8:1:2:bbbb::9]:6".parse().unwrap();
        let c: SocketAddr = "[2001:db8:1:3::1]:6".parse().unwrap();
        assert_eq!(Peer::of(a), Peer::of(b));
        assert_ne!(Peer::of(a), Peer::of(c));
        let mapped: SocketAddr = "[::ffff:10.0.0.1]:1".parse().unwrap();
        let v4: SocketAddr = "10.0.0.1:2".parse().unwrap();
        assert_eq!(Peer::of(mapped), Peer::of(v4));
    }

    #[test]
    fn peer_slots_count_per_peer_and_forget_idle_peers() {
        let slots = PeerSlots::new(1);
        let first = slots.try_take(peer(1)).unwrap();
        assert!(slots.try_take(peer(1)).is_none());
        let other = slots.try_take(peer(2)).unwrap();
        assert_eq!(slots.peers(), 2);
        drop(first);
        drop(other);
        assert_eq!(slots.peers(), 0);
        assert!(slots.try_take(peer(1)).is_some());
        // No limit: everything is admitted, and still forgotten.
        let open = PeerSlots::new(0);
        let held: Vec<_> = (0..5).map(|_| open.try_take(peer(1)).unwrap()).collect();
        drop(held);
        assert_eq!(open.peers(), 0);
    }

    #[test]
    fn a_bucket_allows_a_burst_then_the_rate() {
        let clock = FakeRelativeClock::default();
        let rate = PeerRate::with_clock(10, 3, clock.clone()).unwrap();
        for left in [2, 1, 0] {
            assert_eq!(rate.admit(peer(1)), Ok(left));
        }
        let refused = rate.admit(peer(1)).unwrap_err();
        assert_eq!(refused.retry_after, Duration::from_millis(100));
        // Another peer has its own bucket.
        rate.admit(peer(2)).unwrap();
        // A tenth of a second later, one more.
        clock.advance(Duration::from_millis(100));
        rate.admit(peer(1)).unwrap();
        assert!(rate.admit(peer(1)).is_err());
        assert!(PeerRate::new(0, 100).is_none());
    }

    #[test]
    fn the_table_of_buckets_is_pruned_of_full_ones() {
        let clock = FakeRelativeClock::default();
        let rate = PeerRate::with_clock(1, 2, clock.clone()).unwrap();
        let crowd = MAX_PEERS as u32 + 10;
        for n in 0..crowd {
            rate.admit(peer(n)).unwrap();
        }
        // Every bucket is in use: none is forgotten.
        assert_eq!(rate.peers(), crowd as usize);
        // Once those have filled up again, the next prune drops them all,
        // keeping only the buckets of the newer calls.
        clock.advance(Duration::from_secs(2));
        let mut n = crowd;
        while rate.peers() >= crowd as usize {
            rate.admit(peer(n)).unwrap();
            n += 1;
            assert!(n < 3 * crowd, "never pruned");
        }
        assert!(rate.peers() <= (n - crowd) as usize);
    }
}
