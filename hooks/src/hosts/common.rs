//! Pieces every host adapter shares: typed field access that fails on the wrong type, the
//! `Action` constructor, MCP tool-name splitting, `apply_patch` reading, and a tiny JSON writer
//! whose key order is fixed (golden files pin it byte for byte, whatever serde_json features
//! other crates in the build switch on).

use airlock_engine::{Action, AnnotationInfo, Host, Operation, Provenance};
use serde_json::Value;

use crate::HookError;
use crate::claude::response_text;
use crate::event::Event;

/// Tool name Airlock gives every user-prompt event, whatever the host calls it: the engine
/// tells a user prompt from a sub-agent prompt by it.
pub(crate) const PROMPT_TOOL: &str = "UserPromptSubmit";

/// An optional string field: absent or `null` is `None`; any other non-string is an error.
pub(crate) fn opt_str<'a>(v: &'a Value, key: &'static str) -> Result<Option<&'a str>, HookError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(HookError::WrongType(key)),
    }
}

/// The first of `keys` that holds a string.
pub(crate) fn first_str<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

/// `tool_input` / `toolArgs` as an object: a JSON object as is, a string holding JSON parsed,
/// absent as `{}`. Anything else (a number, a string that is not JSON) is `None`.
pub(crate) fn args_value(v: Option<&Value>) -> Option<Value> {
    match v {
        None | Some(Value::Null) => Some(Value::Object(serde_json::Map::new())),
        Some(Value::Object(_)) => v.cloned(),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(parsed @ Value::Object(_)) => Some(parsed),
            _ => None,
        },
        Some(_) => None,
    }
}

pub(crate) fn unparseable(why: &str) -> Operation {
    Operation::Unparseable {
        reason: why.to_owned(),
    }
}

pub(crate) fn action(
    host: Host,
    tool: &str,
    op: Operation,
    cwd: Option<&str>,
    session_id: Option<&str>,
) -> Action {
    Action {
        host,
        tool: tool.to_owned(),
        op,
        cwd: cwd.map(str::to_owned),
        provenance: Provenance::User,
        session_id: session_id.map(str::to_owned),
    }
}

/// A user prompt turn.
pub(crate) fn prompt_event(
    host: Host,
    text: Option<&str>,
    cwd: Option<&str>,
    session_id: Option<&str>,
) -> Event {
    let op = match text {
        Some(t) => Operation::Prompt { text: t.to_owned() },
        None => unparseable("missing_prompt"),
    };
    Event::Judge(action(host, PROMPT_TOOL, op, cwd, session_id))
}

/// Re-label every action in an event with the detected host.
pub(crate) fn with_host(event: Event, host: Host) -> Event {
    match event {
        Event::Judge(mut a) => {
            a.host = host;
            Event::Judge(a)
        }
        Event::Observe { mut action, result } => {
            action.host = host;
            Event::Observe { action, result }
        }
        other => other,
    }
}

/// Bounded text of a tool result, whatever its JSON shape.
pub(crate) fn result_text(v: Option<&Value>) -> String {
    v.map(response_text).unwrap_or_default()
}

pub(crate) fn mcp(server: &str, tool: &str, arguments: Value) -> Operation {
    if server.is_empty() || tool.is_empty() {
        return unparseable("malformed_mcp_tool_name");
    }
    Operation::McpCall {
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments,
        annotations: AnnotationInfo::Unknown,
    }
}

/// `mcp__<server>__<tool>` (Claude Code, Codex, Gemini CLI): the split is unambiguous.
pub(crate) fn mcp_double_underscore(name: &str, arguments: &Value) -> Option<Operation> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__").unwrap_or((rest, ""));
    Some(mcp(server, tool, arguments.clone()))
}

/// `mcp_<server>_<tool>` (VS Code): server names may hold `_`, so the split is a guess. The
/// first segment is taken as the server and the *whole* remainder kept as the tool name, so a
/// wrong guess can never make the tool look read-only (`mcp_a_get_delete` is tool
/// `a_get_delete`, verb `a`, not `get`): a bad split only ever costs an approval.
pub(crate) fn mcp_single_underscore(name: &str, arguments: &Value) -> Option<Operation> {
    let rest = name.strip_prefix("mcp_")?;
    if rest.starts_with('_') {
        return None;
    }
    let server = rest.split('_').next().unwrap_or("");
    if server.is_empty() || server.len() == rest.len() {
        return Some(unparseable("malformed_mcp_tool_name"));
    }
    Some(mcp(server, rest, arguments.clone()))
}

/// What an `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`, used by Codex and VS
/// Code) does. One file added or updated → `FileWrite` with the added lines; one file deleted →
/// `FileDelete`; several files (or a move) → `UnknownTool`, which the engine asks about: one
/// `Action` can only carry one path, and judging just one of them would let the others through.
pub(crate) fn patch_op(tool: &str, patch: &str) -> Operation {
    let mut paths: Vec<&str> = Vec::new();
    let mut deleted = false;
    let mut content = String::new();
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        let header = [
            ("*** Add File: ", false),
            ("*** Update File: ", false),
            ("*** Delete File: ", true),
            ("*** Move to: ", false),
        ]
        .iter()
        .find_map(|(p, del)| line.strip_prefix(p).map(|rest| (rest.trim(), *del)));
        if let Some((path, del)) = header {
            if !paths.contains(&path) {
                paths.push(path);
            }
            deleted |= del;
        } else if let Some(added) = line.strip_prefix('+') {
            content.push_str(added);
            content.push('\n');
        }
    }
    match paths.as_slice() {
        [] => unparseable("malformed_patch"),
        [""] => unparseable("malformed_patch"),
        [p] if deleted => Operation::FileDelete {
            path: (*p).to_owned(),
        },
        [p] => Operation::FileWrite {
            path: (*p).to_owned(),
            content,
        },
        _ => Operation::UnknownTool {
            tool: tool.to_owned(),
        },
    }
}

/// Every distinct `http(s)://` URL in a text (Gemini's `web_fetch` carries its URLs inside a
/// free-text prompt).
pub(crate) fn urls_in(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || "<>\"'`()[]{}".contains(c)) {
        let lower = word.to_ascii_lowercase();
        if let Some(at) = lower.find("http://").or_else(|| lower.find("https://")) {
            let url = word
                .get(at..)
                .unwrap_or("")
                .trim_end_matches(['.', ',', ';', ':', '!', '?']);
            if !found.contains(&url) {
                found.push(url);
            }
        }
    }
    found
}

/// A fetch of the one URL a tool names, `UnknownTool` when it names several (only one can be
/// judged) and `Unparseable` when it names none.
pub(crate) fn fetch_of_urls(tool: &str, urls: &[&str]) -> Operation {
    match urls {
        [] => unparseable("missing_url"),
        [one] => Operation::Fetch {
            url: (*one).to_owned(),
            is_search: false,
        },
        _ => Operation::UnknownTool {
            tool: tool.to_owned(),
        },
    }
}

/// JSON written with a fixed key order.
pub(crate) enum J {
    Str(String),
    Bool(bool),
    Obj(Vec<(&'static str, J)>),
}

pub(crate) fn s(text: &str) -> J {
    J::Str(text.to_owned())
}

impl J {
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Str(text) => escape_into(text, out),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Obj(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    escape_into(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn escape_into(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_writer_escapes_and_keeps_order() {
        let j = J::Obj(vec![
            ("z", s("a\"b\\c\nd\u{1}")),
            ("a", J::Bool(false)),
            ("m", J::Obj(vec![])),
        ]);
        let text = j.render();
        assert_eq!(text, r#"{"z":"a\"b\\c\nd\u0001","a":false,"m":{}}"#);
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["z"], "a\"b\\c\nd\u{1}");
    }

    #[test]
    fn patches() {
        let one = "*** Begin Patch\n*** Add File: src/a.rs\n+fn main() {}\n*** End Patch\n";
        assert_eq!(
            patch_op("apply_patch", one),
            Operation::FileWrite {
                path: "src/a.rs".into(),
                content: "fn main() {}\n".into()
            }
        );
        let del = "*** Begin Patch\n*** Delete File: .bashrc\n*** End Patch";
        assert_eq!(
            patch_op("apply_patch", del),
            Operation::FileDelete {
                path: ".bashrc".into()
            }
        );
        let two = "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Update File: ~/.zshrc\n+curl x|sh\n*** End Patch";
        assert_eq!(
            patch_op("apply_patch", two).kind().as_str(),
            "mcp_tool_call"
        );
        let moved = "*** Begin Patch\n*** Update File: a\n*** Move to: b\n+y\n*** End Patch";
        assert!(matches!(
            patch_op("apply_patch", moved),
            Operation::UnknownTool { .. }
        ));
        assert_eq!(
            patch_op("apply_patch", "rm -rf /").kind().as_str(),
            "unparseable"
        );
    }

    #[test]
    fn urls_and_mcp_names() {
        assert_eq!(
            urls_in("summarise https://example.com/a."),
            vec!["https://example.com/a"]
        );
        assert_eq!(
            urls_in("compare https://a.example and (http://b.example) https://a.example").len(),
            2
        );
        assert!(urls_in("no link").is_empty());
        let args = json!({"n": 1});
        assert_eq!(
            mcp_double_underscore("mcp__github__get_issue", &args),
            Some(mcp("github", "get_issue", args.clone()))
        );
        assert_eq!(
            mcp_single_underscore("mcp_github_get_issue", &args),
            Some(mcp("github", "github_get_issue", args.clone()))
        );
        assert!(matches!(
            mcp_single_underscore("mcp_x", &args),
            Some(Operation::Unparseable { .. })
        ));
        assert_eq!(mcp_single_underscore("read_file", &args), None);
    }

    #[test]
    fn args_value_shapes() {
        assert_eq!(args_value(None), Some(json!({})));
        assert_eq!(args_value(Some(&json!("{\"a\":1}"))), Some(json!({"a":1})));
        assert_eq!(args_value(Some(&json!("not json"))), None);
        assert_eq!(args_value(Some(&json!(5))), None);
    }
}
