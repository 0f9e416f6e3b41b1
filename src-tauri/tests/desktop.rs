//! The app behaves like a desktop app: a second launch hands over to the running one (which
//! opens its dashboard) instead of failing on the busy approval socket. Real windows under
//! the test display and the test's D-Bus session (see README.md).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

mod support;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::*;

/// Launches the app binary again for the same user, as a second click in the menu would, and
/// waits (at most 60 s) for it to end.
fn launch_again(s: &Session, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_airlock-app"));
    cmd.env("HOME", s.home.path())
        .env("XDG_RUNTIME_DIR", &s.runtime)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let t0 = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the second launch did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_second_launch_opens_the_running_apps_dashboard() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        eprintln!(
            "SKIPPED: no D-Bus session bus; run under `dbus-run-session` (src-tauri/tests/run.sh)"
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run this test with a session bus"
        );
        return;
    }
    let mut s = start(false);
    assert!(s.wait_log("Airlock app started", 1, Duration::from_secs(30)));
    assert!(
        windows("^Airlock$").is_empty(),
        "no dashboard before the second launch"
    );

    let out = launch_again(&s, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "second launch failed: {err}");
    assert!(!err.contains("cannot start"), "{err}");
    assert!(
        wait_window("^Airlock$", Duration::from_secs(30)).is_some(),
        "the running app did not open its dashboard; log:\n{}",
        s.log_text()
    );
    assert!(s.wait_log(
        "second launch: showing the running app",
        1,
        Duration::from_secs(5)
    ));
    // The first app still owns the approval socket and answers.
    assert!(s.sock.exists());
    assert!(s.app_running());
    shot(&s, "second-launch-dashboard.png");

    // With no session bus to hand over on, the second launch says where Airlock is and ends
    // well (exit 0): nothing is wrong, Airlock is running.
    let out = launch_again(
        &s,
        &[(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/airlock-test",
        )],
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("Airlock is already running"), "{said}");
    assert!(s.app_running());
}
