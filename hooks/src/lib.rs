//! Host hook wire formats. Each host's JSON is a type here, converted to the engine's
//! [`Action`] at this edge; the engine never sees host JSON.
//!
//! Today: Claude Code (`PreToolUse`, `PostToolUse`, `UserPromptSubmit`). The other hosts
//! (Cursor, Codex CLI, Gemini CLI, Copilot, VS Code) arrive with the hook binary (issue #3).

pub mod claude;

use thiserror::Error;

/// Largest hook payload we read (a `Write` of a big file arrives inline).
pub const MAX_PAYLOAD_BYTES: usize = 8 * 1024 * 1024;
/// Largest tool result text we look at for session tracking.
pub const MAX_RESULT_BYTES: usize = 1024 * 1024;

#[derive(Debug, Error)]
pub enum HookError {
    #[error("payload is empty")]
    Empty,
    #[error("payload is larger than {MAX_PAYLOAD_BYTES} bytes")]
    TooLarge,
    #[error("payload is not UTF-8")]
    NotUtf8,
    #[error("payload is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("payload is missing `{0}`")]
    Missing(&'static str),
    #[error("field `{0}` has the wrong type")]
    WrongType(&'static str),
}

impl HookError {
    /// Stable reason code for logs and the audit trail.
    pub fn code(&self) -> &'static str {
        match self {
            HookError::Empty => "empty_input",
            HookError::TooLarge => "oversized_input",
            HookError::NotUtf8 => "non_utf8_input",
            HookError::Json(_) => "malformed_json",
            HookError::Missing(_) | HookError::WrongType(_) => "unknown_shape",
        }
    }
}
