//! `airlock agent`: a terminal approval agent for the system level (as polkit's `pkttyagent`).
//! It registers with the guard service as your approval agent — with your password or TOTP
//! code, verified in the service — then prints each AUTH request of yours and reads answers,
//! one per line: `approve ID`, `session ID` (for this session), `deny ID`. A high-risk
//! approval takes the factor again: `approve ID CODE` with TOTP, else the password is asked on
//! the terminal. End it with Ctrl+D; the service then falls back to the host's own prompt or
//! a denial.

use std::io::BufRead;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::factors;
use airlock_core::{Level, words};
use airlock_service::client::AgentSession;
use airlock_service::{AgentDecision, Endpoint, Request, Response, client};
use anyhow::{Context as _, Result, bail};

use crate::cmd::FactorArgs;

/// Prints one request for a person at a terminal (everything from the request is text the
/// service already redacted and bounded).
fn show(id: u64, r: &airlock_broker::ApprovalRequest) {
    println!();
    println!(
        "Request {id}{}: {} wants to run {} in {}",
        if r.high_risk { " (HIGH RISK)" } else { "" },
        words::agent_name(&r.host),
        r.tool,
        r.cwd
    );
    println!("  {}", r.summary.replace('\n', "\n  "));
    for c in &r.consequences {
        println!("  - {}", c.text);
    }
    for reason in &r.reasons {
        println!("  why: {}", reason.message);
    }
    if r.high_risk {
        println!("  answer: approve {id} [TOTP CODE] | deny {id}   (approving needs your factor)");
    } else {
        println!("  answer: approve {id} | session {id} | deny {id}");
    }
}

/// One answer line: (id, decision, TOTP code).
fn parse(line: &str) -> Option<(u64, AgentDecision, Option<String>)> {
    let mut w = line.split_whitespace();
    let decision = match w.next()? {
        "approve" | "a" => AgentDecision::Approved,
        "session" | "s" => AgentDecision::ApprovedForSession,
        "deny" | "d" => AgentDecision::Denied,
        _ => return None,
    };
    let id = w.next()?.parse().ok()?;
    let code = w.next().map(str::to_owned);
    if w.next().is_some() {
        return None;
    }
    Some((id, decision, code))
}

pub fn run(factor: FactorArgs) -> Result<ExitCode> {
    let ep = Endpoint::discover(std::env::current_exe().ok())?;
    if ep.level != Level::System {
        eprintln!(
            "airlock agent is for the system level: at the user level the desktop app shows approvals itself"
        );
        return Ok(ExitCode::from(2));
    }
    let Response::Status(s) = client::call(&ep, &Request::Status, Duration::from_secs(30))? else {
        bail!("the guard service answered something unexpected");
    };
    let needs = s.factor;
    let proof = factors::gather_proof(needs, factor.password_stdin, factor.code)
        .context("registering as your approval agent needs your factor")?;
    let (mut session, answerer) = AgentSession::register(&ep, proof).context("not registered")?;
    println!(
        "Registered as your approval agent. Answer with approve ID, session ID or deny ID; Ctrl+D ends."
    );
    let high_risk: Arc<Mutex<std::collections::HashSet<u64>>> = Arc::default();
    let answerer = Arc::new(Mutex::new(answerer));
    {
        let high_risk = Arc::clone(&high_risk);
        std::thread::spawn(move || {
            loop {
                match session.next_message() {
                    Ok(Response::AgentAsk { id, request, .. }) => {
                        if request.high_risk
                            && let Ok(mut h) = high_risk.lock()
                        {
                            h.insert(id);
                        }
                        show(id, &request);
                    }
                    Ok(Response::AgentClosed { id, outcome }) => {
                        println!("Request {id} ended: {outcome}.");
                    }
                    Ok(Response::Error { message, .. }) => println!("Not taken: {message}"),
                    Ok(_) => {}
                    Err(_) => {
                        println!("The guard service closed the connection.");
                        std::process::exit(1);
                    }
                }
            }
        });
    }
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let Some((id, decision, code)) = parse(&line) else {
            println!("Answer with approve ID, session ID or deny ID.");
            continue;
        };
        let risky = high_risk.lock().map(|h| h.contains(&id)).unwrap_or(true);
        let proof = if risky && decision != AgentDecision::Denied {
            match factors::gather_proof(needs, false, code) {
                Ok(p) => Some(p),
                Err(e) => {
                    println!("Not approved: {e}");
                    continue;
                }
            }
        } else {
            None
        };
        let sent = answerer
            .lock()
            .map_err(|_| anyhow::anyhow!("internal error"))?
            .answer(id, decision, proof);
        sent.context("the guard service went away")?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_strictly() {
        for (line, want) in [
            ("approve 3", Some((3, AgentDecision::Approved, None))),
            ("a 3", Some((3, AgentDecision::Approved, None))),
            (
                "approve 3 123456",
                Some((3, AgentDecision::Approved, Some("123456".to_owned()))),
            ),
            (
                "session 4",
                Some((4, AgentDecision::ApprovedForSession, None)),
            ),
            ("deny 5", Some((5, AgentDecision::Denied, None))),
            ("approve", None),
            ("approve x", None),
            ("approve 3 1 2", None),
            ("yes 3", None),
            ("", None),
        ] {
            assert_eq!(parse(line), want, "{line}");
        }
    }
}
