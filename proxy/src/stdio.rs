//! The proxy's own stdin / stdout as async streams.
//!
//! `tokio::io::stdin()` / `stdout()` do every read and write on a blocking-pool thread: two
//! thread hand-offs per message, the largest share of the proxy's added latency. MCP clients
//! connect a stdio server with pipes (Python, most SDKs) or socket pairs (Node's libuv), and
//! both can be polled directly: a pipe through `tokio::net::unix::pipe`, a socket as a
//! `UnixStream`. Anything else (a terminal, a regular file) falls back to tokio's blocking
//! stdio, so behaviour never depends on the kind of descriptor — only speed does.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The read half: stdin.
pub enum Input {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    #[cfg(unix)]
    Socket(tokio::net::UnixStream),
    Blocking(tokio::io::Stdin),
}

/// The write half: stdout.
pub enum Output {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    #[cfg(unix)]
    Socket(tokio::net::UnixStream),
    Blocking(tokio::io::Stdout),
}

#[cfg(unix)]
fn dup(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::os::fd::OwnedFd> {
    fd.try_clone_to_owned().ok()
}

/// Is this descriptor a FIFO (pipe) or a socket?
#[cfg(unix)]
fn kind(fd: &std::os::fd::OwnedFd) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let file = std::fs::File::from(fd.try_clone().ok()?);
    let ft = file.metadata().ok()?.file_type();
    if ft.is_fifo() {
        Some("pipe")
    } else if ft.is_socket() {
        Some("socket")
    } else {
        None
    }
}

/// stdin, polled directly when it is a pipe or a socket. Must be called inside a runtime.
pub fn stdin() -> Input {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Some(fd) = dup(std::io::stdin().as_fd()) {
            match kind(&fd) {
                Some("pipe") => {
                    if let Ok(r) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
                        return Input::Pipe(r);
                    }
                }
                Some(_) => {
                    let s = std::os::unix::net::UnixStream::from(fd);
                    if s.set_nonblocking(true).is_ok()
                        && let Ok(s) = tokio::net::UnixStream::from_std(s)
                    {
                        return Input::Socket(s);
                    }
                }
                None => {}
            }
        }
    }
    Input::Blocking(tokio::io::stdin())
}

/// stdout, polled directly when it is a pipe or a socket. Must be called inside a runtime.
pub fn stdout() -> Output {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Some(fd) = dup(std::io::stdout().as_fd()) {
            match kind(&fd) {
                Some("pipe") => {
                    if let Ok(w) = tokio::net::unix::pipe::Sender::from_owned_fd(fd) {
                        return Output::Pipe(w);
                    }
                }
                Some(_) => {
                    let s = std::os::unix::net::UnixStream::from(fd);
                    if s.set_nonblocking(true).is_ok()
                        && let Ok(s) = tokio::net::UnixStream::from_std(s)
                    {
                        return Output::Socket(s);
                    }
                }
                None => {}
            }
        }
    }
    Output::Blocking(tokio::io::stdout())
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Input::Pipe(r) => Pin::new(r).poll_read(cx, buf),
            #[cfg(unix)]
            Input::Socket(s) => Pin::new(s).poll_read(cx, buf),
            Input::Blocking(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(w) => Pin::new(w).poll_write(cx, buf),
            #[cfg(unix)]
            Output::Socket(s) => Pin::new(s).poll_write(cx, buf),
            Output::Blocking(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(w) => Pin::new(w).poll_flush(cx),
            #[cfg(unix)]
            Output::Socket(s) => Pin::new(s).poll_flush(cx),
            Output::Blocking(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(w) => Pin::new(w).poll_shutdown(cx),
            // Half-close the socket so the client sees the end of our output.
            #[cfg(unix)]
            Output::Socket(s) => Pin::new(s).poll_shutdown(cx),
            Output::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}
