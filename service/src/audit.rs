//! Transcript audit: a host that keeps a transcript (Claude Code's JSONL) lists every tool call
//! it ran. Each is turned into the `Action` its `PreToolUse` hook would have carried and
//! fingerprinted with the user's key; a call whose fingerprint has no audit row in that
//! session never reached Airlock (its hook was not wired, was removed, or died before asking).

use std::collections::HashMap;

use airlock_engine::{Engine, Host};
use airlock_hooks::Event;
use airlock_store::{DecisionFilter, Store};

use crate::protocol::TranscriptCall;

/// Returns how many calls matched an audit row, and the indexes of those that did not.
pub fn transcript(
    store: &Store,
    engine: &Engine,
    host: &str,
    session_id: &str,
    cwd: Option<&str>,
    calls: &[TranscriptCall],
) -> Result<(usize, Vec<usize>), String> {
    let rows = store
        .recent_decisions(&DecisionFilter {
            limit: 0,
            session_id: Some(session_id.to_owned()),
            ..DecisionFilter::default()
        })
        .map_err(|e| format!("the audit log could not be read ({})", e.code()))?;
    // Multiset of recorded fingerprints for this host's session.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in rows.iter().filter(|r| r.host == host) {
        *seen.entry(r.args_hash.clone()).or_default() += 1;
    }
    let hint = crate::hook::parse_host(host).unwrap_or(Host::ClaudeCode);
    let mut matched = 0;
    let mut missing = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        let payload = serde_json::json!({
            "session_id": session_id,
            "cwd": cwd.unwrap_or(""),
            "hook_event_name": "PreToolUse",
            "permission_mode": "default",
            "tool_name": c.tool_name,
            "tool_input": c.tool_input,
        });
        let fp = serde_json::to_vec(&payload)
            .ok()
            .and_then(|b| airlock_hooks::parse_call(hint, &b).ok())
            .and_then(|call| match call.event {
                Event::Judge(a) => Some(engine.action_fingerprint(&a)),
                _ => None,
            });
        match fp.and_then(|f| seen.get_mut(&f).filter(|n| **n > 0)) {
            Some(n) => {
                *n -= 1;
                matched += 1;
            }
            None => missing.push(i),
        }
    }
    Ok((matched, missing))
}
