//! The approval service over real Unix sockets in temp dirs, with a real store file.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use airlock_broker::{
    ApprovalRequest, ApprovalResult, Broker, BrokerConfig, BrokerError, BrokerEvent, Decision,
    Outcome, PendingRequest, Reason, now_ms, redeem, request_and_redeem_at, request_approval_at,
    request_approval_cancellable,
};
use airlock_store::{ApprovalStatus, NewApproval, Store};

struct Env {
    _dir: tempfile::TempDir,
    db: PathBuf,
    sock: PathBuf,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data").join("airlock.db");
    let sock = dir.path().join("run").join("airlock").join("broker.sock");
    Env {
        _dir: dir,
        db,
        sock,
    }
}

fn config(e: &Env) -> BrokerConfig {
    let mut c = BrokerConfig::new(e.sock.clone());
    c.arm_delay = Duration::ZERO;
    c.sweep_every = Duration::from_millis(200);
    c
}

fn start(e: &Env, c: BrokerConfig) -> (Broker, Receiver<BrokerEvent>) {
    Broker::start(c, Store::open(&e.db).unwrap()).unwrap()
}

fn req(deadline_in_ms: i64) -> ApprovalRequest {
    ApprovalRequest {
        host: "claude-code".into(),
        session_id: "sess-1".into(),
        cwd: "/home/u/project".into(),
        tool: "Bash".into(),
        summary: "git reset --hard HEAD~3".into(),
        reasons: vec![Reason {
            code: "git_destructive".into(),
            message: "Throws away commits and uncommitted work.".into(),
        }],
        high_risk: false,
        deadline_ms: now_ms() + deadline_in_ms,
        consequences: Vec::new(),
        rule_choices: Vec::new(),
    }
}

/// `airlock hook`'s side: ask and redeem against its own store connection.
fn ask(e: &Env, r: ApprovalRequest, wait: Duration) -> JoinHandle<ApprovalResult> {
    let sock = e.sock.clone();
    let db = e.db.clone();
    std::thread::spawn(move || {
        let store = Store::open(&db).unwrap();
        request_and_redeem_at(&sock, &store, &r, wait)
    })
}

fn next_pending(rx: &Receiver<BrokerEvent>) -> PendingRequest {
    loop {
        match rx.recv_timeout(Duration::from_secs(5)).unwrap() {
            BrokerEvent::Pending(p) => return p,
            BrokerEvent::Closed { .. } => {}
        }
    }
}

fn next_closed(rx: &Receiver<BrokerEvent>) -> (i64, Outcome) {
    loop {
        match rx.recv_timeout(Duration::from_secs(5)).unwrap() {
            BrokerEvent::Closed { id, outcome } => return (id, outcome),
            BrokerEvent::Pending(_) => {}
        }
    }
}

fn status(e: &Env, id: i64) -> (ApprovalStatus, bool) {
    let row = Store::open(&e.db).unwrap().approval(id).unwrap().unwrap();
    (row.status, row.consumed)
}

#[test]
fn approve_path_is_approved_once_and_consumed() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    assert_eq!(p.host, "claude-code");
    assert_eq!(p.session_id, "sess-1");
    assert_eq!(p.cwd, "/home/u/project");
    assert_eq!(p.tool, "Bash");
    assert_eq!(p.summary, "git reset --hard HEAD~3");
    assert_eq!(p.reasons[0].code, "git_destructive");
    assert_eq!(broker.pending(), vec![p.clone()]);
    broker.resolve(p.id, Decision::Approved).unwrap();
    let got = client.join().unwrap();
    assert!(got.is_approved(), "{got:?}");
    assert_eq!(got.id(), Some(p.id));
    assert_eq!(status(&e, p.id), (ApprovalStatus::Approved, true));
    assert_eq!(next_closed(&rx), (p.id, Outcome::Approved));
    assert!(broker.pending().is_empty());
}

#[test]
fn deny_path_is_denied() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    broker.resolve(p.id, Decision::Denied).unwrap();
    assert_eq!(client.join().unwrap(), ApprovalResult::Denied { id: p.id });
    assert_eq!(status(&e, p.id), (ApprovalStatus::Denied, false));
    assert_eq!(next_closed(&rx), (p.id, Outcome::Denied));
}

#[test]
fn unanswered_request_ends_timeout_not_denied() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let t0 = Instant::now();
    let client = ask(&e, req(400), Duration::from_secs(10));
    let p = next_pending(&rx);
    assert!(p.deadline_ms - p.created_ms <= 400);
    let got = client.join().unwrap();
    assert_eq!(got, ApprovalResult::Timeout { id: Some(p.id) });
    assert!(t0.elapsed() >= Duration::from_millis(350));
    assert!(t0.elapsed() < Duration::from_secs(3));
    assert_eq!(status(&e, p.id), (ApprovalStatus::Timeout, false));
    assert_eq!(next_closed(&rx), (p.id, Outcome::Timeout));
    // Too late to approve now.
    assert!(matches!(
        broker.resolve(p.id, Decision::Approved),
        Err(BrokerError::NotPending(_))
    ));
}

#[test]
fn hard_deadline_caps_a_far_request_deadline() {
    let e = env();
    let mut c = config(&e);
    c.hard_deadline = Duration::from_millis(300);
    let (_broker, rx) = start(&e, c);
    // The caller asks for an hour; the broker allows 300 ms (in production: 2 minutes).
    let client = ask(&e, req(3_600_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    assert!(p.deadline_ms - p.created_ms <= 300, "{p:?}");
    assert_eq!(
        client.join().unwrap(),
        ApprovalResult::Timeout { id: Some(p.id) }
    );
    assert_eq!(status(&e, p.id).0, ApprovalStatus::Timeout);
}

#[test]
fn production_deadline_is_two_minutes() {
    let e = env();
    let mut c = config(&e);
    c.hard_deadline = Duration::from_secs(3600); // cannot be configured past 2 minutes
    let (broker, rx) = start(&e, c);
    let client = ask(&e, req(3_600_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    assert!(p.deadline_ms - p.created_ms <= 120_000, "{p:?}");
    assert!(p.deadline_ms - p.created_ms >= 119_000, "{p:?}");
    broker.resolve(p.id, Decision::Denied).unwrap();
    client.join().unwrap();
}

#[test]
fn no_broker_is_unavailable_quickly() {
    let e = env();
    let t0 = Instant::now();
    let got = request_approval_at(&e.sock, &req(60_000), Duration::from_secs(30));
    assert!(matches!(got, ApprovalResult::Unavailable { .. }), "{got:?}");
    assert_eq!(got.outcome(), Outcome::Unavailable);
    assert!(t0.elapsed() < Duration::from_millis(500));
    // A stale socket file with nobody behind it is unavailable too.
    let (broker, _rx) = start(&e, config(&e));
    drop(broker);
    assert!(!e.sock.exists(), "shutdown removes the socket");
    std::fs::create_dir_all(e.sock.parent().unwrap()).unwrap();
    let l = std::os::unix::net::UnixListener::bind(&e.sock).unwrap();
    drop(l);
    let got = request_approval_at(&e.sock, &req(60_000), Duration::from_secs(30));
    assert!(matches!(got, ApprovalResult::Unavailable { .. }), "{got:?}");
}

fn raw_exchange(sock: &Path, line: &str) -> serde_json::Value {
    let mut s = UnixStream::connect(sock).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // The broker may hang up before all of an oversized line is written (EPIPE); its
    // answer is still there to read.
    let _ = s
        .write_all(line.as_bytes())
        .and_then(|()| s.write_all(b"\n"));
    let mut answer = String::new();
    BufReader::new(s).read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap()
}

#[test]
fn forged_resolve_messages_are_refused_and_approve_nothing() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let client = ask(&e, req(1_500), Duration::from_secs(10));
    let p = next_pending(&rx);
    for forged in [
        format!(r#"{{"type":"resolve","id":{},"outcome":"approved"}}"#, p.id),
        format!(r#"{{"type":"response","id":{},"outcome":"approved"}}"#, p.id),
        format!(r#"{{"type":"approve","id":{}}}"#, p.id),
        r#"{"type":"request","nonce":"0123456789abcdef0123","request":{"host":"x"},"approve":true}"#
            .to_owned(),
        "not json at all".to_owned(),
    ] {
        let v = raw_exchange(&e.sock, &forged);
        assert_eq!(v["type"], "error", "{forged} -> {v}");
        assert_eq!(v["code"], "bad_request");
    }
    // A request followed by a forged answer on the same connection: the extra line is ignored.
    let mut s = UnixStream::connect(&e.sock).unwrap();
    let own =
        serde_json::json!({"type":"request","nonce":"0123456789abcdef0123","request":req(800)});
    writeln!(s, "{own}").unwrap();
    let own_p = next_pending(&rx);
    writeln!(
        s,
        r#"{{"type":"resolve","id":{},"outcome":"approved"}}"#,
        own_p.id
    )
    .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut answer = String::new();
    BufReader::new(&s).read_line(&mut answer).unwrap();
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(v["outcome"], "timeout", "{v}");
    // The real request was never approved: it times out.
    assert_eq!(
        client.join().unwrap(),
        ApprovalResult::Timeout { id: Some(p.id) }
    );
    assert_eq!(status(&e, p.id).0, ApprovalStatus::Timeout);
    assert_eq!(status(&e, own_p.id).0, ApprovalStatus::Timeout);
    drop(broker);
}

#[test]
fn an_approval_is_single_use() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let r = req(60_000);
    let sock = e.sock.clone();
    let r2 = r.clone();
    // Use the raw client so the test can try redeeming twice itself.
    let client =
        std::thread::spawn(move || request_approval_at(&sock, &r2, Duration::from_secs(10)));
    let p = next_pending(&rx);
    broker.resolve(p.id, Decision::Approved).unwrap();
    let ApprovalResult::Approved { id, nonce, .. } = client.join().unwrap() else {
        panic!("not approved")
    };
    let store = Store::open(&e.db).unwrap();
    // Wrong nonce, other session: does not redeem (a fake listener cannot forge a ticket).
    assert!(!redeem(&store, id, "ffffffffffffffffffffffffffffffff", &r).unwrap());
    let mut other = r.clone();
    other.session_id = "sess-2".into();
    assert!(!redeem(&store, id, &nonce, &other).unwrap());
    assert!(redeem(&store, id, &nonce, &r).unwrap());
    assert!(!redeem(&store, id, &nonce, &r).unwrap(), "second use");
    assert!(!store.consume_approval(id).unwrap());
    assert!(matches!(
        broker.resolve(id, Decision::Approved),
        Err(BrokerError::NotPending(_))
    ));
    // The same action again needs a fresh approval.
    let again = ask(&e, r, Duration::from_secs(10));
    let p2 = next_pending(&rx);
    assert_ne!(p2.id, id);
    broker.resolve(p2.id, Decision::Denied).unwrap();
    assert_eq!(again.join().unwrap(), ApprovalResult::Denied { id: p2.id });
}

#[test]
fn parallel_requests_queue_and_each_gets_its_own_answer() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let mut clients = Vec::new();
    for i in 0..6 {
        let mut r = req(60_000);
        r.session_id = format!("sess-{i}");
        clients.push((i, ask(&e, r, Duration::from_secs(20))));
    }
    let mut by_session = std::collections::HashMap::new();
    for _ in 0..6 {
        let p = next_pending(&rx);
        by_session.insert(p.session_id.clone(), p.id);
    }
    let pending = broker.pending();
    assert_eq!(pending.len(), 6);
    assert!(
        pending.windows(2).all(|w| w[0].id < w[1].id),
        "oldest first"
    );
    // Answer out of order: even sessions approved, odd denied.
    for i in [5, 2, 3, 0, 1, 4] {
        let id = by_session[&format!("sess-{i}")];
        let d = if i % 2 == 0 {
            Decision::Approved
        } else {
            Decision::Denied
        };
        broker.resolve(id, d).unwrap();
    }
    for (i, c) in clients {
        let got = c.join().unwrap();
        let id = by_session[&format!("sess-{i}")];
        if i % 2 == 0 {
            assert!(got.is_approved() && got.id() == Some(id), "{i}: {got:?}");
            assert_eq!(status(&e, id), (ApprovalStatus::Approved, true));
        } else {
            assert_eq!(got, ApprovalResult::Denied { id });
        }
    }
    assert!(broker.pending().is_empty());
}

#[test]
fn requester_giving_up_ends_the_request_as_timeout() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let t0 = Instant::now();
    let client = ask(&e, req(60_000), Duration::from_millis(300));
    let p = next_pending(&rx);
    assert_eq!(client.join().unwrap(), ApprovalResult::Timeout { id: None });
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert_eq!(next_closed(&rx), (p.id, Outcome::Timeout));
    assert_eq!(status(&e, p.id).0, ApprovalStatus::Timeout);
    assert!(broker.pending().is_empty());
}

#[test]
fn a_cancelled_wait_hangs_up_and_closes_the_request() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (sock, f2) = (e.sock.clone(), std::sync::Arc::clone(&flag));
    let client = std::thread::spawn(move || {
        request_approval_cancellable(&sock, &req(60_000), Duration::from_secs(60), &f2)
    });
    let p = next_pending(&rx);
    let t0 = Instant::now();
    flag.store(true, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(client.join().unwrap(), ApprovalResult::Timeout { id: None });
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    // The broker saw the hang-up: the popup closes, nothing stays approvable.
    assert_eq!(next_closed(&rx), (p.id, Outcome::Timeout));
    assert!(broker.pending().is_empty());
}

#[test]
fn approve_is_refused_until_armed_but_deny_is_not() {
    let e = env();
    let mut c = config(&e);
    c.arm_delay = Duration::from_millis(600);
    let (broker, rx) = start(&e, c);
    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    assert!(p.armed_ms >= p.created_ms + 600);
    assert!(matches!(
        broker.resolve(p.id, Decision::Approved),
        Err(BrokerError::NotArmed { .. })
    ));
    std::thread::sleep(Duration::from_millis(700));
    broker.resolve(p.id, Decision::Approved).unwrap();
    assert!(client.join().unwrap().is_approved());

    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    broker.resolve(p.id, Decision::Denied).unwrap();
    assert_eq!(client.join().unwrap(), ApprovalResult::Denied { id: p.id });
}

#[test]
fn socket_is_private_and_single_instance() {
    let e = env();
    let (broker, _rx) = start(&e, config(&e));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(e.sock.parent().unwrap()), 0o700);
    assert_eq!(mode(&e.sock), 0o600);
    assert_eq!(broker.socket_path(), e.sock);
    let second = Broker::start(config(&e), Store::open(&e.db).unwrap());
    assert!(matches!(second, Err(BrokerError::AlreadyRunning(_))));
    drop(broker);
    // A regular file where the socket should be is refused, not deleted.
    std::fs::write(&e.sock, b"x").unwrap();
    let third = Broker::start(config(&e), Store::open(&e.db).unwrap());
    assert!(matches!(third, Err(BrokerError::Insecure(_))));
    assert!(e.sock.exists());
}

#[test]
fn shutdown_denies_pending_requests() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    broker.shutdown();
    assert_eq!(client.join().unwrap(), ApprovalResult::Denied { id: p.id });
    assert_eq!(status(&e, p.id).0, ApprovalStatus::Denied);
    let got = request_approval_at(&e.sock, &req(60_000), Duration::from_secs(5));
    assert!(matches!(got, ApprovalResult::Unavailable { .. }));
}

#[test]
fn quitting_withdraws_pending_requests_and_none_can_be_redeemed() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    broker.quit();
    // Told apart from a human's "no" …
    assert_eq!(
        client.join().unwrap(),
        ApprovalResult::Withdrawn { id: p.id }
    );
    // … but the row is closed, so nothing can redeem it later.
    assert_eq!(status(&e, p.id).0, ApprovalStatus::Denied);
    // Idempotent, and the socket is gone.
    broker.shutdown();
    let got = request_approval_at(&e.sock, &req(60_000), Duration::from_secs(5));
    assert!(matches!(got, ApprovalResult::Unavailable { .. }));
}

#[test]
fn orphaned_pending_rows_are_swept_to_timeout() {
    let e = env();
    let store = Store::open(&e.db).unwrap();
    let now = now_ms();
    let orphan = store
        .create_approval(&NewApproval {
            created_ms: now,
            deadline_ms: now + 600_000,
            host: "h".into(),
            session_id: "s".into(),
            summary: serde_json::json!({}),
            high_risk: false,
        })
        .unwrap();
    let (broker, rx) = start(&e, config(&e));
    assert_eq!(status(&e, orphan).0, ApprovalStatus::Timeout);
    // Rows written behind the broker's back are swept too; live requests are not.
    let client = ask(&e, req(60_000), Duration::from_secs(10));
    let p = next_pending(&rx);
    let later = store
        .create_approval(&NewApproval {
            created_ms: now,
            deadline_ms: now + 600_000,
            host: "h".into(),
            session_id: "s".into(),
            summary: serde_json::json!({}),
            high_risk: false,
        })
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(status(&e, later).0, ApprovalStatus::Timeout);
    assert_eq!(status(&e, p.id).0, ApprovalStatus::Pending);
    assert!(!store.consume_approval(later).unwrap());
    broker.resolve(p.id, Decision::Denied).unwrap();
    client.join().unwrap();
}

#[test]
fn oversized_fields_are_clipped_and_a_long_line_is_refused() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let mut r = req(60_000);
    r.summary = "x".repeat(10_000);
    let client = ask(&e, r, Duration::from_secs(10));
    let p = next_pending(&rx);
    assert!(p.summary.chars().count() <= 4097);
    broker.resolve(p.id, Decision::Denied).unwrap();
    client.join().unwrap();
    let v = raw_exchange(&e.sock, &"y".repeat(70_000));
    assert_eq!(v["code"], "too_long");
}

#[test]
fn consequences_reach_the_ui_clipped_and_a_huge_diff_is_dropped_not_refused() {
    let e = env();
    let (broker, rx) = start(&e, config(&e));
    let mut r = req(60_000);
    r.consequences = (0..40)
        .map(|i| airlock_broker::Consequence {
            kind: "deletes".into(),
            text: format!("Deletes {i} paths {}", "z".repeat(600)),
            detail: (i == 0).then(|| "+ line\n".repeat(100)),
        })
        .collect();
    let client = ask(&e, r, Duration::from_secs(10));
    let p = next_pending(&rx);
    assert_eq!(p.consequences.len(), 32);
    assert!(p.consequences[0].text.starts_with("Deletes 0 paths zzz"));
    assert!(p.consequences.iter().all(|c| c.text.chars().count() <= 513));
    assert!(p.consequences[0].detail.is_some());
    broker.resolve(p.id, Decision::Denied).unwrap();
    client.join().unwrap();
    // A diff too large for the line: the client drops it and still asks.
    let mut r = req(60_000);
    r.consequences = vec![airlock_broker::Consequence {
        kind: "writes".into(),
        text: "Edits 1 file: a".into(),
        detail: Some("\u{1}".repeat(20_000)),
    }];
    let client = ask(&e, r, Duration::from_secs(10));
    let p = next_pending(&rx);
    assert_eq!(p.consequences.len(), 1);
    assert_eq!(p.consequences[0].text, "Edits 1 file: a");
    assert_eq!(p.consequences[0].detail, None);
    broker.resolve(p.id, Decision::Denied).unwrap();
    client.join().unwrap();
}

/// Another user cannot ask, even with the directory and socket opened up.
#[test]
fn another_user_is_refused() {
    // In CI (root, setpriv and the system python are installed) this must run for real; a
    // skip elsewhere says so loudly.
    let skip = |why: &str| {
        assert!(
            std::env::var_os("CI").is_none(),
            "another_user_is_refused must run in CI, but {why}"
        );
        eprintln!("SKIPPED another_user_is_refused: {why}");
    };
    if nix::unistd::getuid().as_raw() != 0 {
        skip("it needs root to act as another user");
        return;
    }
    // The system interpreter (a per-user one, e.g. under ~/.pyenv, is not reachable as nobody).
    let python = "/usr/bin/python3";
    if !Path::new(python).exists() {
        skip("there is no /usr/bin/python3 to act as another user");
        return;
    }
    if std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_err()
    {
        skip("there is no setpriv");
        return;
    }
    let e = env();
    let (broker, _rx) = start(&e, config(&e));
    // Open every directory on the way for the test only.
    let mut d = e.sock.parent();
    while let Some(dir) = d {
        if dir == std::env::temp_dir() || dir == Path::new("/") {
            break;
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        d = dir.parent();
    }
    std::fs::set_permissions(&e.sock, std::fs::Permissions::from_mode(0o777)).unwrap();
    let script = format!(
        "import socket\ns=socket.socket(socket.AF_UNIX)\ns.connect({:?})\ntry:\n  s.sendall(b'{}\\n')\nexcept OSError:\n  pass\nprint(s.makefile().readline())",
        e.sock.to_str().unwrap(),
        serde_json::json!({"type":"request","nonce":"0123456789abcdef0123","request":req(60_000)})
    );
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            python,
            "-c",
            &script,
        ])
        .output();
    let out = out.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The other user really connected (its script ran) and was refused by the broker.
    assert!(
        stdout.contains("peer_refused"),
        "{stdout} / {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(broker.pending().is_empty());
}

#[test]
fn shutdown_does_not_hang_when_the_socket_file_is_gone() {
    let e = env();
    let (broker, _rx) = start(&e, config(&e));
    std::fs::remove_file(&e.sock).unwrap();
    let t0 = Instant::now();
    drop(broker);
    assert!(t0.elapsed() < Duration::from_secs(2));
}
