//! Who is on the other end of a Unix socket, as the kernel says (`SO_PEERCRED`), never as the
//! peer claims.

use std::io;
use std::os::unix::net::UnixStream;

/// The peer's credentials at connect time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    pub uid: u32,
    pub gid: u32,
    /// Process id (0 where the platform does not say).
    pub pid: i32,
}

#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn peer(s: &UnixStream) -> io::Result<Peer> {
    use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
    let c = getsockopt(s, PeerCredentials).map_err(io::Error::from)?;
    Ok(Peer {
        uid: c.uid(),
        gid: c.gid(),
        pid: c.pid(),
    })
}

#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
pub fn peer(s: &UnixStream) -> io::Result<Peer> {
    let (uid, gid) = nix::unistd::getpeereid(s).map_err(io::Error::from)?;
    Ok(Peer {
        uid: uid.as_raw(),
        gid: gid.as_raw(),
        pid: 0,
    })
}

/// Our own user id.
pub fn my_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

/// The user id of a named system user, if it exists.
pub fn uid_of(name: &str) -> Option<u32> {
    nix::unistd::User::from_name(name)
        .ok()
        .flatten()
        .map(|u| u.uid.as_raw())
}

/// The home directory of a user id, if known.
pub fn home_of(uid: u32) -> Option<std::path::PathBuf> {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(|u| u.dir)
}
