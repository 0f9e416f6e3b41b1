//! The channel: one announcement per request out (ntfy / webhook / Slack), answers in by
//! polling an ntfy-style topic. Blocking HTTP (`ureq`), bounded in time and size, no
//! redirects followed.

use std::time::Duration;

use airlock_broker::PendingRequest;
use airlock_core::remote::{ChannelKind, RemoteConfig};
use serde::Deserialize;

use crate::RemoteError;

/// Longest answer-topic response read (bytes).
const MAX_POLL_BODY: u64 = 256 * 1024;
/// Most messages considered from one poll.
const MAX_POLL_MESSAGES: usize = 100;
/// Longest summary put in an announcement (characters).
const MAX_SUMMARY: usize = 400;
/// Most reason codes named.
const MAX_REASONS: usize = 8;

/// One message read from the answer topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// The topic's message id (used as the next `since`).
    pub id: String,
    /// Unix seconds, as the topic server stamped it.
    pub time: i64,
    /// The text.
    pub message: String,
}

#[derive(Deserialize)]
struct NtfyLine {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    time: Option<i64>,
    #[serde(default)]
    event: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// Parses an ntfy `json?poll=1` body: one JSON object per line; lines that are not a
/// `message` event with an id are skipped.
pub fn parse_poll(body: &str) -> Vec<Incoming> {
    body.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<NtfyLine>(l).ok())
        .filter(|m| m.event.as_deref().is_none_or(|e| e == "message"))
        .filter_map(|m| {
            Some(Incoming {
                id: m.id.filter(|i| !i.is_empty() && i.len() <= 64)?,
                time: m.time.unwrap_or(0),
                message: m.message.unwrap_or_default(),
            })
        })
        .take(MAX_POLL_MESSAGES)
        .collect()
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or_default()),
        None => s.to_owned(),
    }
}

/// Only printable characters of one line (no control characters, no line breaks).
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// What is announced for a request: the broker's already-redacted summary, reason codes, the
/// deadline and how to answer. Never the payload, never anything secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// ASCII title (ntfy `Title` header).
    pub title: String,
    /// The plain-words text.
    pub text: String,
    /// The JSON a webhook gets.
    pub json: serde_json::Value,
    /// High risk (ntfy priority 5, else 4).
    pub high_risk: bool,
}

/// Builds the announcement of `p`, `now_ms` being the wall clock.
pub fn announcement(p: &PendingRequest, now_ms: i64) -> Announcement {
    let codes: Vec<String> = p
        .reasons
        .iter()
        .take(MAX_REASONS)
        .map(|r| one_line(&clip(&r.code, 64)))
        .collect();
    let summary = one_line(&clip(&p.summary, MAX_SUMMARY));
    let tool = one_line(&clip(&p.tool, 64));
    let host = one_line(&clip(&p.host, 64));
    let left_s = (p.deadline_ms.saturating_sub(now_ms) / 1000).max(0);
    let approve = format!("approve {} <6-digit code from your authenticator>", p.id);
    let deny = format!("deny {}", p.id);
    let risk = if p.high_risk { "HIGH RISK. " } else { "" };
    let text = format!(
        "Airlock asks: may {host} run {tool}? Request {id}.\n{risk}What: {summary}\nWhy: {why}\n\
         Answer within {left_s} s on the answer topic:\n  {approve}\n  {deny}\n\
         Approving needs a fresh TOTP code and counts once; no answer means no.",
        id = p.id,
        why = if codes.is_empty() {
            "-".to_owned()
        } else {
            codes.join(", ")
        },
    );
    let title = format!(
        "Airlock: approve request {}?{}",
        p.id,
        if p.high_risk { " (high risk)" } else { "" }
    );
    let json = serde_json::json!({
        "source": "airlock",
        "id": p.id,
        "host": host,
        "tool": tool,
        "summary": summary,
        "reasons": codes,
        "high_risk": p.high_risk,
        "deadline_ms": p.deadline_ms,
        "answer": {"approve": approve, "deny": deny},
        "text": text,
    });
    Announcement {
        title,
        text,
        json,
        high_risk: p.high_risk,
    }
}

/// The HTTP side of one configured channel.
pub struct Channel {
    agent: ureq::Agent,
    kind: ChannelKind,
    notify_url: String,
    answer_url: String,
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URLs name the topics, which work like passwords: not printed.
        f.debug_struct("Channel").field("kind", &self.kind).finish()
    }
}

fn http_err(e: ureq::Error) -> RemoteError {
    RemoteError::Http(match e {
        ureq::Error::StatusCode(s) => format!("HTTP status {s}"),
        ureq::Error::Timeout(_) => "timed out".to_owned(),
        ureq::Error::Io(e) => format!("I/O: {}", e.kind()),
        ureq::Error::HostNotFound => "host not found".to_owned(),
        other => {
            // ureq's messages can quote the URL, which names the topic: keep the kind only.
            let s = other.to_string();
            clip(s.split(':').next().unwrap_or("error"), 60)
        }
    })
}

impl Channel {
    /// A channel for `cfg`, with every request bounded by `timeout`.
    pub fn new(cfg: &RemoteConfig, timeout: Duration) -> Channel {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .http_status_as_error(true)
            .user_agent("airlock-remote-approval")
            .build()
            .into();
        Channel {
            agent,
            kind: cfg.kind,
            notify_url: cfg.notify_url.trim().to_owned(),
            answer_url: cfg.answer_url.trim().trim_end_matches('/').to_owned(),
        }
    }

    /// Publishes one announcement.
    pub fn publish(&self, a: &Announcement) -> Result<(), RemoteError> {
        let req = self.agent.post(&self.notify_url);
        let sent = match self.kind {
            ChannelKind::Ntfy => req
                .header("Title", &a.title)
                .header("Priority", if a.high_risk { "5" } else { "4" })
                .header("Tags", "lock")
                .content_type("text/plain; charset=utf-8")
                .send(a.text.as_str()),
            ChannelKind::Webhook => req
                .content_type("application/json")
                .send(a.json.to_string().as_str()),
            ChannelKind::Slack => req
                .content_type("application/json")
                .send(serde_json::json!({"text": a.text}).to_string().as_str()),
        };
        sent.map(|_| ()).map_err(http_err)
    }

    /// Reads the answer topic's messages after `since` (a message id, or unix seconds).
    pub fn poll(&self, since: &str) -> Result<Vec<Incoming>, RemoteError> {
        let since: String = since
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        let url = format!("{}/json?poll=1&since={since}", self.answer_url);
        let mut resp = self.agent.get(&url).call().map_err(http_err)?;
        let body = resp
            .body_mut()
            .with_config()
            .limit(MAX_POLL_BODY)
            .read_to_string()
            .map_err(http_err)?;
        Ok(parse_poll(&body))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code
    use super::*;
    use airlock_broker::Reason;

    fn pending(summary: &str, high_risk: bool) -> PendingRequest {
        PendingRequest {
            id: 42,
            host: "claude-code".into(),
            session_id: "sess-secret-id".into(),
            cwd: "/home/dev/private-project".into(),
            tool: "Bash".into(),
            summary: summary.into(),
            reasons: vec![Reason {
                code: "git_discard_work".into(),
                message: "discards work".into(),
            }],
            consequences: Vec::new(),
            rule_choices: Vec::new(),
            high_risk,
            created_ms: 1_000,
            deadline_ms: 121_000,
            armed_ms: 2_500,
        }
    }

    #[test]
    fn announcement_names_the_request_and_how_to_answer_and_nothing_private() {
        let a = announcement(&pending("git reset --hard\nHEAD~3", true), 1_000);
        assert!(a.text.contains("Request 42"), "{}", a.text);
        assert!(a.text.contains("approve 42 <6-digit code"), "{}", a.text);
        assert!(a.text.contains("deny 42"), "{}", a.text);
        assert!(a.text.contains("within 120 s"), "{}", a.text);
        assert!(a.text.contains("git_discard_work"));
        assert!(a.text.contains("HIGH RISK"));
        assert!(
            a.text.contains("git reset --hard HEAD~3"),
            "newline flattened"
        );
        assert!(a.title.is_ascii());
        for private in ["sess-secret-id", "private-project", "discards work"] {
            assert!(!a.text.contains(private), "{private}");
            assert!(!a.json.to_string().contains(private), "{private}");
        }
        assert_eq!(a.json["id"], 42);
        assert_eq!(a.json["high_risk"], true);
        assert_eq!(a.json["reasons"][0], "git_discard_work");
        let long = announcement(&pending(&"x".repeat(5000), false), 200_000);
        assert!(long.text.len() < 1200);
        assert!(long.text.contains("within 0 s"));
        assert!(!long.text.contains("HIGH RISK"));
    }

    #[test]
    fn poll_lines_keep_messages_only() {
        let body = concat!(
            "{\"id\":\"a1\",\"time\":10,\"event\":\"message\",\"message\":\"deny 3\"}\n",
            "{\"id\":\"k1\",\"time\":11,\"event\":\"keepalive\"}\n",
            "not json\n",
            "\n",
            "{\"time\":12,\"event\":\"message\",\"message\":\"no id\"}\n",
            "{\"id\":\"a2\",\"time\":13,\"message\":\"approve 3 123456\"}\n",
        );
        let got = parse_poll(body);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].id, "a1");
        assert_eq!(got[1].message, "approve 3 123456");
    }
}
