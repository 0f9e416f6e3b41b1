//! Weakening needs a possession factor and lands in the hash-chained ledger; wiring edits
//! real agent config files and unwiring restores them exactly.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use airlock_e2e::Sandbox;

const PW: &str = "correct horse battery";

fn ledger(sb: &Sandbox) -> Vec<serde_json::Value> {
    let (code, out, err) = sb.run(&["policy-history", "--json"], "");
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn weakening_needs_the_password_and_is_ledgered() {
    let sb = Sandbox::new().unwrap();
    let (code, _, err) = sb.run(&["setup", "--password-stdin"], &format!("{PW}\n"));
    assert_eq!(code, 0, "{err}");
    // Raising applies at once, no factor.
    assert_eq!(sb.run(&["mode", "strict"], "").0, 0);
    assert_eq!(sb.run(&["mode"], "").1.trim(), "strict");
    // Lowering without a factor is refused and ledgered as refused.
    let (code, _, err) = sb.run(&["mode", "light"], "");
    assert_eq!(code, 1);
    assert!(err.contains("refused"), "{err}");
    assert_eq!(sb.run(&["mode"], "").1.trim(), "strict");
    // A wrong password likewise.
    assert_eq!(
        sb.run(&["mode", "light", "--password-stdin"], "not the password\n")
            .0,
        1
    );
    // The right one works.
    let (code, _, err) = sb.run(&["mode", "light", "--password-stdin"], &format!("{PW}\n"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(sb.run(&["mode"], "").1.trim(), "light");
    assert_eq!(sb.run(&["enforcement", "off"], "").0, 1);
    let rows = ledger(&sb);
    let outcomes: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(outcomes.contains(&("mode".into(), "refused".into())));
    assert!(
        outcomes
            .iter()
            .filter(|o| o.0 == "mode" && o.1 == "applied")
            .count()
            >= 2
    );
    assert!(outcomes.contains(&("enforcement".into(), "refused".into())));
    let (code, out, _) = sb.run(&["policy-history", "--verify"], "");
    assert_eq!(code, 0, "{out}");

    // An edit made behind the ledger's back is detected.
    let conn = rusqlite::Connection::open(sb.db_path()).unwrap();
    let triggers: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        conn.execute(
            "UPDATE ledger SET outcome = 'applied' WHERE outcome = 'refused'",
            []
        )
        .is_err(),
        "append-only"
    );
    for t in triggers {
        conn.execute_batch(&format!("DROP TRIGGER \"{t}\""))
            .unwrap();
    }
    conn.execute(
        "UPDATE ledger SET outcome = 'applied' WHERE outcome = 'refused'",
        [],
    )
    .unwrap();
    drop(conn);
    let (code, out, _) = sb.run(&["policy-history", "--verify"], "");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("TAMPERED"), "{out}");
}

#[test]
fn totp_becomes_the_factor() {
    let sb = Sandbox::new().unwrap();
    assert_eq!(
        sb.run(&["password", "set", "--password-stdin"], &format!("{PW}\n"))
            .0,
        0
    );
    let (code, out, err) = sb.run(
        &["totp", "enroll", "--password-stdin", "--no-keyring"],
        &format!("{PW}\n"),
    );
    assert_eq!(code, 0, "{err}");
    let uri = out
        .lines()
        .find(|l| l.starts_with("otpauth://"))
        .unwrap()
        .to_owned();
    let totp = totp_rs::TOTP::from_url(&uri).unwrap();
    // Not in effect until verified: a wrong code is refused.
    assert_eq!(
        sb.run(
            &["totp", "enroll", "--password-stdin", "--verify", "000000"],
            &format!("{PW}\n")
        )
        .0 == 0,
        totp.generate_current().unwrap() == "000000"
    );
    let code_now = totp.generate_current().unwrap();
    let (c, _, err) = sb.run(
        &[
            "totp",
            "enroll",
            "--password-stdin",
            "--no-keyring",
            "--verify",
            &code_now,
        ],
        &format!("{PW}\n"),
    );
    assert_eq!(c, 0, "{err}");
    // The password alone no longer weakens anything.
    let (c, _, err) = sb.run(
        &["enforcement", "monitor", "--password-stdin"],
        &format!("{PW}\n"),
    );
    assert_eq!(c, 1);
    assert!(err.contains("TOTP"), "{err}");
    // Password (the fallback seals the secret under it) plus a valid code does.
    let code_now = totp.generate_current().unwrap();
    let (c, _, err) = sb.run(
        &[
            "enforcement",
            "monitor",
            "--password-stdin",
            "--code",
            &code_now,
        ],
        &format!("{PW}\n"),
    );
    assert_eq!(c, 0, "{err}");
    assert_eq!(sb.run(&["enforcement"], "").1.trim(), "monitor");
    let rows = ledger(&sb);
    assert!(
        rows.iter().any(|r| r["kind"] == "enforcement"
            && r["factor"] == "totp"
            && r["outcome"] == "applied")
    );
}

#[test]
fn wire_and_unwire_claude_code_round_trip() {
    let sb = Sandbox::new().unwrap();
    assert_eq!(
        sb.run(&["password", "set", "--password-stdin"], &format!("{PW}\n"))
            .0,
        0
    );
    let settings = sb.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/other-guard\"}]}]\n  }\n}\n";
    std::fs::write(&settings, original).unwrap();
    let (code, _, err) = sb.run(&["wire", "claude-code"], "");
    assert_eq!(code, 0, "{err}");
    let wired = std::fs::read_to_string(&settings).unwrap();
    assert!(wired.contains("hook claude-code"), "{wired}");
    assert!(wired.contains("other-guard"), "others' hooks are kept");
    assert!(wired.contains("\"opus\""));
    // Idempotent.
    assert_eq!(sb.run(&["wire", "claude-code"], "").0, 0);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), wired);
    // doctor sees it wired.
    let (_, out, _) = sb.run(&["doctor"], "");
    assert!(
        out.contains("agent claude-code") && out.contains("hooks wired"),
        "{out}"
    );
    // Unwiring is a weakening.
    assert_eq!(sb.run(&["unwire", "claude-code"], "").0, 1);
    let (code, _, err) = sb.run(
        &["unwire", "claude-code", "--password-stdin"],
        &format!("{PW}\n"),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        original,
        "restored byte for byte"
    );
}

#[test]
fn serve_and_pins_hand_over_to_the_proxy_binary() {
    let sb = Sandbox::new().unwrap();
    let (code, out, err) = sb.run(&["pins", "list"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no tool definitions pinned"), "{out}");
    // Approving a pin is a weakening: refused without the factor.
    assert_eq!(
        sb.run(&["password", "set", "--password-stdin"], &format!("{PW}\n"))
            .0,
        0
    );
    let (code, _, _) = sb.run(&["pins", "approve", "fs", "write_file"], "");
    assert_ne!(code, 0);
    let (code, _, err) = sb.run(&["serve", "--help"], "");
    assert_eq!(code, 0, "{err}");
}

/// Issue #13's bug: `airlock serve` used to create a fresh store when none existed (forgetting
/// the mode, the ledger and the password). It now refuses to start, and creates nothing.
#[test]
fn serve_refuses_a_missing_store_and_creates_none() {
    let sb = Sandbox::bare().unwrap();
    let (code, _, err) = sb.run(&["serve", "--name", "x", "--", "true"], "");
    assert_ne!(code, 0, "serve started without a store");
    assert!(err.contains("airlock setup"), "{err}");
    assert!(!sb.db_path().exists(), "serve created a store");
}

/// Issue #13/#14 bugs: `airlock check` explains under the configured mode; its output to a
/// reader that goes away does not panic; `doctor` never prints FAIL with exit 0.
#[test]
fn check_uses_the_configured_mode_survives_a_closed_pipe_and_doctor_agrees_with_its_exit() {
    let sb = Sandbox::new().unwrap();
    let cmd = "curl -s https://unlisted-host.example/status";
    let (code, out, err) = sb.run(&["check", "--", cmd], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("PASS"), "balanced: {out}");
    assert_eq!(sb.run(&["mode", "strict"], "").0, 0);
    let (_, out, _) = sb.run(&["check", "--", cmd], "");
    assert!(
        out.starts_with("AUTH"),
        "the configured strict mode was not used: {out}"
    );
    let (_, out, _) = sb.run(&["check", "--mode", "balanced", "--", cmd], "");
    assert!(out.starts_with("PASS"), "an explicit --mode wins: {out}");

    // A reader that goes away early: exit 0, no panic message.
    let corpus = airlock_e2e::root().join("tests/corpus/corpus.jsonl");
    let mut c = sb.cmd(&["eval", "--corpus", corpus.to_str().unwrap()]);
    let mut child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // closed before anything is read
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(o.status.code(), Some(0), "{stderr}");

    let (code, out, _) = sb.run(&["doctor"], "");
    if code == 0 {
        assert!(
            !out.contains("FAIL"),
            "doctor printed FAIL and exited 0:\n{out}"
        );
    } else {
        assert!(
            out.contains("FAIL"),
            "doctor failed without saying why:\n{out}"
        );
    }
    assert!(out.contains("protection level"), "{out}");
}

/// Issue #13's bug: killing `airlock serve` left `airlock-proxy` and its MCP server running.
/// The CLI now becomes the proxy (exec, same pid), and the proxy stops its server on SIGTERM.
#[test]
fn killing_serve_leaves_neither_proxy_nor_server_running() {
    let sb = Sandbox::new().unwrap();
    // A "server" that ignores its input closing, with a marker we can look for.
    let marker = format!("airlock-serve-test-{}", std::process::id());
    let script = format!("exec -a {marker} sleep 300");
    let mut child = sb
        .cmd(&["serve", "--name", "t", "--", "bash", "-c", &script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let running = |m: &str| {
        std::process::Command::new("pgrep")
            .args(["-f", m])
            .status()
            .is_ok_and(|s| s.success())
    };
    let mut up = false;
    for _ in 0..100 {
        if running(&marker) {
            up = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(up, "the server never started");
    let pid = child.id().to_string();
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    assert!(
        comm.starts_with("airlock-proxy"),
        "serve did not become the proxy: {comm}"
    );
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    let _ = child.wait();
    let mut gone = false;
    // (Up to 15 s: under a loaded CI machine node takes a while to exit after its stdin closes.)
    for _ in 0..300 {
        if !running(&marker) {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(gone, "the MCP server outlived `airlock serve`");
}
