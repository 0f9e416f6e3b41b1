//! The hook client (`airlock hook <host>` and the small `airlock-hook <host>` binary): the hot
//! path, a thin client of the guard service.
//!
//! Reads one payload from stdin (bounded), sends it to the service over its local socket,
//! prints the service's answer (exactly one JSON object on stdout, in the host's format),
//! acknowledges it, and exits. No SQLite, no policy parsing, no judging in this process: the
//! service owns all of that. At user level the hook starts the service when it is not running
//! (like `gpg-agent`); at system level it never does, and never falls back to the user level.
//!
//! Fail closed everywhere: unreadable input, an unreachable, impostor or too-slow service, a
//! panic, or the watchdog firing all end in a deny that says how to start the service.
//!
//! Exit codes: 0 — answered (the JSON says allow/no-opinion/ask/deny, per host contract);
//! 2 — denied (hosts that read the exit code block the call; the reason is on stderr).

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use std::path::PathBuf;

use airlock_engine::Host;
use airlock_hooks::{HookAnswer, HookOutcome, MAX_PAYLOAD_BYTES};

use crate::hook::{deny_text, parse_host};
use crate::{ClientError, Endpoint, HookExchange};

/// The hook answers well before hosts' own timeouts (wiring sets 30 s): past this budget the
/// watchdog denies. The service answers a routine call in about a millisecond.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// How long the hook waits once the service says a human is being asked (the service's own
/// approval wait is 110 s; wiring gives hosts a longer timeout).
pub const APPROVAL_BUDGET: Duration = Duration::from_secs(118);

/// Print the answer once (the main path and the deadline race for it; see
/// [`crate::unix_deadline`]).
struct Responder {
    start: Instant,
}

impl Responder {
    /// Prints `a`; returns false if the deadline already answered.
    fn print(&self, a: &HookAnswer) -> bool {
        if !crate::unix_deadline::claim() {
            return false;
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
        true
    }

    fn answer_and_exit(&self, a: &HookAnswer) -> ! {
        if !self.print(a) {
            // The deadline answered and is exiting.
            std::thread::sleep(Duration::from_secs(60));
        }
        std::process::exit(a.exit_code);
    }

    /// Moves the deadline to `total` after the hook started.
    fn deadline(&self, total: Duration) {
        crate::unix_deadline::extend(total.saturating_sub(self.start.elapsed()));
    }
}

/// A denial for `host` when the service could not answer (the event is unknown here, so the
/// host's pre-tool denial shape is used; every host blocks on it).
fn local_deny(host: Host, reason: &str) -> HookAnswer {
    airlock_hooks::render(
        host,
        "",
        &HookOutcome::Deny {
            reason: deny_text(reason),
        },
    )
}

/// Run the hook for `host_name`. `autostart` is the `airlock` binary to start as
/// `airlock daemon` when no user-level service is listening (`None`: never start one). Never
/// returns.
pub fn run(host_name: &str, autostart: Option<PathBuf>) -> ! {
    let hint = parse_host(host_name).unwrap_or(Host::ClaudeCode);
    let responder = Responder {
        start: Instant::now(),
    };
    // Panics print a fixed line (never a payload) and the deny below still goes out.
    std::panic::set_hook(Box::new(|_| {
        let _ = writeln!(
            std::io::stderr(),
            "airlock: internal error in the hook; denying"
        );
    }));
    // The deadline: past it the process prints this denial and exits. If it cannot be armed,
    // nothing bounds the call: deny now.
    let late = local_deny(hint, "Airlock ran out of time judging this call.");
    if crate::unix_deadline::arm(&late.stdout, &late.stderr, late.exit_code, WATCHDOG).is_err() {
        responder.answer_and_exit(&local_deny(
            hint,
            "Airlock could not start its time limit for this call.",
        ));
    }
    if parse_host(host_name).is_none() {
        responder.answer_and_exit(&local_deny(
            hint,
            "unknown host name given to `airlock hook`.",
        ));
    }
    let result = std::panic::catch_unwind(|| exchange(host_name, hint, autostart, &responder));
    match result {
        Ok(Ok((reply, ex))) => {
            let a = HookAnswer {
                stdout: reply.stdout,
                stderr: reply.stderr,
                exit_code: reply.exit_code,
            };
            if responder.print(&a) {
                // Only now may the service consider the answer delivered.
                ex.ack();
            }
            std::process::exit(a.exit_code);
        }
        Ok(Err(e)) => {
            let _ = writeln!(std::io::stderr(), "airlock: {e}");
            let reason = match e {
                ClientError::Service { message, .. } => message,
                other => format!("{other}."),
            };
            responder.answer_and_exit(&local_deny(hint, &reason))
        }
        Err(_) => responder.answer_and_exit(&local_deny(
            hint,
            "Airlock hit an internal error, so the call is denied.",
        )),
    }
}

fn read_stdin() -> Result<String, ClientError> {
    let mut buf = Vec::new();
    let limit = u64::try_from(MAX_PAYLOAD_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    std::io::stdin().take(limit).read_to_end(&mut buf)?;
    if buf.len() > MAX_PAYLOAD_BYTES {
        return Err(ClientError::Service {
            code: "payload_too_large".into(),
            message: "the hook input is larger than Airlock reads, so the call is denied.".into(),
        });
    }
    String::from_utf8(buf).map_err(|_| ClientError::Service {
        code: "payload_not_utf8".into(),
        message: "the hook input is not UTF-8 text, so the call is denied.".into(),
    })
}

fn exchange(
    host_name: &str,
    hint: Host,
    autostart: Option<PathBuf>,
    responder: &Responder,
) -> Result<(crate::HookReply, HookExchange), ClientError> {
    let payload = read_stdin()?;
    let ep = Endpoint::discover(autostart)?;
    let mut ex = HookExchange::start(&ep, host_name, payload, WATCHDOG)?;
    let reply = ex.answer(
        |_deadline| {
            // Keep the watchdog from denying while a human decides, but never past a host's own
            // hard limit (past it, Cline lets the call through).
            let extended = match airlock_hooks::hard_timeout(hint) {
                Some(limit) => {
                    (WATCHDOG + APPROVAL_BUDGET).min(limit.saturating_sub(Duration::from_secs(3)))
                }
                None => WATCHDOG + APPROVAL_BUDGET,
            };
            responder.deadline(extended);
        },
        |paths| crate::client::read_files(&paths),
        APPROVAL_BUDGET,
    )?;
    Ok((reply, ex))
}
