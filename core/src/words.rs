//! Plain words for what the store keeps as codes: agent names, reason codes, outcomes and
//! ledger entries, for the dashboard, notifications and the CLI. People read these; the
//! codes stay in the store and in exports (they are stable, the words may improve).
//!
//! Nothing here reads a payload: the inputs are codes and ledger details, which never hold
//! secrets or arguments.

use airlock_store::{LedgerEntry, Outcome};
use serde_json::Value;

/// An agent's name as people write it (`claude-code` → `Claude Code`); an unknown one as it
/// was recorded.
pub fn agent_name(host: &str) -> String {
    match host {
        "claude-code" => "Claude Code",
        "cursor" => "Cursor",
        "codex" => "Codex CLI",
        "gemini" => "Gemini CLI",
        "copilot" => "Copilot CLI",
        "vscode" => "VS Code",
        "windsurf" => "Windsurf",
        "cline" => "Cline",
        "opencode" => "OpenCode",
        "kiro" => "Kiro CLI",
        "shell" => "the wrapper shell",
        "mcp-proxy" => "the MCP proxy",
        "cli" => "the airlock CLI",
        other => return other.to_owned(),
    }
    .to_owned()
}

/// Codes the service, the proxy and the pipeline add beside the engine's own reasons.
const PROCESS_CODES: &[(&str, &str)] = &[
    (
        "approved_for_session",
        "Approved earlier in this session for this exact call.",
    ),
    (
        "deferred_to_host_ask",
        "Left to the agent's own permission prompt.",
    ),
    (
        "approval_withdrawn",
        "You quit the Airlock app while this approval was waiting.",
    ),
    (
        "approval_timeout",
        "Nobody answered the approval in time, so it was denied.",
    ),
    ("not_approved", "Not approved."),
    ("approved_in_app", "Approved in the desktop popup."),
    (
        "approved_by_elicitation",
        "Approved in the agent's own prompt (MCP elicitation).",
    ),
    (
        "hook_killed",
        "The hook was killed before it answered: the session is held.",
    ),
    (
        "store_unavailable",
        "Airlock's store could not be read, so the call was denied.",
    ),
    (
        "result_flagged",
        "The tool's output looked like instructions to the agent; it was flagged.",
    ),
    (
        "result_withheld",
        "The tool's output carried instructions to the agent; it was withheld.",
    ),
    (
        "untrusted_source",
        "Content from outside the project entered this session.",
    ),
    (
        "custom_rules_invalid",
        "Your custom rules could not be loaded, so every call is asked.",
    ),
    (
        "custom_rule_error",
        "A custom rule failed while it was checked, so the call is asked.",
    ),
];

/// A reason code in words: the engine's own explanation, the service's, or the code made
/// readable (`source_web_fetch` → "Source: web fetch.") when it has no explanation.
pub fn reason(code: &str) -> String {
    if let Some(m) = airlock_engine::reasons::describe(code) {
        return m.to_owned();
    }
    if let Some((_, m)) = PROCESS_CODES.iter().find(|(c, _)| *c == code) {
        return (*m).to_owned();
    }
    if let Some(src) = code.strip_prefix("source_") {
        return format!("Came from: {}.", src.replace('_', " "));
    }
    if let Some(rule) = code.strip_prefix("custom:") {
        return format!("Your custom rule {rule}.");
    }
    sentence(&code.replace('_', " "))
}

/// A span of time in words, rounded down to its largest unit: `3 days`, `5 hours`,
/// `12 minutes`, `less than a minute`.
pub fn duration(secs: u64) -> String {
    let unit = |n: u64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    match secs {
        s if s >= 86_400 => unit(s / 86_400, "day"),
        s if s >= 3_600 => unit(s / 3_600, "hour"),
        s if s >= 60 => unit(s / 60, "minute"),
        _ => "less than a minute".to_owned(),
    }
}

/// What happened to a call, in words.
pub fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Passed => "ran",
        Outcome::Blocked => "blocked",
        Outcome::Approved => "approved by you",
        Outcome::Denied => "denied",
        Outcome::Timeout => "denied: nobody answered in time",
        Outcome::Bypassed => "never answered: the hook was killed (session held)",
        Outcome::Flagged => "output flagged",
        Outcome::Withheld => "output withheld",
        Outcome::HostAsk => "left to the agent's own prompt",
    }
}

/// A ledger entry as one sentence: what changed, how, by whom and with which proof.
pub fn ledger_entry(e: &LedgerEntry) -> String {
    let what = ledger_kind(&e.kind);
    // An allow rule reads as the rule itself.
    let rule = matches!(e.kind.as_str(), "allow" | "allow_remove")
        .then(|| serde_json::from_value::<crate::settings::AllowRule>(e.detail.clone()).ok())
        .flatten()
        .filter(|r| r.code.is_some() || r.host.is_some() || r.scope.is_some());
    let detail = match rule {
        Some(r) => r.describe(),
        None => ledger_detail(&e.detail),
    };
    let head = if detail.is_empty() {
        what
    } else {
        format!("{what}: {detail}")
    };
    let who = match e.actor.as_str() {
        "cli" => "from the command line".to_owned(),
        "tray" | "app" => "from the desktop app".to_owned(),
        "agent" => "asked by an agent".to_owned(),
        "service" => "by the guard service".to_owned(),
        other => format!("by {other}"),
    };
    let proof = match e.factor.as_str() {
        "password" => ", with your password",
        "totp" => ", with a TOTP code",
        "none" | "" => "",
        _ => ", with a factor",
    };
    let result = match e.outcome.as_str() {
        "applied" => "Done".to_owned(),
        "refused" => "Refused (no valid password or code)".to_owned(),
        other => sentence(other),
    };
    format!("{}. {result} {who}{proof}.", head.trim_end_matches('.'))
}

fn ledger_kind(kind: &str) -> String {
    let words = match kind {
        "mode" => "Strictness mode",
        "enforcement" => "Enforcement",
        "turn_gate" => "Turn gate",
        "allow" => "Allow rule added",
        "allow_remove" => "Allow rule removed",
        "unwire" => "Airlock removed from an agent",
        "pin" => "MCP tool pin",
        "policy_approve" => "Policy file's loosening parts approved",
        "rules_remove" => "Custom rule removed",
        "tamper" => "Tampering detected",
        "password" => "Password",
        "totp" => "TOTP",
        "release" => "Held session released",
        other => {
            if let Some(src) = other.strip_prefix("screening_") {
                return format!("Screening of {}", src.replace('_', " "));
            }
            return sentence(&other.replace('_', " "));
        }
    };
    words.to_owned()
}

/// The detail object in words: `from`/`to` as a change, other plain fields as `key value`.
/// Nested values are summarised, never dumped as JSON.
fn ledger_detail(detail: &Value) -> String {
    let Value::Object(map) = detail else {
        return scalar(detail).unwrap_or_default();
    };
    let mut parts = Vec::new();
    match (
        map.get("from").and_then(scalar),
        map.get("to").and_then(scalar),
    ) {
        (Some(from), Some(to)) => parts.push(format!("{from} → {to}")),
        (None, Some(to)) => parts.push(format!("set to {to}")),
        _ => {}
    }
    for (k, v) in map {
        if k == "from" || k == "to" {
            continue;
        }
        let key = k.replace('_', " ");
        match v {
            Value::Array(items) => parts.push(format!("{key}: {} item(s)", items.len())),
            Value::Object(_) => parts.push(key),
            other => {
                if let Some(s) = scalar(other) {
                    // `{"action": "set"}` reads as "set".
                    parts.push(if k == "action" {
                        s
                    } else {
                        format!("{key} {s}")
                    });
                }
            }
        }
    }
    parts.join(", ")
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(shorten(s)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_owned()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// At most 80 characters of a detail string (hashes and paths can be long).
fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let head: String = s.chars().take(MAX - 1).collect();
        format!("{head}…")
    }
}

/// First letter upper case, a full stop at the end.
fn sentence(s: &str) -> String {
    let s = s.trim();
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    let mut out: String = first.to_uppercase().chain(chars).collect();
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn reasons_in_words() {
        for (code, want) in [
            (
                airlock_engine::rules::destructive::DESTRUCTIVE_RM.code,
                airlock_engine::rules::destructive::DESTRUCTIVE_RM.message,
            ),
            (
                "approval_timeout",
                "Nobody answered the approval in time, so it was denied.",
            ),
            ("source_web_fetch", "Came from: web fetch."),
            ("something_new", "Something new."),
            ("custom:no-prod-db", "Your custom rule no-prod-db."),
        ] {
            assert_eq!(reason(code), want, "{code}");
        }
        // Every word form is a sentence, and none is the bare code.
        for code in ["approved_for_session", "lethal_trifecta", "x"] {
            let w = reason(code);
            assert!(w.ends_with('.') && w != code, "{code}: {w}");
        }
    }

    #[test]
    fn agents_by_name() {
        assert_eq!(agent_name("claude-code"), "Claude Code");
        assert_eq!(agent_name("windsurf"), "Windsurf");
        assert_eq!(agent_name("opencode"), "OpenCode");
        assert_eq!(agent_name("kiro"), "Kiro CLI");
        assert_eq!(agent_name("new-agent"), "new-agent");
    }

    fn entry(kind: &str, detail: Value, actor: &str, factor: &str, outcome: &str) -> LedgerEntry {
        LedgerEntry {
            ts_ms: 0,
            kind: kind.into(),
            detail,
            actor: actor.into(),
            factor: factor.into(),
            outcome: outcome.into(),
        }
    }

    #[test]
    fn ledger_entries_as_sentences() {
        let cases = [
            (
                entry(
                    "mode",
                    json!({"from": "balanced", "to": "light"}),
                    "tray",
                    "password",
                    "applied",
                ),
                "Strictness mode: balanced → light. Done from the desktop app, with your password.",
            ),
            (
                entry(
                    "enforcement",
                    json!({"from": "enforce", "to": "off"}),
                    "agent",
                    "none",
                    "refused",
                ),
                "Enforcement: enforce → off. Refused (no valid password or code) asked by an agent.",
            ),
            (
                entry(
                    "unwire",
                    json!({"agent": "cursor"}),
                    "cli",
                    "totp",
                    "applied",
                ),
                "Airlock removed from an agent: agent cursor. Done from the command line, with a TOTP code.",
            ),
            (
                entry(
                    "screening_web_fetch",
                    json!({"to": "flag"}),
                    "cli",
                    "none",
                    "applied",
                ),
                "Screening of web fetch: set to flag. Done from the command line.",
            ),
            (
                entry(
                    "allow",
                    json!({"rule": {"tool": "Bash"}, "ids": [1, 2]}),
                    "cli",
                    "password",
                    "applied",
                ),
                "Allow rule added: rule, ids: 2 item(s). Done from the command line, with your password.",
            ),
        ];
        for (e, want) in cases {
            let got = ledger_entry(&e);
            assert_eq!(got, want);
            assert!(
                !got.contains('{') && !got.contains('"'),
                "no raw JSON: {got}"
            );
        }
    }

    #[test]
    fn long_details_are_cut() {
        let e = entry(
            "pin",
            json!({"hash": "a".repeat(200)}),
            "cli",
            "none",
            "applied",
        );
        let s = ledger_entry(&e);
        assert!(s.chars().count() < 160, "{s}");
        assert!(s.contains('…'));
    }
}
