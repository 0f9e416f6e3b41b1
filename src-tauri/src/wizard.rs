//! First-run setup (the onboarding wizard's back end): password, optional TOTP, mode, wiring
//! the detected agents, and a live self-test through the real `airlock hook` binary.
//!
//! Every step is its own commit: it either fully happens (and is ledgered, actor `tray`) or
//! returns an error the page shows; nothing is half-saved. The factor code is the CLI's
//! (`airlock_core::factors`), the wiring code is `airlock_wire` (what `airlock wire` runs).

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_core::factors::{self, Proof};
use airlock_core::{Paths, clock as app};
use airlock_store::{DecisionFilter, LedgerEntry, Store};
use airlock_wire::{Agent, WireOptions};
use anyhow::{Context, Result, bail};
use base64::Engine as _;
use serde::Serialize;

/// What `airlock wire` writes as the hook timeout (seconds).
const WIRE_TIMEOUT_SECS: u32 = 150;

/// Does this user still need the wizard? (No store before the app started, or no password.)
pub fn needed(store_existed: bool, store: &Store) -> Result<bool> {
    Ok(!store_existed || !factors::password_is_set(store)?)
}

fn ledger(store: &Store, kind: &str, detail: serde_json::Value, factor: &str, outcome: &str) {
    let entry = LedgerEntry {
        ts_ms: app::now_ms(),
        kind: kind.to_owned(),
        detail,
        actor: "tray".into(),
        factor: factor.to_owned(),
        outcome: outcome.to_owned(),
    };
    if let Err(e) = store.append_ledger(&entry) {
        tracing::error!(error = %e, "could not write the ledger");
    }
}

/// Step 1: the first password (argon2id, `factors::set_password`).
pub fn set_password(store: &Store, password: &str, repeat: &str) -> Result<()> {
    if password != repeat {
        bail!("the two passwords differ");
    }
    let detail = serde_json::json!({"action": "set"});
    match factors::set_password(store, password) {
        Ok(()) => {
            ledger(store, "password", detail, "none", "applied");
            Ok(())
        }
        Err(e) => {
            ledger(store, "password", detail, "none", "refused");
            bail!("{e}")
        }
    }
}

/// What the TOTP step shows.
#[derive(Debug, Clone, Serialize)]
pub struct TotpOffer {
    /// `data:image/png;base64,…` of the QR code.
    pub qr: String,
    /// The base32 secret for typing into an app by hand.
    pub secret: String,
}

/// Step 2a: a new TOTP secret, kept pending (sealed under the password) until a code
/// proves the authenticator has it.
pub fn totp_begin(store: &Store, password: &str) -> Result<TotpOffer> {
    let (uri, png) =
        factors::begin_totp_enroll(store, password).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(totp_offer(&uri, &png))
}

/// What the TOTP step shows for an `otpauth://` URI and its QR code.
pub fn totp_offer(uri: &str, png: &[u8]) -> TotpOffer {
    let secret = uri
        .split_once('?')
        .map(|(_, q)| q)
        .unwrap_or_default()
        .split('&')
        .find_map(|kv| kv.strip_prefix("secret="))
        .unwrap_or_default()
        .to_owned();
    TotpOffer {
        qr: format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(png)
        ),
        secret,
    }
}

/// Step 2b: the code from the authenticator; only now does TOTP take effect. Returns where
/// the secret is kept (`keyring` or `encrypted`).
pub fn totp_finish(store: &Store, password: &str, code: &str) -> Result<&'static str> {
    let detail = serde_json::json!({"action": "enroll"});
    match factors::finish_totp_enroll(store, password, code, app::now_unix(), true) {
        Ok(where_) => {
            ledger(store, "totp", detail, "password+totp", "applied");
            Ok(where_)
        }
        Err(e) => {
            ledger(store, "totp", detail, "none", "refused");
            bail!("{e}")
        }
    }
}

/// The `airlock` CLI the hooks run: at the system level the root-owned one the system
/// install put in place (the one its managed hook files run); else next to this app's binary
/// (how the packages install it), else on `PATH`.
pub fn airlock_binary() -> Result<PathBuf> {
    let name = if cfg!(windows) {
        "airlock.exe"
    } else {
        "airlock"
    };
    if let Some(p) = airlock_core::paths::system_bin_dir()
        .map(|d| d.join(name))
        .filter(|p| p.is_file())
    {
        return Ok(p);
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join(name)))
        .filter(|p| p.is_file());
    if let Some(p) = beside {
        return Ok(p);
    }
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file() && p.is_absolute())
        })
        .context("cannot find the `airlock` command (next to the app or on PATH): install it first")
}

/// One agent on the wiring step.
#[derive(Debug, Clone, Serialize)]
pub struct AgentInfo {
    pub name: &'static str,
    pub installed: bool,
    pub wired: bool,
    pub config: String,
    /// Why it cannot be wired on its own (VS Code runs the Claude Code / Copilot hooks).
    pub note: Option<&'static str>,
    /// System level: the system install wired it for every user in the host's managed file;
    /// a user-level entry would only run Airlock a second time per call.
    pub system_wired: bool,
}

/// Step 4's table. At the system level an agent wired in its system file is shown as such and
/// not offered for wiring again.
pub fn agents(home: &Path, airlock_bin: &Path, system: bool) -> Vec<AgentInfo> {
    Agent::ALL
        .into_iter()
        .map(|a| {
            let system_wired = system_wired(a, airlock_bin, system);
            AgentInfo {
                name: a.as_str(),
                installed: airlock_wire::is_installed(a, home),
                wired: airlock_wire::is_wired(a, home, airlock_bin).unwrap_or(false),
                config: match airlock_wire::system::hook_file(a).filter(|_| system_wired) {
                    Some(f) => f.to_owned(),
                    None => airlock_wire::config_path(a, home).display().to_string(),
                },
                note: (a == Agent::VsCode)
                    .then_some("covered through the Claude Code and Copilot hook files"),
                system_wired,
            }
        })
        .collect()
}

/// At the system level, whether the system install wired `agent` for every user. A system
/// file that cannot be read counts as not wired (the user's own wiring is then offered).
fn system_wired(agent: Agent, airlock_bin: &Path, system: bool) -> bool {
    system && airlock_wire::system::is_wired(agent, airlock_bin).unwrap_or(false)
}

/// Step 4: wires one agent (same code as `airlock wire`), ledgered like the CLI does. At the
/// system level an agent the system install already wired is left alone.
pub fn wire(
    store: &Store,
    home: &Path,
    agent: &str,
    airlock_bin: &Path,
    system: bool,
) -> Result<String> {
    let agent: Agent = agent.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    if system_wired(agent, airlock_bin, system) {
        return Ok("wired for every user by the system install".to_owned());
    }
    let opts = WireOptions {
        airlock_bin: airlock_bin.to_path_buf(),
        timeout_secs: WIRE_TIMEOUT_SECS,
        stamp: app::now_ms().to_string(),
    };
    let r = airlock_wire::wire(agent, home, &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    ledger(
        store,
        "wire",
        serde_json::json!({"agent": agent.as_str()}),
        "none",
        "applied",
    );
    Ok(match (r.changed, r.backup.is_some()) {
        (true, true) => "wired (the old file is kept as a backup)".to_owned(),
        (true, false) => "wired".to_owned(),
        (false, _) => "already wired".to_owned(),
    })
}

/// Step 3: the mode. Raising applies; lowering (to `light`) needs the factor just set.
pub fn set_mode(store: &Store, paths: &Paths, mode: &str, proof: &Proof) -> Result<String> {
    crate::policy::change(store, paths, crate::policy::Kind::Mode, mode, Some(proof))
}

/// The three self-test cases: (name, expected verdict, command).
pub const SELF_TESTS: [(&str, &str, &str); 3] = [
    ("pass", "PASS", "git status"),
    ("auth", "AUTH", "git reset --hard HEAD~1"),
    ("block", "BLOCK", "rm -rf ~"),
];

/// What one self-test decision came to.
#[derive(Debug, Clone, Serialize)]
pub struct SelfTestResult {
    pub case: String,
    pub command: String,
    pub expected: String,
    /// The engine's verdict, from the audit log row the hook wrote.
    pub verdict: String,
    /// What happened (passed / blocked / approved / denied / timeout).
    pub outcome: String,
    pub reasons: Vec<String>,
    /// The same reasons in words.
    pub reasons_words: Vec<String>,
    /// The hook's exit code and its answer to the agent.
    pub exit_code: Option<i32>,
    pub answer: String,
    pub ok: bool,
}

/// Step 5: one real decision. Runs `airlock hook claude-code` with a Claude Code PreToolUse
/// payload (a fresh session id), then reads the row the hook wrote to the audit log. The AUTH
/// case raises a real popup and waits for the human (or the deadline).
pub fn self_test(
    paths: &Paths,
    system: bool,
    airlock_bin: &Path,
    case: &str,
    session_id: &str,
) -> Result<SelfTestResult> {
    let (name, expected, command) = SELF_TESTS
        .iter()
        .find(|(n, _, _)| *n == case)
        .copied()
        .with_context(|| format!("unknown self-test `{case}`"))?;
    let cwd = paths
        .home
        .as_ref()
        .map(|h| h.display().to_string())
        .unwrap_or_else(|| "/".into());
    let payload = serde_json::json!({
        "session_id": session_id,
        "transcript_path": "",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command}
    })
    .to_string();
    let (exit_code, answer) = run_hook(airlock_bin, &payload, Duration::from_secs(150))?;
    // At the system level the service recorded it in its own store.
    let rows = if system {
        crate::policy::service_decisions(airlock_service::protocol::DecisionQuery {
            limit: 1,
            session_id: Some(session_id.to_owned()),
            ..Default::default()
        })?
    } else {
        paths.open_store()?.recent_decisions(&DecisionFilter {
            limit: 1,
            session_id: Some(session_id.to_owned()),
            ..DecisionFilter::default()
        })?
    };
    let row = rows
        .into_iter()
        .next()
        .with_context(|| format!("the hook recorded no decision (exit {exit_code:?}): {answer}"))?;
    Ok(SelfTestResult {
        case: name.to_owned(),
        command: command.to_owned(),
        expected: expected.to_owned(),
        ok: row.verdict == expected,
        verdict: row.verdict,
        outcome: row.outcome.as_str().to_owned(),
        reasons_words: row
            .reasons
            .iter()
            .map(|c| airlock_core::words::reason(c))
            .collect(),
        reasons: row.reasons,
        exit_code,
        answer,
    })
}

/// Runs the hook with `payload` on stdin; (exit code, stdout). Killed past `limit`.
fn run_hook(bin: &Path, payload: &str, limit: Duration) -> Result<(Option<i32>, String)> {
    let mut child = Command::new(bin)
        .args(["hook", "claude-code"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {}", bin.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(payload.as_bytes())
            .context("writing to the hook")?;
    }
    let mut stdout = child.stdout.take().context("no hook stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().context("waiting for the hook")? {
            break st;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!("the hook did not answer within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = reader.join().unwrap_or_default();
    Ok((status.code(), out.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn password_step_checks_the_repeat_and_refuses_a_second_password() {
        let store = Store::open_in_memory().unwrap();
        assert!(needed(true, &store).unwrap());
        assert!(set_password(&store, "correct horse", "correct horsE").is_err());
        assert!(!factors::password_is_set(&store).unwrap());
        assert!(set_password(&store, "short", "short").is_err());
        assert!(!factors::password_is_set(&store).unwrap());
        set_password(&store, "correct horse", "correct horse").unwrap();
        assert!(!needed(true, &store).unwrap());
        assert!(needed(false, &store).unwrap());
        assert!(set_password(&store, "another one", "another one").is_err());
        factors::verify_password(&store, "correct horse").unwrap();
        let outcomes: Vec<String> = store
            .ledger()
            .unwrap()
            .into_iter()
            .map(|r| format!("{}:{}:{}", r.entry.kind, r.entry.actor, r.entry.outcome))
            .collect();
        assert_eq!(
            outcomes,
            [
                "password:tray:refused",
                "password:tray:applied",
                "password:tray:refused"
            ]
        );
    }

    #[test]
    fn totp_takes_effect_only_after_a_right_code() {
        let store = Store::open_in_memory().unwrap();
        set_password(&store, "correct horse", "correct horse").unwrap();
        assert!(totp_begin(&store, "wrong horse!").is_err());
        let offer = totp_begin(&store, "correct horse").unwrap();
        assert!(offer.qr.starts_with("data:image/png;base64,iVBOR"));
        assert!(offer.secret.len() >= 16, "{}", offer.secret);
        // A wrong code: refused, TOTP not enrolled.
        let now = app::now_unix();
        let uri = format!(
            "otpauth://totp/Airlock:airlock?secret={}&issuer=Airlock",
            offer.secret
        );
        let code = factors::current_code_for_uri(&uri, now).unwrap();
        let wrong = if code == "000000" { "111111" } else { "000000" };
        assert!(totp_finish(&store, "correct horse", wrong).is_err());
        assert!(!factors::totp_enrolled(&store).unwrap());
        totp_finish(&store, "correct horse", &code).unwrap();
        assert!(factors::totp_enrolled(&store).unwrap());
    }

    #[test]
    fn mode_step_raises_freely_and_lowers_only_with_the_factor() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            db: dir.path().join("airlock.db"),
            config_dir: dir.path().join("config"),
            home: Some(dir.path().to_path_buf()),
            level: airlock_core::Level::User,
            socket: dir.path().join("run/guard.sock"),
        };
        let store = paths.open_store().unwrap();
        set_password(&store, "correct horse", "correct horse").unwrap();
        let none = Proof::default();
        let wrong = Proof {
            password: Some("wrong horse!".into()),
            code: None,
        };
        let right = Proof {
            password: Some("correct horse".into()),
            code: None,
        };
        set_mode(&store, &paths, "strict", &none).unwrap();
        assert!(set_mode(&store, &paths, "light", &none).is_err());
        assert!(set_mode(&store, &paths, "light", &wrong).is_err());
        assert_eq!(store.setting("mode").unwrap().as_deref(), Some("strict"));
        set_mode(&store, &paths, "light", &right).unwrap();
        assert_eq!(store.setting("mode").unwrap().as_deref(), Some("light"));
        assert!(set_mode(&store, &paths, "reckless", &right).is_err());
        let rows: Vec<String> = store
            .ledger()
            .unwrap()
            .into_iter()
            .map(|r| format!("{}:{}:{}", r.entry.kind, r.entry.factor, r.entry.outcome))
            .collect();
        assert_eq!(
            rows,
            [
                "password:none:applied",
                "mode:none:applied",
                "mode:none:refused",
                "mode:none:refused",
                "mode:password:applied"
            ]
        );
    }

    #[test]
    fn wiring_uses_the_wire_crate_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let store = Store::open_in_memory().unwrap();
        let bin = home.join("bin/airlock");
        let list = agents(home, &bin, false);
        let claude = list.iter().find(|a| a.name == "claude-code").unwrap();
        assert!(claude.installed && !claude.wired && !claude.system_wired);
        assert!(!list.iter().find(|a| a.name == "cursor").unwrap().installed);
        assert!(
            wire(&store, home, "claude-code", &bin, false)
                .unwrap()
                .starts_with("wired")
        );
        assert!(
            wire(&store, home, "claude-code", &bin, false)
                .unwrap()
                .starts_with("already")
        );
        assert!(airlock_wire::is_wired(Agent::ClaudeCode, home, &bin).unwrap());
        let settings = std::fs::read_to_string(home.join(".claude/settings.json")).unwrap();
        assert!(settings.contains("hook claude-code"), "{settings}");
        assert!(wire(&store, home, "nonsense", &bin, false).is_err());
        assert_eq!(store.ledger().unwrap().len(), 2);
    }
}
