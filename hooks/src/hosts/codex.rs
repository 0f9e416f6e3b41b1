//! OpenAI Codex CLI (source: `openai/codex` `codex-rs/hooks/src/events/pre_tool_use.rs`,
//! `permission_request.rs`, `engine/output_parser.rs`; hooks configured in `~/.codex/hooks.json`
//! or `config.toml` `[[hooks.PreToolUse]]`).
//!
//! In: Claude's shape plus `turn_id` and `model`: `session_id`, `turn_id`, `transcript_path`,
//! `cwd`, `hook_event_name`, `permission_mode`, `tool_name`, `tool_input`, `tool_use_id`.
//! Shell tools arrive as `tool_name: "Bash"` with `tool_input.command`; file edits as
//! `apply_patch` with the patch text in `tool_input.command`; MCP tools as `mcp__<server>__<tool>`.
//!
//! Out: `PreToolUse` reads `hookSpecificOutput.permissionDecision: "deny"` with a non-empty
//! reason, or exit 2 with a non-empty stderr. `"ask"` is rejected as *unsupported* and the hook
//! counts as failed — and a failed hook lets the tool run — so Airlock never sends ask here.
//! `PermissionRequest`: `decision.behavior` `deny` + `message`, or exit 2 + stderr.
//! `UserPromptSubmit`: `decision: "block"` + `reason`.

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{prompt_event, result_text, unparseable};
use super::{Parsed, claude_vocabulary};
use crate::HookError;
use crate::claude::{HookInput, from_value};
use crate::event::Event;

pub(crate) fn parse(v: Value) -> Result<Parsed, HookError> {
    let result = result_text(v.get("tool_response").or_else(|| v.get("tool_output")));
    let input = from_value(v)?;
    let cwd = input.cwd.as_deref();
    let session = input.session_id.as_deref();
    let event = match input.hook_event_name.as_str() {
        "PreToolUse" | "PermissionRequest" => Event::Judge(tool_action(&input)),
        "PostToolUse" => Event::Observe {
            action: tool_action(&input),
            result,
        },
        "UserPromptSubmit" => prompt_event(Host::Codex, input.prompt.as_deref(), cwd, session),
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        bypass_permissions: input.permission_mode.as_deref() == Some("bypassPermissions"),
        event_name: input.hook_event_name.clone(),
        event,
    })
}

fn tool_action(input: &HookInput) -> Action {
    let tool = input.tool_name.clone().unwrap_or_default();
    let ti = input.tool_input.clone().unwrap_or(Value::Null);
    let cwd = input.cwd.as_deref();
    let session = input.session_id.as_deref();
    let mut a = claude_vocabulary(Host::Codex, &tool, &ti, cwd, session);
    a.op = match tool.as_str() {
        "apply_patch" => {
            match ti
                .get("command")
                .or_else(|| ti.get("input"))
                .or_else(|| ti.get("patch"))
                .and_then(Value::as_str)
            {
                Some(patch) => super::common::patch_op(&tool, patch),
                None => unparseable("missing_patch"),
            }
        }
        // Shell-like tools all reach hooks as `Bash`; argv arrays are accepted too.
        "Bash" => super::shell_op(&ti),
        "update_plan" => Operation::Internal { tool: tool.clone() },
        "view_image" => super::read_op(&ti),
        "web_search" => match ti.get("query").and_then(Value::as_str) {
            Some(q) => Operation::Fetch {
                url: q.to_owned(),
                is_search: true,
            },
            None => unparseable("missing_query"),
        },
        _ => a.op,
    };
    a
}
