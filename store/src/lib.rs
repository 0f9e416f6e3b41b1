//! Airlock's local state in one SQLite file, shared by many short-lived hook processes, the
//! CLI and the tray app.
//!
//! # Tables
//!
//! | table | holds | written by |
//! |---|---|---|
//! | `decisions` | the audit log: one row per judged tool call | [`Store::record_decision`] |
//! | `ledger` | policy changes (mode, enforcement, allow-lists, password, TOTP, ...), append-only and hash-chained | [`Store::append_ledger`] |
//! | `sessions` | per `(host, session_id)` memory as opaque JSON owned by the caller | [`Store::update_session`] |
//! | `settings` | key/value text: mode, enforcement, password hash, TOTP state, fingerprint key | [`Store::set_setting`] |
//! | `approvals` | pending / decided human approvals for AUTH verdicts, single use | [`Store::create_approval`] and friends |
//!
//! **No payloads, no secrets in the log.** A [`DecisionRow`] carries only names, reason codes
//! and a keyed hash of the arguments (`args_hash`) — never the command line, file contents,
//! URL, prompt or any secret. [`LedgerEntry::detail`] records *what* changed (e.g.
//! `{"from":"balanced","to":"light"}`), never a password or TOTP secret. Error messages and
//! logs carry paths, ids and SQLite's own messages, never row contents. (The `settings`
//! table does hold credentials such as the password *hash* and the TOTP state; that is why
//! the file is created `0600` in a `0700` directory on Unix.)
//!
//! The store has no clock and reads no environment variable: every timestamp is passed in.
//!
//! # The ledger chain
//!
//! `hash = hex(SHA-256(prev_hash || [seq, ts_ms, kind, detail, actor, factor, outcome]))`,
//! the array serialised as compact JSON with `detail`'s object keys sorted recursively;
//! `prev_hash` of row 1 is 64 zeros. Triggers abort `UPDATE`/`DELETE` on the table, and
//! [`Store::verify_ledger`] recomputes every link, so an edit or deletion made behind the
//! store's back (trigger dropped, file edited) is reported with the first bad `seq`. See
//! [`ledger`] for the exact format and its limits.
//!
//! # Concurrency model
//!
//! Every process opens its own [`Store`] (one `rusqlite::Connection`; a `Store` is `Send`
//! but not `Sync`). The database runs in WAL mode, so readers never block the single writer
//! and vice versa, with `synchronous=NORMAL` (durable at checkpoints; a power cut can lose
//! the last transactions but never corrupts). Writers queue on SQLite's write lock with a
//! busy timeout (10 s by default): single-statement writes take the lock as they start;
//! read-modify-write operations (ledger append, session update, migrations) run in
//! `BEGIN IMMEDIATE`, taking the write lock *before* reading, so two processes can never
//! both read the same old state and no deferred-to-write upgrade can deadlock. A writer that
//! cannot get the lock within the timeout gets [`StoreError::Locked`].
//!
//! # Opening
//!
//! [`Store::open`] creates missing parent directories (`0700` on Unix) and the file (`0600`),
//! reads `PRAGMA user_version` (a non-database file fails here as [`StoreError::Corrupt`]; a
//! newer schema as [`StoreError::SchemaTooNew`], before anything is written), refuses a file
//! SQLite could only open read-only ([`StoreError::ReadOnly`]), switches to WAL, applies
//! pending [`migrations`] in one transaction, checks the expected tables exist and finally
//! probes the write lock (`BEGIN IMMEDIATE; ROLLBACK`), so a read-only file or directory and
//! a database held locked ([`StoreError::Locked`]) fail at open rather than at the first
//! write. A path that cannot be created or opened is [`StoreError::Open`].

mod approvals;
mod decisions;
mod error;
pub mod ledger;
pub mod migrations;
mod platform;
mod sessions;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};

pub use approvals::{ApprovalRow, ApprovalStatus, NewApproval};
pub use decisions::{DecisionFilter, DecisionRow, Outcome, ParseEnumError};
pub use error::StoreError;
pub use ledger::{GENESIS_HASH, LedgerEntry, LedgerRow, LedgerStatus};
pub use migrations::SCHEMA_VERSION;

use error::{io_error, open_error};

/// How long a writer waits for another writer before giving up with [`StoreError::Locked`].
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_millis(10_000);

/// File name of the database inside [`default_data_dir`].
pub const DB_FILE_NAME: &str = "airlock.db";

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("dev", "airlock", "airlock")
}

/// The platform data directory for Airlock (e.g. `~/.local/share/airlock` on Linux).
pub fn default_data_dir() -> Option<PathBuf> {
    project_dirs().map(|d| d.data_dir().to_path_buf())
}

/// The default database path: the platform data directory + `airlock.db`. Reads no
/// `AIRLOCK_*` variable; `None` when no home directory can be found.
pub fn default_db_path() -> Option<PathBuf> {
    default_data_dir().map(|d| d.join(DB_FILE_NAME))
}

/// The platform configuration directory for Airlock (e.g. `~/.config/airlock` on Linux).
pub fn default_config_dir() -> Option<PathBuf> {
    project_dirs().map(|d| d.config_dir().to_path_buf())
}

/// A connection to the Airlock database. See the crate docs for the concurrency model.
pub struct Store {
    conn: Connection,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.conn.path().unwrap_or(":memory:"))
            .finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` with the default busy timeout.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with_timeout(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// Like [`Store::open`], waiting at most `busy_timeout` for another writer (at open and
    /// on every later write through this `Store`).
    pub fn open_with_timeout(path: &Path, busy_timeout: Duration) -> Result<Store, StoreError> {
        prepare_path(path)?;
        // No SQLITE_OPEN_URI: a path is a path, never a `file:` URI with options.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| open_error(path, e))?;
        let store = Store { conn };
        store
            .init(busy_timeout, true)
            .map_err(|e| with_path(path, e))
            .inspect_err(|e| {
                tracing::warn!(path = %path.display(), code = e.code(), error = %e, "store open failed");
            })?;
        tracing::debug!(path = %path.display(), "store opened");
        Ok(store)
    }

    /// A private in-memory database with the full schema (for tests).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let store = Store {
            conn: Connection::open_in_memory()?,
        };
        store.init(DEFAULT_BUSY_TIMEOUT, false)?;
        Ok(store)
    }

    /// Folds the write-ahead log back into the database and truncates it
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`). The resident guard service calls this as it writes,
    /// so the WAL (and every reader's cost) stays bounded however long it runs. Returns whether
    /// the checkpoint completed (a reader holding an old snapshot can make it partial).
    pub fn checkpoint(&self) -> Result<bool, StoreError> {
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
        Ok(busy == 0)
    }

    /// SQLite's `PRAGMA data_version`: changes whenever *another* connection commits to the
    /// file. The guard service compares it between calls to notice writes it did not make.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    /// The schema version of the open database (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        migrations::read_version(&self.conn)
    }

    /// A full `PRAGMA quick_check` (reads the whole file: for `doctor`-style commands, not the
    /// hook path). `Corrupt` with SQLite's first complaint if the file is damaged.
    pub fn quick_check(&self) -> Result<(), StoreError> {
        let first: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
        if first == "ok" {
            Ok(())
        } else {
            Err(StoreError::Corrupt(format!("quick_check: {first}")))
        }
    }

    fn init(&self, busy_timeout: Duration, on_disk: bool) -> Result<(), StoreError> {
        let conn = &self.conn;
        conn.busy_timeout(busy_timeout)?;

        // First read of the file: a non-database fails here (NOTADB → Corrupt), and a newer
        // schema is refused before anything (even the journal mode) is written.
        let found = migrations::read_version(conn)?;
        migrations::check_version(found, SCHEMA_VERSION)?;

        // SQLite silently opens an unwritable file read-only (and in WAL mode even
        // `BEGIN IMMEDIATE` then succeeds), so ask it directly.
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::ReadOnly(
                "the database file is not writable".to_owned(),
            ));
        }

        if on_disk {
            let mode = enable_wal(conn, busy_timeout)?;
            if !mode.eq_ignore_ascii_case("wal") {
                tracing::warn!(journal_mode = %mode, "store could not switch to WAL");
            }
            // Hook processes live for milliseconds: do not checkpoint (and fsync) on every
            // close. SQLite's auto-checkpoint still folds the WAL in as it grows.
            conn.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )?;
        }
        conn.pragma_update(None, "foreign_keys", true)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;

        migrations::migrate(conn)?;
        self.check_tables()?;

        // Write probe, so that a held lock fails now rather than at the first real write.
        Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?.rollback()?;
        Ok(())
    }

    fn check_tables(&self) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
        let names = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        for required in migrations::REQUIRED_TABLES {
            if !names.iter().any(|n| n == required) {
                return Err(StoreError::Corrupt(format!(
                    "schema version {SCHEMA_VERSION} but table `{required}` is missing"
                )));
            }
        }
        Ok(())
    }
}

/// Names the file in errors met while opening it.
fn with_path(path: &Path, err: StoreError) -> StoreError {
    let at = |msg: String| format!("{}: {msg}", path.display());
    match err {
        StoreError::Sqlite(inner) => open_error(path, inner),
        StoreError::ReadOnly(msg) => StoreError::ReadOnly(at(msg)),
        StoreError::Locked(msg) => StoreError::Locked(at(msg)),
        StoreError::Corrupt(msg) => StoreError::Corrupt(at(msg)),
        other => other,
    }
}

/// Switches to WAL, retrying while another opener holds the lock (the journal-mode change
/// on a brand-new file needs an exclusive lock and does not always wait on the busy handler).
fn enable_wal(conn: &Connection, busy_timeout: Duration) -> Result<String, StoreError> {
    let deadline = Instant::now() + busy_timeout;
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                ) && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return Ok(other?),
        }
    }
}

/// Creates the parent directories (0700 on Unix) and, on Unix, the empty database file with
/// mode 0600 so the credentials in `settings` are not world-readable. SQLite gives its `-wal`
/// and `-shm` files the database file's mode.
fn prepare_path(path: &Path) -> Result<(), StoreError> {
    let missing_parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty() && !p.is_dir());
    if let Some(parent) = missing_parent {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        platform::private_dirs(&mut builder);
        builder.create(parent).map_err(|e| io_error(path, e))?;
        tracing::debug!(dir = %parent.display(), "store directory created");
    }
    platform::create_private_file(path).map_err(|e| io_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_store_has_the_full_schema() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        store.quick_check().unwrap();
        assert!(format!("{store:?}").contains("Store"));
    }

    #[test]
    fn thread_bounds() {
        fn send_sync<T: Send + Sync + 'static>() {}
        fn send<T: Send>() {}
        send_sync::<StoreError>();
        send::<Store>();
    }

    #[test]
    fn default_paths_end_where_expected() {
        // May be None in a sandbox without a home directory; when present the names are fixed.
        if let Some(p) = default_db_path() {
            assert!(p.ends_with(DB_FILE_NAME));
            assert!(p.to_string_lossy().to_lowercase().contains("airlock"));
        }
        if let Some(p) = default_config_dir() {
            assert!(p.to_string_lossy().to_lowercase().contains("airlock"));
        }
    }
}
