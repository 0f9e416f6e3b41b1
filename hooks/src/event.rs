//! What a hook event means for Airlock, whichever host sent it (host-neutral).

use airlock_engine::Action;

/// What one hook event means for Airlock.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Judge this action before it runs.
    Judge(Action),
    /// The action ran and returned this text: update the session.
    Observe { action: Action, result: String },
    /// An event Airlock has no opinion on (Stop, Notification, …).
    Ignore(String),
}
