//! Core's only platform-specific calls.
//!
//! - Unix: the JSONL audit copy is created `0600`; the system level's marker counts only when
//!   root owns it.
//! - Windows: new files inherit their folder's ACL (TODO: an owner-only DACL for a JSONL path
//!   outside the profile), and there is no system level yet, so the marker never counts.

use std::fs::OpenOptions;
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

/// True when `path` is a regular file (not a link) owned by root.
#[cfg(unix)]
pub(crate) fn is_root_owned_file(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.uid() == 0)
}

/// Windows: no system level yet; nothing counts as the root-owned marker.
#[cfg(not(unix))]
pub(crate) fn is_root_owned_file(_path: &Path) -> bool {
    false
}
