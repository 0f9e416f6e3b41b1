//! Host hook wire formats. Each host's JSON is a type here, converted to the engine's
//! [`Action`] at this edge; the engine never sees host JSON.
//!
//! [`claude`] types Claude Code's payloads; [`host`] is the entry point for every host the hook
//! binary serves (Claude Code, Cursor, Codex CLI, Gemini CLI, GitHub Copilot CLI, VS Code,
//! Windsurf, Cline): it detects the real host from the payload's shape, maps the call to an
//! [`Action`], and renders Airlock's answer in that host's wire format (stdout, stderr, exit
//! code).
//!
//! [`Action`]: airlock_engine::Action

mod answer;
pub mod claude;
mod edits;
mod event;
pub mod host;
mod hosts;

pub use airlock_engine::Host;
pub use edits::text_edits;
pub use event::Event;
pub use host::{
    HookAnswer, HookCall, HookOutcome, can_block, can_flag, can_withhold, hard_timeout,
    is_known_event, parse_call, render, render_parse_failure, supports_ask,
};

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

/// Read raw stdin bytes as one JSON object: bounded size, UTF-8, not blank, valid JSON, an
/// object. Every failure has a stable [`HookError::code`].
pub fn read_payload(bytes: &[u8]) -> Result<serde_json::Value, HookError> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(HookError::TooLarge);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| HookError::NotUtf8)?;
    if text.trim().is_empty() {
        return Err(HookError::Empty);
    }
    let v: serde_json::Value = serde_json::from_str(text)?;
    if !v.is_object() {
        return Err(HookError::WrongType("payload"));
    }
    Ok(v)
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
