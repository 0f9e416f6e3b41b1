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

/// The user id of a named user as `/etc/passwd` lists it, without NSS: where `useradd --system`
/// puts the service's user, and what the statically linked hook client can read (a static
/// binary cannot load NSS modules safely).
pub fn passwd_uid(name: &str) -> Option<u32> {
    let text = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd_lookup(&text, name)
}

/// `name`'s uid in `/etc/passwd`-formatted `text` (`name:x:uid:gid:…`); the first entry wins.
fn passwd_lookup(text: &str, name: &str) -> Option<u32> {
    text.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        fields.nth(1)?.parse().ok()
    })
}

/// The home directory of a user id, if known.
pub fn home_of(uid: u32) -> Option<std::path::PathBuf> {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(|u| u.dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwd_lines_are_read_by_exact_name() {
        let text = "root:x:0:0:root:/root:/bin/bash\nairlock-x:x:5:5::/:/bin/false\n\
                    airlock:x:998:997:Airlock:/var/lib/airlock:/usr/sbin/nologin\n\
                    airlock:x:12:12:dup:/:/bin/false\n";
        assert_eq!(passwd_lookup(text, "airlock"), Some(998));
        assert_eq!(passwd_lookup(text, "root"), Some(0));
        assert_eq!(passwd_lookup(text, "airloc"), None);
        assert_eq!(
            passwd_lookup("airlock:x:notanumber:1::/:\n", "airlock"),
            None
        );
        assert_eq!(passwd_lookup("", "airlock"), None);
    }

    #[test]
    fn the_real_passwd_agrees_with_nss_for_root() {
        assert_eq!(passwd_uid("root"), Some(0));
        assert_eq!(uid_of("root"), Some(0));
    }
}
