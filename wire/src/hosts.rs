//! Each host's hook-config shape, and the pure edits on it: add Airlock's entries, find
//! them, take them out. No I/O here.
//!
//! Formats as confirmed from each host's own documentation or source (see the crate docs):
//!
//! | host | file | shape | timeout |
//! |---|---|---|---|
//! | Claude Code | `~/.claude/settings.json` | `hooks.<Event>[] = {matcher?, hooks: [{type, command, timeout}]}` | seconds |
//! | Codex CLI | `~/.codex/hooks.json` | same as Claude Code | seconds |
//! | Gemini CLI | `~/.gemini/settings.json` | same, plus `name` on the handler | milliseconds |
//! | Cursor | `~/.cursor/hooks.json` | `{version: 1, hooks: {<event>: [{command, timeout, failClosed}]}}` | seconds |
//! | Copilot CLI | `~/.copilot/hooks/airlock.json` (a file of our own) | `{version: 1, hooks: {<event>: [{type, bash, timeoutSec}]}}` | seconds |
//! | Windsurf | `~/.codeium/windsurf/hooks.json` | `{hooks: {<event>: [{command, show_output}]}}` | none |
//! | Kiro CLI | `~/.kiro/agents/kiro_default.json` (the default agent's config) | `{hooks: {<event>: [{command, matcher, timeout_ms}]}}` | milliseconds |

use crate::Agent;
use crate::json::{Json, entry_mut};

/// How one host lays out its hook entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `hooks.<Event>` is a list of matcher groups `{matcher?, hooks: [handler]}`; the handler
    /// is `{type: "command", command, timeout}`. `millis`: timeout in milliseconds.
    /// `named`: the handler carries `name: "airlock"` (Gemini's `/hooks disable <name>`).
    Grouped { millis: bool, named: bool },
    /// Cursor: top-level `version: 1`; `hooks.<event>` is a flat list of
    /// `{command, timeout, failClosed}` (timeout in seconds).
    Cursor,
    /// Copilot CLI: top-level `version: 1`; `hooks.<event>` is a flat list of
    /// `{type: "command", bash, timeoutSec}`.
    Copilot,
    /// Windsurf (Cascade Hooks): `hooks.<event>` is a flat list of `{command, show_output}`
    /// (no matcher, no timeout field; `command` runs through `bash -c`).
    Windsurf,
    /// Kiro CLI (an agent config's `hooks`): `hooks.<event>` is a flat list of
    /// `{command, matcher?, timeout_ms}` (`matcher: "*"` = every built-in and MCP tool).
    Kiro,
}

impl Style {
    /// Styles whose files carry a top-level `"version": 1`.
    pub(crate) fn versioned(self) -> bool {
        matches!(self, Style::Cursor | Style::Copilot)
    }
}

/// One hook event Airlock wires, and the matcher written with it (if the host takes one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Event {
    pub(crate) name: &'static str,
    pub(crate) matcher: Option<&'static str>,
}

const fn ev(name: &'static str, matcher: Option<&'static str>) -> Event {
    Event { name, matcher }
}

/// A supported host.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Host {
    /// Path under the home directory.
    pub(crate) rel_path: &'static [&'static str],
    pub(crate) style: Style,
    pub(crate) events: &'static [Event],
}

const ALL: Option<&str> = Some("*");

const CLAUDE: Host = Host {
    rel_path: &[".claude", "settings.json"],
    style: Style::Grouped {
        millis: false,
        named: false,
    },
    events: &[
        ev("PreToolUse", ALL),
        ev("PostToolUse", ALL),
        ev("UserPromptSubmit", None),
        ev("PermissionRequest", ALL),
    ],
};

const CODEX: Host = Host {
    rel_path: &[".codex", "hooks.json"],
    style: Style::Grouped {
        millis: false,
        named: false,
    },
    events: &[
        ev("PreToolUse", ALL),
        ev("PostToolUse", ALL),
        ev("UserPromptSubmit", None),
        ev("PermissionRequest", ALL),
    ],
};

const GEMINI: Host = Host {
    rel_path: &[".gemini", "settings.json"],
    style: Style::Grouped {
        millis: true,
        named: true,
    },
    events: &[
        ev("BeforeTool", ALL),
        ev("AfterTool", ALL),
        ev("BeforeAgent", None),
    ],
};

const CURSOR: Host = Host {
    rel_path: &[".cursor", "hooks.json"],
    style: Style::Cursor,
    events: &[
        ev("beforeShellExecution", None),
        ev("beforeMCPExecution", None),
        ev("beforeReadFile", None),
        ev("beforeSubmitPrompt", None),
        ev("preToolUse", None),
    ],
};

const COPILOT: Host = Host {
    rel_path: &[".copilot", "hooks", "airlock.json"],
    style: Style::Copilot,
    events: &[
        ev("preToolUse", None),
        ev("postToolUse", None),
        ev("userPromptSubmitted", None),
        ev("permissionRequest", None),
    ],
};

const WINDSURF: Host = Host {
    rel_path: &[".codeium", "windsurf", "hooks.json"],
    style: Style::Windsurf,
    events: &[
        ev("pre_run_command", None),
        ev("pre_read_code", None),
        ev("pre_write_code", None),
        ev("pre_mcp_tool_use", None),
        ev("pre_user_prompt", None),
        ev("post_mcp_tool_use", None),
    ],
};

/// Kiro CLI runs the hooks of the agent in use; `kiro_default.json` in the global agents
/// directory is the default agent's config (<https://kiro.dev/docs/cli/hooks>,
/// <https://kiro.dev/docs/cli/custom-agents/configuration-reference>).
const KIRO: Host = Host {
    rel_path: &[".kiro", "agents", "kiro_default.json"],
    style: Style::Kiro,
    events: &[
        ev("preToolUse", ALL),
        ev("postToolUse", ALL),
        ev("userPromptSubmit", None),
    ],
};

/// Why VS Code is not wired on its own (see the crate docs).
pub(crate) const VSCODE_WHY: &str = "VS Code (agent hooks are in Preview) has no user-level hook \
file of its own: it runs the hooks in ~/.copilot/hooks/*.json (Copilot CLI's) and \
~/.claude/settings.json (Claude Code's, matchers ignored). `airlock wire copilot` or \
`airlock wire claude-code` already reaches VS Code; a separate VS Code entry would run Airlock \
twice per tool call";

/// The host definition, or `None` for VS Code (not wired on its own) and Cline (script files,
/// see `scripts`).
pub(crate) fn host(agent: Agent) -> Option<Host> {
    match agent {
        Agent::Windsurf => Some(WINDSURF),
        Agent::Kiro => Some(KIRO),
        Agent::Cline | Agent::OpenCode => None,
        Agent::ClaudeCode => Some(CLAUDE),
        Agent::Codex => Some(CODEX),
        Agent::Gemini => Some(GEMINI),
        Agent::Cursor => Some(CURSOR),
        Agent::Copilot => Some(COPILOT),
        Agent::VsCode => None,
    }
}

/// A structural problem in an existing file that stops us from editing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fail {
    /// Valid JSON, but not the shape the host documents (e.g. `hooks` is a string).
    Shape(String),
    /// A `version` other than 1: a format we do not know.
    Version(String),
}

/// What identifies Airlock's own command in an entry.
#[derive(Debug, Clone)]
pub(crate) struct Ours {
    /// The command written: `<airlock-hook> <host>` when the small hook binary is installed
    /// next to `airlock`, else `<airlock> hook <host>`; the path quoted for a POSIX shell when
    /// needed.
    pub(crate) command: String,
    /// Every spelling recognised as ours (both forms, quoted and not), so re-wiring replaces
    /// an entry of the other form and unwiring removes either.
    known: Vec<String>,
}

/// The small hook binary's file name (installed next to `airlock`).
pub(crate) const HOOK_BIN: &str = "airlock-hook";

impl Ours {
    /// `bin` is the `airlock` binary; `use_hook_bin` says whether `airlock-hook` sits next to
    /// it (the caller looks; this layer does no I/O).
    pub(crate) fn new(bin: &str, host_arg: &str, use_hook_bin: bool) -> Ours {
        let hook_bin = match bin.rsplit_once('/') {
            Some((dir, _)) => format!("{dir}/{HOOK_BIN}"),
            None => HOOK_BIN.to_owned(),
        };
        let long = format!("{} hook {host_arg}", shell_quote(bin));
        let short = format!("{} {host_arg}", shell_quote(&hook_bin));
        let known = vec![
            long.clone(),
            format!("{bin} hook {host_arg}"),
            short.clone(),
            format!("{hook_bin} {host_arg}"),
        ];
        Ours {
            command: if use_hook_bin { short } else { long },
            known,
        }
    }

    /// Whether a command string runs Airlock's hook for this host.
    pub(crate) fn matches(&self, command: &str) -> bool {
        self.known.iter().any(|k| contains_word(command, k))
    }
}

/// `haystack` contains `needle` followed by the end or whitespace (so `hook cursor` does not
/// match `hook cursorx`).
fn contains_word(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(i, _)| {
        haystack
            .get(i + needle.len()..)
            .and_then(|rest| rest.chars().next())
            .is_none_or(char::is_whitespace)
    })
}

/// Quotes `s` for a POSIX shell when it has anything but plainly safe characters.
pub(crate) fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if safe {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The handler (hook command object) Airlock writes for `host`.
fn handler(style: Style, ours: &Ours, timeout_secs: u32) -> Json {
    let secs = u64::from(timeout_secs);
    match style {
        Style::Grouped { millis, named } => {
            let mut entries = Vec::new();
            if named {
                entries.push(("name", Json::str("airlock")));
            }
            entries.push(("type", Json::str("command")));
            entries.push(("command", Json::str(&ours.command)));
            let timeout = if millis {
                secs.saturating_mul(1000)
            } else {
                secs
            };
            entries.push(("timeout", Json::num(timeout)));
            Json::obj(entries)
        }
        Style::Cursor => Json::obj(vec![
            ("command", Json::str(&ours.command)),
            ("timeout", Json::num(secs)),
            ("failClosed", Json::Bool(true)),
        ]),
        Style::Copilot => Json::obj(vec![
            ("type", Json::str("command")),
            ("bash", Json::str(&ours.command)),
            ("timeoutSec", Json::num(secs)),
        ]),
        // `show_output` off: Windsurf does not read stdout, and a block's stderr is shown in
        // its own banner.
        Style::Windsurf => Json::obj(vec![
            ("command", Json::str(&ours.command)),
            ("show_output", Json::Bool(false)),
        ]),
        // The matcher is added per event in `desired_element`.
        Style::Kiro => Json::obj(vec![
            ("command", Json::str(&ours.command)),
            ("timeout_ms", Json::num(secs.saturating_mul(1000))),
        ]),
    }
}

/// The list element Airlock adds under one event: a matcher group for grouped hosts, the
/// handler itself for flat ones.
fn desired_element(style: Style, event: &Event, ours: &Ours, timeout_secs: u32) -> Json {
    let h = handler(style, ours, timeout_secs);
    match style {
        Style::Grouped { .. } => {
            let mut entries = Vec::new();
            if let Some(m) = event.matcher {
                entries.push(("matcher", Json::str(m)));
            }
            entries.push(("hooks", Json::Array(vec![h])));
            Json::obj(entries)
        }
        Style::Cursor | Style::Copilot | Style::Windsurf => h,
        Style::Kiro => match (event.matcher, h) {
            (Some(m), Json::Object(mut entries)) => {
                entries.insert(1, ("matcher".into(), Json::str(m)));
                Json::Object(entries)
            }
            (_, h) => h,
        },
    }
}

/// Whether a handler object runs Airlock's hook.
fn handler_is_ours(style: Style, h: &Json, ours: &Ours) -> bool {
    let keys: &[&str] = match style {
        Style::Grouped { .. } | Style::Cursor | Style::Kiro => &["command"],
        Style::Windsurf => &["command", "powershell"],
        Style::Copilot => &["bash", "command", "powershell"],
    };
    keys.iter()
        .filter_map(|k| h.get(k).and_then(Json::as_str))
        .any(|c| ours.matches(c))
}

/// Counts Airlock handlers in one event list.
fn count_ours(style: Style, list: &[Json], ours: &Ours) -> usize {
    match style {
        Style::Grouped { .. } => list
            .iter()
            .filter_map(|group| match group.get("hooks") {
                Some(Json::Array(hs)) => Some(hs),
                _ => None,
            })
            .map(|hs| {
                hs.iter()
                    .filter(|h| handler_is_ours(style, h, ours))
                    .count()
            })
            .sum(),
        Style::Cursor | Style::Copilot | Style::Windsurf | Style::Kiro => list
            .iter()
            .filter(|h| handler_is_ours(style, h, ours))
            .count(),
    }
}

/// Removes Airlock handlers from one event list; groups left empty by the removal go too.
/// Returns whether anything was removed.
fn remove_ours(style: Style, list: &mut Vec<Json>, ours: &Ours) -> bool {
    let before = list.len();
    match style {
        Style::Grouped { .. } => {
            let mut removed_any = false;
            list.retain_mut(|group| {
                let Json::Object(entries) = group else {
                    return true;
                };
                let Some(Json::Array(hs)) = entry_mut(entries, "hooks") else {
                    return true;
                };
                let n = hs.len();
                hs.retain(|h| !handler_is_ours(style, h, ours));
                if hs.len() == n {
                    return true;
                }
                removed_any = true;
                !hs.is_empty()
            });
            removed_any
        }
        Style::Cursor | Style::Copilot | Style::Windsurf | Style::Kiro => {
            list.retain(|h| !handler_is_ours(style, h, ours));
            list.len() != before
        }
    }
}

/// Top-level object entries of `doc`, or a shape failure.
fn top(doc: &mut Json) -> Result<&mut Vec<(String, Json)>, Fail> {
    match doc {
        Json::Object(entries) => Ok(entries),
        _ => Err(Fail::Shape("the top level is not a JSON object".into())),
    }
}

fn check_version(host: &Host, entries: &[(String, Json)]) -> Result<(), Fail> {
    if !host.style.versioned() {
        return Ok(());
    }
    match entries.iter().find(|(k, _)| k == "version").map(|(_, v)| v) {
        None => Ok(()),
        Some(v) if v.same(&Json::num(1)) => Ok(()),
        Some(_) => Err(Fail::Version(
            "the file's \"version\" is not 1, a format Airlock does not know".into(),
        )),
    }
}

/// The `hooks` object's entries, if present; a shape failure if it is not an object.
fn hooks_of(entries: &mut [(String, Json)]) -> Result<Option<&mut Vec<(String, Json)>>, Fail> {
    match entry_mut(entries, "hooks") {
        None => Ok(None),
        Some(Json::Object(h)) => Ok(Some(h)),
        Some(_) => Err(Fail::Shape("\"hooks\" is not a JSON object".into())),
    }
}

fn event_list<'a>(
    hooks: &'a mut [(String, Json)],
    name: &str,
) -> Result<Option<&'a mut Vec<Json>>, Fail> {
    match entry_mut(hooks, name) {
        None => Ok(None),
        Some(Json::Array(list)) => Ok(Some(list)),
        Some(_) => Err(Fail::Shape(format!("\"hooks.{name}\" is not a JSON array"))),
    }
}

/// Checks every part of `doc` that wiring would edit, without changing anything.
fn validate(host: &Host, doc: &Json) -> Result<(), Fail> {
    let mut copy = doc.clone();
    let entries = top(&mut copy)?;
    check_version(host, entries)?;
    if let Some(hooks) = hooks_of(entries)? {
        for event in host.events {
            event_list(hooks, event.name)?;
        }
    }
    Ok(())
}

/// Adds Airlock's entries to `doc` (an existing document, or `None` for no file).
/// Returns the document and whether it changed. An already-wired document is returned
/// unchanged, whatever its formatting.
pub(crate) fn wire_doc(
    host: &Host,
    doc: Option<Json>,
    ours: &Ours,
    timeout_secs: u32,
) -> Result<(Json, bool), Fail> {
    let mut doc = doc.unwrap_or(Json::Object(Vec::new()));
    validate(host, &doc)?;
    let style = host.style;
    let entries = top(&mut doc)?;
    let mut changed = false;

    if style.versioned() && !entries.iter().any(|(k, _)| k == "version") {
        entries.insert(0, ("version".into(), Json::num(1)));
        changed = true;
    }
    if !entries.iter().any(|(k, _)| k == "hooks") {
        entries.push(("hooks".into(), Json::Object(Vec::new())));
        changed = true;
    }
    let hooks = hooks_of(entries)?.ok_or_else(|| Fail::Shape("\"hooks\" is missing".into()))?;

    for event in host.events {
        let desired = desired_element(style, event, ours, timeout_secs);
        if event_list(hooks, event.name)?.is_none() {
            hooks.push((event.name.into(), Json::Array(Vec::new())));
        }
        let list = event_list(hooks, event.name)?
            .ok_or_else(|| Fail::Shape(format!("\"hooks.{}\" is missing", event.name)))?;
        let exact = list.iter().any(|el| el.same(&desired));
        if exact && count_ours(style, list, ours) == 1 {
            continue;
        }
        remove_ours(style, list, ours);
        list.push(desired);
        changed = true;
    }
    Ok((doc, changed))
}

/// Takes Airlock's entries out of `doc`: handlers, groups and event lists that only held
/// them, and `hooks` itself if that leaves it empty. Returns whether anything was removed.
pub(crate) fn strip_doc(host: &Host, doc: &mut Json, ours: &Ours) -> Result<bool, Fail> {
    validate(host, doc)?;
    let style = host.style;
    let entries = top(doc)?;
    let Some(hooks) = hooks_of(entries)? else {
        return Ok(false);
    };
    let mut removed_any = false;
    for event in host.events {
        let Some(list) = event_list(hooks, event.name)? else {
            continue;
        };
        if remove_ours(style, list, ours) {
            removed_any = true;
            if list.is_empty() {
                hooks.retain(|(k, _)| k != event.name);
            }
        }
    }
    if removed_any && hooks.is_empty() {
        entries.retain(|(k, _)| k != "hooks");
    }
    Ok(removed_any)
}

/// Whether every event Airlock wires has an Airlock entry.
pub(crate) fn fully_wired(host: &Host, doc: &Json, ours: &Ours) -> Result<bool, Fail> {
    validate(host, doc)?;
    let Some(hooks) = doc.get("hooks") else {
        return Ok(false);
    };
    Ok(host.events.iter().all(|event| match hooks.get(event.name) {
        Some(Json::Array(list)) => count_ours(host.style, list, ours) > 0,
        _ => false,
    }))
}

/// `doc` with the parts wiring may add while empty taken away: an empty `hooks`, empty event
/// lists of the events we wire, and (for versioned hosts) `version: 1`. Two documents that
/// are equal after this differ only in what wiring adds to an empty file.
pub(crate) fn normalized(host: &Host, doc: &Json) -> Json {
    let mut doc = doc.clone();
    if let Json::Object(entries) = &mut doc {
        if let Some(Json::Object(hooks)) = entry_mut(entries, "hooks") {
            hooks.retain(|(k, v)| {
                !(host.events.iter().any(|e| e.name == k)
                    && matches!(v, Json::Array(list) if list.is_empty()))
            });
        }
        entries.retain(|(k, v)| match k.as_str() {
            "hooks" => !matches!(v, Json::Object(h) if h.is_empty()),
            "version" => !(host.style.versioned() && v.same(&Json::num(1))),
            _ => true,
        });
    }
    doc
}

/// Whether nothing but what wiring adds is left in `doc` (so a file we created can go).
pub(crate) fn is_skeleton(host: &Host, doc: &Json) -> bool {
    matches!(normalized(host, doc), Json::Object(entries) if entries.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, render};

    fn ours() -> Ours {
        Ours::new("/usr/local/bin/airlock", "claude-code", false)
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/airlock"), "/usr/bin/airlock");
        assert_eq!(
            shell_quote("/opt/My Tools/airlock"),
            "'/opt/My Tools/airlock'"
        );
        assert_eq!(shell_quote("/o'k/airlock"), "'/o'\\''k/airlock'");
        assert_eq!(shell_quote("~/bin/airlock"), "'~/bin/airlock'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn recognition_needs_the_host_word_to_end() {
        let o = Ours::new("/a b/airlock", "cursor", false);
        assert!(o.matches("'/a b/airlock' hook cursor"));
        assert!(o.matches("'/a b/airlock' hook cursor --verbose"));
        assert!(o.matches("/a b/airlock hook cursor"));
        assert!(!o.matches("'/a b/airlock' hook cursorx"));
        assert!(!o.matches("'/a b/airlock' hook claude-code"));
        assert!(!o.matches("/other/airlock hook cursor"));
        // The small hook binary's form is ours too, whichever form is written.
        assert!(o.matches("'/a b/airlock-hook' cursor"));
        assert!(!o.matches("'/a b/airlock-hook' cursorx"));
        assert!(!o.matches("/other/airlock-hook cursor"));
        let short = Ours::new("/a b/airlock", "cursor", true);
        assert_eq!(short.command, "'/a b/airlock-hook' cursor");
        assert!(short.matches("'/a b/airlock' hook cursor"));
    }

    #[test]
    fn wire_then_strip_is_identity_on_the_value() {
        let original = parse(
            r#"{"model":"x","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"lint"}]}]}}"#,
        )
        .unwrap();
        let (mut wired, changed) = wire_doc(&CLAUDE, Some(original.clone()), &ours(), 30).unwrap();
        assert!(changed);
        assert!(fully_wired(&CLAUDE, &wired, &ours()).unwrap());
        let (again, changed_again) = wire_doc(&CLAUDE, Some(wired.clone()), &ours(), 30).unwrap();
        assert!(!changed_again);
        assert_eq!(render(&again), render(&wired));
        assert!(strip_doc(&CLAUDE, &mut wired, &ours()).unwrap());
        assert!(wired.same(&original));
        assert_eq!(render(&wired), render(&original));
    }

    #[test]
    fn a_changed_timeout_replaces_our_entry_in_place_of_adding_one() {
        let (wired, _) = wire_doc(&CLAUDE, None, &ours(), 30).unwrap();
        let (rewired, changed) = wire_doc(&CLAUDE, Some(wired), &ours(), 10).unwrap();
        assert!(changed);
        let list = rewired.get("hooks").unwrap().get("PreToolUse").unwrap();
        let Json::Array(groups) = list else { panic!() };
        assert_eq!(groups.len(), 1);
        assert!(render(&rewired).contains("\"timeout\": 10"));
        assert!(!render(&rewired).contains("\"timeout\": 30"));
    }

    #[test]
    fn our_command_inside_a_user_group_is_moved_out_and_the_group_kept() {
        let doc = parse(
            r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"lint"},{"type":"command","command":"/usr/local/bin/airlock hook claude-code"}]}]}}"#,
        )
        .unwrap();
        let (wired, changed) = wire_doc(&CLAUDE, Some(doc), &ours(), 30).unwrap();
        assert!(changed);
        let Some(Json::Array(groups)) = wired.get("hooks").unwrap().get("PreToolUse") else {
            panic!()
        };
        assert_eq!(groups.len(), 2);
        assert_eq!(count_ours(CLAUDE.style, groups, &ours()), 1);
    }

    #[test]
    fn shapes_we_must_edit_are_checked_before_any_edit() {
        for bad in ["[]", r#"{"hooks":"x"}"#, r#"{"hooks":{"PreToolUse":{}}}"#] {
            let doc = parse(bad).unwrap();
            assert!(matches!(
                wire_doc(&CLAUDE, Some(doc), &ours(), 30),
                Err(Fail::Shape(_))
            ));
        }
        let doc = parse(r#"{"version":2,"hooks":{}}"#).unwrap();
        assert!(matches!(
            wire_doc(&CURSOR, Some(doc), &ours(), 30),
            Err(Fail::Version(_))
        ));
        // Odd user entries we do not need to edit are left alone.
        let doc = parse(r#"{"hooks":{"PreToolUse":[5,"x",{"hooks":7}],"Other":3}}"#).unwrap();
        let (wired, _) = wire_doc(&CLAUDE, Some(doc), &ours(), 30).unwrap();
        assert!(render(&wired).contains("\"Other\": 3"));
    }

    #[test]
    fn skeletons() {
        assert!(is_skeleton(&CURSOR, &parse(r#"{"version":1}"#).unwrap()));
        assert!(is_skeleton(
            &CURSOR,
            &parse(r#"{"version":1,"hooks":{}}"#).unwrap()
        ));
        assert!(!is_skeleton(&CLAUDE, &parse(r#"{"version":1}"#).unwrap()));
        assert!(is_skeleton(
            &CLAUDE,
            &parse(r#"{"hooks":{"PreToolUse":[]}}"#).unwrap()
        ));
        assert!(!is_skeleton(
            &CLAUDE,
            &parse(r#"{"hooks":{"Stop":[]}}"#).unwrap()
        ));
    }
}
