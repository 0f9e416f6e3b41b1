//! Schema migrations, versioned by `PRAGMA user_version` (mozilla's `open_database`, atuin).
//!
//! `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`. All pending migrations run in
//! one `BEGIN IMMEDIATE` transaction together with the `user_version` bump, so a crash or a
//! failing statement leaves the file at its old version, and parallel openers serialise on the
//! write lock (the loser re-reads the version inside the transaction and finds nothing to do).
//!
//! **Never edit a migration once it has landed**: append a new one. The test
//! `landed_migrations_are_never_edited` pins each landed migration's SHA-256.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::StoreError;

/// Version 1: decisions (audit log), ledger (+ append-only triggers), sessions, settings,
/// approvals.
const V1: &str = r#"
CREATE TABLE decisions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    ts_ms       INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    session_id  TEXT    NOT NULL,
    action_kind TEXT    NOT NULL,
    tool        TEXT    NOT NULL,
    verdict     TEXT    NOT NULL,
    effective   TEXT    NOT NULL,
    reasons     TEXT    NOT NULL,  -- JSON array of reason codes
    outcome     TEXT    NOT NULL,
    args_hash   TEXT    NOT NULL,  -- hex keyed hash of the arguments, never the arguments
    mode        TEXT    NOT NULL
);
CREATE INDEX decisions_ts ON decisions (ts_ms);
CREATE INDEX decisions_session ON decisions (host, session_id);

CREATE TABLE ledger (
    seq       INTEGER PRIMARY KEY,  -- 1, 2, 3, ... without gaps
    ts_ms     INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    detail    TEXT    NOT NULL,     -- canonical JSON (object keys sorted)
    actor     TEXT    NOT NULL,
    factor    TEXT    NOT NULL,
    outcome   TEXT    NOT NULL,
    prev_hash TEXT    NOT NULL,
    hash      TEXT    NOT NULL
);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'airlock ledger is append-only');
END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'airlock ledger is append-only');
END;

CREATE TABLE sessions (
    host       TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    state      TEXT    NOT NULL,    -- opaque JSON owned by the caller
    revision   INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (host, session_id)
) WITHOUT ROWID;

CREATE TABLE settings (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE approvals (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    created_ms  INTEGER NOT NULL,
    deadline_ms INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    session_id  TEXT    NOT NULL,
    summary     TEXT    NOT NULL,   -- JSON
    high_risk   INTEGER NOT NULL CHECK (high_risk IN (0, 1)),
    status      TEXT    NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'approved', 'denied', 'timeout')),
    decided_ms  INTEGER,
    consumed    INTEGER NOT NULL DEFAULT 0 CHECK (consumed IN (0, 1))
);
CREATE INDEX approvals_status ON approvals (status, deadline_ms);
"#;

/// Every migration ever landed, oldest first. Append only.
pub(crate) const MIGRATIONS: &[&str] = &[V1];

/// The newest schema version this code knows (the number of migrations).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Tables the current schema must contain; checked after migrating as a cheap sanity probe.
pub(crate) const REQUIRED_TABLES: &[&str] =
    &["decisions", "ledger", "sessions", "settings", "approvals"];

/// Reads `PRAGMA user_version`.
pub(crate) fn read_version(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))?)
}

/// Fails unless `found` is a version this code can work with.
pub(crate) fn check_version(found: i64, known: i64) -> Result<(), StoreError> {
    if found > known {
        return Err(StoreError::SchemaTooNew { found, known });
    }
    if found < 0 {
        return Err(StoreError::Corrupt(format!(
            "negative schema version {found}"
        )));
    }
    Ok(())
}

/// Brings the schema up to date; returns the resulting version.
pub(crate) fn migrate(conn: &Connection) -> Result<i64, StoreError> {
    apply(conn, MIGRATIONS)
}

/// Applies the pending members of `migrations` in one immediate transaction.
fn apply(conn: &Connection, migrations: &[&str]) -> Result<i64, StoreError> {
    let known = i64::try_from(migrations.len())
        .map_err(|_| StoreError::Invalid("too many migrations".to_owned()))?;
    let found = read_version(conn)?;
    check_version(found, known)?;
    if found == known {
        return Ok(found);
    }

    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    // Another process may have migrated while we waited for the write lock.
    let found = read_version(&tx)?;
    check_version(found, known)?;
    let skip = usize::try_from(found)
        .map_err(|_| StoreError::Corrupt(format!("schema version {found} out of range")))?;
    for (index, sql) in migrations.iter().enumerate().skip(skip) {
        tx.execute_batch(sql).inspect_err(|e| {
            tracing::error!(migration = index + 1, error = %e, "store migration failed");
        })?;
    }
    tx.pragma_update(None, "user_version", known)?;
    tx.commit()?;
    if found != known {
        tracing::info!(from = found, to = known, "store schema migrated");
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// SHA-256 of every landed migration. A mismatch means someone edited a landed migration:
    /// revert it and append a new migration instead. Only ever append to this list.
    const LANDED: &[&str] = &["aecce822966ed9be8c0a01f393e21e23b6cbcf5258e65e69687841193b711d26"];

    #[test]
    fn landed_migrations_are_never_edited() {
        assert!(
            MIGRATIONS.len() >= LANDED.len(),
            "a landed migration was removed"
        );
        for (i, (sql, pinned)) in MIGRATIONS.iter().zip(LANDED).enumerate() {
            let digest = crate::ledger::to_hex(&Sha256::digest(sql.as_bytes()));
            assert_eq!(
                &digest,
                pinned,
                "migration {} was edited after landing",
                i + 1
            );
        }
    }

    #[test]
    fn fresh_database_reaches_the_known_version() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(migrate(&conn).unwrap(), SCHEMA_VERSION);
        assert_eq!(read_version(&conn).unwrap(), SCHEMA_VERSION);
        // Idempotent.
        assert_eq!(migrate(&conn).unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn a_failing_migration_rolls_back_the_whole_batch() {
        let conn = Connection::open_in_memory().unwrap();
        let list: &[&str] = &[
            "CREATE TABLE a (x);",
            "CREATE TABLE b (x); THIS IS NOT SQL;",
        ];
        assert!(apply(&conn, list).is_err());
        assert_eq!(read_version(&conn).unwrap(), 0);
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type='table'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            tables, 0,
            "the first migration must have been rolled back too"
        );
    }

    #[test]
    fn only_pending_migrations_run() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(apply(&conn, &["CREATE TABLE a (x);"]).unwrap(), 1);
        // Re-running migration 1 would fail (table exists): it must be skipped.
        assert_eq!(
            apply(&conn, &["CREATE TABLE a (x);", "CREATE TABLE b (x);"]).unwrap(),
            2
        );
    }

    #[test]
    fn newer_and_negative_versions_are_refused() {
        assert!(matches!(
            check_version(5, 1),
            Err(StoreError::SchemaTooNew { found: 5, known: 1 })
        ));
        assert!(matches!(check_version(-1, 1), Err(StoreError::Corrupt(_))));
        assert!(check_version(0, 1).is_ok());
        assert!(check_version(1, 1).is_ok());
    }
}
