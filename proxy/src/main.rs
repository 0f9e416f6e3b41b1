//! `airlock-proxy`: Airlock's MCP proxy.
//!
//! ```text
//! airlock-proxy serve [--name NAME] [--session-id ID] [--approval-timeout SECS] -- <server command> [args…]
//! airlock-proxy serve --listen 127.0.0.1:PORT [--allow-origin ORIGIN]… [--name NAME] -- <server command> [args…]
//! airlock-proxy gateway --config FILE [--session-id ID | --listen 127.0.0.1:PORT [--allow-origin ORIGIN]…] [--approval-timeout SECS]
//! airlock-proxy gateway --config FILE --check
//! airlock-proxy pins list [--json]
//! airlock-proxy pins approve <server> <tool> [--password-stdin] [--code CODE]
//! airlock-proxy pins pin --all [--server NAME] [--include-poisoned] [--json] [--password-stdin] [--code CODE]
//! ```
//!
//! `serve` speaks MCP over stdio (newline-delimited JSON-RPC) on its own stdin/stdout and runs
//! the server as a child over its stdio. With `--listen` it serves MCP's streamable HTTP on that
//! loopback address instead (endpoint `/mcp`; port 0 picks a free port, and the bound URL is
//! printed to stderr as `airlock-proxy: listening on http://…/mcp`), one server child and one
//! proxy session per MCP session, until interrupted. Logs go to stderr only (`RUST_LOG` filters them;
//! default `info` for this crate).
//!
//! Exit codes: 0 — the client closed the connection, or a `pins` command succeeded; 1 — the
//! server exited (or failed), or an error / refused approval (the message says which), or
//! `pins pin --all` left a tool unpinned.

use std::process::ExitCode;
use std::time::Duration;

use airlock_proxy::cli::FactorArgs;
use airlock_proxy::{cli, serve_http};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "airlock-proxy",
    version,
    about = "Airlock's MCP proxy: judges every tool call before the server sees it."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an stdio MCP server behind Airlock and speak MCP on stdin/stdout.
    Serve {
        /// Server name for decisions, sessions and pins (default: the command's file name).
        #[arg(long)]
        name: Option<String>,
        /// Session id to share memory under (default: one per proxy process).
        #[arg(long, conflicts_with = "listen")]
        session_id: Option<String>,
        /// Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:0) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
        /// With --listen: also accept requests from this browser origin (repeatable).
        #[arg(long, value_name = "ORIGIN", requires = "listen")]
        allow_origin: Vec<String>,
        /// Seconds an approval prompt may stay open before the call is denied (at most 59).
        #[arg(long, default_value_t = 55)]
        approval_timeout: u64,
        /// The server command and its arguments, after `--`.
        #[arg(required = true, last = true)]
        command: Vec<String>,
    },
    /// Aggregate several MCP servers (stdio children, streamable-HTTP remotes) from a config
    /// file into one MCP server on stdin/stdout, tools named `<server>__<tool>`.
    Gateway {
        /// The gateway configuration (TOML, or JSON with `mcpServers`).
        #[arg(long)]
        config: std::path::PathBuf,
        /// Session id to share memory under (default: one per gateway process).
        #[arg(long, conflicts_with = "listen")]
        session_id: Option<String>,
        /// Seconds an approval prompt may stay open before the call is denied (at most 59).
        #[arg(long, default_value_t = 55)]
        approval_timeout: u64,
        /// Serve MCP's streamable HTTP on this loopback address instead of stdio (one gateway,
        /// with its own servers and session, per MCP session).
        #[arg(long, value_name = "127.0.0.1:PORT")]
        listen: Option<String>,
        /// With --listen: also accept requests from this browser origin (repeatable).
        #[arg(long, value_name = "ORIGIN", requires = "listen")]
        allow_origin: Vec<String>,
        /// Only read and check the configuration (as the gateway would at start, `${VAR}`
        /// expanded from this environment), print its servers and exit: 0 when it is usable.
        #[arg(long, conflicts_with_all = ["listen", "session_id"])]
        check: bool,
    },
    /// Pinned tool definitions (rug-pull protection).
    Pins {
        #[command(subcommand)]
        action: PinsCmd,
    },
}

#[derive(Subcommand)]
enum PinsCmd {
    /// Every tool seen, with its status: approved, changed, poisoned.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Approve the last seen definition of a tool (needs your password or TOTP code).
    Approve {
        server: String,
        tool: String,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Pin every tool seen but not approved (`--all`, optionally on one server). Tools never
    /// pinned and clean are pinned at once; changed or poisoned definitions are a weakening and
    /// need your password or TOTP code; poisoned ones also need --include-poisoned. Prints what
    /// was pinned and what was refused and why; exits 1 when anything was refused.
    Pin {
        /// Every pending tool (required: there is no implicit selection).
        #[arg(long)]
        all: bool,
        /// Only this server's tools.
        #[arg(long, value_name = "NAME")]
        server: Option<String>,
        /// Also pin definitions that carry poisoning signals (read them first: `pins list`).
        #[arg(long)]
        include_poisoned: bool,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        factor: FactorArgs,
    },
}

fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("airlock_proxy=info,warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// Run a serving command on a single-threaded runtime and leave with its exit code.
fn run_async(fut: impl std::future::Future<Output = anyhow::Result<i32>>) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("airlock-proxy: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = match rt.block_on(fut) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("airlock-proxy: {e:#}");
            1
        }
    };
    // Decisions still queued for the team's collector get a short chance to go.
    airlock_core::export::flush(Duration::from_secs(2));
    // A blocking stdin reader (when stdin is not a pipe or socket) would keep the process
    // alive until the client writes again: leave at once.
    std::process::exit(code);
}

fn main() -> ExitCode {
    let args = Cli::parse();
    init_logs();
    match args.command {
        Command::Serve {
            name,
            session_id,
            listen,
            allow_origin,
            approval_timeout,
            command,
        } => {
            let serve_args = cli::ServeArgs {
                name,
                session_id,
                approval_timeout: Duration::from_secs(approval_timeout),
                command,
            };
            run_async(async move {
                match listen {
                    Some(addr) => serve_http::serve_http(serve_args, &addr, allow_origin).await,
                    None => cli::serve(serve_args).await,
                }
            })
        }
        Command::Gateway { config, check, .. } if check => match cli::gateway_check(&config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("airlock-proxy: {e:#}");
                ExitCode::from(1)
            }
        },
        Command::Gateway {
            config,
            session_id,
            approval_timeout,
            listen,
            allow_origin,
            check: _,
        } => run_async(async move {
            cli::gateway(
                cli::GatewayArgs {
                    config,
                    session_id,
                    approval_timeout: Duration::from_secs(approval_timeout),
                },
                listen.as_deref(),
                allow_origin,
            )
            .await
        }),
        Command::Pins { action } => {
            let r = match action {
                PinsCmd::List { json } => cli::pins_list(json).map(|()| true),
                PinsCmd::Approve {
                    server,
                    tool,
                    factor,
                } => cli::pins_approve(&server, &tool, &factor).map(|()| true),
                PinsCmd::Pin {
                    all,
                    server,
                    include_poisoned,
                    json,
                    factor,
                } => cli::pins_pin_all(all, server.as_deref(), include_poisoned, json, &factor),
            };
            match r {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::from(1),
                Err(e) => {
                    eprintln!("airlock-proxy: {e:#}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
        let c = Cli::try_parse_from([
            "airlock-proxy",
            "serve",
            "--name",
            "fs",
            "--",
            "npx",
            "-y",
            "server",
            "--flag",
        ])
        .unwrap();
        let Command::Serve { name, command, .. } = c.command else {
            panic!("not serve")
        };
        assert_eq!(name.as_deref(), Some("fs"));
        assert_eq!(command, ["npx", "-y", "server", "--flag"]);
        assert!(Cli::try_parse_from(["airlock-proxy", "serve"]).is_err());
        let c = Cli::try_parse_from([
            "airlock-proxy",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--allow-origin",
            "https://a.example",
            "--allow-origin",
            "https://b.example",
            "--",
            "server",
        ])
        .unwrap();
        let Command::Serve {
            listen,
            allow_origin,
            ..
        } = c.command
        else {
            panic!("not serve")
        };
        assert_eq!(listen.as_deref(), Some("127.0.0.1:0"));
        assert_eq!(allow_origin.len(), 2);
        // --allow-origin needs --listen; --session-id is per MCP session there.
        assert!(
            Cli::try_parse_from([
                "airlock-proxy",
                "serve",
                "--allow-origin",
                "https://a.example",
                "--",
                "s"
            ])
            .is_err()
        );
        assert!(
            Cli::try_parse_from([
                "airlock-proxy",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--session-id",
                "x",
                "--",
                "s"
            ])
            .is_err()
        );
    }
}
