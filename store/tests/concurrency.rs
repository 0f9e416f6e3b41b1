#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code
//! Many writers on one file, as parallel hook processes would be: no row lost, no deadlock,
//! the ledger chains correctly and read-modify-write sessions lose no update.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Barrier};

use airlock_store::{DecisionFilter, DecisionRow, LedgerEntry, Outcome, Store};
use serde_json::json;

const WORKERS: usize = 32;
const DECISIONS: usize = 50;
const LEDGER_ROWS: usize = 5;
const INCREMENTS: usize = 20;

/// Tells a re-invoked copy of this test binary to act as one worker process.
const CHILD_ENV: &str = "STORE_TEST_CHILD_DB";

fn decision(worker: usize, i: usize) -> DecisionRow {
    DecisionRow {
        id: 0,
        ts_ms: i64::try_from(worker * 1000 + i).unwrap(),
        host: "claude".to_owned(),
        session_id: format!("w{worker}"),
        action_kind: "shell".to_owned(),
        tool: "Bash".to_owned(),
        verdict: "PASS".to_owned(),
        effective: "PASS".to_owned(),
        reasons: vec![],
        outcome: Outcome::Passed,
        args_hash: format!("{worker:032x}{i:032x}"),
        mode: "balanced".to_owned(),
    }
}

/// One worker's share of the load, through its own `Store`.
fn work(path: &Path, worker: usize) {
    let store = Store::open(path).unwrap();
    for i in 0..DECISIONS {
        store.record_decision(&decision(worker, i)).unwrap();
        if i % (DECISIONS / LEDGER_ROWS) == 0 {
            store
                .append_ledger(&LedgerEntry {
                    ts_ms: 1,
                    kind: "allow".to_owned(),
                    detail: json!({"worker": worker, "i": i}),
                    actor: "cli".to_owned(),
                    factor: "none".to_owned(),
                    outcome: "applied".to_owned(),
                })
                .unwrap();
        }
        if i < INCREMENTS {
            store
                .update_session("claude", "shared", |old| {
                    let n: u64 = old.map_or(0, |s| {
                        serde_json::from_str::<serde_json::Value>(s).unwrap()["n"]
                            .as_u64()
                            .unwrap()
                    });
                    json!({"n": n + 1}).to_string()
                })
                .unwrap();
        }
    }
}

fn check(path: &Path) {
    let store = Store::open(path).unwrap();
    let all = store.recent_decisions(&DecisionFilter::default()).unwrap();
    assert_eq!(all.len(), WORKERS * DECISIONS);
    for w in 0..WORKERS {
        let mine = all
            .iter()
            .filter(|d| d.session_id == format!("w{w}"))
            .count();
        assert_eq!(mine, DECISIONS, "worker {w}");
    }
    let followed = store.decisions_after(0, 0).unwrap();
    assert_eq!(followed.len(), WORKERS * DECISIONS);
    assert!(followed.windows(2).all(|p| p[0].id < p[1].id));

    let ledger = store.ledger().unwrap();
    assert_eq!(ledger.len(), WORKERS * LEDGER_ROWS);
    let status = store.verify_ledger().unwrap();
    assert!(status.intact, "{status:?}");
    assert_eq!(status.rows, WORKERS * LEDGER_ROWS);

    let session = store.load_session("claude", "shared").unwrap().unwrap();
    let n = serde_json::from_str::<serde_json::Value>(&session).unwrap()["n"]
        .as_u64()
        .unwrap();
    assert_eq!(n, u64::try_from(WORKERS * INCREMENTS).unwrap());
}

#[test]
fn threads_with_their_own_connections_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // Not created beforehand: the workers also race to create and migrate the file.
    let path: PathBuf = dir.path().join("state/airlock.db");
    let barrier = Arc::new(Barrier::new(WORKERS));
    let handles: Vec<_> = (0..WORKERS)
        .map(|w| {
            let path = path.clone();
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                work(&path, w);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    check(&path);
}

/// The child side of `processes_lose_nothing`: does nothing unless started by it.
#[test]
fn child_worker() {
    let (Ok(path), Ok(worker)) = (std::env::var(CHILD_ENV), std::env::var("STORE_TEST_WORKER"))
    else {
        return;
    };
    work(Path::new(&path), worker.parse().unwrap());
}

#[test]
fn processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/airlock.db");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            Command::new(&exe)
                .args(["--exact", "child_worker", "--test-threads=1", "--quiet"])
                .env(CHILD_ENV, &path)
                .env("STORE_TEST_WORKER", w.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for (w, mut child) in children.into_iter().enumerate() {
        let status = child.wait().unwrap();
        assert!(status.success(), "worker process {w} failed: {status}");
    }
    check(&path);
}
