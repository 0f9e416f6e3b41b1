//! `airlock log` and `airlock policy-history`: the audit log and the ledger, read from the
//! store (user level) or, through [`LogSource`], from the guard service (system level).

use airlock_core::Paths;
use airlock_store::{DecisionFilter, DecisionRow, Outcome, Store};
use anyhow::{Result, bail};
use clap::Args;
use std::process::ExitCode;

pub fn policy_history(paths: &Paths, verify: bool, json: bool) -> Result<ExitCode> {
    let store = paths.open_store()?;
    print_history(&store.ledger()?, &store.verify_ledger()?, verify, json)
}

/// `policy-history` from rows and the chain's status (read from the store, or at the system
/// level from the guard service).
pub fn print_history(
    rows: &[airlock_store::LedgerRow],
    status: &airlock_store::LedgerStatus,
    verify: bool,
    json: bool,
) -> Result<ExitCode> {
    if verify {
        if json {
            println!("{}", serde_json::to_string_pretty(status)?);
        } else if status.intact {
            println!(
                "ledger intact: {} entries, hash chain verified",
                status.rows
            );
        } else {
            println!(
                "LEDGER TAMPERED: first bad entry {}: {}",
                status.first_bad_seq.map_or("?".into(), |s| s.to_string()),
                status.problem.clone().unwrap_or_default()
            );
        }
        return Ok(if status.intact {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if json {
        println!("{}", serde_json::to_string_pretty(rows)?);
    } else {
        println!(
            "  SEQ  TIME                 CHANGE       RESULT   FACTOR         BY       DETAIL"
        );
        for r in rows {
            println!(
                "{:>5}  {:<19}  {:<12} {:<8} {:<14} {:<8} {}",
                r.seq,
                when(r.entry.ts_ms),
                r.entry.kind,
                r.entry.outcome,
                r.entry.factor,
                r.entry.actor,
                detail_text(&r.entry)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A ledger row's detail for the table: an allow rule in words, anything else as recorded.
fn detail_text(e: &airlock_store::LedgerEntry) -> String {
    if matches!(e.kind.as_str(), "allow" | "allow_remove")
        && let Ok(rule) =
            serde_json::from_value::<airlock_core::settings::AllowRule>(e.detail.clone())
        && rule.scope.is_some()
    {
        return rule.describe();
    }
    e.detail.to_string()
}

#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// Keep printing new decisions as they arrive.
    #[arg(long)]
    pub follow: bool,
    #[arg(long)]
    pub host: Option<String>,
    #[arg(long)]
    pub session: Option<String>,
    /// PASS, AUTH or BLOCK.
    #[arg(long)]
    pub verdict: Option<String>,
    /// passed, blocked, approved, denied or timeout.
    #[arg(long)]
    pub outcome: Option<String>,
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
}

/// A stored time (ms since the Unix epoch) in this machine's time zone, to the second.
pub(crate) fn when(ts_ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(ts_ms) {
        Ok(t) => t
            .to_zoned(jiff::tz::TimeZone::system())
            .strftime("%Y-%m-%d %H:%M:%S")
            .to_string(),
        // Out of range: show what is stored rather than nothing.
        Err(_) => format!("@{ts_ms}ms"),
    }
}

const LOG_HEADER: &str = "    ID  TIME                 AGENT        TOOL           KIND           VERDICT OUTCOME  REASONS";

fn print_row(r: &airlock_store::DecisionRow, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
    } else {
        println!(
            "{:>6}  {:<19}  {:<12} {:<14} {:<14} {:<7} {:<8} {}",
            r.id,
            when(r.ts_ms),
            r.host,
            r.tool,
            r.action_kind,
            r.verdict,
            r.outcome.as_str(),
            r.reasons.join(",")
        );
    }
    Ok(())
}

/// Where `airlock log` reads decisions: the store, or at the system level the guard service.
pub trait LogSource {
    /// The newest rows the filter lets through, newest first.
    fn recent(&self, f: &DecisionFilter) -> Result<Vec<DecisionRow>>;
    /// Rows after id `last`, oldest first (at most `n`).
    fn after(&self, last: i64, n: usize) -> Result<Vec<DecisionRow>>;
}

impl LogSource for Store {
    fn recent(&self, f: &DecisionFilter) -> Result<Vec<DecisionRow>> {
        Ok(self.recent_decisions(f)?)
    }
    fn after(&self, last: i64, n: usize) -> Result<Vec<DecisionRow>> {
        Ok(self.decisions_after(last, n)?)
    }
}

pub fn log(paths: &Paths, a: &LogArgs) -> Result<ExitCode> {
    log_from(&paths.open_store()?, a)
}

pub fn log_from(source: &dyn LogSource, a: &LogArgs) -> Result<ExitCode> {
    let outcome = match &a.outcome {
        Some(o) => Some(o.parse::<Outcome>().map_err(|_| {
            anyhow::anyhow!("unknown outcome `{o}` (passed, blocked, approved, denied, timeout)")
        })?),
        None => None,
    };
    if let Some(v) = &a.verdict
        && !matches!(v.to_ascii_uppercase().as_str(), "PASS" | "AUTH" | "BLOCK")
    {
        bail!("unknown verdict `{v}` (PASS, AUTH, BLOCK)");
    }
    let filter = DecisionFilter {
        limit: a.limit,
        host: a.host.clone(),
        session_id: a.session.clone(),
        verdict: a.verdict.as_ref().map(|v| v.to_ascii_uppercase()),
        outcome,
        since_ms: None,
    };
    let mut rows = source.recent(&filter)?;
    rows.reverse();
    let mut last = rows.last().map_or(0, |r| r.id);
    if !a.json {
        println!("{LOG_HEADER}");
    }
    for r in &rows {
        print_row(r, a.json)?;
    }
    if a.follow {
        if last == 0 {
            last = source
                .recent(&DecisionFilter {
                    limit: 1,
                    ..Default::default()
                })?
                .first()
                .map_or(0, |r| r.id);
        }
        loop {
            std::thread::sleep(std::time::Duration::from_millis(300));
            for r in source.after(last, 500)? {
                last = r.id;
                let keep = filter.host.as_ref().is_none_or(|h| *h == r.host)
                    && filter
                        .session_id
                        .as_ref()
                        .is_none_or(|s| *s == r.session_id)
                    && filter.verdict.as_ref().is_none_or(|v| *v == r.verdict)
                    && filter.outcome.is_none_or(|o| o == r.outcome);
                if keep {
                    print_row(&r, a.json)?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
