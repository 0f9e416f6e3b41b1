//! OpenCode (`sst/opencode`, now `anomalyco/opencode`). OpenCode has no command hooks: its
//! hook API is an in-process JS/TS **plugin** (<https://opencode.ai/docs/plugins>, source
//! `packages/web/src/content/docs/plugins.mdx`), loaded from `~/.config/opencode/plugins/`
//! (global; `plugin/` is read too: the loader globs `{plugin,plugins}/*.{ts,js}`) and
//! `.opencode/plugins/`. A plugin's `tool.execute.before(input: {tool, sessionID, callID},
//! output: {args})` runs before every tool call (built-in and MCP; `packages/plugin/src/
//! index.ts` `Hooks`), and **throwing from it stops the call**: the error's message is the
//! tool's error the model sees (the documented `.env` protection example). `tool.execute.after
//! (input, output: {title, output, metadata})` runs after a successful call and may change
//! `output.output`.
//!
//! So the wire format here is **Airlock's own**, spoken between `airlock-hook opencode` and the
//! plugin file `airlock wire opencode` writes (`wire` crate, `plugin.rs`):
//!
//! In: `{"airlock_opencode": 1, "hook_event_name": "tool.execute.before" |
//! "tool.execute.after", "tool", "sessionID", "callID", "args", "cwd", "output"}` — the
//! plugin's `input`/`output` copied as OpenCode hands them over (`output` is the result text,
//! after the call only).
//!
//! Out (stdout, one JSON object): `{}` lets the call run; `{"block": true, "reason"}` (exit 2)
//! makes the plugin throw `reason`; after the call, `{"note"}` is appended to the result the
//! model reads and `{"note", "replace": true}` replaces it. **The plugin fails closed**: a
//! hook it cannot start, a non-zero exit, or stdout that is not one JSON object throws too.
//! There is no ask: AUTH waits for the desktop popup, else it is a block.
//!
//! Tool names and arguments (OpenCode's built-in tools): `bash` (`command`), `read`
//! (`filePath`), `write` (`filePath`, `content`), `edit` (`filePath`, `oldString`,
//! `newString`), `multiedit` (`filePath`, `edits`), `patch` / `apply_patch` (`patchText`),
//! `grep` / `glob` / `list` (`path`), `webfetch` (`url`), `websearch` (`query`), `task`
//! (`prompt`), `todowrite` / `todoread` / `skill` / `lsp` / `question`; an MCP tool is
//! `<server>_<tool>`.

use airlock_engine::{Action, Host, Operation};
use serde::Deserialize;
use serde_json::Value;

use super::common::{J, action, args_value, first_str, mcp, patch_op, s, unparseable};
use super::{Parsed, Slot, answer, search_op, shell_op};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

/// The key only Airlock's OpenCode plugin sends.
pub(crate) const MARKERS: &[&str] = &["airlock_opencode"];

pub(crate) const BEFORE: &str = "tool.execute.before";
pub(crate) const AFTER: &str = "tool.execute.after";

/// What the plugin sends (see the module docs).
#[derive(Debug, Deserialize)]
struct PluginEvent {
    hook_event_name: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default, rename = "sessionID")]
    session_id: Option<String>,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    output: Option<Value>,
}

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let e = PluginEvent::deserialize(v).map_err(|err| {
        if v.get("hook_event_name").is_none() {
            HookError::Missing("hook_event_name")
        } else {
            HookError::Json(err)
        }
    })?;
    let event = match e.hook_event_name.as_str() {
        BEFORE => Event::Judge(tool_action(&e)),
        AFTER => Event::Observe {
            action: tool_action(&e),
            result: super::common::result_text(e.output.as_ref()),
        },
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: e.hook_event_name,
        event,
        bypass_permissions: false,
    })
}

fn tool_action(e: &PluginEvent) -> Action {
    let tool = e.tool.as_deref().unwrap_or("");
    let mk = |op| {
        action(
            Host::OpenCode,
            tool,
            op,
            e.cwd.as_deref(),
            e.session_id.as_deref(),
        )
    };
    if tool.is_empty() {
        return mk(unparseable("missing_tool_name"));
    }
    let Some(a) = args_value(e.args.as_ref()) else {
        return mk(unparseable("malformed_tool_input"));
    };
    let internal = || Operation::Internal {
        tool: tool.to_owned(),
    };
    let op = match tool {
        "bash" => shell_op(&a),
        "read" => path_op(&a, |path| Operation::FileRead { path }),
        "write" => write_op(&a, &["content"]),
        "edit" => write_op(&a, &["newString"]),
        "multiedit" => multiedit_op(&a),
        "patch" | "apply_patch" => match first_str(&a, &["patchText", "patch"]) {
            Some(p) => patch_op(tool, p),
            None => unparseable("missing_patch"),
        },
        "grep" | "glob" | "list" => search_op(tool, &a),
        "webfetch" => match first_str(&a, &["url"]) {
            Some(u) => Operation::Fetch {
                url: u.to_owned(),
                is_search: false,
            },
            None => unparseable("missing_url"),
        },
        "websearch" | "codesearch" => match first_str(&a, &["query"]) {
            Some(q) => Operation::Fetch {
                url: q.to_owned(),
                is_search: true,
            },
            None => unparseable("missing_query"),
        },
        // A sub-agent's instructions: judged for the secrets and destinations they name.
        "task" => Operation::Prompt {
            text: first_str(&a, &["prompt", "description"])
                .unwrap_or("")
                .to_owned(),
        },
        "todowrite" | "todoread" | "skill" | "lsp" | "question" | "invalid" => internal(),
        other => match other.split_once('_') {
            // MCP tools are `<server>_<tool>`; server names may hold `_`, so the first
            // segment is the server and the whole name stays the tool (a wrong split can
            // only cost an approval, never make a tool look read-only).
            Some((server, rest)) if !server.is_empty() && !rest.is_empty() => {
                mcp(server, other, a.clone())
            }
            _ => Operation::UnknownTool {
                tool: tool.to_owned(),
            },
        },
    };
    mk(op)
}

fn path_op(a: &Value, f: impl FnOnce(String) -> Operation) -> Operation {
    match first_str(a, &["filePath", "file_path", "path"]) {
        Some(p) => f(p.to_owned()),
        None => unparseable("missing_file_path"),
    }
}

fn write_op(a: &Value, keys: &[&str]) -> Operation {
    let content = keys
        .iter()
        .filter_map(|k| a.get(*k).and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    path_op(a, |path| Operation::FileWrite { path, content })
}

fn multiedit_op(a: &Value) -> Operation {
    let mut content = Vec::new();
    match a.get("edits") {
        Some(Value::Array(edits)) => {
            for e in edits {
                if let Some(n) = e.get("newString").and_then(Value::as_str) {
                    content.push(n);
                }
            }
        }
        // Edits Airlock cannot read are content it cannot judge.
        _ => return unparseable("malformed_edits"),
    }
    let content = content.join("\n");
    path_op(a, |path| Operation::FileWrite { path, content })
}

pub(crate) fn slot(event_name: &str) -> Slot {
    match event_name {
        BEFORE => Slot::PreTool,
        AFTER => Slot::Passive,
        _ => Slot::Unknown,
    }
}

/// `{"block": true, "reason"}`, exit 2: the plugin throws `reason`.
pub(crate) fn deny(reason: &str) -> HookAnswer {
    answer(
        &J::Obj(vec![("block", J::Bool(true)), ("reason", s(reason))]),
        reason,
        2,
    )
}

/// A screened result: the note appended to the result, or in its place.
pub(crate) fn screened(note: &str, withhold: bool) -> HookAnswer {
    let mut out = vec![("note", s(note))];
    if withhold {
        out.push(("replace", J::Bool(true)));
    }
    answer(&J::Obj(out), note, 0)
}
