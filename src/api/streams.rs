//! What every watch stream (WatchGame and WatchPlayer) shares: the
//! server's shutdown, and a place among its connection's and its address's
//! streams.

use std::{
    collections::HashMap,
    net::SocketAddr,
    pin::Pin,
    sync::{Arc, Mutex},
};

use tonic::Status;

use super::error::too_many_watchers;
use crate::peers::{Peer, PeerSlot, PeerSlots};

/// The watch streams open now, per connection and per address, and the
/// server's shutdown that ends them.
#[derive(Debug)]
pub struct Streams {
    /// Becomes true when the server shuts down; open watch streams end
    /// then, so that graceful shutdown does not wait on them forever.
    shutdown: tokio::sync::watch::Receiver<bool>,
    max_per_connection: usize,
    /// Open watch streams per connection (by remote address).
    connections: Arc<Mutex<HashMap<SocketAddr, usize>>>,
    /// Open watch streams per address, across its connections.
    peers: Arc<PeerSlots>,
    /// Called when a connection's last watch stream has ended (the server
    /// gives the memory they held back to the system).
    released: fn(),
}

impl Streams {
    /// At most `max_per_connection` streams per connection and
    /// `max_per_peer` per address (0: no share); `shutdown` ends them all.
    pub fn new(
        shutdown: tokio::sync::watch::Receiver<bool>,
        max_per_connection: usize,
        max_per_peer: usize,
        released: fn(),
    ) -> Streams {
        Streams {
            shutdown,
            max_per_connection,
            connections: Arc::default(),
            peers: PeerSlots::new(max_per_peer),
            released,
        }
    }

    /// Resolves when the server shuts down.
    pub(super) fn shutdown(&self) -> Pin<Box<dyn Future<Output = ()> + Send + Sync>> {
        let mut shutdown = self.shutdown.clone();
        Box::pin(async move {
            let _ = shutdown.wait_for(|stop| *stop).await;
        })
    }

    /// A place among the watchers of the connection from `addr`, and of
    /// its address.
    pub(super) fn take_place(&self, addr: SocketAddr) -> Result<Place, Status> {
        let share = self
            .peers
            .try_take(Peer::of(addr))
            .ok_or_else(|| too_many_watchers("peer", self.peers.limit()))?;
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        let count = connections.entry(addr).or_default();
        if *count >= self.max_per_connection {
            if *count == 0 {
                connections.remove(&addr);
            }
            return Err(too_many_watchers("connection", self.max_per_connection));
        }
        *count += 1;
        Ok(Place {
            connections: Arc::clone(&self.connections),
            addr,
            released: self.released,
            _share: share,
        })
    }
}

/// A watch stream's place among its connection's watchers, given back when
/// the stream is dropped.
#[derive(Debug)]
pub struct Place {
    connections: Arc<Mutex<HashMap<SocketAddr, usize>>>,
    addr: SocketAddr,
    released: fn(),
    _share: PeerSlot,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut connections = self.connections.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = connections.get_mut(&self.addr) {
            *count -= 1;
            if *count == 0 {
                connections.remove(&self.addr);
                // The connection's watch streams have all ended.
                (self.released)();
            }
        }
    }
}
