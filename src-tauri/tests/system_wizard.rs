//! First run of the app at the system level (issue #10), in a real window: the system level is
//! installed and the guard service runs as its own `airlock` user, but this user has no
//! password in it yet. The app opens the setup wizard (not the unlock prompt, which would have
//! nothing to unlock with); every step goes through the service:
//! - the password is set in the service and unlocks approvals (the app registers as this
//!   user's approval agent with it);
//! - TOTP is enrolled in the service (QR scanned off the screen; a wrong code enrols nothing);
//! - the mode is raised in the service;
//! - Claude Code, wired for every user by the system install, is shown as such and not wired
//!   a second time in the user's own settings; Kiro (no system-level hook file) is wired in
//!   the user's file;
//! - the self-test's AUTH opens the real popup through the service and is approved there.
//!
//! The service's store for this user (uid 0 here) is moved aside for the test and put back
//! after, so the wizard really sees a first run. Needs root, a display and `xdotool`; skips
//! loudly without root. CI runs it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

mod support;

use std::path::PathBuf;
use std::time::Duration;

use support::*;

/// Moves this user's system store aside and puts it back when dropped (after the service
/// has stopped: declare it before [`Installed`]).
struct StoreAside {
    dir: PathBuf,
    aside: PathBuf,
}

impl StoreAside {
    fn new(uid: u32) -> StoreAside {
        let dir = PathBuf::from(format!("/var/lib/airlock/users/{uid}"));
        let aside = PathBuf::from(format!("/var/lib/airlock/users/{uid}.system-wizard-test"));
        let _ = std::fs::remove_dir_all(&aside);
        if dir.exists() {
            std::fs::rename(&dir, &aside).unwrap();
        }
        StoreAside { dir, aside }
    }
}

impl Drop for StoreAside {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        if self.aside.exists() {
            let _ = std::fs::rename(&self.aside, &self.dir);
        }
    }
}

fn status(home: &std::path::Path) -> serde_json::Value {
    let (code, out, err) = run_airlock_in(home, &["status", "--json"], "");
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn first_run_at_the_system_level_sets_up_through_the_service() {
    if !is_root() {
        eprintln!(
            "SKIPPED: the wizard at the system level needs root (it installs the system level); CI runs it as root"
        );
        return;
    }
    let o = std::process::Command::new(airlock_bin())
        .args(["system", "install", "--no-start", "--bin-dir", BIN_DIR])
        .output()
        .unwrap();
    let _aside = StoreAside::new(0);
    let mut guard = Installed { service: None };
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    guard.service = Some(start_service());

    let home = tempfile::tempdir().unwrap();
    // Claude Code (wired for every user by the system install) and Kiro (no system-level
    // hook file) are "installed" for this user.
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::create_dir_all(home.path().join(".kiro")).unwrap();
    let (s, win) = start_wizard(home, BIN_DIR);
    assert!(
        windows("^Airlock: unlock approvals").is_empty(),
        "the unlock prompt opened with no password to unlock with"
    );
    assert_eq!(status(s.home.path())["password_set"], false);

    // 1. Password, set in the service; a mismatched repeat sets nothing. The password also
    //    unlocks approvals.
    wizard_password_step(&s, &win, "wizard-system", || {
        status(s.home.path())["password_set"] == true
    });
    assert!(
        s.wait_log(
            "approval agent registered with the system service",
            1,
            Duration::from_secs(10)
        ),
        "the password step did not unlock approvals; log:\n{}",
        s.log_text()
    );

    // 2. TOTP, enrolled in the service.
    wizard_totp_step(&s, &win, "wizard-system", || {
        status(s.home.path())["factor"]["totp"] == true
    });

    // 3. Mode: Down from "balanced" selects "strict", raised in the service.
    std::thread::sleep(Duration::from_millis(400));
    keys(&win, &["Return"]); // "Next"
    std::thread::sleep(Duration::from_millis(500));
    keys(&win, &["Down"]);
    keys(&win, &["Return"]);
    wait_step(&s, "done", "mode", 1);
    assert_eq!(status(s.home.path())["mode"], "strict");

    // 4. Agents: Claude Code is wired for every user (managed settings) and not offered;
    //    Kiro is wired in the user's own file.
    wait_step(&s, "done", "agents", 1);
    std::thread::sleep(Duration::from_millis(400));
    shot(&s, "wizard-system-agents.png");
    keys(&win, &["Return"]); // "Wire selected"
    wait_step(&s, "done", "wire", 1);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(step_count(&s, "done", "wire"), 1, "{}", s.log_text());
    assert!(
        !s.home.path().join(".claude/settings.json").exists(),
        "Claude Code was wired a second time in the user's settings"
    );
    let kiro =
        std::fs::read_to_string(s.home.path().join(".kiro/agents/kiro_default.json")).unwrap();
    assert!(kiro.contains(BIN_DIR), "{kiro}");
    keys(&win, &["Return"]); // "Next"

    // 5. Self-test through the real hook and the service: the AUTH is approved in the popup
    //    the service's request opens (approvals were unlocked by the password step).
    wizard_self_test_step(&s, &win);
    shot(&s, "wizard-system-selftest.png");
    let log = s.log_text();
    assert_eq!(log.matches("ok=true").count(), 3, "{log}");
    assert!(
        log.contains("verdict=AUTH outcome=approved"),
        "the AUTH was not approved in the popup: {log}"
    );

    // The service's ledger for this user holds every change, chain intact.
    let (code, out, err) = run_airlock_in(s.home.path(), &["policy-history", "--json"], "");
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let kinds: Vec<String> = rows
        .iter()
        .map(|r| format!("{}:{}", r["kind"], r["outcome"]).replace('"', ""))
        .filter(|k| k.starts_with("password") || k.starts_with("totp") || k.starts_with("mode"))
        .collect();
    assert_eq!(
        kinds,
        [
            "password:applied",
            "totp:refused",
            "totp:applied",
            "mode:applied"
        ],
        "{out}"
    );
    let (code, out, _) = run_airlock_in(s.home.path(), &["policy-history", "--verify"], "");
    assert_eq!(code, 0, "{out}");

    keys(&win, &["Return"]); // "Finish"
    assert!(
        wait_gone("^Airlock setup$", Duration::from_secs(10)),
        "Finish did not close the wizard; log:\n{}",
        s.log_text()
    );
    drop(s);
    drop(guard);
}
