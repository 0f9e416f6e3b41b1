//! `airlock remote set|off|status`: remote approval's channel (see `airlock-remote`).
//! Setting a channel is a loosening (it opens a second way to approve and sends request
//! summaries off the machine): it needs TOTP enrolled and a current code, and is ledgered.
//! Switching it off is a raise: no factor, ledgered.

use std::process::ExitCode;

use airlock_core::remote::{self, ChannelKind, RemoteConfig};
use airlock_core::{Level, Paths};
use anyhow::{Result, bail};
use clap::Subcommand;

use crate::cmd::{self, FactorArgs};

#[derive(Debug, Subcommand)]
pub enum RemoteCmd {
    /// Show the channel in force (the default).
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Announce pending requests on a channel and accept answers from its answer topic
    /// (a loosening: needs TOTP and a current code).
    Set {
        /// What the notify URL speaks: ntfy, webhook (JSON) or slack (`{"text": …}`).
        #[arg(long, default_value = "ntfy")]
        kind: String,
        /// Where announcements are POSTed (an ntfy topic URL, a webhook URL).
        #[arg(long, value_name = "URL")]
        notify_url: String,
        /// The ntfy-style topic answers are read from (`approve <id> <code>`, `deny <id>`).
        #[arg(long, value_name = "URL")]
        answer_url: String,
        /// Announce a request only after it waited this many seconds unanswered at the desk.
        #[arg(long, value_name = "SECS", default_value_t = 0)]
        after: u64,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Stop announcing requests and reading answers (a raise: no factor).
    Off,
}

/// Runs an `airlock remote` subcommand (user level only: at the system level no desktop
/// approval service is reachable, so there is nothing to relay).
pub fn run(paths: &Paths, action: Option<RemoteCmd>) -> Result<ExitCode> {
    if Level::installed() == Level::System {
        bail!(
            "remote approval needs the desktop approval service, which the system level does not use yet"
        );
    }
    let store = paths.open_store()?;
    match action.unwrap_or(RemoteCmd::Status { json: false }) {
        RemoteCmd::Status { json } => {
            let cfg = remote::current(&store)?;
            if json {
                let shown = cfg.as_ref().map(|c| {
                    serde_json::json!({"kind": c.kind, "after_secs": c.after_secs, "describe": c.describe()})
                });
                println!("{}", serde_json::json!({ "remote_approval": shown }));
            } else {
                println!("remote approval: {}", describe(cfg.as_ref()));
            }
        }
        RemoteCmd::Set {
            kind,
            notify_url,
            answer_url,
            after,
            factor,
        } => {
            let cfg = RemoteConfig {
                kind: kind.parse::<ChannelKind>()?,
                notify_url,
                answer_url,
                after_secs: after,
            };
            // Refuse a bad channel or a missing TOTP before asking for anything.
            cfg.validate()?;
            if !airlock_core::factors::totp_enrolled(&store)? {
                bail!(
                    "remote approval needs TOTP (a password must never travel through a chat channel): run `airlock totp enroll` first"
                );
            }
            let proof = match cmd::gather_proof(&store, &factor) {
                Ok(p) => p,
                Err(e) => {
                    // Ledger the refusal, then say why.
                    let _ = remote::set(&store, &cfg, None, "cli");
                    return Err(e.context("refused"));
                }
            };
            if remote::set(&store, &cfg, Some(&proof), "cli")? {
                println!("remote approval on: {}", cfg.describe());
                println!(
                    "the Airlock app relays pending requests while it runs (restart it to pick this up)"
                );
            } else {
                println!("remote approval already set to that channel");
            }
        }
        RemoteCmd::Off => {
            if remote::off(&store, "cli")? {
                println!("remote approval off");
            } else {
                println!("remote approval was already off");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The channel in plain words, for `airlock status` too.
pub fn describe(cfg: Option<&RemoteConfig>) -> String {
    match cfg {
        Some(c) => format!("on ({})", c.describe()),
        None => "off".to_owned(),
    }
}
