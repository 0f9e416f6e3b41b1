//! The system level's hook files: where `airlock system install` wires each host for every
//! user (root-owned, where the host documents a managed or enterprise file), and whether a
//! host is wired there.

use std::path::Path;

use crate::{Agent, WireError};

/// Claude Code's managed settings (Linux): hooks here cannot be removed by user settings.
pub const CLAUDE_MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// Each host's system-level (managed / enterprise) hook file on Linux, in the same format as
/// its user file, root-owned, where the host documents one. Codex's managed hooks live in
/// [`CODEX_REQUIREMENTS`] (TOML, written as one marked block); VS Code has no system hook
/// file (it runs the Claude Code and Copilot files).
pub const HOOK_FILES: &[(Agent, &str)] = &[
    // Managed settings: users cannot disable managed hooks (`disableAllHooks` in user
    // settings leaves them running).
    (Agent::ClaudeCode, CLAUDE_MANAGED_SETTINGS),
    // Enterprise hooks: highest priority of Cursor's hook sources.
    (Agent::Cursor, "/etc/cursor/hooks.json"),
    // Policy hooks: must be root-owned, not group/world-writable; `disableAllHooks` cannot
    // disable them.
    (Agent::Copilot, "/etc/github-copilot/policy.d/airlock.json"),
    // System settings: the top layer, but a user can disable a hook by name and relocate the
    // file with an environment variable, so on Gemini CLI this is tamper-evident at best.
    (Agent::Gemini, "/etc/gemini-cli/settings.json"),
    // Windsurf's system-level Cascade hooks (Linux/WSL): merged with the user's and the
    // workspace's, run first. Cline has no system-level hook directory.
    (Agent::Windsurf, "/etc/windsurf/hooks.json"),
];

/// Codex CLI's admin-enforced requirements, where managed hooks need no per-user trust.
pub const CODEX_REQUIREMENTS: &str = "/etc/codex/requirements.toml";

/// The file where the system install wires `agent` for every user, if the host has one.
pub fn hook_file(agent: Agent) -> Option<&'static str> {
    if agent == Agent::Codex {
        return Some(CODEX_REQUIREMENTS);
    }
    HOOK_FILES
        .iter()
        .find(|(a, _)| *a == agent)
        .map(|(_, f)| *f)
}

/// Whether the system install wires `agent` for every user at all (so a user-level entry
/// would only run Airlock a second time per call).
pub fn has_system_file(agent: Agent) -> bool {
    hook_file(agent).is_some()
}

/// Whether `agent` is wired in its system-level file with `airlock_bin` (or the
/// `airlock-hook` beside it). A host with no system file is never wired there.
pub fn is_wired(agent: Agent, airlock_bin: &Path) -> Result<bool, WireError> {
    match hook_file(agent) {
        Some(file) if agent == Agent::Codex => {
            crate::codex_requirements::is_wired(Path::new(file), airlock_bin)
        }
        Some(file) => crate::is_wired_file(agent, Path::new(file), airlock_bin),
        None => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_system_file_is_absolute_and_hosts_are_unique() {
        let mut seen = Vec::new();
        for (agent, file) in HOOK_FILES {
            assert!(Path::new(file).is_absolute(), "{file}");
            assert!(!seen.contains(agent), "{agent:?} twice");
            seen.push(*agent);
            assert!(has_system_file(*agent));
        }
        assert!(has_system_file(Agent::Codex));
        // No system-level hook directory: wired per user only.
        for a in [Agent::Cline, Agent::Kiro, Agent::OpenCode, Agent::VsCode] {
            assert!(!has_system_file(a), "{a:?}");
        }
    }
}
