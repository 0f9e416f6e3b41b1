//! The wire format: one JSON object per line, one exchange per connection.

use serde::{Deserialize, Serialize};

/// Longest line either side reads (bytes, newline included).
pub const MAX_LINE: usize = 64 * 1024;

/// One reason for the AUTH verdict, as the engine states it (constant messages, no payload).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reason {
    /// Stable reason code, e.g. `secret_access`.
    pub code: String,
    /// Plain-words explanation.
    pub message: String,
}

/// One plain-words line about what the call will do (the engine's `Consequence`, as the
/// caller computed it: masked, never a secret value, bounded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consequence {
    /// What the line is about: `runs`, `deletes`, `writes`, `reads`, `sends`, `secret`,
    /// `reason`, `untrusted` (an unknown kind is shown as plain text).
    pub kind: String,
    /// One sentence.
    pub text: String,
    /// A block shown in monospace under it (an edit's diff).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// One scope the human can approve the call for "always, as a rule" (issue #14): the rule
/// is an allow rule as `airlock_core::settings::AllowRule` writes it, carried opaquely (the
/// broker never interprets it; the app parses it with that type and the factor decides).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleChoice {
    /// A few words: "Exactly this", …. (The popup states the rule in its own words, made
    /// from `rule`, never from text a client sent.)
    pub label: String,
    /// The rule itself.
    pub rule: serde_json::Value,
}

/// What a hook (or the proxy) asks a human to approve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRequest {
    /// Host agent (`claude-code`, `cursor`, ...).
    pub host: String,
    /// The host's session id.
    pub session_id: String,
    /// Working directory of the tool call.
    pub cwd: String,
    /// Tool name (`Bash`, `Read`, an MCP tool, ...).
    pub tool: String,
    /// Summary of the arguments, already redacted by the caller (never secrets).
    pub summary: String,
    /// Why Airlock asks.
    pub reasons: Vec<Reason>,
    /// Needs the stronger factor (TOTP code or password) in the popup.
    pub high_risk: bool,
    /// The caller's own deadline, ms since the Unix epoch; the broker ends the request at the
    /// earlier of this and two minutes after arrival.
    pub deadline_ms: i64,
    /// What the call will do, in plain words (absent from older clients; never sent empty,
    /// so an older broker still takes a request without any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consequences: Vec<Consequence>,
    /// The scopes "always, as a rule" can write, narrowest first (absent: the call cannot be
    /// approved as a rule — high risk, or not fully understood).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rule_choices: Vec<RuleChoice>,
}

impl ApprovalRequest {
    /// Make the request's line fit `max` bytes: the consequences' details (diffs) go first,
    /// then the consequences themselves (the summary and the reasons stay).
    pub fn fit(&mut self, max: usize) {
        let len = |r: &ApprovalRequest| serde_json::to_vec(r).map_or(usize::MAX, |v| v.len());
        if len(self) <= max {
            return;
        }
        for c in &mut self.consequences {
            c.detail = None;
        }
        if len(self) > max {
            self.rule_choices.clear();
        }
        while len(self) > max && self.consequences.pop().is_some() {}
    }
}

/// The only message a client may send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// Ask for approval.
    Request {
        /// Random, chosen by the client; stored with the row so only this client can redeem
        /// the approval.
        nonce: String,
        /// What to approve.
        request: ApprovalRequest,
    },
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A human approved (single use).
    Approved,
    /// A human denied (or the app quit).
    Denied,
    /// Nobody answered in time.
    Timeout,
    /// No answer possible (too many pending, store failure, shutting down).
    Unavailable,
    /// The user quit the app (after confirming) while the request was pending: nobody
    /// answered it. Callers act as with no app running and log it as withdrawn.
    Withdrawn,
}

impl Outcome {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Approved => "approved",
            Outcome::Denied => "denied",
            Outcome::Timeout => "timeout",
            Outcome::Unavailable => "unavailable",
            Outcome::Withdrawn => "withdrawn",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The broker's answer to a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalResponse {
    /// Approval row id (absent when no row was written).
    pub id: Option<i64>,
    /// How it ended.
    pub outcome: Outcome,
    /// An approval the human gave for the rest of the session (the same call again, in the
    /// same session, is released without asking). Absent: once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub for_session: bool,
}

/// What the broker writes back (exactly one line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The request ended.
    Response(ApprovalResponse),
    /// The message was refused; nothing was created or changed.
    Error {
        /// Stable code: `bad_request`, `peer_refused`, `too_long`, `read_failed`.
        code: String,
        /// Plain words.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req() -> ApprovalRequest {
        ApprovalRequest {
            host: "claude-code".into(),
            session_id: "s1".into(),
            cwd: "/w".into(),
            tool: "Bash".into(),
            summary: "git reset --hard".into(),
            reasons: vec![Reason {
                code: "git_destructive".into(),
                message: "Throws away uncommitted work.".into(),
            }],
            high_risk: false,
            deadline_ms: 5,
            consequences: Vec::new(),
            rule_choices: Vec::new(),
        }
    }

    #[test]
    fn wire_shapes_are_pinned() {
        let m = ClientMessage::Request {
            nonce: "n".into(),
            request: req(),
        };
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["type"], "request");
        assert_eq!(v["request"]["reasons"][0]["code"], "git_destructive");
        let r = ServerMessage::Response(ApprovalResponse {
            id: Some(7),
            outcome: Outcome::Timeout,
            for_session: false,
        });
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"type":"response","id":7,"outcome":"timeout"})
        );
        let s = ServerMessage::Response(ApprovalResponse {
            id: Some(8),
            outcome: Outcome::Approved,
            for_session: true,
        });
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            json!({"type":"response","id":8,"outcome":"approved","for_session":true})
        );
        let e = ServerMessage::Error {
            code: "bad_request".into(),
            message: "x".into(),
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type":"error","code":"bad_request","message":"x"})
        );
    }

    #[test]
    fn consequences_are_optional_and_bounded_by_fit() {
        // An older client's request (no `consequences`) still parses; none are sent empty.
        let old = json!({"type":"request","nonce":"n","request":req()});
        assert!(old["request"].get("consequences").is_none());
        let ClientMessage::Request { request, .. } =
            serde_json::from_value::<ClientMessage>(old).unwrap();
        assert!(request.consequences.is_empty());
        let mut r = req();
        r.consequences = vec![
            Consequence {
                kind: "writes".into(),
                text: "Edits 1 file: a".into(),
                detail: Some("+ x".repeat(1000)),
            },
            Consequence {
                kind: "reason".into(),
                text: "Because.".into(),
                detail: None,
            },
        ];
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v["consequences"][1],
            json!({"kind":"reason","text":"Because."})
        );
        let back: ApprovalRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
        // Too long: the diff goes first, then lines from the end.
        let mut f = r.clone();
        f.fit(1000);
        assert_eq!(f.consequences.len(), 2);
        assert!(f.consequences.iter().all(|c| c.detail.is_none()));
        f.fit(200);
        assert!(serde_json::to_vec(&f).unwrap().len() <= 200 || f.consequences.is_empty());
        assert_eq!(f.summary, r.summary);
        let mut bad = serde_json::to_value(&r).unwrap();
        bad["consequences"][0]["value"] = json!("x");
        assert!(serde_json::from_value::<ApprovalRequest>(bad).is_err());
    }

    #[test]
    fn only_requests_parse() {
        for forged in [
            json!({"type":"resolve","id":1,"outcome":"approved"}),
            json!({"type":"response","id":1,"outcome":"approved"}),
            json!({"type":"request","nonce":"n","request":req(),"approve":true}),
            json!({"type":"request","nonce":"n","request":{"host":"h"}}),
        ] {
            assert!(serde_json::from_value::<ClientMessage>(forged).is_err());
        }
    }
}
