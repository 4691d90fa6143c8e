//! The accepted TCP connection, as HTTP/2 should see it.
//!
//! h2 copies a DATA frame into its shared write buffer only when the payload
//! is below a threshold: 256 bytes when the socket supports vectored writes,
//! 1 KiB when it does not. A larger payload is chained instead, and the writer
//! takes no further frame until it has been written out: one `writev` per
//! response. Most of Arbiter's answers weigh 256 bytes to 1 KiB (a
//! coordinates-only `LegalMoves` is about 350), so under load every response
//! paid its own system call and the kernel time per request doubled
//! (`BENCHMARKS.md`, gRPC service). Saying the socket does not write vectored
//! raises the threshold, so answers up to 1 KiB share one write.
//!
//! A bigger answer is still chained, and without vectored writes h2 would
//! hand it over in two writes (its buffer, then the payload). The connection
//! therefore gathers writes and sends them when h2 flushes, which it does
//! after every chained frame: one system call per big answer, as before.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll, ready},
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::TcpStream,
};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Writes gathered before a flush; more waits until they are sent.
const GATHER_LIMIT: usize = 64 * 1024;

/// An accepted connection that reports no vectored writes and sends what it
/// is given when flushed (see the module documentation).
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    /// Bytes accepted but not yet written to the socket.
    gathered: Vec<u8>,
    /// How many of `gathered` have been written.
    sent: usize,
}

impl Connection {
    pub fn new(stream: TcpStream) -> Connection {
        Connection {
            stream,
            gathered: Vec::new(),
            sent: 0,
        }
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

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
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
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
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

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

#[cfg(test)]
mod tests {
    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::TcpListener,
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
}
