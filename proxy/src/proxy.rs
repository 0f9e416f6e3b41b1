//! The policy layer and the wiring of the two peers.
//!
//! Two sequential pipelines, one per direction, so each direction keeps its order:
//!
//! * **client → server**: `tools/call` is judged by the engine before anything is forwarded
//!   (PASS forwards; BLOCK answers with an error result; AUTH asks the user through MCP
//!   elicitation when the client supports it, else denies). Built-in `airlock__*` tools are
//!   answered here. Everything else is forwarded unchanged. Malformed frames, oversized frames
//!   and duplicate ids are answered with JSON-RPC errors and never reach the server.
//! * **server → client**: `tools/list` results are checked against the pins (changed or
//!   poisoned definitions are hidden) and get the built-in tools appended; `tools/call` results
//!   are redacted and update the session memory; `notifications/tools/list_changed` makes the
//!   proxy list again on its own, so a rug pull is seen even if the client never re-lists.
//!
//! Architecture invariant: no `tools/call` reaches the server without a recorded verdict.
//!
//! When the server's output ends, every pending request gets an error (no client hangs), and
//! the proxy ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use airlock_engine::{Action, AnnotationInfo, Verdict};
use airlock_store::Outcome;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::builtin;
use crate::codec::{self, Message, code, id_key};
use crate::guard::{Call, Guard, Judgement};
use crate::pins::{PinStatus, ToolDef};
use crate::transport::{Frame, FrameReader, MAX_FRAME, spawn_writer};

/// Most requests pending at once (in flight to the server or awaiting approval).
pub const MAX_PENDING: usize = 4096;
/// Most pages the proxy follows when it lists tools on its own.
const MAX_LIST_PAGES: u32 = 64;
/// How many notifications a server may send before the excess is dropped (burst, then per
/// second).
pub const NOTIFICATION_RATE: crate::limits::Rate = crate::limits::Rate {
    calls: 500,
    per: Duration::from_secs(1),
};
/// Longest approval deadline: MCP clients commonly time requests out at 60 s.
pub const MAX_APPROVAL: Duration = Duration::from_secs(59);

pub const UPSTREAM_GONE: &str = "The MCP server exited before answering this request.";

#[derive(Debug, Clone)]
pub struct Options {
    /// How long an approval (elicitation or the desktop app) may take before the call is
    /// denied (`timeout`).
    pub approval_timeout: Duration,
    pub max_frame: usize,
    /// The desktop approval service's socket (`None`: no desktop approvals, AUTH that cannot
    /// be asked through the client is denied).
    pub broker_socket: Option<std::path::PathBuf>,
    /// Per-tool rate limits (none by default).
    pub limits: crate::config::RateLimits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            approval_timeout: Duration::from_secs(55),
            max_frame: MAX_FRAME,
            broker_socket: airlock_broker::default_socket_path(),
            limits: crate::config::RateLimits::default(),
        }
    }
}

/// Why [`run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The client closed its side; the server's stdin was closed after it.
    ClientClosed,
    /// The server's output ended (it exited or crashed); pending requests got errors.
    ServerClosed,
}

enum Inflight {
    Initialize,
    List,
    Call(Box<Action>),
    Other,
}

/// How a pending approval ended.
enum Answer {
    Approved,
    Declined,
    Timeout,
    /// Nobody can be asked (no prompt-capable client, no desktop app).
    Unavailable,
    Cancelled(CancelWhy),
}

enum Ours {
    Elicit(oneshot::Sender<Value>),
    List { pages: u32 },
}

#[derive(Debug, Clone, Copy)]
enum CancelWhy {
    Client,
    Upstream,
}

struct Known {
    def: ToolDef,
    status: PinStatus,
}

struct State {
    client_gone: bool,
    elicitation: bool,
    server_alive: bool,
    client_ready: bool,
    server_tools: bool,
    relist_wanted: bool,
    inflight: HashMap<String, Inflight>,
    held: HashMap<String, oneshot::Sender<CancelWhy>>,
    ours: HashMap<String, Ours>,
    tools: HashMap<String, Known>,
    next: u64,
    dropped_notifications: u64,
}

struct Core {
    guard: Arc<Guard>,
    opts: Options,
    prefix: String,
    state: Mutex<State>,
    to_client: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    to_server: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    limiter: Mutex<crate::limits::RateLimiter>,
}

/// Run a short synchronous step (the engine and one SQLite transaction, well under a
/// millisecond) right here on the runtime thread: a hop to the blocking pool and back costs
/// more than the work. A panic becomes `Err`, which every caller turns into a denial.
fn inline<T>(f: impl FnOnce() -> T) -> Result<T, ()> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        tracing::error!("a judging step panicked; failing closed");
    })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn blocked_result(text: &str) -> Value {
    builtin::error_result(&format!("Blocked by Airlock: {text}"))
}

/// A tool name as shown in an approval prompt: the name comes from the agent, so anything
/// but a plain identifier is shown as `?` (no text can be smuggled into the question).
fn prompt_safe(name: &str) -> String {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    if ok { name.to_owned() } else { "?".to_owned() }
}

/// Does an elicitation answer approve the call?
fn approves(resp: &Value) -> bool {
    let r = resp.get("result");
    r.and_then(|r| r.get("action")).and_then(Value::as_str) == Some("accept")
        && r.and_then(|r| r.get("content"))
            .and_then(|c| c.get("approve"))
            .and_then(Value::as_bool)
            == Some(true)
}

/// Does a client's capability object allow form elicitation?
fn form_elicitation(caps: Option<&Value>) -> bool {
    match caps.and_then(|c| c.get("elicitation")) {
        Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
        _ => false,
    }
}

impl Core {
    fn st(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    async fn send_client(&self, v: &Value) {
        let tx = lock(&self.to_client).clone();
        if let Some(tx) = tx {
            let _ = tx.send(codec::encode(v)).await;
        }
    }

    async fn send_server(&self, v: &Value) {
        let tx = lock(&self.to_server).clone();
        if let Some(tx) = tx {
            let _ = tx.send(codec::encode(v)).await;
        }
    }

    fn new_id(&self) -> Value {
        let mut st = self.st();
        st.next += 1;
        Value::String(format!("airlock-{}-{}", self.prefix, st.next))
    }

    // ---- client → server ------------------------------------------------------------

    async fn client_loop<R: AsyncRead + Unpin>(self: Arc<Self>, read: R) {
        let mut frames = FrameReader::new(BufReader::new(read), self.opts.max_frame);
        loop {
            let frame = match frames.next().await {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "reading from the client failed");
                    break;
                }
            };
            match frame {
                Frame::Oversized { len } => {
                    tracing::warn!(len, "client message over the size cap refused");
                    self.send_client(&codec::error(
                        &Value::Null,
                        code::INVALID_REQUEST,
                        "Invalid Request: message too large",
                    ))
                    .await;
                }
                Frame::Line(bytes) => match codec::decode(&bytes) {
                    Err(e) => {
                        tracing::warn!(?e, "malformed message from the client refused");
                        self.send_client(&e.to_error()).await;
                    }
                    Ok(m) => self.on_client(m).await,
                },
            }
        }
    }

    async fn on_client(self: &Arc<Self>, m: Message) {
        match m {
            Message::Request { id, method, .. } if disguised(&method) => {
                // `TOOLS/CALL`, ` tools/call`: a server that is lenient about the method's
                // spelling would act on a call Airlock never judged. Refused.
                tracing::warn!("request with a disguised method name refused");
                self.send_client(&codec::error(
                    &id,
                    code::METHOD_NOT_FOUND,
                    "Method not found (method names are case-sensitive)",
                ))
                .await;
            }
            Message::Notification { method, .. }
                if disguised(&method) || JUDGED_METHODS.contains(&method.as_str()) =>
            {
                // A `tools/call` without an id: a server may act on it, but no verdict could
                // be answered. Never forwarded.
                tracing::warn!("a judged method sent as a notification was dropped");
            }
            Message::Request { id, method, raw } => {
                let key = id_key(&id);
                let refuse = {
                    let mut st = self.st();
                    if st.inflight.contains_key(&key)
                        || st.held.contains_key(&key)
                        || st.ours.contains_key(&key)
                    {
                        Some((
                            code::INVALID_REQUEST,
                            "Invalid Request: duplicate id (a request with this id is still pending)",
                        ))
                    } else if !st.server_alive {
                        Some((code::INTERNAL_ERROR, UPSTREAM_GONE))
                    } else if st.inflight.len() + st.held.len() >= MAX_PENDING {
                        Some((code::INTERNAL_ERROR, "Too many requests pending"))
                    } else {
                        // Only the `initialize` handshake turns approval prompts on: a
                        // stateless (2026) client answers input requests differently, so it is
                        // treated as unable to prompt (AUTH then denies at once).
                        if method == "initialize" {
                            st.elicitation = form_elicitation(
                                raw.get("params").and_then(|p| p.get("capabilities")),
                            );
                        }
                        None
                    }
                };
                if let Some((c, msg)) = refuse {
                    tracing::warn!(method, "request refused: {msg}");
                    self.send_client(&codec::error(&id, c, msg)).await;
                    return;
                }
                match method.as_str() {
                    "initialize" => self.forward(&id, key, Inflight::Initialize, &raw).await,
                    "tools/list" => self.forward(&id, key, Inflight::List, &raw).await,
                    "tools/call" => self.on_call(id, key, raw).await,
                    "resources/read" => self.on_resource(id, key, raw).await,
                    // Prompt text goes to the model: its result is redacted and observed.
                    "prompts/get" => {
                        let action = self.guard.prompt_action(&raw);
                        self.forward(&id, key, Inflight::Call(Box::new(action)), &raw)
                            .await;
                    }
                    _ => self.forward(&id, key, Inflight::Other, &raw).await,
                }
            }
            Message::Notification { method, raw } => match method.as_str() {
                "notifications/cancelled" => {
                    let target = raw
                        .get("params")
                        .and_then(|p| p.get("requestId"))
                        .map(id_key);
                    let held = target.and_then(|k| self.st().held.remove(&k));
                    match held {
                        // Still waiting for approval: the server never heard of it.
                        Some(tx) => {
                            let _ = tx.send(CancelWhy::Client);
                        }
                        None => self.send_server(&raw).await,
                    }
                }
                "notifications/initialized" => {
                    self.send_server(&raw).await;
                    let relist = {
                        let mut st = self.st();
                        st.client_ready = true;
                        let r = st.server_tools || st.relist_wanted;
                        st.relist_wanted = false;
                        r
                    };
                    if relist {
                        self.relist(None, 0).await;
                    }
                }
                _ => self.send_server(&raw).await,
            },
            Message::Response { id, raw } => {
                let key = id_key(&id);
                let ours = {
                    let mut st = self.st();
                    match st.ours.get(&key) {
                        Some(Ours::Elicit(_)) => st.ours.remove(&key),
                        Some(Ours::List { .. }) => {
                            tracing::warn!("client answered a request it was never sent; dropped");
                            return;
                        }
                        None => None,
                    }
                };
                match ours {
                    Some(Ours::Elicit(tx)) => {
                        let _ = tx.send(raw);
                    }
                    // An answer to a server → client request (sampling, roots, elicitation).
                    _ => self.send_server(&raw).await,
                }
            }
        }
    }

    /// Register a pending request and pass it to the server.
    async fn forward(&self, id: &Value, key: String, kind: Inflight, raw: &Value) {
        let alive = {
            let mut st = self.st();
            if st.server_alive {
                st.inflight.insert(key, kind);
            }
            st.server_alive
        };
        if alive {
            self.send_server(raw).await;
        } else {
            self.reply_error(id, code::INTERNAL_ERROR, UPSTREAM_GONE)
                .await;
        }
    }

    async fn reply_error(&self, id: &Value, c: i64, message: &str) {
        self.send_client(&codec::error(id, c, message)).await;
    }

    async fn reply_blocked(&self, id: &Value, text: &str) {
        self.send_client(&codec::result(id, blocked_result(text)))
            .await;
    }

    /// A denial in the form the request's method expects: a `tools/call` gets an error
    /// *result* (the model reads why), a `resources/read` a JSON-RPC error.
    async fn reply_denied(&self, id: &Value, j: &Judgement, text: &str) {
        if j.rpc_error {
            self.send_client(&codec::error(
                id,
                code::BLOCKED,
                &format!("Blocked by Airlock: {text}"),
            ))
            .await;
        } else {
            self.reply_blocked(id, text).await;
        }
    }

    async fn record(&self, j: &Judgement, outcome: Outcome) -> bool {
        let guard = Arc::clone(&self.guard);
        let j2 = j.clone();
        match tokio::task::spawn_blocking(move || guard.record(&j2, outcome)).await {
            Ok(Ok(())) => true,
            Ok(Err(e)) => {
                tracing::error!(error = %format!("{e:#}"), "could not record a decision");
                false
            }
            Err(_) => false,
        }
    }

    async fn on_call(self: &Arc<Self>, id: Value, key: String, raw: Value) {
        let p = codec::params(&raw);
        let Some(name) = p.get("name").and_then(Value::as_str).map(str::to_owned) else {
            self.reply_error(
                &id,
                code::INVALID_PARAMS,
                "tools/call needs a string `name`",
            )
            .await;
            return;
        };
        let arguments = match p.get("arguments") {
            None | Some(Value::Null) => json!({}),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(_) => {
                self.reply_error(
                    &id,
                    code::INVALID_PARAMS,
                    "tools/call `arguments` must be an object",
                )
                .await;
                return;
            }
        };
        if builtin::is_reserved(&name) {
            let r = self.builtin(&name, &arguments).await;
            self.send_client(&codec::result(&id, r)).await;
            return;
        }
        let def = self.st().tools.get(&name).map(|k| k.def.clone());
        let call = Call {
            tool: name.clone(),
            arguments,
            annotations: def
                .as_ref()
                .map_or(AnnotationInfo::Unknown, |d| d.annotations.clone()),
            def,
            rate_limited: self.opts.limits.for_tool(&name).is_some_and(|rate| {
                !lock(&self.limiter).allow(&name, rate, std::time::Instant::now())
            }),
        };
        let Ok((j, recorded)) = inline(|| self.guard.judge_and_settle(&call)) else {
            self.reply_blocked(&id, "Airlock hit an internal error, so the call is denied.")
                .await;
            return;
        };
        self.decide(id, key, raw, j, recorded).await;
    }

    /// `resources/read`: judged as a read of its URI (a `file://` URI as a file read, an
    /// `http(s)://` one as a fetch, anything else as a read-only call on the server).
    async fn on_resource(self: &Arc<Self>, id: Value, key: String, raw: Value) {
        let p = codec::params(&raw);
        let Some(uri) = p.get("uri").and_then(Value::as_str).map(str::to_owned) else {
            self.reply_error(
                &id,
                code::INVALID_PARAMS,
                "resources/read needs a string `uri`",
            )
            .await;
            return;
        };
        let Ok(j) = inline(|| self.guard.judge_resource(&uri)) else {
            self.reply_error(
                &id,
                code::BLOCKED,
                "Blocked by Airlock: Airlock hit an internal error, so the read is denied.",
            )
            .await;
            return;
        };
        self.decide(id, key, raw, j, None).await;
    }

    /// Act on a verdict: PASS forwards (recorded first), BLOCK answers, AUTH asks.
    /// `recorded`: the PASS / BLOCK was already recorded (and whether that worked).
    async fn decide(
        self: &Arc<Self>,
        id: Value,
        key: String,
        raw: Value,
        j: Judgement,
        recorded: Option<bool>,
    ) {
        tracing::debug!(
            tool = %j.action.tool,
            verdict = j.decision.verdict.as_str(),
            effective = j.decision.effective.as_str(),
            reasons = ?j.decision.codes(),
            "request judged"
        );
        match j.decision.effective {
            Verdict::Pass => {
                let ok = match recorded {
                    Some(ok) => ok,
                    None => self.record(&j, Outcome::Passed).await,
                };
                if ok {
                    self.forward(&id, key, Inflight::Call(Box::new(j.action)), &raw)
                        .await;
                } else {
                    self.reply_denied(
                        &id,
                        &j,
                        "Airlock could not record this call, so it is denied.",
                    )
                    .await;
                }
            }
            Verdict::Block => {
                if recorded.is_none() {
                    self.record(&j, Outcome::Blocked).await;
                }
                tracing::info!(tool = %j.action.tool, reasons = ?j.decision.codes(), "blocked");
                self.reply_denied(&id, &j, &j.first_message()).await;
            }
            Verdict::Auth => self.ask(id, key, raw, j).await,
        }
    }

    async fn builtin(&self, name: &str, args: &Value) -> Value {
        let guard = Arc::clone(&self.guard);
        let hidden: Vec<(String, PinStatus)> = self
            .st()
            .tools
            .iter()
            .filter(|(_, k)| !k.status.visible(self.guard.pin_policy()))
            .map(|(n, k)| (n.clone(), k.status))
            .collect();
        let name = name.to_owned();
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(20);
        let r = tokio::task::spawn_blocking(move || match name.as_str() {
            builtin::STATUS => guard.status(&hidden).map(Some),
            builtin::RECENT => guard.recent(limit).map(Some),
            _ => Ok(None),
        })
        .await;
        match r {
            Ok(Ok(Some(v))) => builtin::text_result(&v),
            Ok(Ok(None)) => builtin::error_result("Unknown Airlock tool."),
            _ => builtin::error_result("Airlock could not read its store."),
        }
    }

    async fn server_loop<R: AsyncRead + Unpin>(self: Arc<Self>, read: R) {
        let mut frames = FrameReader::new(BufReader::new(read), self.opts.max_frame);
        loop {
            let frame = match frames.next().await {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "reading from the server failed");
                    break;
                }
            };
            match frame {
                Frame::Oversized { len } => {
                    tracing::warn!(len, "server message over the size cap dropped");
                    self.send_server(&codec::error(
                        &Value::Null,
                        code::INVALID_REQUEST,
                        "Invalid Request: message too large",
                    ))
                    .await;
                }
                Frame::Line(bytes) => match codec::decode(&bytes) {
                    Err(e) => {
                        tracing::warn!(?e, "malformed message from the server dropped");
                        self.send_server(&e.to_error()).await;
                    }
                    Ok(m) => self.on_server(m).await,
                },
            }
        }
        self.upstream_gone().await;
    }

    async fn on_server(self: &Arc<Self>, m: Message) {
        match m {
            // A server's own input request must never pass for Airlock's approval prompt: its
            // message is marked as coming from the server.
            Message::Request {
                method, mut raw, ..
            } if method == "elicitation/create" => {
                mark_server_elicitation(&mut raw, self.guard.server());
                self.send_client(&raw).await
            }
            // sampling/createMessage, roots/list, ping: the client's business.
            Message::Request { raw, .. } => self.send_client(&raw).await,
            Message::Notification { method, raw } => {
                // A flood of chatter (progress, logs) is thinned so answers keep flowing;
                // notifications that change what the client should believe always pass.
                let essential = matches!(
                    method.as_str(),
                    "notifications/cancelled"
                        | "notifications/tools/list_changed"
                        | "notifications/prompts/list_changed"
                        | "notifications/resources/list_changed"
                );
                if !essential
                    && !lock(&self.limiter).allow(
                        "\u{0}server-notifications",
                        NOTIFICATION_RATE,
                        std::time::Instant::now(),
                    )
                {
                    let mut st = self.st();
                    st.dropped_notifications += 1;
                    if st.dropped_notifications.is_power_of_two() {
                        tracing::warn!(
                            dropped = st.dropped_notifications,
                            "the MCP server floods notifications; dropping the excess"
                        );
                    }
                    return;
                }
                self.send_client(&raw).await;
                if method == "notifications/tools/list_changed" {
                    let now = {
                        let mut st = self.st();
                        if !st.client_ready {
                            st.relist_wanted = true;
                        }
                        st.client_ready
                    };
                    if now {
                        self.relist(None, 0).await;
                    }
                }
            }
            Message::Response { id, raw } => {
                let key = id_key(&id);
                let (ours, kind) = {
                    let mut st = self.st();
                    match st.ours.get(&key) {
                        Some(Ours::List { .. }) => (st.ours.remove(&key), None),
                        Some(Ours::Elicit(_)) => {
                            tracing::warn!("server answered a request it was never sent; dropped");
                            return;
                        }
                        None => (None, st.inflight.remove(&key)),
                    }
                };
                if let Some(Ours::List { pages }) = ours {
                    let (_, cursor) = self.check_list(raw, false).await;
                    if let Some(c) = cursor {
                        self.relist(Some(c), pages).await;
                    }
                    return;
                }
                match kind {
                    None => tracing::debug!("response to an unknown id dropped"),
                    Some(Inflight::Initialize) => {
                        let tools = raw
                            .get("result")
                            .and_then(|r| r.get("capabilities"))
                            .and_then(|c| c.get("tools"))
                            .is_some();
                        self.st().server_tools = tools;
                        self.send_client(&raw).await;
                    }
                    Some(Inflight::List) => {
                        let (raw, _) = self.check_list(raw, true).await;
                        self.send_client(&raw).await;
                    }
                    Some(Inflight::Call(action)) => {
                        let raw = self.on_result(*action, raw).await;
                        self.send_client(&raw).await;
                    }
                    Some(Inflight::Other) => self.send_client(&raw).await,
                }
            }
        }
    }

    /// The server is gone: every pending request gets an error, later ones are refused.
    async fn upstream_gone(&self) {
        let (inflight, held) = {
            let mut st = self.st();
            st.server_alive = false;
            let inflight: Vec<String> = st.inflight.drain().map(|(k, _)| k).collect();
            let held: Vec<(String, oneshot::Sender<CancelWhy>)> = st.held.drain().collect();
            (inflight, held)
        };
        let client_gone = self.st().client_gone;
        if client_gone {
            tracing::info!("the MCP server exited after the client closed");
        } else {
            tracing::warn!(
                pending = inflight.len() + held.len(),
                "the MCP server's output ended"
            );
        }
        for key in inflight {
            let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
            self.reply_error(&id, code::INTERNAL_ERROR, UPSTREAM_GONE)
                .await;
        }
        // Calls still waiting for approval never reached the server: they fail too (their
        // approval tasks only record the denial).
        for (key, tx) in held {
            let _ = tx.send(CancelWhy::Upstream);
            let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
            self.reply_error(&id, code::INTERNAL_ERROR, UPSTREAM_GONE)
                .await;
        }
    }
}

/// Run the proxy between a client (`client_in` / `client_out`) and a server
/// (`server_out` is what the server writes, `server_in` what it reads) until either side ends.
pub async fn run<CR, CW, SR, SW>(
    client_in: CR,
    client_out: CW,
    server_out: SR,
    server_in: SW,
    guard: Arc<Guard>,
    opts: Options,
) -> Ended
where
    CR: AsyncRead + Unpin + Send + 'static,
    CW: AsyncWrite + Unpin + Send + 'static,
    SR: AsyncRead + Unpin + Send + 'static,
    SW: AsyncWrite + Unpin + Send + 'static,
{
    let (to_client, client_writer) = spawn_writer(client_out);
    let (to_server, server_writer) = spawn_writer(server_in);
    let mut prefix = [0u8; 6];
    let _ = getrandom::fill(&mut prefix);
    let core = Arc::new(Core {
        guard,
        opts,
        prefix: hex::encode(prefix),
        state: Mutex::new(State {
            client_gone: false,
            elicitation: false,
            server_alive: true,
            client_ready: false,
            server_tools: false,
            relist_wanted: false,
            inflight: HashMap::new(),
            held: HashMap::new(),
            ours: HashMap::new(),
            tools: HashMap::new(),
            next: 0,
            dropped_notifications: 0,
        }),
        to_client: Mutex::new(Some(to_client)),
        to_server: Mutex::new(Some(to_server)),
        limiter: Mutex::new(crate::limits::RateLimiter::default()),
    });
    let mut client = tokio::spawn(Arc::clone(&core).client_loop(client_in));
    let mut server = tokio::spawn(Arc::clone(&core).server_loop(server_out));
    let ended = tokio::select! {
        _ = &mut client => Ended::ClientClosed,
        _ = &mut server => Ended::ServerClosed,
    };
    match ended {
        Ended::ClientClosed => {
            // Closing the server's stdin is the stdio transport's shutdown signal; answers
            // still on their way are relayed for a moment.
            core.st().client_gone = true;
            lock(&core.to_server).take();
            if tokio::time::timeout(Duration::from_secs(5), &mut server)
                .await
                .is_err()
            {
                server.abort();
            }
        }
        Ended::ServerClosed => client.abort(),
    }
    lock(&core.to_client).take();
    lock(&core.to_server).take();
    let _ = tokio::time::timeout(Duration::from_secs(5), client_writer).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), server_writer).await;
    ended
}

/// Methods whose requests make a server act and are judged before they are forwarded.
pub(crate) const JUDGED_METHODS: &[&str] = &["tools/call", "resources/read", "prompts/get"];

/// A method name that is not one of the MCP methods Airlock judges or lists, but that a lenient
/// server could read as one (other case, surrounding white space).
pub(crate) fn disguised(method: &str) -> bool {
    const KNOWN: &[&str] = &[
        "tools/call",
        "resources/read",
        "prompts/get",
        "tools/list",
        "initialize",
    ];
    let t = method.trim();
    KNOWN
        .iter()
        .any(|k| t.eq_ignore_ascii_case(k) && method != *k)
}

/// Prefix a server's `elicitation/create` message so the user never takes it for Airlock's
/// own approval prompt.
pub(crate) fn mark_server_elicitation(raw: &mut Value, server: &str) {
    let prefix = format!("[Asked by the MCP server \"{server}\", not by Airlock] ");
    if let Some(params) = raw.get_mut("params").and_then(Value::as_object_mut) {
        let msg = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        params.insert("message".into(), Value::String(format!("{prefix}{msg}")));
    }
}

mod approval;
mod listing;
#[cfg(test)]
mod tests;
