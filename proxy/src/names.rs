//! Server names, session ids and the `serve` arguments: a leaf module shared by the command
//! line, the gateway config and the HTTP front (so none of them imports another).

use std::path::Path;
use std::time::Duration;

use airlock_core::clock;

/// The server name used in decisions, sessions and pins when `--name` is not given: the
/// command's file name without extension (`mcp-server-filesystem`, `uvx`, `node`, …).
pub fn default_server_name(command: &str) -> String {
    let stem = Path::new(command)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem.is_empty() {
        "mcp".to_owned()
    } else {
        stem
    }
}

/// A server name must be usable in store keys and tool names.
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The per-process session id: stdio MCP has no session id of its own.
pub fn process_session_id(server: &str) -> String {
    format!("{server}-{}-{}", std::process::id(), clock::now_ms())
}

pub struct ServeArgs {
    pub name: Option<String>,
    pub session_id: Option<String>,
    pub approval_timeout: Duration,
    pub command: Vec<String>,
}
