//! AUTH through the desktop approval service: the real hook binary asks the broker over its
//! Unix socket; the test plays the app's UI by answering through the in-process
//! `Broker::resolve` (the only way to answer). Approve → the call passes, Deny → denied,
//! no answer → `timeout`, logged distinctly from `denied`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use airlock_broker::{Broker, BrokerConfig, BrokerEvent, Decision};
use airlock_e2e::{Sandbox, claude_bash};
use airlock_store::Store;

fn spawn_hook(sb: &Sandbox, payload: &str) -> std::process::Child {
    let mut c: Command = sb.cmd(&["hook", "claude-code"]);
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    child
}

fn outcomes(sb: &Sandbox) -> Vec<String> {
    let (_, out, _) = sb.run(&["log", "--json", "--limit", "100"], "");
    let v: Vec<String> = out
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["outcome"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    v
}

#[test]
fn approve_deny_and_timeout_through_the_broker() {
    let sb = Sandbox::new().unwrap();
    let mut cfg = BrokerConfig::new(sb.broker_socket());
    cfg.arm_delay = Duration::ZERO;
    cfg.hard_deadline = Duration::from_secs(3);
    let (broker, events) = Broker::start(cfg, Store::open(&sb.db_path()).unwrap()).unwrap();
    let auth = claude_bash("a1", "git reset --hard HEAD~3");

    for (answer, want_out, want_code) in [
        (Some(Decision::Approved), "{}", 0),
        (Some(Decision::Denied), "deny", 2),
        (None, "deny", 2),
    ] {
        let child = spawn_hook(&sb, &auth);
        let pending = loop {
            match events.recv_timeout(Duration::from_secs(20)).unwrap() {
                BrokerEvent::Pending(p) => break p,
                BrokerEvent::Closed { .. } => continue,
            }
        };
        assert_eq!(pending.tool, "Bash");
        assert!(
            pending.summary.contains("git reset"),
            "the human sees what runs: {}",
            pending.summary
        );
        assert!(pending.reasons.iter().any(|r| r.code == "git_discard_work"));
        if let Some(d) = answer {
            broker.resolve(pending.id, d).unwrap();
        }
        let o = child.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(want_code), "{out}");
        assert!(out.contains(want_out), "{out}");
    }
    assert_eq!(outcomes(&sb), vec!["approved", "denied", "timeout"]);

    // A secret in the command never reaches the popup.
    let child = spawn_hook(
        &sb,
        &claude_bash(
            "a2",
            "git reset --hard HEAD~1 && echo ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        ),
    );
    let pending = loop {
        if let BrokerEvent::Pending(p) = events.recv_timeout(Duration::from_secs(20)).unwrap() {
            break p;
        }
    };
    assert!(
        !pending.summary.contains("ghp_aBcDe"),
        "{}",
        pending.summary
    );
    assert!(pending.summary.contains("[REDACTED"), "{}", pending.summary);
    broker.resolve(pending.id, Decision::Denied).unwrap();
    let _ = child.wait_with_output().unwrap();
    broker.shutdown();
}
