//! The answering side, hosted by the Airlock app: std threads, one per connection.

use std::collections::HashMap;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use airlock_store::{ApprovalStatus, NewApproval, Store};
use serde::Serialize;

use crate::protocol::{
    ApprovalResponse, ClientMessage, Consequence, MAX_LINE, Outcome, Reason, RuleChoice,
    ServerMessage,
};
use crate::transport::{self, Connection, Listener};
use crate::{ARM_DELAY, BACKSTOP, BrokerError, HARD_DEADLINE, default_socket_path, now_ms};

/// Field caps (characters) applied before a request is stored or shown.
const MAX_SHORT: usize = 256;
const MAX_CWD: usize = 4096;
const MAX_SUMMARY: usize = 4096;
const MAX_REASONS: usize = 32;
const MAX_REASON_MESSAGE: usize = 512;
const MAX_CONSEQUENCES: usize = 32;
const MAX_CONSEQUENCE_TEXT: usize = 512;
const MAX_CONSEQUENCE_DETAIL: usize = 12 * 1024;
const MAX_RULE_CHOICES: usize = 4;
const MAX_RULE: usize = 8 * 1024;
const MIN_NONCE: usize = 16;
const WRITE_TIMEOUT: Duration = Duration::from_secs(2);
const ACCEPT_THREAD: &str = "airlock-broker-accept";

/// How the broker runs. [`BrokerConfig::new`] gives the product defaults.
#[derive(Debug, Clone)]
pub struct BrokerConfig {
    /// Where to listen.
    pub socket_path: PathBuf,
    /// Per-request deadline; clamped to at most [`HARD_DEADLINE`].
    pub hard_deadline: Duration,
    /// How long after arrival before `Approved` is accepted ([`ARM_DELAY`] by default).
    pub arm_delay: Duration,
    /// Requests pending at once; more are answered `unavailable`.
    pub max_pending: usize,
    /// Open connections at once; more are refused.
    pub max_connections: usize,
    /// How long a client may take to send its request line.
    pub read_timeout: Duration,
    /// How often orphaned and overdue rows are swept to `timeout`.
    pub sweep_every: Duration,
}

impl BrokerConfig {
    /// Product defaults at `socket_path`.
    pub fn new(socket_path: PathBuf) -> BrokerConfig {
        BrokerConfig {
            socket_path,
            hard_deadline: HARD_DEADLINE,
            arm_delay: ARM_DELAY,
            max_pending: 32,
            max_connections: 64,
            read_timeout: Duration::from_secs(5),
            sweep_every: Duration::from_secs(5),
        }
    }

    /// Product defaults at [`default_socket_path`]; `None` without a home directory.
    pub fn at_default_location() -> Option<BrokerConfig> {
        default_socket_path().map(BrokerConfig::new)
    }

    fn effective_deadline(&self) -> Duration {
        self.hard_deadline.min(HARD_DEADLINE).min(BACKSTOP)
    }
}

/// A request waiting for a human, as the UI shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingRequest {
    /// Approval row id; pass it to [`Broker::resolve`].
    pub id: i64,
    /// Host agent.
    pub host: String,
    /// The host's session id.
    pub session_id: String,
    /// Working directory.
    pub cwd: String,
    /// Tool name.
    pub tool: String,
    /// Redacted argument summary.
    pub summary: String,
    /// Why Airlock asks.
    pub reasons: Vec<Reason>,
    /// What the call will do, in plain words (empty from older clients).
    pub consequences: Vec<Consequence>,
    /// The scopes "always, as a rule" can write (empty: not offered).
    pub rule_choices: Vec<RuleChoice>,
    /// Needs the TOTP code or password typed into the popup.
    pub high_risk: bool,
    /// Arrival, ms since the Unix epoch.
    pub created_ms: i64,
    /// When it ends `timeout`, ms since the Unix epoch.
    pub deadline_ms: i64,
    /// From when `Approved` is accepted, ms since the Unix epoch.
    pub armed_ms: i64,
}

/// What the UI hears from the broker.
// One event per approval request: the size of the larger variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BrokerEvent {
    /// A new request: open a popup.
    Pending(PendingRequest),
    /// A request ended (by the UI, at its deadline, because its requester left, or at
    /// shutdown): close its popup.
    Closed {
        /// Approval row id.
        id: i64,
        /// How it ended.
        outcome: Outcome,
    },
}

/// A human's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Approve once.
    Approved,
    /// Approve this call and the same call again in the same session (not for high risk).
    ApprovedForSession,
    /// Deny.
    Denied,
}

impl Decision {
    /// Whether this answer approves.
    pub fn approves(self) -> bool {
        matches!(self, Decision::Approved | Decision::ApprovedForSession)
    }
}

enum Msg {
    /// The outcome, and whether an approval covers the rest of the session.
    Decided(Outcome, bool),
    ClientGone,
}

struct Waiter {
    tx: Sender<Msg>,
    info: PendingRequest,
    arrived: Instant,
}

struct Inner {
    cfg: BrokerConfig,
    store: Mutex<Store>,
    /// Lock order: `waiters` before `store`, always.
    waiters: Mutex<HashMap<i64, Waiter>>,
    events: Sender<BrokerEvent>,
    stopping: AtomicBool,
    connections: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The approval service. Start it with [`Broker::start`]; stop it with [`Broker::shutdown`]
/// (or drop it), which denies whatever is still pending.
pub struct Broker {
    inner: Arc<Inner>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    stop_sweeper: Mutex<Option<Sender<()>>>,
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Broker")
            .field("socket_path", &self.inner.cfg.socket_path)
            .finish()
    }
}

impl Broker {
    /// Binds the socket (creating its `0700` directory; a stale socket file is replaced, a live
    /// one is [`BrokerError::AlreadyRunning`]), marks every `pending` row left in `store` as
    /// `timeout` (nobody waits for them any more), and starts serving. The receiver carries
    /// [`BrokerEvent`]s for the UI.
    pub fn start(
        cfg: BrokerConfig,
        store: Store,
    ) -> Result<(Broker, Receiver<BrokerEvent>), BrokerError> {
        let listener = transport::bind(&cfg.socket_path)?;
        let (events, events_rx) = mpsc::channel();
        let inner = Arc::new(Inner {
            cfg,
            store: Mutex::new(store),
            waiters: Mutex::new(HashMap::new()),
            events,
            stopping: AtomicBool::new(false),
            connections: AtomicUsize::new(0),
        });
        sweep(&inner)?;
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let broker = Broker {
            inner: Arc::clone(&inner),
            threads: Mutex::new(Vec::new()),
            stop_sweeper: Mutex::new(Some(stop_tx)),
        };
        let io = |e| BrokerError::Io {
            path: inner.cfg.socket_path.clone(),
            source: e,
        };
        let accept_inner = Arc::clone(&inner);
        let accept = std::thread::Builder::new()
            .name(ACCEPT_THREAD.into())
            .spawn(move || accept_loop(&accept_inner, &listener))
            .map_err(io)?;
        lock(&broker.threads).push(accept);
        let sweep_inner = Arc::clone(&inner);
        let sweeper = std::thread::Builder::new()
            .name("airlock-broker-sweep".into())
            .spawn(move || {
                let every = sweep_inner.cfg.sweep_every.max(Duration::from_millis(100));
                while let Err(RecvTimeoutError::Timeout) = stop_rx.recv_timeout(every) {
                    if let Err(e) = sweep(&sweep_inner) {
                        tracing::warn!(error = %e, "approval sweep failed");
                    }
                }
            })
            .map_err(io)?;
        lock(&broker.threads).push(sweeper);
        tracing::info!(socket = %inner.cfg.socket_path.display(), "approval service listening");
        Ok((broker, events_rx))
    }

    /// Where it listens.
    pub fn socket_path(&self) -> &Path {
        &self.inner.cfg.socket_path
    }

    /// Requests waiting for a human, oldest first.
    pub fn pending(&self) -> Vec<PendingRequest> {
        let mut v: Vec<PendingRequest> = lock(&self.inner.waiters)
            .values()
            .map(|w| w.info.clone())
            .collect();
        v.sort_by_key(|p| p.id);
        v
    }

    /// One pending request by id.
    pub fn get(&self, id: i64) -> Option<PendingRequest> {
        lock(&self.inner.waiters).get(&id).map(|w| w.info.clone())
    }

    /// The human's answer to request `id` — the only way anything gets approved. The UI must
    /// have checked the factor itself for high-risk requests. Fails with
    /// [`BrokerError::NotPending`] when the request already ended (decided, timed out, its
    /// requester left) and [`BrokerError::NotArmed`] for an approval that comes too early.
    pub fn resolve(&self, id: i64, decision: Decision) -> Result<(), BrokerError> {
        let mut waiters = lock(&self.inner.waiters);
        let Some(w) = waiters.get(&id) else {
            return Err(BrokerError::NotPending(id));
        };
        if decision == Decision::ApprovedForSession && w.info.high_risk {
            return Err(BrokerError::NotScopable(id));
        }
        if decision.approves() {
            let since = w.arrived.elapsed();
            if since < self.inner.cfg.arm_delay {
                let left = self.inner.cfg.arm_delay.saturating_sub(since);
                return Err(BrokerError::NotArmed {
                    id,
                    wait_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX),
                });
            }
        }
        let (status, outcome) = match decision {
            Decision::Approved | Decision::ApprovedForSession => {
                (ApprovalStatus::Approved, Outcome::Approved)
            }
            Decision::Denied => (ApprovalStatus::Denied, Outcome::Denied),
        };
        let for_session = decision == Decision::ApprovedForSession;
        let now = now_ms();
        let store = lock(&self.inner.store);
        if store.resolve_approval(id, status, now)? {
            drop(store);
            if let Some(w) = waiters.remove(&id) {
                let _ = w.tx.send(Msg::Decided(outcome, for_session));
            }
            tracing::info!(
                id,
                outcome = outcome.as_str(),
                for_session,
                "approval decided"
            );
            Ok(())
        } else {
            // Past its stored deadline (the wall clock moved): it is a timeout.
            let _ = store.expire_approvals(now);
            drop(store);
            if let Some(w) = waiters.remove(&id) {
                let _ = w.tx.send(Msg::Decided(Outcome::Timeout, false));
            }
            Err(BrokerError::NotPending(id))
        }
    }

    /// Stops accepting, denies every pending request (stored `denied`; requesters get
    /// `denied`), removes the socket. Idempotent; also runs on drop.
    pub fn shutdown(&self) {
        self.stop(Outcome::Denied);
    }

    /// The user quit the app after being asked (see the tray's quit): like [`Self::shutdown`],
    /// but requesters are told `withdrawn`, since no human said no. Each stored row is still
    /// closed as `denied`, so none can ever be redeemed.
    pub fn quit(&self) {
        self.stop(Outcome::Withdrawn);
    }

    fn stop(&self, told: Outcome) {
        if self.inner.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        {
            let mut waiters = lock(&self.inner.waiters);
            let store = lock(&self.inner.store);
            let now = now_ms();
            for (id, w) in waiters.drain() {
                if let Err(e) = store.resolve_approval(id, ApprovalStatus::Denied, now) {
                    tracing::warn!(id, error = %e, "could not record the denial at shutdown");
                }
                let _ = w.tx.send(Msg::Decided(told, false));
            }
        }
        drop(lock(&self.stop_sweeper).take());
        // Wake the accept loop so it sees the flag. If that fails (socket file gone), do not
        // wait for it: the thread ends with the process.
        let woke = transport::connect(&self.inner.cfg.socket_path).is_ok();
        for t in lock(&self.threads).drain(..) {
            if woke || t.thread().name() != Some(ACCEPT_THREAD) {
                let _ = t.join();
            }
        }
        transport::remove_endpoint(&self.inner.cfg.socket_path);
        tracing::info!("approval service stopped");
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Marks `timeout` every pending row nobody waits for, and every row past its deadline.
fn sweep(inner: &Inner) -> Result<(), BrokerError> {
    let waiters = lock(&inner.waiters);
    let store = lock(&inner.store);
    let now = now_ms();
    store.expire_approvals(now)?;
    for row in store.pending_approvals(now)? {
        if !waiters.contains_key(&row.id)
            && store.resolve_approval(row.id, ApprovalStatus::Timeout, now)?
        {
            tracing::info!(id = row.id, "orphaned approval marked timeout");
        }
    }
    Ok(())
}

fn accept_loop<L: Listener>(inner: &Arc<Inner>, listener: &L) {
    loop {
        let conn = listener.accept();
        if inner.stopping.load(Ordering::SeqCst) {
            break;
        }
        match conn {
            Ok(stream) => {
                if inner.connections.fetch_add(1, Ordering::SeqCst) >= inner.cfg.max_connections {
                    inner.connections.fetch_sub(1, Ordering::SeqCst);
                    tracing::warn!("approval service busy: connection refused");
                    let mut s = stream;
                    let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
                    reply(&mut s, &response(None, Outcome::Unavailable));
                    continue;
                }
                let conn_inner = Arc::clone(inner);
                let spawned = std::thread::Builder::new()
                    .name("airlock-broker-conn".into())
                    .spawn(move || {
                        handle(&conn_inner, stream);
                        conn_inner.connections.fetch_sub(1, Ordering::SeqCst);
                    });
                if let Err(e) = spawned {
                    inner.connections.fetch_sub(1, Ordering::SeqCst);
                    tracing::warn!(error = %e, "cannot start a connection thread");
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

fn response(id: Option<i64>, outcome: Outcome) -> ServerMessage {
    ServerMessage::Response(ApprovalResponse {
        id,
        outcome,
        for_session: false,
    })
}

fn error(code: &str, message: &str) -> ServerMessage {
    ServerMessage::Error {
        code: code.to_owned(),
        message: message.to_owned(),
    }
}

fn reply<W: Write>(stream: &mut W, msg: &ServerMessage) {
    let Ok(mut line) = serde_json::to_vec(msg) else {
        return;
    };
    line.push(b'\n');
    if let Err(e) = stream.write_all(&line).and_then(|()| stream.flush()) {
        tracing::debug!(error = %e, "could not send the answer");
    }
}

/// Reads the request line: `Err((code, message))` for anything but one line in time.
fn read_request_line<C: Connection>(
    stream: &mut C,
    timeout: Duration,
) -> Result<Vec<u8>, (&'static str, &'static str)> {
    let deadline = Instant::now() + timeout;
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(("read_failed", "no request line in time"));
        }
        if stream.set_read_timeout(Some(left)).is_err() {
            return Err(("read_failed", "socket error"));
        }
        let n = match stream.read(&mut chunk) {
            Ok(0) => return Err(("read_failed", "connection closed before a full line")),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return Err(("read_failed", "no request line in time")),
        };
        let got = chunk.get(..n).unwrap_or_default();
        if let Some(pos) = got.iter().position(|b| *b == b'\n') {
            buf.extend_from_slice(got.get(..pos).unwrap_or_default());
            if buf.len() >= MAX_LINE {
                return Err(("too_long", "the request line is too long"));
            }
            return Ok(buf);
        }
        buf.extend_from_slice(got);
        if buf.len() >= MAX_LINE {
            return Err(("too_long", "the request line is too long"));
        }
    }
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", s.get(..cut).unwrap_or_default()),
        None => s.to_owned(),
    }
}

fn handle<C: Connection>(inner: &Arc<Inner>, mut stream: C) {
    let arrived = Instant::now();
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    match stream.peer() {
        Ok(p) if p.same_user => {}
        Ok(p) => {
            tracing::warn!(peer = %p.user, "approval request from another user refused");
            reply(
                &mut stream,
                &error("peer_refused", "only the same user may ask for approvals"),
            );
            return;
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the peer's credentials");
            reply(
                &mut stream,
                &error("peer_refused", "cannot verify the peer's user"),
            );
            return;
        }
    }
    let line = match read_request_line(&mut stream, inner.cfg.read_timeout) {
        Ok(l) => l,
        Err((code, message)) => {
            reply(&mut stream, &error(code, message));
            return;
        }
    };
    let (nonce, req) = match serde_json::from_slice::<ClientMessage>(&line) {
        Ok(ClientMessage::Request { nonce, request }) => (nonce, request),
        Err(_) => {
            tracing::warn!("refused a message that is not an approval request");
            reply(
                &mut stream,
                &error(
                    "bad_request",
                    "the only message accepted is an approval request; approvals are answered in the Airlock app",
                ),
            );
            return;
        }
    };
    if nonce.len() < MIN_NONCE || nonce.len() > MAX_SHORT {
        reply(&mut stream, &error("bad_request", "bad nonce"));
        return;
    }

    let created_ms = now_ms();
    let hard = inner.cfg.effective_deadline();
    let hard_ms = i64::try_from(hard.as_millis()).unwrap_or(i64::MAX);
    let deadline_ms = req.deadline_ms.min(created_ms.saturating_add(hard_ms));
    let left_ms = u64::try_from(deadline_ms.saturating_sub(created_ms)).unwrap_or(0);
    let wait = Duration::from_millis(left_ms).min(hard);
    let deadline = arrived + wait;
    let arm_ms = i64::try_from(inner.cfg.arm_delay.as_millis()).unwrap_or(i64::MAX);

    let reasons: Vec<Reason> = req
        .reasons
        .iter()
        .take(MAX_REASONS)
        .map(|r| Reason {
            code: clip(&r.code, MAX_SHORT),
            message: clip(&r.message, MAX_REASON_MESSAGE),
        })
        .collect();
    let mut info = PendingRequest {
        id: 0,
        host: clip(&req.host, MAX_SHORT),
        session_id: clip(&req.session_id, MAX_SHORT),
        cwd: clip(&req.cwd, MAX_CWD),
        tool: clip(&req.tool, MAX_SHORT),
        summary: clip(&req.summary, MAX_SUMMARY),
        reasons,
        consequences: req
            .consequences
            .iter()
            .take(MAX_CONSEQUENCES)
            .map(|c| Consequence {
                kind: clip(&c.kind, MAX_SHORT),
                text: clip(&c.text, MAX_CONSEQUENCE_TEXT),
                detail: c.detail.as_deref().map(|d| clip(d, MAX_CONSEQUENCE_DETAIL)),
            })
            .collect(),
        // Never for a high-risk call; a choice too large to show is left out, not cut.
        rule_choices: if req.high_risk {
            Vec::new()
        } else {
            req.rule_choices
                .iter()
                .filter(|c| c.label.len() <= MAX_SHORT && c.rule.to_string().len() <= MAX_RULE)
                .take(MAX_RULE_CHOICES)
                .cloned()
                .collect()
        },
        high_risk: req.high_risk,
        created_ms,
        deadline_ms,
        armed_ms: created_ms.saturating_add(arm_ms),
    };
    let new = NewApproval {
        created_ms,
        deadline_ms,
        host: req.host.clone(),
        session_id: req.session_id.clone(),
        summary: serde_json::json!({
            "nonce": nonce,
            "cwd": info.cwd,
            "tool": info.tool,
            "summary": info.summary,
            "reasons": info.reasons,
        }),
        high_risk: req.high_risk,
    };

    let (tx, rx) = mpsc::channel::<Msg>();
    let id = {
        let mut waiters = lock(&inner.waiters);
        if inner.stopping.load(Ordering::SeqCst) || waiters.len() >= inner.cfg.max_pending {
            drop(waiters);
            tracing::warn!("approval request refused: shutting down or too many pending");
            reply(&mut stream, &response(None, Outcome::Unavailable));
            return;
        }
        let store = lock(&inner.store);
        let id = match store.create_approval(&new) {
            Ok(id) => id,
            Err(e) => {
                drop(store);
                drop(waiters);
                tracing::warn!(error = %e, "cannot record the approval request");
                reply(&mut stream, &response(None, Outcome::Unavailable));
                return;
            }
        };
        if wait.is_zero() {
            // Already past its deadline: record it as a timeout straight away.
            let _ = store.expire_approvals(now_ms().max(deadline_ms));
            drop(store);
            drop(waiters);
            let _ = inner.events.send(BrokerEvent::Closed {
                id,
                outcome: Outcome::Timeout,
            });
            reply(&mut stream, &response(Some(id), Outcome::Timeout));
            return;
        }
        info.id = id;
        waiters.insert(
            id,
            Waiter {
                tx: tx.clone(),
                info: info.clone(),
                arrived,
            },
        );
        id
    };
    tracing::info!(id, host = %info.host, tool = %info.tool, high_risk = info.high_risk, "approval requested");
    let _ = inner.events.send(BrokerEvent::Pending(info));

    // Watch for the requester hanging up (its own wait ran out, or it died).
    let watcher = stream.try_clone().ok().and_then(|mut r| {
        let tx = tx.clone();
        std::thread::Builder::new()
            .name("airlock-broker-watch".into())
            .spawn(move || {
                let _ = r.set_read_timeout(None);
                let mut sink = [0u8; 512];
                loop {
                    match r.read(&mut sink) {
                        Ok(0) => break,
                        Ok(_) => {} // Extra bytes after the request mean nothing.
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                let _ = tx.send(Msg::ClientGone);
            })
            .ok()
    });
    drop(tx);

    let mut client_gone = false;
    let (outcome, for_session) =
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Msg::Decided(o, s)) => (o, s),
            Ok(Msg::ClientGone) => {
                client_gone = true;
                finish_unanswered(inner, id, &rx)
            }
            Err(_) => finish_unanswered(inner, id, &rx),
        };
    let for_session = for_session && outcome == Outcome::Approved;
    tracing::info!(
        id,
        outcome = outcome.as_str(),
        client_gone,
        "approval request ended"
    );
    let _ = inner.events.send(BrokerEvent::Closed { id, outcome });
    if !client_gone {
        reply(
            &mut stream,
            &ServerMessage::Response(ApprovalResponse {
                id: Some(id),
                outcome,
                for_session,
            }),
        );
    }
    let _ = stream.shutdown();
    if let Some(w) = watcher {
        let _ = w.join();
    }
}

/// The deadline passed or the requester left: record `timeout`, unless the UI decided in the
/// same instant (then its decision stands).
fn finish_unanswered(inner: &Inner, id: i64, rx: &Receiver<Msg>) -> (Outcome, bool) {
    let mut waiters = lock(&inner.waiters);
    if waiters.remove(&id).is_some() {
        let store = lock(&inner.store);
        let now = now_ms();
        match store.resolve_approval(id, ApprovalStatus::Timeout, now) {
            Ok(true) => {}
            Ok(false) => {
                if let Err(e) = store.expire_approvals(now) {
                    tracing::warn!(id, error = %e, "could not record the timeout");
                }
            }
            Err(e) => tracing::warn!(id, error = %e, "could not record the timeout"),
        }
        return (Outcome::Timeout, false);
    }
    drop(waiters);
    // Someone removed it first and sent their decision; it is already in the channel.
    loop {
        match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(Msg::Decided(o, s)) => return (o, s),
            Ok(Msg::ClientGone) => {}
            Err(_) => return (Outcome::Timeout, false),
        }
    }
}
