//! The Unix transport: a Unix domain socket, peers named by the kernel.

use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Connection, Listener, PeerIdentity};
use crate::{BrokerError, SOCKET_NAME};

/// A bound Unix socket.
#[derive(Debug)]
pub struct UdsListener(UnixListener);

/// One end of a Unix socket connection.
#[derive(Debug)]
pub struct UdsConnection(UnixStream);

impl Listener for UdsListener {
    type Conn = UdsConnection;

    fn accept(&self) -> io::Result<UdsConnection> {
        self.0.accept().map(|(s, _)| UdsConnection(s))
    }
}

impl Read for UdsConnection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for UdsConnection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Connection for UdsConnection {
    fn peer(&self) -> io::Result<PeerIdentity> {
        let uid = peer_uid(&self.0)?;
        Ok(PeerIdentity {
            user: uid.to_string(),
            same_user: uid == my_uid(),
        })
    }

    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.0.set_read_timeout(timeout)
    }

    fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.0.set_write_timeout(timeout)
    }

    fn try_clone(&self) -> io::Result<UdsConnection> {
        self.0.try_clone().map(UdsConnection)
    }

    fn shutdown(&self) -> io::Result<()> {
        self.0.shutdown(std::net::Shutdown::Both)
    }
}

/// Binds the socket, creating its `0700` directory (a directory of ours with looser bits is
/// tightened; anyone else's is refused). A stale socket file is replaced, a live one is
/// [`BrokerError::AlreadyRunning`]; the socket is made `0600`.
pub(super) fn bind(path: &Path) -> Result<UdsListener, BrokerError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .ok_or_else(|| BrokerError::Insecure(format!("{} has no directory", path.display())))?;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(dir))?;
    check_private_dir(dir).map_err(BrokerError::Insecure)?;
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            if !meta.file_type().is_socket() {
                return Err(BrokerError::Insecure(format!(
                    "{} exists and is not a socket",
                    path.display()
                )));
            }
            if UnixStream::connect(path).is_ok() {
                return Err(BrokerError::AlreadyRunning(path.to_path_buf()));
            }
            std::fs::remove_file(path).map_err(io_err(path))?;
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(path)(e)),
    }
    let listener = UnixListener::bind(path).map_err(io_err(path))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io_err(path))?;
    Ok(UdsListener(listener))
}

pub(super) fn connect(path: &Path) -> io::Result<UdsConnection> {
    UnixStream::connect(path).map(UdsConnection)
}

pub(super) fn remove_endpoint(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// `$XDG_RUNTIME_DIR/airlock/broker.sock` when `XDG_RUNTIME_DIR` is set to an absolute path,
/// else `<data dir>/run/broker.sock`. `None` without a home.
pub(super) fn default_endpoint() -> Option<PathBuf> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    match runtime {
        Some(dir) => Some(dir.join("airlock").join(SOCKET_NAME)),
        None => airlock_store::default_data_dir().map(|d| d.join("run").join(SOCKET_NAME)),
    }
}

fn io_err(path: &Path) -> impl Fn(io::Error) -> BrokerError + '_ {
    move |source| BrokerError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Our own user id.
fn my_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// The user id of the process on the other end.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn peer_uid(s: &UnixStream) -> io::Result<u32> {
    use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
    getsockopt(s, PeerCredentials)
        .map(|c| c.uid())
        .map_err(io::Error::from)
}

/// The user id of the process on the other end.
#[cfg(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
))]
fn peer_uid(s: &UnixStream) -> io::Result<u32> {
    nix::unistd::getpeereid(s)
        .map(|(uid, _gid)| uid.as_raw())
        .map_err(io::Error::from)
}

/// Elsewhere we cannot tell, so we refuse.
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd",
    target_os = "openbsd",
    target_os = "netbsd",
    target_os = "dragonfly"
)))]
fn peer_uid(_s: &UnixStream) -> io::Result<u32> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "peer credentials are not supported on this platform",
    ))
}

/// Checks that `dir` is a directory owned by us that nobody else can enter (`0700`); a
/// directory of ours with looser bits is tightened, anything else is refused.
fn check_private_dir(dir: &Path) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("{}: cannot inspect ({e})", dir.display()))?;
    if !meta.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    if meta.uid() != my_uid() {
        return Err(format!("{} belongs to another user", dir.display()));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("{}: cannot make it private ({e})", dir.display()))?;
    }
    Ok(())
}
