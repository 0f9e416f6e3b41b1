//! Kiro CLI (agent-config hooks: <https://kiro.dev/docs/cli/hooks>, the same text as
//! `aws/amazon-q-developer-cli` `docs/hooks.md`; hooks live in an agent's JSON config,
//! `~/.kiro/agents/<agent>.json` `hooks.<event>[] = {command, matcher?, timeout_ms?}`).
//!
//! In (stdin, snake_case): `hook_event_name` (`agentSpawn`, `userPromptSubmit`, `preToolUse`,
//! `postToolUse`, `stop`), `cwd`, and for tool events `tool_name` and `tool_input` (plus
//! `tool_response` after the call); `prompt` for `userPromptSubmit`. No session id is sent.
//! Built-in tools: `execute_bash` (`command`), `fs_read` (`operations: [{mode, path}]`),
//! `fs_write` (`command`: `create` / `str_replace` / `insert` / `append`, `path`,
//! `file_text` / `new_str`), `use_aws`, …; newer releases also name them `shell`, `read`,
//! `write`, `aws`. An MCP tool is `@<server>/<tool>`.
//!
//! Out: only the exit code decides. **Exit 2 on `preToolUse` blocks the tool**, and stderr is
//! returned to the model. Exit 0 lets it run. Any other exit code is a warning to the user and
//! the tool **runs** (fail open): Airlock's hook always answers 0 or 2. `userPromptSubmit` and
//! `postToolUse` cannot block anything (their exit 2 is only a warning; a prompt hook's stdout
//! is added to the context), so the turn gate records a flagged turn and a screened result
//! only taints the session. No ask.
//!
//! What Kiro does not cover: the Kiro **IDE**'s "agent hooks" (`.kiro/hooks/*.kiro.hook`) run
//! a command or a prompt on `preToolUse` but give the command no tool name or arguments (no
//! stdin, no variables: `kirodotdev/Kiro` issue #7408), so nothing there can be judged; they
//! are not wired.

use airlock_engine::{Action, Host, Operation};
use serde::Deserialize;
use serde_json::Value;

use super::common::{J, action, args_value, first_str, mcp, prompt_event, unparseable};
use super::{Parsed, Slot, answer, shell_op};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// Kiro's event names (camelCase, as in `hook_event_name`).
pub(crate) const EVENTS: &[&str] = &[
    "agentSpawn",
    "userPromptSubmit",
    "preToolUse",
    "postToolUse",
    "stop",
];

/// One Kiro hook event, as documented.
#[derive(Debug, Deserialize)]
struct KiroEvent {
    hook_event_name: String,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<Value>,
    #[serde(default)]
    tool_response: Option<Value>,
    #[serde(default)]
    prompt: Option<String>,
}

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let e = KiroEvent::deserialize(v).map_err(|err| {
        if v.get("hook_event_name").is_none() {
            HookError::Missing("hook_event_name")
        } else {
            HookError::Json(err)
        }
    })?;
    let cwd = e.cwd.as_deref();
    let event = match e.hook_event_name.as_str() {
        "preToolUse" => Event::Judge(tool_action(&e, cwd)),
        "postToolUse" => Event::Observe {
            action: tool_action(&e, cwd),
            result: super::common::result_text(e.tool_response.as_ref()),
        },
        "userPromptSubmit" => prompt_event(Host::Kiro, e.prompt.as_deref(), cwd, None),
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: e.hook_event_name,
        event,
        bypass_permissions: false,
    })
}

fn tool_action(e: &KiroEvent, cwd: Option<&str>) -> Action {
    let tool = e.tool_name.as_deref().unwrap_or("");
    let mk = |op| action(Host::Kiro, tool, op, cwd, None);
    if tool.is_empty() {
        return mk(unparseable("missing_tool_name"));
    }
    let Some(input) = args_value(e.tool_input.as_ref()) else {
        return mk(unparseable("malformed_tool_input"));
    };
    let unknown = || Operation::UnknownTool {
        tool: tool.to_owned(),
    };
    if let Some(rest) = tool.strip_prefix('@') {
        // `@<server>/<tool>`: MCP server names cannot hold `/`, so the split is exact.
        let (server, name) = rest.split_once('/').unwrap_or((rest, ""));
        return mk(mcp(server, name, input));
    }
    let op = match tool {
        "execute_bash" | "execute_cmd" | "shell" => shell_op(&input),
        "fs_read" | "read" => read_op(&input),
        "fs_write" | "write" => write_op(&input),
        "web_fetch" => match first_str(&input, &["url"]) {
            Some(u) => Operation::Fetch {
                url: u.to_owned(),
                is_search: false,
            },
            None => unparseable("missing_url"),
        },
        "web_search" => match first_str(&input, &["query"]) {
            Some(q) => Operation::Fetch {
                url: q.to_owned(),
                is_search: true,
            },
            None => unparseable("missing_query"),
        },
        "introspect" | "todo_list" | "thinking" | "report_issue" | "knowledge" => {
            Operation::Internal {
                tool: tool.to_owned(),
            }
        }
        // `use_aws` / `aws` calls the AWS API with the user's credentials (any operation), a
        // sub-agent, and every tool Airlock does not know: never a pass.
        _ => unknown(),
    };
    mk(op)
}

/// `fs_read`: `operations: [{mode, path, …}]` (older payloads: a top-level `path`). One path
/// is a file read; several distinct paths are asked about (one `Action` carries one path, and
/// judging only one would let the others through).
fn read_op(input: &Value) -> Operation {
    let mut paths: Vec<&str> = Vec::new();
    match input.get("operations") {
        Some(Value::Array(ops)) => {
            for op in ops {
                match first_str(op, &["path", "file_path"]) {
                    Some(p) => {
                        if !paths.contains(&p) {
                            paths.push(p);
                        }
                    }
                    None => return unparseable("missing_file_path"),
                }
            }
        }
        Some(_) => return unparseable("malformed_tool_input"),
        None => {
            if let Some(p) = first_str(input, &["path", "file_path"]) {
                paths.push(p);
            }
        }
    }
    match paths.as_slice() {
        [] => unparseable("missing_file_path"),
        [one] => Operation::FileRead {
            path: (*one).to_owned(),
        },
        _ => Operation::UnknownTool {
            tool: "fs_read".to_owned(),
        },
    }
}

/// `fs_write`: `path` and the new text (`file_text` for `create`, `new_str` for
/// `str_replace` / `insert` / `append`).
fn write_op(input: &Value) -> Operation {
    let Some(path) = first_str(input, &["path", "file_path"]) else {
        return unparseable("missing_file_path");
    };
    let content = ["file_text", "new_str", "content"]
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    Operation::FileWrite {
        path: path.to_owned(),
        content,
    }
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        "preToolUse" => Slot::PreTool,
        // Kiro documents no way for a prompt hook to stop the prompt.
        "userPromptSubmit" => Slot::PromptUnblockable,
        e if EVENTS.contains(&e) => Slot::Passive,
        _ => Slot::Unknown,
    }
}

/// Exit 2 with the reason on stderr (returned to the model); stdout `{}` is not read.
pub(crate) fn deny(reason: &str) -> HookAnswer {
    answer(&J::Obj(Vec::new()), reason, 2)
}
