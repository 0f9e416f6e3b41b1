//! Copies of decisions and ledger events for a team's collector or SIEM: one event model
//! ([`Event`]) feeds the JSONL copy (`[audit] jsonl`), OpenTelemetry logs over OTLP/HTTP
//! (`[export.otlp]`) and CEF over syslog (`[export.syslog]`). The schema is `docs/export.md`.
//!
//! Exporting is a copy: the SQLite audit log and ledger stay the record. Each destination has
//! its own background thread behind a bounded queue ([`QUEUE`]); a hook call only ever does a
//! non-blocking `try_send`, so a destination that is down or slow can never block, slow or
//! change a verdict. What could not be queued is counted as dropped, what the destination
//! refused as failed ([`stats`], shown by `airlock status`).
//!
//! Nothing exported carries a payload: codes, names, verdicts and keyed hashes only (the
//! session id is sent as a keyed hash). At user level a destination is a loosening part of the
//! policy file (data leaving the machine), approved with `airlock policy approve`.

pub mod cef;
mod otlp;
mod syslog;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};

use airlock_engine::{Action, Engine, OtlpConfig, SyslogConfig};
use airlock_store::{DecisionRow, LedgerRow, Store};
use serde::{Deserialize, Serialize};

/// Events waiting per destination; more are dropped (and counted).
pub const QUEUE: usize = 1024;
/// Destinations kept alive at once (a changed config starts new ones; the oldest go).
const MAX_DESTINATIONS: usize = 8;
/// Settings key of the last ledger row exported (per store).
pub const LEDGER_CURSOR_KEY: &str = "export:ledger_seq";

/// One judged call, as exported (no payloads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionEvent {
    pub ts_ms: i64,
    /// The agent (`claude-code`, `cursor`, …, `mcp-proxy`).
    pub host: String,
    /// Keyed hash of the host's session id (32 hex).
    pub session_hash: String,
    /// What the call was (`shell`, `read`, `write`, `mcp`, `prompt_turn`, `tool_result`, …).
    pub kind: String,
    pub tool: String,
    pub verdict: String,
    /// After the enforcement dial.
    pub effective: String,
    pub outcome: String,
    pub reasons: Vec<String>,
    /// Keyed hash of what the call does.
    pub args_hash: String,
    pub mode: String,
}

/// One ledger row, as exported (kind, actor, outcome and the chain; never the detail).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LedgerEvent {
    pub ts_ms: i64,
    pub seq: i64,
    pub kind: String,
    pub actor: String,
    pub factor: String,
    pub outcome: String,
    pub hash: String,
    pub prev_hash: String,
}

/// What is exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Decision(DecisionEvent),
    Ledger(LedgerEvent),
}

/// What an export thread is handed: an event, or a request to say when all before it went.
pub(crate) enum Msg {
    /// Boxed, so each of a queue's [`QUEUE`] slots stays small.
    Event(Box<Event>),
    Flush(SyncSender<()>),
}

impl DecisionEvent {
    pub fn from_row(engine: &Engine, row: &DecisionRow) -> DecisionEvent {
        DecisionEvent {
            ts_ms: row.ts_ms,
            host: row.host.clone(),
            session_hash: session_hash(engine, &row.host, &row.session_id),
            kind: row.action_kind.clone(),
            tool: row.tool.clone(),
            verdict: row.verdict.clone(),
            effective: row.effective.clone(),
            outcome: row.outcome.as_str().to_owned(),
            reasons: row.reasons.clone(),
            args_hash: row.args_hash.clone(),
            mode: row.mode.clone(),
        }
    }
}

impl LedgerEvent {
    pub fn from_row(row: &LedgerRow) -> LedgerEvent {
        LedgerEvent {
            ts_ms: row.entry.ts_ms,
            seq: row.seq,
            kind: row.entry.kind.clone(),
            actor: row.entry.actor.clone(),
            factor: row.entry.factor.clone(),
            outcome: row.entry.outcome.clone(),
            hash: row.hash.clone(),
            prev_hash: row.prev_hash.clone(),
        }
    }
}

/// Keyed hash of a session id (the same session gives the same hash on this machine).
pub fn session_hash(engine: &Engine, host: &str, session_id: &str) -> String {
    engine
        .key()
        .fingerprint(&format!("session\u{0}{host}\u{0}{session_id}"))
}

/// How one destination is doing (for `airlock status`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DestinationStats {
    /// `otlp <url>` or `syslog <udp|tcp>://<address>`.
    pub destination: String,
    pub sent: u64,
    /// Not queued: the queue was full (the destination is down or slow).
    pub dropped: u64,
    /// Queued but refused or unreachable when sent.
    pub failed: u64,
    /// The last failure, as a short message (never a payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    sent: AtomicU64,
    dropped: AtomicU64,
    failed: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl Counters {
    pub(crate) fn sent(&self, n: u64) {
        self.sent.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn failed(&self, n: u64, error: &str) {
        self.failed.fetch_add(n, Ordering::Relaxed);
        if let Ok(mut e) = self.last_error.lock() {
            *e = Some(error.chars().take(200).collect());
        }
    }
}

struct Destination {
    name: String,
    tx: SyncSender<Msg>,
    counters: Arc<Counters>,
}

impl Destination {
    fn send(&self, e: Event) {
        match self.tx.try_send(Msg::Event(Box::new(e))) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                let n = self.counters.dropped.fetch_add(1, Ordering::Relaxed);
                if n.is_power_of_two() {
                    tracing::warn!(destination = %self.name, dropped = n + 1, "export queue full; events dropped");
                }
            }
        }
    }

    fn stats(&self) -> DestinationStats {
        DestinationStats {
            destination: self.name.clone(),
            sent: self.counters.sent.load(Ordering::Relaxed),
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            failed: self.counters.failed.load(Ordering::Relaxed),
            last_error: self.counters.last_error.lock().ok().and_then(|e| e.clone()),
        }
    }
}

/// Destinations by their configuration (serialised), oldest first.
type Registry = Vec<(String, Arc<Destination>)>;

fn registry() -> &'static Mutex<Registry> {
    static REG: OnceLock<Mutex<Registry>> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(Vec::new()))
}

fn context() -> &'static OnceLock<String> {
    static LEVEL: OnceLock<String> = OnceLock::new();
    &LEVEL
}

/// Name this process's protection level (`user` / `system`) for the exported resource
/// (`airlock.protection_level`). Set once, before the first event.
pub fn set_protection_level(level: &str) {
    let _ = context().set(level.to_owned());
}

pub(crate) fn protection_level() -> String {
    context()
        .get()
        .cloned()
        .unwrap_or_else(|| "user".to_owned())
}

/// This machine's host name (`-` when unknown).
pub(crate) fn host_name() -> String {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .map(|s| s.trim().to_owned())
            .ok()
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic()))
            .unwrap_or_else(|| "-".to_owned())
    })
    .clone()
}

enum Target<'a> {
    Otlp(&'a OtlpConfig),
    Syslog(&'a SyslogConfig),
}

fn destination(t: Target<'_>) -> Option<Arc<Destination>> {
    let key = match t {
        Target::Otlp(o) => format!("otlp {}", serde_json::to_string(o).ok()?),
        Target::Syslog(s) => format!("syslog {}", serde_json::to_string(s).ok()?),
    };
    let mut reg = registry().lock().ok()?;
    if let Some((_, d)) = reg.iter().find(|(k, _)| *k == key) {
        return Some(d.clone());
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE);
    let counters = Arc::new(Counters::default());
    let (name, started) = match t {
        Target::Otlp(o) => (
            format!("otlp {}", o.endpoint),
            otlp::start(o.clone(), rx, counters.clone()),
        ),
        Target::Syslog(s) => (
            format!("syslog {}://{}", s.transport.as_str(), s.address),
            syslog::start(s.clone(), rx, counters.clone()),
        ),
    };
    if let Err(e) = started {
        // The thread could not start: the destination stays, every event counted as dropped.
        tracing::error!(error = %e, destination = %name, "an export thread could not start");
        counters.failed(0, "the export thread could not start");
    }
    let d = Arc::new(Destination { name, tx, counters });
    if reg.len() >= MAX_DESTINATIONS {
        reg.remove(0);
    }
    reg.push((key, d.clone()));
    Some(d)
}

fn send(engine: &Engine, e: &Event) {
    let cfg = &engine.policy().export;
    if let Some(o) = &cfg.otlp
        && let Some(d) = destination(Target::Otlp(o))
    {
        d.send(e.clone());
    }
    if let Some(s) = &cfg.syslog
        && let Some(d) = destination(Target::Syslog(s))
    {
        d.send(e.clone());
    }
}

/// Copy one audit row to every configured destination: the JSONL file (with the arguments
/// or result only when `[audit]` asks, redacted), OTLP and syslog (never either). Never
/// blocks on a destination and never fails.
pub fn decision(engine: &Engine, row: &DecisionRow, action: Option<&Action>, result: Option<&str>) {
    let ev = DecisionEvent::from_row(engine, row);
    crate::audit_jsonl::append(engine, row, action, result);
    if !engine.policy().export.is_empty() {
        send(engine, &Event::Decision(ev));
    }
}

/// Copy ledger rows after the store's export cursor ([`LEDGER_CURSOR_KEY`]) to every
/// destination, and move the cursor. With no destination and no JSONL file configured the
/// cursor stays where it is (and rows are sent once one is). Returns how many were copied.
/// Cheap when nothing is new (one indexed read of the chain's head).
pub fn ledger_catch_up(engine: &Engine, store: &Store) -> usize {
    let p = engine.policy();
    if p.export.is_empty() && p.audit.jsonl.is_none() {
        return 0;
    }
    let cursor = store
        .setting(LEDGER_CURSOR_KEY)
        .ok()
        .flatten()
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or(0);
    let Ok((head, _)) = store.ledger_head() else {
        return 0;
    };
    if head <= cursor {
        return 0;
    }
    let Ok(rows) = store.ledger() else {
        return 0;
    };
    let mut n = 0;
    let mut last = cursor;
    for row in rows.iter().filter(|r| r.seq > cursor) {
        let ev = LedgerEvent::from_row(row);
        crate::audit_jsonl::append_ledger(engine, &ev);
        if !p.export.is_empty() {
            send(engine, &Event::Ledger(ev));
        }
        last = row.seq;
        n += 1;
    }
    if let Err(e) = store.set_setting(LEDGER_CURSOR_KEY, &last.to_string()) {
        tracing::warn!(
            code = e.code(),
            "the ledger export cursor could not be saved"
        );
    }
    n
}

/// Wait (at most `max` in all) until every destination has handled what was queued before
/// this call. For a process about to exit (the MCP proxy, the service stopping); never on a
/// hook's path.
pub fn flush(max: std::time::Duration) {
    let deadline = std::time::Instant::now() + max;
    let dests: Vec<Arc<Destination>> = registry()
        .lock()
        .map(|r| r.iter().map(|(_, d)| d.clone()).collect())
        .unwrap_or_default();
    let mut waits = Vec::new();
    for d in dests {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        // A full queue: wait for room, as long as the deadline allows.
        let mut msg = Msg::Flush(tx);
        loop {
            match d.tx.try_send(msg) {
                Ok(()) => {
                    waits.push(rx);
                    break;
                }
                Err(TrySendError::Full(m)) if !left.is_zero() => {
                    if std::time::Instant::now() >= deadline {
                        break;
                    }
                    msg = m;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(_) => break,
            }
        }
    }
    for rx in waits {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let _ = rx.recv_timeout(left);
    }
}

/// How each destination started in this process is doing.
pub fn stats() -> Vec<DestinationStats> {
    registry()
        .lock()
        .map(|r| r.iter().map(|(_, d)| d.stats()).collect())
        .unwrap_or_default()
}

/// Milliseconds since the epoch as RFC 3339 UTC with milliseconds
/// (`2026-01-02T03:04:05.678Z`).
pub fn rfc3339_ms(ts_ms: i64) -> String {
    let secs = ts_ms.div_euclid(1000);
    let ms = ts_ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        tod / 3600,
        (tod % 3600) / 60,
        tod % 60
    )
}

/// Attributes shared by every exporter, in one place: (name, value) pairs of an event.
pub(crate) fn attributes(e: &Event) -> BTreeMap<&'static str, AttrValue> {
    let mut m = BTreeMap::new();
    match e {
        Event::Decision(d) => {
            m.insert("airlock.event", AttrValue::Str("decision".into()));
            m.insert("airlock.verdict", AttrValue::Str(d.verdict.clone()));
            m.insert(
                "airlock.effective_verdict",
                AttrValue::Str(d.effective.clone()),
            );
            m.insert("airlock.outcome", AttrValue::Str(d.outcome.clone()));
            m.insert("airlock.reasons", AttrValue::List(d.reasons.clone()));
            m.insert("airlock.agent", AttrValue::Str(d.host.clone()));
            m.insert("airlock.tool", AttrValue::Str(d.tool.clone()));
            m.insert("airlock.action_kind", AttrValue::Str(d.kind.clone()));
            m.insert(
                "airlock.session_hash",
                AttrValue::Str(d.session_hash.clone()),
            );
            m.insert("airlock.args_hash", AttrValue::Str(d.args_hash.clone()));
            m.insert("airlock.mode", AttrValue::Str(d.mode.clone()));
        }
        Event::Ledger(l) => {
            m.insert("airlock.event", AttrValue::Str("ledger".into()));
            m.insert("airlock.ledger.seq", AttrValue::Int(l.seq));
            m.insert("airlock.ledger.kind", AttrValue::Str(l.kind.clone()));
            m.insert("airlock.ledger.actor", AttrValue::Str(l.actor.clone()));
            m.insert("airlock.ledger.factor", AttrValue::Str(l.factor.clone()));
            m.insert("airlock.ledger.outcome", AttrValue::Str(l.outcome.clone()));
            m.insert("airlock.ledger.hash", AttrValue::Str(l.hash.clone()));
            m.insert(
                "airlock.ledger.prev_hash",
                AttrValue::Str(l.prev_hash.clone()),
            );
        }
    }
    m
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AttrValue {
    Str(String),
    Int(i64),
    List(Vec<String>),
}

/// The short text of an event (OTLP body, CEF name).
pub(crate) fn summary(e: &Event) -> String {
    match e {
        Event::Decision(d) => format!("{} {} {}", d.tool, d.verdict, d.outcome),
        Event::Ledger(l) => format!("ledger {} {}", l.kind, l.outcome),
    }
}

#[cfg(test)]
mod tests;
