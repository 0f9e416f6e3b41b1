//! Windsurf (Cascade Hooks, beta: <https://docs.windsurf.com/windsurf/cascade/hooks>; hooks in
//! `~/.codeium/windsurf/hooks.json` (user), `.windsurf/hooks.json` (workspace),
//! `/etc/windsurf/hooks.json` (system, Linux)).
//!
//! In (all events): `agent_action_name` (the event), `trajectory_id` (the conversation),
//! `execution_id`, `timestamp`, `model_name`, and `tool_info` with the event's fields:
//! - `pre_run_command` / `post_run_command`: `command_line`, `cwd`
//! - `pre_read_code` / `post_read_code`: `file_path` (may be a directory)
//! - `pre_write_code` / `post_write_code`: `file_path`, `edits` (`old_string`, `new_string`)
//! - `pre_mcp_tool_use` / `post_mcp_tool_use`: `mcp_server_name`, `mcp_tool_name`,
//!   `mcp_tool_arguments`, and `mcp_result` after the call
//! - `pre_user_prompt`: `user_prompt`
//! - `post_cascade_response`, `post_cascade_response_with_transcript`, `post_setup_worktree`:
//!   lifecycle, answered `{}`.
//!
//! Out: only the exit code is read. A pre-hook blocks the action by exiting **2**; its stderr
//! is shown to the user in a "hook blocked this action" banner. Any other exit code lets the
//! action run (so the hook must never crash into exit 1). There is no ask, no JSON decision,
//! and no channel from a post-hook into the model's context (a post-hook's output is only shown
//! in the UI with `show_output`), so a screened result can only taint the session. Airlock
//! prints `{}` on stdout either way (Windsurf does not read it; `show_output` stays off).

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{action, args_value, first_str, mcp, prompt_event, result_text, unparseable};
use super::{Parsed, Slot, answer};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// Keys only Windsurf sends.
pub(crate) const MARKERS: &[&str] = &["agent_action_name", "trajectory_id"];

/// Windsurf's event names.
pub(crate) const EVENTS: &[&str] = &[
    "pre_read_code",
    "post_read_code",
    "pre_write_code",
    "post_write_code",
    "pre_run_command",
    "post_run_command",
    "pre_mcp_tool_use",
    "post_mcp_tool_use",
    "pre_user_prompt",
    "post_cascade_response",
    "post_cascade_response_with_transcript",
    "post_setup_worktree",
];

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let event_name = super::common::opt_str(v, "agent_action_name")?
        .ok_or(HookError::Missing("agent_action_name"))?;
    let session = super::common::opt_str(v, "trajectory_id")?;
    let info = match v.get("tool_info") {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(i @ Value::Object(_)) => i.clone(),
        Some(_) => return Err(HookError::WrongType("tool_info")),
    };
    let cwd = super::common::opt_str(&info, "cwd")?;
    let mk = |tool: &str, op| action(Host::Windsurf, tool, op, cwd, session);
    let event = match event_name {
        "pre_run_command" => Event::Judge(mk("run_command", command(&info))),
        "post_run_command" => Event::Observe {
            action: mk("run_command", command(&info)),
            result: result_text(info.get("output")),
        },
        "pre_read_code" => Event::Judge(mk("read_code", read(&info))),
        "post_read_code" => Event::Observe {
            action: mk("read_code", read(&info)),
            result: String::new(),
        },
        "pre_write_code" => Event::Judge(mk("write_code", write(&info))),
        "post_write_code" => Event::Observe {
            action: mk("write_code", write(&info)),
            result: String::new(),
        },
        "pre_mcp_tool_use" => Event::Judge(mcp_action(&info, cwd, session)),
        "post_mcp_tool_use" => Event::Observe {
            action: mcp_action(&info, cwd, session),
            result: result_text(info.get("mcp_result")),
        },
        "pre_user_prompt" => prompt_event(
            Host::Windsurf,
            first_str(&info, &["user_prompt", "prompt"]),
            cwd,
            session,
        ),
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: false,
    })
}

fn command(info: &Value) -> Operation {
    // `command_line` is documented; `command` is read too (older payloads).
    match first_str(info, &["command_line", "command"]) {
        Some(c) => Operation::Shell {
            command: c.to_owned(),
        },
        None => unparseable("missing_command"),
    }
}

fn read(info: &Value) -> Operation {
    match first_str(info, &["file_path"]) {
        Some(p) => Operation::FileRead { path: p.to_owned() },
        None => unparseable("missing_file_path"),
    }
}

fn write(info: &Value) -> Operation {
    let Some(path) = first_str(info, &["file_path"]) else {
        return unparseable("missing_file_path");
    };
    let mut content = String::new();
    match info.get("edits") {
        None | Some(Value::Null) => {}
        Some(Value::Array(edits)) => {
            for e in edits {
                if let Some(n) = e.get("new_string").and_then(Value::as_str) {
                    content.push_str(n);
                    content.push('\n');
                }
            }
        }
        // Edits Airlock cannot read are content it cannot judge.
        Some(_) => return unparseable("malformed_edits"),
    }
    Operation::FileWrite {
        path: path.to_owned(),
        content,
    }
}

fn mcp_action(info: &Value, cwd: Option<&str>, session: Option<&str>) -> Action {
    let server = first_str(info, &["mcp_server_name"]).unwrap_or("");
    let tool = first_str(info, &["mcp_tool_name"]).unwrap_or("");
    let op = match args_value(info.get("mcp_tool_arguments")) {
        Some(args) => mcp(server, tool, args),
        None => unparseable("malformed_tool_input"),
    };
    action(Host::Windsurf, tool, op, cwd, session)
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "pre_read_code" | "pre_write_code" | "pre_run_command" | "pre_mcp_tool_use" => {
            Slot::PreTool
        }
        "pre_user_prompt" => Slot::Prompt,
        e if EVENTS.contains(&e) => Slot::Passive,
        _ => Slot::Unknown,
    }
}

/// Exit 2 with the reason on stderr: the only denial Windsurf reads.
pub(crate) fn deny(reason: &str) -> HookAnswer {
    answer(&super::common::J::Obj(Vec::new()), reason, 2)
}
