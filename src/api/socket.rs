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
//! raises the threshold, so answers up to 1 KiB share one write; bigger ones
//! are still chained.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll},
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::TcpStream,
};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// An accepted connection that reports no vectored writes (see the module
/// documentation); everything else is the [`TcpStream`]'s.
#[derive(Debug)]
pub struct Connection(pub TcpStream);

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}

impl Connected for Connection {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.0.connect_info()
    }
}
