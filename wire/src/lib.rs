//! `airlock wire <agent>` / `airlock unwire <agent>`: put Airlock's hook command
//! (`<airlock_bin> hook <host>`) into each coding agent's own user-level hook config, and take
//! it out again.
//!
//! * **Idempotent.** Wiring a wired file changes nothing and writes no backup.
//! * **Other entries are kept**, and so is the user's key order; the file is rewritten with
//!   two-space indentation and a final newline only when something changes.
//! * **Backups.** Before changing an existing file, its exact bytes are copied to
//!   `<file>.airlock-backup-<stamp>` beside it (same permissions).
//! * **Exact unwire.** Unwire removes Airlock's entries; when the result is the same JSON as
//!   the newest backup, the backup's bytes are put back, so the file is byte-identical to
//!   before `wire`. If the user changed other things since, only Airlock's entries go and
//!   their changes stay. A file that did not exist before `wire` and holds nothing else is
//!   removed.
//! * **Refusals.** A file that is not valid JSON, or whose `hooks` (or an event list we edit)
//!   is not the documented type, is left untouched ([`WireError::Parse`]).
//! * Writes are atomic (temporary file in the same directory, then rename) and keep the
//!   existing file's permissions; a symlinked config is edited at its target.
//!
//! Host formats (confirmed from each host's documentation or source):
//!
//! * **Claude Code**: `~/.claude/settings.json`, `hooks.<Event>` = list of
//!   `{matcher, hooks: [{type: "command", command, timeout}]}`, timeout in seconds, matcher
//!   `*` = every tool. Wired: `PreToolUse` (`*`), `PostToolUse` (`*`), `UserPromptSubmit`,
//!   `PermissionRequest` (`*`).
//! * **Codex CLI**: `~/.codex/hooks.json` (same shape; Codex also reads inline `[hooks]` in
//!   `config.toml`, which we do not touch). Same four events. Codex runs a new or changed
//!   user hook only after the user trusts it in `/hooks`.
//! * **Gemini CLI**: `~/.gemini/settings.json`, same grouped shape, handler also named
//!   (`name: "airlock"`), timeout in **milliseconds**. Wired: `BeforeTool` (`*`),
//!   `AfterTool` (`*`), `BeforeAgent`.
//! * **Cursor**: `~/.cursor/hooks.json`, `{version: 1, hooks: {<event>: [{command, timeout,
//!   failClosed}]}}`, timeout in seconds, `failClosed: true` so a crashed or timed-out hook
//!   blocks. Wired: `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`,
//!   `beforeSubmitPrompt`, `preToolUse` (no matcher = every tool).
//! * **Copilot CLI**: user hook files are `~/.copilot/hooks/*.json`; Airlock uses a file of
//!   its own, `~/.copilot/hooks/airlock.json`: `{version: 1, hooks: {<event>: [{type:
//!   "command", bash, timeoutSec}]}}`. Wired: `preToolUse`, `postToolUse`,
//!   `userPromptSubmitted`, `permissionRequest` (no matcher = every tool).
//! * **Windsurf**: `~/.codeium/windsurf/hooks.json`, `{hooks: {<event>: [{command,
//!   show_output}]}}` (no matcher, no timeout field). Wired: `pre_run_command`,
//!   `pre_read_code`, `pre_write_code`, `pre_mcp_tool_use`, `pre_user_prompt`,
//!   `post_mcp_tool_use`. The system-level file is `/etc/windsurf/hooks.json` (same format).
//! * **Cline**: no config document — one executable file per event in
//!   `~/Documents/Cline/Hooks/` (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`). Airlock
//!   writes marked two-line `sh` scripts there and never replaces a user's own file of the same
//!   name (see `scripts`); [`wire_file`] and the pure `*_text` forms do not apply to it.
//! * **Kiro CLI**: `~/.kiro/agents/kiro_default.json` (the default agent's config; hooks are
//!   per agent), `{hooks: {<event>: [{command, matcher, timeout_ms}]}}`, timeout in
//!   **milliseconds**. Wired: `preToolUse` (`*`), `postToolUse` (`*`), `userPromptSubmit`
//!   (<https://kiro.dev/docs/cli/hooks>). Other agents of the user's own are not edited.
//! * **OpenCode**: no hook config — an in-process plugin. Airlock writes its own plugin file
//!   `~/.config/opencode/plugins/airlock.js` (see `plugin`) and never replaces a user's file
//!   of that name; [`wire_file`] and the pure `*_text` forms do not apply to it.
//! * **VS Code**: not wired on its own ([`WireError::Unsupported`] from `wire`/`unwire`): it
//!   has no user-level hook file of its own and runs the hooks in `~/.copilot/hooks/*.json`
//!   (converting Copilot CLI's camelCase events) and `~/.claude/settings.json` (matchers
//!   ignored). [`is_wired`] reports it wired when either of those is.
//!
//! The library reads no clock and no environment: the home directory, the binary path and
//! the backup stamp are arguments.

pub mod codex_requirements;
mod fsops;
mod hosts;
mod json;
mod platform;
mod plugin;
mod scripts;
pub mod system;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use hosts::{Fail, Host, Ours};
use json::Json;

/// A coding agent whose hooks Airlock can wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent {
    ClaudeCode,
    Cursor,
    Codex,
    Gemini,
    Copilot,
    VsCode,
    Windsurf,
    Cline,
    OpenCode,
    Kiro,
}

impl Agent {
    /// Every agent, in a stable order.
    pub const ALL: [Agent; 10] = [
        Agent::ClaudeCode,
        Agent::Cursor,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::VsCode,
        Agent::Windsurf,
        Agent::Cline,
        Agent::OpenCode,
        Agent::Kiro,
    ];

    /// The agent's name on the command line and in `airlock hook <host>`.
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Cursor => "cursor",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::VsCode => "vscode",
            Agent::Windsurf => "windsurf",
            Agent::Cline => "cline",
            Agent::OpenCode => "opencode",
            Agent::Kiro => "kiro",
        }
    }

    /// Parses a name (case-insensitive; a few common spellings are accepted).
    pub fn parse(s: &str) -> Option<Agent> {
        match s.trim().to_ascii_lowercase().as_str() {
            "claude-code" | "claude" | "claudecode" | "claude_code" => Some(Agent::ClaudeCode),
            "cursor" => Some(Agent::Cursor),
            "codex" | "codex-cli" => Some(Agent::Codex),
            "gemini" | "gemini-cli" => Some(Agent::Gemini),
            "copilot" | "copilot-cli" | "github-copilot" => Some(Agent::Copilot),
            "vscode" | "vs-code" | "code" => Some(Agent::VsCode),
            "windsurf" | "cascade" => Some(Agent::Windsurf),
            "cline" => Some(Agent::Cline),
            "opencode" | "open-code" => Some(Agent::OpenCode),
            "kiro" | "kiro-cli" => Some(Agent::Kiro),
            _ => None,
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Agent {
    type Err = WireError;

    fn from_str(s: &str) -> Result<Agent, WireError> {
        Agent::parse(s).ok_or_else(|| WireError::UnknownAgent(s.to_owned()))
    }
}

/// What `wire` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireOptions {
    /// Absolute path of the `airlock` binary the hooks run.
    pub airlock_bin: PathBuf,
    /// Hook timeout written into the config (converted to the host's unit). Airlock's own
    /// watchdog answers before it.
    pub timeout_secs: u32,
    /// Timestamp text for backup file names (characters other than `[A-Za-z0-9._-]` become
    /// `-`). Passed in: the library reads no clock.
    pub stamp: String,
}

/// What a `wire` or `unwire` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireReport {
    /// The config file (as given by [`config_path`]).
    pub path: PathBuf,
    /// Whether the file was written, created or removed.
    pub changed: bool,
    /// The backup `wire` made of the previous file, or the backup `unwire` restored from.
    pub backup: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error(
        "unknown agent `{0}` (expected one of: claude-code, cursor, codex, gemini, copilot, vscode, windsurf, cline, opencode, kiro)"
    )]
    UnknownAgent(String),
    #[error("cannot wire or unwire {agent}: {why}")]
    Unsupported { agent: &'static str, why: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The existing file is not valid JSON (or not the documented shape): it is left untouched.
    #[error("{} was left untouched: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("Airlock is not wired in {}", path.display())]
    NotWired { path: PathBuf },
    /// Reserved for callers that require a backup to restore from; `unwire` itself edits the
    /// file in place when there is none.
    #[error("no Airlock backup found for {}", path.display())]
    NoBackup { path: PathBuf },
}

/// The user-level file Airlock edits for `agent`. For VS Code, which is not wired on its own,
/// this is the user hook directory it shares with Copilot CLI (`~/.copilot/hooks`); for Cline,
/// the hook directory its event files go in.
pub fn config_path(agent: Agent, home: &Path) -> PathBuf {
    if agent == Agent::Cline {
        return scripts::dir(&scripts::CLINE, home);
    }
    if agent == Agent::OpenCode {
        return plugin::path(home);
    }
    match hosts::host(agent) {
        Some(h) => h.rel_path.iter().fold(home.to_path_buf(), |p, c| p.join(c)),
        None => home.join(".copilot").join("hooks"),
    }
}

/// Whether the agent looks installed for this user (its home directory exists).
pub fn is_installed(agent: Agent, home: &Path) -> bool {
    let dirs: &[&str] = match agent {
        Agent::ClaudeCode => &[".claude"],
        Agent::Cursor => &[".cursor"],
        Agent::Codex => &[".codex"],
        Agent::Gemini => &[".gemini"],
        Agent::Copilot => &[".copilot"],
        Agent::VsCode => &[".vscode", ".vscode-insiders", ".vscode-server"],
        Agent::Windsurf => &[".codeium/windsurf"],
        // The VS Code extension keeps its rules, hooks and MCP servers under ~/Documents/Cline;
        // the CLI under ~/.cline.
        Agent::Cline => &["Documents/Cline", ".cline"],
        Agent::OpenCode => &[".config/opencode", ".local/share/opencode"],
        Agent::Kiro => &[".kiro"],
    };
    dirs.iter().any(|d| home.join(d).is_dir())
        || (agent == Agent::ClaudeCode && home.join(".claude.json").is_file())
}

/// Whether every hook event Airlock wires for `agent` runs `airlock_bin`. A missing file is
/// not wired; a malformed one is an error.
///
/// VS Code has no hook file of its own; it counts as wired when one of the user-level files
/// it loads (Copilot CLI's or Claude Code's) is wired.
pub fn is_wired(agent: Agent, home: &Path, airlock_bin: &Path) -> Result<bool, WireError> {
    if agent == Agent::VsCode {
        let copilot = is_wired(Agent::Copilot, home, airlock_bin);
        let claude = is_wired(Agent::ClaudeCode, home, airlock_bin);
        return match (copilot, claude) {
            (Ok(true), _) | (_, Ok(true)) => Ok(true),
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(false), Ok(false)) => Ok(false),
        };
    }
    if agent == Agent::Cline {
        return scripts::is_wired(&scripts::CLINE, home, &ours(agent, airlock_bin)?);
    }
    if agent == Agent::OpenCode {
        return plugin::is_wired(home, &ours(agent, airlock_bin)?);
    }
    is_wired_file(agent, &config_path(agent, home), airlock_bin)
}

/// [`is_wired`] for an explicit file of the host's format (a system-level managed settings
/// file written by [`wire_file`]).
pub fn is_wired_file(agent: Agent, path: &Path, airlock_bin: &Path) -> Result<bool, WireError> {
    let host = supported(agent)?;
    let Some(current) = fsops::read(&fsops::resolve(path))? else {
        return Ok(false);
    };
    let doc = parse_doc(path, &current)?;
    let ours = ours(agent, airlock_bin)?;
    hosts::fully_wired(&host, &doc, &ours).map_err(|f| fail(agent, path, f))
}

/// Wires `agent`: adds Airlock's hook entries to its config, keeping everything else. A
/// second call changes nothing and writes no new backup.
pub fn wire(agent: Agent, home: &Path, opts: &WireOptions) -> Result<WireReport, WireError> {
    if agent == Agent::Cline {
        return scripts::wire(&scripts::CLINE, home, &ours_for_wire(agent, opts)?, opts);
    }
    if agent == Agent::OpenCode {
        let ours = ours_for_wire(agent, opts)?;
        let bin = bin_str(agent, &opts.airlock_bin)?;
        return plugin::wire(home, bin, has_hook_bin(&opts.airlock_bin), &ours, opts);
    }
    wire_file(agent, config_path(agent, home), opts)
}

/// [`wire`] into an explicit file of the host's format: a system-level (managed, enterprise)
/// settings file such as Claude Code's `/etc/claude-code/managed-settings.json`, which the
/// user cannot edit.
pub fn wire_file(agent: Agent, path: PathBuf, opts: &WireOptions) -> Result<WireReport, WireError> {
    let host = supported(agent)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| WireError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    let real = fsops::resolve(&path);
    let current = fsops::read(&real)?;
    let doc = current
        .as_deref()
        .map(|text| parse_doc(&path, text))
        .transpose()?;
    let ours = ours_for_wire(agent, opts)?;
    let (wired, changed) =
        hosts::wire_doc(&host, doc, &ours, opts.timeout_secs).map_err(|f| fail(agent, &path, f))?;
    if !changed {
        return Ok(WireReport {
            path,
            changed: false,
            backup: None,
        });
    }
    let backup = match &current {
        Some(bytes) => Some(fsops::backup(&real, bytes, &opts.stamp)?),
        None => None,
    };
    fsops::write_atomic(&real, json::render(&wired).as_bytes())?;
    Ok(WireReport {
        path,
        changed: true,
        backup,
    })
}

/// Unwires `agent`: removes Airlock's entries. When the remainder is the same JSON as a
/// backup `wire` made (newest first; backups of already-wired files are skipped), that
/// backup's bytes are restored exactly; otherwise only Airlock's entries are taken out. A
/// file that held nothing else and has no such backup (it did not exist before `wire`) is
/// removed. Backups are kept. [`WireError::NotWired`] if there is nothing of Airlock's in
/// the file.
pub fn unwire(agent: Agent, home: &Path, opts: &WireOptions) -> Result<WireReport, WireError> {
    if agent == Agent::Cline {
        return scripts::unwire(&scripts::CLINE, home, &ours(agent, &opts.airlock_bin)?);
    }
    if agent == Agent::OpenCode {
        return plugin::unwire(home, &ours(agent, &opts.airlock_bin)?);
    }
    unwire_file(agent, config_path(agent, home), opts)
}

/// The hook file Airlock writes for a host whose hooks are files (Cline: one executable per
/// event, this same text in each; OpenCode: the plugin `airlock.js`), running `airlock_bin`. `None` for hosts configured by a
/// document (see [`wire_text`]).
pub fn hook_script(agent: Agent, airlock_bin: &Path) -> Result<Option<String>, WireError> {
    match agent {
        Agent::Cline => Ok(Some(scripts::script(
            &scripts::CLINE,
            &ours(agent, airlock_bin)?,
        ))),
        _ => Ok(None),
    }
}

/// [`unwire`] from an explicit file (see [`wire_file`]).
pub fn unwire_file(
    agent: Agent,
    path: PathBuf,
    opts: &WireOptions,
) -> Result<WireReport, WireError> {
    let host = supported(agent)?;
    let real = fsops::resolve(&path);
    let Some(current) = fsops::read(&real)? else {
        return Err(WireError::NotWired { path });
    };
    let mut doc = parse_doc(&path, &current)?;
    let ours = ours(agent, &opts.airlock_bin)?;
    let removed = hosts::strip_doc(&host, &mut doc, &ours).map_err(|f| fail(agent, &path, f))?;
    if !removed {
        return Err(WireError::NotWired { path });
    }

    // Backups taken of files that were already wired (a re-wire with new options) cannot be
    // restored; any other backup whose JSON equals the remainder can, newest first.
    let mut clean_backup = false;
    for backup in fsops::backups_newest_first(&real)? {
        let text = match fsops::read(&backup) {
            Ok(Some(text)) => text,
            // Gone meanwhile, or not text we could have written: not a candidate.
            Ok(None) | Err(WireError::Parse { .. }) => continue,
            Err(e) => return Err(e),
        };
        let Some(before) = parse_lenient(&text) else {
            continue;
        };
        if hosts::strip_doc(&host, &mut before.clone(), &ours).unwrap_or(true) {
            continue;
        }
        clean_backup = true;
        if hosts::normalized(&host, &before).same(&hosts::normalized(&host, &doc)) {
            fsops::write_atomic(&real, text.as_bytes())?;
            return Ok(WireReport {
                path,
                changed: true,
                backup: Some(backup),
            });
        }
    }
    if !clean_backup && hosts::is_skeleton(&host, &doc) {
        // Nothing else in it and no earlier version: the file did not exist before `wire`.
        fsops::remove(&real)?;
        return Ok(WireReport {
            path,
            changed: true,
            backup: None,
        });
    }
    fsops::write_atomic(&real, json::render(&doc).as_bytes())?;
    Ok(WireReport {
        path,
        changed: true,
        backup: None,
    })
}

/// Pure form of [`wire`]: the new file text for `original` (`None` = no file). An
/// already-wired `original` is returned unchanged, byte for byte.
pub fn wire_text(
    agent: Agent,
    original: Option<&str>,
    opts: &WireOptions,
) -> Result<String, WireError> {
    let host = supported(agent)?;
    let path = display_path(agent);
    let doc = original.map(|text| parse_doc(&path, text)).transpose()?;
    let ours = ours_for_wire(agent, opts)?;
    let (wired, changed) =
        hosts::wire_doc(&host, doc, &ours, opts.timeout_secs).map_err(|f| fail(agent, &path, f))?;
    match original {
        Some(text) if !changed => Ok(text.to_owned()),
        _ => Ok(json::render(&wired)),
    }
}

/// Pure form of [`unwire`] without backups: `current` with Airlock's entries taken out, or
/// `None` when nothing else is left (the file should be removed). Text without Airlock
/// entries is returned unchanged.
pub fn unwire_text(
    agent: Agent,
    current: &str,
    airlock_bin: &Path,
) -> Result<Option<String>, WireError> {
    let host = supported(agent)?;
    let path = display_path(agent);
    let mut doc = parse_doc(&path, current)?;
    let ours = ours(agent, airlock_bin)?;
    let removed = hosts::strip_doc(&host, &mut doc, &ours).map_err(|f| fail(agent, &path, f))?;
    if !removed {
        return Ok(Some(current.to_owned()));
    }
    if hosts::is_skeleton(&host, &doc) {
        return Ok(None);
    }
    Ok(Some(json::render(&doc)))
}

fn supported(agent: Agent) -> Result<Host, WireError> {
    hosts::host(agent).ok_or_else(|| WireError::Unsupported {
        agent: agent.as_str(),
        why: match agent {
            Agent::Cline => "Cline's hooks are executable files, one per event, in a \
                directory (`wire`/`unwire`/`hook_script` handle them), not a settings document"
                .to_owned(),
            Agent::OpenCode => "OpenCode's hook API is a plugin file (`wire`/`unwire`/\
                `hook_script` handle it), not a settings document"
                .to_owned(),
            _ => hosts::VSCODE_WHY.to_owned(),
        },
    })
}

/// `~/...` form of the config path, for errors from the pure layer.
fn display_path(agent: Agent) -> PathBuf {
    config_path(agent, Path::new("~"))
}

fn bin_str(agent: Agent, bin: &Path) -> Result<&str, WireError> {
    bin.to_str().ok_or_else(|| WireError::Unsupported {
        agent: agent.as_str(),
        why: format!(
            "the airlock binary path {} is not valid UTF-8",
            bin.display()
        ),
    })
}

fn ours(agent: Agent, bin: &Path) -> Result<Ours, WireError> {
    Ok(Ours::new(
        bin_str(agent, bin)?,
        agent.as_str(),
        has_hook_bin(bin),
    ))
}

/// Whether the small `airlock-hook` binary is installed next to `airlock` (then the wiring
/// runs it: a hook call costs little more than a process start).
pub fn has_hook_bin(airlock_bin: &Path) -> bool {
    airlock_bin
        .parent()
        .map(|dir| dir.join(hosts::HOOK_BIN))
        .is_some_and(|p| p.is_file())
}

/// Like [`ours`], and the path must be absolute: a relative one would be resolved against
/// whatever directory the agent runs in.
fn ours_for_wire(agent: Agent, opts: &WireOptions) -> Result<Ours, WireError> {
    if !opts.airlock_bin.is_absolute() {
        return Err(WireError::Unsupported {
            agent: agent.as_str(),
            why: format!(
                "the airlock binary path {} is not absolute",
                opts.airlock_bin.display()
            ),
        });
    }
    ours(agent, &opts.airlock_bin)
}

/// Parses file text. Empty (or whitespace-only) text counts as an empty object; a leading
/// UTF-8 byte-order mark is ignored.
fn parse_lenient(text: &str) -> Option<Json> {
    parse_text(text).ok()
}

fn parse_text(text: &str) -> Result<Json, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    json::parse(text)
}

fn parse_doc(path: &Path, text: &str) -> Result<Json, WireError> {
    parse_text(text).map_err(|message| WireError::Parse {
        path: path.to_path_buf(),
        message,
    })
}

fn fail(agent: Agent, path: &Path, f: Fail) -> WireError {
    match f {
        Fail::Shape(message) => WireError::Parse {
            path: path.to_path_buf(),
            message,
        },
        Fail::Version(why) => WireError::Unsupported {
            agent: agent.as_str(),
            why: format!("{}: {why}", path.display()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.as_str()), Some(a));
            assert_eq!(a.as_str().parse::<Agent>().unwrap(), a);
            assert_eq!(a.to_string(), a.as_str());
        }
        assert_eq!(Agent::parse("Claude"), Some(Agent::ClaudeCode));
        assert!(matches!(
            "emacs".parse::<Agent>(),
            Err(WireError::UnknownAgent(s)) if s == "emacs"
        ));
    }

    #[test]
    fn config_paths() {
        let home = Path::new("/home/u");
        assert_eq!(
            config_path(Agent::ClaudeCode, home),
            Path::new("/home/u/.claude/settings.json")
        );
        assert_eq!(
            config_path(Agent::Cursor, home),
            Path::new("/home/u/.cursor/hooks.json")
        );
        assert_eq!(
            config_path(Agent::Codex, home),
            Path::new("/home/u/.codex/hooks.json")
        );
        assert_eq!(
            config_path(Agent::Gemini, home),
            Path::new("/home/u/.gemini/settings.json")
        );
        assert_eq!(
            config_path(Agent::Copilot, home),
            Path::new("/home/u/.copilot/hooks/airlock.json")
        );
        assert_eq!(
            config_path(Agent::VsCode, home),
            Path::new("/home/u/.copilot/hooks")
        );
        assert_eq!(
            config_path(Agent::Windsurf, home),
            Path::new("/home/u/.codeium/windsurf/hooks.json")
        );
        assert_eq!(
            config_path(Agent::Cline, home),
            Path::new("/home/u/Documents/Cline/Hooks")
        );
        assert_eq!(
            config_path(Agent::OpenCode, home),
            Path::new("/home/u/.config/opencode/plugins/airlock.js")
        );
        assert_eq!(
            config_path(Agent::Kiro, home),
            Path::new("/home/u/.kiro/agents/kiro_default.json")
        );
    }

    #[test]
    fn empty_and_bom_text_parse() {
        assert_eq!(parse_text("  \n").unwrap(), Json::Object(Vec::new()));
        assert!(parse_text("\u{feff}{\"a\":1}").is_ok());
    }
}
