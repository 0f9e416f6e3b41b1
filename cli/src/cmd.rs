//! Policy, factor, log and wiring commands.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use airlock_engine::Mode;
use airlock_store::{LedgerEntry, Store};
use airlock_wire::{Agent, WireOptions};
use anyhow::{Context, Result, bail};
use clap::Args;

use airlock_core::dials::{self, Dial};
use airlock_core::factors::{self, Proof};
use airlock_core::settings;
use airlock_core::{Paths, clock, paths};

/// How the user proves possession for a weakening.
#[derive(Debug, Clone, Default, Args)]
pub struct FactorArgs {
    /// Read the password from the first line of standard input.
    #[arg(long)]
    pub password_stdin: bool,
    /// Current TOTP code (required once TOTP is enrolled).
    #[arg(long, value_name = "CODE")]
    pub code: Option<String>,
}

pub(crate) fn read_line_stdin() -> Result<String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from stdin")?;
    Ok(line.trim_end_matches(['\n', '\r']).to_owned())
}

/// Collect the password / TOTP code from flags, stdin or a terminal prompt.
pub fn gather_proof(store: &Store, f: &FactorArgs) -> Result<Proof> {
    Ok(factors::gather_proof(
        factors::needs(store)?,
        f.password_stdin,
        f.code.clone(),
    )?)
}

fn ledger(
    store: &Store,
    kind: &str,
    detail: serde_json::Value,
    factor: &str,
    outcome: &str,
) -> Result<()> {
    store.append_ledger(&LedgerEntry {
        ts_ms: clock::now_ms(),
        kind: kind.to_owned(),
        detail,
        actor: "cli".into(),
        factor: factor.to_owned(),
        outcome: outcome.to_owned(),
    })?;
    Ok(())
}

/// Check the factor for a weakening; ledger a refusal before failing.
pub(crate) fn require_factor(
    store: &Store,
    f: &FactorArgs,
    kind: &str,
    detail: &serde_json::Value,
) -> Result<&'static str> {
    let proof = match gather_proof(store, f) {
        Ok(p) => p,
        Err(e) => {
            ledger(store, kind, detail.clone(), "none", "refused")?;
            return Err(e);
        }
    };
    Ok(dials::require_factor(
        store,
        Some(&proof),
        kind,
        detail,
        "cli",
    )?)
}

/// Show or move one ordered dial (mode, enforcement): raising applies at once, lowering
/// needs the factor; both are ledgered (`airlock_core::dials`).
fn dial(paths: &Paths, which: Dial, new: Option<String>, f: &FactorArgs) -> Result<ExitCode> {
    let store = paths.open_store()?;
    let current = settings::dials(&store)?;
    let from = which.current(&current);
    let Some(new) = new else {
        println!("{from}");
        return Ok(ExitCode::SUCCESS);
    };
    let lowering = which.is_lowering(&current, &new)?;
    let proof = if lowering {
        match gather_proof(&store, f) {
            Ok(p) => Some(p),
            Err(e) => {
                // Ledger the refusal, then say why (e.g. "no terminal: pass --password-stdin").
                let _ = dials::change(&store, which, &new, None, "cli");
                return Err(e.context("refused"));
            }
        }
    } else {
        None
    };
    let c = dials::change(&store, which, &new, proof.as_ref(), "cli")?;
    if c.applied {
        println!("{}: {} -> {}", c.kind, c.from, c.to);
    } else {
        println!("already {}", c.to);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn mode(paths: &Paths, new: Option<String>, f: &FactorArgs) -> Result<ExitCode> {
    dial(paths, Dial::Mode, new, f)
}

pub fn enforcement(paths: &Paths, new: Option<String>, f: &FactorArgs) -> Result<ExitCode> {
    dial(paths, Dial::Enforcement, new, f)
}

/// `airlock turn-gate [on|off]`: switching the gate off is a weakening.
pub fn turn_gate(paths: &Paths, new: Option<String>, f: &FactorArgs) -> Result<ExitCode> {
    dial(paths, Dial::TurnGate, new, f)
}

/// `airlock screening SOURCE [off|flag|block]`: lowering a source's screening is a weakening.
pub fn screening(
    paths: &Paths,
    source: &str,
    new: Option<String>,
    f: &FactorArgs,
) -> Result<ExitCode> {
    let which: Dial = format!("screening.{source}").parse()?;
    dial(paths, which, new, f)
}

/// Asks for a secret on the terminal; without one, says how to pass it instead (never a
/// misleading "wrong password").
pub(crate) fn prompt_secret(label: &str) -> Result<String> {
    if !std::io::stdin().is_terminal() {
        bail!("no terminal to ask for a password: pass --password-stdin");
    }
    rpassword::prompt_password(label).context("reading the password from the terminal")
}

pub(crate) fn read_new_password(from_stdin: bool) -> Result<String> {
    if from_stdin {
        return read_line_stdin();
    }
    if !std::io::stdin().is_terminal() {
        bail!("no terminal to ask for a password: pass --password-stdin");
    }
    let a = rpassword::prompt_password("New Airlock password: ")?;
    let b = rpassword::prompt_password("Repeat it: ")?;
    if a != b {
        bail!("the two passwords differ");
    }
    Ok(a)
}

pub fn password_set(paths: &Paths, from_stdin: bool) -> Result<ExitCode> {
    let store = paths.open_store()?;
    let pw = read_new_password(from_stdin)?;
    match factors::set_password(&store, &pw) {
        Ok(()) => {
            ledger(
                &store,
                "password",
                serde_json::json!({"action": "set"}),
                "none",
                "applied",
            )?;
            println!("password set");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            ledger(
                &store,
                "password",
                serde_json::json!({"action": "set"}),
                "none",
                "refused",
            )?;
            bail!("{e}")
        }
    }
}

pub fn password_change(paths: &Paths, from_stdin: bool) -> Result<ExitCode> {
    let store = paths.open_store()?;
    // With --password-stdin: first line current, second line new.
    let (current, new) = if from_stdin {
        (read_line_stdin()?, read_line_stdin()?)
    } else {
        (
            prompt_secret("Current Airlock password: ")?,
            read_new_password(false)?,
        )
    };
    let detail = serde_json::json!({"action": "change"});
    match factors::change_password(&store, &current, &new) {
        Ok(()) => {
            ledger(&store, "password", detail, "password", "applied")?;
            println!("password changed");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            ledger(&store, "password", detail, "none", "refused")?;
            bail!("{e}")
        }
    }
}

pub fn totp_enroll(
    paths: &Paths,
    verify: Option<String>,
    qr: Option<PathBuf>,
    from_stdin: bool,
    no_keyring: bool,
) -> Result<ExitCode> {
    let store = paths.open_store()?;
    let password = if from_stdin {
        read_line_stdin()?
    } else {
        prompt_secret("Airlock password: ")?
    };
    match verify {
        None => {
            let (uri, png) = factors::begin_totp_enroll(&store, &password)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            println!(
                "Add this to your authenticator app, then run `airlock totp enroll --verify CODE`:"
            );
            println!("{uri}");
            if let Some(path) = qr {
                std::fs::write(&path, png)
                    .with_context(|| format!("writing {}", path.display()))?;
                println!("QR code written to {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(code) => {
            let detail = serde_json::json!({"action": "enroll"});
            match factors::finish_totp_enroll(
                &store,
                &password,
                &code,
                clock::now_unix(),
                !no_keyring,
            ) {
                Ok(where_) => {
                    ledger(&store, "totp", detail, "password+totp", "applied")?;
                    if where_ == "encrypted" {
                        println!(
                            "TOTP enrolled. No OS keyring was available: the secret is kept in the store, sealed under your password, so weakening will ask for both."
                        );
                    } else {
                        println!("TOTP enrolled (secret in the OS keyring).");
                    }
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    ledger(&store, "totp", detail, "none", "refused")?;
                    bail!("{e}")
                }
            }
        }
    }
}

pub fn totp_remove(paths: &Paths, f: &FactorArgs) -> Result<ExitCode> {
    let store = paths.open_store()?;
    let proof = gather_proof(&store, f)?;
    let detail = serde_json::json!({"action": "remove"});
    match factors::remove_totp(&store, &proof, clock::now_unix()) {
        Ok(()) => {
            ledger(&store, "totp", detail, "totp", "applied")?;
            println!("TOTP removed; the password is the factor again");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            ledger(&store, "totp", detail, "none", "refused")?;
            bail!("refused: {e}")
        }
    }
}

fn stamp() -> String {
    clock::now_ms().to_string()
}

fn wire_opts() -> Result<WireOptions> {
    Ok(WireOptions {
        airlock_bin: paths::self_binary()?,
        timeout_secs: 150,
        stamp: stamp(),
    })
}

fn home(paths: &Paths) -> Result<PathBuf> {
    paths
        .home
        .clone()
        .context("cannot find your home directory")
}

pub fn wire(paths: &Paths, agent: &str) -> Result<ExitCode> {
    let agent: Agent = agent.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    let r = airlock_wire::wire(agent, &home(paths)?, &wire_opts()?)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if r.changed {
        println!(
            "wired {} in {}{}",
            agent.as_str(),
            r.path.display(),
            r.backup
                .map(|b| format!(" (backup: {})", b.display()))
                .unwrap_or_default()
        );
    } else {
        println!("{} already wired in {}", agent.as_str(), r.path.display());
    }
    if let Ok(store) = paths.open_store() {
        let _ = ledger(
            &store,
            "wire",
            serde_json::json!({"agent": agent.as_str()}),
            "none",
            "applied",
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn unwire(paths: &Paths, agent: &str, f: &FactorArgs) -> Result<ExitCode> {
    let agent: Agent = agent.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    let store = paths.open_store()?;
    let detail = serde_json::json!({"agent": agent.as_str()});
    // Taking Airlock off an agent's path is a weakening.
    let factor = require_factor(&store, f, "unwire", &detail)?;
    let r = airlock_wire::unwire(agent, &home(paths)?, &wire_opts()?)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    ledger(&store, "unwire", detail, factor, "applied")?;
    println!("unwired {} from {}", agent.as_str(), r.path.display());
    Ok(ExitCode::SUCCESS)
}

fn ask(question: &str) -> Result<String> {
    use std::io::Write as _;
    print!("{question}");
    std::io::stdout().flush()?;
    read_line_stdin()
}

/// First-time setup. With a terminal and no flags it asks: password (twice), mode, and for
/// each installed agent whether to wire it.
pub fn setup(
    paths: &Paths,
    from_stdin: bool,
    mode: Option<String>,
    wire_agents: Vec<String>,
) -> Result<ExitCode> {
    let store = paths.open_store()?;
    if !factors::password_is_set(&store)? {
        password_set(paths, from_stdin)?;
    } else {
        println!("password already set");
    }
    let interactive = !from_stdin && std::io::stdin().is_terminal();
    let mode = match mode {
        None if interactive => {
            let m = ask("Strictness mode: light, balanced, strict or paranoid [balanced]: ")?;
            Some(if m.trim().is_empty() {
                "balanced".to_owned()
            } else {
                m.trim().to_owned()
            })
        }
        m => m,
    };
    let wire_agents = if wire_agents.is_empty() && interactive {
        let home = home(paths)?;
        let mut chosen = Vec::new();
        for a in Agent::ALL
            .into_iter()
            .filter(|a| *a != Agent::VsCode && airlock_wire::is_installed(*a, &home))
        {
            let yn = ask(&format!(
                "Found {}. Put Airlock on its path? [Y/n]: ",
                a.as_str()
            ))?;
            if !yn.trim().to_ascii_lowercase().starts_with('n') {
                chosen.push(a.as_str().to_owned());
            }
        }
        chosen
    } else {
        wire_agents
    };
    if let Some(m) = mode {
        let to: Mode = m.parse()?;
        let from = settings::dials(&store)?.mode;
        if to < from {
            bail!(
                "setup only raises the mode; lowering it needs `airlock mode {to}` with your factor"
            );
        }
        dials::change(&store, Dial::Mode, to.as_str(), None, "cli")?;
        println!("mode: {to}");
    }
    let home = home(paths)?;
    let agents: Vec<Agent> = if wire_agents.iter().any(|a| a == "detected") {
        // VS Code runs the Claude Code and Copilot hook files, so it is never wired on its own.
        Agent::ALL
            .into_iter()
            .filter(|a| *a != Agent::VsCode && airlock_wire::is_installed(*a, &home))
            .collect()
    } else {
        wire_agents
            .iter()
            .map(|a| a.parse::<Agent>().map_err(|e| anyhow::anyhow!("{e}")))
            .collect::<Result<_>>()?
    };
    for a in agents {
        wire(paths, a.as_str())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `airlock policy review`: how the policy file compares with what the ledger approved.
pub fn policy_review(paths: &Paths, json: bool) -> Result<ExitCode> {
    let store = paths.open_store()?;
    let r = airlock_core::policy_file::review(&store, paths)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else if r.is_clean() {
        println!(
            "The policy file ({}) is in force as written.",
            paths.config_file().display()
        );
    } else {
        println!(
            "The policy file ({}) differs from what you approved:",
            paths.config_file().display()
        );
        for p in &r.pending {
            println!("  not applied (loosens, needs approval): {p}");
        }
        for k in &r.kept {
            println!("  still in force (removed from the file, removal needs approval): {k}");
        }
        println!(
            "Run `airlock policy approve` to approve the file as it is (your factor is needed)."
        );
    }
    Ok(if r.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `airlock policy approve`: approve the policy file as it is now (the factor when it loosens
/// anything), ledgered.
pub fn policy_approve(paths: &Paths, f: &FactorArgs) -> Result<ExitCode> {
    let store = paths.open_store()?;
    let r = airlock_core::policy_file::review(&store, paths)?;
    let proof = if r.is_clean() {
        None
    } else {
        for p in &r.pending {
            println!("approving (loosens): {p}");
        }
        for k in &r.kept {
            println!("approving the removal of: {k}");
        }
        Some(gather_proof(&store, f).context("refused")?)
    };
    let after =
        airlock_core::policy_file::approve(&store, paths, &r.digest, proof.as_ref(), "cli")?;
    println!(
        "Approved: the policy file is in force as written{}.",
        if after.is_clean() {
            ""
        } else {
            " (it changed meanwhile: review it again)"
        }
    );
    Ok(ExitCode::SUCCESS)
}
