//! `airlock scan`: a read-only report of this machine's agent setup — which agents are wired
//! to Airlock, settings that let an agent act without asking, MCP servers not routed through
//! Airlock's proxy, secrets written in plain text into MCP configs, and (from the store) MCP
//! tools that are unpinned or whose definitions carry poisoning signals.
//!
//! Every finding is one of the [`CHECKS`]: a stable code, a [`Severity`] and a one-line plain
//! explanation (a constant; findings name *where* — a file, a setting, a server — and never
//! quote a value from the configs). Whether each agent is wired is an input: the caller asks
//! `airlock-wire` (this crate does not depend on it), so the tray app and the CLI agree.
//!
//! **`high`** means "an agent can do damage here without Airlock or you being asked", and is
//! what makes `airlock scan` exit 1.

use std::path::Path;

use airlock_store::Store;
use serde::Serialize;
use serde_json::Value;

use crate::CoreError;
use crate::agent_configs::{
    self, CLAUDE_CODE, CODEX, COPILOT, CURSOR, Document, GEMINI, McpServer, Transport, VSCODE,
};
use crate::pins;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Low,
    Medium,
    High,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
        }
    }
}

/// One kind of finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    pub code: &'static str,
    pub severity: Severity,
    pub explanation: &'static str,
}

const fn check(code: &'static str, severity: Severity, explanation: &'static str) -> Check {
    Check {
        code,
        severity,
        explanation,
    }
}

use Severity::{High, Info, Low, Medium};

pub const AGENT_NOT_WIRED: Check = check(
    "agent_not_wired",
    High,
    "The agent is installed but Airlock's hooks are not in its config, so its tool calls are not judged: run `airlock wire AGENT`.",
);
pub const AGENT_WIRING_UNREADABLE: Check = check(
    "agent_wiring_unreadable",
    Medium,
    "The agent's hook config could not be read, so whether Airlock is wired is unknown.",
);
pub const CLAUDE_BYPASS_PERMISSIONS: Check = check(
    "claude_bypass_permissions",
    High,
    "Claude Code runs every tool without asking you (permissions.defaultMode is bypassPermissions).",
);
pub const CLAUDE_ALLOW_ALL_BASH: Check = check(
    "claude_allow_all_bash",
    High,
    "Claude Code may run any shell command without asking you (a tool-wide Bash entry in permissions.allow).",
);
pub const CLAUDE_HOOKS_DISABLED: Check = check(
    "claude_hooks_disabled",
    High,
    "Claude Code's disableAllHooks is set: no hook runs, Airlock's included.",
);
pub const CLAUDE_PROJECT_MCP_AUTO: Check = check(
    "claude_project_mcp_auto",
    Medium,
    "Claude Code starts every MCP server a project's .mcp.json names without asking (enableAllProjectMcpServers).",
);
pub const CODEX_NO_APPROVAL_NO_SANDBOX: Check = check(
    "codex_no_approval_no_sandbox",
    High,
    "Codex never asks before acting and runs commands without a sandbox (approval_policy = never with sandbox_mode = danger-full-access).",
);
pub const CODEX_NEVER_ASKS: Check = check(
    "codex_never_asks",
    Medium,
    "Codex never asks before running commands (approval_policy = never); only its sandbox limits them.",
);
pub const CODEX_NO_SANDBOX: Check = check(
    "codex_no_sandbox",
    Medium,
    "Codex runs commands without a sandbox (sandbox_mode = danger-full-access).",
);
pub const GEMINI_YOLO: Check = check(
    "gemini_yolo",
    High,
    "Gemini CLI is set to approve every tool call on its own (defaultApprovalMode = yolo).",
);
pub const GEMINI_AUTO_ACCEPT: Check = check(
    "gemini_auto_accept",
    Medium,
    "Gemini CLI accepts tool calls it considers safe without asking (autoAccept).",
);
pub const GEMINI_AUTO_EDIT: Check = check(
    "gemini_auto_edit",
    Low,
    "Gemini CLI approves file edits without asking (defaultApprovalMode = auto_edit).",
);
pub const GEMINI_TRUSTED_MCP: Check = check(
    "gemini_trusted_mcp",
    Medium,
    "Gemini CLI trusts this MCP server: its tool calls run without confirmation (trust = true).",
);
pub const CURSOR_ALLOW_ALL_SHELL: Check = check(
    "cursor_allow_all_shell",
    High,
    "Cursor's agent may run any shell command without asking (a Shell(*) allow entry or a `*` terminal allowlist).",
);
pub const CURSOR_UNRESTRICTED: Check = check(
    "cursor_unrestricted",
    High,
    "Cursor's CLI agent approves every tool call on its own (approvalMode = unrestricted).",
);
pub const CURSOR_ALLOW_ALL_MCP: Check = check(
    "cursor_allow_all_mcp",
    Medium,
    "Cursor runs every MCP tool without asking (a `*` MCP allowlist).",
);
pub const VSCODE_AUTO_APPROVE: Check = check(
    "vscode_auto_approve",
    High,
    "VS Code's chat agents approve every tool call on their own (chat.tools.autoApprove).",
);
pub const COPILOT_TRUSTS_HOME: Check = check(
    "copilot_trusts_home",
    Medium,
    "Copilot CLI trusts your whole home folder (or /) as a place to read, change and run files without asking.",
);
pub const MCP_UNPROXIED: Check = check(
    "mcp_unproxied",
    Medium,
    "The agent reaches this MCP server directly, not through Airlock's proxy: its tools are not pinned and its results not screened (`airlock init` writes a gateway config for it).",
);
pub const MCP_UNPROXIED_LOCAL: Check = check(
    "mcp_unproxied_local",
    Low,
    "The agent reaches this MCP server on a local URL; unless that is Airlock's own proxy (`airlock serve --listen`), its calls are not judged by the proxy.",
);
pub const MCP_SECRET_IN_CONFIG: Check = check(
    "mcp_secret_in_config",
    Medium,
    "A secret is written in plain text in this MCP server's config, where any program running as you (an agent included) can read it; reference an environment variable instead.",
);
pub const MCP_PIN_POISONED: Check = check(
    "mcp_pin_poisoned",
    High,
    "An approved (callable) MCP tool definition carries instructions aimed at the agent (tool poisoning).",
);
pub const MCP_TOOL_CHANGED: Check = check(
    "mcp_tool_changed",
    Medium,
    "An MCP tool's definition changed since you approved it (a possible rug pull); Airlock blocks it until you approve it (`airlock pins approve`).",
);
pub const MCP_TOOL_POISONED: Check = check(
    "mcp_tool_poisoned",
    Medium,
    "An MCP server listed a tool whose description carries instructions aimed at the agent; Airlock hides and blocks it until you approve it.",
);
pub const MCP_TOOL_UNPINNED: Check = check(
    "mcp_tool_unpinned",
    Low,
    "An MCP tool was seen but never pinned (`airlock pins pin --all`).",
);
pub const CONFIG_UNREADABLE: Check = check(
    "config_unreadable",
    Low,
    "An agent config file could not be read or parsed, so it was not checked.",
);
pub const STORE_UNAVAILABLE: Check = check(
    "store_unavailable",
    Info,
    "Airlock's store could not be read here, so MCP tool pins were not checked.",
);

/// Every check, for listings and documentation.
pub const CHECKS: &[Check] = &[
    AGENT_NOT_WIRED,
    AGENT_WIRING_UNREADABLE,
    CLAUDE_BYPASS_PERMISSIONS,
    CLAUDE_ALLOW_ALL_BASH,
    CLAUDE_HOOKS_DISABLED,
    CLAUDE_PROJECT_MCP_AUTO,
    CODEX_NO_APPROVAL_NO_SANDBOX,
    CODEX_NEVER_ASKS,
    CODEX_NO_SANDBOX,
    GEMINI_YOLO,
    GEMINI_AUTO_ACCEPT,
    GEMINI_AUTO_EDIT,
    GEMINI_TRUSTED_MCP,
    CURSOR_ALLOW_ALL_SHELL,
    CURSOR_UNRESTRICTED,
    CURSOR_ALLOW_ALL_MCP,
    VSCODE_AUTO_APPROVE,
    COPILOT_TRUSTS_HOME,
    MCP_UNPROXIED,
    MCP_UNPROXIED_LOCAL,
    MCP_SECRET_IN_CONFIG,
    MCP_PIN_POISONED,
    MCP_TOOL_CHANGED,
    MCP_TOOL_POISONED,
    MCP_TOOL_UNPINNED,
    CONFIG_UNREADABLE,
    STORE_UNAVAILABLE,
];

/// One thing found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub agent: Option<&'static str>,
    /// Where: a file and setting, a server, a `server/tool` — never a value.
    pub subject: String,
    pub explanation: &'static str,
}

/// Whether an agent's hook config runs Airlock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Wired {
    Yes,
    No,
    /// The hook config could not be read (the reason, without its content).
    Unknown(String),
}

/// One agent, as the caller found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentState {
    pub agent: &'static str,
    pub installed: bool,
    pub wired: Wired,
}

/// One MCP server, without its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerSummary {
    pub agent: &'static str,
    pub name: String,
    pub scope: String,
    pub source: String,
    /// `stdio`, `http`, `sse` or `unusable`.
    pub transport: &'static str,
    pub through_airlock: bool,
    pub disabled: bool,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub agents: Vec<AgentState>,
    pub mcp_servers: Vec<ServerSummary>,
    /// Most severe first.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Whether anything high-risk was found (`airlock scan` then exits 1).
    pub fn has_high(&self) -> bool {
        self.findings.iter().any(|f| f.severity == High)
    }

    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
}

struct Out(Vec<Finding>);

impl Out {
    fn add(&mut self, c: Check, agent: Option<&'static str>, subject: impl Into<String>) {
        self.0.push(Finding {
            code: c.code,
            severity: c.severity,
            agent,
            subject: subject.into(),
            explanation: c.explanation,
        });
    }
}

/// A setting by its dotted name: the flat key VS Code writes (`"chat.tools.autoApprove"`)
/// or the nested objects other hosts use.
fn setting<'a>(v: &'a Value, dotted: &str) -> Option<&'a Value> {
    if let Some(x) = v.get(dotted) {
        return Some(x);
    }
    let mut cur = v;
    for part in dotted.split('.') {
        cur = cur.get(part)?;
    }
    Some(cur)
}

fn is_true(v: &Value, dotted: &str) -> bool {
    setting(v, dotted).and_then(Value::as_bool) == Some(true)
}

fn str_at<'a>(v: &'a Value, dotted: &str) -> Option<&'a str> {
    setting(v, dotted).and_then(Value::as_str)
}

fn strings_at<'a>(v: &'a Value, dotted: &str) -> Vec<&'a str> {
    setting(v, dotted)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `Tool`, `Tool(*)`, `Tool(:*)`, `Tool(**)`: a rule that covers every use of `tool`.
fn tool_wide(entry: &str, tool: &str) -> bool {
    let e = entry.trim();
    let Some(rest) = e.strip_prefix(tool) else {
        return false;
    };
    let rest = rest.trim();
    if rest.is_empty() {
        return true;
    }
    rest.strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .is_some_and(|inner| matches!(inner.trim(), "" | "*" | "**" | ":*" | "*:*"))
}

fn shown(path: &Path, home: &Path) -> String {
    match path.strip_prefix(home) {
        Ok(rel) => format!("~/{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

fn check_document(d: &Document, home: &Path, out: &mut Out) {
    let at = |setting: &str| format!("{} ({setting})", shown(&d.path, home));
    let v = &d.value;
    let agent = Some(d.agent);
    match d.agent {
        CLAUDE_CODE => {
            if str_at(v, "permissions.defaultMode") == Some("bypassPermissions") {
                out.add(
                    CLAUDE_BYPASS_PERMISSIONS,
                    agent,
                    at("permissions.defaultMode"),
                );
            }
            if strings_at(v, "permissions.allow")
                .iter()
                .any(|e| tool_wide(e, "Bash"))
            {
                out.add(CLAUDE_ALLOW_ALL_BASH, agent, at("permissions.allow"));
            }
            if is_true(v, "disableAllHooks") {
                out.add(CLAUDE_HOOKS_DISABLED, agent, at("disableAllHooks"));
            }
            if is_true(v, "enableAllProjectMcpServers") {
                out.add(
                    CLAUDE_PROJECT_MCP_AUTO,
                    agent,
                    at("enableAllProjectMcpServers"),
                );
            }
        }
        CODEX => {
            let top_approval = str_at(v, "approval_policy");
            let top_sandbox = str_at(v, "sandbox_mode");
            let mut judge = |approval: Option<&str>, sandbox: Option<&str>, where_: String| {
                let never = approval == Some("never");
                let open = sandbox == Some("danger-full-access");
                match (never, open) {
                    (true, true) => out.add(CODEX_NO_APPROVAL_NO_SANDBOX, agent, where_),
                    (true, false) => out.add(CODEX_NEVER_ASKS, agent, where_),
                    (false, true) => out.add(CODEX_NO_SANDBOX, agent, where_),
                    (false, false) => {}
                }
            };
            judge(
                top_approval,
                top_sandbox,
                at("approval_policy, sandbox_mode"),
            );
            if let Some(profiles) = v.get("profiles").and_then(Value::as_object) {
                for (name, p) in profiles {
                    let approval = str_at(p, "approval_policy");
                    let sandbox = str_at(p, "sandbox_mode");
                    // Only profiles that set something themselves (the rest inherit the
                    // top level, reported above).
                    if approval.is_none() && sandbox.is_none() {
                        continue;
                    }
                    judge(
                        approval.or(top_approval),
                        sandbox.or(top_sandbox),
                        at(&format!("profiles.{name}")),
                    );
                }
            }
        }
        GEMINI => {
            match str_at(v, "general.defaultApprovalMode")
                .or_else(|| str_at(v, "defaultApprovalMode"))
            {
                Some("yolo") => out.add(GEMINI_YOLO, agent, at("general.defaultApprovalMode")),
                Some("auto_edit") => {
                    out.add(GEMINI_AUTO_EDIT, agent, at("general.defaultApprovalMode"))
                }
                _ => {}
            }
            if is_true(v, "tools.autoAccept") || is_true(v, "autoAccept") {
                out.add(GEMINI_AUTO_ACCEPT, agent, at("tools.autoAccept"));
            }
        }
        CURSOR => {
            if strings_at(v, "permissions.allow")
                .iter()
                .any(|e| tool_wide(e, "Shell"))
                || strings_at(v, "terminalAllowlist")
                    .iter()
                    .any(|e| matches!(e.trim(), "*" | "**"))
            {
                out.add(CURSOR_ALLOW_ALL_SHELL, agent, at("allow list"));
            }
            if str_at(v, "approvalMode") == Some("unrestricted") {
                out.add(CURSOR_UNRESTRICTED, agent, at("approvalMode"));
            }
            if strings_at(v, "mcpAllowlist")
                .iter()
                .chain(strings_at(v, "permissions.allow").iter())
                .any(|e| matches!(e.trim(), "*" | "*:*" | "Mcp(*)" | "Mcp(*, *)" | "Mcp(*:*)"))
            {
                out.add(CURSOR_ALLOW_ALL_MCP, agent, at("MCP allow list"));
            }
        }
        VSCODE => {
            for key in ["chat.tools.autoApprove", "chat.tools.global.autoApprove"] {
                if is_true(v, key) {
                    out.add(VSCODE_AUTO_APPROVE, agent, at(key));
                }
            }
        }
        COPILOT => {
            let home_s = home.to_string_lossy();
            let home_s = home_s.trim_end_matches('/');
            let broad = |f: &str| {
                let f = f.trim();
                let f = if f.len() > 1 {
                    f.trim_end_matches('/')
                } else {
                    f
                };
                f == "/" || f == "~" || f == home_s || f == "$HOME"
            };
            for key in ["trusted_folders", "trustedFolders"] {
                if strings_at(v, key).iter().any(|f| broad(f)) {
                    out.add(COPILOT_TRUSTS_HOME, agent, at(key));
                }
            }
        }
        _ => {}
    }
}

fn is_loopback(url: &str) -> bool {
    url::Url::parse(url).ok().is_some_and(|u| match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    })
}

fn check_server(
    s: &McpServer,
    scanner: Option<&airlock_engine::SecretScanner>,
    home: &Path,
    out: &mut Out,
) -> ServerSummary {
    let subject = format!("{} ({}, {})", s.name, shown(&s.source, home), s.scope);
    let agent = Some(s.agent);
    let routed = s.routed_through_airlock();
    if !s.disabled && !routed {
        match &s.transport {
            Transport::Stdio { .. } => out.add(MCP_UNPROXIED, agent, subject.clone()),
            Transport::Http { url, .. } if is_loopback(url) => {
                out.add(MCP_UNPROXIED_LOCAL, agent, subject.clone())
            }
            Transport::Http { .. } => out.add(MCP_UNPROXIED, agent, subject.clone()),
            Transport::Unusable(_) => {}
        }
    }
    let secrets = agent_configs::literal_secrets(scanner, s);
    if !secrets.is_empty() {
        out.add(
            MCP_SECRET_IN_CONFIG,
            agent,
            format!("{subject}: {}", secrets.join(", ")),
        );
    }
    if s.trusted {
        out.add(GEMINI_TRUSTED_MCP, agent, subject);
    }
    ServerSummary {
        agent: s.agent,
        name: s.name.clone(),
        scope: s.scope.clone(),
        source: shown(&s.source, home),
        transport: match &s.transport {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { sse: true, .. } => "sse",
            Transport::Http { .. } => "http",
            Transport::Unusable(_) => "unusable",
        },
        through_airlock: routed,
        disabled: s.disabled,
    }
}

fn check_pins(store: &Store, out: &mut Out) -> Result<(), CoreError> {
    for r in pins::list(store)? {
        let subject = format!("{}/{}", r.server, r.tool);
        match r.status.as_str() {
            "approved" if !r.poison.is_empty() => out.add(MCP_PIN_POISONED, None, subject),
            "changed" => out.add(MCP_TOOL_CHANGED, None, subject),
            "poisoned" if r.poison.is_empty() => out.add(MCP_TOOL_UNPINNED, None, subject),
            "poisoned" => out.add(MCP_TOOL_POISONED, None, subject),
            _ => {}
        }
    }
    Ok(())
}

/// Builds the report. `agents` says which agents are installed and wired (from
/// `airlock-wire`); `store` is Airlock's store when it can be read (else the pins are not
/// checked, and the report says so); `project` is the directory the agents would run in.
pub fn scan(
    home: &Path,
    project: Option<&Path>,
    agents: Vec<AgentState>,
    store: Option<&Store>,
) -> Result<Report, CoreError> {
    let mut out = Out(Vec::new());
    for a in &agents {
        if !a.installed {
            continue;
        }
        match &a.wired {
            Wired::Yes => {}
            Wired::No => out.add(AGENT_NOT_WIRED, Some(a.agent), a.agent),
            Wired::Unknown(why) => out.add(
                AGENT_WIRING_UNREADABLE,
                Some(a.agent),
                format!("{}: {why}", a.agent),
            ),
        }
    }
    let (docs, problems) = agent_configs::settings_documents(home, project);
    for d in &docs {
        check_document(d, home, &mut out);
    }
    let found = agent_configs::discover(home, project);
    let scanner = airlock_engine::SecretScanner::new().ok();
    let mut servers = Vec::new();
    for s in &found.servers {
        servers.push(check_server(s, scanner.as_ref(), home, &mut out));
    }
    let mut seen_problems = std::collections::BTreeSet::new();
    for p in problems.iter().chain(found.problems.iter()) {
        let subject = format!("{}: {}", shown(&p.path, home), p.message);
        if seen_problems.insert(subject.clone()) {
            out.add(CONFIG_UNREADABLE, Some(p.agent), subject);
        }
    }
    match store {
        Some(s) => check_pins(s, &mut out)?,
        None => out.add(STORE_UNAVAILABLE, None, "MCP tool pins"),
    }
    let mut findings = out.0;
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(b.code))
            .then(a.subject.cmp(&b.subject))
    });
    Ok(Report {
        agents,
        mcp_servers: servers,
        findings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn codes(r: &Report) -> Vec<&'static str> {
        r.findings.iter().map(|f| f.code).collect()
    }

    #[test]
    fn every_check_has_a_unique_code_and_a_one_line_explanation() {
        let mut seen = std::collections::BTreeSet::new();
        for c in CHECKS {
            assert!(seen.insert(c.code), "duplicate {}", c.code);
            assert!(!c.explanation.contains('\n'), "{}", c.code);
            assert!(
                c.explanation.ends_with('.') || c.explanation.ends_with(')'),
                "{}",
                c.code
            );
        }
    }

    #[test]
    fn tool_wide_rules() {
        for (e, want) in [
            ("Bash", true),
            ("Bash(*)", true),
            ("Bash(:*)", true),
            ("Bash( ** )", true),
            ("Bash(npm test)", false),
            ("Bash(git:*)", false),
            ("BashOutput", false),
            ("Read", false),
        ] {
            assert_eq!(tool_wide(e, "Bash"), want, "{e}");
        }
    }

    #[test]
    fn risky_settings_each_give_their_code_and_clean_ones_none() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let proj = h.join("p");
        // (file, risky text, clean text, codes when risky)
        let cases: Vec<(std::path::PathBuf, String, &str, Vec<&str>)> = vec![
            (
                h.join(".claude/settings.json"),
                r#"{"permissions": {"defaultMode": "bypassPermissions", "allow": ["Read", "Bash(*)"]}, "disableAllHooks": true, "enableAllProjectMcpServers": true}"#.into(),
                r#"{"permissions": {"defaultMode": "default", "allow": ["Bash(npm test)"]}}"#,
                vec!["claude_allow_all_bash", "claude_bypass_permissions", "claude_hooks_disabled", "claude_project_mcp_auto"],
            ),
            (
                proj.join(".claude/settings.local.json"),
                r#"{"permissions": {"allow": ["Bash"]}}"#.into(),
                r#"{}"#,
                vec!["claude_allow_all_bash"],
            ),
            (
                h.join(".codex/config.toml"),
                "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n[profiles.fast]\napproval_policy = \"never\"\nsandbox_mode = \"workspace-write\"\n".into(),
                "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n",
                vec!["codex_no_approval_no_sandbox", "codex_never_asks"],
            ),
            (
                h.join(".gemini/settings.json"),
                r#"{"general": {"defaultApprovalMode": "yolo"}, "tools": {"autoAccept": true}}"#.into(),
                r#"{"general": {"defaultApprovalMode": "default"}}"#,
                vec!["gemini_yolo", "gemini_auto_accept"],
            ),
            (
                h.join(".cursor/cli-config.json"),
                r#"{"version": 1, "permissions": {"allow": ["Shell(**)", "Mcp(*, *)"], "deny": []}, "approvalMode": "unrestricted"}"#.into(),
                r#"{"version": 1, "permissions": {"allow": ["Shell(ls)"], "deny": []}}"#,
                vec!["cursor_allow_all_shell", "cursor_unrestricted", "cursor_allow_all_mcp"],
            ),
            (
                h.join(".config/Code/User/settings.json"),
                "{\n // mine\n \"chat.tools.autoApprove\": true,\n}".into(),
                "{\"chat.tools.autoApprove\": false}",
                vec!["vscode_auto_approve"],
            ),
            (
                h.join(".copilot/config.json"),
                format!(r#"{{"trusted_folders": ["{}/"]}}"#, h.display()),
                r#"{"trusted_folders": ["/home/someone/project"]}"#,
                vec!["copilot_trusts_home"],
            ),
        ];
        for (path, risky, clean, want) in &cases {
            write(path, risky);
            let r = scan(h, Some(&proj), vec![], None).unwrap();
            let mut got: Vec<&str> = codes(&r)
                .into_iter()
                .filter(|c| *c != "store_unavailable")
                .collect();
            got.sort_unstable();
            let mut want = want.clone();
            want.sort_unstable();
            assert_eq!(got, want, "{}", path.display());
            write(path, clean);
            let r = scan(h, Some(&proj), vec![], None).unwrap();
            assert_eq!(codes(&r), ["store_unavailable"], "{}", path.display());
        }
    }

    #[test]
    fn servers_agents_and_pins() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        write(
            &h.join(".claude.json"),
            r#"{"mcpServers": {
                "gh": {"command": "npx", "args": ["gh-mcp"], "env": {"GITHUB_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}},
                "fs": {"command": "airlock", "args": ["serve", "--", "npx", "fs-mcp"]},
                "local": {"type": "http", "url": "http://127.0.0.1:8080/mcp"},
                "off": {"command": "x", "disabled": true}}}"#,
        );
        write(
            &h.join(".gemini/settings.json"),
            r#"{"mcpServers": {"g": {"command": "airlock", "args": ["serve", "--", "g"], "trust": true}}}"#,
        );
        write(&h.join(".cursor/mcp.json"), "{ nope");
        let store = Store::open_in_memory().unwrap();
        let def = |name: &str, desc: &str| {
            pins::ToolDef::from_listing(&serde_json::json!({"name": name, "description": desc}))
                .unwrap()
        };
        pins::observe(&store, "s", &def("ok", "Reads."), 1).unwrap();
        pins::observe(&store, "s", &def("evil", "<IMPORTANT>x</IMPORTANT>"), 1).unwrap();
        pins::observe(&store, "s", &def("moved", "A."), 1).unwrap();
        pins::observe(&store, "s", &def("moved", "B."), 2).unwrap();
        let agents = vec![
            AgentState {
                agent: CLAUDE_CODE,
                installed: true,
                wired: Wired::Yes,
            },
            AgentState {
                agent: CODEX,
                installed: true,
                wired: Wired::No,
            },
            AgentState {
                agent: CURSOR,
                installed: true,
                wired: Wired::Unknown("not valid JSON".into()),
            },
            AgentState {
                agent: GEMINI,
                installed: false,
                wired: Wired::No,
            },
        ];
        let r = scan(h, None, agents, Some(&store)).unwrap();
        let got: Vec<(&str, &str)> = r
            .findings
            .iter()
            .map(|f| (f.code, f.subject.split(' ').next().unwrap_or("")))
            .collect();
        assert_eq!(
            got,
            [
                ("agent_not_wired", "codex"),
                ("agent_wiring_unreadable", "cursor:"),
                ("gemini_trusted_mcp", "g"),
                ("mcp_secret_in_config", "gh"),
                ("mcp_tool_changed", "s/moved"),
                ("mcp_tool_poisoned", "s/evil"),
                ("mcp_unproxied", "gh"),
                ("config_unreadable", "~/.cursor/mcp.json:"),
                ("mcp_unproxied_local", "local"),
            ]
        );
        assert!(r.has_high());
        let json = serde_json::to_string(&r).unwrap();
        assert!(!json.contains("ghp_0123"), "{json}");
        let fs = r.mcp_servers.iter().find(|s| s.name == "fs").unwrap();
        assert!(fs.through_airlock);
        // Approving a poisoned definition makes it callable: that is high.
        store
            .set_setting(
                &pins::pin_key("s", "evil"),
                &def("evil", "<IMPORTANT>x</IMPORTANT>").hash,
            )
            .unwrap();
        let r = scan(h, None, vec![], Some(&store)).unwrap();
        assert_eq!(r.findings[0].code, "mcp_pin_poisoned");
    }
}
