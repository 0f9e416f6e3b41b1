//! `airlock allow list|add|remove`: the scoped allow rules. Adding one is a weakening (the
//! factor); removing one is a tightening (no factor). Both are ledgered, and the rules in force
//! are replayed from the ledger (`allow` / `allow_remove` rows). At the system level the
//! guard service makes the change (and verifies the factor) in the store it owns.
//!
//! A rule with any of `--tool`, `--kind`, `--server`, `--program`, `--path`, `--project` or
//! `--expires` is *scoped* (the popup's "always, as a rule"): it releases only the named
//! reasons, only for calls inside its scope, until it expires; before the factor is asked,
//! it is replayed against the labelled corpus built into Airlock and every known attack it
//! would let through is shown (`--dry-run` stops there).

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

// Parsed once per run: the larger variant's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
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
        /// show the codes). Repeatable for a scoped rule.
        #[arg(long = "reason", value_name = "REASON_CODE")]
        reasons: Vec<String>,
        /// Treat this destination host (or `*.suffix`) as listed; in a scoped rule, a host
        /// (glob) the call may send to. Repeatable for a scoped rule.
        #[arg(long = "host")]
        hosts: Vec<String>,
        /// Scoped: the kind of call (`shell`, `file_write`, `fetch`, `mcp_call`, …).
        #[arg(long)]
        kind: Option<String>,
        /// Scoped: the tool (glob over the host's tool name or the MCP tool).
        #[arg(long)]
        tool: Option<String>,
        /// Scoped: the MCP server (glob).
        #[arg(long)]
        server: Option<String>,
        /// Scoped: a program the call may run, `name` or `"name subcommand"`. Repeatable;
        /// every program the call runs must be listed.
        #[arg(long = "program")]
        programs: Vec<String>,
        /// Scoped: a path glob the call may touch (absolute, or relative to --project).
        /// Repeatable; every path the call touches must match one.
        #[arg(long = "path")]
        paths: Vec<String>,
        /// Scoped: the project folder the call must run in.
        #[arg(long)]
        project: Option<std::path::PathBuf>,
        /// Scoped: stop applying after this long (`12h`, `30d`, `2w`).
        #[arg(long)]
        expires: Option<String>,
        /// Show the rule and its replay against the labelled corpus; change nothing.
        #[arg(long)]
        dry_run: bool,
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

/// The rule `airlock allow add`'s flags describe (scoped when any scope flag is given).
fn rule_of(cmd: &AllowCmd) -> Result<Option<AllowRule>> {
    let AllowCmd::Add {
        reasons,
        hosts,
        kind,
        tool,
        server,
        programs,
        paths,
        project,
        expires,
        ..
    } = cmd
    else {
        return Ok(None);
    };
    let scoped = kind.is_some()
        || tool.is_some()
        || server.is_some()
        || !programs.is_empty()
        || !paths.is_empty()
        || project.is_some()
        || expires.is_some();
    if !scoped {
        if reasons.is_empty() && hosts.is_empty() {
            bail!("name what to allow: --reason REASON_CODE and/or --host HOST");
        }
        if reasons.len() > 1 || hosts.len() > 1 {
            bail!(
                "a rule without a scope takes one --reason and one --host; give --program, --path, --tool or --project to scope it"
            );
        }
        return Ok(Some(AllowRule {
            code: reasons.first().cloned(),
            host: hosts.first().cloned(),
            scope: None,
        }));
    }
    if reasons.is_empty() {
        bail!("a scoped rule names the reasons it releases: --reason REASON_CODE");
    }
    let project = match project {
        Some(p) => {
            let abs = std::path::absolute(p)?;
            let real = std::fs::canonicalize(&abs).unwrap_or(abs);
            Some(
                real.to_str()
                    .ok_or_else(|| anyhow::anyhow!("the project's path is not UTF-8"))?
                    .to_owned(),
            )
        }
        None => None,
    };
    let expires_at = match expires {
        Some(e) => Some(
            airlock_core::clock::now_unix().saturating_add(airlock_core::always::parse_expiry(e)?),
        ),
        None => None,
    };
    let scope = airlock_core::always::Scope {
        reasons: reasons.clone(),
        kind: kind.clone(),
        tool: tool.clone(),
        server: server.clone(),
        programs: programs.clone(),
        paths: paths.clone(),
        hosts: hosts.clone(),
        project,
        expires_at,
    };
    scope.validate()?;
    Ok(Some(AllowRule::scoped(scope)))
}

/// Shows a scoped rule and what it would let through of the labelled corpus.
fn show_replay(rule: &AllowRule, engine: &airlock_engine::Engine, paths: Option<&Paths>) {
    let Some(scope) = &rule.scope else {
        return;
    };
    println!("rule: {}", rule.describe());
    let custom = match paths {
        Some(p) => settings::custom_rules(p),
        None => airlock_core::custom::CustomRules::empty(),
    };
    let replay = airlock_core::always::replay(engine, &custom, scope);
    for line in airlock_core::always::replay_words(&replay) {
        println!("{line}");
    }
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
        ref add @ AllowCmd::Add {
            ref factor,
            dry_run,
            ..
        } => {
            let Some(rule) = rule_of(add)? else {
                bail!("nothing to add");
            };
            show_replay(&rule, &settings::engine(&store, paths)?, Some(paths));
            if dry_run {
                println!("dry run: nothing changed");
                return Ok(ExitCode::SUCCESS);
            }
            if settings::allow_rules(&store)?.contains(&rule) {
                println!("allow rule {} is already present", rule.id());
                return Ok(ExitCode::SUCCESS);
            }
            let proof = match cmd::gather_proof(&store, factor) {
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
        ref add @ AllowCmd::Add {
            ref factor,
            dry_run,
            ..
        } => {
            let Some(rule) = rule_of(add)? else {
                bail!("nothing to add");
            };
            let Response::Status(s) = client::call(&ep, &Request::Status, ADMIN_TIMEOUT)? else {
                bail!("the guard service answered something unexpected");
            };
            show_replay(
                &rule,
                &airlock_core::always::replay_engine(s.mode.parse()?)?,
                None,
            );
            if dry_run {
                println!("dry run: nothing changed");
                return Ok(ExitCode::SUCCESS);
            }
            let (rules, _) = ask(&ep, &Request::AllowList)?;
            if rules.iter().any(|r| r.rule == rule) {
                println!("allow rule {} is already present", rule.id());
                return Ok(ExitCode::SUCCESS);
            }
            let proof =
                factors::gather_proof(s.factor, factor.password_stdin, factor.code.clone())?;
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
