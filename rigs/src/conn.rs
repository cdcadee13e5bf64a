//! [`Conn`]: a byte stream as the connection a hyper client's connector hands back — the
//! browser rigs' in-memory pipe to a remote WebDriver endpoint, the desktop rigs' ssh
//! `dial-stdio` — with whatever must live as long as the connection (an ssh process).

use std::pin::Pin;
use std::task::{Context, Poll};

use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

/// A connection over `T`, keeping `K` until it is dropped.
pub(crate) struct Conn<T, K = ()> {
    io: TokioIo<T>,
    _keep: K,
}

impl<T, K> Conn<T, K> {
    pub(crate) fn new(io: T, keep: K) -> Conn<T, K> {
        Conn { io: TokioIo::new(io), _keep: keep }
    }
}

impl<T, K> Connection for Conn<T, K> {
    fn connected(&self) -> Connected {
        Connected::new()
    }
}

impl<T: AsyncRead + Unpin, K: Unpin> hyper::rt::Read for Conn<T, K> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        hyper::rt::Read::poll_read(Pin::new(&mut self.io), cx, buf)
    }
}

impl<T: AsyncWrite + Unpin, K: Unpin> hyper::rt::Write for Conn<T, K> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        hyper::rt::Write::poll_write(Pin::new(&mut self.io), cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        hyper::rt::Write::poll_flush(Pin::new(&mut self.io), cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        hyper::rt::Write::poll_shutdown(Pin::new(&mut self.io), cx)
    }
}
