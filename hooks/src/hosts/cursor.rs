//! Cursor (<https://cursor.com/docs/agent/hooks>, `hooks.json` version 1; third-party hooks:
//! <https://cursor.com/docs/reference/third-party-hooks> — Cursor also runs the hooks in
//! `~/.claude/settings.json`, mapping Claude's event names to its own).
//!
//! In (all events): `conversation_id`, `generation_id`, `model`, `hook_event_name`,
//! `cursor_version`, `workspace_roots`, `user_email`; per event:
//! - `beforeShellExecution`: `command`, `cwd` → `{"permission", "user_message", "agent_message"}`
//! - `beforeMCPExecution`: `tool_name`, `tool_input` (a JSON *string*), plus `url` or `command`
//!   of the server (newer builds add `mcp_server_name`) → same permission object
//! - `beforeReadFile` (and Tab's `beforeTabFileRead`): `file_path`, `content` → `permission`
//! - `beforeSubmitPrompt`: `prompt`, `attachments` → `{"continue": bool, "user_message"}`
//! - `preToolUse` (newer builds): `tool_name` (`Shell`, `Read`, `Write`, …), `tool_input`
//! - `afterShellExecution` (`output`), `afterMCPExecution` (`result_json`), `afterFileEdit`
//!   (`file_path`, `edits`), `postToolUse`: observed, answered `{}`.
//!
//! Out: a denial is the permission object with `"deny"` and exit 2 (Cursor treats exit 2 as a
//! deny, Claude-compatible — which also covers Cursor parsing a Claude-configured hook's output
//! its own way). `"ask"` is documented for shell/MCP but reported downgraded to deny since Cursor
//! 2.4.21, and was never offered for file reads or prompts: Airlock does not use it on Cursor.

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{
    J, action, args_value, mcp, mcp_double_underscore, opt_str, prompt_event, result_text, s,
    unparseable,
};
use super::{
    Parsed, Slot, answer, claude_vocabulary, delete_op, read_op, search_op, shell_op, write_op,
};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// Keys only Cursor sends.
pub(crate) const MARKERS: &[&str] = &[
    "conversation_id",
    "generation_id",
    "cursor_version",
    "workspace_roots",
];

/// Cursor's own event names.
pub(crate) const EVENTS: &[&str] = &[
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
    "beforeTabFileRead",
    "beforeSubmitPrompt",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "afterShellExecution",
    "afterMCPExecution",
    "afterFileEdit",
    "afterTabFileEdit",
    "afterAgentResponse",
    "afterAgentThought",
    "sessionStart",
    "sessionEnd",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "stop",
];

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let event_name = opt_str(v, "hook_event_name")?.ok_or(HookError::Missing("hook_event_name"))?;
    let session = match opt_str(v, "conversation_id")? {
        Some(c) => Some(c),
        None => opt_str(v, "session_id")?,
    };
    let root = v
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str);
    let cwd = opt_str(v, "cwd")?.or(root);
    let mk = |tool: &str, op| action(Host::Cursor, tool, op, cwd, session);
    let event = match event_name {
        "beforeShellExecution" => Event::Judge(mk("Shell", shell(v)?)),
        "beforeMCPExecution" => Event::Judge(mcp_action(v, cwd, session)?),
        "beforeReadFile" | "beforeTabFileRead" => Event::Judge(mk("Read", file_read(v)?)),
        "beforeSubmitPrompt" | "UserPromptSubmit" => {
            prompt_event(Host::Cursor, opt_str(v, "prompt")?, cwd, session)
        }
        "preToolUse" | "PreToolUse" => Event::Judge(tool_action(v, cwd, session)?),
        "afterShellExecution" => Event::Observe {
            action: mk("Shell", shell(v)?),
            result: result_text(v.get("output")),
        },
        "afterMCPExecution" => Event::Observe {
            action: mcp_action(v, cwd, session)?,
            result: result_text(v.get("result_json")),
        },
        "afterFileEdit" => Event::Observe {
            action: mk("Edit", file_edit(v)?),
            result: String::new(),
        },
        "postToolUse" | "PostToolUse" => Event::Observe {
            action: tool_action(v, cwd, session)?,
            result: result_text(
                v.get("tool_output")
                    .or_else(|| v.get("tool_response"))
                    .or_else(|| v.get("result_json")),
            ),
        },
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: false,
    })
}

fn shell(v: &Value) -> Result<Operation, HookError> {
    Ok(match opt_str(v, "command")? {
        Some(c) => Operation::Shell {
            command: c.to_owned(),
        },
        None => unparseable("missing_command"),
    })
}

fn file_read(v: &Value) -> Result<Operation, HookError> {
    Ok(match opt_str(v, "file_path")? {
        Some(p) => Operation::FileRead { path: p.to_owned() },
        None => unparseable("missing_file_path"),
    })
}

fn file_edit(v: &Value) -> Result<Operation, HookError> {
    let Some(path) = opt_str(v, "file_path")? else {
        return Ok(unparseable("missing_file_path"));
    };
    let mut content = String::new();
    if let Some(edits) = v.get("edits").and_then(Value::as_array) {
        for e in edits {
            if let Some(n) = e.get("new_string").and_then(Value::as_str) {
                content.push_str(n);
                content.push('\n');
            }
        }
    }
    Ok(Operation::FileWrite {
        path: path.to_owned(),
        content,
    })
}

/// `beforeMCPExecution` / `afterMCPExecution`.
fn mcp_action(v: &Value, cwd: Option<&str>, session: Option<&str>) -> Result<Action, HookError> {
    let tool = opt_str(v, "tool_name")?.unwrap_or("");
    let arguments = match v.get("tool_input") {
        None | Some(Value::Null) => Some(Value::Object(serde_json::Map::new())),
        Some(Value::Object(_)) => v.get("tool_input").cloned(),
        // Documented as a JSON string; kept verbatim when it is not JSON so its text is still
        // scanned for secrets and destinations.
        Some(Value::String(raw)) => {
            Some(serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.clone())))
        }
        Some(_) => None,
    };
    let op = match arguments {
        None => unparseable("malformed_tool_input"),
        Some(_) if tool.is_empty() => unparseable("missing_tool_name"),
        Some(args) => match mcp_double_underscore(tool, &args) {
            Some(op) => op,
            None => mcp(server_name(v)?, tool, args),
        },
    };
    Ok(action(Host::Cursor, tool, op, cwd, session))
}

/// The MCP server: its configured name when Cursor sends it, else its URL or launch command
/// (never on an allow-list, so a call without a name is judged at least as strictly).
fn server_name(v: &Value) -> Result<&str, HookError> {
    for key in ["mcp_server_name", "server_name", "server"] {
        if let Some(n) = opt_str(v, key)?.filter(|n| !n.is_empty()) {
            return Ok(n);
        }
    }
    Ok(opt_str(v, "mcp_server_url")?
        .or(opt_str(v, "url")?)
        .or(opt_str(v, "command")?)
        .unwrap_or("unknown"))
}

/// `preToolUse` / `postToolUse`: Cursor's tool names, then Claude's (Cursor maps Claude hooks),
/// then `UnknownTool`. Argument names are not all documented, so several spellings are read.
fn tool_action(v: &Value, cwd: Option<&str>, session: Option<&str>) -> Result<Action, HookError> {
    let tool = opt_str(v, "tool_name")?.unwrap_or("");
    let mk = |op| action(Host::Cursor, tool, op, cwd, session);
    if tool.is_empty() {
        return Ok(mk(unparseable("missing_tool_name")));
    }
    let Some(ti) = args_value(v.get("tool_input")) else {
        return Ok(mk(unparseable("malformed_tool_input")));
    };
    let op = match tool {
        "Shell" | "run_terminal_cmd" | "Bash" => shell_op(&ti),
        "Read" | "read_file" => read_op(&ti),
        "Write" | "write" | "Edit" | "StrReplace" | "MultiEdit" | "search_replace"
        | "edit_file" | "TabWrite" => write_op(
            &ti,
            &[
                "contents",
                "content",
                "new_string",
                "code_edit",
                "streamContent",
            ],
        ),
        "Delete" | "delete_file" => delete_op(&ti),
        "Grep" | "grep" | "grep_search" => search_op(tool, &ti),
        "Glob" | "glob_file_search" | "LS" | "list_dir" | "codebase_search" | "SemanticSearch"
        | "file_search" | "ReadLints" | "read_lints" | "TodoWrite" | "todo_write" => {
            Operation::Internal {
                tool: tool.to_owned(),
            }
        }
        "WebFetch" | "web_fetch" => match ti.get("url").and_then(Value::as_str) {
            Some(u) => Operation::Fetch {
                url: u.to_owned(),
                is_search: false,
            },
            None => unparseable("missing_url"),
        },
        "WebSearch" | "web_search" => {
            match super::common::first_str(&ti, &["query", "search_term"]) {
                Some(q) => Operation::Fetch {
                    url: q.to_owned(),
                    is_search: true,
                },
                None => unparseable("missing_query"),
            }
        }
        "Task" => match super::common::first_str(&ti, &["prompt", "description"]) {
            Some(p) => Operation::Prompt { text: p.to_owned() },
            None => unparseable("missing_prompt"),
        },
        t => match t.strip_prefix("MCP:") {
            Some(name) => mcp(server_name(v)?, name, ti.clone()),
            None => return Ok(claude_vocabulary(Host::Cursor, t, &ti, cwd, session)),
        },
    };
    Ok(mk(op))
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "beforeShellExecution"
        | "beforeMCPExecution"
        | "beforeReadFile"
        | "beforeTabFileRead"
        | "preToolUse"
        | "PreToolUse" => Slot::PreTool,
        "beforeSubmitPrompt" | "UserPromptSubmit" => Slot::Prompt,
        e if EVENTS.contains(&e) => Slot::Passive,
        e => match super::claude::slot(e) {
            Slot::Passive => Slot::Passive,
            _ => Slot::Unknown,
        },
    }
}

pub(crate) fn deny(slot: Slot, reason: &str) -> HookAnswer {
    match slot {
        Slot::Prompt => answer(
            &J::Obj(vec![
                ("continue", J::Bool(false)),
                ("user_message", s(reason)),
            ]),
            reason,
            2,
        ),
        _ => answer(
            &J::Obj(vec![
                ("permission", s("deny")),
                ("user_message", s(reason)),
                ("agent_message", s(reason)),
            ]),
            reason,
            2,
        ),
    }
}
