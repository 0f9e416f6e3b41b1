//! `airlock init` (a starter gateway config from the agents' MCP servers) and `airlock scan`
//! (a read-only report of this machine's agent setup). The logic is in `airlock-core`
//! (`gateway_init`, `scan`); this adds the files, the wiring state from `airlock-wire`, and
//! the words on the terminal.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use airlock_core::scan::{self, AgentState, Severity, Wired};
use airlock_core::{Level, Paths, gateway_init, paths};
use airlock_wire::Agent;
use anyhow::{Context, Result, bail};

fn home(paths: &Paths) -> Result<PathBuf> {
    paths
        .home
        .clone()
        .context("cannot find your home directory")
}

fn shown(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rel) => format!("~/{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

/// Writes `text` to `path`: a new file unless `force` (then replaced atomically, a symlink at
/// `path` replaced rather than followed). Readable by the user only.
fn write_config(path: &Path, text: &str, force: bool) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    if !force {
        let mut f = match opts.create_new(true).open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => bail!(
                "{} already exists: pass --force to overwrite it",
                path.display()
            ),
            Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
        };
        f.write_all(text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        return Ok(());
    }
    let name = path
        .file_name()
        .context("the output path names no file")?
        .to_string_lossy()
        .into_owned();
    let tmp = path.with_file_name(format!(".{name}.airlock-new"));
    let _ = std::fs::remove_file(&tmp);
    let mut f = opts
        .create_new(true)
        .open(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))
}

/// `airlock init [--output PATH] [--force]`.
pub fn init(paths: &Paths, output: Option<PathBuf>, force: bool) -> Result<ExitCode> {
    let home = home(paths)?;
    let project = std::env::current_dir().ok();
    let out = output.unwrap_or_else(|| paths.config_dir.join("gateway.toml"));
    if !force && std::fs::symlink_metadata(&out).is_ok() {
        bail!(
            "{} already exists: pass --force to overwrite it",
            out.display()
        );
    }
    let (r, problems) = gateway_init::from_agent_configs(&home, project.as_deref());
    write_config(&out, &r.text, force)?;
    println!("wrote {}", out.display());
    if r.usable() {
        println!("  servers: {}", r.servers.join(", "));
    } else {
        println!(
            "  no MCP server the gateway can run was found: the file holds a commented example"
        );
    }
    for (who, why) in &r.skipped {
        println!("  not added: {who}: {why}");
    }
    for p in &problems {
        println!("  skipped {}: {}", shown(&p.path, &home), p.message);
    }
    if !r.variables.is_empty() {
        let names: Vec<&str> = r.variables.keys().map(String::as_str).collect();
        println!(
            "  no secret was copied; export these before starting it: {}",
            names.join(" ")
        );
    }
    println!(
        "next: airlock gateway --config {} --check, then point your agents at `airlock gateway --config {}`",
        out.display(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Each agent: installed, and wired in its user file or (system level) its system hook file.
fn agent_states(home: &Path) -> Vec<AgentState> {
    let bin = paths::self_binary().ok();
    let system = Level::installed() == Level::System;
    Agent::ALL
        .into_iter()
        .map(|agent| {
            let installed = airlock_wire::is_installed(agent, home);
            let wired = match (&bin, installed) {
                (_, false) => Wired::No,
                (None, true) => Wired::Unknown("the airlock binary's path is unknown".into()),
                (Some(bin), true) => {
                    let system_file = system.then(|| airlock_wire::system::is_wired(agent, bin));
                    match (airlock_wire::is_wired(agent, home, bin), system_file) {
                        (Ok(true), _) | (_, Some(Ok(true))) => Wired::Yes,
                        (Err(e), _) => Wired::Unknown(e.to_string()),
                        (Ok(false), _) => Wired::No,
                    }
                }
            };
            AgentState {
                agent: agent.as_str(),
                installed,
                wired,
            }
        })
        .collect()
}

/// `airlock scan [--json]`: exit 0 when nothing high-risk was found, 1 otherwise.
pub fn scan(paths: &Paths, json: bool) -> Result<ExitCode> {
    let home = home(paths)?;
    let project = std::env::current_dir().ok();
    let agents = agent_states(&home);
    // At the system level the store belongs to the service (unreadable here); at user level
    // it is read, never created.
    let store = if Level::installed() == Level::User {
        paths.open_existing_store().ok()
    } else {
        None
    };
    let r = scan::scan(&home, project.as_deref(), agents, store.as_ref())?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        print_report(&r, &home);
    }
    Ok(if r.has_high() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_report(r: &scan::Report, home: &Path) {
    println!("Airlock scan of {} (read-only)", home.display());
    println!();
    println!("Agents");
    for a in &r.agents {
        let state = match (a.installed, &a.wired) {
            (false, _) => "not installed".to_owned(),
            (true, Wired::Yes) => "installed, Airlock wired".to_owned(),
            (true, Wired::No) => "installed, NOT wired".to_owned(),
            (true, Wired::Unknown(why)) => format!("installed, wiring unknown: {why}"),
        };
        println!("  {:<12} {state}", a.agent);
    }
    println!();
    if r.mcp_servers.is_empty() {
        println!("MCP servers: none found in the agents' configs");
    } else {
        println!("MCP servers");
        for s in &r.mcp_servers {
            let route = match (s.disabled, s.through_airlock) {
                (true, _) => "disabled",
                (false, true) => "through Airlock",
                (false, false) => "direct",
            };
            println!(
                "  {:<12} {:<24} {:<8} {:<16} {} ({})",
                s.agent, s.name, s.transport, route, s.source, s.scope
            );
        }
    }
    println!();
    println!(
        "Findings: {} high, {} medium, {} low, {} info",
        r.count(Severity::High),
        r.count(Severity::Medium),
        r.count(Severity::Low),
        r.count(Severity::Info)
    );
    for f in &r.findings {
        println!(
            "  {:<6} {:<30} {}",
            f.severity.as_str().to_ascii_uppercase(),
            f.code,
            f.subject
        );
        println!("         {}", f.explanation);
    }
    println!();
    if r.has_high() {
        println!("High-risk findings: see above (exit status 1).");
    } else {
        println!("Nothing high-risk found.");
    }
}
