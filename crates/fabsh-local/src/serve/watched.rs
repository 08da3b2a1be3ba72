//! A connection's socket as hyper sees it: reads tell the connection's `Activity` when a
//! request begins to arrive, and closing lingers while the client is still sending.
//!
//! Lingering: a socket closed with unread data in it is reset, and a reset can destroy the
//! answer the client has not read yet: a 413 for a body refused before it was read, or a
//! 401 for a request whose body was never wanted. So a closing connection first sends its
//! FIN and, if the client is still sending, reads and discards until the client closes too
//! (the watchdog bounds how long).

use super::conns::Activity;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Where the close has got to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    /// Not closing.
    No,
    /// FIN sent; checking whether the client is still sending.
    Shut,
    /// The client was still sending: discarding until it closes.
    Lingering,
}

/// A TCP stream watched for its connection's `Activity`.
#[derive(Debug)]
pub(super) struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
    closing: Closing,
}

impl Watched {
    /// Watches `stream` for `activity`.
    pub(super) fn new(stream: TcpStream, activity: Arc<Activity>) -> Watched {
        Watched {
            stream,
            activity,
            closing: Closing::No,
        }
    }

    /// Reads and discards what the client still sends. Pending only while lingering (tokio's
    /// budget makes even a fast sender yield); ready when the client has closed, the socket
    /// failed, or nothing was waiting at the first look (nothing left to reset).
    fn poll_discard(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut scratch = [0u8; 4096];
        loop {
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.stream).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(()),
                Poll::Ready(Ok(())) => {
                    if self.closing == Closing::Shut {
                        self.closing = Closing::Lingering;
                        self.activity.began_lingering();
                    }
                }
                Poll::Ready(Err(_)) => return Poll::Ready(()),
                Poll::Pending if self.closing == Closing::Lingering => return Poll::Pending,
                Poll::Pending => return Poll::Ready(()),
            }
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.stream).poll_read(cx, buf))?;
        if buf.filled().len() > before {
            this.activity.bytes_arrived();
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    /// Sends FIN, then lingers while the client is still sending (see the module comment).
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.closing == Closing::No {
            ready!(Pin::new(&mut this.stream).poll_shutdown(cx))?;
            this.closing = Closing::Shut;
        }
        ready!(this.poll_discard(cx));
        Poll::Ready(Ok(()))
    }
}
