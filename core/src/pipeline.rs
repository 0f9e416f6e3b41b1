//! The one judge → allow rules → record → observe pipeline, shared by the guard service
//! (hooks) and the MCP proxy, with the one session codec.
//!
//! **Architecture invariant:** a decision and its effect on the session are recorded in one
//! store transaction ([`record`]); a session that cannot be decoded is treated as the worst
//! case (tainted, secret read), never as a fresh one.

use airlock_engine::{
    Action, CallFacts, Decision, Enforcement, Engine, ReasonReport, ResultScreen, ScreenAction,
    SessionState, Verdict, verdict,
};
use airlock_store::{DecisionRow, Outcome, Store};

use crate::CoreError;
use crate::custom::CustomRules;
use crate::settings::AllowRule;

/// The session key used when a host sends no session id.
pub const UNKNOWN_SESSION: &str = "unknown";

/// A stored session that cannot be read must not lower the floor: this is what it decodes to.
fn worst_case() -> SessionState {
    SessionState {
        tainted: true,
        secret_read: true,
        ..SessionState::default()
    }
}

/// Reads a stored session. A damaged record assumes the worst (tainted, secret read).
pub fn decode_session(state: Option<&str>) -> SessionState {
    match state {
        None => SessionState::default(),
        Some(s) => serde_json::from_str(s).unwrap_or_else(|_| worst_case()),
    }
}

/// Writes a session. Serialising a plain value cannot fail; should it ever, the stored text
/// is the worst case rather than an empty (fresh) session.
pub fn encode_session(s: &SessionState) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| {
        tracing::error!("session could not be serialised; storing the worst case");
        r#"{"tainted":true,"secret_read":true}"#.to_owned()
    })
}

/// The session key of an action.
pub fn session_key(a: &Action) -> String {
    a.session_id
        .clone()
        .unwrap_or_else(|| UNKNOWN_SESSION.to_owned())
}

/// A scoped allow rule turns AUTH into PASS when it covers every AUTH reason; hard blocks and
/// BLOCK verdicts are never touched.
pub fn apply_allow_rules(rules: &[AllowRule], d: &mut Decision) {
    if d.effective != Verdict::Auth {
        return;
    }
    let codes: Vec<&str> = rules.iter().filter_map(|r| r.code.as_deref()).collect();
    if !codes.is_empty()
        && d.reasons
            .iter()
            .all(|r| r.verdict == Verdict::Auth && !r.hard && codes.contains(&r.code.as_str()))
    {
        d.effective = Verdict::Pass;
    }
}

/// Scoped allow rules ("always, as a rule"): the first that covers the call releases its
/// AUTH (see [`crate::always::Scope::covers`]: never a BLOCK, a hard finding, a high-risk
/// call or a reason the rule does not name; never a call the engine did not fully
/// understand). `now` (seconds since the epoch) decides expiry.
pub fn apply_scoped_rules(
    engine: &Engine,
    rules: &[AllowRule],
    action: &Action,
    session: &SessionState,
    facts: &CallFacts,
    d: &mut Decision,
    now: u64,
) {
    if d.effective != Verdict::Auth || d.high_risk {
        return;
    }
    let mut scoped = rules.iter().filter_map(|r| r.scope.as_ref()).peekable();
    if scoped.peek().is_none() {
        return;
    }
    let Some(summary) = engine.call_summary(action, session, facts) else {
        return;
    };
    if scoped.any(|s| s.covers(&summary, d, now)) {
        tracing::info!("released by a scoped allow rule");
        d.effective = Verdict::Pass;
    }
}

/// Raise a decision by one finding: its reason joins the others (strongest first, one per
/// code), the verdict becomes the maximum, and the effective verdict is raised through the
/// enforcement dial (under `monitor` a non-hard finding is recorded, not enforced). Nothing
/// here can lower a verdict.
pub fn raise(d: &mut Decision, reason: ReasonReport, enforcement: Enforcement) {
    let raised = verdict::apply_enforcement(reason.verdict, reason.hard, enforcement);
    d.verdict = d.verdict.max(reason.verdict);
    d.effective = d.effective.max(raised);
    if reason.verdict == Verdict::Pass || d.reasons.iter().any(|r| r.code == reason.code) {
        return;
    }
    let at = d
        .reasons
        .iter()
        .position(|r| (r.verdict, r.hard) < (reason.verdict, reason.hard))
        .unwrap_or(d.reasons.len());
    d.reasons.insert(at, reason);
}

/// Custom rules: every matching `forbid` raises the decision (BLOCK, or AUTH with
/// `@verdict("auth")`), a rule that fails raises it to AUTH `custom_rule_error`, and an
/// invalid rule file raises every tool call to AUTH `custom_rules_invalid` (see
/// [`crate::custom`]). Applied right after the engine's decision and before the allow rules,
/// by the service and the proxy alike.
pub fn apply_custom_rules(
    engine: &Engine,
    custom: &CustomRules,
    action: &Action,
    session: &SessionState,
    facts: &CallFacts,
    d: &mut Decision,
) {
    if custom.is_empty() {
        return;
    }
    let summary = engine.call_summary(action, session, facts);
    let enforcement = engine.policy().enforcement;
    for hit in custom.findings(summary.as_ref(), d.verdict) {
        raise(
            d,
            ReasonReport {
                code: hit.code,
                message: hit.message,
                verdict: hit.verdict,
                hard: false,
            },
            enforcement,
        );
    }
}

/// Judge: the engine's decision on `action` in `session`, the custom rules, then the allow
/// rules.
pub fn judge(
    engine: &Engine,
    custom: &CustomRules,
    rules: &[AllowRule],
    action: &Action,
    session: &SessionState,
) -> Decision {
    judge_with(
        engine,
        custom,
        rules,
        action,
        session,
        &CallFacts::default(),
    )
}

/// [`judge`] with the files the adapter read for this call (`engine::files_to_inspect`).
pub fn judge_with(
    engine: &Engine,
    custom: &CustomRules,
    rules: &[AllowRule],
    action: &Action,
    session: &SessionState,
    facts: &CallFacts,
) -> Decision {
    let mut d = engine.decide_with(action, session, facts);
    apply_custom_rules(engine, custom, action, session, facts, &mut d);
    apply_allow_rules(rules, &mut d);
    apply_scoped_rules(
        engine,
        rules,
        action,
        session,
        facts,
        &mut d,
        crate::clock::now_unix(),
    );
    d
}

/// What the audit log keeps of one judged call (codes and a keyed hash, never payloads).
#[derive(Debug, Clone)]
pub struct AuditInput<'a> {
    pub host: &'a str,
    pub session_id: &'a str,
    pub action: &'a Action,
    pub decision: &'a Decision,
    pub outcome: Outcome,
    /// Extra codes after the decision's own (e.g. `deferred_to_host_ask`, `approval_timeout`).
    pub extra_codes: Vec<String>,
    pub now_ms: i64,
}

/// The audit row for `a`.
pub fn audit_row(engine: &Engine, a: &AuditInput<'_>) -> DecisionRow {
    let mut reasons: Vec<String> = a.decision.reasons.iter().map(|r| r.code.clone()).collect();
    reasons.extend(a.extra_codes.iter().cloned());
    DecisionRow {
        id: 0,
        ts_ms: a.now_ms,
        host: a.host.to_owned(),
        session_id: a.session_id.to_owned(),
        action_kind: a.action.kind().as_str().to_owned(),
        tool: a.action.tool.clone(),
        verdict: a.decision.verdict.as_str().to_owned(),
        effective: a.decision.effective.as_str().to_owned(),
        reasons,
        outcome: a.outcome,
        args_hash: engine.action_fingerprint(a.action),
        mode: engine.policy().mode.as_str().to_owned(),
    }
}

/// Did the call go ahead (passed, or a human approved it)?
pub fn released(o: Outcome) -> bool {
    matches!(
        o,
        Outcome::Passed | Outcome::Approved | Outcome::HostAsk | Outcome::Flagged
    )
}

/// Record: the audit row and the session's memory of this decision, in one transaction.
/// Returns the audit row's id and the session as stored.
pub fn record(
    store: &Store,
    engine: &Engine,
    a: &AuditInput<'_>,
) -> Result<(i64, SessionState), CoreError> {
    let row = audit_row(engine, a);
    let mut after = SessionState::default();
    let id = store.record_decision_and_session(&row, |old| {
        after = engine.record_with(
            &decode_session(old),
            a.action,
            a.decision,
            released(a.outcome),
        );
        encode_session(&after)
    })?;
    crate::export::decision(engine, &row, Some(a.action), None);
    Ok((id, after))
}

/// [`record`] for a caller that keeps the session in memory (the guard service): the stored
/// session becomes `engine.record(before, …)` whatever the store held (memory is authoritative
/// while the service runs, so an out-of-band edit of the row cannot reset it). Returns the
/// session as stored.
pub fn record_from(
    store: &Store,
    engine: &Engine,
    a: &AuditInput<'_>,
    before: &SessionState,
) -> Result<SessionState, CoreError> {
    let row = audit_row(engine, a);
    let after = engine.record_with(before, a.action, a.decision, released(a.outcome));
    let text = encode_session(&after);
    store.record_decision_and_session(&row, |_| text.clone())?;
    crate::export::decision(engine, &row, Some(a.action), None);
    Ok(after)
}

/// What a finished tool call taught the session, and what its result gets: the engine's
/// observation, plus — when screening found instructions aimed at the agent — the session
/// tainted with the source named.
pub fn observe_and_screen(
    engine: &Engine,
    before: &SessionState,
    action: &Action,
    result: &str,
) -> (SessionState, ResultScreen) {
    let screen = engine.screen_result(action, result);
    (observed(engine, before, action, result, &screen), screen)
}

/// What a finished tool call taught the session (taint, secret fingerprints), with the
/// screened source named among its taint sources when the result carried instructions.
fn observed(
    engine: &Engine,
    before: &SessionState,
    action: &Action,
    result: &str,
    screen: &ResultScreen,
) -> SessionState {
    let mut after = engine.observe(before, action, result);
    if !screen.codes.is_empty() {
        after.add_taint_source(&screen.source_name);
    }
    after
}

/// [`observe_and_screen`] against the stored session (for callers that keep no sessions in
/// memory, such as the MCP proxy): the session update and, when the result was flagged or
/// withheld, its audit row commit in one transaction. The caller must be able to replace the
/// result (a withheld one) or put a note in front of it (a flagged one).
pub fn observe_stored(
    store: &Store,
    engine: &Engine,
    host: &str,
    session_id: &str,
    action: &Action,
    result: &str,
    now_ms: i64,
) -> Result<ResultScreen, CoreError> {
    let screen = engine.screen_result(action, result);
    let update = |old: Option<&str>| {
        encode_session(&observed(
            engine,
            &decode_session(old),
            action,
            result,
            &screen,
        ))
    };
    match screen_row(engine, host, session_id, action, &screen, now_ms) {
        Some(row) => {
            store.record_decision_and_session(&row, update)?;
            crate::export::decision(engine, &row, Some(action), Some(result));
        }
        None => {
            store.update_session(host, session_id, update)?;
        }
    }
    Ok(screen)
}

/// The audit row of a screened tool result that was flagged or withheld (`None` when the
/// result was clean or screening is off for its source): codes and a keyed hash, never the
/// content.
pub fn screen_row(
    engine: &Engine,
    host: &str,
    session_id: &str,
    action: &Action,
    screen: &ResultScreen,
    now_ms: i64,
) -> Option<DecisionRow> {
    let (verdict, outcome, code) = match screen.action {
        ScreenAction::Off => return None,
        ScreenAction::Flag => (Verdict::Auth, Outcome::Flagged, "result_flagged"),
        ScreenAction::Block => (Verdict::Block, Outcome::Withheld, "result_withheld"),
    };
    let mut reasons = screen.codes.clone();
    reasons.push(code.to_owned());
    reasons.push(format!("source_{}", screen.source.as_str()));
    Some(DecisionRow {
        id: 0,
        ts_ms: now_ms,
        host: host.to_owned(),
        session_id: session_id.to_owned(),
        action_kind: "tool_result".to_owned(),
        tool: action.tool.clone(),
        verdict: verdict.as_str().to_owned(),
        effective: verdict.as_str().to_owned(),
        reasons,
        outcome,
        args_hash: engine.action_fingerprint(action),
        mode: engine.policy().mode.as_str().to_owned(),
    })
}

/// The stored session for `(host, session_id)`.
pub fn load_session(
    store: &Store,
    host: &str,
    session_id: &str,
) -> Result<SessionState, CoreError> {
    Ok(decode_session(
        store.load_session(host, session_id)?.as_deref(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_sessions_decode_to_the_worst_case() {
        let s = decode_session(Some("{not json"));
        assert!(s.tainted && s.secret_read);
        let fresh = decode_session(None);
        assert!(!fresh.tainted && !fresh.secret_read);
    }

    #[test]
    fn sessions_round_trip() {
        let s = worst_case();
        assert_eq!(decode_session(Some(&encode_session(&s))), s);
    }
}
