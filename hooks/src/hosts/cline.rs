//! Cline (hook reference: `cline/cline` `docs/features/hooks/hook-reference.mdx`; runner:
//! `src/core/hooks/hook-factory.ts` and `hook-executor.ts`). A hook is an executable file named
//! after its event (`PreToolUse`, no extension) in `~/Documents/Cline/Hooks/` (global) or
//! `<workspace>/.clinerules/hooks/`; Cline runs it with JSON on stdin and reads the last JSON
//! object on stdout.
//!
//! In (all events): `clineVersion`, `hookName` (the event), `timestamp`, `taskId` (the
//! session), `workspaceRoots`, `userId`, and one event object:
//! - `PreToolUse`: `preToolUse.toolName`, `preToolUse.parameters` (Cline's tool parameters,
//!   string-valued: `execute_command` `command`; `read_file` / `write_to_file` /
//!   `replace_in_file` `path` (+ `content` / `diff`); `use_mcp_tool` `server_name`,
//!   `tool_name`, `arguments` (a JSON string); `web_fetch` `url`; …)
//! - `PostToolUse`: `postToolUse.toolName`, `parameters`, `result`, `success`,
//!   `executionTimeMs`
//! - `UserPromptSubmit`: `userPromptSubmit.prompt`, `attachments`
//! - `TaskStart`, `TaskResume`, `TaskCancel`, `TaskComplete`, `PreCompact`, …: lifecycle.
//!
//! Out: `{"cancel": true, "errorMessage": …}` blocks (on `PreToolUse` Cline cancels the tool
//! *and the task*); `{}` or `{"cancel": false}` lets it run; `contextModification` is added to
//! the conversation for the model's *next* request (the screened-result note on
//! `PostToolUse`). There is no ask. The exit code does not matter once valid JSON is printed,
//! but a hook that prints no JSON and exits non-zero, or runs past Cline's 30 s timeout, is
//! treated as *no objection* (fail open) — so Airlock always prints JSON and answers an
//! approval within [`crate::hard_timeout`].

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{
    J, action, args_value, first_str, mcp, opt_str, patch_op, prompt_event, s, unparseable,
};
use super::{Parsed, Slot, answer, delete_op, read_op, search_op, shell_op, write_op};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// Keys only Cline sends.
pub(crate) const MARKERS: &[&str] = &["clineVersion", "hookName"];

/// Cline's event names.
pub(crate) const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "TaskStart",
    "TaskResume",
    "TaskCancel",
    "TaskComplete",
    "TaskError",
    "PreCompact",
    "Notification",
    "PostAssistantTurn",
    "SessionShutdown",
];

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let event_name = opt_str(v, "hookName")?.ok_or(HookError::Missing("hookName"))?;
    let session = opt_str(v, "taskId")?;
    let root = v
        .get("workspaceRoots")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str);
    let event = match event_name {
        "PreToolUse" => Event::Judge(tool_action(section(v, "preToolUse")?, root, session)?),
        "PostToolUse" => {
            let post = section(v, "postToolUse")?;
            Event::Observe {
                action: tool_action(post, root, session)?,
                result: super::common::result_text(post.get("result")),
            }
        }
        "UserPromptSubmit" => {
            let p = section(v, "userPromptSubmit")?;
            prompt_event(Host::Cline, opt_str(p, "prompt")?, root, session)
        }
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: false,
    })
}

/// The event's own object (`preToolUse`, …): required, and an object.
fn section<'a>(v: &'a Value, key: &'static str) -> Result<&'a Value, HookError> {
    match v.get(key) {
        Some(o @ Value::Object(_)) => Ok(o),
        None | Some(Value::Null) => Err(HookError::Missing(key)),
        Some(_) => Err(HookError::WrongType(key)),
    }
}

fn tool_action(
    data: &Value,
    cwd: Option<&str>,
    session: Option<&str>,
) -> Result<Action, HookError> {
    let tool = opt_str(data, "toolName")?.unwrap_or("");
    let mk = |op| action(Host::Cline, tool, op, cwd, session);
    if tool.is_empty() {
        return Ok(mk(unparseable("missing_tool_name")));
    }
    let Some(p) = args_value(data.get("parameters")) else {
        return Ok(mk(unparseable("malformed_tool_input")));
    };
    let internal = || Operation::Internal {
        tool: tool.to_owned(),
    };
    let unknown = || Operation::UnknownTool {
        tool: tool.to_owned(),
    };
    let op = match tool {
        "execute_command" => shell_op(&p),
        // `attempt_completion` may carry a command to demonstrate the result.
        "attempt_completion" => match p.get("command").and_then(Value::as_str) {
            Some(c) if !c.trim().is_empty() => shell_op(&p),
            _ => internal(),
        },
        "read_file" => read_op(&p),
        "write_to_file" | "new_rule" => write_op(&p, &["content"]),
        "replace_in_file" => write_op(&p, &["diff"]),
        "apply_patch" => match first_str(&p, &["input", "patch", "diff"]) {
            Some(patch) => patch_op(tool, patch),
            None => unparseable("missing_patch"),
        },
        "delete_file" => delete_op(&p),
        "search_files" | "list_code_definition_names" => search_op(tool, &p),
        "list_files"
        | "ask_followup_question"
        | "plan_mode_respond"
        | "act_mode_respond"
        | "focus_chain"
        | "load_mcp_documentation"
        | "condense"
        | "summarize_task"
        | "generate_explanation" => internal(),
        "web_fetch" => match p.get("url").and_then(Value::as_str) {
            Some(u) => Operation::Fetch {
                url: u.to_owned(),
                is_search: false,
            },
            None => unparseable("missing_url"),
        },
        "web_search" => match p.get("query").and_then(Value::as_str) {
            Some(q) => Operation::Fetch {
                url: q.to_owned(),
                is_search: true,
            },
            None => unparseable("missing_query"),
        },
        "browser_action" => match p.get("action").and_then(Value::as_str) {
            Some("launch") => match p.get("url").and_then(Value::as_str) {
                Some(u) => Operation::Fetch {
                    url: u.to_owned(),
                    is_search: false,
                },
                None => unparseable("missing_url"),
            },
            Some("scroll_down" | "scroll_up" | "close") => internal(),
            // Clicking and typing can submit anything a page holds.
            _ => unknown(),
        },
        "use_mcp_tool" => {
            let server = first_str(&p, &["server_name"]).unwrap_or("");
            let name = first_str(&p, &["tool_name"]).unwrap_or("");
            match args_value(p.get("arguments")) {
                Some(args) => mcp(server, name, args),
                None => unparseable("malformed_tool_input"),
            }
        }
        "access_mcp_resource" => {
            let server = first_str(&p, &["server_name"]).unwrap_or("");
            match first_str(&p, &["uri"]) {
                Some(uri) => mcp(server, "resources/read", serde_json::json!({ "uri": uri })),
                None => unparseable("missing_uri"),
            }
        }
        // A sub-task's instructions: judged for the secrets and destinations they name.
        "new_task" => Operation::Prompt {
            text: first_str(&p, &["context", "prompt"])
                .unwrap_or("")
                .to_owned(),
        },
        // Everything else (`report_bug`, new tools) is a tool Airlock does not know.
        _ => unknown(),
    };
    Ok(mk(op))
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "PreToolUse" => Slot::PreTool,
        "UserPromptSubmit" => Slot::Prompt,
        e if EVENTS.contains(&e) => Slot::Passive,
        _ => Slot::Unknown,
    }
}

/// `cancel: true` with the reason; exit 0 (Cline honours the JSON whatever the exit code, and
/// ignores a non-zero exit without JSON).
pub(crate) fn deny(reason: &str) -> HookAnswer {
    answer(
        &J::Obj(vec![("cancel", J::Bool(true)), ("errorMessage", s(reason))]),
        reason,
        0,
    )
}

/// A screened `PostToolUse` result: the note is added to the conversation for the model.
pub(crate) fn screened(note: &str) -> HookAnswer {
    answer(
        &J::Obj(vec![
            ("cancel", J::Bool(false)),
            ("contextModification", s(note)),
        ]),
        note,
        0,
    )
}
