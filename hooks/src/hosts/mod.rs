//! One adapter per host: payload → [`Parsed`], and Airlock's decision → the host's answer.
//! Sources for each wire format are cited in the adapter's module doc.

pub(crate) mod claude;
pub(crate) mod cline;
pub(crate) mod codex;
pub(crate) mod common;
pub(crate) mod copilot;
pub(crate) mod cursor;
pub(crate) mod gemini;
pub(crate) mod kiro;
pub(crate) mod opencode;
pub(crate) mod vscode;
pub(crate) mod windsurf;

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use crate::answer::HookAnswer;
use crate::claude::{HookInput, to_action};
use crate::event::Event;
use common::{first_str, unparseable};

/// A payload read by one adapter.
pub(crate) struct Parsed {
    pub event_name: String,
    pub event: Event,
    pub bypass_permissions: bool,
}

/// What an event is, for rendering an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Before a tool runs: a deny stops it.
    PreTool,
    /// The host's permission dialog is about to open (own output shape).
    Permission,
    /// A user prompt is about to be sent.
    Prompt,
    /// A prompt event whose output the host ignores: nothing Airlock prints can stop it.
    PromptUnblockable,
    /// After the fact, or lifecycle: no decision to express; always `{}`.
    Passive,
    /// An event name this adapter does not know: answered with a pre-tool denial (fail closed).
    Unknown,
}

pub(crate) fn no_opinion() -> HookAnswer {
    HookAnswer {
        stdout: "{}\n".to_owned(),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// An answer: one JSON object on stdout; when `exit_code` is 2 the reason also goes to stderr
/// (hosts that honour exit 2 read the reason from there and ignore stdout).
pub(crate) fn answer(stdout: &common::J, reason: &str, exit_code: i32) -> HookAnswer {
    HookAnswer {
        stdout: format!("{}\n", stdout.render()),
        stderr: if exit_code == 2 {
            format!("{reason}\n")
        } else {
            String::new()
        },
        exit_code,
    }
}

/// Airlock's reason, never empty (Codex treats an empty deny reason as a failed hook, and a
/// failed hook lets the tool run).
pub(crate) fn reason_or_default(reason: &str) -> &str {
    if reason.trim().is_empty() {
        "Blocked by Airlock."
    } else {
        reason
    }
}

/// A path-like field, whichever spelling the host uses.
pub(crate) fn path_of(input: &Value) -> Option<&str> {
    first_str(
        input,
        &[
            "file_path",
            "filePath",
            "path",
            "target_file",
            "absolute_path",
            "notebook_path",
        ],
    )
}

/// Read, write, delete and shell actions with flexible field names, shared by adapters whose
/// exact argument names are not all documented.
pub(crate) fn read_op(input: &Value) -> Operation {
    match path_of(input) {
        Some(p) => Operation::FileRead { path: p.to_owned() },
        None => unparseable("missing_file_path"),
    }
}

pub(crate) fn write_op(input: &Value, content_keys: &[&str]) -> Operation {
    match path_of(input) {
        Some(p) => {
            let mut content = String::new();
            for k in content_keys {
                if let Some(c) = input.get(*k).and_then(Value::as_str) {
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    content.push_str(c);
                }
            }
            Operation::FileWrite {
                path: p.to_owned(),
                content,
            }
        }
        None => unparseable("missing_file_path"),
    }
}

pub(crate) fn delete_op(input: &Value) -> Operation {
    match path_of(input) {
        Some(p) => Operation::FileDelete { path: p.to_owned() },
        None => unparseable("missing_file_path"),
    }
}

pub(crate) fn shell_op(input: &Value) -> Operation {
    match input.get("command") {
        Some(Value::String(c)) => Operation::Shell { command: c.clone() },
        // Some hosts send argv; joined with spaces it is still judged as a command line.
        Some(Value::Array(parts)) if parts.iter().all(Value::is_string) && !parts.is_empty() => {
            let argv: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            Operation::Shell {
                command: argv.join(" "),
            }
        }
        _ => unparseable("missing_command"),
    }
}

/// A search tool: reading the files under `path` when it names one, internal otherwise.
pub(crate) fn search_op(tool: &str, input: &Value) -> Operation {
    match first_str(input, &["path", "dir_path", "directory"]) {
        Some(p) => Operation::FileRead { path: p.to_owned() },
        None => Operation::Internal {
            tool: tool.to_owned(),
        },
    }
}

/// Claude Code's tool vocabulary (`Bash`, `Read`, `mcp__s__t`, …), used as every adapter's
/// fallback: several hosts reuse Claude's names when they run Claude-configured hooks, and an
/// unknown name still ends as `UnknownTool` (never a pass).
pub(crate) fn claude_vocabulary(
    host: Host,
    tool: &str,
    input: &Value,
    cwd: Option<&str>,
    session_id: Option<&str>,
) -> Action {
    let hi = HookInput {
        session_id: session_id.map(str::to_owned),
        transcript_path: None,
        cwd: cwd.map(str::to_owned),
        permission_mode: None,
        hook_event_name: String::new(),
        tool_name: Some(tool.to_owned()),
        tool_input: Some(input.clone()),
        tool_response: None,
        prompt: None,
    };
    let mut a = to_action(&hi);
    a.host = host;
    a
}
