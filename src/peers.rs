//! Limits per caller. A caller is known by its IP address (an IPv6 one by
//! its /64, the block one site is usually given, so that one machine cannot
//! become thousands of callers); two limits use it: how many engine searches
//! it runs at once ([`PeerSlots`]) and how fast it may create things
//! ([`CreateRate`], a token bucket).

use std::{
    collections::HashMap,
    net::{IpAddr, Ipv6Addr, SocketAddr},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
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

/// Peers remembered by a [`CreateRate`] at most; past that, the buckets
/// that have filled up again (which say nothing a fresh one would not) are
/// dropped, and if none has, the fullest.
const MAX_PEERS: usize = 65_536;

/// A token bucket per peer: `burst` calls at once, refilled at `per_second`.
#[derive(Debug)]
pub struct CreateRate {
    per_second: u32,
    burst: u32,
    buckets: Mutex<HashMap<Peer, Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A call refused by a [`CreateRate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimited {
    pub per_second: u32,
    pub burst: u32,
    /// When the next call would be admitted.
    pub retry_after: Duration,
}

impl CreateRate {
    /// `per_second` calls a second per peer after a first `burst` (at least
    /// 1); `None` when `per_second` is 0 (no limit).
    pub fn new(per_second: u32, burst: u32) -> Option<CreateRate> {
        (per_second > 0).then(|| CreateRate {
            per_second,
            burst: burst.max(1),
            buckets: Mutex::default(),
        })
    }

    /// Admits one call from `peer` now, or says when to retry.
    ///
    /// # Errors
    ///
    /// [`RateLimited`] when the peer's bucket is empty.
    pub fn admit(&self, peer: Peer) -> Result<(), RateLimited> {
        self.admit_at(peer, Instant::now())
    }

    fn admit_at(&self, peer: Peer, now: Instant) -> Result<(), RateLimited> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= MAX_PEERS && !buckets.contains_key(&peer) {
            self.prune(&mut buckets, now);
        }
        let burst = f64::from(self.burst);
        let bucket = buckets.entry(peer).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        bucket.tokens = self.level(bucket, now);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = (1.0 - bucket.tokens) / f64::from(self.per_second);
        Err(RateLimited {
            per_second: self.per_second,
            burst: self.burst,
            retry_after: Duration::from_secs_f64(wait).max(Duration::from_millis(1)),
        })
    }

    /// The bucket's tokens at `now`.
    fn level(&self, bucket: &Bucket, now: Instant) -> f64 {
        let refill =
            now.saturating_duration_since(bucket.at).as_secs_f64() * f64::from(self.per_second);
        (bucket.tokens + refill).min(f64::from(self.burst))
    }

    fn prune(&self, buckets: &mut HashMap<Peer, Bucket>, now: Instant) {
        let burst = f64::from(self.burst);
        buckets.retain(|_, bucket| self.level(bucket, now) < burst);
        if buckets.len() >= MAX_PEERS {
            let fullest = buckets
                .iter()
                .max_by(|a, b| self.level(a.1, now).total_cmp(&self.level(b.1, now)))
                .map(|(peer, _)| *peer);
            if let Some(peer) = fullest {
                buckets.remove(&peer);
            }
        }
    }

    #[cfg(test)]
    fn peers(&self) -> usize {
        self.buckets.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
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
        let rate = CreateRate::new(10, 3).unwrap();
        let start = Instant::now();
        for _ in 0..3 {
            rate.admit_at(peer(1), start).unwrap();
        }
        let refused = rate.admit_at(peer(1), start).unwrap_err();
        assert_eq!(refused.retry_after, Duration::from_millis(100));
        // Another peer has its own bucket.
        rate.admit_at(peer(2), start).unwrap();
        // A tenth of a second later, one more.
        let later = start + Duration::from_millis(100);
        rate.admit_at(peer(1), later).unwrap();
        assert!(rate.admit_at(peer(1), later).is_err());
        assert!(CreateRate::new(0, 100).is_none());
    }

    #[test]
    fn the_table_of_buckets_stays_bounded() {
        let rate = CreateRate::new(1, 2).unwrap();
        let start = Instant::now();
        for n in 0..MAX_PEERS as u32 + 10 {
            rate.admit_at(peer(n), start).unwrap();
        }
        assert!(rate.peers() <= MAX_PEERS);
        // Once the buckets have filled up again they are dropped together.
        rate.admit_at(peer(u32::MAX), start + Duration::from_secs(2))
            .unwrap();
        assert_eq!(rate.peers(), 1);
    }
}
