//! VS Code agent hooks (GitHub Copilot Chat; `microsoft/vscode-docs`
//! `docs/agent-customization/hooks.md` and `docs/agents/reference/hooks-reference.md`; tool ids
//! from `microsoft/vscode-copilot-chat` `src/extension/tools/common/toolNames.ts`). VS Code also
//! loads `~/.claude/settings.json`, so `airlock hook claude-code` may receive this payload.
//!
//! In: `timestamp` (ISO string), `cwd`, `sessionId`, `hookEventName` (camelCase in the docs;
//! snake_case accepted too), `transcript_path`, and for tool events `tool_name`, `tool_input`,
//! `tool_use_id`, `tool_response`. No `permission_mode`.
//!
//! Out: exit 2 is a blocking error whose stderr goes to the model. `PreToolUse` reads
//! `hookSpecificOutput.permissionDecision` `allow` | `deny` | `ask` (most restrictive wins), so ask
//! is honoured. `UserPromptSubmit` has only the common output: `continue: false` + `stopReason`.

use airlock_engine::{Action, Host, Operation};
use serde_json::Value;

use super::common::{
    J, args_value, fetch_of_urls, first_str, mcp_double_underscore, mcp_single_underscore, opt_str,
    patch_op, prompt_event, result_text, s, unparseable,
};
use super::{Parsed, Slot, answer, claude_vocabulary, read_op, search_op, shell_op, write_op};
use crate::HookError;
use crate::answer::HookAnswer;
use crate::event::Event;

pub(crate) fn parse(v: &Value) -> Result<Parsed, HookError> {
    let event_name = match opt_str(v, "hook_event_name")? {
        Some(e) => e,
        None => opt_str(v, "hookEventName")?.ok_or(HookError::Missing("hook_event_name"))?,
    };
    let session = match opt_str(v, "session_id")? {
        Some(sid) => Some(sid),
        None => opt_str(v, "sessionId")?,
    };
    let cwd = opt_str(v, "cwd")?;
    let event = match event_name {
        "PreToolUse" | "PermissionRequest" => Event::Judge(tool_action(v, cwd, session)?),
        "PostToolUse" => Event::Observe {
            action: tool_action(v, cwd, session)?,
            result: result_text(v.get("tool_response")),
        },
        "UserPromptSubmit" => prompt_event(Host::VsCode, opt_str(v, "prompt")?, cwd, session),
        other => Event::Ignore(other.to_owned()),
    };
    Ok(Parsed {
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: opt_str(v, "permission_mode")? == Some("bypassPermissions"),
    })
}

fn tool_action(v: &Value, cwd: Option<&str>, session: Option<&str>) -> Result<Action, HookError> {
    let tool = opt_str(v, "tool_name")?.unwrap_or("");
    let mk = |op| super::common::action(Host::VsCode, tool, op, cwd, session);
    if tool.is_empty() {
        return Ok(mk(unparseable("missing_tool_name")));
    }
    let Some(ti) = args_value(v.get("tool_input")) else {
        return Ok(mk(unparseable("malformed_tool_input")));
    };
    let op = match tool {
        "run_in_terminal" | "runInTerminal" | "copilot_runInTerminal" => shell_op(&ti),
        "read_file" | "readFile" | "copilot_readFile" => read_op(&ti),
        "create_file" | "createFile" | "copilot_createFile" => write_op(&ti, &["content"]),
        "replace_string_in_file" | "copilot_replaceString" => write_op(&ti, &["newString"]),
        "insert_edit_into_file" | "copilot_insertEdit" => write_op(&ti, &["code"]),
        "multi_replace_string_in_file" | "copilot_multiReplaceString" => multi_replace(tool, &ti),
        "apply_patch" | "copilot_applyPatch" => match first_str(&ti, &["input", "patch"]) {
            Some(p) => patch_op(tool, p),
            None => unparseable("missing_patch"),
        },
        "editFiles" | "edit_files" | "copilot_editFiles" => edit_files(tool, &ti),
        "fetch_webpage" | "copilot_fetchWebPage" | "fetch" => {
            let urls: Vec<&str> = ti
                .get("urls")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .or_else(|| ti.get("url").and_then(Value::as_str).map(|u| vec![u]))
                .unwrap_or_default();
            fetch_of_urls(tool, &urls)
        }
        "runSubagent" => match first_str(&ti, &["prompt", "description"]) {
            Some(p) => Operation::Prompt { text: p.to_owned() },
            None => unparseable("missing_prompt"),
        },
        "grep_search" | "copilot_findTextInFiles" => search_op(tool, &ti),
        // Read-only views of the workspace or of the agent's own state.
        "file_search"
        | "copilot_findFiles"
        | "list_dir"
        | "copilot_listDirectory"
        | "semantic_search"
        | "copilot_searchCodebase"
        | "get_errors"
        | "copilot_getErrors"
        | "get_changed_files"
        | "copilot_getChangedFiles"
        | "list_code_usages"
        | "copilot_listCodeUsages"
        | "search_workspace_symbols"
        | "copilot_searchWorkspaceSymbols"
        | "get_terminal_output"
        | "terminal_selection"
        | "terminal_last_command"
        | "test_search"
        | "copilot_findTestFiles"
        | "get_search_view_results"
        | "copilot_getSearchResults"
        | "get_vscode_api"
        | "copilot_getVSCodeAPI"
        | "get_doc_info"
        | "copilot_getDocInfo"
        | "get_project_setup_info"
        | "copilot_getProjectSetupInfo"
        | "read_project_structure"
        | "copilot_readProjectStructure"
        | "manage_todo_list"
        | "get_task_output"
        | "test_failure"
        | "copilot_testFailure"
        | "copilot_getNotebookSummary"
        | "read_notebook_cell_output"
        | "copilot_readNotebookCellOutput"
        | "vscode_get_confirmation"
        | "vscode_get_terminal_confirmation" => Operation::Internal {
            tool: tool.to_owned(),
        },
        t => {
            if let Some(op) = mcp_double_underscore(t, &ti) {
                op
            } else if let Some(op) = mcp_single_underscore(t, &ti) {
                op
            } else {
                // Claude's names (VS Code running Claude-format hooks), else UnknownTool:
                // run_task, run_vscode_command, install_extension, run_notebook_cell, … ask.
                return Ok(claude_vocabulary(Host::VsCode, t, &ti, cwd, session));
            }
        }
    };
    Ok(mk(op))
}

/// `multi_replace_string_in_file`: one `FileWrite` when every replacement targets one file.
fn multi_replace(tool: &str, ti: &Value) -> Operation {
    let Some(reps) = ti.get("replacements").and_then(Value::as_array) else {
        return unparseable("missing_replacements");
    };
    let mut path: Option<&str> = None;
    let mut content = String::new();
    for r in reps {
        let Some(p) = super::path_of(r) else {
            return unparseable("missing_file_path");
        };
        if path.is_some_and(|q| q != p) {
            return Operation::UnknownTool {
                tool: tool.to_owned(),
            };
        }
        path = Some(p);
        if let Some(c) = r.get("newString").and_then(Value::as_str) {
            content.push_str(c);
            content.push('\n');
        }
    }
    match path {
        Some(p) => Operation::FileWrite {
            path: p.to_owned(),
            content,
        },
        None => unparseable("missing_file_path"),
    }
}

/// `editFiles` (`{"files": [...]}`, the docs' own example): one file → a write to it.
fn edit_files(tool: &str, ti: &Value) -> Operation {
    let files: Vec<&str> = ti
        .get("files")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match files.as_slice() {
        [] => unparseable("missing_file_path"),
        [one] => Operation::FileWrite {
            path: (*one).to_owned(),
            content: String::new(),
        },
        _ => Operation::UnknownTool {
            tool: tool.to_owned(),
        },
    }
}

pub(crate) fn deny(slot: Slot, reason: &str) -> HookAnswer {
    match slot {
        Slot::Prompt => answer(
            &J::Obj(vec![
                ("continue", J::Bool(false)),
                ("stopReason", s(reason)),
            ]),
            reason,
            2,
        ),
        _ => answer(&super::claude::pre_tool("deny", reason), reason, 2),
    }
}
