//! Claude Code hook payloads (stdin JSON of `PreToolUse`, `PostToolUse`, `UserPromptSubmit`).

use airlock_engine::{Action, AnnotationInfo, Host, Operation, Provenance};
use serde::Deserialize;
use serde_json::Value;

use crate::{HookError, MAX_RESULT_BYTES};

/// The stdin object Claude Code sends to every hook. Unknown fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub transcript_path: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub permission_mode: Option<String>,
    pub hook_event_name: String,
    #[serde(default)]
    pub tool_name: Option<String>,
    #[serde(default)]
    pub tool_input: Option<Value>,
    #[serde(default)]
    pub tool_response: Option<Value>,
    #[serde(default)]
    pub prompt: Option<String>,
}

pub use crate::event::Event;

/// Parse raw stdin bytes into a payload. Every failure is an error with a stable code; the
/// caller turns it into a denial.
pub fn parse(bytes: &[u8]) -> Result<HookInput, HookError> {
    from_value(crate::read_payload(bytes)?)
}

/// Type an already-read payload object (see [`crate::read_payload`]) as Claude Code's input.
/// The same checks as [`parse`]: `hook_event_name` must be a string, `tool_name` a string if
/// present.
pub fn from_value(v: Value) -> Result<HookInput, HookError> {
    if !v.is_object() {
        return Err(HookError::WrongType("payload"));
    }
    match v.get("hook_event_name") {
        None => return Err(HookError::Missing("hook_event_name")),
        Some(Value::String(_)) => {}
        Some(_) => return Err(HookError::WrongType("hook_event_name")),
    }
    if let Some(t) = v.get("tool_name")
        && !t.is_string()
        && !t.is_null()
    {
        return Err(HookError::WrongType("tool_name"));
    }
    // Syntax was checked when the bytes were read; what fails here is a field of the wrong type.
    serde_json::from_value(v).map_err(|_| HookError::WrongType("payload"))
}

fn str_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// Host-internal tools: no effect outside the agent itself.
const INTERNAL_TOOLS: &[&str] = &[
    "TodoWrite",
    "TodoRead",
    "ExitPlanMode",
    "EnterPlanMode",
    "BashOutput",
    "KillShell",
    "KillBash",
    "SlashCommand",
    "Skill",
    "AskUserQuestion",
    "Glob",
    "LS",
    "ListMcpResourcesTool",
];

/// Normalise a tool call into an [`Action`].
pub fn to_action(input: &HookInput) -> Action {
    let tool = input.tool_name.clone().unwrap_or_default();
    let ti = input.tool_input.clone().unwrap_or(Value::Null);
    let unparseable = |why: &str| Operation::Unparseable {
        reason: why.to_owned(),
    };
    let op = match tool.as_str() {
        "" => unparseable("missing_tool_name"),
        // Claude Code on Windows runs commands through its PowerShell tool: judged as a
        // command line (PowerShell is read as the POSIX line it amounts to).
        "Bash" | "PowerShell" => match str_field(&ti, "command") {
            Some(c) => Operation::Shell {
                command: c.to_owned(),
            },
            None => unparseable("missing_command"),
        },
        "Read" | "NotebookRead" => {
            match str_field(&ti, "file_path").or_else(|| str_field(&ti, "notebook_path")) {
                Some(p) => Operation::FileRead { path: p.to_owned() },
                None => unparseable("missing_file_path"),
            }
        }
        "Write" => match (str_field(&ti, "file_path"), str_field(&ti, "content")) {
            (Some(p), c) => Operation::FileWrite {
                path: p.to_owned(),
                content: c.unwrap_or("").to_owned(),
            },
            _ => unparseable("missing_file_path"),
        },
        "Edit" | "MultiEdit" | "NotebookEdit" => {
            let path = str_field(&ti, "file_path").or_else(|| str_field(&ti, "notebook_path"));
            let mut content = String::new();
            for key in ["new_string", "new_source"] {
                if let Some(s) = str_field(&ti, key) {
                    content.push_str(s);
                }
            }
            if let Some(edits) = ti.get("edits").and_then(Value::as_array) {
                for e in edits {
                    if let Some(s) = str_field(e, "new_string") {
                        content.push('\n');
                        content.push_str(s);
                    }
                }
            }
            match path {
                Some(p) => Operation::FileWrite {
                    path: p.to_owned(),
                    content,
                },
                None => unparseable("missing_file_path"),
            }
        }
        "Grep" => match str_field(&ti, "path") {
            Some(p) => Operation::FileRead { path: p.to_owned() },
            None => Operation::Internal { tool: tool.clone() },
        },
        "WebFetch" => match str_field(&ti, "url") {
            Some(u) => Operation::Fetch {
                url: u.to_owned(),
                is_search: false,
            },
            None => unparseable("missing_url"),
        },
        "WebSearch" => match str_field(&ti, "query") {
            Some(q) => Operation::Fetch {
                url: q.to_owned(),
                is_search: true,
            },
            None => unparseable("missing_query"),
        },
        // A sub-agent's instructions: judged for secrets and destinations it names.
        "Task" | "Agent" => Operation::Prompt {
            text: str_field(&ti, "prompt").unwrap_or("").to_owned(),
        },
        t if INTERNAL_TOOLS.contains(&t) => Operation::Internal { tool: tool.clone() },
        t if t.starts_with("mcp__") => {
            let mut parts = t.splitn(3, "__").skip(1);
            let server = parts.next().unwrap_or("").to_owned();
            let name = parts.next().unwrap_or("").to_owned();
            if server.is_empty() || name.is_empty() {
                unparseable("malformed_mcp_tool_name")
            } else {
                Operation::McpCall {
                    server,
                    tool: name,
                    arguments: ti.clone(),
                    annotations: AnnotationInfo::Unknown,
                }
            }
        }
        _ => Operation::UnknownTool { tool: tool.clone() },
    };
    Action {
        host: Host::ClaudeCode,
        tool,
        op,
        cwd: input.cwd.clone(),
        provenance: Provenance::User,
        session_id: input.session_id.clone(),
    }
}

/// Every string in a tool response, joined (bounded), as the agent will read it.
pub fn response_text(v: &Value) -> String {
    let mut out = String::new();
    collect(v, &mut out, 0);
    out
}

fn collect(v: &Value, out: &mut String, depth: u8) {
    if depth > 32 || out.len() >= MAX_RESULT_BYTES {
        return;
    }
    match v {
        Value::String(s) => {
            let room = MAX_RESULT_BYTES.saturating_sub(out.len());
            let mut end = s.len().min(room);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(s.get(..end).unwrap_or(""));
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| collect(x, out, depth + 1)),
        Value::Object(m) => m.values().for_each(|x| collect(x, out, depth + 1)),
        _ => {}
    }
}

/// Interpret one payload.
pub fn event(input: &HookInput) -> Event {
    match input.hook_event_name.as_str() {
        "PreToolUse" | "PermissionRequest" => Event::Judge(to_action(input)),
        "PostToolUse" => Event::Observe {
            action: to_action(input),
            result: input
                .tool_response
                .as_ref()
                .map(response_text)
                .unwrap_or_default(),
        },
        "UserPromptSubmit" => Event::Judge(Action {
            host: Host::ClaudeCode,
            tool: "UserPromptSubmit".into(),
            op: Operation::Prompt {
                text: input.prompt.clone().unwrap_or_default(),
            },
            cwd: input.cwd.clone(),
            provenance: Provenance::User,
            session_id: input.session_id.clone(),
        }),
        other => Event::Ignore(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_mapping_table() {
        let cases = [
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
                "shell",
            ),
            // Claude Code's PowerShell tool on Windows.
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"PowerShell","tool_input":{"command":"Remove-Item -Recurse -Force $env:USERPROFILE"}}"#,
                "shell",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/a"}}"#,
                "file_read",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/a","content":"x"}}"#,
                "file_write",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":"/a","edits":[{"old_string":"a","new_string":"b"}]}}"#,
                "file_write",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://x.example","prompt":"p"}}"#,
                "network_fetch",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"mcp__github__get_issue","tool_input":{"n":1}}"#,
                "mcp_tool_call",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"cmd":"ls"}}"#,
                "unparseable",
            ),
            (
                r#"{"hook_event_name":"PreToolUse","tool_name":"mcp__broken","tool_input":{}}"#,
                "unparseable",
            ),
        ];
        for (json, kind) in cases {
            let input = parse(json.as_bytes()).unwrap();
            assert_eq!(to_action(&input).kind().as_str(), kind, "{json}");
        }
    }

    #[test]
    fn bad_payloads_have_codes() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "empty_input"),
            (b"   \n", "empty_input"),
            (b"{\"hook_event_name\":", "malformed_json"),
            (b"\xff\xfe", "non_utf8_input"),
            (b"[1,2]", "unknown_shape"),
            (b"{}", "unknown_shape"),
            (b"{\"hook_event_name\":5}", "unknown_shape"),
            (
                b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":[]}",
                "unknown_shape",
            ),
        ];
        for (bytes, code) in cases {
            assert_eq!(parse(bytes).unwrap_err().code(), *code, "{bytes:?}");
        }
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(deep.as_bytes()).is_err());
    }

    #[test]
    fn response_text_collects_strings() {
        let v =
            serde_json::json!({"type":"text","file":{"filePath":"/p/.env","content":"A=1\nB=2"}});
        let t = response_text(&v);
        assert!(t.contains("A=1\nB=2"));
    }
}
