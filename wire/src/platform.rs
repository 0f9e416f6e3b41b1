//! Wiring's only platform-specific calls: file modes.
//!
//! - Unix: new config files `0600`; Cline's hook scripts `0755`, and a script counts as ours
//!   only when it is executable by everyone it is meant for (`0o111`).
//! - Windows: there are no mode bits. New files inherit the folder's ACL; a script is
//!   "executable" when it is a file (Windows runs by extension, not by a bit), and making it
//!   so is a no-op.

use std::fs::OpenOptions;
use std::io;
use std::path::Path;

/// Makes `opts` create an owner-only file (`0600`).
#[cfg(unix)]
pub(crate) fn owner_only(opts: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    opts.mode(0o600);
}

/// Windows: the new file inherits its folder's ACL.
#[cfg(not(unix))]
pub(crate) fn owner_only(_opts: &mut OpenOptions) {}

/// Whether `path` is an executable script (all three execute bits).
#[cfg(unix)]
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 == 0o111)
}

/// Windows: a file is as executable as its extension makes it.
#[cfg(not(unix))]
pub(crate) fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// Gives `path` mode `0755`.
#[cfg(unix)]
pub(crate) fn make_executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

/// Windows: nothing to do (see [`is_executable`]).
#[cfg(not(unix))]
pub(crate) fn make_executable(_path: &Path) -> io::Result<()> {
    Ok(())
}
