//! One hook event inside the service: parse (the host's wire format), judge through the one
//! pipeline, ask a human for AUTH, record, answer.
//!
//! Fail closed everywhere: an unknown host or event, an unreadable payload, a store or policy
//! that is unavailable, tampered state, a bypassed session, or an approval that does not
//! check out all end in the host's denial.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::baselines::Baselines;
use airlock_core::{Level, clock, pipeline};
use airlock_engine::{
    Action, CallFacts, Decision, Engine, Host, HostFacts, ReasonReport, ResultScreen, ScreenAction,
    Verdict,
};
use airlock_hooks::Event;
use airlock_hooks::{HookAnswer, HookCall, HookOutcome};
use airlock_store::Outcome;

use crate::state::UserState;

/// How long the service waits for a human in the approval popup (the broker's own hard
/// deadline is two minutes; wiring gives hosts a longer timeout than this plus margins).
pub const APPROVAL_WAIT: Duration = Duration::from_secs(110);

pub const OPEN_AIRLOCK: &str = "Airlock needs a human to approve this; open the Airlock app to approve it, or run it yourself.";

pub fn deny_text(reason: &str) -> String {
    format!("Blocked by Airlock: {reason}")
}

pub fn parse_host(name: &str) -> Option<Host> {
    Some(match name {
        "claude-code" | "claude" => Host::ClaudeCode,
        "cursor" => Host::Cursor,
        "codex" => Host::Codex,
        "gemini" => Host::Gemini,
        "copilot" => Host::Copilot,
        "vscode" | "vs-code" => Host::VsCode,
        "windsurf" => Host::Windsurf,
        "cline" => Host::Cline,
        "opencode" | "open-code" => Host::OpenCode,
        "kiro" | "kiro-cli" => Host::Kiro,
        "shell" => Host::Shell,
        _ => return None,
    })
}

/// How long a human may take in the approval popup for a call from `host`: [`APPROVAL_WAIT`],
/// or less where the host lets a call through once its hook runs past a hard limit
/// ([`airlock_hooks::hard_timeout`]): the denial must be printed before that.
pub fn approval_wait(host: Host) -> Duration {
    match airlock_hooks::hard_timeout(host) {
        Some(limit) => APPROVAL_WAIT.min(limit.saturating_sub(HARD_LIMIT_MARGIN)),
        None => APPROVAL_WAIT,
    }
}

/// Time kept back from a host's hard hook limit for judging before the ask and printing after.
pub const HARD_LIMIT_MARGIN: Duration = Duration::from_secs(10);

/// What the connection can do while a hook is being judged.
pub(crate) trait Line {
    /// Tell the client a human is being asked (so it extends its deadline).
    fn waiting(&mut self, deadline_ms: i64);
    /// Ask the client for these files; `None` when it does not answer in time or garbles.
    fn files(&mut self, paths: Vec<String>) -> Option<CallFacts>;
    /// Set when the client hung up (its process died): a pending approval is then dropped.
    fn gone(&mut self) -> Arc<AtomicBool>;
}

fn internal_error(call: &HookCall, session: Option<(String, String)>) -> Judged {
    Judged::denied(call, "Airlock's service hit an internal error.", session)
}

/// What was judged, so the connection can mark the session bypassed if the hook dies before
/// printing.
pub(crate) struct Judged {
    pub answer: HookAnswer,
    pub session: Option<(String, String)>,
    /// The answer before it was rendered for the host (what the MCP proxy is told).
    pub outcome: HookOutcome,
    /// What screening a tool result found (observed results only).
    pub screen: Option<ResultScreen>,
}

impl Judged {
    fn new(call: &HookCall, outcome: HookOutcome, session: Option<(String, String)>) -> Judged {
        Judged {
            answer: airlock_hooks::render(call.host, &call.event_name, &outcome),
            session,
            outcome,
            screen: None,
        }
    }

    fn denied(call: &HookCall, reason: &str, session: Option<(String, String)>) -> Judged {
        Judged::new(
            call,
            HookOutcome::Deny {
                reason: deny_text(reason),
            },
            session,
        )
    }
}

pub(crate) fn handle(
    level: Level,
    user: &Mutex<UserState>,
    host_name: &str,
    payload: &str,
    line: &mut dyn Line,
) -> Judged {
    let Some(hint) = parse_host(host_name) else {
        let reason = deny_text("unknown host name given to `airlock hook`.");
        return Judged {
            answer: airlock_hooks::render(
                Host::ClaudeCode,
                "",
                &HookOutcome::Deny {
                    reason: reason.clone(),
                },
            ),
            session: None,
            outcome: HookOutcome::Deny { reason },
            screen: None,
        };
    };
    let call = match airlock_hooks::parse_call(hint, payload.as_bytes()) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(code = e.code(), "unreadable hook payload");
            return Judged {
                answer: airlock_hooks::render_parse_failure(hint, &e),
                session: None,
                outcome: HookOutcome::Deny {
                    reason: deny_text("the hook input could not be read."),
                },
                screen: None,
            };
        }
    };
    handle_call(level, user, &call, payload, &[], line)
}

/// One parsed event (a host's hook, or an MCP message the proxy sent): judged or observed,
/// asked, recorded. `raises` are a client's own findings (the proxy's pins and rate limits):
/// they only ever raise the verdict.
pub(crate) fn handle_call(
    level: Level,
    user: &Mutex<UserState>,
    call: &HookCall,
    payload: &str,
    raises: &[ReasonReport],
    line: &mut dyn Line,
) -> Judged {
    let host = call.host.as_str().to_owned();
    let (action, observed) = match &call.event {
        Event::Ignore(name) => {
            if airlock_hooks::is_known_event(call.host, name) {
                return Judged::new(call, HookOutcome::NoOpinion, None);
            }
            tracing::warn!(host = %host, "unknown hook event; denying");
            return Judged::denied(
                call,
                "this hook event is unknown to Airlock, so it is denied (update Airlock).",
                None,
            );
        }
        Event::Observe { action, result } => (action, Some(result)),
        Event::Judge(action) => (action, None),
    };
    let sid = pipeline::session_key(action);
    let session = Some((host.clone(), sid.clone()));
    let Ok(mut st) = user.lock() else {
        return internal_error(call, session);
    };
    let (engine, custom, rules) = match st.ready() {
        Ok((_, c)) => (
            Arc::clone(&c.engine),
            Arc::clone(&c.custom),
            Arc::clone(&c.rules),
        ),
        Err(e) => {
            return Judged::denied(call, &e.0, session);
        }
    };
    let home = st
        .paths
        .home
        .as_ref()
        .map(|h| h.to_string_lossy().into_owned());
    if st.is_bypassed(&host, &sid) {
        return Judged::denied(
            call,
            "an earlier Airlock hook in this session was killed before it answered, so the session is held until you release it (`airlock release`).",
            session,
        );
    }
    let before = st.session(&host, &sid);

    if let Some(result) = observed {
        let (after, mut screen) = pipeline::observe_and_screen(&engine, &before, action, result);
        // Where the host cannot replace a result, the model is warned instead (and the audit
        // row says so).
        if screen.action == ScreenAction::Block
            && !airlock_hooks::can_withhold(call.host, &call.event_name, &action.tool)
        {
            screen.action = ScreenAction::Flag;
        }
        let text = pipeline::encode_session(&after);
        let row = pipeline::screen_row(&engine, &host, &sid, action, &screen, clock::now_ms());
        let stored = st.store().map(|s| match &row {
            Some(row) => s
                .record_decision_and_session(row, |_| text.clone())
                .map(|_| {
                    airlock_core::export::decision(&engine, row, Some(action), Some(result));
                }),
            None => s.update_session(&host, &sid, |_| text.clone()).map(|_| ()),
        });
        match stored {
            Some(Ok(())) => {
                st.remember((host.clone(), sid.clone()), after);
                st.wrote();
            }
            _ => {
                // What the tool returned could not be recorded: assume it was the worst.
                tracing::error!(
                    "a tool result could not be recorded; the session is treated as tainted"
                );
                let mut worst = after;
                worst.tainted = true;
                worst.secret_read = true;
                st.remember((host.clone(), sid.clone()), worst);
            }
        }
        let outcome = match screen.action {
            ScreenAction::Off => HookOutcome::NoOpinion,
            a => {
                tracing::info!(
                    source = screen.source.as_str(),
                    withheld = a == ScreenAction::Block,
                    codes = ?screen.codes,
                    "tool result carried instructions for the agent"
                );
                HookOutcome::Screened {
                    note: screen.note(),
                    withhold: a == ScreenAction::Block,
                }
            }
        };
        let mut judged = Judged::new(call, outcome, session);
        judged.screen = Some(screen);
        return judged;
    }

    // What the call executes or reads, as the hook's user sees it: asked of the client
    // without holding the user's lock. Asked for but not supplied → the engine judges the
    // file unseen (never PASS).
    let wanted = airlock_engine::files_to_inspect(
        action,
        &HostFacts {
            home,
            ..HostFacts::default()
        },
    );
    let facts = if wanted.is_empty() {
        CallFacts::default()
    } else {
        drop(st);
        let f = line.files(wanted).unwrap_or_else(|| {
            tracing::warn!("the hook did not supply the files it was asked for");
            CallFacts {
                inspected: true,
                ..CallFacts::default()
            }
        });
        st = match user.lock() {
            Ok(g) => g,
            Err(_) => return internal_error(call, session),
        };
        f
    };
    let before = st.session(&host, &sid);
    let mut facts = facts;
    // What an edit takes away (a removed auth check, say) is judged too.
    if matches!(action.op, airlock_engine::Operation::FileWrite { .. }) {
        facts.edits = airlock_hooks::text_edits(payload.as_bytes());
    }
    // The project's own `.airlock/policy.toml` (only ever tightens).
    airlock_core::policy_file::add_project_rules(
        &mut facts,
        action,
        st.paths.home.as_deref(),
        level == Level::User,
    );
    // The learned baselines (behaviour per agent and project, style per user and agent) only
    // ever add a step-up: their p-values go in as facts.
    let observation = Baselines::observe(&engine, action, &before, &facts);
    if let Some(o) = &observation {
        st.score_baseline(o, &mut facts);
    }
    let mut d = pipeline::judge_with(&engine, &custom, &rules, action, &before, &facts);
    for r in raises {
        pipeline::raise(&mut d, r.clone(), engine.policy().enforcement);
    }
    // A user turn on a host that ignores the prompt hook's answer (Copilot CLI) goes ahead
    // whatever Airlock says: it is recorded as flagged, and its flags raise what follows.
    let unstoppable = action.tool == airlock_engine::PROMPT_TOOL
        && matches!(action.op, airlock_engine::Operation::Prompt { .. })
        && !airlock_hooks::can_block(call.host, &call.event_name);
    // "For this session" approvals bind the session, the exact call and the reasons it was
    // asked for: a new reason (the session read a secret since, say) asks again.
    let grant = session_grant_key(action, &d);
    let mut by_grant = false;
    let mut withdrawn = false;
    let (outcome, hook_outcome) = if unstoppable && d.effective != Verdict::Pass {
        (Outcome::Flagged, HookOutcome::NoOpinion)
    } else if d.effective == Verdict::Auth
        && !d.high_risk
        && grant
            .as_deref()
            .is_some_and(|g| st.granted_for_session(&host, &sid, g))
    {
        by_grant = true;
        (Outcome::Approved, HookOutcome::NoOpinion)
    } else if d.effective == Verdict::Auth {
        // The human is asked without holding the user's lock.
        let agent = st.agent.clone().filter(|a| a.is_open());
        drop(st);
        let consequences = consequences(&engine, action, &before, &facts, &d);
        let choices = airlock_core::always::proposals_for(&engine, action, &before, &facts, &d)
            .iter()
            .filter_map(|p| p.wire())
            .map(|(label, rule)| airlock_broker::RuleChoice { label, rule })
            .collect();
        let asked = ask_human(
            level,
            agent.as_deref(),
            &engine,
            action,
            &d,
            consequences,
            choices,
            line,
        );
        st = match user.lock() {
            Ok(g) => g,
            Err(_) => return internal_error(call, session),
        };
        match asked {
            Some(Asked::Approved {
                id,
                nonce,
                req,
                for_session,
            }) => {
                // Single use: the approval must check out in the store and is consumed.
                let ok = st
                    .store()
                    .map(|s| airlock_broker::redeem(s, id, &nonce, &req))
                    .is_some_and(|r| matches!(r, Ok(true)));
                if ok {
                    if for_session
                        && !d.high_risk
                        && let Some(g) = grant.clone()
                    {
                        st.grant_for_session(&host, &sid, g);
                    }
                    (Outcome::Approved, HookOutcome::NoOpinion)
                } else {
                    (
                        Outcome::Denied,
                        HookOutcome::Deny {
                            reason: deny_text(
                                "the approval did not check out, so the call is denied.",
                            ),
                        },
                    )
                }
            }
            Some(Asked::ByAgent { for_session }) => {
                // The service itself took this answer from the user's registered agent (see
                // `crate::agent`): there is no broker row to redeem.
                if for_session
                    && !d.high_risk
                    && let Some(g) = grant.clone()
                {
                    st.grant_for_session(&host, &sid, g);
                }
                (Outcome::Approved, HookOutcome::NoOpinion)
            }
            Some(Asked::Answered(o, h)) => (o, h),
            Some(Asked::Withdrawn) => {
                withdrawn = true;
                outcome_without_app(&d, call)
            }
            None => outcome_without_app(&d, call),
        }
    } else {
        outcome_for(&d)
    };
    let mut extra = Vec::new();
    if matches!(hook_outcome, HookOutcome::Ask { .. }) {
        extra.push("deferred_to_host_ask".to_owned());
    }
    if by_grant {
        extra.push("approved_for_session".to_owned());
    }
    if withdrawn {
        extra.push("approval_withdrawn".to_owned());
    }
    // The session may have moved on while a human was asked: record against the newest.
    let before = st.session(&host, &sid);
    let input = pipeline::AuditInput {
        host: &host,
        session_id: &sid,
        action,
        decision: &d,
        outcome,
        extra_codes: extra,
        now_ms: clock::now_ms(),
    };
    let recorded = match st.store() {
        Some(store) => pipeline::record_from(store, &engine, &input, &before),
        None => Err(airlock_core::CoreError::Invalid("store not open".into())),
    };
    match recorded {
        Ok(after) => {
            st.remember((host.clone(), sid.clone()), after);
            if let Some(o) = &observation
                && pipeline::released(outcome)
                && outcome != Outcome::Flagged
            {
                st.learn_baseline(o);
            }
            st.wrote();
            Judged::new(call, hook_outcome, session)
        }
        Err(e) => {
            tracing::error!(error = %e, "decision could not be recorded; denying");
            Judged::denied(
                call,
                "Airlock could not record this call, so it is denied.",
                session,
            )
        }
    }
}

// One value per approval asked: the larger variant's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
enum Asked {
    Approved {
        id: i64,
        nonce: String,
        req: airlock_broker::ApprovalRequest,
        for_session: bool,
    },
    /// The user's approval agent approved it (system level; the service took the answer).
    ByAgent {
        for_session: bool,
    },
    Answered(Outcome, HookOutcome),
    /// The user quit the app while this was pending: as with no app, but logged apart.
    Withdrawn,
}

/// What a "for this session" approval binds to besides the session: the call's exact effect
/// (tool, operation with its arguments, working directory) and the reasons it was asked for.
/// `None` (never granted) when it cannot be written down.
fn session_grant_key(action: &Action, d: &Decision) -> Option<String> {
    let mut codes: Vec<&str> = d.reasons.iter().map(|r| r.code.as_str()).collect();
    codes.sort_unstable();
    serde_json::to_string(&(&action.tool, &action.op, &action.cwd, codes)).ok()
}

/// Show `text` to a human without any secret in it, bounded.
fn redacted(engine: &Engine, text: &str) -> String {
    airlock_core::audit_jsonl::redacted(engine, text, 400)
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

/// What the call will do, in plain words, for the popup (the engine's lines, carried as the
/// broker's wire type; an edit's replacements, in the facts, give its diff).
fn consequences(
    engine: &Engine,
    action: &Action,
    session: &airlock_engine::SessionState,
    facts: &CallFacts,
    d: &Decision,
) -> Vec<airlock_broker::Consequence> {
    to_wire(engine.consequences(action, session, facts, d, &facts.edits))
}

/// The engine's consequence lines as the broker's wire type.
pub fn to_wire(lines: Vec<airlock_engine::Consequence>) -> Vec<airlock_broker::Consequence> {
    lines
        .into_iter()
        .map(|c| airlock_broker::Consequence {
            kind: c.kind.as_str().to_owned(),
            text: c.text,
            detail: c.detail,
        })
        .collect()
}

/// Ask a human through the desktop approval service. `None` when none is reachable.
#[allow(clippy::too_many_arguments)]
fn ask_human(
    level: Level,
    agent: Option<&crate::agent::AgentLink>,
    engine: &Engine,
    action: &Action,
    d: &Decision,
    consequences: Vec<airlock_broker::Consequence>,
    rule_choices: Vec<airlock_broker::RuleChoice>,
    line: &mut dyn Line,
) -> Option<Asked> {
    let wait = approval_wait(action.host);
    let deadline_ms =
        clock::now_ms().saturating_add(i64::try_from(wait.as_millis()).unwrap_or(110_000));
    let req = airlock_broker::ApprovalRequest {
        host: action.host.as_str().to_owned(),
        session_id: pipeline::session_key(action),
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
            .chain(d.provenance().map(|message| airlock_broker::Reason {
                code: "untrusted_source".to_owned(),
                message,
            }))
            .collect(),
        high_risk: d.high_risk,
        deadline_ms,
        consequences,
        rule_choices,
    };
    let reason = d.explain();
    if level == Level::System {
        // The system service cannot reach a user's desktop session socket (it lives in the
        // user's private runtime directory): it asks the user's registered approval agent
        // (`crate::agent`), else the host's own prompt where it has one, else a denial.
        let agent = agent?;
        line.waiting(deadline_ms);
        let gone = line.gone();
        return match agent.ask(&req, wait, &gone) {
            crate::agent::AgentResult::Approved { for_session } => {
                Some(Asked::ByAgent { for_session })
            }
            crate::agent::AgentResult::Denied => Some(Asked::Answered(
                Outcome::Denied,
                HookOutcome::Deny {
                    reason: deny_text(&format!("{reason} You denied it in Airlock.")),
                },
            )),
            crate::agent::AgentResult::Timeout => Some(Asked::Answered(
                Outcome::Timeout,
                HookOutcome::Deny {
                    reason: deny_text(&format!("{reason} Nobody approved it in time.")),
                },
            )),
            crate::agent::AgentResult::Unavailable => None,
        };
    }
    let path = airlock_broker::default_socket_path()?;
    if !path.exists() {
        return None;
    }
    line.waiting(deadline_ms);
    let gone = line.gone();
    let result = airlock_broker::request_approval_cancellable(&path, &req, wait, &gone);
    match result {
        airlock_broker::ApprovalResult::Approved {
            id,
            nonce,
            for_session,
        } => Some(Asked::Approved {
            id,
            nonce,
            req,
            for_session,
        }),
        airlock_broker::ApprovalResult::Denied { .. } => Some(Asked::Answered(
            Outcome::Denied,
            HookOutcome::Deny {
                reason: deny_text(&format!("{reason} You denied it in Airlock.")),
            },
        )),
        airlock_broker::ApprovalResult::Timeout { .. } => Some(Asked::Answered(
            Outcome::Timeout,
            HookOutcome::Deny {
                reason: deny_text(&format!("{reason} Nobody approved it in time.")),
            },
        )),
        airlock_broker::ApprovalResult::Withdrawn { .. } => Some(Asked::Withdrawn),
        airlock_broker::ApprovalResult::Unavailable { .. } => None,
    }
}

fn first_reason(d: &Decision) -> String {
    d.explain()
}

fn outcome_for(d: &Decision) -> (Outcome, HookOutcome) {
    match d.effective {
        Verdict::Pass => (Outcome::Passed, HookOutcome::NoOpinion),
        Verdict::Block | Verdict::Auth => (
            Outcome::Blocked,
            HookOutcome::Deny {
                reason: deny_text(&first_reason(d)),
            },
        ),
    }
}

/// AUTH with no desktop approval service: the host's own ask where it is honoured (never
/// under bypassPermissions, never for high-risk calls), else a denial.
fn outcome_without_app(d: &Decision, call: &HookCall) -> (Outcome, HookOutcome) {
    let reason = first_reason(d);
    if call.ask_allowed() && !d.high_risk {
        (
            Outcome::HostAsk,
            HookOutcome::Ask {
                reason: format!("Airlock asks: {reason}"),
            },
        )
    } else {
        (
            Outcome::Denied,
            HookOutcome::Deny {
                reason: format!("{reason} {OPEN_AIRLOCK}"),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approvals_end_before_a_hosts_hard_hook_limit() {
        assert_eq!(approval_wait(Host::ClaudeCode), APPROVAL_WAIT);
        assert_eq!(approval_wait(Host::Windsurf), APPROVAL_WAIT);
        let cline = approval_wait(Host::Cline);
        assert_eq!(cline, Duration::from_secs(20));
        // The hook client's file wait (5 s) and the printing fit in what is left of 30 s.
        assert!(cline + Duration::from_secs(5) < Duration::from_secs(27));
        for name in ["windsurf", "cline"] {
            assert_eq!(parse_host(name).map(Host::as_str), Some(name));
        }
    }
}
