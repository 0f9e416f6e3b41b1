//! Helpers shared by the proxy's real-peer test binaries (`real_peers.rs`, `http_peers.rs`):
//! where the peers live, installing them once, and the throw-away-user sandboxing.
#![allow(dead_code, clippy::panic)] // test code: each binary uses a subset

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub const GHP: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

pub fn peers() -> PathBuf {
    tests_dir().join("peers")
}

pub fn python() -> PathBuf {
    peers().join(".venv/bin/python")
}

pub fn filesystem_server() -> PathBuf {
    peers().join("node_modules/.bin/mcp-server-filesystem")
}

pub fn everything_server() -> PathBuf {
    peers().join("node_modules/.bin/mcp-server-everything")
}

pub fn conformance_bin() -> PathBuf {
    peers().join("node_modules/.bin/conformance")
}

/// Install the peers once per test binary if any is missing; fail loudly if that fails.
pub fn ensure_peers() {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let r = READY.get_or_init(|| {
        if python().exists()
            && filesystem_server().exists()
            && everything_server().exists()
            && conformance_bin().exists()
        {
            return Ok(());
        }
        let out = Command::new("bash")
            .arg(tests_dir().join("setup-peers.sh"))
            .output()
            .map_err(|e| format!("cannot run setup-peers.sh: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "proxy/tests/setup-peers.sh failed (network or registry problem?):\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    });
    if let Err(e) = r {
        panic!("{e}");
    }
}

/// `program` run as a throw-away user who has set Airlock up: HOME is `home` (its store is
/// created here if missing, as `airlock setup` would: the proxy refuses to run without one),
/// XDG_* variables removed.
pub fn sandboxed(program: &Path, home: &Path) -> Command {
    let db = home.join(".local/share/airlock/airlock.db");
    if !db.exists()
        && let Err(e) = airlock_store::Store::open(&db)
    {
        panic!("creating the test user's store: {e}");
    }
    let mut c = Command::new(program);
    c.env("HOME", home).current_dir(home);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("XDG_") {
            c.env_remove(k);
        }
    }
    c
}

/// Wait for `child`, killing it and failing the test after `limit` (a hang).
pub fn wait_with_timeout(mut child: Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    loop {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return match child.wait_with_output() {
                Ok(o) => o,
                Err(e) => panic!("collecting the child's output: {e}"),
            };
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output();
            let (so, se) = out
                .map(|o| {
                    (
                        String::from_utf8_lossy(&o.stdout).into_owned(),
                        String::from_utf8_lossy(&o.stderr).into_owned(),
                    )
                })
                .unwrap_or_default();
            panic!("timed out after {limit:?} (a hang):\nstdout:\n{so}\nstderr:\n{se}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
