//! `airlock doctor`: what is installed, wired and reachable, and what is wrong.

use airlock_core::factors::{self};
use airlock_core::settings;
use airlock_core::{Paths, clock, paths};
use airlock_wire::Agent;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(unix)]
fn broker_reachable(p: &std::path::Path) -> bool {
    std::os::unix::net::UnixStream::connect(p).is_ok()
}

#[cfg(not(unix))]
fn broker_reachable(_: &std::path::Path) -> bool {
    false
}

pub fn doctor(paths: &Paths, json: bool) -> Result<ExitCode> {
    let mut checks: Vec<(String, bool, String)> = Vec::new();
    let bin = on_path(if cfg!(windows) {
        "airlock.exe"
    } else {
        "airlock"
    });
    checks.push((
        "binary on PATH".into(),
        bin.is_some(),
        bin.map_or("`airlock` is not on PATH".into(), |p| {
            p.display().to_string()
        }),
    ));
    match paths.open_store() {
        Ok(store) => {
            let writable = store
                .set_setting("doctor_probe", &clock::now_ms().to_string())
                .is_ok();
            checks.push((
                "store writable".into(),
                writable,
                paths.db.display().to_string(),
            ));
            match store.verify_ledger() {
                Ok(s) => checks.push((
                    "ledger chain".into(),
                    s.intact,
                    format!(
                        "{} entries{}",
                        s.rows,
                        s.problem.map(|p| format!(": {p}")).unwrap_or_default()
                    ),
                )),
                Err(e) => checks.push(("ledger chain".into(), false, e.to_string())),
            }
            let pw = factors::password_is_set(&store).unwrap_or(false);
            checks.push((
                "password set".into(),
                pw,
                if pw {
                    "yes".into()
                } else {
                    "run `airlock setup`".into()
                },
            ));
        }
        Err(e) => checks.push(("store".into(), false, format!("{e:#}"))),
    }
    if let (Some(home), Ok(bin)) = (&paths.home, paths::self_binary()) {
        for agent in Agent::ALL {
            if !airlock_wire::is_installed(agent, home) {
                continue;
            }
            let wired = airlock_wire::is_wired(agent, home, &bin);
            let ok = matches!(wired, Ok(true));
            let detail = match wired {
                Ok(true) => "hooks wired".to_owned(),
                Ok(false) => format!("not wired: run `airlock wire {}`", agent.as_str()),
                Err(e) => e.to_string(),
            };
            checks.push((format!("agent {}", agent.as_str()), ok, detail));
        }
    }
    // Custom rules: a file that does not validate makes every tool call AUTH.
    let custom = settings::custom_rules(paths);
    let first_error = custom
        .problems()
        .iter()
        .find(|p| p.severity == airlock_core::custom::Severity::Error);
    checks.push((
        "custom rules".into(),
        first_error.is_none(),
        match first_error {
            Some(p) => format!(
                "{p} — every tool call needs approval (custom_rules_invalid) until fixed; see `airlock policy check`"
            ),
            None if custom.files().is_empty() => "none installed".into(),
            None => format!(
                "{} rule(s) in {} file(s)",
                custom.rules().count(),
                custom.files().len()
            ),
        },
    ));
    let app_up = airlock_broker::default_socket_path().is_some_and(|p| broker_reachable(&p));
    checks.push((
        "desktop app".into(),
        app_up,
        if app_up {
            "approval service reachable".into()
        } else {
            "not running: AUTH falls back to the host's own ask, or a deny".into()
        },
    ));
    // The guard service: the level in force, and anything it has seen behind its back.
    match airlock_service::Endpoint::discover(paths::self_binary().ok()).and_then(|ep| {
        airlock_service::client::call(
            &ep,
            &airlock_service::Request::Status,
            std::time::Duration::from_secs(10),
        )
    }) {
        Ok(airlock_service::Response::Status(st)) => {
            checks.push(("protection level".into(), true, st.level_text.clone()));
            let clean = st.tampered.is_none() && st.bypassed.is_empty();
            let detail = match (&st.tampered, st.bypassed.len()) {
                (Some(t), _) => {
                    format!("TAMPERED: {t} (every call denied; `airlock release --tamper`)")
                }
                (None, 0) => format!("running (pid {}), no tampering seen", st.pid),
                (None, n) => format!("{n} session(s) held after a killed hook (`airlock status`)"),
            };
            checks.push(("guard service".into(), clean, detail));
            // Export destinations are a copy: advisory (a collector that is down changes no
            // verdict), but a drop or a failure is said.
            for x in &st.export {
                let ok = x.dropped == 0 && x.failed == 0;
                let mut detail = format!(
                    "{}: sent {}, dropped {}, failed {}",
                    x.destination, x.sent, x.dropped, x.failed
                );
                if let Some(e) = &x.last_error {
                    detail.push_str(&format!(" (last error: {e})"));
                }
                checks.push(("export".into(), ok, detail));
            }
        }
        Ok(_) => checks.push(("guard service".into(), false, "unexpected answer".into())),
        Err(e) => checks.push(("guard service".into(), false, e.to_string())),
    }
    // Advisory checks print `warn`, not FAIL: the exit code says whether anything critical
    // failed, and the output never shows FAIL with exit 0.
    let advisory = |n: &str| n == "desktop app" || n == "binary on PATH" || n == "export";
    let critical_ok = checks
        .iter()
        .filter(|(n, _, _)| !advisory(n))
        .all(|(_, ok, _)| *ok);
    if json {
        let v: Vec<serde_json::Value> = checks
            .iter()
            .map(|(n, ok, d)| serde_json::json!({"check": n, "ok": ok, "detail": d}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for (n, ok, d) in &checks {
            let mark = match (*ok, advisory(n)) {
                (true, _) => "ok  ",
                (false, true) => "warn",
                (false, false) => "FAIL",
            };
            println!("{mark} {n:<22} {d}");
        }
    }
    Ok(if critical_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
