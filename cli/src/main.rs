//! `airlock`: the command-line face of Airlock.
//!
//! Exit codes: 0 success; 1 bad input or an error (the message names the problem);
//! 2 reserved for hook denials (see `airlock hook`, issue #3).

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use airlock_cli::eval;
use airlock_engine::{
    Action, Engine, FingerprintKey, Host, HostFacts, Mode, Policy, PolicyConfig, SessionState,
};
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

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
    /// Replay a labelled corpus of hook events and report ASR / FPR.
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
    },
    /// Explain, in plain words, what Airlock would decide for one shell command.
    Check {
        /// Strictness mode (light, balanced, strict, paranoid).
        #[arg(long, default_value = "balanced")]
        mode: String,
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
}

fn engine_for(mode: &str) -> Result<Engine> {
    let mode: Mode = mode.parse()?;
    let facts = HostFacts {
        home: std::env::var("HOME").ok(),
        protected_paths: Vec::new(),
    };
    let policy = Policy::compile(&PolicyConfig::default(), &facts)?.with_mode(mode);
    // Eval and check are stateless: a fixed key is fine, nothing is stored.
    Ok(Engine::new(policy, FingerprintKey::new([0; 32]))?)
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Eval { corpus, mode, json } => {
            let engine = engine_for(&mode)?;
            let text = std::fs::read_to_string(&corpus)
                .with_context(|| format!("reading corpus {}", corpus.display()))?;
            let report = eval::evaluate(&engine, &text)
                .with_context(|| format!("corpus {}", corpus.display()))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", eval::render_text(&report));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            mode,
            cwd,
            json,
            command,
        } => {
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
            if json {
                println!("{}", serde_json::to_string_pretty(&d)?);
            } else {
                println!("{}", d.verdict);
                for r in &d.reasons {
                    println!("  {:<5} {:<28} {}", r.verdict, r.code, r.message);
                }
                if d.reasons.is_empty() {
                    println!("  routine: no rule objects");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
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
