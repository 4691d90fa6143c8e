//! Accepting connections and serving each in a task of its own, within
//! limits.
//!
//! tonic's `serve_with_incoming` has no handshake or idle timeout, no cap on
//! connections and no deadline at shutdown, and it retries a failed accept at
//! once (at the file descriptor limit: a busy loop). So the server runs its
//! own accept loop, and hyper serves every connection (HTTP/2, and HTTP/1.1
//! for grpc-web) in a task of its own, which shutdown can reach. A
//! connection:
//! - is closed at once when [`ConnectionLimits::max_connections`] are open;
//! - is refused when its address already holds
//!   [`ConnectionLimits::max_connections_per_peer`]: it is served for a
//!   moment by [`Refusal`], which answers every request with
//!   `RESOURCE_EXHAUSTED` `TOO_MANY_CONNECTIONS` (or HTTP 503), so the
//!   client learns why rather than seeing a reset; at most
//!   [`MAX_REFUSING`] such connections at once, closed after
//!   [`REFUSAL_LINGER`] without a request (past that, closed at once);
//! - must finish its setup (a TLS handshake, say, run in its own task) and
//!   its greeting (the HTTP/2 preface and SETTINGS frame, or a first
//!   HTTP/1.1 request) within `handshake_timeout`, or is closed;
//! - is closed gracefully (HTTP/2 GOAWAY) after `idle_timeout` without a
//!   request in flight; a request is in flight until its answer ends, so a
//!   long `WatchGame` stream keeps its connection;
//! - must answer HTTP/2 pings (sent after `keepalive_interval` of silence)
//!   within `keepalive_timeout`, or is closed;
//! - may hold at most `max_concurrent_streams` streams, each with a header
//!   list of at most [`MAX_HEADER_LIST_SIZE`] bytes;
//! - at shutdown, is closed at once if it never sent a request (silent or
//!   half-greeted); otherwise it is asked to finish (GOAWAY; no HTTP/1.1
//!   keep-alive) and closed once it has had no request in flight for
//!   [`DRAIN_LINGER`], or after `shutdown_grace`, if it has not finished.
//!
//! A failed accept that is not about one client (EMFILE, ENFILE, ENOBUFS)
//! is retried after a pause that doubles up to [`ACCEPT_PAUSE_MAX`], and
//! logged once per burst.
//!
//! hyper reads and writes through [`Connection`], which only gathers writes
//! until a flush (see [`transport`](super::transport)): every limit here holds
//! through it. Requests carry the TCP connection's [`TcpConnectInfo`], so
//! `tonic::Request::remote_addr` works whatever `setup` returns.

use std::{
    convert::Infallible,
    io,
    pin::{Pin, pin},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll, ready},
    time::Duration,
};

use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::conn::auto,
};
use prost::bytes::Bytes;
use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{Semaphore, watch},
    task::JoinSet,
    time::Instant,
};
use tonic::transport::server::{Connected, TcpConnectInfo};
use tower::ServiceExt;
use tower_service::Service;

use super::{memory, refusal::Refusal, socket::Connection};
use crate::peers::{Peer, PeerSlots};

/// Largest header list a request may send (HTTP/2
/// `SETTINGS_MAX_HEADER_LIST_SIZE`, hyper's default made explicit): what a
/// stream whose body never comes holds, besides its slot.
pub const MAX_HEADER_LIST_SIZE: u32 = 16 * 1024;
/// Streams a client may open and reset before the server has taken them up
/// (h2's default made explicit); more closes the connection (the "rapid
/// reset" attack).
pub const MAX_PENDING_ACCEPT_RESETS: usize = 20;
/// Bytes of answers one HTTP/2 stream may have waiting for its client's
/// flow-control window (hyper's default is about 400 KB): what a watcher
/// that stops reading its socket holds, besides its place in the game's
/// shared backlog.
pub const MAX_SEND_BUFFER_PER_STREAM: usize = 64 * 1024;
/// The first pause after a failed accept; it doubles with every failure.
const ACCEPT_PAUSE_MIN: Duration = Duration::from_millis(10);
/// The longest pause after a failed accept.
const ACCEPT_PAUSE_MAX: Duration = Duration::from_secs(1);
/// How long a connection without a request in flight has at shutdown to
/// send its last answers' ends and take its GOAWAY before it is closed.
pub const DRAIN_LINGER: Duration = Duration::from_millis(500);

/// Connections refused for their address's share that are served their
/// refusal at once; more are closed at once.
pub const MAX_REFUSING: usize = 64;
/// How long a refused connection is kept without a request.
pub const REFUSAL_LINGER: Duration = Duration::from_secs(1);
/// At most one log line per this much time about addresses over their share.
const REFUSAL_LOG_EVERY: Duration = Duration::from_secs(10);

/// Limits on connections (see the module documentation; each is the
/// [`ServerConfig`](super::ServerConfig) field of the same name).
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    pub max_connections: usize,
    /// 0: no share.
    pub max_connections_per_peer: usize,
    pub max_concurrent_streams: u32,
    pub handshake_timeout: Duration,
    pub idle_timeout: Duration,
    pub keepalive_interval: Duration,
    pub keepalive_timeout: Duration,
    pub shutdown_grace: Duration,
}

/// Serves `service` on every connection `listener` accepts, after `setup`
/// (run in the connection's task, within the handshake timeout), until
/// `shutdown` resolves; then lets the connections finish for at most the
/// shutdown grace and closes the rest.
pub async fn serve<S, B, F, Fut, IO>(
    listener: TcpListener,
    service: S,
    setup: F,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Body<Data = Bytes> + Unpin + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    F: Fn(TcpStream) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = io::Result<IO>> + Send + 'static,
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let http = Arc::new(http(&limits));
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let shares = PeerSlots::new(limits.max_connections_per_peer);
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let refusal_limits = ConnectionLimits {
        handshake_timeout: limits.handshake_timeout.min(REFUSAL_LINGER),
        idle_timeout: REFUSAL_LINGER,
        ..limits.clone()
    };
    let mut over_share = Throttled::new(REFUSAL_LOG_EVERY);
    let (drain, draining) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut failures = Burst::default();
    let mut refusals = Burst::default();
    let mut shutdown = pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            accepted = listener.accept() => accepted,
        };
        let (stream, addr) = match accepted {
            Ok(accepted) => accepted,
            // One client gave up before it was accepted: nothing to wait for.
            Err(err) if is_client_error(&err) => continue,
            Err(err) => {
                if failures.hit() {
                    tracing::warn!(error = %err, "cannot accept connections; retrying with back-off");
                }
                let doublings = failures.count.saturating_sub(1).min(8);
                let pause = ACCEPT_PAUSE_MIN
                    .saturating_mul(1 << doublings)
                    .min(ACCEPT_PAUSE_MAX);
                tokio::select! {
                    () = &mut shutdown => break,
                    () = tokio::time::sleep(pause) => continue,
                }
            }
        };
        if let Some(failed) = failures.end() {
            tracing::info!(failed, "accepting connections again");
        }
        let Ok(permit) = open.clone().try_acquire_owned() else {
            if refusals.hit() {
                tracing::warn!(
                    limit = limits.max_connections,
                    "connection limit reached: closing new connections"
                );
            }
            drop(stream);
            continue;
        };
        if let Some(refused) = refusals.end() {
            tracing::info!(refused, "below the connection limit again");
        }
        let Some(share) = shares.try_take(Peer::of(addr)) else {
            drop(permit);
            if let Some(refused) = over_share.hit() {
                tracing::warn!(
                    limit = limits.max_connections_per_peer,
                    refused,
                    "addresses over their share of connections: refusing their new ones"
                );
            }
            if let Ok(refusing) = refusing.clone().try_acquire_owned() {
                tasks.spawn(serve_connection(
                    stream,
                    setup.clone(),
                    Refusal {
                        limit: limits.max_connections_per_peer,
                    },
                    http.clone(),
                    refusal_limits.clone(),
                    draining.clone(),
                    refusing,
                ));
            }
            continue;
        };
        tasks.spawn(serve_connection(
            stream,
            setup.clone(),
            service.clone(),
            http.clone(),
            limits.clone(),
            draining.clone(),
            (permit, share),
        ));
    }
    drop(listener);
    let _ = drain.send(true);
    let finished = tokio::time::timeout(limits.shutdown_grace, async {
        while tasks.join_next().await.is_some() {}
    });
    if finished.await.is_err() {
        tracing::warn!(
            open = tasks.len(),
            "closing the connections still open after the shutdown grace"
        );
        tasks.shutdown().await;
    }
}

/// The HTTP/1.1 and HTTP/2 settings of every connection.
fn http(limits: &ConnectionLimits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // hyper enforces its HTTP/1.1 header read timeout (30 s) only with a timer.
    builder.http1().timer(TokioTimer::new());
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_concurrent_streams)
        .max_header_list_size(MAX_HEADER_LIST_SIZE)
        .max_pending_accept_reset_streams(MAX_PENDING_ACCEPT_RESETS)
        .max_send_buf_size(MAX_SEND_BUFFER_PER_STREAM)
        .keep_alive_interval(limits.keepalive_interval)
        .keep_alive_timeout(limits.keepalive_timeout);
    builder
}

/// Whether a failed accept concerns one client only (it is then retried at
/// once).
fn is_client_error(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Consecutive occurrences of a condition worth one log line.
#[derive(Default)]
struct Burst {
    count: u32,
}

impl Burst {
    /// Counts one; whether it starts a burst.
    fn hit(&mut self) -> bool {
        self.count = self.count.saturating_add(1);
        self.count == 1
    }

    /// Ends the burst: how many it counted, if any.
    fn end(&mut self) -> Option<u32> {
        (self.count > 0).then(|| std::mem::take(&mut self.count))
    }
}

/// A condition logged at most once per period, with how often it happened.
struct Throttled {
    every: Duration,
    last: Option<Instant>,
    count: u64,
}

impl Throttled {
    fn new(every: Duration) -> Throttled {
        Throttled {
            every,
            last: None,
            count: 0,
        }
    }

    /// Counts one; the count to log, when a line is due.
    fn hit(&mut self) -> Option<u64> {
        self.count += 1;
        let now = Instant::now();
        if self.last.is_some_and(|last| now < last + self.every) {
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.count))
    }
}

/// Serves one connection until it ends, is closed by a timeout, or its task
/// is aborted at the end of the shutdown grace. `_held` (its places among
/// the open connections) is given back when it ends.
async fn serve_connection<S, B, F, Fut, IO>(
    stream: TcpStream,
    setup: F,
    service: S,
    http: Arc<auto::Builder<TokioExecutor>>,
    limits: ConnectionLimits,
    mut draining: watch::Receiver<bool>,
    _held: impl Send + 'static,
) where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Body<Data = Bytes> + Unpin + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    F: Fn(TcpStream) -> Fut,
    Fut: Future<Output = io::Result<IO>>,
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // First, so that it comes after the connection's buffers are freed.
    let _release = memory::Release;
    let activity = Arc::new(Activity::new());
    if let Err(err) = stream.set_nodelay(true) {
        tracing::debug!(error = %err, "cannot set TCP_NODELAY");
    }
    let info = stream.connect_info();
    let greeting_deadline = activity.opened + limits.handshake_timeout;
    let io = tokio::select! {
        set_up = tokio::time::timeout_at(greeting_deadline, setup(stream)) => match set_up {
            Ok(Ok(io)) => io,
            Ok(Err(err)) => {
                tracing::debug!(error = %err, "connection set-up failed");
                return;
            }
            Err(_) => return,
        },
        _ = draining.wait_for(|draining| *draining) => return,
    };
    let io = TokioIo::new(Connection::new(Greeting::new(io, activity.clone())));
    let service = PerConnection {
        inner: service,
        info,
        activity: activity.clone(),
    };
    let mut conn = pin!(http.serve_connection(io, service));
    let mut phase = Phase::Greeting;
    let mut deadline = greeting_deadline;
    let mut drained = false;
    loop {
        tokio::select! {
            served = conn.as_mut() => {
                if let Err(err) = served {
                    tracing::debug!(error = %err, "connection ended with an error");
                }
                return;
            }
            _ = draining.wait_for(|draining| *draining), if !drained => {
                drained = true;
                // The grace is for answers: a connection that never sent a
                // request has none to finish.
                if !activity.greeted.load(Ordering::Relaxed) {
                    return;
                }
                // The accept loop aborts this task after the grace.
                conn.as_mut().graceful_shutdown();
                (phase, deadline) = (Phase::Draining, Instant::now() + DRAIN_LINGER);
            }
            () = tokio::time::sleep_until(deadline) => {
                match activity.next(phase, &limits) {
                    Next::Wait(phase_then, until) => (phase, deadline) = (phase_then, until),
                    Next::GoAway => {
                        conn.as_mut().graceful_shutdown();
                        phase = Phase::Closing;
                        deadline = Instant::now() + limits.keepalive_timeout;
                    }
                    Next::Close => return,
                }
            }
        }
    }
}

/// Where a connection is in its life, for its timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Not greeted yet: closed at the handshake deadline.
    Greeting,
    /// Serving: closed gracefully when idle too long.
    Serving,
    /// Told to go away (idle): closed if it does not within the keepalive
    /// timeout.
    Closing,
    /// Told to go away (shutdown): closed once its last answer ended
    /// [`DRAIN_LINGER`] ago.
    Draining,
}

/// What a connection's timer does when it fires.
#[derive(Debug)]
enum Next {
    /// Waits until then, in that phase.
    Wait(Phase, Instant),
    /// Closes gracefully.
    GoAway,
    /// Closes at once.
    Close,
}

/// What a connection's task learns from its requests and its bytes.
#[derive(Debug)]
struct Activity {
    opened: Instant,
    /// Whether the client has sent a complete greeting.
    greeted: AtomicBool,
    /// Requests whose answer has not ended.
    in_flight: AtomicUsize,
    /// When the last answer ended, in milliseconds after `opened`.
    last_end_ms: AtomicU64,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            opened: Instant::now(),
            greeted: AtomicBool::new(false),
            in_flight: AtomicUsize::new(0),
            last_end_ms: AtomicU64::new(0),
        }
    }

    fn greet(&self) {
        if !self.greeted.load(Ordering::Relaxed) {
            self.greeted.store(true, Ordering::Relaxed);
        }
    }

    /// What the timer of a connection in `phase` does now.
    fn next(&self, phase: Phase, limits: &ConnectionLimits) -> Next {
        let now = Instant::now();
        match phase {
            Phase::Greeting if !self.greeted.load(Ordering::Relaxed) => Next::Close,
            Phase::Greeting | Phase::Serving => {
                if self.in_flight.load(Ordering::Relaxed) > 0 {
                    return Next::Wait(Phase::Serving, now + limits.idle_timeout);
                }
                let last_end = Duration::from_millis(self.last_end_ms.load(Ordering::Relaxed));
                let idle_until = self.opened + last_end + limits.idle_timeout;
                if idle_until <= now {
                    Next::GoAway
                } else {
                    Next::Wait(Phase::Serving, idle_until)
                }
            }
            Phase::Closing => Next::Close,
            Phase::Draining if self.in_flight.load(Ordering::Relaxed) > 0 => {
                Next::Wait(Phase::Draining, now + DRAIN_LINGER)
            }
            Phase::Draining => {
                let last_end = Duration::from_millis(self.last_end_ms.load(Ordering::Relaxed));
                let close_at = self.opened + last_end + DRAIN_LINGER;
                if close_at <= now {
                    Next::Close
                } else {
                    Next::Wait(Phase::Draining, close_at)
                }
            }
        }
    }
}

/// A request in flight on a connection, until its answer ends.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn begin(activity: &Arc<Activity>) -> InFlight {
        activity.greet();
        activity.in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let since_open = self.0.opened.elapsed().as_millis();
        self.0.last_end_ms.store(
            u64::try_from(since_open).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The service as one connection's requests see it: with the connection's
/// addresses in their extensions (`Request::remote_addr`), and counted in
/// flight until their answers end.
struct PerConnection<S> {
    inner: S,
    info: TcpConnectInfo,
    activity: Arc<Activity>,
}

impl<S, B> hyper::service::Service<Request<Incoming>> for PerConnection<S>
where
    S: Service<Request<tonic::body::Body>, Response = Response<B>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Body + Unpin,
{
    type Response = Response<Answer<B>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let mut request = request.map(tonic::body::Body::new);
        request.extensions_mut().insert(self.info.clone());
        let in_flight = InFlight::begin(&self.activity);
        let inner = self.inner.clone();
        Box::pin(async move {
            let response = inner.oneshot(request).await?;
            Ok(response.map(|body| Answer {
                body,
                _in_flight: in_flight,
            }))
        })
    }
}

/// An answer's body, keeping its request in flight until it ends.
struct Answer<B> {
    body: B,
    _in_flight: InFlight,
}

impl<B: Body + Unpin> Body for Answer<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// What an HTTP/2 client sends first.
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// The preface and the header of the SETTINGS frame that must follow it.
const GREETING_HEAD: usize = PREFACE.len() + 9;

/// A client's stream, whose first bytes are watched for a complete HTTP/2
/// greeting: the preface and its SETTINGS frame. An HTTP/1.1 client is
/// greeted by its first request instead.
struct Greeting<IO> {
    io: IO,
    activity: Arc<Activity>,
    /// The first bytes read, up to [`GREETING_HEAD`].
    head: [u8; GREETING_HEAD],
    /// Bytes read so far (while watching).
    read: usize,
    watching: bool,
}

impl<IO> Greeting<IO> {
    fn new(io: IO, activity: Arc<Activity>) -> Greeting<IO> {
        Greeting {
            io,
            activity,
            head: [0; GREETING_HEAD],
            read: 0,
            watching: true,
        }
    }

    fn watch(&mut self, bytes: &[u8]) {
        let kept = self.read.min(GREETING_HEAD);
        let taken = bytes.len().min(GREETING_HEAD - kept);
        self.head[kept..kept + taken].copy_from_slice(&bytes[..taken]);
        self.read += bytes.len();
        let compared = (kept + taken).min(PREFACE.len());
        if self.head[..compared] != PREFACE[..compared] {
            // Not HTTP/2: greeted by its first request.
            self.watching = false;
        } else if kept + taken == GREETING_HEAD {
            let length = usize::from(self.head[24]) << 16
                | usize::from(self.head[25]) << 8
                | usize::from(self.head[26]);
            if self.read >= GREETING_HEAD + length {
                self.activity.greet();
                self.watching = false;
            }
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Greeting<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.io).poll_read(cx, buf))?;
        if self.watching && buf.filled().len() > before {
            let this = &mut *self;
            this.watch(&buf.filled()[before..]);
        }
        Poll::Ready(Ok(()))
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Greeting<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 10,
            max_connections_per_peer: 0,
            max_concurrent_streams: 10,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(10),
            keepalive_interval: Duration::from_secs(10),
            keepalive_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
        }
    }

    /// Requests carry their connection's addresses (what
    /// `tonic::Request::remote_addr` reads), the same for either protocol;
    /// shutdown ends the loop once the connections are closed.
    #[tokio::test]
    async fn requests_know_their_peer() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = tower::service_fn(|request: Request<tonic::body::Body>| async move {
            let info = request.extensions().get::<TcpConnectInfo>().cloned();
            let peer = info.and_then(|info| info.remote_addr()).unwrap();
            let mut response = Response::new(tonic::body::Body::empty());
            response
                .headers_mut()
                .insert("x-peer", peer.to_string().parse().unwrap());
            Ok::<_, Infallible>(response)
        });
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(serve(
            listener,
            peer,
            |stream| std::future::ready(Ok(stream)),
            limits(),
            async {
                let _ = stopped.await;
            },
        ));
        let mut client = TcpStream::connect(addr).await.unwrap();
        let local = client.local_addr().unwrap();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        assert!(
            answer.to_lowercase().contains(&format!("x-peer: {local}")),
            "{answer}"
        );
        stop.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), server)
            .await
            .expect("the loop ends")
            .unwrap();
    }

    fn greeted_after(chunks: &[&[u8]]) -> Vec<bool> {
        let activity = Arc::new(Activity::new());
        let mut greeting = Greeting::new((), activity.clone());
        chunks
            .iter()
            .map(|chunk| {
                if greeting.watching {
                    greeting.watch(chunk);
                }
                activity.greeted.load(Ordering::Relaxed)
            })
            .collect()
    }

    /// The greeting is complete with the SETTINGS frame's payload, however
    /// the bytes are cut; HTTP/1.1 and garbage are never greeted by bytes.
    #[test]
    fn an_http2_greeting_ends_with_its_settings_frame() {
        let settings = [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100];
        let greeting = [&PREFACE[..], &settings].concat();
        assert_eq!(greeted_after(&[&greeting]), [true]);
        assert_eq!(
            greeted_after(&[&greeting[..10], &greeting[10..]]),
            [false, true]
        );
        assert_eq!(
            greeted_after(&[&greeting[..30], &greeting[30..35], &greeting[35..]]),
            [false, false, true]
        );
        assert_eq!(greeted_after(&[&PREFACE[..]]), [false], "preface only");
        let empty = [&PREFACE[..], &[0, 0, 0, 4, 0, 0, 0, 0, 0]].concat();
        assert_eq!(greeted_after(&[&empty]), [true]);
        assert_eq!(greeted_after(&[b"POST / HTTP/1.1\r\n\r\n"]), [false]);
        assert_eq!(
            greeted_after(&[b"PRI * HTTP/1.1\r\n", &greeting]),
            [false, false]
        );
    }
}
