//! First run in a real window: no store yet → the app opens the setup wizard. The test
//! types into it with xdotool (keyboard only), scans the TOTP QR code off the screen like a
//! phone would (rqrr), wires a detected Claude Code with the real `airlock` binary on PATH,
//! and approves the self-test's AUTH decision in the real popup. Run under a display (see
//! README.md); needs `xdotool` and `import`.
//!
//! The app runs with `DBUS_SESSION_BUS_ADDRESS` pointing nowhere, so the TOTP secret takes
//! the no-keyring path (sealed in the store): a headless Secret Service could otherwise wait
//! on an unlock prompt nobody can answer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

mod support;

use std::time::Duration;

use airlock_core::factors;
use airlock_store::{DecisionFilter, Outcome, Store};
use support::*;

#[test]
fn first_run_wizard_sets_up_everything_and_self_tests() {
    let home = tempfile::tempdir().unwrap();
    // Claude Code is "installed" for this user.
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    // The real `airlock` CLI on PATH, as a package installs it.
    let bin = airlock_bin();
    let (s, win) = start_wizard(home, &bin.parent().unwrap().display().to_string());
    let store = Store::open(&s.db).unwrap();
    assert!(!factors::password_is_set(&store).unwrap());

    // 1. Password: a mismatched repeat is refused visibly and saves nothing (not ledgered:
    //    no policy change was attempted). 2. TOTP: a wrong code enrols nothing.
    wizard_password_step(&s, &win, "wizard", || {
        factors::password_is_set(&store).unwrap()
    });
    factors::verify_password(&store, PASSWORD).unwrap();
    wizard_totp_step(&s, &win, "wizard", || {
        factors::totp_enrolled(&store).unwrap()
    });
    assert!(
        factors::totp_needs_password(&store).unwrap(),
        "no keyring here: sealed"
    );

    // 3. Mode: Down from "balanced" selects "strict" (a raise: no factor needed).
    std::thread::sleep(Duration::from_millis(400));
    keys(&win, &["Return"]); // "Next" after the TOTP confirmation
    std::thread::sleep(Duration::from_millis(500));
    keys(&win, &["Down"]);
    shot(&s, "wizard-mode.png");
    keys(&win, &["Return"]);
    wait_step(&s, "done", "mode", 1);
    assert_eq!(store.setting("mode").unwrap().as_deref(), Some("strict"));

    // 4. Agents: Claude Code is found and wired with the `airlock` binary on PATH.
    wait_step(&s, "done", "agents", 1);
    std::thread::sleep(Duration::from_millis(400));
    keys(&win, &["Return"]); // "Wire selected"
    wait_step(&s, "done", "wire", 1);
    let settings = std::fs::read_to_string(s.home.path().join(".claude/settings.json")).unwrap();
    assert!(
        // The wiring runs the small `airlock-hook` when it sits next to `airlock`.
        settings.contains(&format!("{} hook claude-code", bin.display()))
            || settings.contains(&format!(
                "{} claude-code",
                bin.with_file_name("airlock-hook").display()
            )),
        "{settings}"
    );
    shot(&s, "wizard-agents.png");
    std::thread::sleep(Duration::from_millis(300));
    keys(&win, &["Return"]); // "Next"

    // 5. Self-test: PASS, AUTH (approved in the real popup), BLOCK, through the real hook.
    wizard_self_test_step(&s, &win);
    shot(&s, "wizard-selftest.png");
    let mut rows = store
        .recent_decisions(&DecisionFilter::default())
        .unwrap()
        .into_iter()
        .filter(|d| d.session_id.starts_with("airlock-self-test-"))
        .map(|d| (d.verdict, d.outcome))
        .collect::<Vec<_>>();
    rows.reverse();
    assert_eq!(
        rows,
        vec![
            ("PASS".to_owned(), Outcome::Passed),
            ("AUTH".to_owned(), Outcome::Approved),
            ("BLOCK".to_owned(), Outcome::Blocked),
        ]
    );
    assert_eq!(
        s.log_text().matches("ok=true").count(),
        3,
        "{}",
        s.log_text()
    );

    // Everything the wizard changed is in the ledger, chain intact.
    let kinds: Vec<String> = store
        .ledger()
        .unwrap()
        .into_iter()
        .map(|r| format!("{}:{}", r.entry.kind, r.entry.outcome))
        .collect();
    assert_eq!(
        kinds,
        [
            "password:applied",
            "totp:refused",
            "totp:applied",
            "mode:applied",
            "wire:applied"
        ]
    );
    assert!(store.verify_ledger().unwrap().intact);
    // The last page says where Airlock lives from now on, and offers starting at login
    // (ticked by default).
    shot(&s, "wizard-finish.png");
    let autostart_dir = s.home.path().join(".config/autostart");
    assert!(
        !autostart_dir.exists(),
        "nothing starts at login before Finish"
    );
    keys(&win, &["Return"]); // "Finish"
    assert!(
        wait_gone("^Airlock setup$", Duration::from_secs(10)),
        "Finish did not close the wizard; log:\n{}",
        s.log_text()
    );
    wait_step(&s, "done", "autostart", 1);
    let entries: Vec<_> = std::fs::read_dir(&autostart_dir)
        .unwrap_or_else(|e| {
            panic!(
                "no autostart folder after Finish ({e}); log:\n{}",
                s.log_text()
            )
        })
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let desktop = std::fs::read_to_string(&entries[0]).unwrap();
    assert!(desktop.contains("[Desktop Entry]"), "{desktop}");
    assert!(
        desktop.contains(env!("CARGO_BIN_EXE_airlock-app")),
        "the entry starts this app: {desktop}"
    );
}
