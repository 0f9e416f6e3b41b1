//! Claude Code (<https://code.claude.com/docs/en/hooks>, "Hooks reference").
//!
//! In: `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, and per event
//! `tool_name` / `tool_input` / `tool_use_id` (`PreToolUse`, `PermissionRequest`), `tool_response`
//! (`PostToolUse`), `prompt` (`UserPromptSubmit`). MCP tools are `mcp__<server>__<tool>`.
//!
//! Out: JSON on stdout is only read on exit 0; on exit 2 stdout is ignored and stderr is the
//! reason (it blocks `PreToolUse`, denies `PermissionRequest`, erases a `UserPromptSubmit`).
//! Airlock's contract prints the deny JSON *and* exits 2, so the reason reaches Claude either way.
//! - `PreToolUse`: `hookSpecificOutput.permissionDecision` = `deny` | `ask` (+ reason).
//! - `PermissionRequest`: `hookSpecificOutput.decision.behavior` = `deny` + `message`; no ask.
//! - `UserPromptSubmit`: top-level `decision: "block"` + `reason`.
//! - `PostToolUse` and the rest: `{}`.

use airlock_engine::Host;
use serde_json::Value;

use super::common::{J, s, with_host};
use super::{Parsed, Slot, answer};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::claude::{event, from_value};

pub(crate) fn parse(v: Value) -> Result<Parsed, HookError> {
    let input = from_value(v)?;
    Ok(Parsed {
        bypass_permissions: input.permission_mode.as_deref() == Some("bypassPermissions"),
        event: with_host(event(&input), Host::ClaudeCode),
        event_name: input.hook_event_name,
    })
}

/// Slots shared by the hosts that speak Claude's event names (Claude Code, Codex, VS Code).
pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "PreToolUse" => Slot::PreTool,
        "PermissionRequest" => Slot::Permission,
        "UserPromptSubmit" => Slot::Prompt,
        "PostToolUse"
        | "PostToolUseFailure"
        | "PostToolBatch"
        | "PermissionDenied"
        | "Notification"
        | "SessionStart"
        | "SessionEnd"
        | "Setup"
        | "Stop"
        | "StopFailure"
        | "SubagentStart"
        | "SubagentStop"
        | "PreCompact"
        | "PostCompact"
        | "TaskCreated"
        | "TaskCompleted"
        | "TeammateIdle"
        | "InstructionsLoaded"
        | "ConfigChange"
        | "CwdChanged"
        | "FileChanged"
        | "WorktreeCreate"
        | "WorktreeRemove"
        | "Elicitation"
        | "ElicitationResult"
        | "UserPromptExpansion" => Slot::Passive,
        _ => Slot::Unknown,
    }
}

pub(crate) fn pre_tool(decision: &str, reason: &str) -> J {
    J::Obj(vec![(
        "hookSpecificOutput",
        J::Obj(vec![
            ("hookEventName", s("PreToolUse")),
            ("permissionDecision", s(decision)),
            ("permissionDecisionReason", s(reason)),
        ]),
    )])
}

pub(crate) fn permission_deny(reason: &str) -> J {
    J::Obj(vec![(
        "hookSpecificOutput",
        J::Obj(vec![
            ("hookEventName", s("PermissionRequest")),
            (
                "decision",
                J::Obj(vec![("behavior", s("deny")), ("message", s(reason))]),
            ),
        ]),
    )])
}

pub(crate) fn block(reason: &str) -> J {
    J::Obj(vec![("decision", s("block")), ("reason", s(reason))])
}

/// A denial in Claude's format (also Codex's, which copies it).
pub(crate) fn deny(slot: Slot, reason: &str) -> HookAnswer {
    match slot {
        Slot::Permission => answer(&permission_deny(reason), reason, 2),
        Slot::Prompt => answer(&block(reason), reason, 2),
        _ => answer(&pre_tool("deny", reason), reason, 2),
    }
}

pub(crate) fn ask(reason: &str) -> HookAnswer {
    answer(&pre_tool("ask", reason), reason, 0)
}
