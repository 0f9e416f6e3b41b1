//! GitHub Copilot CLI (`github/docs` `content/copilot/reference/hooks-configuration.md` and
//! `copilot-cli-reference/cli-hooks-reference.md`; hooks in `.github/hooks/*.json`, version 1).
//!
//! In, camelCase format (event configured as `preToolUse`): `sessionId`, `timestamp` (ms),
//! `cwd`, `toolName` (`bash`, `powershell`, `view`, `create`, `edit`, `glob`, `grep`, `task`,
//! `web_fetch`, `ask_user`), `toolArgs` (a JSON *string* in the older docs, any value in the
//! newer), `toolResult` (`postToolUse`), `prompt` (`userPromptSubmitted`). There is no event-name
//! field: Airlock infers it from the fields present. The "VS Code compatible" format (event
//! configured as `PreToolUse`) sends `hook_event_name`, `session_id`, `tool_name`, `tool_input`.
//!
//! Out: `preToolUse` reads `{"permissionDecision": "deny", "permissionDecisionReason"}`; the older
//! docs say only `deny` is processed, so no ask. `permissionRequest` reads
//! `{"behavior": "deny", "message"}`. Both are written together (the camelCase payload does not
//! say which event it is). Exit codes must stay 0: "hook failures (non-zero exit codes or
//! timeouts) are logged and skipped — they never block". `userPromptSubmitted` output is ignored,
//! so a prompt cannot be blocked on this host.

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{
    J, action, args_value, first_str, opt_str, prompt_event, result_text, s, unparseable,
};
use super::{Parsed, Slot, answer, claude_vocabulary, read_op, search_op, shell_op, write_op};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// Keys only the camelCase format sends.
pub(crate) const MARKERS: &[&str] = &["toolName", "toolArgs", "toolResult"];

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let named = match opt_str(v, "hook_event_name")? {
        Some(e) => Some(e),
        None => opt_str(v, "hookEventName")?,
    };
    let event_name = match named {
        Some(e) => e,
        None if v.get("toolResult").is_some() => "postToolUse",
        None if v.get("toolName").is_some() && v.get("error").is_some() => "postToolUseFailure",
        None if v.get("toolName").is_some() || v.get("toolArgs").is_some() => "preToolUse",
        None if v.get("prompt").is_some() => "userPromptSubmitted",
        // A payload with neither a tool nor a prompt nor a name: not something to let through
        // unread (it could be a tool call in a format Airlock does not know).
        None => return Err(HookError::Missing("hook_event_name")),
    };
    let session = match opt_str(v, "sessionId")? {
        Some(sid) => Some(sid),
        None => opt_str(v, "session_id")?,
    };
    let cwd = opt_str(v, "cwd")?;
    let event = match event_name {
        "preToolUse" | "PreToolUse" | "permissionRequest" | "PermissionRequest" => {
            Event::Judge(tool_action(v, cwd, session)?)
        }
        "postToolUse" | "PostToolUse" => Event::Observe {
            action: tool_action(v, cwd, session)?,
            result: result_text(v.get("toolResult").or_else(|| v.get("tool_result"))),
        },
        "userPromptSubmitted" | "UserPromptSubmit" => {
            prompt_event(Host::Copilot, opt_str(v, "prompt")?, cwd, session)
        }
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: false,
    })
}

fn tool_action(v: &Value, cwd: Option<&str>, session: Option<&str>) -> Result<Action, HookError> {
    let tool = match opt_str(v, "toolName")? {
        Some(t) => t,
        None => opt_str(v, "tool_name")?.unwrap_or(""),
    };
    let mk = |op| action(Host::Copilot, tool, op, cwd, session);
    if tool.is_empty() {
        return Ok(mk(unparseable("missing_tool_name")));
    }
    let Some(ti) = args_value(v.get("toolArgs").or_else(|| v.get("tool_input"))) else {
        return Ok(mk(unparseable("malformed_tool_args")));
    };
    let op = match tool {
        "bash" | "powershell" | "shell" => shell_op(&ti),
        "view" | "read" => read_op(&ti),
        "create" => write_op(&ti, &["file_text", "content"]),
        "edit" => write_op(&ti, &["new_str", "file_text"]),
        "str_replace_editor" => match ti.get("command").and_then(Value::as_str) {
            Some("view") => read_op(&ti),
            Some("create" | "str_replace" | "insert" | "undo_edit") => {
                write_op(&ti, &["file_text", "new_str"])
            }
            _ => Operation::UnknownTool {
                tool: tool.to_owned(),
            },
        },
        "grep" => search_op(tool, &ti),
        "glob" | "ask_user" | "report_intent" | "update_todo" | "think" | "read_bash"
        | "list_bash" | "stop_bash" => Operation::Internal {
            tool: tool.to_owned(),
        },
        "web_fetch" => match ti.get("url").and_then(Value::as_str) {
            Some(u) => Operation::Fetch {
                url: u.to_owned(),
                is_search: false,
            },
            None => unparseable("missing_url"),
        },
        "task" => match first_str(&ti, &["prompt", "description"]) {
            Some(p) => Operation::Prompt { text: p.to_owned() },
            None => unparseable("missing_prompt"),
        },
        // MCP tool names are not documented for the CLI: `mcp__s__t` is read, anything else
        // (including `write_bash`, which types into a running shell) is UnknownTool.
        t => return Ok(claude_vocabulary(Host::Copilot, t, &ti, cwd, session)),
    };
    Ok(mk(op))
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "preToolUse" | "PreToolUse" => Slot::PreTool,
        "permissionRequest" | "PermissionRequest" => Slot::Permission,
        "userPromptSubmitted" | "UserPromptSubmit" => Slot::PromptUnblockable,
        "postToolUse" | "PostToolUse" | "postToolUseFailure" | "PostToolUseFailure"
        | "sessionStart" | "SessionStart" | "sessionEnd" | "SessionEnd" | "agentStop" | "Stop"
        | "subagentStart" | "subagentStop" | "SubagentStop" | "errorOccurred" | "ErrorOccurred"
        | "preCompact" | "PreCompact" | "notification" | "Notification" => Slot::Passive,
        _ => Slot::Unknown,
    }
}

/// Both deny shapes in one object, always exit 0.
pub(crate) fn deny(reason: &str) -> HookAnswer {
    answer(
        &J::Obj(vec![
            ("permissionDecision", s("deny")),
            ("permissionDecisionReason", s(reason)),
            ("behavior", s("deny")),
            ("message", s(reason)),
        ]),
        reason,
        0,
    )
}
