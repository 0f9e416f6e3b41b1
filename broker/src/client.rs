//! The asking side: plain blocking std I/O (the hook binary links this; no async runtime).

use std::io::{ErrorKind, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use airlock_store::{ApprovalStatus, Store};

use crate::protocol::{ApprovalRequest, ClientMessage, MAX_LINE, Outcome, ServerMessage};
use crate::transport::{self, Connection};
use crate::{ApprovalResult, default_socket_path};

/// How often a waiting [`request_approval_cancellable`] looks at its cancel flag.
pub const CANCEL_POLL: Duration = Duration::from_millis(100);

/// How long writing the request may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);

fn unavailable(reason: impl Into<String>) -> ApprovalResult {
    ApprovalResult::Unavailable {
        reason: reason.into(),
    }
}

/// Asks the running Airlock app for approval over the default socket
/// ([`default_socket_path`]) and waits at most `wait` for the human.
///
/// Returns [`ApprovalResult::Unavailable`] at once when nothing listens there (or the
/// listener runs as another user), and [`ApprovalResult::Timeout`] when no answer comes within
/// `wait` (the connection is then closed, which ends the request as `timeout` on the broker's
/// side too). The answer is the broker's word only: call [`redeem`] (or use
/// [`request_and_redeem`]) before letting the tool run.
pub fn request_approval(req: &ApprovalRequest, wait: Duration) -> ApprovalResult {
    match default_socket_path() {
        Some(path) => request_approval_at(&path, req, wait),
        None => unavailable("no home directory: cannot locate the approval service"),
    }
}

/// [`request_approval`] against an explicit socket path (tests, the proxy).
pub fn request_approval_at(path: &Path, req: &ApprovalRequest, wait: Duration) -> ApprovalResult {
    request_approval_cancellable(path, req, wait, &AtomicBool::new(false))
}

/// [`request_approval_at`] that also gives up as soon as `cancel` is set (checked every
/// [`CANCEL_POLL`]): the connection is closed, so the broker ends the request and closes its
/// popup. A cancelled wait returns [`ApprovalResult::Timeout`] with no id; callers that set
/// the flag know why. Used by the MCP proxy, whose client may cancel a call awaiting approval.
pub fn request_approval_cancellable(
    path: &Path,
    req: &ApprovalRequest,
    wait: Duration,
    cancel: &AtomicBool,
) -> ApprovalResult {
    let started = Instant::now();
    let nonce = match fresh_nonce() {
        Ok(n) => n,
        Err(e) => return unavailable(format!("no randomness for the request nonce: {e}")),
    };
    let mut stream = match transport::connect(path) {
        Ok(s) => s,
        Err(e) => return unavailable(format!("approval service not reachable: {e}")),
    };
    match stream.peer() {
        Ok(p) if p.same_user => {}
        Ok(_) => return unavailable("the approval socket belongs to another user"),
        Err(e) => return unavailable(format!("cannot check the approval service's user: {e}")),
    }
    let mut request = req.clone();
    // What the call will do is worth a lot, but not a request the broker refuses.
    request.fit(MAX_LINE / 2);
    let msg = ClientMessage::Request {
        nonce: nonce.clone(),
        request,
    };
    let mut line = match serde_json::to_vec(&msg) {
        Ok(l) => l,
        Err(e) => return unavailable(format!("cannot encode the request: {e}")),
    };
    line.push(b'\n');
    if line.len() > MAX_LINE {
        return unavailable("the request is too large");
    }
    if let Err(e) = stream
        .set_write_timeout(Some(WRITE_TIMEOUT))
        .and_then(|()| stream.write_all(&line))
        .and_then(|()| stream.flush())
    {
        return unavailable(format!("cannot send the request: {e}"));
    }
    let deadline = started + wait;
    let reply = match read_line(&mut stream, deadline, cancel) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return unavailable("the approval service closed the connection"),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            return ApprovalResult::Timeout { id: None };
        }
        Err(e) => return unavailable(format!("reading the answer: {e}")),
    };
    // Hang up explicitly; the broker sees EOF.
    let _ = stream.shutdown();
    match serde_json::from_slice::<ServerMessage>(&reply) {
        Ok(ServerMessage::Response(r)) => match (r.outcome, r.id) {
            (Outcome::Approved, Some(id)) => ApprovalResult::Approved {
                id,
                nonce,
                for_session: r.for_session,
            },
            (Outcome::Denied, Some(id)) => ApprovalResult::Denied { id },
            (Outcome::Timeout, id) => ApprovalResult::Timeout { id },
            (Outcome::Unavailable, _) => unavailable("the approval service could not take it"),
            (Outcome::Withdrawn, Some(id)) => ApprovalResult::Withdrawn { id },
            (Outcome::Withdrawn, None) => unavailable("the Airlock app quit"),
            (Outcome::Approved | Outcome::Denied, None) => {
                unavailable("malformed answer from the approval service")
            }
        },
        Ok(ServerMessage::Error { code, message }) => {
            unavailable(format!("approval service refused: {code}: {message}"))
        }
        Err(_) => unavailable("malformed answer from the approval service"),
    }
}

/// Reads one `\n`-terminated line (without the newline) before `deadline`. `Ok(None)` on EOF
/// before a full line; `TimedOut` past the deadline; `InvalidData` past [`MAX_LINE`].
fn read_line<C: Connection>(
    stream: &mut C,
    deadline: Instant,
    cancel: &AtomicBool,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::with_capacity(256);
    let mut chunk = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || cancel.load(Ordering::SeqCst) {
            return Err(std::io::Error::new(
                ErrorKind::TimedOut,
                "no answer in time",
            ));
        }
        stream.set_read_timeout(Some(left.min(CANCEL_POLL)))?;
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::Interrupted | ErrorKind::WouldBlock | ErrorKind::TimedOut
                ) =>
            {
                continue;
            }
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(None);
        }
        let got = chunk.get(..n).unwrap_or_default();
        if let Some(pos) = got.iter().position(|b| *b == b'\n') {
            buf.extend_from_slice(got.get(..pos).unwrap_or_default());
            return Ok(Some(buf));
        }
        buf.extend_from_slice(got);
        if buf.len() > MAX_LINE {
            return Err(std::io::Error::new(
                ErrorKind::InvalidData,
                "answer too long",
            ));
        }
    }
}

/// 128 random bits as hex, from the OS.
fn fresh_nonce() -> Result<String, getrandom::Error> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Checks an approval against the store and uses it up: true exactly once, and only when row
/// `id` is `approved`, not yet consumed, for `req`'s host and session, and carries `nonce`.
pub fn redeem(
    store: &Store,
    id: i64,
    nonce: &str,
    req: &ApprovalRequest,
) -> Result<bool, airlock_store::StoreError> {
    let Some(row) = store.approval(id)? else {
        return Ok(false);
    };
    let matches = row.status == ApprovalStatus::Approved
        && !row.consumed
        && row.host == req.host
        && row.session_id == req.session_id
        && row.summary.get("nonce").and_then(|n| n.as_str()) == Some(nonce);
    if !matches {
        tracing::warn!(id, "approval did not check out in the store");
        return Ok(false);
    }
    store.consume_approval(id)
}

/// What `airlock hook` should call: [`request_approval`], then, for an approval, [`redeem`]
/// against `store`. `Approved` only when both the broker and the store agree (and the
/// approval is now used up); an approval that does not check out becomes `Unavailable`.
pub fn request_and_redeem(store: &Store, req: &ApprovalRequest, wait: Duration) -> ApprovalResult {
    match default_socket_path() {
        Some(path) => request_and_redeem_at(&path, store, req, wait),
        None => unavailable("no home directory: cannot locate the approval service"),
    }
}

/// [`request_and_redeem`] against an explicit socket path.
pub fn request_and_redeem_at(
    path: &Path,
    store: &Store,
    req: &ApprovalRequest,
    wait: Duration,
) -> ApprovalResult {
    match request_approval_at(path, req, wait) {
        ApprovalResult::Approved {
            id,
            nonce,
            for_session,
        } => match redeem(store, id, &nonce, req) {
            Ok(true) => ApprovalResult::Approved {
                id,
                nonce,
                for_session,
            },
            Ok(false) => unavailable("the approval did not check out in the store"),
            Err(e) => unavailable(format!("store: {e}")),
        },
        other => other,
    }
}
