//! Streamable-HTTP client for remote MCP servers: makes a remote endpoint look like a stdio
//! server to [`crate::proxy::run`].
//!
//! [`connect`] returns one end of a `tokio::io::duplex`; a driver task owns the other end.
//! Every line written to it is one JSON-RPC message and becomes one `POST` (with `Accept:
//! application/json, text/event-stream`, the custom headers, and — once known — `Mcp-Session-Id`
//! and `MCP-Protocol-Version`); every message the remote sends comes back as one line: the JSON
//! body of an answer, each `data:` event of an SSE answer, and each event of the session's `GET`
//! SSE stream (opened after `notifications/initialized`; a `405` means the remote offers none).
//!
//! Fail closed, never hang:
//! * a request whose HTTP exchange fails (connection error, non-2xx status, timeout, a stream
//!   that ends or goes silent for [`RemoteOptions::stream_idle_timeout`] without the answer,
//!   an oversized or malformed body) is answered with a JSON-RPC error for its id;
//! * when the remote is gone for good — the connection is refused, or it answers `404` for the
//!   session (expired) — the stream ends (EOF) after those errors, so the proxy fails every
//!   pending call and its client sees the server close;
//! * redirects are not followed (a redirect is a failure).
//!
//! Requests run concurrently (a long tool call does not hold up others), except `initialize`:
//! nothing else is sent until its answer arrives (or it fails), since the answer carries the
//! session id and the negotiated protocol version.
//! When the proxy closes its end, the session is `DELETE`d (best effort, 5 s).
//!
//! TLS is rustls (system roots and the webpki roots); no OpenSSL. Logs carry status codes and
//! sizes only — never payloads, header values or the URL's query.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde_json::Value;
use tokio::io::{BufReader, DuplexStream};
use tokio::sync::{mpsc, oneshot, watch};

use crate::codec::{self, Message, code, id_key};
use crate::transport::{Frame, FrameReader, MAX_FRAME, spawn_writer};

/// Duplex buffer between the proxy and the driver.
const DUPLEX_BUF: usize = 64 * 1024;
/// GET stream attempts in a row that may fail before the driver stops listening.
const GET_ATTEMPTS: u32 = 5;

/// Why [`connect`] could not set up the client.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("invalid MCP server URL: {0}")]
    Url(&'static str),
    #[error("invalid header `{0}`: {1}")]
    Header(String, &'static str),
    #[error("cannot build the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
}

/// Timeouts and limits of the client.
#[derive(Debug, Clone)]
pub struct RemoteOptions {
    /// TCP + TLS connection set-up (default 10 s).
    pub connect_timeout: Duration,
    /// Until a response's headers arrive, and to read a whole JSON body (default 120 s).
    pub response_timeout: Duration,
    /// Longest silence on an SSE answer before its request fails (default 300 s).
    pub stream_idle_timeout: Duration,
    /// Largest message (JSON body or SSE event) accepted from the remote (default 16 MiB).
    pub max_message: usize,
    /// Open the `GET` stream for server-initiated messages (default true).
    pub listen: bool,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(120),
            stream_idle_timeout: Duration::from_secs(300),
            max_message: MAX_FRAME,
            listen: true,
        }
    }
}

/// Connect to the streamable-HTTP MCP endpoint `url`. `headers` are sent on every request
/// (e.g. `Authorization`). Nothing is sent until the first line is written.
pub async fn connect(
    url: &str,
    headers: &[(String, String)],
    opts: RemoteOptions,
) -> Result<DuplexStream, RemoteError> {
    let url = Url::parse(url).map_err(|_| RemoteError::Url("not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RemoteError::Url("the scheme must be http or https"));
    }
    let mut custom = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.trim().as_bytes())
            .map_err(|_| RemoteError::Header(k.clone(), "not a valid header name"))?;
        if name.as_str() == "mcp-session-id" || name.as_str() == "mcp-protocol-version" {
            return Err(RemoteError::Header(
                k.clone(),
                "set by the client itself, not configurable",
            ));
        }
        let mut value = HeaderValue::from_str(v.trim())
            .map_err(|_| RemoteError::Header(k.clone(), "not a valid header value"))?;
        value.set_sensitive(true);
        custom.append(name, value);
    }
    let client = reqwest::Client::builder()
        .connect_timeout(opts.connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(RemoteError::Client)?;
    let (ours, theirs) = tokio::io::duplex(DUPLEX_BUF);
    let (rd, wr) = tokio::io::split(theirs);
    let (out, _writer) = spawn_writer(wr);
    let (closed_tx, closed_rx) = watch::channel(false);
    let shared = Arc::new(Shared {
        client,
        url,
        custom,
        opts,
        session: Mutex::new(None),
        version: Mutex::new(None),
        out: Mutex::new(Some(out)),
        listening: AtomicBool::new(false),
        closed: closed_rx,
        init_done: Mutex::new(None),
    });
    tokio::spawn(drive(shared, rd, closed_tx));
    Ok(ours)
}

struct Shared {
    client: reqwest::Client,
    url: Url,
    custom: HeaderMap,
    opts: RemoteOptions,
    session: Mutex<Option<HeaderValue>>,
    version: Mutex<Option<HeaderValue>>,
    /// Lines to the proxy; taken (→ EOF) when the remote is gone for good.
    out: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    listening: AtomicBool,
    closed: watch::Receiver<bool>,
    /// Fired when the `initialize` exchange has its answer or has failed.
    init_done: Mutex<Option<oneshot::Sender<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How one HTTP exchange for a request ended.
enum Outcome {
    /// The answer for the request's id was delivered.
    Answered,
    /// No answer; the message says why.
    Failed(String),
    /// No answer, and the remote is gone for good.
    Gone(String),
}

async fn drive(s: Arc<Shared>, rd: tokio::io::ReadHalf<DuplexStream>, closed: watch::Sender<bool>) {
    let mut frames = FrameReader::new(BufReader::new(rd), MAX_FRAME);
    loop {
        let line = match frames.next().await {
            Ok(Some(Frame::Line(l))) => l,
            Ok(Some(Frame::Oversized { len })) => {
                tracing::warn!(len, "oversized message to the remote dropped");
                continue;
            }
            Ok(None) | Err(_) => break,
        };
        if lock(&s.out).is_none() {
            // The remote is gone; the proxy has been told (EOF) and fails what it sends.
            continue;
        }
        match codec::decode(&line) {
            Ok(Message::Request { id, method, raw }) => {
                if method == "initialize" {
                    // Nothing else is sent before its answer (or failure): the response
                    // carries the session id and the negotiated version.
                    let (tx, rx) = oneshot::channel();
                    *lock(&s.init_done) = Some(tx);
                    let s2 = Arc::clone(&s);
                    tokio::spawn(async move { s2.request(id, raw, true).await });
                    let _ = rx.await;
                } else {
                    let s = Arc::clone(&s);
                    tokio::spawn(async move { s.request(id, raw, false).await });
                }
            }
            Ok(Message::Notification { method, raw }) => {
                let s = Arc::clone(&s);
                tokio::spawn(async move {
                    let ok = s.deliver(&raw).await;
                    if ok && method == "notifications/initialized" {
                        s.start_listening();
                    }
                });
            }
            Ok(Message::Response { raw, .. }) => {
                let s = Arc::clone(&s);
                tokio::spawn(async move {
                    s.deliver(&raw).await;
                });
            }
            Err(_) => tracing::warn!(len = line.len(), "unusable message to the remote dropped"),
        }
    }
    let _ = closed.send(true);
    s.delete().await;
    lock(&s.out).take();
}

impl Shared {
    fn base(&self, method: Method) -> reqwest::RequestBuilder {
        let mut h = self.custom.clone();
        if let Some(sid) = lock(&self.session).clone() {
            h.insert("mcp-session-id", sid);
        }
        if let Some(v) = lock(&self.version).clone() {
            h.insert("mcp-protocol-version", v);
        }
        self.client.request(method, self.url.clone()).headers(h)
    }

    async fn post(&self, raw: &Value) -> Result<reqwest::Response, SendError> {
        let req = self
            .base(Method::POST)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .body(codec::encode(raw));
        match tokio::time::timeout(self.opts.response_timeout, req.send()).await {
            Ok(r) => r.map_err(SendError::Http),
            Err(_) => Err(SendError::Timeout),
        }
    }

    /// Send one line to the proxy.
    async fn emit(&self, v: &Value) {
        let tx = lock(&self.out).clone();
        if let Some(tx) = tx {
            let _ = tx.send(codec::encode(v)).await;
        }
    }

    /// The remote is gone for good: end the stream so the proxy fails what is pending.
    fn gone(&self, why: &str) {
        if lock(&self.out).take().is_some() {
            tracing::warn!("the remote MCP server is gone ({why}); ending the session");
        }
    }

    /// POST a request and relay everything the remote answers; an error for its id if the
    /// answer never comes.
    async fn request(self: &Arc<Self>, id: Value, raw: Value, init: bool) {
        let outcome = match self.post(&raw).await {
            Err(e) => failure(&e),
            Ok(resp) => {
                if init {
                    self.take_session(&resp);
                }
                Arc::clone(self).reply(resp, Some(id_key(&id)), init).await
            }
        };
        match outcome {
            Outcome::Answered => {}
            Outcome::Failed(why) => {
                tracing::warn!("request to the remote failed: {why}");
                self.emit(&codec::error(&id, code::INTERNAL_ERROR, &why))
                    .await;
            }
            Outcome::Gone(why) => {
                self.emit(&codec::error(&id, code::INTERNAL_ERROR, &why))
                    .await;
                self.gone(&why);
            }
        }
        if init {
            self.init_answered();
        }
    }

    /// POST a notification or a response; true when the remote accepted it.
    async fn deliver(self: &Arc<Self>, raw: &Value) -> bool {
        match self.post(raw).await {
            Err(e) => {
                match failure(&e) {
                    Outcome::Gone(why) => self.gone(&why),
                    Outcome::Failed(why) => tracing::warn!("message to the remote failed: {why}"),
                    Outcome::Answered => {}
                }
                false
            }
            Ok(resp) => {
                let status = resp.status();
                if status.is_success() {
                    // 202 is the rule; relay anything a lenient server sends back anyway.
                    if status != StatusCode::ACCEPTED {
                        let _ = Arc::clone(self).reply(resp, None, false).await;
                    }
                    true
                } else {
                    tracing::warn!(status = status.as_u16(), "the remote refused a message");
                    if status == StatusCode::NOT_FOUND && lock(&self.session).is_some() {
                        self.gone("the remote ended the MCP session (HTTP 404)");
                    }
                    false
                }
            }
        }
    }

    fn take_session(&self, resp: &reqwest::Response) {
        if let Some(v) = resp.headers().get("mcp-session-id") {
            let ok = !v.is_empty() && v.as_bytes().iter().all(|b| (0x21..=0x7e).contains(b));
            if ok {
                *lock(&self.session) = Some(v.clone());
            } else {
                tracing::warn!("the remote sent an invalid Mcp-Session-Id; ignored");
            }
        }
    }

    /// Relay a response's messages. `want` is the id key of the request waiting for it.
    async fn reply(
        self: Arc<Self>,
        resp: reqwest::Response,
        want: Option<String>,
        init: bool,
    ) -> Outcome {
        let status = resp.status();
        if !status.is_success() {
            let session_gone = status == StatusCode::NOT_FOUND && lock(&self.session).is_some();
            // A JSON-RPC error body for this id is relayed as is.
            let body = self.read_json(resp).await.ok();
            if let (Some(body), Some(w)) = (body, want.as_deref())
                && answers(&body, w)
            {
                self.emit(&body).await;
                if session_gone {
                    self.gone("the remote ended the MCP session (HTTP 404)");
                }
                return Outcome::Answered;
            }
            let why = format!("The remote MCP server answered HTTP {}.", status.as_u16());
            return if session_gone {
                Outcome::Gone("The remote MCP server ended the session (HTTP 404).".to_owned())
            } else {
                Outcome::Failed(why)
            };
        }
        let ctype = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let mut answered = false;
        match ctype.as_str() {
            "text/event-stream" => {
                let r = self
                    .read_sse(resp, self.opts.stream_idle_timeout, |s, v| {
                        let hit = want.as_deref().is_some_and(|w| answers(v, w));
                        answered |= hit;
                        if hit && init {
                            s.take_version(v);
                        }
                        hit
                    })
                    .await;
                if let Err(why) = r
                    && !answered
                {
                    return Outcome::Failed(why);
                }
            }
            "application/json" => match self.read_json(resp).await {
                Ok(v) => {
                    let items = match v {
                        Value::Array(a) => a,
                        v => vec![v],
                    };
                    for v in items {
                        let hit = want.as_deref().is_some_and(|w| answers(&v, w));
                        if hit && init {
                            self.take_version(&v);
                        }
                        answered |= hit;
                        if v.is_object() {
                            self.emit(&v).await;
                        }
                        if hit && init {
                            self.init_answered();
                        }
                    }
                }
                Err(why) => return Outcome::Failed(why),
            },
            _ => {}
        }
        if answered || want.is_none() {
            Outcome::Answered
        } else {
            Outcome::Failed(format!(
                "The remote MCP server sent no answer (HTTP {}).",
                status.as_u16()
            ))
        }
    }

    fn init_answered(&self) {
        if let Some(tx) = lock(&self.init_done).take() {
            let _ = tx.send(());
        }
    }

    /// Keep the negotiated version from the `initialize` answer (before it is relayed).
    fn take_version(&self, v: &Value) {
        let ver = v
            .get("result")
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
            .and_then(|s| HeaderValue::from_str(s).ok());
        if let Some(ver) = ver {
            *lock(&self.version) = Some(ver);
        }
    }

    async fn read_json(&self, mut resp: reqwest::Response) -> Result<Value, String> {
        let max = self.opts.max_message;
        let read = async {
            let mut buf: Vec<u8> = Vec::new();
            while let Some(chunk) = resp.chunk().await.map_err(|e| {
                format!(
                    "The remote MCP server's answer broke off: {}",
                    e.without_url()
                )
            })? {
                if buf.len().saturating_add(chunk.len()) > max {
                    return Err("The remote MCP server's answer is too large.".to_owned());
                }
                buf.extend_from_slice(&chunk);
            }
            serde_json::from_slice::<Value>(&buf)
                .map_err(|_| "The remote MCP server's answer is not JSON.".to_owned())
        };
        match tokio::time::timeout(self.opts.response_timeout, read).await {
            Ok(r) => r,
            Err(_) => Err("The remote MCP server's answer timed out.".to_owned()),
        }
    }

    /// Read an SSE body, emitting each message; `until` says whether a message was the one
    /// awaited (the stream is then read to its end all the same, for what follows it).
    /// Ok at a clean end; Err with a reason otherwise.
    async fn read_sse<F>(
        self: &Arc<Self>,
        mut resp: reqwest::Response,
        idle: Duration,
        mut seen: F,
    ) -> Result<(), String>
    where
        F: FnMut(&Shared, &Value) -> bool,
    {
        let mut parser = SseParser::new(self.opts.max_message);
        let mut closed = self.closed.clone();
        loop {
            let chunk = tokio::select! {
                c = tokio::time::timeout(idle, resp.chunk()) => c,
                _ = closed.wait_for(|c| *c) => return Err("The session was closed.".to_owned()),
            };
            let chunk = match chunk {
                Err(_) => return Err("The remote MCP server went silent (timeout).".to_owned()),
                Ok(Err(e)) => {
                    return Err(format!(
                        "The remote MCP server's stream broke off: {}",
                        e.without_url()
                    ));
                }
                Ok(Ok(None)) => return Ok(()),
                Ok(Ok(Some(c))) => c,
            };
            let events = parser.feed(&chunk).map_err(|_| {
                "The remote MCP server sent an event over the size limit.".to_owned()
            })?;
            for data in events {
                match serde_json::from_slice::<Value>(&data) {
                    Ok(v) if v.is_object() => {
                        let hit = seen(self, &v);
                        self.emit(&v).await;
                        if hit {
                            // Only pending while `initialize` is (nothing else runs then).
                            self.init_answered();
                        }
                    }
                    _ => tracing::warn!(len = data.len(), "non-JSON SSE event skipped"),
                }
            }
        }
    }

    fn start_listening(self: &Arc<Self>) {
        if !self.opts.listen || self.listening.swap(true, Ordering::SeqCst) {
            return;
        }
        let s = Arc::clone(self);
        tokio::spawn(async move { s.listen().await });
    }

    /// The GET stream: server-initiated messages. Reopened when it ends, up to
    /// [`GET_ATTEMPTS`] failures in a row.
    async fn listen(self: Arc<Self>) {
        let mut failures = 0u32;
        let mut closed = self.closed.clone();
        loop {
            if *closed.borrow() || lock(&self.out).is_none() {
                return;
            }
            let req = self
                .base(Method::GET)
                .header(header::ACCEPT, "text/event-stream");
            let resp = tokio::time::timeout(self.opts.response_timeout, req.send()).await;
            match resp {
                Ok(Ok(r)) if r.status() == StatusCode::METHOD_NOT_ALLOWED => {
                    tracing::debug!("the remote offers no GET stream (405)");
                    return;
                }
                Ok(Ok(r)) if r.status() == StatusCode::NOT_FOUND => {
                    self.gone("the remote ended the MCP session (HTTP 404)");
                    return;
                }
                Ok(Ok(r)) if r.status().is_success() => {
                    failures = 0;
                    // No idle limit: this stream is quiet by nature.
                    let idle = Duration::from_secs(365 * 24 * 3600);
                    if let Err(why) = self.read_sse(r, idle, |_, _| false).await {
                        tracing::debug!("GET stream ended: {why}");
                    }
                }
                Ok(Ok(r)) => {
                    tracing::warn!(status = r.status().as_u16(), "GET stream refused");
                    failures += 1;
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e.without_url(), "GET stream failed");
                    failures += 1;
                }
                Err(_) => failures += 1,
            }
            if failures >= GET_ATTEMPTS {
                tracing::warn!("giving up on the remote's GET stream");
                return;
            }
            let wait = Duration::from_millis(500 * u64::from(failures + 1));
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = closed.wait_for(|c| *c) => return,
            }
        }
    }

    async fn delete(&self) {
        if lock(&self.session).is_none() || lock(&self.out).is_none() {
            return;
        }
        let req = self.base(Method::DELETE).send();
        match tokio::time::timeout(Duration::from_secs(5), req).await {
            Ok(Ok(r)) => tracing::debug!(status = r.status().as_u16(), "session deleted"),
            _ => tracing::debug!("session DELETE failed (best effort)"),
        }
    }
}

/// Is `v` the response for the request whose id key is `want`?
fn answers(v: &Value, want: &str) -> bool {
    v.get("method").is_none()
        && (v.get("result").is_some() || v.get("error").is_some())
        && v.get("id").map(id_key).as_deref() == Some(want)
}

/// Why a request got no response at all.
enum SendError {
    Http(reqwest::Error),
    Timeout,
}

fn failure(e: &SendError) -> Outcome {
    let e = match e {
        SendError::Timeout => {
            return Outcome::Failed("The remote MCP server did not answer in time.".to_owned());
        }
        SendError::Http(e) => e,
    };
    if e.is_connect() {
        Outcome::Gone(format!(
            "The remote MCP server cannot be reached: {}",
            short_error(e)
        ))
    } else if e.is_timeout() {
        Outcome::Failed("The remote MCP server did not answer in time.".to_owned())
    } else {
        Outcome::Failed(format!(
            "The request to the remote MCP server failed: {}",
            short_error(e)
        ))
    }
}

/// An error and its causes on one line, without the URL (its query may carry credentials).
fn short_error(e: &reqwest::Error) -> String {
    let mut s = String::new();
    let mut cur: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = cur {
        if !s.is_empty() {
            s.push_str(": ");
        }
        s.push_str(&err.to_string());
        cur = err.source();
    }
    match e.url() {
        Some(u) => s.replace(u.as_str(), "<url>"),
        None => s,
    }
}

/// Incremental SSE parser (WHATWG event-stream): yields each event's `data` (lines joined by
/// `\n`); comments, `event`, `id` and `retry` fields are read and ignored.
pub struct SseParser {
    buf: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    max: usize,
}

/// An SSE line or event over the size limit.
#[derive(Debug, PartialEq, Eq)]
pub struct TooLarge;

impl SseParser {
    pub fn new(max: usize) -> SseParser {
        SseParser {
            buf: Vec::new(),
            data: Vec::new(),
            has_data: false,
            max,
        }
    }

    /// Feed bytes; the `data` of every event completed by them.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Vec<u8>>, TooLarge> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0usize;
        while let Some(rel) = self
            .buf
            .get(start..)
            .and_then(|b| b.iter().position(|c| *c == b'\n'))
        {
            let end = start + rel;
            let mut line = self.buf.get(start..end).unwrap_or_default();
            if line.last() == Some(&b'\r') {
                line = line.get(..line.len() - 1).unwrap_or_default();
            }
            if line.is_empty() {
                if self.has_data {
                    out.push(std::mem::take(&mut self.data));
                }
                self.has_data = false;
            } else if line.first() != Some(&b':') {
                let (field, value) = match line.iter().position(|c| *c == b':') {
                    Some(i) => {
                        let v = line.get(i + 1..).unwrap_or_default();
                        (
                            line.get(..i).unwrap_or_default(),
                            v.strip_prefix(b" ").unwrap_or(v),
                        )
                    }
                    None => (line, &b""[..]),
                };
                if field == b"data" {
                    if self.has_data {
                        self.data.push(b'\n');
                    }
                    self.data.extend_from_slice(value);
                    self.has_data = true;
                    if self.data.len() > self.max {
                        return Err(TooLarge);
                    }
                }
            }
            start = end + 1;
        }
        self.buf.drain(..start.min(self.buf.len()));
        if self.buf.len() > self.max {
            return Err(TooLarge);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_parser_splits_events_across_chunks() {
        let mut p = SseParser::new(1024);
        assert!(p.feed(b"event: message\nid: 1\nda").unwrap().is_empty());
        let got = p.feed(b"ta: {\"a\":1}\r\n\r\n: comment\n\ndata:x\ndata: y\n\nid: 2\ndata:\n\n");
        assert_eq!(
            got.unwrap(),
            vec![b"{\"a\":1}".to_vec(), b"x\ny".to_vec(), b"".to_vec()]
        );
        assert!(p.feed(b"retry: 10\n\n").unwrap().is_empty());
    }

    #[test]
    fn sse_parser_is_bounded() {
        let mut p = SseParser::new(8);
        assert_eq!(p.feed(b"data: 0123456789\n"), Err(TooLarge));
        let mut p = SseParser::new(8);
        assert_eq!(p.feed(b"data: 0123456789"), Err(TooLarge));
    }

    #[test]
    fn answers_matches_ids_exactly() {
        let r = serde_json::json!({"jsonrpc":"2.0","id":1,"result":{}});
        assert!(answers(&r, "1"));
        assert!(!answers(&r, "\"1\""));
        let n = serde_json::json!({"jsonrpc":"2.0","method":"x","id":1});
        assert!(!answers(&n, "1"));
    }

    #[tokio::test]
    async fn bad_urls_and_headers_are_refused() {
        let o = RemoteOptions::default;
        assert!(matches!(
            connect("file:///etc/passwd", &[], o()).await,
            Err(RemoteError::Url(_))
        ));
        assert!(matches!(
            connect("not a url", &[], o()).await,
            Err(RemoteError::Url(_))
        ));
        let bad = [("Bad Name".to_owned(), "x".to_owned())];
        assert!(matches!(
            connect("https://example.invalid/mcp", &bad, o()).await,
            Err(RemoteError::Header(..))
        ));
        let ours = [("Mcp-Session-Id".to_owned(), "x".to_owned())];
        assert!(matches!(
            connect("https://example.invalid/mcp", &ours, o()).await,
            Err(RemoteError::Header(..))
        ));
        let ok = [("Authorization".to_owned(), "Bearer t".to_owned())];
        assert!(
            connect("https://example.invalid/mcp", &ok, o())
                .await
                .is_ok()
        );
    }
}
