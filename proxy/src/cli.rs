//! The `airlock-proxy` commands: `serve` (the proxy itself) and `pins list|approve`.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use airlock_core::{Paths, clock, factors};
use airlock_store::{LedgerEntry, Store};
use anyhow::{Context, Result, bail};

use crate::guard::Guard;
pub use crate::names::{ServeArgs, default_server_name, process_session_id, valid_server_name};
use crate::pins;
use crate::proxy::{self, Ended, Options};

/// How the user proves possession for a weakening (`pins approve`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FactorArgs {
    /// Read the password from the first line of standard input.
    #[arg(long)]
    pub password_stdin: bool,
    /// Current TOTP code (required once TOTP is enrolled).
    #[arg(long, value_name = "CODE")]
    pub code: Option<String>,
}

pub struct GatewayArgs {
    pub config: std::path::PathBuf,
    pub session_id: Option<String>,
    pub approval_timeout: Duration,
}

/// Start a stdio MCP server as a child (stderr inherited, killed if dropped).
fn spawn_stdio(
    program: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&Path>,
) -> Result<(
    tokio::process::Child,
    tokio::process::ChildStdout,
    tokio::process::ChildStdin,
)> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting the MCP server `{program}`"))?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        bail!("the MCP server's stdio could not be connected");
    };
    Ok((child, child_out, child_in))
}

/// Wait a moment for a child whose input closed, then kill it.
async fn reap(mut child: tokio::process::Child) -> Option<std::process::ExitStatus> {
    match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(Ok(s)) => Some(s),
        _ => {
            tracing::warn!("an MCP server did not exit after its input closed; killing it");
            let _ = child.kill().await;
            None
        }
    }
}

/// Run the gateway: every configured server behind its own proxy session, all sharing one
/// Airlock session (so what one server's results taught — a secret read, untrusted content —
/// raises the floor for every other server's calls). Over stdio, or with `listen`, behind the
/// streamable-HTTP front with one gateway (and one set of servers) per MCP session.
pub async fn gateway(
    a: GatewayArgs,
    listen: Option<&str>,
    allow_origin: Vec<String>,
) -> Result<i32> {
    let cfg = Arc::new(crate::config::GatewayConfig::load(&a.config)?);
    // Fail closed: no store or policy → refuse to start.
    drop(Guard::open("gateway", "startup-check")?);
    let timeout = a.approval_timeout;
    match listen {
        None => {
            let session_id = a
                .session_id
                .unwrap_or_else(|| process_session_id("gateway"));
            let ended = gateway_session(
                &cfg,
                &session_id,
                timeout,
                crate::stdio::stdin(),
                crate::stdio::stdout(),
            )
            .await?;
            Ok(match ended {
                Ended::ClientClosed => 0,
                Ended::ServerClosed => 1,
            })
        }
        Some(listen) => {
            if a.session_id.is_some() {
                bail!(
                    "--session-id cannot be combined with --listen: each HTTP session has its own"
                );
            }
            let addr = crate::serve_http::parse_listen(listen)?;
            crate::serve_http::check_origins(&allow_origin)?;
            let factory: crate::http_front::SessionFactory = Arc::new(
                move |sid: String, duplex: tokio::io::DuplexStream| {
                    let cfg = Arc::clone(&cfg);
                    Box::pin(async move {
                        let (r, w) = tokio::io::split(duplex);
                        if let Err(e) = gateway_session(&cfg, &sid, timeout, r, w).await {
                            tracing::error!(session = sid.get(..8).unwrap_or(""), error = %format!("{e:#}"), "gateway session failed");
                        }
                    })
                },
            );
            crate::serve_http::front(addr, allow_origin, factory, "gateway").await
        }
    }
}

/// `gateway --config FILE --check`: read and compile the configuration exactly as the gateway
/// does at start (variables expanded from this environment) and list its servers. Starts
/// nothing and needs no store.
pub fn gateway_check(config: &Path) -> Result<()> {
    let cfg = crate::config::GatewayConfig::load(config)?;
    println!("{}: ok, {} server(s)", config.display(), cfg.servers.len());
    for s in &cfg.servers {
        let kind = match &s.transport {
            crate::config::Transport::Stdio { .. } => "stdio",
            crate::config::Transport::Http { .. } => "http",
        };
        println!("  {:<24} {kind}", s.name);
    }
    Ok(())
}

/// One gateway session: start every server, run the multiplexer until the client leaves or
/// every server is gone, then reap the children.
async fn gateway_session<CR, CW>(
    cfg: &crate::config::GatewayConfig,
    session_id: &str,
    approval_timeout: Duration,
    client_in: CR,
    client_out: CW,
) -> Result<Ended>
where
    CR: tokio::io::AsyncRead + Unpin + Send + 'static,
    CW: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut upstreams = Vec::new();
    let mut sessions = Vec::new();
    let mut children = Vec::new();
    for s in &cfg.servers {
        let guard = Arc::new(Guard::open(&s.name, session_id)?);
        // The gateway file's own limits first, then the policy file's `[mcp]` rates.
        let limits = s
            .limits
            .clone()
            .with_policy(&s.name, &guard.policy_config()?.mcp)
            .map_err(|e| anyhow::anyhow!("the policy file: {e}"))?;
        let opts = Options {
            approval_timeout: approval_timeout.min(proxy::MAX_APPROVAL),
            limits,
            ..Options::default()
        };
        let (mux_end, proxy_end) = tokio::io::duplex(1 << 20);
        let (pr, pw) = tokio::io::split(proxy_end);
        match &s.transport {
            crate::config::Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let (child, out, inp) = spawn_stdio(command, args, env, cwd.as_deref())
                    .with_context(|| format!("server `{}`", s.name))?;
                children.push(child);
                sessions.push(tokio::spawn(proxy::run(pr, pw, out, inp, guard, opts)));
            }
            crate::config::Transport::Http { url, headers } => {
                let remote = crate::http_remote::connect(url, headers, Default::default())
                    .await
                    .with_context(|| format!("server `{}`: connecting to its URL", s.name))?;
                let (rr, rw) = tokio::io::split(remote);
                sessions.push(tokio::spawn(proxy::run(pr, pw, rr, rw, guard, opts)));
            }
        }
        let (mr, mw) = tokio::io::split(mux_end);
        upstreams.push(crate::gateway::Upstream {
            name: s.name.clone(),
            read: Box::new(mr),
            write: Box::new(mw),
        });
        tracing::info!(server = %s.name, "gateway server started");
    }
    tracing::info!(servers = upstreams.len(), "gateway session started");
    let ended = crate::gateway::run(
        client_in,
        client_out,
        upstreams,
        crate::gateway::GatewayOptions::default(),
    )
    .await;
    for s in sessions {
        let _ = tokio::time::timeout(Duration::from_secs(5), s).await;
    }
    for c in children {
        reap(c).await;
    }
    Ok(ended)
}

/// Run the proxy in front of `command`; returns the process exit code.
pub async fn serve(a: ServeArgs) -> Result<i32> {
    let Some((program, args)) = a.command.split_first() else {
        bail!("no server command given: airlock-proxy serve [--name NAME] -- <command> [args…]");
    };
    let server = a.name.unwrap_or_else(|| default_server_name(program));
    if !valid_server_name(&server) {
        bail!("server name `{server}` must be 1–64 characters of A–Z, a–z, 0–9, `-`, `_` or `.`");
    }
    let session_id = a.session_id.unwrap_or_else(|| process_session_id(&server));
    // Fail closed: without the store and policy nothing could be judged, so refuse to start.
    // A missing store is never silently recreated (it would forget the mode, the ledger and
    // the password): `airlock setup` makes it. At the system level the guard service judges.
    let guard = Arc::new(Guard::open(&server, &session_id)?);
    // The stop signals are caught before the server starts: a SIGTERM arriving between the
    // spawn and the first wait would otherwise kill this process by default and leave the
    // server running behind it.
    let stop = StopSignals::install();
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting the MCP server `{program}`"))?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        bail!("the MCP server's stdio could not be connected");
    };
    tracing::info!(server = %server, session = %session_id, "proxy started");
    // The policy file's `[mcp]` rates (server/tool globs, a default).
    let limits = crate::config::RateLimits::default()
        .with_policy(&server, &guard.policy_config()?.mcp)
        .map_err(|e| anyhow::anyhow!("the policy file: {e}"))?;
    let opts = Options {
        approval_timeout: a.approval_timeout.min(proxy::MAX_APPROVAL),
        limits,
        ..Options::default()
    };
    let run = proxy::run(
        crate::stdio::stdin(),
        crate::stdio::stdout(),
        child_out,
        child_in,
        guard,
        opts,
    );
    // Stopped by a signal (the client's `kill`, a terminal closing): the server goes too,
    // so no MCP server is left running behind a proxy that is gone.
    let ended = tokio::select! {
        e = run => e,
        sig = stop.wait() => {
            tracing::info!(signal = sig, "stopping: the MCP server is stopped too");
            let _ = child.kill().await;
            return Ok(143);
        }
    };
    match ended {
        Ended::ClientClosed => {
            match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
                Ok(_) => {}
                Err(_) => {
                    tracing::warn!(
                        "the MCP server did not exit after its input closed; killing it"
                    );
                    let _ = child.kill().await;
                }
            }
            Ok(0)
        }
        Ended::ServerClosed => {
            let status = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            match status {
                Ok(Ok(s)) if s.success() => Ok(0),
                Ok(Ok(s)) => {
                    tracing::warn!(status = %s, "the MCP server exited");
                    Ok(1)
                }
                _ => {
                    let _ = child.kill().await;
                    Ok(1)
                }
            }
        }
    }
}

pub fn pins_list(json: bool) -> Result<()> {
    let paths = Paths::discover()?;
    let store = paths.open_existing_store()?;
    let rows = pins::list(&store)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    if rows.is_empty() {
        println!("no tool definitions pinned yet");
    }
    for r in rows {
        let short = |h: &Option<String>| {
            h.as_deref()
                .map_or("-".to_owned(), |h| h.chars().take(12).collect())
        };
        println!(
            "{:<20} {:<32} {:<9} pinned {:<12} seen {:<12} {}",
            r.server,
            r.tool,
            r.status,
            short(&r.pinned),
            short(&r.seen),
            r.poison.join(",")
        );
    }
    Ok(())
}

fn ledger(store: &Store, detail: &serde_json::Value, factor: &str, outcome: &str) -> Result<()> {
    store.append_ledger(&LedgerEntry {
        ts_ms: clock::now_ms(),
        kind: "pin".to_owned(),
        detail: detail.clone(),
        actor: "airlock-proxy".to_owned(),
        factor: factor.to_owned(),
        outcome: outcome.to_owned(),
    })?;
    Ok(())
}

/// Approve the last seen definition of a tool. A weakening: needs the factor, ledgered
/// either way.
pub fn pins_approve(server: &str, tool: &str, f: &FactorArgs) -> Result<()> {
    let paths = Paths::discover()?;
    let store = paths.open_existing_store()?;
    let Some(seen) = pins::seen(&store, server, tool)? else {
        bail!("no definition of `{tool}` on server `{server}` has been seen: nothing to approve");
    };
    let key = pins::pin_key(server, tool);
    let old = store.setting(&key)?;
    if old.as_deref() == Some(seen.hash.as_str()) {
        println!("{server}/{tool} is already approved");
        return Ok(());
    }
    let detail = serde_json::json!({
        "action": "approve",
        "server": server,
        "tool": tool,
        "from": old,
        "to": seen.hash,
        "poison": seen.poison,
    });
    let proof = factors::gather_proof(factors::needs(&store)?, f.password_stdin, f.code.clone())?;
    let factor = match factors::verify(&store, &proof, clock::now_unix()) {
        Ok(name) => name,
        Err(e) => {
            ledger(&store, &detail, "none", "refused")?;
            bail!("refused: {e}");
        }
    };
    store.set_setting(&key, &seen.hash)?;
    ledger(&store, &detail, factor, "applied")?;
    println!("approved the current definition of {server}/{tool}");
    Ok(())
}

/// `pins pin --all`: pins every pending tool it may (see [`pins::pin_all`]). Returns whether
/// everything planned was pinned.
pub fn pins_pin_all(
    all: bool,
    server: Option<&str>,
    include_poisoned: bool,
    json: bool,
    f: &FactorArgs,
) -> Result<bool> {
    if !all {
        bail!(
            "say which tools: --all (optionally with --server NAME), or `pins approve SERVER TOOL` for one"
        );
    }
    let paths = Paths::discover()?;
    let store = paths.open_existing_store()?;
    let plan = pins::plan_pin_all(&store, server)?;
    if plan.is_empty() {
        if json {
            println!("[]");
        } else {
            println!("nothing to pin: every tool seen is approved");
        }
        return Ok(true);
    }
    let weakening: Vec<&pins::PlannedPin> = plan
        .iter()
        .filter(|p| p.needs_factor() && (include_poisoned || p.poison.is_empty()))
        .collect();
    let proof = if weakening.is_empty() {
        None
    } else {
        if !json {
            eprintln!(
                "{} tool definition(s) changed or carry poisoning signals; approving them needs your factor:",
                weakening.len()
            );
            for p in &weakening {
                eprintln!("  {}/{}: {}", p.server, p.tool, p.pending.describe());
            }
        }
        // Without a factor the clean tools are still pinned and the others refused (ledgered).
        match factors::gather_proof(factors::needs(&store)?, f.password_stdin, f.code.clone()) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("airlock-proxy: no factor: {e}");
                None
            }
        }
    };
    let results = pins::pin_all(
        &store,
        plan,
        proof.as_ref(),
        include_poisoned,
        "airlock-proxy",
    )?;
    if json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        for r in &results {
            let name = format!("{}/{}", r.plan.server, r.plan.tool);
            let signals = if r.plan.poison.is_empty() {
                String::new()
            } else {
                format!(" [{}]", r.plan.poison.join(", "))
            };
            match (&r.refused, &r.factor) {
                (None, factor) => println!(
                    "pinned   {name:<40} {}{signals}{}",
                    r.plan.pending.describe(),
                    match factor.as_deref() {
                        Some("none") | None => String::new(),
                        Some(f) => format!(" (approved with your {f})"),
                    }
                ),
                (Some(why), _) => println!(
                    "refused  {name:<40} {}{signals}: {why}",
                    r.plan.pending.describe()
                ),
            }
        }
    }
    Ok(results.iter().all(|r| r.pinned))
}

/// The signals that ask the process to stop (SIGTERM, SIGINT, SIGHUP), caught from the
/// moment they are installed.
struct StopSignals {
    #[cfg(unix)]
    signals: Option<(
        tokio::signal::unix::Signal,
        tokio::signal::unix::Signal,
        tokio::signal::unix::Signal,
    )>,
}

impl StopSignals {
    fn install() -> StopSignals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let signals = match (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
                signal(SignalKind::hangup()),
            ) {
                (Ok(t), Ok(i), Ok(h)) => Some((t, i, h)),
                // Without handlers the default actions still stop the process.
                _ => None,
            };
            StopSignals { signals }
        }
        #[cfg(not(unix))]
        {
            StopSignals {}
        }
    }

    /// Resolves when one arrives; names it.
    async fn wait(mut self) -> &'static str {
        #[cfg(unix)]
        {
            let Some((term, int, hup)) = self.signals.as_mut() else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
                _ = hup.recv() => "SIGHUP",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = &mut self;
            let _ = tokio::signal::ctrl_c().await;
            "ctrl-c"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names() {
        assert_eq!(
            default_server_name("/usr/bin/mcp-server-filesystem"),
            "mcp-server-filesystem"
        );
        assert_eq!(default_server_name("npx"), "npx");
        assert_eq!(default_server_name("C:/x/server.exe"), "server");
        assert_eq!(default_server_name(""), "mcp");
        assert!(valid_server_name("filesystem"));
        assert!(valid_server_name("my_server.v2"));
        assert!(!valid_server_name("a:b"));
        assert!(!valid_server_name(""));
        assert!(process_session_id("fs").starts_with("fs-"));
    }
}
