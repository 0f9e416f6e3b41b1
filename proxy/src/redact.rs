//! Secrets in tool results: found by the engine's [`SecretScanner`], replaced by
//! `[REDACTED:<kind>]` before the client (and so the model) sees them.
//!
//! Covered: every `text` content item, the `text` of embedded resources, and every string in
//! `structuredContent`. A private-key header redacts through to its `-----END … KEY-----`
//! line (or the end of the text), so the key body never leaks past a redacted header.

use airlock_engine::SecretScanner;
use serde_json::{Value, json};

/// What to redact: secrets (unless the approved policy turned that off) and the opt-in kinds
/// and patterns of the policy file's `[mcp.redaction]`.
#[derive(Debug, Clone)]
pub struct Redactor {
    scanner: SecretScanner,
    secrets: bool,
    extra: Vec<(&'static str, regex::Regex)>,
}

/// A match to redact: where, and its kind (`[REDACTED:<kind>]`).
struct Hit {
    start: usize,
    end: usize,
    kind: &'static str,
}

impl Redactor {
    /// Secrets only (the default, and always for what a human is shown in a popup).
    pub fn secrets(scanner: &SecretScanner) -> Redactor {
        Redactor {
            scanner: scanner.clone(),
            secrets: true,
            extra: Vec::new(),
        }
    }

    /// As the policy file's `[mcp.redaction]` says. Errors name the key.
    pub fn from_config(
        scanner: &SecretScanner,
        cfg: &airlock_engine::RedactionConfig,
    ) -> Result<Redactor, String> {
        let mut r = Redactor::secrets(scanner);
        r.secrets = cfg.enabled;
        for kind in &cfg.extra {
            let (name, re) = match kind.as_str() {
                "email" => ("email", r"(?i)\b[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}\b"),
                "ipv4" => (
                    "ipv4",
                    r"\b(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\b",
                ),
                "ssn" => ("ssn", r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b"),
                other => {
                    return Err(format!(
                        "mcp.redaction.extra: unknown kind `{other}` (expected email, ipv4 or ssn)"
                    ));
                }
            };
            let re = regex::Regex::new(re).map_err(|e| format!("mcp.redaction.extra: {e}"))?;
            r.extra.push((name, re));
        }
        for (i, p) in cfg.patterns.iter().enumerate() {
            let re = regex::RegexBuilder::new(p)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("mcp.redaction.patterns[{i}]: not a valid regex: {e}"))?;
            r.extra.push(("custom", re));
        }
        Ok(r)
    }

    fn scan(&self, text: &str) -> Vec<Hit> {
        let mut hits: Vec<Hit> = Vec::new();
        if self.secrets {
            hits.extend(self.scanner.scan(text).into_iter().map(|m| Hit {
                start: m.start,
                end: m.end,
                kind: m.kind,
            }));
        }
        for (kind, re) in &self.extra {
            hits.extend(re.find_iter(text).map(|m| Hit {
                start: m.start(),
                end: m.end(),
                kind,
            }));
        }
        hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end)));
        hits
    }
}

/// Replace every secret (and opted-in kind) in `text`; returns the new text and how many
/// were replaced.
pub fn redact_text(redactor: &Redactor, text: &str) -> (String, usize) {
    let matches = redactor.scan(text);
    if matches.is_empty() {
        return (text.to_owned(), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    let mut n = 0usize;
    for m in matches {
        let mut end = m.end;
        if m.kind == "private_key" {
            end = text
                .get(m.end..)
                .and_then(|rest| {
                    let i = rest.find("-----END ")?;
                    let tail = rest.get(i + 9..)?;
                    let close = tail.find("-----")?;
                    Some(m.end + i + 9 + close + 5)
                })
                .unwrap_or(text.len());
        }
        if m.start < at {
            // Overlaps a range already redacted: extend it if needed.
            if end > at {
                at = end;
            }
            continue;
        }
        if let Some(before) = text.get(at..m.start) {
            out.push_str(before);
        }
        out.push_str("[REDACTED:");
        out.push_str(m.kind);
        out.push(']');
        at = end.max(m.start);
        n += 1;
    }
    if let Some(rest) = text.get(at..) {
        out.push_str(rest);
    }
    (out, n)
}

fn redact_string(scanner: &Redactor, s: &mut String) -> usize {
    let (new, n) = redact_text(scanner, s);
    if n > 0 {
        *s = new;
    }
    n
}

fn redact_all_strings(scanner: &Redactor, v: &mut Value, depth: u8) -> usize {
    if depth > 64 {
        return 0;
    }
    match v {
        Value::String(s) => redact_string(scanner, s),
        Value::Array(a) => a
            .iter_mut()
            .map(|x| redact_all_strings(scanner, x, depth + 1))
            .sum(),
        Value::Object(m) => m
            .values_mut()
            .map(|x| redact_all_strings(scanner, x, depth + 1))
            .sum(),
        _ => 0,
    }
}

/// Redact a result in place — `tools/call` (`content`, `structuredContent`),
/// `resources/read` (`contents[].text`) or `prompts/get` (`messages[].content`); returns how
/// many secrets were replaced.
pub fn redact_result(scanner: &Redactor, result: &mut Value) -> usize {
    let mut n = 0;
    if let Some(items) = result.get_mut("contents").and_then(Value::as_array_mut) {
        for item in items {
            if let Some(Value::String(t)) = item.get_mut("text") {
                n += redact_string(scanner, t);
            }
        }
    }
    if let Some(msgs) = result.get_mut("messages").and_then(Value::as_array_mut) {
        for m in msgs {
            if let Some(c) = m.get_mut("content") {
                n += redact_all_strings(scanner, c, 0);
            }
        }
    }
    if let Some(items) = result.get_mut("content").and_then(Value::as_array_mut) {
        for item in items {
            if let Some(Value::String(t)) = item.get_mut("text") {
                n += redact_string(scanner, t);
            }
            if let Some(Value::String(t)) = item.get_mut("resource").and_then(|r| r.get_mut("text"))
            {
                n += redact_string(scanner, t);
            }
        }
    }
    if let Some(sc) = result.get_mut("structuredContent") {
        n += redact_all_strings(scanner, sc, 0);
    }
    n
}

fn push_strings(v: &Value, out: &mut String, depth: u8) {
    if depth > 64 || out.len() > 8 * 1024 * 1024 {
        return;
    }
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| push_strings(x, out, depth + 1)),
        Value::Object(m) => m.values().for_each(|x| push_strings(x, out, depth + 1)),
        _ => {}
    }
}

/// The text of a result as the agent will read it (before redaction), for session memory.
pub fn result_text(result: &Value) -> String {
    let mut out = String::new();
    if let Some(items) = result.get("contents").and_then(Value::as_array) {
        for t in items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
        {
            out.push_str(t);
            out.push('\n');
        }
    }
    if let Some(msgs) = result.get("messages").and_then(Value::as_array) {
        for c in msgs.iter().filter_map(|m| m.get("content")) {
            push_strings(c, &mut out, 0);
        }
    }
    if let Some(items) = result.get("content").and_then(Value::as_array) {
        for item in items {
            if let Some(t) = item.get("text").and_then(Value::as_str) {
                out.push_str(t);
                out.push('\n');
            }
            if let Some(t) = item
                .get("resource")
                .and_then(|r| r.get("text"))
                .and_then(Value::as_str)
            {
                out.push_str(t);
                out.push('\n');
            }
        }
    }
    if let Some(sc) = result.get("structuredContent") {
        push_strings(sc, &mut out, 0);
    }
    out
}

/// Put Airlock's note in front of what the model reads of a result: a text item first in a
/// `tools/call` result's `content`, a text entry first in a `resources/read` result's
/// `contents`, a user message first in a `prompts/get` result's `messages`.
pub fn add_note(result: &mut Value, note: &str) {
    if let Some(items) = result.get_mut("content").and_then(Value::as_array_mut) {
        items.insert(0, json!({"type": "text", "text": note}));
    }
    if let Some(items) = result.get_mut("contents").and_then(Value::as_array_mut) {
        let uri = items
            .first()
            .and_then(|i| i.get("uri"))
            .cloned()
            .unwrap_or_else(|| Value::String("airlock:note".into()));
        items.insert(
            0,
            json!({"uri": uri, "mimeType": "text/plain", "text": note}),
        );
    }
    if let Some(msgs) = result.get_mut("messages").and_then(Value::as_array_mut) {
        msgs.insert(
            0,
            json!({"role": "user", "content": {"type": "text", "text": note}}),
        );
    }
}

/// Replace everything the model would read of a result with Airlock's note (the same shape,
/// so the client still parses it; a `tools/call` result is marked as an error).
pub fn withhold(result: &mut Value, note: &str) {
    let Some(obj) = result.as_object_mut() else {
        *result = json!({"content": [{"type": "text", "text": note}], "isError": true});
        return;
    };
    let uri = obj
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|i| i.get("uri"))
        .cloned();
    let had_contents = obj.contains_key("contents");
    let had_messages = obj.contains_key("messages");
    obj.remove("structuredContent");
    if had_contents {
        obj.insert(
            "contents".into(),
            json!([{"uri": uri.unwrap_or_else(|| Value::String("airlock:note".into())),
                    "mimeType": "text/plain", "text": note}]),
        );
    }
    if had_messages {
        obj.insert(
            "messages".into(),
            json!([{"role": "user", "content": {"type": "text", "text": note}}]),
        );
    }
    if !had_contents && !had_messages {
        obj.insert("content".into(), json!([{"type": "text", "text": note}]));
        obj.insert("isError".into(), Value::Bool(true));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GHP: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

    /// The policy file's opt-in kinds and patterns are redacted too; redaction turned off
    /// leaves secrets (only an approved policy can do that).
    #[test]
    fn configured_kinds_and_patterns() {
        let cfg = airlock_engine::RedactionConfig {
            enabled: true,
            extra: vec!["email".into(), "ipv4".into(), "ssn".into()],
            patterns: vec!["ACME-[0-9]{8}".into()],
        };
        let r = Redactor::from_config(&SecretScanner::new().unwrap(), &cfg).unwrap();
        let (t, n) = redact_text(
            &r,
            &format!(
                "mail bob@corp.example from 10.1.2.3, ssn 123-45-6789, id ACME-12345678, {GHP}"
            ),
        );
        assert_eq!(n, 5, "{t}");
        for leaked in ["bob@corp", "10.1.2.3", "123-45-6789", "ACME-1234", GHP] {
            assert!(!t.contains(leaked), "{t}");
        }
        assert!(
            t.contains("[REDACTED:email]") && t.contains("[REDACTED:custom]"),
            "{t}"
        );
        // Without opting in, e-mail addresses and addresses stay.
        let plain = Redactor::secrets(&SecretScanner::new().unwrap());
        assert_eq!(redact_text(&plain, "bob@corp.example 10.1.2.3").1, 0);
        let off = airlock_engine::RedactionConfig {
            enabled: false,
            ..airlock_engine::RedactionConfig::default()
        };
        let r = Redactor::from_config(&SecretScanner::new().unwrap(), &off).unwrap();
        assert_eq!(redact_text(&r, GHP).1, 0);
        for bad in [
            airlock_engine::RedactionConfig {
                extra: vec!["phone".into()],
                ..Default::default()
            },
            airlock_engine::RedactionConfig {
                patterns: vec!["(".into()],
                ..Default::default()
            },
        ] {
            assert!(Redactor::from_config(&SecretScanner::new().unwrap(), &bad).is_err());
        }
    }

    /// A flag puts the note first and keeps the content; a withhold leaves only the note, in
    /// each result shape.
    #[test]
    fn notes_and_withholding_keep_the_shape() {
        let mut call = json!({"content": [{"type": "text", "text": "page"}], "structuredContent": {"a": "page"}});
        add_note(&mut call, "NOTE");
        assert_eq!(call["content"][0]["text"], "NOTE");
        assert_eq!(call["content"][1]["text"], "page");
        withhold(&mut call, "NOTE");
        assert_eq!(call["content"], json!([{"type": "text", "text": "NOTE"}]));
        assert_eq!(call["isError"], true);
        assert!(call.get("structuredContent").is_none());
        assert!(!result_text(&call).contains("page"));

        let mut res = json!({"contents": [{"uri": "file:///r.md", "text": "page"}]});
        add_note(&mut res, "NOTE");
        assert_eq!(res["contents"][0]["uri"], "file:///r.md");
        assert_eq!(res["contents"][0]["text"], "NOTE");
        withhold(&mut res, "NOTE");
        assert_eq!(res["contents"].as_array().map(Vec::len), Some(1));
        assert!(!result_text(&res).contains("page"));

        let mut prompt =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "page"}}]});
        withhold(&mut prompt, "NOTE");
        assert!(!result_text(&prompt).contains("page"));
        assert!(result_text(&prompt).contains("NOTE"));
    }

    #[test]
    fn redacts_tokens_in_text() {
        let s = Redactor::secrets(&SecretScanner::new().unwrap());
        let (t, n) = redact_text(&s, &format!("token={GHP}\nother line"));
        assert_eq!(n, 1);
        assert!(!t.contains(GHP), "{t}");
        assert!(t.contains("[REDACTED:"), "{t}");
        assert!(t.ends_with("other line"));
        let (t, n) = redact_text(&s, "nothing secret here");
        assert_eq!((t.as_str(), n), ("nothing secret here", 0));
        let (t, n) = redact_text(&s, &format!("a {GHP} b {GHP} c"));
        assert_eq!(n, 2);
        assert_eq!(t, "a [REDACTED:github_token] b [REDACTED:github_token] c");
    }

    #[test]
    fn private_keys_are_redacted_whole() {
        let s = Redactor::secrets(&SecretScanner::new().unwrap());
        let pem = "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter";
        let (t, n) = redact_text(&s, pem);
        assert_eq!(n, 1);
        assert_eq!(t, "before\n[REDACTED:private_key]\nafter");
        let (t, _) = redact_text(&s, "-----BEGIN RSA PRIVATE KEY-----\nMIIEow truncated");
        assert_eq!(t, "[REDACTED:private_key]");
    }

    #[test]
    fn redacts_every_text_item_resource_and_structured_content() {
        let s = Redactor::secrets(&SecretScanner::new().unwrap());
        let mut r = json!({
            "content": [
                {"type": "text", "text": format!("one {GHP}")},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///x", "text": format!("two {GHP}")}},
                {"type": "text", "text": "clean"}
            ],
            "structuredContent": {"env": {"GITHUB_TOKEN": GHP}, "n": 1},
            "isError": false
        });
        let text_before = result_text(&r);
        assert!(text_before.contains(GHP));
        assert_eq!(redact_result(&s, &mut r), 3);
        let out = r.to_string();
        assert!(!out.contains(GHP), "{out}");
        assert_eq!(r["content"][3]["text"], "clean");
        assert_eq!(r["content"][1]["data"], "aGVsbG8=");
        assert_eq!(r["isError"], false);
    }

    #[test]
    fn redacts_resource_contents_and_prompt_messages() {
        let s = Redactor::secrets(&SecretScanner::new().unwrap());
        let mut r = json!({
            "contents": [
                {"uri": "file:///p/.env", "mimeType": "text/plain", "text": format!("GITHUB_TOKEN={GHP}")},
                {"uri": "file:///p/logo.png", "blob": "aGVsbG8="}
            ],
            "messages": [
                {"role": "user", "content": {"type": "text", "text": format!("use {GHP}")}},
                {"role": "assistant", "content": {"type": "text", "text": "fine"}}
            ]
        });
        assert!(result_text(&r).contains(GHP));
        assert_eq!(redact_result(&s, &mut r), 2);
        assert!(!r.to_string().contains(GHP), "{r}");
        assert_eq!(r["contents"][1]["blob"], "aGVsbG8=");
        assert_eq!(r["contents"][0]["uri"], "file:///p/.env");
        assert_eq!(r["messages"][1]["content"]["text"], "fine");
    }
}
