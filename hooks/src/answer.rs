//! What Airlock answers a hook, host-neutral ([`HookOutcome`]) and as the host reads it
//! ([`HookAnswer`]). A leaf module: `host` and `hosts` both use it, and neither the other.

/// What Airlock decided, as the hook must express it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookOutcome {
    /// Let the host's own permission rules decide (never an explicit "allow").
    NoOpinion,
    /// Stop the action; `reason` is shown to the model and/or the user.
    Deny { reason: String },
    /// Ask the user through the host's own dialog. Rendered as a denial where the host cannot
    /// ask (see [`supports_ask`]).
    Ask { reason: String },
    /// A tool result carried instructions for the agent (an after-the-fact event): `note` is
    /// given to the model with the result, or instead of it when `withhold` is set and the
    /// host can replace a result ([`crate::can_withhold`]).
    Screened { note: String, withhold: bool },
}

/// Exactly what the hook process prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookAnswer {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}
