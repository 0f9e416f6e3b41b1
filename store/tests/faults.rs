#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code
//! Opening the store when something is wrong: every fault maps to a clear, typed error.

use std::path::Path;
use std::time::{Duration, Instant};

use airlock_store::{SCHEMA_VERSION, Store, StoreError};
use rusqlite::Connection;

/// True when file permission bits actually stop this process (false as root, which is how
/// these tests usually run in containers).
#[cfg(unix)]
fn permission_bits_are_enforced(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join("perm-probe");
    std::fs::write(&probe, b"x").unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o444)).unwrap();
    let enforced = std::fs::OpenOptions::new()
        .write(true)
        .open(&probe)
        .is_err();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(&probe).unwrap();
    enforced
}

#[test]
fn a_file_that_is_not_a_database_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&path, &garbage).unwrap();

    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert_eq!(err.code(), "store_corrupt");
    // Left untouched.
    assert_eq!(std::fs::read(&path).unwrap(), garbage);
}

#[test]
fn a_text_file_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    std::fs::write(&path, "mode = \"balanced\"\n".repeat(64)).unwrap();
    assert_eq!(Store::open(&path).unwrap_err().code(), "store_corrupt");
}

#[test]
fn an_empty_file_becomes_a_fresh_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    std::fs::write(&path, b"").unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
}

#[test]
fn missing_parent_directories_are_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/c/airlock.db");
    let store = Store::open(&path).unwrap();
    store.set_setting("mode", "balanced").unwrap();
    drop(store);
    assert!(path.is_file());

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for d in ["a", "a/b", "a/b/c"] {
            let mode = std::fs::metadata(dir.path().join(d))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700, "{d}");
        }
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Reopening finds the data.
    let store = Store::open(&path).unwrap();
    assert_eq!(store.setting("mode").unwrap().as_deref(), Some("balanced"));
}

#[test]
fn a_parent_that_cannot_be_created_is_an_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"x").unwrap();
    let path = blocker.join("sub/airlock.db");
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert_eq!(err.code(), "store_open_failed");
    assert!(err.to_string().contains("not-a-dir"));
}

#[test]
fn a_directory_in_place_of_the_file_is_an_open_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    std::fs::create_dir(&path).unwrap();
    assert_eq!(Store::open(&path).unwrap_err().code(), "store_open_failed");
}

#[test]
fn a_newer_schema_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    {
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();

    let err = Store::open(&path).unwrap_err();
    match err {
        StoreError::SchemaTooNew { found, known } => {
            assert_eq!(found, 99);
            assert_eq!(known, SCHEMA_VERSION);
        }
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
    assert_eq!(
        Store::open(&path).unwrap_err().code(),
        "store_schema_too_new"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "file must not be modified"
    );
}

#[test]
fn a_current_version_without_tables_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    {
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
            .unwrap();
    }
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
}

#[test]
fn a_negative_schema_version_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    {
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch("PRAGMA user_version = -3;").unwrap();
    }
    assert_eq!(Store::open(&path).unwrap_err().code(), "store_corrupt");
}

#[test]
fn a_held_write_lock_times_out_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    drop(Store::open(&path).unwrap());

    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let started = Instant::now();
    let err = Store::open_with_timeout(&path, Duration::from_millis(200)).unwrap_err();
    assert!(matches!(err, StoreError::Locked(_)), "{err:?}");
    assert_eq!(err.code(), "store_locked");
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "it must wait first"
    );

    holder.execute_batch("COMMIT").unwrap();
    Store::open_with_timeout(&path, Duration::from_millis(200)).unwrap();
}

#[test]
fn a_write_on_an_open_store_times_out_as_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    let store = Store::open_with_timeout(&path, Duration::from_millis(100)).unwrap();

    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    // Reads still work under WAL while another connection writes.
    assert_eq!(store.setting("mode").unwrap(), None);
    assert_eq!(
        store.set_setting("mode", "strict").unwrap_err().code(),
        "store_locked"
    );
    assert_eq!(
        store
            .update_session("claude", "s", |_| "{}".to_owned())
            .unwrap_err()
            .code(),
        "store_locked"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    store.set_setting("mode", "strict").unwrap();
}

#[test]
fn a_locked_rollback_journal_database_is_locked_at_open() {
    // A file some other tool left in rollback-journal mode, held exclusively: even the first
    // read must wait and then fail as Locked.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    let holder = Connection::open(&path).unwrap();
    holder
        .execute_batch("CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);")
        .unwrap();
    let err = Store::open_with_timeout(&path, Duration::from_millis(150)).unwrap_err();
    assert_eq!(err.code(), "store_locked", "{err:?}");
}

#[cfg(unix)]
#[test]
fn a_read_only_file_is_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    drop(Store::open(&path).unwrap());
    if !permission_bits_are_enforced(dir.path()) {
        eprintln!(
            "note: running with privileges that ignore permission bits (root); the \
             read-only mapping is covered by the unit tests in src/error.rs"
        );
        return;
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let err = Store::open(&path).unwrap_err();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(err.code(), "store_read_only", "{err:?}");
    assert!(err.to_string().contains("airlock.db"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_read_only_directory_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("existing");
    std::fs::create_dir(&existing).unwrap();
    drop(Store::open(&existing.join("airlock.db")).unwrap());
    let fresh = dir.path().join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    if !permission_bits_are_enforced(dir.path()) {
        eprintln!(
            "note: running with privileges that ignore permission bits (root); the \
             read-only mapping is covered by the unit tests in src/error.rs"
        );
        return;
    }
    for d in [&existing, &fresh] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let new_db = Store::open(&fresh.join("airlock.db")).unwrap_err();
    let old_db = Store::open(&existing.join("airlock.db")).unwrap_err();
    for d in [&existing, &fresh] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert_eq!(new_db.code(), "store_read_only", "{new_db:?}");
    assert_eq!(old_db.code(), "store_read_only", "{old_db:?}");
    assert!(format!("{old_db}").contains("airlock.db"), "{old_db}");
}
