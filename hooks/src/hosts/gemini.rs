//! Gemini CLI (`google-gemini/gemini-cli` `docs/hooks/reference.md` and
//! `packages/core/src/hooks/types.ts`; hooks in `settings.json` under `hooks`).
//!
//! In (all events): `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`.
//! `BeforeTool` / `AfterTool`: `tool_name`, `tool_input`, `mcp_context` (`server_name`,
//! `tool_name`, `command` | `url`; only for MCP tools), `tool_response` (`AfterTool`).
//! `BeforeAgent`: `prompt`. Built-in tools: `run_shell_command`, `read_file`, `write_file`,
//! `replace`, `read_many_files`, `list_directory`, `glob`, `search_file_content`, `web_fetch`
//! (URLs inside a free-text `prompt`), `google_web_search`, `save_memory`, `write_todos`.
//!
//! Out: `{"decision": "deny", "reason": ...}` (alias `block`) on exit 0, or exit 2 with stderr as
//! the reason ("the turn continues"); other exit codes only warn. `BeforeAgent` uses the same
//! decision. No ask: the decision type lists `ask`, but only `block`/`deny` stop anything.

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{
    J, action, args_value, fetch_of_urls, first_str, mcp, opt_str, prompt_event, result_text, s,
    unparseable, urls_in,
};
use super::{Parsed, Slot, answer, claude_vocabulary, read_op, search_op, shell_op, write_op};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// Gemini's own event names.
pub(crate) const EVENTS: &[&str] = &[
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "PreCompress",
];

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let event_name = opt_str(v, "hook_event_name")?.ok_or(HookError::Missing("hook_event_name"))?;
    let session = opt_str(v, "session_id")?;
    let cwd = opt_str(v, "cwd")?;
    let event = match event_name {
        "BeforeTool" => Event::Judge(tool_action(v, cwd, session)?),
        "AfterTool" => Event::Observe {
            action: tool_action(v, cwd, session)?,
            result: result_text(v.get("tool_response")),
        },
        "BeforeAgent" => prompt_event(Host::Gemini, opt_str(v, "prompt")?, cwd, session),
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: false,
    })
}

fn tool_action(v: &Value, cwd: Option<&str>, session: Option<&str>) -> Result<Action, HookError> {
    let tool = opt_str(v, "tool_name")?.unwrap_or("");
    let mk = |op| action(Host::Gemini, tool, op, cwd, session);
    if tool.is_empty() {
        return Ok(mk(unparseable("missing_tool_name")));
    }
    let Some(ti) = args_value(v.get("tool_input")) else {
        return Ok(mk(unparseable("malformed_tool_input")));
    };
    if let Some(ctx) = v.get("mcp_context").filter(|c| !c.is_null()) {
        let server = ctx.get("server_name").and_then(Value::as_str).unwrap_or("");
        let name = ctx.get("tool_name").and_then(Value::as_str).unwrap_or(tool);
        return Ok(mk(mcp(server, name, ti)));
    }
    let op = match tool {
        "run_shell_command" => shell_op(&ti),
        "read_file" => read_op(&ti),
        "read_many_files" => read_many(tool, &ti),
        "write_file" => write_op(&ti, &["content"]),
        "replace" | "edit" => write_op(&ti, &["new_string"]),
        "search_file_content" | "grep_search" | "grep" => search_op(tool, &ti),
        "list_directory" | "ls" | "glob" | "write_todos" => Operation::Internal {
            tool: tool.to_owned(),
        },
        "web_fetch" => {
            let mut urls: Vec<&str> = ti.get("url").and_then(Value::as_str).into_iter().collect();
            if let Some(p) = ti.get("prompt").and_then(Value::as_str) {
                for u in urls_in(p) {
                    if !urls.contains(&u) {
                        urls.push(u);
                    }
                }
            }
            fetch_of_urls(tool, &urls)
        }
        "google_web_search" | "web_search" => match first_str(&ti, &["query"]) {
            Some(q) => Operation::Fetch {
                url: q.to_owned(),
                is_search: true,
            },
            None => unparseable("missing_query"),
        },
        // `save_memory` appends to ~/.gemini/GEMINI.md (instructions for every later session):
        // not internal. It and every other name fall through to UnknownTool.
        t => return Ok(claude_vocabulary(Host::Gemini, t, &ti, cwd, session)),
    };
    Ok(mk(op))
}

/// `read_many_files`: one literal path → a read of it; globs or several paths → ask.
fn read_many(tool: &str, ti: &Value) -> Operation {
    let paths: Vec<&str> = ["paths", "include"]
        .iter()
        .filter_map(|k| ti.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    match paths.as_slice() {
        [] => unparseable("missing_file_path"),
        [one] if !one.contains(['*', '?', '[', '{']) => Operation::FileRead {
            path: (*one).to_owned(),
        },
        _ => Operation::UnknownTool {
            tool: tool.to_owned(),
        },
    }
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "BeforeTool" => Slot::PreTool,
        "BeforeAgent" => Slot::Prompt,
        "AfterTool"
        | "AfterAgent"
        | "BeforeModel"
        | "AfterModel"
        | "BeforeToolSelection"
        | "PreCompress"
        | "SessionStart"
        | "SessionEnd"
        | "Notification" => Slot::Passive,
        _ => Slot::Unknown,
    }
}

pub(crate) fn deny(reason: &str) -> HookAnswer {
    answer(
        &J::Obj(vec![("decision", s("deny")), ("reason", s(reason))]),
        reason,
        2,
    )
}
