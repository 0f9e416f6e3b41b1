#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code
//! The ledger on disk: triggers hold, and edits made behind the store's back are detected.

use airlock_store::{LedgerEntry, Store};
use rusqlite::Connection;
use serde_json::json;

fn fill(path: &std::path::Path, n: i64) {
    let store = Store::open(path).unwrap();
    for i in 1..=n {
        store
            .append_ledger(&LedgerEntry {
                ts_ms: 1_700_000_000_000 + i,
                kind: "mode".to_owned(),
                detail: json!({"from": "balanced", "to": "light", "n": i}),
                actor: "cli".to_owned(),
                factor: "totp".to_owned(),
                outcome: "applied".to_owned(),
            })
            .unwrap();
    }
    assert!(store.verify_ledger().unwrap().intact);
}

#[test]
fn triggers_hold_for_a_raw_connection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    fill(&path, 3);
    let raw = Connection::open(&path).unwrap();
    let upd = raw
        .execute("UPDATE ledger SET outcome = 'refused' WHERE seq = 2", [])
        .unwrap_err();
    assert!(upd.to_string().contains("append-only"), "{upd}");
    let del = raw
        .execute("DELETE FROM ledger WHERE seq = 3", [])
        .unwrap_err();
    assert!(del.to_string().contains("append-only"), "{del}");
    drop(raw);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.ledger().unwrap().len(), 3);
    assert!(store.verify_ledger().unwrap().intact);
}

#[test]
fn an_edited_detail_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    fill(&path, 5);
    {
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch(
            r#"DROP TRIGGER ledger_no_update;
               UPDATE ledger SET detail = '{"from":"balanced","n":3,"to":"paranoid"}' WHERE seq = 3;"#,
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let status = store.verify_ledger().unwrap();
    assert!(!status.intact);
    assert_eq!(status.rows, 5);
    assert_eq!(status.first_bad_seq, Some(3));
    let problem = status.problem.unwrap();
    assert!(problem.contains("hash"), "{problem}");
    assert!(
        !problem.contains("paranoid"),
        "problem text must not echo row contents"
    );
}

#[test]
fn a_deleted_middle_row_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    fill(&path, 5);
    {
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch("DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE seq = 3;")
            .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let status = store.verify_ledger().unwrap();
    assert!(!status.intact);
    assert_eq!(status.rows, 4);
    assert_eq!(status.first_bad_seq, Some(3));
}

#[test]
fn a_deleted_and_renumbered_row_is_detected() {
    // Delete seq 3 and shift 4, 5 down so seq stays contiguous: the prev_hash link breaks.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    fill(&path, 5);
    {
        let raw = Connection::open(&path).unwrap();
        raw.execute_batch(
            "DROP TRIGGER ledger_no_delete; DROP TRIGGER ledger_no_update;
             DELETE FROM ledger WHERE seq = 3;
             UPDATE ledger SET seq = seq - 1 WHERE seq > 3;",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let status = store.verify_ledger().unwrap();
    assert_eq!(status.first_bad_seq, Some(3));
}

#[test]
fn appends_continue_the_chain_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("airlock.db");
    fill(&path, 2);
    fill(&path, 2);
    let store = Store::open(&path).unwrap();
    let rows = store.ledger().unwrap();
    assert_eq!(
        rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    assert_eq!(rows[2].prev_hash, rows[1].hash);
    assert!(store.verify_ledger().unwrap().intact);
}
