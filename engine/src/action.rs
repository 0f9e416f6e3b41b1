//! The one normalised model of an agent tool call.
//!
//! Every entry point (host hooks, the MCP proxy, `airlock check`) converts its own wire format
//! into an [`Action`] at the edge; the engine never sees host JSON.

use serde::{Deserialize, Serialize};

/// Which agent host produced the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Host {
    ClaudeCode,
    Cursor,
    Codex,
    Gemini,
    Copilot,
    VsCode,
    Windsurf,
    Cline,
    /// OpenCode (sst/opencode), through Airlock's plugin file.
    #[serde(rename = "opencode")]
    OpenCode,
    /// Kiro CLI (agent-config hooks).
    Kiro,
    /// The wrapper shell (`airlock sh -c …`, `airlock-sh` as an agent's `SHELL`): agents with
    /// no hook API.
    Shell,
    McpProxy,
    Cli,
    Unknown,
}

impl Host {
    /// Stable name used in logs and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Host::ClaudeCode => "claude-code",
            Host::Cursor => "cursor",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Copilot => "copilot",
            Host::VsCode => "vscode",
            Host::Windsurf => "windsurf",
            Host::Cline => "cline",
            Host::OpenCode => "opencode",
            Host::Kiro => "kiro",
            Host::Shell => "shell",
            Host::McpProxy => "mcp-proxy",
            Host::Cli => "cli",
            Host::Unknown => "unknown",
        }
    }
}

/// Where the instruction behind this call came from, as far as the entry point can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// The user typed it, or nothing suggests otherwise.
    #[default]
    User,
    /// The call is known to be driven by untrusted content (a fetched page, a tool result).
    Untrusted,
}

/// Coarse kind of an action, derived from its [`Operation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Shell,
    FileRead,
    FileWrite,
    FileDelete,
    NetworkFetch,
    McpToolCall,
    PromptTurn,
    /// The entry point could not normalise the call; always judged as not-PASS.
    Unparseable,
}

impl ActionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Shell => "shell",
            ActionKind::FileRead => "file_read",
            ActionKind::FileWrite => "file_write",
            ActionKind::FileDelete => "file_delete",
            ActionKind::NetworkFetch => "network_fetch",
            ActionKind::McpToolCall => "mcp_tool_call",
            ActionKind::PromptTurn => "prompt_turn",
            ActionKind::Unparseable => "unparseable",
        }
    }
}

/// MCP tool annotations as declared by a server. All hints are untrusted: they may only
/// ever *raise* a verdict, never lower one another rule produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// What we know about an MCP tool's annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "annotations")]
pub enum AnnotationInfo {
    /// The entry point cannot see the tool definition (a host hook only sees the call).
    #[default]
    Unknown,
    /// The server's `tools/list` entry had no `annotations` field.
    Absent,
    /// The server declared these annotations.
    Declared(ToolAnnotations),
}

/// What the call does, with the arguments that matter for judging it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum Operation {
    /// A shell command line, exactly as the agent wrote it.
    Shell {
        command: String,
    },
    FileRead {
        path: String,
    },
    /// A write or edit; `content` is the new text the agent supplies (may be partial for edits).
    FileWrite {
        path: String,
        content: String,
    },
    FileDelete {
        path: String,
    },
    /// An HTTP(S) fetch or a web search (`url` then holds the query and `is_search` is set).
    Fetch {
        url: String,
        #[serde(default)]
        is_search: bool,
    },
    McpCall {
        server: String,
        tool: String,
        arguments: serde_json::Value,
        #[serde(default)]
        annotations: AnnotationInfo,
    },
    /// A user prompt turn.
    Prompt {
        text: String,
    },
    /// A host-internal tool with no side effects outside the agent (todo lists, plan mode).
    Internal {
        tool: String,
    },
    /// A tool the entry point does not know how to normalise.
    UnknownTool {
        tool: String,
    },
    /// The entry point could not read the call at all; `reason` is a stable code.
    Unparseable {
        reason: String,
    },
}

impl Operation {
    pub fn kind(&self) -> ActionKind {
        match self {
            Operation::Shell { .. } => ActionKind::Shell,
            Operation::FileRead { .. } => ActionKind::FileRead,
            Operation::FileWrite { .. } => ActionKind::FileWrite,
            Operation::FileDelete { .. } => ActionKind::FileDelete,
            Operation::Fetch { .. } => ActionKind::NetworkFetch,
            Operation::McpCall { .. } | Operation::UnknownTool { .. } => ActionKind::McpToolCall,
            Operation::Prompt { .. } => ActionKind::PromptTurn,
            Operation::Internal { .. } => ActionKind::McpToolCall,
            Operation::Unparseable { .. } => ActionKind::Unparseable,
        }
    }
}

/// One agent tool call, normalised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Action {
    pub host: Host,
    /// The host's own tool name (`Bash`, `Read`, `mcp__github__create_issue`, …).
    pub tool: String,
    pub op: Operation,
    /// Working directory of the agent, if the host reported one.
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(default)]
    pub provenance: Provenance,
    /// Host session id; the caller uses it to load and store [`crate::SessionState`].
    #[serde(default)]
    pub session_id: Option<String>,
}

impl Action {
    /// A convenience constructor for a shell command from a known host.
    pub fn shell(host: Host, command: impl Into<String>, cwd: Option<&str>) -> Self {
        Action {
            host,
            tool: "Bash".into(),
            op: Operation::Shell {
                command: command.into(),
            },
            cwd: cwd.map(str::to_owned),
            provenance: Provenance::User,
            session_id: None,
        }
    }

    pub fn kind(&self) -> ActionKind {
        self.op.kind()
    }
}
