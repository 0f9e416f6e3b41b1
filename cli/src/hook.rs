//! `airlock hook <host>`: the hot path. Reads one payload from stdin (bounded), answers with
//! exactly one JSON object on stdout in the host's format, logs only to stderr.
//!
//! Fail closed everywhere: unreadable input, a store that cannot be opened, a policy that
//! cannot be loaded, a panic, or the watchdog firing all end in a deny.
//!
//! Exit codes: 0 — answered (the JSON says allow/no-opinion/ask/deny, per host contract);
//! 2 — denied (hosts that read the exit code block the call; the reason is on stderr).

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use airlock_engine::{Action, Decision, Engine, Host, Verdict};
use airlock_hooks::claude::Event;
use airlock_hooks::{HookAnswer, HookCall, HookOutcome, MAX_PAYLOAD_BYTES};
use airlock_store::{DecisionRow, Outcome, Store};

use crate::app::{self, Paths};

/// The hook answers well before hosts' own timeouts (wiring sets 30 s): past this budget the
/// watchdog denies.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// How long a hook waits for a human in the approval popup (the broker's own hard deadline is
/// two minutes; wiring gives hosts a longer timeout than this plus the watchdog margin).
pub const APPROVAL_WAIT: Duration = Duration::from_secs(110);

pub const OPEN_AIRLOCK: &str = "Airlock needs a human to approve this; open the Airlock app to approve it, or run it yourself.";

fn deny_text(reason: &str) -> String {
    format!("Blocked by Airlock: {reason}")
}

/// Print the answer once (the watchdog and the main path race for it) and exit.
struct Responder {
    answered: AtomicBool,
    /// Milliseconds after start at which the watchdog denies (extended while a human is asked).
    deadline_ms: std::sync::atomic::AtomicU64,
    /// The host and event once parsed, so a late deny is rendered for the right event.
    parsed: std::sync::Mutex<Option<(Host, String)>>,
}

impl Responder {
    fn parsed(&self) -> (Option<Host>, String) {
        match self.parsed.lock().ok().and_then(|g| g.clone()) {
            Some((h, e)) => (Some(h), e),
            None => (None, String::new()),
        }
    }

    fn answer(&self, a: &HookAnswer) -> ! {
        if self.answered.swap(true, Ordering::SeqCst) {
            // The other side already answered and is exiting.
            std::thread::sleep(Duration::from_secs(60));
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(a.stdout.as_bytes());
        if !a.stdout.ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
        if !a.stderr.is_empty() {
            let _ = writeln!(std::io::stderr(), "{}", a.stderr);
        }
        std::process::exit(a.exit_code);
    }
}

fn parse_host(name: &str) -> Option<Host> {
    Some(match name {
        "claude-code" | "claude" => Host::ClaudeCode,
        "cursor" => Host::Cursor,
        "codex" => Host::Codex,
        "gemini" => Host::Gemini,
        "copilot" => Host::Copilot,
        "vscode" | "vs-code" => Host::VsCode,
        _ => return None,
    })
}

/// Run the hook. Never returns.
pub fn run(host_name: &str) -> ! {
    let hint = parse_host(host_name).unwrap_or(Host::ClaudeCode);
    let responder = Arc::new(Responder {
        answered: AtomicBool::new(false),
        deadline_ms: std::sync::atomic::AtomicU64::new(
            u64::try_from(WATCHDOG.as_millis()).unwrap_or(20_000),
        ),
        parsed: std::sync::Mutex::new(None),
    });
    // Panics print a fixed line (never a payload) and the deny below still goes out.
    std::panic::set_hook(Box::new(|_| {
        let _ = writeln!(
            std::io::stderr(),
            "airlock: internal error in the hook; denying"
        );
    }));
    {
        let r = Arc::clone(&responder);
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            loop {
                std::thread::sleep(Duration::from_millis(50));
                let elapsed = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
                if elapsed >= r.deadline_ms.load(Ordering::SeqCst) {
                    break;
                }
            }
            let (host, event) = r.parsed();
            let a = airlock_hooks::render(
                host.unwrap_or(hint),
                &event,
                &HookOutcome::Deny {
                    reason: deny_text("Airlock ran out of time judging this call."),
                },
            );
            r.answer(&a);
        });
    }
    if parse_host(host_name).is_none() {
        let a = airlock_hooks::render(
            hint,
            "",
            &HookOutcome::Deny {
                reason: deny_text("unknown host name given to `airlock hook`."),
            },
        );
        responder.answer(&a);
    }
    let answer = std::panic::catch_unwind(|| judge_stdin(hint, &responder)).unwrap_or_else(|_| {
        let (host, event) = responder.parsed();
        airlock_hooks::render(
            host.unwrap_or(hint),
            &event,
            &HookOutcome::Deny {
                reason: deny_text("Airlock hit an internal error, so the call is denied."),
            },
        )
    });
    responder.answer(&answer)
}

fn read_stdin() -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    let limit = u64::try_from(MAX_PAYLOAD_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    std::io::stdin()
        .take(limit)
        .read_to_end(&mut buf)
        .map_err(|_| "stdin could not be read".to_owned())?;
    Ok(buf)
}

fn judge_stdin(hint: Host, responder: &Responder) -> HookAnswer {
    let bytes = match read_stdin() {
        Ok(b) => b,
        Err(_) => {
            return airlock_hooks::render(
                hint,
                "",
                &HookOutcome::Deny {
                    reason: deny_text("the hook input could not be read."),
                },
            );
        }
    };
    let call = match airlock_hooks::parse_call(hint, &bytes) {
        Ok(c) => c,
        Err(e) => {
            tracing_note(&format!("unreadable payload: {}", e.code()));
            best_effort_record_failure(hint, e.code());
            return airlock_hooks::render_parse_failure(hint, &e);
        }
    };
    if let Ok(mut g) = responder.parsed.lock() {
        *g = Some((call.host, call.event_name.clone()));
    }
    let deny = |reason: &str| {
        airlock_hooks::render(
            call.host,
            &call.event_name,
            &HookOutcome::Deny {
                reason: deny_text(reason),
            },
        )
    };
    let paths = match Paths::discover() {
        Ok(p) => p,
        Err(_) => return deny("Airlock cannot find its home directory."),
    };
    // A missing store is not silently recreated: a fresh one would forget the mode, the
    // ledger and the password the user set. Only `airlock setup` (or any CLI command the
    // user runs) creates it.
    if !paths.db.exists() {
        return deny(
            "Airlock is not set up on this machine (its store is missing): run `airlock setup`.",
        );
    }
    let store = match paths.open_store() {
        Ok(s) => s,
        Err(e) => {
            tracing_note(&format!("store unavailable: {e:#}"));
            return deny(
                "Airlock's store is unavailable (locked, damaged or read-only), so nothing can be judged safely.",
            );
        }
    };
    let engine = match app::engine(&store, &paths) {
        Ok(e) => e,
        Err(e) => {
            tracing_note(&format!("policy unavailable: {e:#}"));
            return deny("Airlock's policy could not be loaded.");
        }
    };
    match handle(&store, &engine, &call, responder) {
        Ok(a) => a,
        Err(e) => {
            tracing_note(&format!("hook failed: {e:#}"));
            deny("Airlock could not record or judge this call.")
        }
    }
}

fn session_key(a: &Action) -> String {
    a.session_id.clone().unwrap_or_else(|| "unknown".into())
}

/// Show `text` to a human without any secret in it, bounded.
fn redacted(engine: &Engine, text: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for m in engine.scanner().scan(text) {
        if m.start < at {
            continue;
        }
        out.push_str(text.get(at..m.start).unwrap_or(""));
        out.push_str(&format!("[REDACTED:{}]", m.kind));
        at = m.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    if out.chars().count() > 400 {
        out = out.chars().take(400).collect::<String>() + "…";
    }
    out
}

fn summary(engine: &Engine, action: &Action) -> String {
    use airlock_engine::Operation as Op;
    let raw = match &action.op {
        Op::Shell { command } => command.clone(),
        Op::FileRead { path } => format!("read {path}"),
        Op::FileWrite { path, .. } => format!("write {path}"),
        Op::FileDelete { path } => format!("delete {path}"),
        Op::Fetch { url, .. } => format!("fetch {url}"),
        Op::McpCall {
            server,
            tool,
            arguments,
            ..
        } => format!("{server}/{tool} {arguments}"),
        Op::Prompt { .. } => "a prompt".to_owned(),
        other => other.kind().as_str().to_owned(),
    };
    redacted(engine, &raw)
}

/// Ask a human through the desktop approval service. `None` when it is not running.
fn ask_human(
    store: &Store,
    engine: &Engine,
    action: &Action,
    d: &Decision,
    responder: &Responder,
) -> Option<(Outcome, HookOutcome)> {
    let req = airlock_broker::ApprovalRequest {
        host: action.host.as_str().to_owned(),
        session_id: session_key(action),
        cwd: action.cwd.clone().unwrap_or_default(),
        tool: action.tool.clone(),
        summary: summary(engine, action),
        reasons: d
            .reasons
            .iter()
            .map(|r| airlock_broker::Reason {
                code: r.code.clone(),
                message: r.message.clone(),
            })
            .collect(),
        high_risk: d.high_risk,
        deadline_ms: app::now_ms()
            .saturating_add(i64::try_from(APPROVAL_WAIT.as_millis()).unwrap_or(110_000)),
    };
    // Keep the watchdog from denying while a human decides.
    let extended = WATCHDOG + APPROVAL_WAIT + Duration::from_secs(5);
    responder.deadline_ms.store(
        u64::try_from(extended.as_millis()).unwrap_or(u64::MAX),
        Ordering::SeqCst,
    );
    let result = airlock_broker::request_and_redeem(store, &req, APPROVAL_WAIT);
    responder.deadline_ms.store(
        u64::try_from(WATCHDOG.as_millis()).unwrap_or(20_000),
        Ordering::SeqCst,
    );
    let reason = d
        .reasons
        .first()
        .map(|r| r.message.clone())
        .unwrap_or_default();
    match result {
        airlock_broker::ApprovalResult::Approved { .. } => {
            Some((Outcome::Approved, HookOutcome::NoOpinion))
        }
        airlock_broker::ApprovalResult::Denied { .. } => Some((
            Outcome::Denied,
            HookOutcome::Deny {
                reason: deny_text(&format!("{reason} You denied it in Airlock.")),
            },
        )),
        airlock_broker::ApprovalResult::Timeout { .. } => Some((
            Outcome::Timeout,
            HookOutcome::Deny {
                reason: deny_text(&format!("{reason} Nobody approved it in time.")),
            },
        )),
        airlock_broker::ApprovalResult::Unavailable { .. } => None,
    }
}

fn handle(
    store: &Store,
    engine: &Engine,
    call: &HookCall,
    responder: &Responder,
) -> anyhow::Result<HookAnswer> {
    let host_str = call.host.as_str();
    match &call.event {
        Event::Ignore(_) => Ok(airlock_hooks::render(
            call.host,
            &call.event_name,
            &HookOutcome::NoOpinion,
        )),
        Event::Observe { action, result } => {
            store.update_session(host_str, &session_key(action), |old| {
                let s = engine.observe(&app::load_session(old), action, result);
                serde_json::to_string(&s).unwrap_or_default()
            })?;
            Ok(airlock_hooks::render(
                call.host,
                &call.event_name,
                &HookOutcome::NoOpinion,
            ))
        }
        Event::Judge(action) => {
            let session = app::load_session(
                store
                    .load_session(host_str, &session_key(action))?
                    .as_deref(),
            );
            let mut d = engine.decide(action, &session);
            app::apply_allow_rules(store, &mut d)?;
            let asked = if d.effective == Verdict::Auth {
                ask_human(store, engine, action, &d, responder)
            } else {
                None
            };
            let (outcome, hook_outcome) = asked.unwrap_or_else(|| outcome_for(&d, call));
            let mut reasons: Vec<String> = d.reasons.iter().map(|r| r.code.clone()).collect();
            if matches!(hook_outcome, HookOutcome::Ask { .. }) {
                reasons.push("deferred_to_host_ask".into());
            }
            let row = DecisionRow {
                id: 0,
                ts_ms: app::now_ms(),
                host: host_str.to_owned(),
                session_id: session_key(action),
                action_kind: action.kind().as_str().to_owned(),
                tool: action.tool.clone(),
                verdict: d.verdict.as_str().to_owned(),
                effective: d.effective.as_str().to_owned(),
                reasons,
                outcome,
                args_hash: engine.action_fingerprint(action),
                mode: engine.policy().mode.as_str().to_owned(),
            };
            // One transaction: the session's memory and the audit row land together.
            store.record_decision_and_session(&row, |old| {
                let s = engine.record(&app::load_session(old), action, &d);
                serde_json::to_string(&s).unwrap_or_default()
            })?;
            Ok(airlock_hooks::render(
                call.host,
                &call.event_name,
                &hook_outcome,
            ))
        }
    }
}

fn outcome_for(d: &Decision, call: &HookCall) -> (Outcome, HookOutcome) {
    let first_reason = d
        .reasons
        .first()
        .map(|r| r.message.clone())
        .unwrap_or_default();
    match d.effective {
        Verdict::Pass => (Outcome::Passed, HookOutcome::NoOpinion),
        Verdict::Block => (
            Outcome::Blocked,
            HookOutcome::Deny {
                reason: deny_text(&first_reason),
            },
        ),
        Verdict::Auth => {
            // The desktop approval service is not running: use the host's own ask where it is
            // honoured (never under bypassPermissions, never for high-risk calls), else deny.
            if airlock_hooks::supports_ask(call.host, &call.event_name)
                && !call.bypass_permissions
                && !d.high_risk
            {
                (
                    Outcome::Passed,
                    HookOutcome::Ask {
                        reason: format!("Airlock asks: {first_reason}"),
                    },
                )
            } else {
                (
                    Outcome::Denied,
                    HookOutcome::Deny {
                        reason: format!("{first_reason} {OPEN_AIRLOCK}"),
                    },
                )
            }
        }
    }
}

fn best_effort_record_failure(hint: Host, code: &str) {
    let Ok(paths) = Paths::discover() else { return };
    if !paths.db.exists() {
        return;
    }
    let Ok(store) = paths.open_store() else {
        return;
    };
    let _ = store.record_decision(&DecisionRow {
        id: 0,
        ts_ms: app::now_ms(),
        host: hint.as_str().to_owned(),
        session_id: "unknown".into(),
        action_kind: "unparseable".into(),
        tool: String::new(),
        verdict: "BLOCK".into(),
        effective: "BLOCK".into(),
        reasons: vec![code.to_owned()],
        outcome: Outcome::Blocked,
        args_hash: String::new(),
        mode: String::new(),
    });
}

fn tracing_note(msg: &str) {
    let _ = writeln!(std::io::stderr(), "airlock: {msg}");
}
