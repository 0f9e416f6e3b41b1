//! The app at the system level (issue #10): `airlock system install`, the guard service
//! running as its own `airlock` user, and the real app. The app asks to unlock approvals; the
//! password typed into that prompt registers it with the service as the user's approval agent;
//! a real hook's AUTH request then opens the usual popup, and "Approve once" there releases
//! the call. Before the unlock, the same call gets the host's own prompt. The dashboard shows
//! the decisions the service keeps for this user.
//!
//! Needs root (it installs into the real system paths and uninstalls on the way out, also when
//! an assertion fails), a display and `xdotool`; skips loudly without root. CI runs it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

mod support;

use std::process::Command;
use std::time::Duration;

use support::*;

#[test]
fn at_the_system_level_the_unlocked_app_is_the_approval_agent() {
    if !is_root() {
        eprintln!(
            "SKIPPED: the app at the system level needs root (it installs the system level); CI runs it as root"
        );
        return;
    }
    let mut guard = Installed { service: None };
    let o = Command::new(airlock_bin())
        .args(["system", "install", "--no-start", "--bin-dir", BIN_DIR])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    guard.service = Some(start_service());

    let home = tempfile::tempdir().unwrap();
    let (code, _, err) = run_airlock_in(
        home.path(),
        &["setup", "--password-stdin"],
        &format!("{PASSWORD}\n"),
    );
    assert_eq!(code, 0, "{err}");
    // Locked: the host's own prompt, as without an agent.
    let (code, out, _) = run_airlock_in(
        home.path(),
        &["hook", "claude-code"],
        &claude_bash("sys-app-0", "git reset --hard HEAD~3"),
    );
    assert_eq!(code, 0);
    assert!(out.contains("\"ask\""), "{out}");

    let s = start_with(
        home,
        Start {
            dashboard: true,
            password: None,
            ..Start::default()
        },
    );
    // The dashboard reads the service's audit log for this user (the app's own store is
    // empty): the host-prompt decision above is there. (Earlier runs may have left rows in the
    // system store: counts are compared, not fixed.)
    assert!(
        s.wait_log("dashboard rendered decisions=", 1, Duration::from_secs(15)),
        "no dashboard; log:\n{}",
        s.log_text()
    );
    let decisions = |log: &str| -> Vec<usize> {
        log.lines()
            .filter_map(|l| l.split("dashboard rendered decisions=").nth(1))
            .filter_map(|r| r.split_whitespace().next()?.parse().ok())
            .collect()
    };
    let before = decisions(&s.log_text())[0];
    assert!(before >= 1, "the service's decisions are not shown");

    // The unlock prompt: a wrong password first (refused by the service), then the right one.
    let win = wait_window("^Airlock: unlock approvals", Duration::from_secs(30))
        .unwrap_or_else(|| panic!("no unlock prompt; log:\n{}", s.log_text()));
    focus(&win);
    std::thread::sleep(Duration::from_millis(500));
    xdotool(&["type", "--delay", "20", "not the password"]);
    xdotool(&["key", "Return"]);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !s.log_text()
            .contains("approval agent registered with the system service"),
        "registered with a wrong password"
    );
    shot(&s, "unlock-refused.png");
    focus(&win);
    xdotool(&["key", "ctrl+a", "BackSpace"]);
    xdotool(&["type", "--delay", "20", PASSWORD]);
    xdotool(&["key", "Return"]);
    assert!(
        s.wait_log(
            "approval agent registered with the system service",
            1,
            Duration::from_secs(15)
        ),
        "the app did not register; log:\n{}",
        s.log_text()
    );

    // Unlocked: the service's request opens the popup; Approve once releases the call.
    let hook = s.spawn_hook(&claude_bash("sys-app-1", "git reset --hard HEAD~3"));
    let popup = wait_window("^Airlock approval #", Duration::from_secs(30))
        .unwrap_or_else(|| panic!("no popup at the system level; log:\n{}", s.log_text()));
    wait_rendered(&s, 1);
    std::thread::sleep(Duration::from_millis(1700)); // armed 1.5 s after arrival
    shot(&s, "popup-system-level.png");
    assert!(
        approve_until_gone(&popup, Duration::from_secs(20)),
        "the popup did not close on Approve; log:\n{}",
        s.log_text()
    );
    let o = hook.wait_with_output().unwrap();
    assert_eq!(
        (o.status.code(), String::from_utf8_lossy(&o.stdout).trim()),
        (Some(0), "{}"),
        "log:\n{}",
        s.log_text()
    );
    assert!(wait_gone("^Airlock approval #", Duration::from_secs(5)));

    // A denial in the popup is a denial of the call.
    let hook = s.spawn_hook(&claude_bash("sys-app-2", "git reset --hard HEAD~1"));
    let popup = wait_window("^Airlock approval #", Duration::from_secs(30)).expect("no popup");
    wait_rendered(&s, 2);
    let (deny, _) = popup_buttons(&popup);
    click(deny.0, deny.1);
    let o = hook.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout).contains("You denied it"));

    // A BLOCK reaches the tray's recent blocks (and a notification) through the service: the
    // app reads the service's audit log, not a store of its own.
    let (code, _, _) = run_airlock_in(
        s.home.path(),
        &["hook", "claude-code"],
        &claude_bash("sys-app-3", "rm -rf ~"),
    );
    assert_eq!(code, 2);
    assert!(
        s.wait_log("blocked call seen", 1, Duration::from_secs(15)),
        "the app did not see the service's BLOCK; log:\n{}",
        s.log_text()
    );

    // The dashboard shows the decisions and the ledger the service keeps for this user (the
    // app's own store holds none of them): the host's prompt, the approval and the denial.
    let want = format!("dashboard rendered decisions={}", before + 2);
    assert!(
        s.wait_log(&want, 1, Duration::from_secs(15)),
        "the dashboard does not show the service's new decisions; log:\n{}",
        s.log_text()
    );
    assert!(s.log_text().contains("chain=intact"));
    drop(s);
    drop(guard);
}
