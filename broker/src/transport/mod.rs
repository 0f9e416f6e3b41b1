//! How the broker's two ends reach each other: one [`Listener`] trait feeding the server's one
//! accept loop, one [`Connection`] trait (a byte stream with a peer identity) that the server
//! and the client read and write, and one [`connect`] function.
//!
//! The platform picks the implementation; nothing outside this module names a socket or a
//! pipe:
//!
//! - **Unix** (`unix.rs`): a Unix domain socket in a `0700` directory, the socket `0600`; the
//!   peer's user comes from the kernel (`SO_PEERCRED` on Linux, `getpeereid` on macOS and the
//!   BSDs).
//! - **Windows** (`windows.rs`): a named pipe `\\.\pipe\airlock-<user SID>-broker`, created
//!   with `PIPE_REJECT_REMOTE_CLIENTS` and `FILE_FLAG_FIRST_PIPE_INSTANCE` (a second broker,
//!   or anything already holding the name, makes [`bind`] fail); the peer's user is the user
//!   SID of the process the kernel names (`GetNamedPipeClientProcessId` /
//!   `GetNamedPipeServerProcessId`, then that process's token), compared with ours. It is
//!   cross-checked (`cargo check` / `clippy --target x86_64-pc-windows-gnu`) but has not run
//!   on Windows yet.
//!
//! Both ends check [`Connection::peer`] and hang up on another user.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as platform;
#[cfg(unix)]
pub use unix::{UdsConnection as PlatformConnection, UdsListener as PlatformListener};

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;
#[cfg(windows)]
pub use windows::{PipeConnection as PlatformConnection, PipeListener as PlatformListener};

use crate::BrokerError;

/// Who is on the other end of a connection, as the operating system says (never as the peer
/// claims).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerIdentity {
    /// The peer's user: a uid on Unix, a SID (`S-1-5-21-…`) on Windows. For logs.
    pub user: String,
    /// Whether that is the user this process runs as.
    pub same_user: bool,
}

/// One accepted or connected byte stream.
pub trait Connection: Read + Write + Send + Sized + 'static {
    /// The peer's identity from the kernel. An error means it cannot be told: refuse.
    fn peer(&self) -> io::Result<PeerIdentity>;
    /// How long a read may block (`None`: forever). A read that runs out fails with
    /// `TimedOut` or `WouldBlock`.
    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()>;
    /// How long a write may block (`None`: forever).
    fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()>;
    /// A second handle on the same stream, so one thread can read while another writes.
    fn try_clone(&self) -> io::Result<Self>;
    /// Ends the stream both ways: a read blocked in another handle returns.
    fn shutdown(&self) -> io::Result<()>;
}

/// A bound endpoint that hands out connections.
pub trait Listener: Send + 'static {
    /// The connections it accepts.
    type Conn: Connection;
    /// Waits for the next connection.
    fn accept(&self) -> io::Result<Self::Conn>;
}

/// Binds the platform's endpoint at `endpoint` (a socket path, or a pipe name on Windows).
/// A live broker there is [`BrokerError::AlreadyRunning`].
pub fn bind(endpoint: &Path) -> Result<PlatformListener, BrokerError> {
    platform::bind(endpoint)
}

/// Connects to the endpoint at `endpoint`. The caller checks [`Connection::peer`].
pub fn connect(endpoint: &Path) -> io::Result<PlatformConnection> {
    platform::connect(endpoint)
}

/// Removes what [`bind`] left behind (the socket file; nothing for a pipe).
pub fn remove_endpoint(endpoint: &Path) {
    platform::remove_endpoint(endpoint);
}

/// The platform's default endpoint (see [`crate::default_socket_path`]).
pub(crate) fn default_endpoint() -> Option<PathBuf> {
    platform::default_endpoint()
}
