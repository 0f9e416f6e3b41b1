//! Every host's hook wire format, in and out.
//!
//! [`parse_call`] reads stdin bytes, works out which host really sent them (Cursor and VS Code
//! also run the hooks in `~/.claude/settings.json`, so `airlock hook claude-code` may receive
//! their payloads), and maps the call to an engine [`Action`](airlock_engine::Action) with
//! `host` set to that host. [`render`] turns Airlock's decision into exactly what the hook
//! prints and how it exits, in the detected host's format.
//!
//! | host | deny | ask honoured | exit code of a deny |
//! |---|---|---|---|
//! | Claude Code | `hookSpecificOutput.permissionDecision: "deny"` (`PermissionRequest`: `decision.behavior`; prompt: `decision: "block"`) | `PreToolUse` | 2 |
//! | Codex CLI | same as Claude | never (`ask` makes the hook fail open) | 2 |
//! | VS Code | same as Claude (prompt: `continue: false`) | `PreToolUse` | 2 |
//! | Cursor | `{"permission": "deny", …}` (prompt: `continue: false`) | never (reported downgraded) | 2 |
//! | Gemini CLI | `{"decision": "deny", "reason"}` | never | 2 |
//! | Copilot CLI | `permissionDecision` + `behavior` deny | never (only deny processed) | 0 (non-zero is ignored) |
//! | Windsurf | exit code 2, reason on stderr (stdout `{}` is not read) | never | 2 |
//! | Cline | `{"cancel": true, "errorMessage"}` (cancels the task too) | never | 0 (JSON decides) |
//! | OpenCode (Airlock's plugin) | `{"block": true, "reason"}`: the plugin throws | never | 2 (the plugin throws on any non-zero exit) |
//! | Kiro CLI | exit code 2, reason on stderr (returned to the model) | never | 2 |
//!
//! **Architecture invariant:** a payload Airlock cannot read, an event it does not know on a
//! host, or an `Ask` a host cannot show is answered with a denial, never with a pass. Reasons are
//! the caller's fixed messages; nothing from the payload is echoed.

use airlock_engine::Host;

use crate::HookError;
use crate::event::Event;
use crate::hosts::{self, Parsed, Slot, no_opinion, reason_or_default};

pub use crate::answer::{HookAnswer, HookOutcome};

/// A parsed payload from any host.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// The host that really sent the payload (may differ from the command line's hint).
    pub host: Host,
    /// The event as the host named it (`PreToolUse`, `beforeShellExecution`, `BeforeTool`, …);
    /// inferred for Copilot's camelCase payloads, which carry no name.
    pub event_name: String,
    pub event: Event,
    /// Claude Code's (or Codex's) `permission_mode` is `bypassPermissions`: a native ask would
    /// be skipped, so it must not be used.
    pub bypass_permissions: bool,
}

impl HookCall {
    /// Whether an `Ask` may be answered with the host's native prompt for this call: the host
    /// honours ask for this event and permissions are not being bypassed.
    pub fn ask_allowed(&self) -> bool {
        supports_ask(self.host, &self.event_name) && !self.bypass_permissions
    }
}

/// Parse stdin bytes. `hint` is the host named on the command line (`airlock hook <host>`);
/// the payload's shape wins when it clearly belongs to another host.
pub fn parse_call(hint: Host, bytes: &[u8]) -> Result<HookCall, HookError> {
    let v = crate::read_payload(bytes)?;
    let host = detect(hint, &v);
    let Parsed {
        event_name,
        event,
        bypass_permissions,
    } = match host {
        Host::Cursor => hosts::cursor::parse(&v)?,
        Host::Gemini => hosts::gemini::parse(&v)?,
        Host::Copilot => hosts::copilot::parse(&v)?,
        Host::VsCode => hosts::vscode::parse(&v)?,
        Host::Codex => hosts::codex::parse(v)?,
        Host::Windsurf => hosts::windsurf::parse(&v)?,
        Host::Cline => hosts::cline::parse(&v)?,
        Host::OpenCode => hosts::opencode::parse(&v)?,
        Host::Kiro => hosts::kiro::parse(&v)?,
        Host::ClaudeCode | Host::Shell | Host::McpProxy | Host::Cli | Host::Unknown => {
            hosts::claude::parse(v)?
        }
    };
    // The wrapper shell speaks Claude's shape but is its own agent in the log and the popup.
    let event = if host == Host::Shell {
        hosts::common::with_host(event, Host::Shell)
    } else {
        event
    };
    Ok(HookCall {
        host,
        event_name,
        event,
        bypass_permissions,
    })
}

/// Which host sent this payload. Distinctive keys and event names decide; when the payload
/// could come from several hosts (Claude's shape is shared by Claude Code, Codex, VS Code and
/// Copilot's compatible format), the hint decides.
fn detect(hint: Host, v: &serde_json::Value) -> Host {
    if hint == Host::Shell {
        // The wrapper shell writes its own Claude-shaped payload; it names no other host.
        return Host::Shell;
    }
    let event = v.get("hook_event_name").and_then(serde_json::Value::as_str);
    let has = |k: &str| v.get(k).is_some();
    if hosts::windsurf::MARKERS.iter().any(|k| has(k)) {
        return Host::Windsurf;
    }
    if hosts::cline::MARKERS.iter().any(|k| has(k)) {
        return Host::Cline;
    }
    if hosts::opencode::MARKERS.iter().any(|k| has(k)) {
        return Host::OpenCode;
    }
    if hint == Host::Kiro
        && !hosts::cursor::MARKERS.iter().any(|k| has(k))
        && !hosts::copilot::MARKERS.iter().any(|k| has(k))
    {
        // Kiro's payload has no mark of its own (`hook_event_name`, `cwd`, `tool_name`,
        // `tool_input`); its camelCase event names overlap Cursor's (`preToolUse`), so the
        // hint decides unless another host's marks are there.
        return Host::Kiro;
    }
    if hosts::cursor::MARKERS.iter().any(|k| has(k))
        || event.is_some_and(|e| hosts::cursor::EVENTS.contains(&e))
    {
        return Host::Cursor;
    }
    if event.is_some_and(|e| hosts::gemini::EVENTS.contains(&e)) || has("mcp_context") {
        return Host::Gemini;
    }
    if hosts::copilot::MARKERS.iter().any(|k| has(k)) {
        return Host::Copilot;
    }
    if has("turn_id") {
        return Host::Codex;
    }
    let named_camel = has("hookEventName");
    let iso_timestamp = v.get("timestamp").is_some_and(serde_json::Value::is_string);
    let numeric_timestamp = v.get("timestamp").is_some_and(serde_json::Value::is_number);
    if event.is_none() && !named_camel && (hint == Host::Copilot || numeric_timestamp) {
        // Copilot's camelCase format has no event name at all.
        return Host::Copilot;
    }
    if named_camel || (iso_timestamp && !has("permission_mode")) {
        // VS Code's shape (Copilot CLI's "VS Code compatible" format looks the same).
        return if hint == Host::Copilot {
            Host::Copilot
        } else {
            Host::VsCode
        };
    }
    match hint {
        Host::Codex | Host::VsCode | Host::Copilot => hint,
        // Claude's shape without any other host's mark: Claude Code (also for a wrong hint of
        // Cursor or Gemini, whose payloads always carry their marks).
        _ => Host::ClaudeCode,
    }
}

fn slot(host: Host, event_name: &str) -> Slot {
    match host {
        Host::Cursor => hosts::cursor::slot(event_name),
        Host::Gemini => hosts::gemini::slot(event_name),
        Host::Copilot => hosts::copilot::slot(event_name),
        Host::Windsurf => hosts::windsurf::slot(event_name),
        Host::Cline => hosts::cline::slot(event_name),
        Host::OpenCode => hosts::opencode::slot(event_name),
        Host::Kiro => hosts::kiro::slot(event_name),
        Host::ClaudeCode
        | Host::Codex
        | Host::VsCode
        | Host::Shell
        | Host::McpProxy
        | Host::Cli
        | Host::Unknown => hosts::claude::slot(event_name),
    }
}

/// Render an outcome in the host's format for that event.
///
/// - `NoOpinion` is `{}` and exit 0 everywhere.
/// - After-the-fact and lifecycle events (`PostToolUse`, `afterShellExecution`, `Stop`, …) are
///   always `{}`: there is nothing left to stop, and a "block" there means something else.
/// - `Ask` where [`supports_ask`] is false is rendered as a denial with the same reason.
/// - An event name the host does not have is answered with that host's pre-tool denial.
pub fn render(host: Host, event_name: &str, outcome: &HookOutcome) -> HookAnswer {
    let (reason, ask) = match outcome {
        HookOutcome::NoOpinion => return no_opinion(),
        HookOutcome::Screened { note, withhold } => {
            return screened(host, event_name, note, *withhold);
        }
        HookOutcome::Deny { reason } => (reason_or_default(reason), false),
        HookOutcome::Ask { reason } => (reason_or_default(reason), true),
    };
    let slot = slot(host, event_name);
    if matches!(slot, Slot::Passive | Slot::PromptUnblockable) {
        return no_opinion();
    }
    if ask && supports_ask(host, event_name) {
        return hosts::claude::ask(reason);
    }
    deny(host, slot, reason)
}

fn deny(host: Host, slot: Slot, reason: &str) -> HookAnswer {
    match host {
        Host::Cursor => hosts::cursor::deny(slot, reason),
        Host::Gemini => hosts::gemini::deny(reason),
        Host::Copilot => hosts::copilot::deny(reason),
        Host::VsCode => hosts::vscode::deny(slot, reason),
        Host::Windsurf => hosts::windsurf::deny(reason),
        Host::Cline => hosts::cline::deny(reason),
        Host::OpenCode => hosts::opencode::deny(reason),
        Host::Kiro => hosts::kiro::deny(reason),
        Host::ClaudeCode
        | Host::Codex
        | Host::Shell
        | Host::McpProxy
        | Host::Cli
        | Host::Unknown => hosts::claude::deny(slot, reason),
    }
}

/// The post-tool events whose output can carry a note to the model.
fn result_event(host: Host, event_name: &str) -> bool {
    match host {
        Host::ClaudeCode | Host::Codex | Host::VsCode => event_name == "PostToolUse",
        Host::Gemini => event_name == "AfterTool",
        Host::Cline => event_name == "PostToolUse",
        Host::OpenCode => event_name == hosts::opencode::AFTER,
        Host::Cursor
        | Host::Copilot
        | Host::Windsurf
        | Host::Kiro
        | Host::Shell
        | Host::McpProxy
        | Host::Cli
        | Host::Unknown => false,
    }
}

/// Whether this host can give the model a note with a tool result for this event (Claude
/// Code, Codex and VS Code `PostToolUse`; Gemini `AfterTool`; Cline `PostToolUse`, as context
/// for the next request; OpenCode `tool.execute.after`, appended to the result). Cursor's,
/// Copilot's, Windsurf's and Kiro's after-the-fact hooks have no output the model reads: there
/// the session is only tainted.
pub fn can_flag(host: Host, event_name: &str) -> bool {
    result_event(host, event_name)
}

/// Whether this host can replace a tool result so the model never sees it: Gemini `AfterTool`
/// (`decision: "deny"` replaces the result with the reason) for every tool, OpenCode's
/// `tool.execute.after` (the plugin replaces `output.output`) for every tool, and Claude Code's
/// and Codex's `PostToolUse` for MCP tools (`updatedMCPToolOutput`). Airlock's own MCP proxy
/// replaces a result itself, whatever the event is called.
pub fn can_withhold(host: Host, event_name: &str, tool: &str) -> bool {
    match host {
        Host::McpProxy => true,
        Host::Gemini => event_name == "AfterTool",
        Host::OpenCode => event_name == hosts::opencode::AFTER,
        Host::ClaudeCode | Host::Codex => event_name == "PostToolUse" && tool.starts_with("mcp__"),
        _ => false,
    }
}

/// A screened tool result in the host's format: the note appended to (or, withheld, in place
/// of) the result. Never a non-zero exit: the call already ran, and a failing hook would only
/// lose the note.
fn screened(host: Host, event_name: &str, note: &str, withhold: bool) -> HookAnswer {
    use hosts::common::{J, s};
    if !result_event(host, event_name) {
        return no_opinion();
    }
    let context = |event: &'static str| {
        (
            "hookSpecificOutput",
            J::Obj(vec![
                ("hookEventName", s(event)),
                ("additionalContext", s(note)),
            ]),
        )
    };
    if host == Host::Cline {
        // Cline cannot replace a result: a withheld one is the note, read with the next request.
        return hosts::cline::screened(note);
    }
    if host == Host::OpenCode {
        return hosts::opencode::screened(note, withhold);
    }
    let out = match host {
        Host::Gemini if withhold => J::Obj(vec![("decision", s("deny")), ("reason", s(note))]),
        Host::Gemini => J::Obj(vec![context("AfterTool")]),
        _ => {
            let mut specific = vec![
                ("hookEventName", s("PostToolUse")),
                ("additionalContext", s(note)),
            ];
            // Only Claude Code and Codex replace a result (an MCP tool's); elsewhere a
            // withhold can only be shown as the note.
            if withhold && matches!(host, Host::ClaudeCode | Host::Codex) {
                specific.push(("updatedMCPToolOutput", s(note)));
            }
            // `decision: "block"` on a post-tool event is how Claude Code makes the model
            // read the reason (the call already ran: nothing is undone).
            J::Obj(vec![
                ("decision", s("block")),
                ("reason", s(note)),
                ("hookSpecificOutput", J::Obj(specific)),
            ])
        }
    };
    hosts::answer(&out, note, 0)
}

/// Whether this host (for this event) honours a native "ask". Only Claude Code's and VS Code's
/// `PreToolUse` do; the caller must still refuse it when `bypass_permissions` is set
/// ([`HookCall::ask_allowed`]).
pub fn supports_ask(host: Host, event_name: &str) -> bool {
    matches!(host, Host::ClaudeCode | Host::VsCode) && event_name == "PreToolUse"
}

/// Whether this host has an event of that name. An unknown `hook_event_name` is never
/// ignored: the guard service denies it (fail closed), since a host renaming or adding an
/// event must not turn Airlock off for it.
pub fn is_known_event(host: Host, event_name: &str) -> bool {
    !matches!(slot(host, event_name), Slot::Unknown)
}

/// Whether a denial rendered for this host and event actually stops something (false for
/// after-the-fact events, unknown names, and Copilot's prompt event, whose output is ignored).
pub fn can_block(host: Host, event_name: &str) -> bool {
    matches!(
        slot(host, event_name),
        Slot::PreTool | Slot::Permission | Slot::Prompt
    )
}

/// A host's own hard limit on how long a hook may run, where going past it lets the call
/// through (Cline kills a hook after 30 s and then treats it as no objection). Airlock answers
/// well before it: an approval popup for such a host is given up early and denied.
pub fn hard_timeout(host: Host) -> Option<std::time::Duration> {
    match host {
        Host::Cline => Some(std::time::Duration::from_secs(30)),
        _ => None,
    }
}

/// Render a fail-closed denial when parsing failed (host from hint; event unknown). The reason
/// names only the error's stable code, never the payload.
pub fn render_parse_failure(hint: Host, err: &HookError) -> HookAnswer {
    let reason = format!(
        "Airlock blocked this action: the hook input could not be read ({}).",
        err.code()
    );
    deny(hint, Slot::PreTool, &reason)
}
