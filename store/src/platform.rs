//! The store's only platform-specific calls: owner-only permissions on what it creates.
//!
//! - Unix: directories `0700`, the database file `0600` (SQLite gives its `-wal` and `-shm`
//!   files the database file's mode).
//! - Windows: no-ops. Files and folders under the user's profile inherit its ACL, which grants
//!   the user, SYSTEM and administrators only. TODO: an explicit owner-only DACL for a store
//!   placed elsewhere.

use std::fs::DirBuilder;
use std::io;
use std::path::Path;

/// Makes `builder` create owner-only directories.
#[cfg(unix)]
pub(crate) fn private_dirs(builder: &mut DirBuilder) {
    use std::os::unix::fs::DirBuilderExt;
    builder.mode(0o700);
}

/// Makes `builder` create owner-only directories (Windows: inherited ACL, see the module).
#[cfg(not(unix))]
pub(crate) fn private_dirs(_builder: &mut DirBuilder) {}

/// Creates `path` empty and owner-only unless it exists, so SQLite opens a file nobody else
/// can read.
#[cfg(unix)]
pub(crate) fn create_private_file(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Windows: SQLite creates the file; it inherits the profile's ACL (see the module).
#[cfg(not(unix))]
pub(crate) fn create_private_file(_path: &Path) -> io::Result<()> {
    Ok(())
}
