//! Remote approval (issue #14): when the user is away from the desk, a pending approval
//! request is announced on a channel the user chose (an ntfy topic, a webhook, a Slack-style
//! chat webhook) and can be answered from a phone.
//!
//! # Shape
//!
//! - **Out** ([`channel`]): one announcement per request (optionally only after it waited
//!   `after_secs` unanswered at the desk): the broker's already-redacted summary, reason
//!   codes, high risk, the deadline, and how to answer. Never the payload, never a secret.
//! - **In** ([`channel::Channel::poll`]): the answer topic is polled ntfy-style
//!   (`GET <answer_url>/json?poll=1&since=…`) while an announced request is pending.
//! - **Answers** ([`answer::parse`]): `approve <id> <code>` or `deny <id>`, strictly.
//! - **What counts** ([`RemoteRelay`]): an approval only for a request that is pending *and*
//!   was announced, whose id the answer names, with a TOTP code that
//!   `airlock_core::factors::verify` accepts (single use: every code seen on the channel is
//!   checked and so used up, whatever id it names). Three wrong codes for one request lock its
//!   remote answers; ten wrong codes within an hour suspend remote approval for that hour.
//!   Remote approval is always *once* (never "for this session"). A deny names a pending,
//!   announced request and needs no factor (it is a raise). The broker's arm delay and
//!   deadline still hold; an approval after the deadline is a timeout.
//!
//! **Architecture invariant:** the relay approves only through `Broker::resolve` with
//! `Decision::Approved`, and only after `factors::verify` accepted a TOTP code in the same
//! step; any error leaves the request pending, to end at the desk or the deadline.

pub mod answer;
pub mod channel;
mod relay;
#[cfg(feature = "test-receiver")]
pub mod test_receiver;

pub use relay::{MAX_WRONG_PER_REQUEST, MAX_WRONG_TOTAL, RelayOptions, RemoteRelay, WRONG_WINDOW};

/// Why the relay cannot start or a channel operation failed.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// No TOTP enrolled: remote approval is refused entirely (a password must never travel
    /// through a chat channel).
    #[error(
        "remote approval needs TOTP: a password must never travel through a chat channel; run `airlock totp enroll` first"
    )]
    NoTotp,
    /// The TOTP secret is sealed under the password (no OS keyring) and no password was given.
    #[error(
        "the TOTP secret is sealed under the password (no OS keyring): remote approval needs the password to check codes"
    )]
    SealedSecret,
    /// The channel setting is not valid.
    #[error("remote approval channel: {0}")]
    Config(#[from] airlock_core::CoreError),
    /// A factor check failed at start (wrong password, unreadable secret).
    #[error("{0}")]
    Factor(#[from] airlock_core::factors::FactorError),
    /// The channel could not be reached or answered badly (the message never names the topic).
    #[error("channel: {0}")]
    Http(String),
    /// The relay thread could not start.
    #[error("cannot start the relay thread: {0}")]
    Thread(std::io::Error),
}
