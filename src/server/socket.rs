//! The accepted connection (TCP, or a TLS stream over it), as HTTP/2 should
//! see it.
//!
//! h2 copies a DATA frame into its shared write buffer only when the payload
//! is below a threshold: 256 bytes when the socket supports vectored writes,
//! 1 KiB when it does not. A larger payload is chained instead, and the writer
//! takes no further frame until it has been written out: one `writev` per
//! response. Most of Arbiter's answers weigh 256 bytes to 1 KiB (a
//! coordinates-only `LegalMoves` is about 350), so under load every response
//! paid its own system call and the kernel time per request doubled
//! (measured under LegalMoves load). Saying the socket does not write vectored
//! raises the threshold, so answers up to 1 KiB share one write.
//!
//! A bigger answer is still chained, and without vectored writes h2 would
//! hand it over in two writes (its buffer, then the payload). The connection
//! therefore gathers writes and sends them when h2 flushes, which it does
//! after every chained frame: one system call per big answer, as before.
//!
//! Even so, answers rarely shared a write: h2 flushes whenever its
//! connection task runs out of frames, and tokio runs that task right after
//! each handler that finishes, so under load nearly every answer went out
//! alone (0.9 `sendto` per request at 64 in flight). A flush therefore first
//! lets the worker's other ready tasks run (`yield_now`), and the answers
//! they finish meanwhile go out with it. The wait is short even under load:
//! tokio resumes a yielded task when its worker runs out of ready tasks, and
//! at the latest at its next I/O poll, every 61 tasks (`event_interval`).
//! A wait that gathers nothing more, as at one request in flight, only adds
//! latency, so the next [`PROMPT_FLUSHES`] flushes send at once. At 64 in
//! flight that leaves 0.7 `sendto` per request (0.15-0.2 if every flush
//! waits).
//!
//! Over TLS the connection wraps the TLS stream, not the other way round: it
//! gathers h2's plaintext, so one flush is encrypted as a few full records
//! and written at once. Wrapped in TLS it would gather far less: the TLS
//! stream says it writes vectored (so h2 chains answers above 256 bytes
//! again, each followed by a flush) and seals every write into a record of
//! its own. With 64 `LegalMoves` in flight on one TLS connection the server
//! made 0.09-0.13 socket writes per answer this way round, 0.62-0.67 the
//! other (3 runs each, debug build, counted with strace).
//!
//! It stays because it made `LegalMoves` 18% faster (median; 1-38% over ten
//! configurations) for clients that decode every answer, measured against
//! plain tonic's connection (`BENCHMARKS.md`, "Transport pieces against
//! plain tonic"). Cutting answers of 1-16 KiB into DATA frames below 1 KiB
//! gained such a client 3% (-11% to 16%) and is not done.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll, ready},
};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Writes gathered before a flush; more waits until they are sent.
const GATHER_LIMIT: usize = 64 * 1024;
/// Flushes sent without waiting after a wait that gathered nothing more.
const PROMPT_FLUSHES: u8 = 8;

/// A flush waiting for the worker's other ready tasks.
type Wait = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

/// An accepted connection that reports no vectored writes and sends what it
/// is given when flushed, after the worker's other ready tasks have run (see
/// the module documentation).
pub struct Connection<S> {
    stream: S,
    /// Bytes accepted but not yet written to the socket.
    gathered: Vec<u8>,
    /// How many of `gathered` have been written.
    sent: usize,
    /// Bytes accepted since the connection opened.
    accepted: u64,
    /// The wait before a flush, and `accepted` when it began.
    waiting: Option<(Wait, u64)>,
    /// Flushes still to send without waiting.
    prompt: u8,
}

impl<S: std::fmt::Debug> std::fmt::Debug for Connection<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("stream", &self.stream)
            .field("gathered", &self.gathered.len())
            .field("sent", &self.sent)
            .field("accepted", &self.accepted)
            .field("waiting", &self.waiting.is_some())
            .field("prompt", &self.prompt)
            .finish()
    }
}

impl<S: AsyncWrite + Unpin> Connection<S> {
    /// `stream`, with its writes gathered until flushed.
    pub fn new(stream: S) -> Connection<S> {
        Connection {
            stream,
            gathered: Vec::new(),
            sent: 0,
            accepted: 0,
            waiting: None,
            prompt: 0,
        }
    }

    /// Lets the worker's other ready tasks run once before a flush, unless
    /// the last such wait gathered nothing more.
    fn poll_wait(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.waiting.is_none() {
            if self.prompt > 0 {
                self.prompt -= 1;
                return Poll::Ready(());
            }
            self.waiting = Some((Box::pin(tokio::task::yield_now()), self.accepted));
        }
        if let Some((wait, began)) = &mut self.waiting {
            ready!(wait.as_mut().poll(cx));
            if self.accepted == *began {
                self.prompt = PROMPT_FLUSHES;
            }
        }
        self.waiting = None;
        Poll::Ready(())
    }

    /// Writes out everything gathered.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.gathered.len() {
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &self.gathered[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.gathered.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Connection<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Connection<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.gathered.len() >= GATHER_LIMIT {
            ready!(self.poll_send(cx))?;
        }
        // Below the limit now: either it was, or everything was just sent.
        let n = buf.len().min(GATHER_LIMIT - self.gathered.len());
        self.gathered.extend_from_slice(&buf[..n]);
        self.accepted += n as u64;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.sent < self.gathered.len() {
            ready!(self.poll_wait(cx));
        }
        ready!(self.poll_send(cx))?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_send(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::{TcpListener, TcpStream},
    };

    use super::*;

    /// More than the socket buffers and several gather limits, written in
    /// pieces of odd sizes while the peer reads slowly: everything arrives,
    /// in order, once flushed.
    #[tokio::test]
    async fn everything_written_arrives_in_order() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let expected = data.clone();
        let reader = tokio::spawn(async move {
            let mut peer = TcpStream::connect(addr).await.unwrap();
            let mut received = Vec::new();
            let mut chunk = [0; 4096];
            loop {
                let n = peer.read(&mut chunk).await.unwrap();
                if n == 0 {
                    break received;
                }
                received.extend_from_slice(&chunk[..n]);
                if received.len() % 7 == 0 {
                    tokio::task::yield_now().await;
                }
            }
        });
        let (stream, _) = listener.accept().await.unwrap();
        let mut connection = Connection::new(stream);
        for piece in data.chunks(1_000 + 37) {
            connection.write_all(piece).await.unwrap();
        }
        connection.flush().await.unwrap();
        connection.shutdown().await.unwrap();
        assert!(reader.await.unwrap() == expected);
    }

    fn write(conn: &mut Connection<TcpStream>, byte: u8) {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let written = Pin::new(conn).poll_write(&mut cx, &[byte]);
        assert!(matches!(written, Poll::Ready(Ok(1))));
    }

    /// Polls a flush once: has it finished?
    fn flushed(conn: &mut Connection<TcpStream>) -> bool {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match Pin::new(conn).poll_flush(&mut cx) {
            Poll::Ready(result) => {
                result.unwrap();
                true
            }
            Poll::Pending => false,
        }
    }

    /// A flush waits one turn; after a wait that gathered nothing more, the
    /// next `PROMPT_FLUSHES` flushes send at once. Everything arrives.
    #[tokio::test]
    async fn a_flush_waits_unless_waiting_gathered_nothing() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let reader = tokio::spawn(async move {
            let mut peer = TcpStream::connect(addr).await.unwrap();
            let mut received = Vec::new();
            peer.read_to_end(&mut received).await.unwrap();
            received
        });
        let (stream, _) = listener.accept().await.unwrap();
        let mut connection = Connection::new(stream);
        let conn = &mut connection;
        // A wait that gathers more: the next flush waits too.
        write(conn, b'a');
        assert!(!flushed(conn), "the first flush waits");
        write(conn, b'b');
        assert!(flushed(conn));
        write(conn, b'c');
        assert!(!flushed(conn), "the last wait gathered more");
        // A wait that gathers nothing: the next flushes do not wait.
        assert!(flushed(conn));
        for byte in b'd'..b'd' + PROMPT_FLUSHES {
            write(conn, byte);
            assert!(flushed(conn), "flush of {:?} waited", char::from(byte));
        }
        write(conn, b'z');
        assert!(!flushed(conn), "waits again after the prompt flushes");
        assert!(flushed(conn));
        assert!(flushed(conn), "nothing to send: no wait");
        connection.shutdown().await.unwrap();
        assert_eq!(reader.await.unwrap(), b"abcdefghijkz");
    }
}
