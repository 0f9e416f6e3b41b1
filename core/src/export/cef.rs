//! CEF (ArcSight Common Event Format, version 0) lines in RFC 5424 syslog messages.
//!
//! `CEF:0|Airlock|Airlock|<version>|<signature id>|<name>|<severity>|<extensions>`: in header
//! fields `\` and `|` are escaped with a backslash; in extension values `\` and `=` are, and
//! line breaks become `\n` / `\r`. Keys are CEF's own where one fits (`rt`, `act`,
//! `outcome`, `cat`, `reason`, `suser`, `dvchost`) and labelled custom strings otherwise.
//! The mapping is in `docs/export.md`.

use super::{DecisionEvent, Event, LedgerEvent, host_name, rfc3339_ms};

/// Syslog facility 13, "log audit" (RFC 5424 §6.2.1).
pub const FACILITY: u8 = 13;

/// A CEF header field: `\` → `\\`, `|` → `\|`, line breaks → space.
pub fn escape_header(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A CEF extension value: `\` → `\\`, `=` → `\=`, LF → `\n`, CR → `\r`.
pub fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '=' => out.push_str("\\="),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// CEF severity (0–10) of an event.
pub fn severity(e: &Event) -> u8 {
    match e {
        Event::Decision(d) => match (d.verdict.as_str(), d.outcome.as_str()) {
            ("BLOCK", _) => 8,
            (_, "bypassed") => 9,
            ("AUTH", _) => 5,
            _ => 2,
        },
        Event::Ledger(l) if l.kind.starts_with("tamper") => 9,
        Event::Ledger(l) if l.outcome == "refused" => 6,
        Event::Ledger(_) => 3,
    }
}

/// Syslog severity (RFC 5424) of an event: warning, notice or informational.
fn syslog_severity(e: &Event) -> u8 {
    match severity(e) {
        9.. => 2,
        7..=8 => 4,
        4..=6 => 5,
        _ => 6,
    }
}

fn ext(out: &mut Vec<String>, key: &str, value: &str) {
    out.push(format!("{key}={}", escape_value(value)));
}

fn decision_ext(d: &DecisionEvent, out: &mut Vec<String>) {
    ext(out, "rt", &d.ts_ms.to_string());
    ext(out, "dvchost", &host_name());
    ext(out, "act", &d.outcome);
    ext(out, "outcome", &d.outcome);
    ext(out, "cat", &d.kind);
    ext(out, "reason", &d.reasons.join(","));
    ext(out, "cs1Label", "verdict");
    ext(out, "cs1", &d.verdict);
    ext(out, "cs2Label", "effectiveVerdict");
    ext(out, "cs2", &d.effective);
    ext(out, "cs3Label", "tool");
    ext(out, "cs3", &d.tool);
    ext(out, "cs4Label", "agent");
    ext(out, "cs4", &d.host);
    ext(out, "cs5Label", "sessionHash");
    ext(out, "cs5", &d.session_hash);
    ext(out, "cs6Label", "argsHash");
    ext(out, "cs6", &d.args_hash);
    ext(out, "flexString1Label", "mode");
    ext(out, "flexString1", &d.mode);
}

fn ledger_ext(l: &LedgerEvent, out: &mut Vec<String>) {
    ext(out, "rt", &l.ts_ms.to_string());
    ext(out, "dvchost", &host_name());
    ext(out, "act", &l.kind);
    ext(out, "outcome", &l.outcome);
    ext(out, "cat", "ledger");
    ext(out, "suser", &l.actor);
    ext(out, "cn1Label", "ledgerSeq");
    ext(out, "cn1", &l.seq.to_string());
    ext(out, "cs1Label", "factor");
    ext(out, "cs1", &l.factor);
    ext(out, "cs5Label", "chainHash");
    ext(out, "cs5", &l.hash);
    ext(out, "cs6Label", "prevHash");
    ext(out, "cs6", &l.prev_hash);
}

/// The CEF line of an event.
pub fn line(e: &Event) -> String {
    let (sig, name) = match e {
        Event::Decision(d) => (
            format!("decision:{}", d.outcome),
            format!("{} {} ({})", d.tool, d.outcome, d.verdict),
        ),
        Event::Ledger(l) => (
            format!("ledger:{}", l.kind),
            format!("ledger {} {}", l.kind, l.outcome),
        ),
    };
    let mut x = Vec::new();
    match e {
        Event::Decision(d) => decision_ext(d, &mut x),
        Event::Ledger(l) => ledger_ext(l, &mut x),
    }
    format!(
        "CEF:0|Airlock|Airlock|{}|{}|{}|{}|{}",
        escape_header(env!("CARGO_PKG_VERSION")),
        escape_header(&sig),
        escape_header(&name),
        severity(e),
        x.join(" ")
    )
}

/// The RFC 5424 syslog message carrying the CEF line (no trailing newline):
/// `<PRI>1 TIMESTAMP HOSTNAME airlock PROCID MSGID - CEF:0|…`.
pub fn syslog_message(e: &Event) -> String {
    let pri = u16::from(FACILITY) * 8 + u16::from(syslog_severity(e));
    let (ts, msgid) = match e {
        Event::Decision(d) => (d.ts_ms, "decision"),
        Event::Ledger(l) => (l.ts_ms, "ledger"),
    };
    format!(
        "<{pri}>1 {} {} airlock {} {msgid} - {}",
        rfc3339_ms(ts),
        host_name(),
        std::process::id(),
        line(e)
    )
}
