//! `airlock`: the command-line face of Airlock.
//!
//! Exit codes: 0 success; 1 bad input, a refused weakening, or an error (the message names
//! the problem); `airlock scan` exits 1 when it reports a high-severity finding, `airlock
//! pins pin --all` when it left a tool unpinned; `airlock hook` exits 2 when it denies (see
//! `hook.rs`).

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

mod agent_cmd;
mod allow;
mod cmd;
mod demo;
mod doctor_cmd;
mod log_cmd;
mod remote_cmd;
mod rules_cmd;
mod service_cmd;
mod setup_report;

use airlock_core::{Paths, eval};
use airlock_engine::{
    Action, Engine, FingerprintKey, Host, HostFacts, Mode, Policy, PolicyConfig, SessionState,
};
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use cmd::FactorArgs;
use log_cmd::LogArgs;

#[derive(Parser)]
#[command(
    name = "airlock",
    version,
    about = "Airlock: a guardrail between AI coding agents and your machine."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a labelled corpus of hook events and report ASR / FPR. Each record is judged
    /// as on its own machine: with the home folder its working directory lies in
    /// (`/home/NAME`, `/Users/NAME`, `/root`); other records use `$HOME`.
    Eval {
        /// JSONL file: one {"id","label","category","events"} record per line.
        #[arg(long)]
        corpus: PathBuf,
        /// Strictness mode to evaluate (light, balanced, strict, paranoid).
        #[arg(long, default_value = "balanced")]
        mode: String,
        /// Print the full report as JSON.
        #[arg(long)]
        json: bool,
        /// Also judge with the custom rules (`*.cedar`) in this directory or file, and report
        /// built-in rules alone beside built-in + custom.
        #[arg(long, value_name = "DIR")]
        rules: Option<PathBuf>,
        /// Also report the baseline of no guardrail at all (everything PASS) beside Airlock.
        #[arg(long)]
        before_after: bool,
    },
    /// The policy: `review` / `approve` the policy file (`config.toml`; loosening parts need
    /// your factor), `check [FILE…]` validates custom rule files against Airlock's schema,
    /// `schema` prints it.
    Policy {
        #[command(subcommand)]
        action: PolicyCmd,
    },
    /// Installed custom rules and rule packs: list, install, remove.
    Rules {
        #[command(subcommand)]
        action: RulesCmd,
    },
    /// Explain, in plain words, what Airlock would decide for one shell command.
    Check {
        /// Strictness mode (light, balanced, strict, paranoid); default: the mode Airlock is
        /// set to (balanced when it is not set up).
        #[arg(long)]
        mode: Option<String>,
        /// Working directory the command would run in (defaults to the current one).
        #[arg(long)]
        cwd: Option<PathBuf>,
        /// Print the decision as JSON.
        #[arg(long)]
        json: bool,
        /// The command line, as the agent would run it (use `-` to read it from stdin).
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Run an MCP server behind Airlock's proxy: `airlock serve [--name NAME] -- CMD ARGS…`
    /// (runs the `airlock-proxy` binary installed next to `airlock`).
    #[command(disable_help_flag = true)]
    Serve {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Aggregate several MCP servers behind Airlock: `airlock gateway --config FILE`
    /// (runs the `airlock-proxy` binary installed next to `airlock`).
    #[command(disable_help_flag = true)]
    Gateway {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// List or approve pinned MCP tool definitions (`airlock pins list|approve SERVER TOOL`).
    #[command(disable_help_flag = true)]
    Pins {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Judge one hook event from an agent host (reads its JSON on stdin). Wired by `airlock wire`.
    Hook {
        /// claude-code, cursor, codex, gemini, copilot or vscode.
        host: String,
    },
    /// The wrapper shell for agents with no hook API: `airlock sh -c COMMAND` judges the command
    /// through the guard service and runs it in bash only when released (`airlock-sh` is the
    /// same, for an agent's `SHELL`). A command not run exits 126 with the reason on stderr.
    #[command(disable_help_flag = true)]
    Sh {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Show or change the strictness mode. Raising applies at once; lowering needs your factor.
    Mode {
        /// light, balanced, strict or paranoid.
        mode: Option<String>,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Show or change enforcement (enforce, monitor, off). Lowering needs your factor.
    Enforcement {
        value: Option<String>,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Show or switch the turn gate on what you submit to agents (on, off). Off needs your factor.
    TurnGate {
        value: Option<String>,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Show or set what tool results carrying instructions for the agent get, per source
    /// (web, file, shell, mcp): flag (the model is warned), block (withheld), off. Lowering
    /// needs your factor.
    Screening {
        /// web, file, shell or mcp.
        source: String,
        /// off, flag or block.
        value: Option<String>,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Real verdicts on a scripted series of attacks, through the real hook and the real MCP
    /// proxy in front of a deliberately malicious MCP server, on a throw-away store (nothing
    /// is run, nothing of yours is touched). Exits 1 when a step does not go as expected.
    Demo {
        #[arg(long)]
        json: bool,
    },
    /// The deliberately malicious MCP server the demo runs behind the proxy (stdio).
    #[command(hide = true)]
    DemoServer,
    /// Set or change the local password (the factor when TOTP is not enrolled).
    Password {
        #[command(subcommand)]
        action: PasswordCmd,
    },
    /// Enrol or remove TOTP (an authenticator app code becomes the factor).
    Totp {
        #[command(subcommand)]
        action: TotpCmd,
    },
    /// List, add or remove scoped allow rules. Adding is a weakening (needs your factor);
    /// removing is a tightening (no factor). Hard blocks are never allowed.
    Allow {
        #[command(subcommand)]
        action: Option<allow::AllowCmd>,
    },
    /// Remote approval: announce pending requests on a channel you choose (ntfy, a webhook,
    /// a chat webhook) and answer from your phone with a TOTP code. `set` is a loosening
    /// (needs TOTP and a code); `off` is not.
    Remote {
        #[command(subcommand)]
        action: Option<remote_cmd::RemoteCmd>,
    },
    /// System level: be your own approval agent in this terminal (as polkit's `pkttyagent`).
    /// Registers with your password or TOTP code, prints each AUTH request of yours and reads
    /// `approve ID`, `session ID` or `deny ID`, one per line, until Ctrl+D.
    Agent {
        #[command(flatten)]
        factor: cmd::FactorArgs,
    },
    /// Write a starter config for `airlock gateway --config` listing the MCP servers your
    /// agents' configs name (Claude Code, Cursor, VS Code, Gemini, Codex, Copilot). Secrets are
    /// never copied: each becomes a ${VAR} reference. Refuses to overwrite without --force.
    Init {
        /// Where to write it (default: gateway.toml in Airlock's config folder).
        #[arg(long, value_name = "PATH")]
        output: Option<PathBuf>,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Read-only report of this machine's agent setup: which agents are wired to Airlock,
    /// settings that let an agent act without asking, MCP servers not routed through
    /// Airlock's proxy, secrets in MCP configs, and unpinned or poisoned MCP tools. Every
    /// finding has a stable code, a severity and a one-line explanation; no secret value is
    /// ever printed.
    #[command(
        after_help = "Exit status: 0 when nothing high-risk is found, 1 when a high-severity finding is reported (or on an error)."
    )]
    Scan {
        #[arg(long)]
        json: bool,
    },
    /// Show the policy ledger; `--verify` checks its hash chain.
    PolicyHistory {
        #[arg(long)]
        verify: bool,
        #[arg(long)]
        json: bool,
    },
    /// Show recent decisions from the audit log.
    Log(LogArgs),
    /// Check the installation: binary, store, ledger, password, wired agents, desktop app.
    Doctor {
        #[arg(long)]
        json: bool,
    },
    /// Wire Airlock's hooks into an agent's config (claude-code, cursor, codex, gemini, copilot, vscode).
    Wire { agent: String },
    /// Remove Airlock's hooks from an agent's config (a weakening: needs your factor).
    Unwire {
        agent: String,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Run the guard service (hooks start it on demand at user level; the system package runs
    /// it as a systemd service with `--system`).
    Daemon {
        /// System level: run as the service's own user with state under /var/lib/airlock.
        #[arg(long)]
        system: bool,
        /// Exit after this many idle seconds (the next hook starts it again).
        #[arg(long, value_name = "SECS")]
        idle_exit: Option<u64>,
    },
    /// Show the protection level, the dials and any tampering the guard service has seen.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Release a session held because its hook was killed, or (`--tamper`) clear the tamper
    /// state after checking it (both need your factor).
    Release {
        /// The session id (with --host).
        #[arg(long)]
        session: Option<String>,
        #[arg(long, default_value = "claude-code")]
        host: String,
        /// Clear the tamper state.
        #[arg(long)]
        tamper: bool,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Compare a Claude Code transcript's tool calls with the audit log and list the calls
    /// that never reached Airlock (exit 1 when any did not).
    TranscriptCheck {
        /// The transcript (JSONL; hooks receive its path as `transcript_path`).
        file: PathBuf,
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Install or inspect the system protection level (root): service user, systemd unit,
    /// root-owned configuration, managed hook settings.
    System {
        #[command(subcommand)]
        action: service_cmd::SystemCmd,
    },
    /// First-time setup: password, mode, and wiring agents.
    Setup {
        #[arg(long)]
        password_stdin: bool,
        #[arg(long)]
        mode: Option<String>,
        /// Agents to wire (`detected` wires every installed agent).
        #[arg(long = "wire", value_name = "AGENT")]
        wire: Vec<String>,
    },
}

#[derive(Subcommand)]
enum PolicyCmd {
    /// Show what in the policy file is not in force yet (loosening parts not approved) and
    /// what still is although it was removed. Exits 1 when anything differs.
    Review {
        #[arg(long)]
        json: bool,
    },
    /// Approve the policy file as it is now. Loosening parts (allow lists, `pass` rules) and
    /// removed rules need your factor; the approval is ledgered.
    Approve {
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Validate rule files (default: every installed one); exit 1 when any is invalid.
    Check {
        /// Rule files or directories of them.
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Print the Cedar schema custom rules are checked against.
    Schema,
}

#[derive(Subcommand)]
enum RulesCmd {
    /// Show the installed rule files and packs, with each rule's code and verdict.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Install a rule file or a pack directory (validated first; never replaces one).
    Install {
        path: PathBuf,
        /// Name of the file or pack (default: the file's or the directory's name).
        #[arg(long)]
        name: Option<String>,
    },
    /// Remove an installed rule file or pack (a weakening: needs your factor).
    Remove {
        name: String,
        #[command(flatten)]
        factor: FactorArgs,
    },
}

#[derive(Subcommand)]
enum PasswordCmd {
    /// Set the first password.
    Set {
        #[arg(long)]
        password_stdin: bool,
    },
    /// Change it (current then new; with --password-stdin, one per line).
    Change {
        #[arg(long)]
        password_stdin: bool,
        /// Current TOTP code (at the system level, once TOTP is enrolled).
        #[arg(long, value_name = "CODE")]
        code: Option<String>,
    },
}

#[derive(Subcommand)]
enum TotpCmd {
    /// Start enrolment (prints the otpauth URI); finish with `--verify CODE`.
    Enroll {
        #[arg(long, value_name = "CODE")]
        verify: Option<String>,
        /// Also write the QR code as a PNG file.
        #[arg(long, value_name = "FILE")]
        qr: Option<PathBuf>,
        #[arg(long)]
        password_stdin: bool,
        /// Keep the secret sealed in the store even if an OS keyring exists.
        #[arg(long)]
        no_keyring: bool,
    },
    /// Remove TOTP (needs a current code and the password).
    Remove {
        #[command(flatten)]
        factor: FactorArgs,
    },
}

fn engine_for(mode: &str) -> Result<Engine> {
    engine_for_home(mode, std::env::var("HOME").ok())
}

/// [`engine_for`] with this home folder (`eval` judges each record under its own).
fn engine_for_home(mode: &str, home: Option<String>) -> Result<Engine> {
    let mode: Mode = mode.parse()?;
    let facts = HostFacts {
        home,
        protected_paths: Vec::new(),
    };
    let policy = Policy::compile(&PolicyConfig::default(), &facts)?.with_mode(mode);
    // Eval and check are stateless: a fixed key is fine, nothing is stored.
    Ok(Engine::new(policy, FingerprintKey::new([0; 32]))?)
}

/// Writes `text` to stdout; a reader that went away (`airlock check … | head`) ends the
/// output quietly instead of a panic.
fn emit(text: &str) -> Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e).context("writing to stdout"),
    }
}

/// The mode `airlock check` explains by default: the one Airlock is set to (from the service
/// at system level, from the verified ledger at user level), balanced when not set up.
fn configured_mode() -> String {
    if airlock_core::Level::installed() == airlock_core::Level::System {
        let status = airlock_service::Endpoint::discover(None).and_then(|ep| {
            airlock_service::client::call(
                &ep,
                &airlock_service::Request::Status,
                std::time::Duration::from_secs(5),
            )
        });
        if let Ok(airlock_service::Response::Status(s)) = status {
            return s.mode;
        }
        return "balanced".to_owned();
    }
    Paths::discover()
        .ok()
        .filter(|p| p.db.exists())
        .and_then(|p| p.open_store().ok())
        .and_then(|s| airlock_core::settings::dials(&s).ok())
        .map_or_else(|| "balanced".to_owned(), |d| d.mode.to_string())
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Eval {
            corpus,
            mode,
            json,
            rules,
            before_after,
        } => {
            let engine = engine_for(&mode)?;
            let text = std::fs::read_to_string(&corpus)
                .with_context(|| format!("reading corpus {}", corpus.display()))?;
            let custom = match &rules {
                Some(dir) => {
                    let files = if dir.is_dir() {
                        airlock_core::custom::cedar_files_in(dir)
                            .with_context(|| format!("listing {}", dir.display()))?
                    } else {
                        vec![dir.clone()]
                    };
                    let c = airlock_core::custom::CustomRules::from_files(&files);
                    if c.invalid() {
                        for p in c.problems() {
                            eprintln!("{p}");
                        }
                        anyhow::bail!("the rules in {} do not validate", dir.display());
                    }
                    Some(c)
                }
                None => None,
            };
            // Each record as on its own machine: the home folder its working directory is in.
            let make = |home: &str| engine_for_home(&mode, Some(home.to_owned())).ok();
            let per_home = eval::PerHome { make: &make };
            let opts = eval::Options {
                custom: custom.as_ref(),
                before_after,
                per_home: Some(&per_home),
            };
            let report = eval::evaluate_with(&engine, &text, opts)
                .with_context(|| format!("corpus {}", corpus.display()))?;
            if json {
                emit(&(serde_json::to_string_pretty(&report)? + "\n"))?;
            } else {
                emit(&eval::render_text(&report))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            mode,
            cwd,
            json,
            command,
        } => {
            let mode = match mode {
                Some(m) => m,
                None => configured_mode(),
            };
            let engine = engine_for(&mode)?;
            let text = if command.len() == 1 && command.first().is_some_and(|c| c == "-") {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .context("reading the command from stdin")?;
                s
            } else {
                command.join(" ")
            };
            let cwd = match cwd {
                Some(c) => c,
                None => std::env::current_dir().context("finding the current directory")?,
            };
            let action = Action::shell(Host::Cli, text, Some(&cwd.to_string_lossy()));
            let d = engine.decide(&action, &SessionState::default());
            let mut out = String::new();
            if json {
                out.push_str(&serde_json::to_string_pretty(&d)?);
                out.push('\n');
            } else {
                out.push_str(&format!("{}\n", d.verdict));
                for r in &d.reasons {
                    out.push_str(&format!(
                        "  {:<5} {:<28} {}\n",
                        r.verdict, r.code, r.message
                    ));
                }
                if d.reasons.is_empty() {
                    out.push_str("  routine: no rule objects\n");
                }
            }
            emit(&out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Hook { host } => {
            airlock_service::hook_client::run(&host, std::env::current_exe().ok())
        }
        Command::Sh { args } => {
            airlock_service::shell_client::run(args, std::env::current_exe().ok())
        }
        Command::Demo { json } => demo::run(json),
        Command::DemoServer => demo::server(),
        Command::Daemon { system, idle_exit } => service_cmd::daemon(system, idle_exit),
        Command::Status { json } => service_cmd::status(json),
        Command::Release {
            session,
            host,
            tamper,
            factor,
        } => service_cmd::release(session, &host, tamper, &factor),
        Command::System { action } => service_cmd::system(action),
        Command::TranscriptCheck {
            file,
            session,
            json,
        } => service_cmd::transcript_check(&file, session, json),
        Command::Serve { args } => run_proxy("serve", &args),
        Command::Pins { args } => run_proxy("pins", &args),
        Command::Gateway { args } => run_proxy("gateway", &args),
        Command::Allow { action } => allow::run(&Paths::discover()?, action),
        Command::Remote { action } => remote_cmd::run(&Paths::discover()?, action),
        Command::Agent { factor } => agent_cmd::run(factor),
        Command::Init { output, force } => setup_report::init(&Paths::discover()?, output, force),
        Command::Scan { json } => setup_report::scan(&Paths::discover()?, json),
        Command::Policy {
            action: PolicyCmd::Check { files, json },
        } => rules_cmd::policy_check(&files, json),
        Command::Policy {
            action: PolicyCmd::Schema,
        } => rules_cmd::policy_schema(),
        Command::Rules { action } => match action {
            RulesCmd::List { json } => rules_cmd::list(json),
            RulesCmd::Install { path, name } => rules_cmd::install(&path, name),
            RulesCmd::Remove { name, factor } => rules_cmd::remove(&name, &factor),
        },
        other => {
            let paths = Paths::discover()?;
            if airlock_core::Level::installed() == airlock_core::Level::System {
                return service_cmd::system_level_command(
                    &paths,
                    other_name(&other),
                    || match other {
                        Command::Mode { mode, factor } => {
                            service_cmd::dial(&paths, "mode", mode, &factor)
                        }
                        Command::Enforcement { value, factor } => {
                            service_cmd::dial(&paths, "enforcement", value, &factor)
                        }
                        Command::TurnGate { value, factor } => {
                            service_cmd::dial(&paths, "turn_gate", value, &factor)
                        }
                        Command::Screening {
                            source,
                            value,
                            factor,
                        } => service_cmd::dial(
                            &paths,
                            &format!("screening.{source}"),
                            value,
                            &factor,
                        ),
                        Command::Password {
                            action: PasswordCmd::Set { password_stdin },
                        } => service_cmd::password_set(password_stdin),
                        Command::Totp {
                            action:
                                TotpCmd::Enroll {
                                    verify,
                                    qr,
                                    password_stdin,
                                    ..
                                },
                        } => service_cmd::totp_enroll(verify, qr, password_stdin),
                        Command::Totp {
                            action: TotpCmd::Remove { factor },
                        } => service_cmd::totp_remove(&factor),
                        Command::Password {
                            action:
                                PasswordCmd::Change {
                                    password_stdin,
                                    code,
                                },
                        } => service_cmd::password_change(password_stdin, code),
                        Command::Setup {
                            password_stdin,
                            mode,
                            wire,
                        } => service_cmd::setup(&paths, password_stdin, mode, wire),
                        Command::Wire { agent } => cmd::wire(&paths, &agent),
                        Command::Doctor { .. } => service_cmd::status(false),
                        Command::Log(a) => service_cmd::log(&a),
                        Command::PolicyHistory { verify, json } => {
                            service_cmd::policy_history(verify, json)
                        }
                        _ => Ok(ExitCode::from(1)),
                    },
                );
            }
            match other {
                Command::Mode { mode, factor } => service_cmd::dial(&paths, "mode", mode, &factor),
                Command::Enforcement { value, factor } => {
                    service_cmd::dial(&paths, "enforcement", value, &factor)
                }
                Command::TurnGate { value, factor } => {
                    service_cmd::dial(&paths, "turn_gate", value, &factor)
                }
                Command::Screening {
                    source,
                    value,
                    factor,
                } => service_cmd::dial(&paths, &format!("screening.{source}"), value, &factor),
                Command::Password {
                    action: PasswordCmd::Set { password_stdin },
                } => cmd::password_set(&paths, password_stdin),
                Command::Password {
                    action: PasswordCmd::Change { password_stdin, .. },
                } => cmd::password_change(&paths, password_stdin),
                Command::Totp {
                    action:
                        TotpCmd::Enroll {
                            verify,
                            qr,
                            password_stdin,
                            no_keyring,
                        },
                } => cmd::totp_enroll(&paths, verify, qr, password_stdin, no_keyring),
                Command::Totp {
                    action: TotpCmd::Remove { factor },
                } => cmd::totp_remove(&paths, &factor),
                Command::PolicyHistory { verify, json } => {
                    log_cmd::policy_history(&paths, verify, json)
                }
                Command::Policy {
                    action: PolicyCmd::Review { json },
                } => cmd::policy_review(&paths, json),
                Command::Policy {
                    action: PolicyCmd::Approve { factor },
                } => cmd::policy_approve(&paths, &factor),
                Command::Log(a) => log_cmd::log(&paths, &a),
                Command::Doctor { json } => doctor_cmd::doctor(&paths, json),
                Command::Wire { agent } => cmd::wire(&paths, &agent),
                Command::Unwire { agent, factor } => cmd::unwire(&paths, &agent, &factor),
                Command::Setup {
                    password_stdin,
                    mode,
                    wire,
                } => cmd::setup(&paths, password_stdin, mode, wire),
                Command::Eval { .. }
                | Command::Policy { .. }
                | Command::Rules { .. }
                | Command::Check { .. }
                | Command::Hook { .. }
                | Command::Sh { .. }
                | Command::Serve { .. }
                | Command::Gateway { .. }
                | Command::Pins { .. }
                | Command::Demo { .. }
                | Command::DemoServer
                | Command::Allow { .. }
                | Command::Remote { .. }
                | Command::Agent { .. }
                | Command::Init { .. }
                | Command::Scan { .. }
                | Command::Daemon { .. }
                | Command::Status { .. }
                | Command::Release { .. }
                | Command::System { .. }
                | Command::TranscriptCheck { .. } => Ok(ExitCode::from(1)),
            }
        }
    }
}

/// The command's name, for messages.
fn other_name(c: &Command) -> &'static str {
    match c {
        Command::Mode { .. } => "mode",
        Command::Enforcement { .. } => "enforcement",
        Command::TurnGate { .. } => "turn-gate",
        Command::Policy { .. } => {
            "policy (the system policy file is root-owned and in force as written)"
        }
        Command::Screening { .. } => "screening",
        Command::Password {
            action: PasswordCmd::Set { .. },
        } => "password set",
        Command::Totp {
            action: TotpCmd::Enroll { .. },
        } => "totp enroll",
        Command::Password {
            action: PasswordCmd::Change { .. },
        } => "password change",
        Command::Totp {
            action: TotpCmd::Remove { .. },
        } => "totp remove",
        Command::Setup { .. } => "setup",
        Command::Wire { .. } => "wire",
        Command::Doctor { .. } => "doctor",
        Command::Log(_) => "log",
        Command::PolicyHistory { .. } => "policy-history",
        _ => "",
    }
}

/// The proxy is its own binary (it links tokio; `airlock hook` must not), installed next to
/// `airlock`. Hand the arguments over unchanged.
fn run_proxy(sub: &str, args: &[String]) -> Result<ExitCode> {
    let me = std::env::current_exe().context("finding the airlock binary")?;
    let name = if cfg!(windows) {
        "airlock-proxy.exe"
    } else {
        "airlock-proxy"
    };
    let proxy = me.with_file_name(name);
    if !proxy.is_file() {
        anyhow::bail!("{} is not installed next to {}", name, me.display());
    }
    // The proxy replaces this process (same pid): killing `airlock serve` kills the proxy,
    // which stops its MCP server, and nothing is left running behind it.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let e = std::process::Command::new(&proxy)
            .arg(sub)
            .args(args)
            .exec();
        Err(e).with_context(|| format!("running {}", proxy.display()))
    }
    #[cfg(not(unix))]
    {
        let status = std::process::Command::new(&proxy)
            .arg(sub)
            .args(args)
            .status()
            .with_context(|| format!("running {}", proxy.display()))?;
        Ok(match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(c) => ExitCode::from(u8::try_from(c).unwrap_or(1)),
            None => ExitCode::from(1),
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("airlock: {e:#}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Clap's own consistency checks over every subcommand (a duplicated option name, such as
    /// `allow` once declaring `--code` twice, panics only when that subcommand is run).
    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
        for args in [
            &["airlock", "allow"][..],
            &[
                "airlock", "allow", "add", "--reason", "x", "--code", "123456",
            ],
            &["airlock", "allow", "remove", "abcd1234"],
            &["airlock", "remote"],
            &["airlock", "remote", "off"],
            &[
                "airlock",
                "remote",
                "set",
                "--kind",
                "ntfy",
                "--notify-url",
                "https://ntfy.sh/a",
                "--answer-url",
                "https://ntfy.sh/b",
                "--after",
                "60",
                "--code",
                "123456",
            ],
            &["airlock", "init", "--output", "g.toml", "--force"],
            &["airlock", "scan", "--json"],
        ] {
            assert!(Cli::try_parse_from(args).is_ok(), "{args:?}");
        }
        assert!(Cli::try_parse_from(["airlock", "allow", "remove"]).is_err());
    }
}
