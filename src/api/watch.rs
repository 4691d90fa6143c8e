//! `Games.WatchGame` on its own route, sending events encoded once.
//!
//! A watched game's events carry the game without its move list, or the
//! whole game for watchers that asked for it (the snapshot always does).
//! Built as a generated message for each watcher, one event cost each of
//! them the game again, queued until sent. Here the games' hub holds each
//! event as the gRPC frames of its messages, encoded once per view
//! ([`encode_event`]),
//! and the answer's body hands those very bytes to HTTP/2: every watcher
//! shares them, even while they wait in a stalled connection's send buffer.
//! The stream reads the hub directly, so a watcher that falls behind is told
//! so (`WATCHER_TOO_SLOW`) rather than queued for. The messages are prost's
//! own bytes (the tests compare them), so clients see no difference. tonic
//! decodes the request and answers errors before the stream; every other
//! `Games` method goes to the generated service.
//!
//! Watchers are capped per game (by the hub: spectators only, so that a
//! game's players always get their streams), per connection and per
//! address (here, by the request's remote address). Resumes
//! (`from_version`), which read the store and replay the game, are capped
//! per caller's address while their past events are told.

use std::{
    collections::{HashMap, VecDeque},
    convert::Infallible,
    net::SocketAddr,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll, ready},
};

use bytes::{BufMut, Bytes};
use http::HeaderMap;
use http_body::Frame;
use prost::Message;
use tokio_stream::Stream;
use tonic::{
    Request, Response, Status,
    body::Body,
    server::{Grpc, NamedService},
};
use tonic_prost::ProstCodec;
use tower_service::Service;

use super::{
    admission::Creates,
    convert,
    error::{ErrorStatus, resume_limit, shutting_down, too_many_watchers, watcher_too_slow},
    games::{GamesService, trace_game},
    player::{PlayerLimits, PlayerStreams},
    proto::{self as pb, games_server::GamesServer},
    server::REQUEST_COMPRESSION,
};
use crate::{
    games::{
        EventKind, GameEvent, GameView, Games, Published, Replay, Replayed, Role,
        Status as GameStatus, View, Watcher,
    },
    memory,
    peers::{Peer, PeerSlot, PeerSlots},
    reason::Reason,
};

/// Bytes before a message in its gRPC frame: a compression flag (0: not
/// compressed) and the message's length (4 bytes, big-endian).
const FRAME_HEADER: usize = 5;

/// `message` in its gRPC frame, as it goes on the wire.
fn framed(message: &pb::WatchGameResponse) -> Bytes {
    let len = message.encoded_len();
    let mut frame = Vec::with_capacity(FRAME_HEADER + len);
    frame.put_u8(0);
    frame.put_u32(u32::try_from(len).unwrap_or(u32::MAX));
    // Encoding into a `Vec` cannot fail: it grows.
    let _ = message.encode(&mut frame);
    Bytes::from(frame)
}

/// The message in a frame made by [`framed`].
pub(super) fn unframed(frame: &Bytes) -> Result<pb::WatchGameResponse, Status> {
    pb::WatchGameResponse::decode(frame.slice(FRAME_HEADER.min(frame.len())..)).map_err(|e| {
        ErrorStatus::new(
            Reason::InternalError,
            format!("an encoded event does not decode: {e}"),
        )
        .into()
    })
}

/// The messages a watcher of `view` receives for `event`, each in its gRPC
/// frame: the event, and `GAME_ENDED` after a move that ended the game.
pub fn encode_event(event: GameEvent<'_>, view: View) -> Vec<Bytes> {
    let kind = match event.kind {
        EventKind::Move => pb::GameEventKind::Move,
        EventKind::DrawOffered => pb::GameEventKind::DrawOffered,
        EventKind::DrawDeclined => pb::GameEventKind::DrawDeclined,
        EventKind::TakebackProposed => pb::GameEventKind::TakebackProposed,
        EventKind::TakebackAccepted => pb::GameEventKind::TakebackAccepted,
        EventKind::TakebackDeclined => pb::GameEventKind::TakebackDeclined,
        EventKind::SeatJoined => pb::GameEventKind::SeatJoined,
        EventKind::RematchOffered => pb::GameEventKind::RematchOffered,
        EventKind::RematchDeclined => pb::GameEventKind::RematchDeclined,
        EventKind::RematchStarted => pb::GameEventKind::RematchStarted,
        EventKind::DrawAccepted
        | EventKind::DrawClaimed
        | EventKind::Resigned
        | EventKind::Aborted
        | EventKind::Flagged => pb::GameEventKind::GameEnded,
    };
    let mut message = pb::WatchGameResponse {
        kind: kind as i32,
        game: Some(convert::game_in(event.game, view)),
        r#move: event.played.map(convert::played_move),
    };
    let mut messages = vec![framed(&message)];
    if event.game.outcome.status != GameStatus::Ongoing
        && kind != pb::GameEventKind::GameEnded
        && !event.kind.after_end()
    {
        message.kind = pb::GameEventKind::GameEnded as i32;
        message.r#move = None;
        messages.push(framed(&message));
    }
    messages
}

fn snapshot(game: &GameView) -> Bytes {
    framed(&pb::WatchGameResponse {
        kind: pb::GameEventKind::Snapshot as i32,
        game: Some(convert::game(game)),
        r#move: None,
    })
}

/// When a watch stream ends: after the game's end, or (following the
/// rematch) once nothing more happens to the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    GameOver,
    Final,
}

impl Ending {
    fn of(follow_rematch: bool) -> Ending {
        if follow_rematch {
            Ending::Final
        } else {
            Ending::GameOver
        }
    }

    /// Whether nothing follows `game` as it is now.
    fn after(self, game: &GameView) -> bool {
        match self {
            Ending::GameOver => game.outcome.status != GameStatus::Ongoing,
            Ending::Final => game.is_final(),
        }
    }

    /// Whether nothing follows `event`.
    fn at(self, event: &Published) -> bool {
        match self {
            Ending::GameOver => event.game_over,
            Ending::Final => event.ends,
        }
    }
}

/// Opens watch streams: the games, the server's shutdown, and the
/// watchers of each connection.
#[derive(Debug)]
pub struct Watchers {
    pub(super) games: Games,
    /// Becomes true when the server shuts down; open watch streams end
    /// then, so that graceful shutdown does not wait on them forever.
    pub(super) shutdown: tokio::sync::watch::Receiver<bool>,
    max_per_connection: usize,
    /// Open watch streams per connection (by remote address).
    connections: Arc<Mutex<HashMap<SocketAddr, usize>>>,
    /// Open watch streams per address, across its connections.
    peers: Arc<PeerSlots>,
    /// The bounds of player streams, and how many are open.
    pub(super) players: PlayerStreams,
    /// Resumes telling their past events, per caller.
    resumes: Arc<PeerSlots>,
}

impl Watchers {
    pub fn new(
        games: Games,
        shutdown: tokio::sync::watch::Receiver<bool>,
        max_per_connection: usize,
        max_per_peer: usize,
        players: PlayerLimits,
        max_resumes_per_peer: usize,
    ) -> Watchers {
        Watchers {
            games,
            shutdown,
            max_per_connection,
            connections: Arc::default(),
            peers: PeerSlots::new(max_per_peer),
            players: PlayerStreams::new(players),
            resumes: PeerSlots::new(max_resumes_per_peer),
        }
    }

    /// The stream of `request`'s game: its snapshot, then its events; or,
    /// resuming after `from_version`, its events after that version.
    pub async fn watch(
        &self,
        request: &Request<pb::WatchGameRequest>,
    ) -> Result<WatchStream, Status> {
        let pb::WatchGameRequest {
            game_id: id,
            from_version,
            view,
            follow_rematch,
            seat_token,
        } = request.get_ref();
        let ending = Ending::of(*follow_rematch);
        trace_game(id)?;
        let view = convert::view(*view, View::Basic)?;
        let place = request
            .remote_addr()
            .map(|addr| self.take_place(addr))
            .transpose()?;
        let role = if seat_token.is_empty() {
            Role::Spectator
        } else {
            self.games.seat_of(id, seat_token).await?;
            Role::Player
        };
        let (queued, over, watcher, replay) = match *from_version {
            None => {
                let (game, watcher) = self.games.watch(id, view, role).await?;
                let over = ending.after(&game);
                (VecDeque::from([snapshot(&game)]), over, watcher, None)
            }
            Some(version) => {
                let slot = request
                    .remote_addr()
                    .map(|addr| {
                        self.resumes
                            .try_take(Peer::of(addr))
                            .ok_or_else(|| resume_limit(self.resumes.limit()))
                    })
                    .transpose()?;
                let (game, watcher, replay) = self.games.resume(id, version, view, role).await?;
                // The client has seen a finished game's last event.
                let over = ending.after(&game) && game.version == version;
                let resuming = Resuming {
                    replay,
                    _slot: slot,
                };
                (VecDeque::new(), over, watcher, Some(resuming))
            }
        };
        let mut shutdown = self.shutdown.clone();
        Ok(WatchStream {
            over,
            ending,
            watcher,
            replay,
            queued,
            shutdown: Box::pin(async move {
                let _ = shutdown.wait_for(|stop| *stop).await;
            }),
            done: false,
            _place: place,
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
            _share: share,
        })
    }
}

/// A watch stream's place among its connection's watchers, given back when
/// the stream is dropped.
#[derive(Debug)]
pub(super) struct Place {
    connections: Arc<Mutex<HashMap<SocketAddr, usize>>>,
    addr: SocketAddr,
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
                memory::release();
            }
        }
    }
}

/// A resume's past events, and its caller's place among the resumes until
/// they are told.
struct Resuming {
    replay: Replay,
    _slot: Option<PeerSlot>,
}

/// A game's snapshot (or its past events, when resuming), then its events
/// as framed messages; ends after the game's end, with `WATCHER_TOO_SLOW`
/// for a watcher that fell behind, and with UNAVAILABLE when the server
/// shuts down. Dropping it (the client went away) leaves the game's
/// channel.
pub struct WatchStream {
    /// The game is over: nothing follows the messages queued.
    over: bool,
    /// When the stream ends.
    ending: Ending,
    watcher: Watcher,
    /// The past events to tell before the watcher's, when resuming.
    replay: Option<Resuming>,
    /// Messages not yet sent: the snapshot, or the current event's.
    queued: VecDeque<Bytes>,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
    done: bool,
    _place: Option<Place>,
}

impl Stream for WatchStream {
    type Item = Result<Bytes, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        loop {
            if let Some(message) = this.queued.pop_front() {
                return Poll::Ready(Some(Ok(message)));
            }
            if this.over {
                this.done = true;
                return Poll::Ready(None);
            }
            if this.shutdown.as_mut().poll(cx).is_ready() {
                this.done = true;
                return Poll::Ready(Some(Err(shutting_down(
                    "the server is shutting down; watch again",
                ))));
            }
            if let Some(resuming) = &mut this.replay {
                match ready!(resuming.replay.poll_next(&mut this.watcher, cx)) {
                    Ok(Replayed::Event(event)) => {
                        this.over = this.ending.at(&event);
                        this.queued.extend(event.messages);
                    }
                    Ok(Replayed::Snapshot(game)) => {
                        this.over = this.ending.after(&game);
                        this.queued.push_back(snapshot(&game));
                    }
                    Ok(Replayed::Done) => this.replay = None,
                    Err(error) => {
                        this.done = true;
                        return Poll::Ready(Some(Err(error.into())));
                    }
                }
                continue;
            }
            match ready!(this.watcher.poll_next(cx)) {
                Some(Ok(event)) => {
                    this.over = this.ending.at(&event);
                    this.queued.extend(event.messages.iter().cloned());
                }
                Some(Err(behind)) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(watcher_too_slow(behind))));
                }
                None => {
                    this.done = true;
                    return Poll::Ready(None);
                }
            }
        }
    }
}

/// A `WatchGame` answer's body: the stream's frames as they are, then the
/// trailers with its status.
struct WatchBody {
    stream: WatchStream,
    ended: bool,
}

impl http_body::Body for WatchBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let status = match Pin::new(&mut self.stream).poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Some(Ok(frame))) => return Poll::Ready(Some(Ok(Frame::data(frame)))),
            Poll::Ready(Some(Err(status))) => status,
            Poll::Ready(None) => Status::ok(""),
        };
        self.ended = true;
        let mut trailers = HeaderMap::new();
        Poll::Ready(Some(
            status
                .add_header(&mut trailers)
                .map(|()| Frame::trailers(trailers)),
        ))
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}

/// An open watch stream, from the method to the route that sends it.
type Opened = Arc<Mutex<Option<WatchStream>>>;

/// The `WatchGame` method for [`Grpc::server_streaming`]: opens the stream
/// and leaves it in `opened`, answering tonic with an empty one (tonic
/// would copy every message into a buffer of the answer's own).
struct WatchMethod {
    watchers: Arc<Watchers>,
    opened: Opened,
}

type NoMessages = tokio_stream::Empty<Result<pb::WatchGameResponse, Status>>;

impl Service<Request<pb::WatchGameRequest>> for WatchMethod {
    type Response = Response<NoMessages>;
    type Error = Status;
    type Future = Pin<Box<dyn Future<Output = Result<Response<NoMessages>, Status>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<pb::WatchGameRequest>) -> Self::Future {
        let watchers = Arc::clone(&self.watchers);
        let opened = Arc::clone(&self.opened);
        Box::pin(async move {
            let stream = watchers.watch(&request).await?;
            *opened.lock().unwrap_or_else(|e| e.into_inner()) = Some(stream);
            Ok(Response::new(tokio_stream::empty()))
        })
    }
}

/// The `arbiter.v1.Games` service: `WatchGame` here, the rest generated.
/// ImportGame takes a whole PGN, so it alone may send large requests: it
/// goes to a copy of the generated service with a limit of its own.
#[derive(Clone, Debug)]
pub struct GamesRoutes {
    generated: GamesServer<GamesService>,
    importing: GamesServer<GamesService>,
    watchers: Arc<Watchers>,
    max_decoding_message_size: usize,
}

impl GamesRoutes {
    /// Requests larger than `max_decoding_message_size` bytes are refused,
    /// ImportGame's over `max_import_message_size`; creating calls are
    /// limited by `creates`.
    pub fn new(
        watchers: Watchers,
        creates: Creates,
        max_decoding_message_size: usize,
        max_import_message_size: usize,
    ) -> GamesRoutes {
        let watchers = Arc::new(watchers);
        let service = GamesServer::new(GamesService {
            games: watchers.games.clone(),
            creates,
            watchers: Arc::clone(&watchers),
        })
        .accept_compressed(REQUEST_COMPRESSION);
        GamesRoutes {
            generated: service
                .clone()
                .max_decoding_message_size(max_decoding_message_size),
            importing: service.max_decoding_message_size(max_import_message_size),
            watchers,
            max_decoding_message_size,
        }
    }
}

impl NamedService for GamesRoutes {
    const NAME: &'static str = <GamesServer<GamesService> as NamedService>::NAME;
}

type RouteFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send + 'static>>;

impl Service<http::Request<Body>> for GamesRoutes {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = RouteFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> RouteFuture {
        match request.uri().path() {
            "/arbiter.v1.Games/WatchGame" => {}
            "/arbiter.v1.Games/ImportGame" => return self.importing.call(request),
            _ => return self.generated.call(request),
        }
        let limit = self.max_decoding_message_size;
        let opened = Opened::default();
        let method = WatchMethod {
            watchers: Arc::clone(&self.watchers),
            opened: Arc::clone(&opened),
        };
        Box::pin(async move {
            let mut grpc = Grpc::new(ProstCodec::<pb::WatchGameResponse, _>::default())
                .max_decoding_message_size(limit)
                .accept_compressed(REQUEST_COMPRESSION);
            let answer = grpc.server_streaming(method, request).await;
            // tonic's head (and its answer to errors before the stream),
            // with the stream's frames as the body.
            let stream = opened.lock().unwrap_or_else(|e| e.into_inner()).take();
            Ok(match stream {
                Some(stream) => {
                    let (head, _) = answer.into_parts();
                    let body = WatchBody {
                        stream,
                        ended: false,
                    };
                    http::Response::from_parts(head, Body::new(body))
                }
                None => answer,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame is the gRPC header (not compressed, the length) and prost's
    /// bytes, and gives the message back.
    #[test]
    fn frames_hold_prosts_bytes() {
        let message = pb::WatchGameResponse {
            kind: pb::GameEventKind::DrawOffered as i32,
            game: Some(pb::Game {
                id: "x".repeat(300),
                version: 7,
                ..Default::default()
            }),
            r#move: None,
        };
        let encoded = message.encode_to_vec();
        let frame = framed(&message);
        assert_eq!(frame[0], 0, "not compressed");
        assert_eq!(
            frame[1..5],
            u32::try_from(encoded.len()).unwrap().to_be_bytes()
        );
        assert_eq!(frame[5..], encoded[..]);
        assert_eq!(unframed(&frame).unwrap(), message);
    }
}
