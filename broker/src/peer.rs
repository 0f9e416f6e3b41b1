//! Who is on the other end of a Unix socket, and whether a socket location is ours.

use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::Path;

/// Our own user id.
pub(crate) fn my_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// The user id of the process on the other end.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn peer_uid(s: &UnixStream) -> io::Result<u32> {
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
pub(crate) fn peer_uid(s: &UnixStream) -> io::Result<u32> {
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
pub(crate) fn peer_uid(_s: &UnixStream) -> io::Result<u32> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "peer credentials are not supported on this platform",
    ))
}

/// True when the peer runs as our user.
pub(crate) fn same_user(s: &UnixStream) -> io::Result<bool> {
    Ok(peer_uid(s)? == my_uid())
}

/// Checks that `dir` is a directory owned by us that nobody else can enter (`0700`); a
/// directory of ours with looser bits is tightened, anything else is refused.
pub(crate) fn check_private_dir(dir: &Path) -> Result<(), String> {
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
