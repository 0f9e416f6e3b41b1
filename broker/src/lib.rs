//! The local approval service: hooks and the MCP proxy *ask*, only the Airlock app's own UI
//! *answers*.
//!
//! # Shape
//!
//! - **Transport** ([`transport`]: one [`transport::Listener`] trait, one
//!   [`transport::Connection`] trait, one [`transport::connect`]; the server and the client
//!   use nothing else). On Unix a Unix domain socket at `$XDG_RUNTIME_DIR/airlock/broker.sock`
//!   (when `XDG_RUNTIME_DIR` is an absolute path), else `<data dir>/run/broker.sock`
//!   (`~/.local/share/airlock/run/broker.sock` on Linux). The directory is `0700` and owned by
//!   the user, the socket `0600`. On Windows a named pipe `\\.\pipe\airlock-<user SID>-broker`
//!   that refuses remote clients. Both ends check that the peer runs as the same user
//!   (`SO_PEERCRED` on Linux, `getpeereid` on the BSDs and macOS, the peer process's token
//!   SID on Windows) and hang up otherwise.
//! - **Protocol**: newline-delimited JSON, one exchange per connection. The client writes one
//!   [`ClientMessage`] (`{"type":"request","nonce":…,"request":{…}}`), the broker answers one
//!   [`ServerMessage`] line: `{"type":"response","id":7,"outcome":"approved"}` (or
//!   `denied` / `timeout` / `unavailable`), or `{"type":"error","code":…,"message":…}`.
//!   Lines are capped at [`MAX_LINE`] bytes.
//! - **Client** ([`request_approval`], [`request_and_redeem`]): plain blocking `std` I/O, no
//!   async runtime, so the hook binary can link it. A connect error is
//!   [`ApprovalResult::Unavailable`] at once; no answer within `wait` is
//!   [`ApprovalResult::Timeout`].
//! - **Server** ([`Broker`]): std threads (one per connection, capped). Each request is
//!   written to the store's `approvals` table ([`airlock_store::Store::create_approval`]),
//!   announced to the UI as a [`BrokerEvent::Pending`] on a channel, and ends when the UI calls
//!   [`Broker::resolve`], at the deadline, or when the requester hangs up.
//!
//! **Architecture invariant:** no socket message can answer a request. The only message the
//! broker parses is `request`; anything else (a forged `resolve`, an `approve` with somebody
//! else's id) is answered with an error and changes nothing. Approving happens only through
//! the in-process [`Broker::resolve`], which the app calls from its own popup.
//!
//! # Deadlines
//!
//! - **Hard deadline**: each request ends at the earlier of the caller's `deadline_ms` and
//!   [`HARD_DEADLINE`] (2 minutes) after it arrived, measured on the monotonic clock (a wall
//!   clock set back cannot stretch it). Then it is resolved `timeout` in the store
//!   (`resolve_approval(Timeout)`, or `expire_approvals` when the wall clock already passed
//!   the stored deadline) and the requester gets `timeout` — never `denied`, which is kept for
//!   a human's "no".
//! - **Backstop**: no connection, and no `pending` row, outlives [`BACKSTOP`] (20 minutes),
//!   whatever the configuration says. A sweeper marks `timeout` every pending row of the store
//!   that no live connection waits for (rows left by a crashed app, a dead thread, a clock
//!   jump), at start and every few seconds.
//! - **Requester gone**: when the requester hangs up (its own `wait` ran out, the hook's
//!   watchdog fired) the request ends `timeout` at once and the popup closes.
//! - **Arming**: [`Broker::resolve`] refuses `Approved` until [`ARM_DELAY`] after the request
//!   arrived ([`BrokerError::NotArmed`]), so a stray keystroke in a popup that just opened
//!   cannot approve, even if the UI's own button delay is bypassed. `Denied` is always allowed.
//! - **Quitting** the app ([`Broker::shutdown`], also on drop) denies every pending request:
//!   stored `denied`, each requester gets `denied`.
//!
//! # Single use
//!
//! An `approved` answer is a ticket for one tool call. [`request_and_redeem`] (what the hook
//! should call) checks the answer against the store and consumes it
//! ([`airlock_store::Store::consume_approval`]): the row must be `approved`, not yet consumed,
//! for the same host and session, and carry the random nonce this client sent. So a fake
//! listener on the socket path (same user, e.g. after pointing `XDG_RUNTIME_DIR` elsewhere)
//! can say "approved" but cannot produce a row that redeems, and one approval never lets two
//! calls through.

mod client;
mod protocol;
mod server;
pub mod transport;

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use protocol::{
    ApprovalRequest, ApprovalResponse, ClientMessage, Consequence, MAX_LINE, Outcome, Reason,
    RuleChoice, ServerMessage,
};

pub use client::{
    CANCEL_POLL, redeem, request_and_redeem, request_and_redeem_at, request_approval,
    request_approval_at, request_approval_cancellable,
};
pub use server::{Broker, BrokerConfig, BrokerEvent, Decision, PendingRequest};

/// Longest a single request stays open (the earlier of this and the caller's deadline).
pub const HARD_DEADLINE: Duration = Duration::from_secs(120);
/// Longest anything stays pending, whatever the configuration says.
pub const BACKSTOP: Duration = Duration::from_secs(20 * 60);
/// How long after a request arrives before it can be approved.
pub const ARM_DELAY: Duration = Duration::from_millis(1500);
/// File name of the socket (Unix).
pub const SOCKET_NAME: &str = "broker.sock";

/// What the client learned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalResult {
    /// A human approved request `id` (from [`request_approval`] this is the broker's word;
    /// from [`request_and_redeem`] it is also confirmed and consumed in the store).
    Approved {
        /// Approval row id.
        id: i64,
        /// The nonce this client sent (needed by [`redeem`]).
        nonce: String,
        /// The human approved it for the rest of the session (never for a high-risk call).
        for_session: bool,
    },
    /// A human said no (or the app quit while the request was pending).
    Denied {
        /// Approval row id.
        id: i64,
    },
    /// Nobody answered in time (the broker's deadline, or the client's own `wait`, in which
    /// case the id may be unknown).
    Timeout {
        /// Approval row id, when the broker said so.
        id: Option<i64>,
    },
    /// The user quit the app while the request was pending (they were asked first): no
    /// human answered. Treat it as "no app running".
    Withdrawn {
        /// Approval row id.
        id: i64,
    },
    /// No approval service: not running, refused us, answered garbage, or the approval did
    /// not check out in the store. Callers treat this as "no human approval".
    Unavailable {
        /// Why, for logs (never contains the request).
        reason: String,
    },
}

impl ApprovalResult {
    /// The wire outcome this result corresponds to.
    pub fn outcome(&self) -> Outcome {
        match self {
            ApprovalResult::Approved { .. } => Outcome::Approved,
            ApprovalResult::Denied { .. } => Outcome::Denied,
            ApprovalResult::Timeout { .. } => Outcome::Timeout,
            ApprovalResult::Unavailable { .. } => Outcome::Unavailable,
            ApprovalResult::Withdrawn { .. } => Outcome::Withdrawn,
        }
    }

    /// True only for [`ApprovalResult::Approved`].
    pub fn is_approved(&self) -> bool {
        matches!(self, ApprovalResult::Approved { .. })
    }

    /// The approval row id, when known.
    pub fn id(&self) -> Option<i64> {
        match self {
            ApprovalResult::Approved { id, .. }
            | ApprovalResult::Denied { id }
            | ApprovalResult::Withdrawn { id } => Some(*id),
            ApprovalResult::Timeout { id } => *id,
            ApprovalResult::Unavailable { .. } => None,
        }
    }
}

/// Errors of the server side.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// Socket or directory trouble.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another broker answers on this socket.
    #[error("another Airlock approval service is already running at {0}")]
    AlreadyRunning(PathBuf),
    /// The socket directory or file is not safe to use (wrong owner, not a socket, ...).
    #[error("refusing an unsafe socket location: {0}")]
    Insecure(String),
    /// The store failed.
    #[error("store: {0}")]
    Store(#[from] airlock_store::StoreError),
    /// No such pending request (unknown, already decided, timed out, or its requester left).
    #[error("approval {0} is not pending")]
    NotPending(i64),
    /// "For this session" was asked for a high-risk request: those are approved once, each
    /// with the factor.
    #[error("approval {0} is high risk: it can only be approved once")]
    NotScopable(i64),
    /// Too early to approve (see [`ARM_DELAY`]).
    #[error("approval {id} cannot be approved for another {wait_ms} ms")]
    NotArmed {
        /// The request.
        id: i64,
        /// How long until it can be approved.
        wait_ms: u64,
    },
    /// No approval service on this platform (kept for callers; neither Unix nor Windows
    /// returns it any more).
    #[error("the approval service is not available on this platform yet")]
    Unsupported,
}

/// Where the broker listens. Unix: `$XDG_RUNTIME_DIR/airlock/broker.sock` when
/// `XDG_RUNTIME_DIR` is set to an absolute path, else `<data dir>/run/broker.sock`; `None`
/// without a home. Windows: the pipe name `\\.\pipe\airlock-<user SID>-broker`; `None` when
/// our own SID cannot be read.
pub fn default_socket_path() -> Option<PathBuf> {
    transport::default_endpoint()
}

/// Wall clock in milliseconds since the Unix epoch (0 before 1970, saturating).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn socket_path_follows_the_runtime_dir_else_the_data_dir() {
        let Some(p) = default_socket_path() else {
            return; // no home in this sandbox
        };
        assert!(p.ends_with(SOCKET_NAME));
        let runtime = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute());
        match runtime {
            Some(dir) => assert_eq!(p, dir.join("airlock").join(SOCKET_NAME)),
            None => assert!(p.ends_with(std::path::Path::new("run").join(SOCKET_NAME))),
        }
    }

    #[test]
    fn result_accessors() {
        let a = ApprovalResult::Approved {
            id: 3,
            nonce: "n".into(),
            for_session: false,
        };
        assert!(a.is_approved());
        assert_eq!((a.id(), a.outcome()), (Some(3), Outcome::Approved));
        let t = ApprovalResult::Timeout { id: None };
        assert_eq!((t.id(), t.outcome()), (None, Outcome::Timeout));
        let u = ApprovalResult::Unavailable { reason: "x".into() };
        assert!(!u.is_approved());
        assert_eq!(u.outcome(), Outcome::Unavailable);
        assert_eq!(Outcome::Denied.to_string(), "denied");
    }
}
