//! Streamable-HTTP server front (MCP transports, 2025-03-26 … 2025-11-25): adapts HTTP
//! clients onto the line-framed proxy.
//!
//! One MCP session = one `tokio::io::duplex` pair. A `POST` carrying `initialize` and no
//! `Mcp-Session-Id` creates a session: the front draws a random session id (128 bits from the
//! OS, hex), hands one end of the duplex to the [`SessionFactory`] (which runs a whole proxy
//! session on it, e.g. spawns the upstream server and [`crate::proxy::run`]) and keeps the
//! other end. Every client message is written into it as one JSON line (re-encoded compactly,
//! so a pretty-printed body can never break the framing); every line coming back is routed:
//!
//! * a **response** goes to the `POST` that carried the request with that id — as
//!   `text/event-stream` when the client accepts it (so progress and approval prompts can travel
//!   on the same stream), else as one `application/json` body;
//! * a **server-initiated request or notification** goes to the open `POST` SSE stream it
//!   belongs to (`notifications/progress` by its `progressToken`, anything else to the most
//!   recently opened one), else to the session's `GET` SSE stream, else into a bounded backlog
//!   that the next stream to open receives first (the oldest message is dropped when it is full,
//!   which fails closed: an approval prompt that never arrives is denied at its deadline);
//! * client notifications and responses are answered `202 Accepted`.
//!
//! `DELETE` ends the session: the front drops its end of the duplex, the proxy sees the client
//! close and shuts the upstream down. A session also ends when the factory's proxy session
//! ends (the upstream died): requests naming it then get 404, pending ones a JSON-RPC error.
//! Idle sessions (no open stream, no request for [`FrontOptions::idle_timeout`]) are ended too,
//! and when the session limit is reached the least recently used idle session makes room.
//!
//! Checks on every request, in order (first failure answers):
//!
//! | check | answer |
//! |---|---|
//! | path is [`FrontOptions::path`] | 404 |
//! | `Host`, when present, names a loopback host (or one of [`FrontOptions::allowed_hosts`]) | 403 |
//! | `Origin`, when present, is a loopback origin (`http(s)://127.0.0.1`, `localhost`, `[::1]`, any port) or in [`FrontOptions::allowed_origins`] | 403 |
//! | `MCP-Protocol-Version`, when present, is a version this front knows | 400 |
//! | `Mcp-Session-Id` names a live session | 404 (400 when a `GET`/`DELETE` has none) |
//! | `Accept` allows a usable answer | 406 |
//! | `Content-Type`, when present, is `application/json` | 415 |
//! | body at most [`FrontOptions::max_body`] bytes | 413 |
//! | body is one JSON-RPC message | 400 with a JSON-RPC parse / invalid-request error; the session keeps serving |
//! | a request id already pending in the session | 400 (it would misroute the answer) |
//! | sessions below [`FrontOptions::max_sessions`], or an idle one to end for room | 503 |
//!
//! The `Host` check complements the `Origin` check against DNS rebinding: a page on a rebound
//! name sends `Host: evil.example`, even on requests for which a browser omits `Origin`.
//!
//! **Sessionless ("stateless", 2026-07-28 style) requests** — any message without an
//! `Mcp-Session-Id` other than `initialize` — are refused with `400 Bad Request` and a JSON-RPC
//! error (`-32600`, with the request's id), and nothing reaches an upstream. Airlock's verdicts
//! depend on per-session memory (taint, secrets read, blocks so far); serving a call outside a
//! session would judge it without that memory, so the front fails closed and the client can fall
//! back to the `initialize` handshake. A request stamped `MCP-Protocol-Version: 2026-07-28` (or
//! any version not in [`PROTOCOL_VERSIONS`]) is refused earlier, at the version check: 400 with
//! `error.data.supported` listing the handshake versions this front serves (the `mcp` Python
//! SDK's `server/discover` probe then falls back to `initialize`).
//!
//! Not implemented (all optional in the spec): resumability (`Last-Event-ID` is ignored and SSE
//! events carry no ids, so no priming event is sent), server-initiated closing of SSE
//! connections for polling, batches (refused, as on stdio).
//!
//! Logs carry session ids (a prefix), ids, sizes and status codes only — never payloads.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Body as HttpBody, Frame as BodyFrame, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::io::{BufReader, DuplexStream};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc, oneshot};

use crate::codec::{self, Message, code, id_key};
use crate::transport::{Frame, FrameReader, MAX_FRAME, spawn_writer};

/// A boxed, sendable future (the same shape as `futures::future::BoxFuture`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Runs one whole proxy session on its end of the duplex and returns when the session is over.
/// The first argument is the MCP session id the front assigned (use it as the proxy's session
/// id, so session memory is per HTTP session).
pub type SessionFactory = Arc<dyn Fn(String, DuplexStream) -> BoxFuture<'static, ()> + Send + Sync>;

/// Protocol versions accepted in `MCP-Protocol-Version`.
pub const PROTOCOL_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The session header (HTTP header names are case-insensitive).
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The protocol version header.
pub const VERSION_HEADER: &str = "mcp-protocol-version";

/// Messages buffered for an SSE stream before the router waits.
const STREAM_QUEUE: usize = 64;
/// Duplex buffer between the front and one proxy session.
const DUPLEX_BUF: usize = 64 * 1024;

type Body = BoxBody<Bytes, Infallible>;

/// Limits and allow-lists of the front.
#[derive(Debug, Clone)]
pub struct FrontOptions {
    /// The MCP endpoint path (default `/mcp`); any other path answers 404.
    pub path: String,
    /// Extra allowed `Origin` values (exact, e.g. `https://app.example`), besides loopback ones.
    pub allowed_origins: Vec<String>,
    /// Extra allowed `Host` names (without port), besides loopback ones.
    pub allowed_hosts: Vec<String>,
    /// Largest request body (default 16 MiB).
    pub max_body: usize,
    /// Most sessions at once (default 32). When full, a new session replaces the least
    /// recently used idle one (no open stream, nothing pending); with none idle, 503.
    pub max_sessions: usize,
    /// Most HTTP connections at once (default 512); further ones wait to be accepted.
    pub max_connections: usize,
    /// A session with no open stream and no request for this long is ended (default 1 h).
    pub idle_timeout: Duration,
    /// Server-initiated messages kept for a session with no stream open (default 256).
    pub backlog: usize,
}

impl Default for FrontOptions {
    fn default() -> Self {
        FrontOptions {
            path: "/mcp".to_owned(),
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body: MAX_FRAME,
            max_sessions: 32,
            max_connections: 512,
            idle_timeout: Duration::from_secs(3600),
            backlog: 256,
        }
    }
}

// ---- response bodies ------------------------------------------------------------------

/// An SSE body fed by a channel; counts itself as an open stream of its session.
struct SseBody {
    rx: mpsc::Receiver<Bytes>,
    _open: OpenStream,
}

impl HttpBody for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<BodyFrame<Bytes>, Infallible>>> {
        self.rx
            .poll_recv(cx)
            .map(|o| o.map(|b| Ok(BodyFrame::data(b))))
    }
}

struct OpenStream(Arc<Session>);

impl OpenStream {
    fn new(s: &Arc<Session>) -> OpenStream {
        s.open_streams.fetch_add(1, Ordering::SeqCst);
        OpenStream(Arc::clone(s))
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::SeqCst);
        self.0.touch();
    }
}

fn full(b: impl Into<Bytes>) -> Body {
    Full::new(b.into()).boxed()
}

fn sse_event(json: &[u8]) -> Bytes {
    let mut v = Vec::with_capacity(json.len() + 24);
    v.extend_from_slice(b"event: message\ndata: ");
    v.extend_from_slice(json);
    v.extend_from_slice(b"\n\n");
    Bytes::from(v)
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(full(text));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn json_response(status: StatusCode, v: &Value) -> Response<Body> {
    json_bytes(status, codec::encode(v))
}

fn json_bytes(status: StatusCode, b: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(full(b));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// An HTTP error whose body is a JSON-RPC error (with `id` when known, else null).
fn rpc_error(status: StatusCode, id: Option<&Value>, c: i64, msg: &str) -> Response<Body> {
    json_response(status, &codec::error(id.unwrap_or(&Value::Null), c, msg))
}

fn sse_response(rx: mpsc::Receiver<Bytes>, s: &Arc<Session>) -> Response<Body> {
    let body = SseBody {
        rx,
        _open: OpenStream::new(s),
    };
    let mut r = Response::new(body.boxed());
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

// ---- sessions -------------------------------------------------------------------------

enum Sink {
    Sse(mpsc::Sender<Bytes>),
    Json(oneshot::Sender<Bytes>),
}

struct Pending {
    sink: Sink,
    progress: Option<String>,
    seq: u64,
}

#[derive(Default)]
struct Routes {
    pending: HashMap<String, Pending>,
    get: Option<mpsc::Sender<Bytes>>,
    backlog: VecDeque<Bytes>,
    seq: u64,
    ended: bool,
}

struct Session {
    id: String,
    to_proxy: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    routes: Mutex<Routes>,
    last_active: Mutex<Instant>,
    open_streams: AtomicUsize,
    backlog_cap: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Session {
    fn short(&self) -> &str {
        self.id.get(..8).unwrap_or(&self.id)
    }

    /// No open stream and nothing pending.
    fn idle(&self) -> bool {
        self.open_streams.load(Ordering::SeqCst) == 0 && lock(&self.routes).pending.is_empty()
    }

    fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// Write one client message into the proxy session; false when it is gone.
    async fn write(&self, v: &Value) -> bool {
        let tx = lock(&self.to_proxy).clone();
        match tx {
            Some(tx) => tx.send(codec::encode(v)).await.is_ok(),
            None => false,
        }
    }

    /// Route one line from the proxy session.
    async fn route(&self, line: Vec<u8>) {
        match codec::decode(&line) {
            Ok(Message::Response { id, .. }) => {
                let p = lock(&self.routes).pending.remove(&id_key(&id));
                match p.map(|p| p.sink) {
                    Some(Sink::Json(tx)) => {
                        let _ = tx.send(Bytes::from(line));
                    }
                    Some(Sink::Sse(tx)) => {
                        // The stream ends once the sender drops, right after the answer.
                        let _ = tx.send(sse_event(&line)).await;
                    }
                    None => tracing::debug!(
                        session = self.short(),
                        "answer for a request no HTTP client waits for; dropped"
                    ),
                }
            }
            Ok(Message::Request { method, raw, .. })
            | Ok(Message::Notification { method, raw }) => {
                let token = (method == "notifications/progress")
                    .then(|| raw.get("params").and_then(|p| p.get("progressToken")))
                    .flatten()
                    .map(id_key);
                self.push(sse_event(&line), token.as_deref()).await;
            }
            Err(_) => tracing::warn!(
                session = self.short(),
                len = line.len(),
                "unusable line from the proxy session dropped"
            ),
        }
    }

    /// Deliver a server-initiated message: its POST stream, the GET stream, or the backlog.
    async fn push(&self, ev: Bytes, token: Option<&str>) {
        for _ in 0..4 {
            let target = {
                let mut r = lock(&self.routes);
                let by_token = token.and_then(|t| {
                    r.pending.values().find_map(|p| match &p.sink {
                        Sink::Sse(tx) if p.progress.as_deref() == Some(t) && !tx.is_closed() => {
                            Some(tx.clone())
                        }
                        _ => None,
                    })
                });
                let latest = || {
                    r.pending
                        .values()
                        .filter_map(|p| match &p.sink {
                            Sink::Sse(tx) if !tx.is_closed() => Some((p.seq, tx.clone())),
                            _ => None,
                        })
                        .max_by_key(|(seq, _)| *seq)
                        .map(|(_, tx)| tx)
                };
                let get = r.get.clone().filter(|g| !g.is_closed());
                match by_token.or_else(latest).or(get) {
                    Some(tx) => tx,
                    None => {
                        if r.backlog.len() >= self.backlog_cap {
                            r.backlog.pop_front();
                            tracing::warn!(
                                session = self.short(),
                                "no stream open and the backlog is full: oldest server message dropped"
                            );
                        }
                        r.backlog.push_back(ev);
                        return;
                    }
                }
            };
            if target.send(ev.clone()).await.is_ok() {
                return;
            }
        }
        tracing::warn!(
            session = self.short(),
            "server message could not be delivered"
        );
    }

    /// Move the backlog into a newly opened stream.
    fn drain_backlog_into(&self, tx: &mpsc::Sender<Bytes>) {
        let mut r = lock(&self.routes);
        while let Some(ev) = r.backlog.pop_front() {
            if let Err(e) = tx.try_send(ev) {
                let ev = match e {
                    mpsc::error::TrySendError::Full(ev) | mpsc::error::TrySendError::Closed(ev) => {
                        ev
                    }
                };
                r.backlog.push_front(ev);
                break;
            }
        }
    }

    /// End the session: no more input to the proxy; pending requests get an error.
    fn close(&self, why: &str) {
        lock(&self.to_proxy).take();
        let (pending, _get) = {
            let mut r = lock(&self.routes);
            r.ended = true;
            r.backlog.clear();
            (std::mem::take(&mut r.pending), r.get.take())
        };
        for (key, p) in pending {
            let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
            let err = codec::encode(&codec::error(&id, code::INTERNAL_ERROR, why));
            match p.sink {
                Sink::Json(tx) => {
                    let _ = tx.send(Bytes::from(err));
                }
                Sink::Sse(tx) => {
                    let _ = tx.try_send(sse_event(&err));
                }
            }
        }
    }
}

struct Front {
    opts: FrontOptions,
    factory: SessionFactory,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl Front {
    fn session(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.sessions).get(id).cloned()
    }

    fn remove(&self, id: &str) -> Option<Arc<Session>> {
        lock(&self.sessions).remove(id)
    }

    /// Start a new proxy session; `None` when the session limit is reached.
    fn open(self: &Arc<Self>) -> Result<Option<Arc<Session>>, getrandom::Error> {
        let mut raw = [0u8; 16];
        getrandom::fill(&mut raw)?;
        let id = hex::encode(raw);
        let (ours, theirs) = tokio::io::duplex(DUPLEX_BUF);
        let (rd, wr) = tokio::io::split(ours);
        let mut evicted = None;
        let s = {
            let mut all = lock(&self.sessions);
            if all.len() >= self.opts.max_sessions {
                // Make room by ending the least recently used idle session (no open stream,
                // nothing pending): clients that never DELETE must not lock others out. Its
                // client gets 404 next time and starts a new session, as the spec says.
                let idle = all
                    .values()
                    .filter(|s| s.idle())
                    .min_by_key(|s| *lock(&s.last_active))
                    .map(|s| s.id.clone());
                match idle.and_then(|id| all.remove(&id)) {
                    Some(old) => evicted = Some(old),
                    None => return Ok(None),
                }
            }
            let (to_proxy, _writer) = spawn_writer(wr);
            let s = Arc::new(Session {
                id: id.clone(),
                to_proxy: Mutex::new(Some(to_proxy)),
                routes: Mutex::new(Routes::default()),
                last_active: Mutex::new(Instant::now()),
                open_streams: AtomicUsize::new(0),
                backlog_cap: self.opts.backlog.max(1),
            });
            all.insert(id.clone(), Arc::clone(&s));
            s
        };
        if let Some(old) = evicted {
            tracing::info!(session = old.short(), "idle MCP session ended to make room");
            old.close("The MCP session was ended to make room for a new one.");
        }
        tracing::info!(session = s.short(), "MCP session opened");
        // The proxy session itself.
        tokio::spawn((self.factory)(id, theirs));
        // Lines coming back from it.
        let front = Arc::downgrade(self);
        let sess = Arc::clone(&s);
        tokio::spawn(async move {
            let mut frames = FrameReader::new(BufReader::new(rd), MAX_FRAME);
            loop {
                match frames.next().await {
                    Ok(Some(Frame::Line(l))) => sess.route(l).await,
                    Ok(Some(Frame::Oversized { len })) => {
                        tracing::warn!(session = sess.short(), len, "oversized line dropped");
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            if let Some(f) = front.upgrade() {
                f.remove(&sess.id);
            }
            sess.close("The MCP session ended before answering this request.");
            tracing::info!(session = sess.short(), "MCP session ended");
        });
        Ok(Some(s))
    }

    fn reap(&self) {
        let idle: Vec<Arc<Session>> = {
            let all = lock(&self.sessions);
            all.values()
                .filter(|s| s.idle() && lock(&s.last_active).elapsed() >= self.opts.idle_timeout)
                .cloned()
                .collect()
        };
        for s in idle {
            tracing::info!(session = s.short(), "idle MCP session ended");
            self.remove(&s.id);
            s.close("The MCP session was idle too long.");
        }
    }
}

// ---- request checks -------------------------------------------------------------------

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).map(|v| v.to_str().unwrap_or("\u{0}"))
}

fn loopback_host(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

/// The host part of a `Host` header value (`name`, `name:port`, `[v6]:port`).
fn host_name(v: &str) -> &str {
    if let Some(rest) = v.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    v.rsplit_once(':').map_or(v, |(h, _)| h)
}

/// Is this `Host` header value acceptable?
pub fn host_allowed(v: &str, extra: &[String]) -> bool {
    let name = host_name(v.trim());
    loopback_host(name) || extra.iter().any(|e| e.eq_ignore_ascii_case(name))
}

/// Is this `Origin` header value acceptable? Loopback origins (`http`/`https` with host
/// `127.0.0.1` (any 127/8), `localhost` or `[::1]`, any port) always; others only when listed.
pub fn origin_allowed(origin: &str, extra: &[String]) -> bool {
    let o = origin.trim().trim_end_matches('/');
    if extra
        .iter()
        .any(|e| e.trim_end_matches('/').eq_ignore_ascii_case(o))
    {
        return true;
    }
    let lower = o.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
    else {
        return false;
    };
    // An origin has no path, query, user info or fragment.
    if rest.is_empty() || rest.contains(['/', '@', '?', '#']) {
        return false;
    }
    let port_ok = |p: &str| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
    let host = if let Some(v6) = rest.strip_prefix('[') {
        let Some((h, after)) = v6.split_once(']') else {
            return false;
        };
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(port_ok)) {
            return false;
        }
        h
    } else {
        match rest.split_once(':') {
            Some((h, p)) if port_ok(p) => h,
            Some(_) => return false,
            None => rest,
        }
    };
    loopback_host(host)
}

struct AcceptKinds {
    json: bool,
    sse: bool,
}

fn accepts(h: &HeaderMap) -> AcceptKinds {
    let mut k = AcceptKinds {
        json: false,
        sse: false,
    };
    let Some(v) = header_str(h, "accept") else {
        // No Accept header means anything is acceptable (RFC 9110).
        k.json = true;
        return k;
    };
    for part in v.split(',') {
        let t = part
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match t.as_str() {
            "application/json" | "application/*" => k.json = true,
            "text/event-stream" | "text/*" => k.sse = true,
            "*/*" => {
                k.json = true;
                k.sse = true;
            }
            _ => {}
        }
    }
    k
}

// ---- handlers -------------------------------------------------------------------------

async fn handle(front: Arc<Front>, req: Request<Incoming>) -> Response<Body> {
    let origin = header_str(req.headers(), "origin").map(str::to_owned);
    let mut resp = check_and_dispatch(&front, req, origin.as_deref()).await;
    if let Some(o) = origin
        && origin_allowed(&o, &front.opts.allowed_origins)
        && let Ok(v) = HeaderValue::from_str(&o)
    {
        let h = resp.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("Mcp-Session-Id, MCP-Protocol-Version"),
        );
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    resp
}

async fn check_and_dispatch(
    front: &Arc<Front>,
    req: Request<Incoming>,
    origin: Option<&str>,
) -> Response<Body> {
    let opts = &front.opts;
    if req.uri().path() != opts.path {
        return plain(
            StatusCode::NOT_FOUND,
            "Not Found: the MCP endpoint is elsewhere\n",
        );
    }
    if let Some(h) = header_str(req.headers(), "host")
        && !host_allowed(h, &opts.allowed_hosts)
    {
        tracing::warn!("request with a non-local Host refused (403)");
        return rpc_error(
            StatusCode::FORBIDDEN,
            None,
            code::INVALID_REQUEST,
            "Forbidden: Host is not a local name",
        );
    }
    if let Some(o) = origin
        && !origin_allowed(o, &opts.allowed_origins)
    {
        tracing::warn!("request from a disallowed Origin refused (403)");
        return rpc_error(
            StatusCode::FORBIDDEN,
            None,
            code::INVALID_REQUEST,
            "Forbidden: Origin not allowed",
        );
    }
    if let Some(v) = header_str(req.headers(), VERSION_HEADER)
        && !PROTOCOL_VERSIONS.contains(&v.trim())
    {
        let mut e = codec::error(
            &Value::Null,
            code::INVALID_REQUEST,
            "Bad Request: unsupported MCP-Protocol-Version",
        );
        if let Some(err) = e.get_mut("error").and_then(Value::as_object_mut) {
            err.insert(
                "data".to_owned(),
                serde_json::json!({ "supported": PROTOCOL_VERSIONS }),
            );
        }
        return json_response(StatusCode::BAD_REQUEST, &e);
    }
    let sid = header_str(req.headers(), SESSION_HEADER).map(str::to_owned);
    let session = match &sid {
        None => None,
        Some(id) => match front.session(id) {
            Some(s) => {
                s.touch();
                Some(s)
            }
            None => {
                return rpc_error(
                    StatusCode::NOT_FOUND,
                    None,
                    code::INVALID_REQUEST,
                    "Session not found",
                );
            }
        },
    };
    match *req.method() {
        Method::POST => post(front, req, session).await,
        Method::GET => match session {
            Some(s) => get(&s, req.headers()),
            None => no_session(None),
        },
        Method::DELETE => match session {
            Some(s) => {
                front.remove(&s.id);
                s.close("The MCP session was deleted by the client.");
                tracing::info!(session = s.short(), "MCP session deleted by the client");
                plain(StatusCode::OK, "")
            }
            None => no_session(None),
        },
        Method::OPTIONS => {
            let mut r = plain(StatusCode::NO_CONTENT, "");
            let h = r.headers_mut();
            h.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
            );
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                HeaderValue::from_static(
                    "Content-Type, Accept, Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID",
                ),
            );
            h.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static("600"),
            );
            r
        }
        _ => {
            let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed\n");
            r.headers_mut().insert(
                header::ALLOW,
                HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
            );
            r
        }
    }
}

fn no_session(id: Option<&Value>) -> Response<Body> {
    rpc_error(
        StatusCode::BAD_REQUEST,
        id,
        code::INVALID_REQUEST,
        "Bad Request: no Mcp-Session-Id header; start a session with initialize (sessionless requests are not served)",
    )
}

fn get(s: &Arc<Session>, h: &HeaderMap) -> Response<Body> {
    if !accepts(h).sse {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: a GET must accept text/event-stream\n",
        );
    }
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    {
        let mut r = lock(&s.routes);
        if r.ended {
            return rpc_error(
                StatusCode::NOT_FOUND,
                None,
                code::INVALID_REQUEST,
                "Session not found",
            );
        }
        if r.get.as_ref().is_some_and(|g| !g.is_closed()) {
            return rpc_error(
                StatusCode::CONFLICT,
                None,
                code::INVALID_REQUEST,
                "Conflict: this session already has a GET stream open",
            );
        }
        r.get = Some(tx.clone());
    }
    s.drain_backlog_into(&tx);
    tracing::debug!(session = s.short(), "GET stream opened");
    sse_response(rx, s)
}

async fn read_body(req: Request<Incoming>, max: usize) -> Result<Bytes, Response<Body>> {
    let too_large = || {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            code::INVALID_REQUEST,
            "Payload Too Large",
        )
    };
    let declared = header_str(req.headers(), "content-length").and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    match Limited::new(req.into_body(), max).collect().await {
        Ok(c) => Ok(c.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(_) => Err(plain(
            StatusCode::BAD_REQUEST,
            "Bad Request: body unreadable\n",
        )),
    }
}

async fn post(
    front: &Arc<Front>,
    req: Request<Incoming>,
    session: Option<Arc<Session>>,
) -> Response<Body> {
    let want = accepts(req.headers());
    if !want.json && !want.sse {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: accept application/json and text/event-stream\n",
        );
    }
    if let Some(ct) = header_str(req.headers(), "content-type") {
        let media = ct.split(';').next().unwrap_or("").trim();
        if !media.eq_ignore_ascii_case("application/json") {
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: send application/json\n",
            );
        }
    }
    let body = match read_body(req, front.opts.max_body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let msg = match codec::decode(&body) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(len = body.len(), "malformed JSON-RPC body refused (400)");
            return json_response(StatusCode::BAD_REQUEST, &e.to_error());
        }
    };
    let (session, created) = match (session, &msg) {
        (Some(s), Message::Request { id, method, .. }) if method == "initialize" => {
            tracing::warn!(session = s.short(), "initialize inside a session refused");
            let _ = s;
            return rpc_error(
                StatusCode::BAD_REQUEST,
                Some(id),
                code::INVALID_REQUEST,
                "Invalid Request: this session is already initialized",
            );
        }
        (Some(s), _) => (s, false),
        (None, Message::Request { method, .. }) if method == "initialize" => match front.open() {
            Ok(Some(s)) => (s, true),
            Ok(None) => {
                tracing::warn!("session limit reached (503)");
                return rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    None,
                    code::INTERNAL_ERROR,
                    "Too many MCP sessions",
                );
            }
            Err(_) => {
                return rpc_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    None,
                    code::INTERNAL_ERROR,
                    "no randomness for a session id",
                );
            }
        },
        (None, Message::Request { id, .. }) => return no_session(Some(id)),
        (None, _) => return no_session(None),
    };
    let mut resp = match msg {
        Message::Request { id, raw, .. } => request(&session, id, raw, want.sse).await,
        Message::Notification { raw, .. } | Message::Response { raw, .. } => {
            if session.write(&raw).await {
                plain(StatusCode::ACCEPTED, "")
            } else {
                rpc_error(
                    StatusCode::NOT_FOUND,
                    None,
                    code::INVALID_REQUEST,
                    "Session not found",
                )
            }
        }
    };
    if created && let Ok(v) = HeaderValue::from_str(&session.id) {
        resp.headers_mut().insert(SESSION_HEADER, v);
    }
    resp
}

async fn request(s: &Arc<Session>, id: Value, raw: Value, sse: bool) -> Response<Body> {
    let key = id_key(&id);
    let progress = raw
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .map(id_key);
    let (sink, waiter) = if sse {
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        (Sink::Sse(tx), Err(rx))
    } else {
        let (tx, rx) = oneshot::channel();
        (Sink::Json(tx), Ok(rx))
    };
    let sse_tx = match &sink {
        Sink::Sse(tx) => Some(tx.clone()),
        Sink::Json(_) => None,
    };
    {
        let mut r = lock(&s.routes);
        if r.ended {
            return rpc_error(
                StatusCode::NOT_FOUND,
                Some(&id),
                code::INVALID_REQUEST,
                "Session not found",
            );
        }
        if r.pending.contains_key(&key) {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                Some(&id),
                code::INVALID_REQUEST,
                "Invalid Request: duplicate id (a request with this id is still pending)",
            );
        }
        r.seq += 1;
        let seq = r.seq;
        r.pending.insert(
            key.clone(),
            Pending {
                sink,
                progress,
                seq,
            },
        );
    }
    if !s.write(&raw).await {
        lock(&s.routes).pending.remove(&key);
        return rpc_error(
            StatusCode::NOT_FOUND,
            Some(&id),
            code::INVALID_REQUEST,
            "Session not found",
        );
    }
    match waiter {
        Err(rx) => {
            if let Some(tx) = sse_tx {
                s.drain_backlog_into(&tx);
            }
            sse_response(rx, s)
        }
        Ok(rx) => match rx.await {
            Ok(b) => json_bytes(StatusCode::OK, b),
            Err(_) => json_response(
                StatusCode::OK,
                &codec::error(
                    &id,
                    code::INTERNAL_ERROR,
                    "The MCP session ended before answering this request.",
                ),
            ),
        },
    }
}

// ---- the server -----------------------------------------------------------------------

/// Serve the MCP endpoint on `listener` until the process ends. Each connection is served by
/// its own task; accept errors (e.g. out of file descriptors) are logged and retried.
pub async fn serve(
    listener: TcpListener,
    opts: FrontOptions,
    factory: SessionFactory,
) -> std::io::Result<()> {
    let conns = Arc::new(Semaphore::new(opts.max_connections.max(1)));
    let idle = opts.idle_timeout;
    let front = Arc::new(Front {
        opts,
        factory,
        sessions: Mutex::new(HashMap::new()),
    });
    spawn_reaper(Arc::downgrade(&front), idle);
    loop {
        let Ok(permit) = Arc::clone(&conns).acquire_owned().await else {
            return Ok(());
        };
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let front = Arc::clone(&front);
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let f = Arc::clone(&front);
                async move { Ok::<_, Infallible>(handle(f, req).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "HTTP connection ended with an error");
            }
            drop(permit);
        });
    }
}

fn spawn_reaper(front: Weak<Front>, idle: Duration) {
    let every = (idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            match front.upgrade() {
                Some(f) => f.reap(),
                None => return,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let none: &[String] = &[];
        for ok in [
            "http://127.0.0.1",
            "http://127.0.0.1:8080",
            "http://localhost",
            "http://LOCALHOST:3000",
            "http://[::1]",
            "http://[::1]:9",
            "https://localhost:443",
            "http://127.1.2.3:1",
        ] {
            assert!(origin_allowed(ok, none), "{ok}");
        }
        for bad in [
            "null",
            "",
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "http://evil.example:80@127.0.0.1",
            "http://127.0.0.1@evil.example",
            "file://",
            "ftp://localhost",
            "http://localhost:abc",
            "http://[::1]x",
            "http://[::2]",
            "http://0.0.0.0",
            "http://192.168.1.2",
        ] {
            assert!(!origin_allowed(bad, none), "{bad}");
        }
        let extra = vec!["https://app.example".to_owned()];
        assert!(origin_allowed("https://app.example", &extra));
        assert!(origin_allowed("https://APP.example/", &extra));
        assert!(!origin_allowed("https://app.example.evil", &extra));
    }

    #[test]
    fn hosts() {
        let none: &[String] = &[];
        for ok in [
            "127.0.0.1:80",
            "localhost",
            "localhost:1",
            "[::1]:8080",
            "[::1]",
        ] {
            assert!(host_allowed(ok, none), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:80",
            "0.0.0.0:1",
            "[::2]:1",
            "",
        ] {
            assert!(!host_allowed(bad, none), "{bad}");
        }
        assert!(host_allowed("box.lan:80", &["box.lan".to_owned()]));
    }

    #[test]
    fn accept_header() {
        let mut h = HeaderMap::new();
        let a = accepts(&h);
        assert!(a.json && !a.sse);
        h.insert(
            "accept",
            HeaderValue::from_static("application/json, text/event-stream;q=0.9"),
        );
        let a = accepts(&h);
        assert!(a.json && a.sse);
        h.insert("accept", HeaderValue::from_static("text/html"));
        let a = accepts(&h);
        assert!(!a.json && !a.sse);
    }

    #[test]
    fn sse_events_are_one_data_line() {
        assert_eq!(
            &sse_event(br#"{"a":1}"#)[..],
            b"event: message\ndata: {\"a\":1}\n\n"
        );
    }
}
