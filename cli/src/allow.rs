//! `airlock allow list|add|remove`: the scoped allow rules. Adding one is a weakening (the
//! factor); removing one is a tightening (no factor). Both are ledgered, and the rules in force
//! are replayed from the ledger (`allow` / `allow_remove` rows). At the system level the
//! guard service makes the change (and verifies the factor) in the store it owns.

use std::process::ExitCode;
use std::time::Duration;

use airlock_core::dials;
use airlock_core::settings::{self, AllowRule, ListedAllowRule};
use airlock_core::{Level, Paths, factors};
use airlock_service::{Endpoint, Request, Response, client};
use anyhow::{Result, bail};
use clap::Subcommand;

use crate::cmd::{self, FactorArgs};

const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Subcommand)]
pub enum AllowCmd {
    /// List the rules with their IDs (the default).
    List {
        #[arg(long)]
        json: bool,
    },
    /// Add a rule (a weakening: needs your factor). Hard blocks are never allowed.
    Add {
        /// Let AUTH findings with this reason code pass (`airlock check` and `airlock log`
        /// show the codes).
        #[arg(long, value_name = "REASON_CODE")]
        reason: Option<String>,
        /// Treat this destination host (or `*.suffix`) as listed.
        #[arg(long)]
        host: Option<String>,
        #[command(flatten)]
        factor: FactorArgs,
    },
    /// Remove the rule with this ID (from `airlock allow list`; a tightening: no factor).
    Remove {
        /// The rule's ID, or a unique prefix of at least 4 digits.
        id: String,
    },
}

fn print_rules(rules: &[ListedAllowRule], json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(rules)?);
        return Ok(());
    }
    if rules.is_empty() {
        println!("no allow rules");
        return Ok(());
    }
    println!("{:<8}  RULE", "ID");
    for r in rules {
        println!("{:<8}  {}", r.id, r.rule.describe());
    }
    Ok(())
}

fn rule_of(reason: Option<String>, host: Option<String>) -> Result<AllowRule> {
    if reason.is_none() && host.is_none() {
        bail!("name what to allow: --reason REASON_CODE and/or --host HOST");
    }
    Ok(AllowRule { code: reason, host })
}

/// Runs an `airlock allow` subcommand at the level installed on this machine.
pub fn run(paths: &Paths, action: Option<AllowCmd>) -> Result<ExitCode> {
    let action = action.unwrap_or(AllowCmd::List { json: false });
    if Level::installed() == Level::System {
        return system(action);
    }
    let store = paths.open_store()?;
    match action {
        AllowCmd::List { json } => print_rules(&settings::listed_allow_rules(&store)?, json)?,
        AllowCmd::Add {
            reason,
            host,
            factor,
        } => {
            let rule = rule_of(reason, host)?;
            if settings::allow_rules(&store)?.contains(&rule) {
                println!("allow rule {} is already present", rule.id());
                return Ok(ExitCode::SUCCESS);
            }
            let proof = match cmd::gather_proof(&store, &factor) {
                Ok(p) => p,
                Err(e) => {
                    // Ledger the refusal, then say why (e.g. "no terminal: pass --password-stdin").
                    let _ = dials::add_allow_rule(&store, rule, None, "cli");
                    return Err(e.context("refused"));
                }
            };
            let id = rule.id();
            dials::add_allow_rule(&store, rule, Some(&proof), "cli")?;
            println!("allow rule {id} added (hard blocks are never allowed)");
        }
        AllowCmd::Remove { id } => {
            let rule = dials::remove_allow_rule_by_id(&store, &id, "cli")?;
            println!("allow rule {} removed ({})", rule.id(), rule.describe());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The same through the system-level guard service.
fn system(action: AllowCmd) -> Result<ExitCode> {
    let ep = Endpoint::discover(std::env::current_exe().ok())?;
    let request = match action {
        AllowCmd::List { json } => {
            let (rules, _) = ask(&ep, &Request::AllowList)?;
            print_rules(&rules, json)?;
            return Ok(ExitCode::SUCCESS);
        }
        AllowCmd::Add {
            reason,
            host,
            factor,
        } => {
            let rule = rule_of(reason, host)?;
            let (rules, _) = ask(&ep, &Request::AllowList)?;
            if rules.iter().any(|r| r.rule == rule) {
                println!("allow rule {} is already present", rule.id());
                return Ok(ExitCode::SUCCESS);
            }
            let Response::Status(s) = client::call(&ep, &Request::Status, ADMIN_TIMEOUT)? else {
                bail!("the guard service answered something unexpected");
            };
            let proof = factors::gather_proof(s.factor, factor.password_stdin, factor.code)?;
            Request::AllowAdd {
                rule,
                proof: Some(proof),
            }
        }
        AllowCmd::Remove { id } => Request::AllowRemove { id },
    };
    let removing = matches!(request, Request::AllowRemove { .. });
    match ask(&ep, &request)? {
        (_, Some(r)) if removing => {
            println!("allow rule {} removed ({})", r.id, r.rule.describe())
        }
        (_, Some(r)) => println!("allow rule {} added (hard blocks are never allowed)", r.id),
        (_, None) => println!("nothing changed"),
    }
    Ok(ExitCode::SUCCESS)
}

fn ask(
    ep: &Endpoint,
    request: &Request,
) -> Result<(Vec<ListedAllowRule>, Option<ListedAllowRule>)> {
    match client::call(ep, request, ADMIN_TIMEOUT)? {
        Response::AllowRules { rules, changed } => Ok((rules, changed)),
        _ => bail!("the guard service answered something unexpected"),
    }
}
