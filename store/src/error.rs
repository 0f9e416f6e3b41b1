//! The store's error type and the mapping from SQLite result codes to it.
//!
//! Every variant has a stable reason code ([`StoreError::code`]) that callers print or put in
//! hook output. Messages never contain stored payloads: they carry paths, SQLite's own
//! message (which names the failure, never row contents) or constant text.

use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database file (or its directory) could not be created or opened.
    #[error("cannot open the store at {}", path.display())]
    Open {
        /// The database path that was asked for.
        path: PathBuf,
        /// The underlying I/O or SQLite error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The database was written by a newer Airlock; it is left untouched.
    #[error(
        "the store's schema version {found} is newer than this Airlock knows ({known}); \
         refusing to touch it (upgrade Airlock)"
    )]
    SchemaTooNew {
        /// `PRAGMA user_version` found in the file.
        found: i64,
        /// The newest schema version this code knows.
        known: i64,
    },
    /// The file is not a SQLite database, or its contents are malformed.
    #[error("the store is corrupt: {0}")]
    Corrupt(String),
    /// The database (or its directory) cannot be written.
    #[error("the store is read-only: {0}")]
    ReadOnly(String),
    /// Another connection held the write lock for longer than the busy timeout.
    #[error("the store is locked: {0}")]
    Locked(String),
    /// Any other SQLite failure.
    #[error("store error: {0}")]
    Sqlite(rusqlite::Error),
    /// A value could not be encoded as JSON.
    #[error("store JSON error: {0}")]
    Json(serde_json::Error),
    /// A named record does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// The caller passed a value the store refuses to record.
    #[error("invalid argument: {0}")]
    Invalid(String),
}

impl StoreError {
    /// A stable, machine-readable reason code for this error.
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::Open { .. } => "store_open_failed",
            StoreError::SchemaTooNew { .. } => "store_schema_too_new",
            StoreError::Corrupt(_) => "store_corrupt",
            StoreError::ReadOnly(_) => "store_read_only",
            StoreError::Locked(_) => "store_locked",
            StoreError::Sqlite(_) => "store_error",
            StoreError::Json(_) => "store_json_error",
            StoreError::NotFound(_) => "store_not_found",
            StoreError::Invalid(_) => "store_invalid_argument",
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    /// Classifies a SQLite error by its primary result code: busy/locked → [`StoreError::Locked`],
    /// read-only → [`StoreError::ReadOnly`], not-a-database/corrupt → [`StoreError::Corrupt`],
    /// anything else → [`StoreError::Sqlite`].
    fn from(err: rusqlite::Error) -> Self {
        match err.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                StoreError::Locked(format!(
                    "{err} (another Airlock process kept the write lock past the busy timeout)"
                ))
            }
            Some(ErrorCode::ReadOnly) => StoreError::ReadOnly(err.to_string()),
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
                StoreError::Corrupt(err.to_string())
            }
            _ => StoreError::Sqlite(err),
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(err: serde_json::Error) -> Self {
        StoreError::Json(err)
    }
}

/// Maps an error met while opening `path`: "cannot open" becomes [`StoreError::Open`] (naming
/// the path); everything else is classified as usual.
pub(crate) fn open_error(path: &Path, err: rusqlite::Error) -> StoreError {
    match err.sqlite_error_code() {
        Some(ErrorCode::CannotOpen) => StoreError::Open {
            path: path.to_path_buf(),
            source: Box::new(err),
        },
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly(format!("{}: {err}", path.display())),
        _ => StoreError::from(err),
    }
}

/// Maps a filesystem error met while preparing `path` (creating its directory or file).
pub(crate) fn io_error(path: &Path, err: std::io::Error) -> StoreError {
    match err.kind() {
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            StoreError::ReadOnly(format!("{}: {err}", path.display()))
        }
        _ => StoreError::Open {
            path: path.to_path_buf(),
            source: Box::new(err),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::ffi;

    fn sqlite(code: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), None)
    }

    #[test]
    fn sqlite_codes_map_to_variants() {
        let p = Path::new("/x/airlock.db");
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_BUSY)).code(),
            "store_locked"
        );
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_LOCKED)).code(),
            "store_locked"
        );
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_READONLY)).code(),
            "store_read_only"
        );
        // Extended read-only codes (e.g. SQLITE_READONLY_DIRECTORY) map the same way.
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_READONLY | (6 << 8))).code(),
            "store_read_only"
        );
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_NOTADB)).code(),
            "store_corrupt"
        );
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_CORRUPT)).code(),
            "store_corrupt"
        );
        assert_eq!(
            StoreError::from(sqlite(ffi::SQLITE_FULL)).code(),
            "store_error"
        );
        assert_eq!(
            open_error(p, sqlite(ffi::SQLITE_CANTOPEN)).code(),
            "store_open_failed"
        );
        assert_eq!(
            open_error(p, sqlite(ffi::SQLITE_READONLY)).code(),
            "store_read_only"
        );
        assert_eq!(
            open_error(p, sqlite(ffi::SQLITE_BUSY)).code(),
            "store_locked"
        );
    }

    #[test]
    fn io_errors_map_to_variants() {
        let p = Path::new("/x/airlock.db");
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert_eq!(io_error(p, denied).code(), "store_read_only");
        let other = std::io::Error::from(std::io::ErrorKind::NotADirectory);
        let e = io_error(p, other);
        assert_eq!(e.code(), "store_open_failed");
        assert!(e.to_string().contains("/x/airlock.db"));
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn every_code_is_stable_snake_case() {
        let all = [
            StoreError::SchemaTooNew { found: 2, known: 1 },
            StoreError::Corrupt(String::new()),
            StoreError::ReadOnly(String::new()),
            StoreError::Locked(String::new()),
            StoreError::Sqlite(rusqlite::Error::QueryReturnedNoRows),
            StoreError::NotFound(String::new()),
            StoreError::Invalid(String::new()),
        ];
        for e in all {
            let code = e.code();
            assert!(code.starts_with("store_"));
            assert!(code.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        }
    }
}
