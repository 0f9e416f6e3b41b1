//! Approval agents at the system level, after polkit's split of a system daemon and a session
//! agent (issue #10): the service (user `airlock`) cannot reach a desktop session, so a
//! process in the user's session registers as that user's **approval agent** over the
//! service's socket and the service pushes AUTH requests to it.
//!
//! **Only a human can approve.** The agent that asks the question runs as the same user as the
//! approval agent, so the kernel cannot tell them apart; what it cannot have is the user's
//! factor. Registering needs it (the password, or the TOTP code once enrolled), verified
//! *inside* the service against the user's store, which the user cannot read; a refusal is
//! logged. Only the registered connection can answer, and only requests it was sent; the
//! service enforces the arm delay; a high-risk request needs the factor again with the answer;
//! "for this session" is refused for high risk. A new registration (again with the factor)
//! replaces the old one. When the agent's connection closes, its pending requests end and the
//! service falls back to the host's own prompt or a denial, as without an agent.
//!
//! The wire: after [`Request::AgentRegister`](crate::Request::AgentRegister) the connection
//! stays open; the service writes [`Response::AgentAsk`](crate::Response::AgentAsk) and
//! [`Response::AgentClosed`](crate::Response::AgentClosed) lines, the agent writes
//! [`Request::AgentAnswer`](crate::Request::AgentAnswer) lines.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use airlock_broker::ApprovalRequest;
use airlock_core::clock;

use crate::protocol::{AgentDecision, Response};

/// How long after it was sent an approval is accepted (the broker's arm delay).
pub const ARM_DELAY: Duration = airlock_broker::ARM_DELAY;
/// How long a write to the agent may block.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

/// How an agent's request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentResult {
    Approved {
        for_session: bool,
    },
    Denied,
    Timeout,
    /// No agent, or it went away: as without one.
    Unavailable,
}

struct Pending {
    tx: mpsc::Sender<AgentDecision>,
    armed_ms: i64,
    high_risk: bool,
}

/// One registered approval agent (a live connection).
pub struct AgentLink {
    writer: Mutex<UnixStream>,
    pending: Mutex<HashMap<u64, Pending>>,
    next: AtomicU64,
    closed: AtomicBool,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerError {
    NoSuchRequest,
    TooQuick { wait_ms: i64 },
    NotScopable,
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerError::NoSuchRequest => f.write_str("no such pending request"),
            AnswerError::TooQuick { wait_ms } => write!(
                f,
                "too quick: the request can be approved in {:.1} s",
                *wait_ms as f64 / 1000.0
            ),
            AnswerError::NotScopable => {
                f.write_str("a high-risk request is approved once, never for the session")
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AgentLink {
    pub fn new(writer: UnixStream) -> Arc<AgentLink> {
        let _ = writer.set_write_timeout(Some(WRITE_TIMEOUT));
        Arc::new(AgentLink {
            writer: Mutex::new(writer),
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            closed: AtomicBool::new(false),
        })
    }

    pub fn is_open(&self) -> bool {
        !self.closed.load(Ordering::SeqCst)
    }

    /// Writes one line to the agent; a failed write closes the link.
    pub fn send(&self, r: &Response) -> bool {
        let Ok(mut line) = serde_json::to_vec(r) else {
            return false;
        };
        line.push(b'\n');
        let ok = lock(&self.writer).write_all(&line).is_ok();
        if !ok {
            self.close();
        }
        ok
    }

    /// Asks the agent and waits for its answer, at most `wait`, or until `gone` is set (the
    /// hook that asked died).
    pub fn ask(&self, request: &ApprovalRequest, wait: Duration, gone: &AtomicBool) -> AgentResult {
        if !self.is_open() {
            return AgentResult::Unavailable;
        }
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let armed_ms = clock::now_ms()
            .saturating_add(i64::try_from(ARM_DELAY.as_millis()).unwrap_or(i64::MAX));
        let (tx, rx) = mpsc::channel();
        lock(&self.pending).insert(
            id,
            Pending {
                tx,
                armed_ms,
                high_risk: request.high_risk,
            },
        );
        let asked = self.send(&Response::AgentAsk {
            id,
            request: request.clone(),
            armed_ms,
        });
        let until = Instant::now() + wait;
        let result = if !asked {
            AgentResult::Unavailable
        } else {
            loop {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break AgentResult::Timeout;
                }
                if gone.load(Ordering::SeqCst) {
                    break AgentResult::Unavailable;
                }
                match rx.recv_timeout(left.min(Duration::from_millis(100))) {
                    Ok(AgentDecision::Approved) => {
                        break AgentResult::Approved { for_session: false };
                    }
                    Ok(AgentDecision::ApprovedForSession) => {
                        break AgentResult::Approved { for_session: true };
                    }
                    Ok(AgentDecision::Denied) => break AgentResult::Denied,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break AgentResult::Unavailable,
                }
            }
        };
        lock(&self.pending).remove(&id);
        let outcome = match result {
            AgentResult::Approved { .. } => "approved",
            AgentResult::Denied => "denied",
            AgentResult::Timeout => "timeout",
            AgentResult::Unavailable => "unavailable",
        };
        if self.is_open() {
            self.send(&Response::AgentClosed {
                id,
                outcome: outcome.to_owned(),
            });
        }
        result
    }

    /// Is request `id` pending and high risk (its approval needs the factor)?
    pub fn needs_factor(&self, id: u64) -> Option<bool> {
        lock(&self.pending).get(&id).map(|p| p.high_risk)
    }

    /// Takes the agent's answer to request `id` (the caller verified any factor it needs).
    pub fn answer(&self, id: u64, decision: AgentDecision) -> Result<(), AnswerError> {
        let pending = lock(&self.pending);
        let p = pending.get(&id).ok_or(AnswerError::NoSuchRequest)?;
        if decision != AgentDecision::Denied {
            let wait_ms = p.armed_ms - clock::now_ms();
            if wait_ms > 0 {
                return Err(AnswerError::TooQuick { wait_ms });
            }
            if decision == AgentDecision::ApprovedForSession && p.high_risk {
                return Err(AnswerError::NotScopable);
            }
        }
        p.tx.send(decision).map_err(|_| AnswerError::NoSuchRequest)
    }

    /// The connection ended: every pending request ends as without an agent.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        lock(&self.pending).clear();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::{BufRead, BufReader};

    fn request(high_risk: bool) -> ApprovalRequest {
        ApprovalRequest {
            host: "claude-code".into(),
            session_id: "s".into(),
            cwd: "/tmp".into(),
            tool: "Bash".into(),
            summary: "git reset --hard".into(),
            reasons: Vec::new(),
            high_risk,
            deadline_ms: 0,
            consequences: Vec::new(),
            rule_choices: Vec::new(),
        }
    }

    /// A link over a socket pair; returns the link and the agent's end, read line by line.
    fn link() -> (Arc<AgentLink>, BufReader<UnixStream>) {
        let (a, b) = UnixStream::pair().unwrap();
        (AgentLink::new(a), BufReader::new(b))
    }

    /// The next request sent to the agent (the ends of earlier ones are skipped).
    fn next_ask(r: &mut BufReader<UnixStream>) -> u64 {
        loop {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            match serde_json::from_str::<Response>(&line).unwrap() {
                Response::AgentAsk { id, .. } => return id,
                Response::AgentClosed { .. } => continue,
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn answers_before_the_arm_delay_or_scoping_high_risk_are_refused() {
        let (l, mut r) = link();
        let l2 = Arc::clone(&l);
        let asker = std::thread::spawn(move || {
            l2.ask(
                &request(true),
                Duration::from_secs(10),
                &AtomicBool::new(false),
            )
        });
        let id = next_ask(&mut r);
        assert!(matches!(
            l.answer(id, AgentDecision::Approved),
            Err(AnswerError::TooQuick { .. })
        ));
        std::thread::sleep(ARM_DELAY + Duration::from_millis(50));
        assert_eq!(
            l.answer(id, AgentDecision::ApprovedForSession),
            Err(AnswerError::NotScopable)
        );
        assert_eq!(
            l.answer(id + 7, AgentDecision::Approved),
            Err(AnswerError::NoSuchRequest)
        );
        l.answer(id, AgentDecision::Approved).unwrap();
        assert_eq!(
            asker.join().unwrap(),
            AgentResult::Approved { for_session: false }
        );
        // Once ended, the same id cannot be answered again.
        assert_eq!(
            l.answer(id, AgentDecision::Approved),
            Err(AnswerError::NoSuchRequest)
        );
    }

    #[test]
    fn no_answer_is_a_timeout_and_a_closed_agent_is_unavailable() {
        let (l, mut r) = link();
        let l2 = Arc::clone(&l);
        let asker = std::thread::spawn(move || {
            l2.ask(
                &request(false),
                Duration::from_millis(300),
                &AtomicBool::new(false),
            )
        });
        next_ask(&mut r);
        assert_eq!(asker.join().unwrap(), AgentResult::Timeout);
        let l2 = Arc::clone(&l);
        let asker = std::thread::spawn(move || {
            l2.ask(
                &request(false),
                Duration::from_secs(10),
                &AtomicBool::new(false),
            )
        });
        next_ask(&mut r);
        l.close();
        assert_eq!(asker.join().unwrap(), AgentResult::Unavailable);
        assert_eq!(
            l.ask(
                &request(false),
                Duration::from_secs(1),
                &AtomicBool::new(false)
            ),
            AgentResult::Unavailable
        );
    }
}
