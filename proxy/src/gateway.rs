//! The gateway: one MCP client in front, several upstream servers behind, each upstream behind
//! its own proxy session ([`crate::proxy::run`]) so every call is judged exactly as with
//! `serve`. This layer only multiplexes:
//!
//! * **Names.** Tools and prompts are exposed as `<server>__<name>`; a `tools/call` or
//!   `prompts/get` is routed by that prefix and the prefix removed. Resources keep their URIs:
//!   the gateway remembers which server listed a URI (or a URI template's fixed prefix).
//! * **Ids.** Every request sent upstream gets a fresh gateway id, and every server → client
//!   request (sampling, elicitation — including Airlock's own approval prompts — roots, ping)
//!   gets one toward the client, so ids never collide across upstreams. Answers and
//!   `notifications/cancelled` are mapped back.
//! * **Fan-out.** `initialize`, `tools/list`, `prompts/list`, `resources/list`,
//!   `resources/templates/list`, `logging/setLevel` and `airlock__status` go to every live
//!   server; the answers are merged (every page followed) into one, within a deadline — a
//!   server that does not answer in time is left out of that answer.
//! * **Failure.** A server that exits fails its pending requests with an error, its tools
//!   disappear (`notifications/tools/list_changed`), and the others keep serving.
//!
//! Notifications (progress, logging, list changes) and unknown fields pass through unchanged.
//! An unknown method is passed on when only one server is configured; otherwise the gateway
//! cannot know where it belongs and answers "method not found".

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;

use crate::builtin;
use crate::codec::{self, Message, code, id_key};
use crate::proxy::{Ended, MAX_PENDING, UPSTREAM_GONE};
use crate::transport::{Frame, FrameReader, MAX_FRAME, spawn_writer};

/// Separator between a server's name and its tool or prompt name.
pub const SEP: &str = "__";
/// Most pages followed per server in a fanned-out list.
const MAX_PAGES: u32 = 64;

/// One upstream: the client side of its proxy session.
pub struct Upstream {
    pub name: String,
    pub read: Box<dyn AsyncRead + Unpin + Send>,
    pub write: Box<dyn AsyncWrite + Unpin + Send>,
}

#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// How long a fanned-out request waits for every server.
    pub fanout_timeout: Duration,
    pub max_frame: usize,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            fanout_timeout: crate::config::FANOUT_TIMEOUT,
            max_frame: MAX_FRAME,
        }
    }
}

struct Up {
    name: String,
    tx: Option<mpsc::Sender<Vec<u8>>>,
    alive: bool,
    ready: bool,
    caps: Value,
    instructions: Option<String>,
}

enum Pend {
    /// A client request routed to one server.
    Route { client_id: Value },
    /// One server's part of a fanned-out request.
    Part { fan: u64, up: usize, pages: u32 },
}

struct Fan {
    client_id: Value,
    method: String,
    params: Value,
    waiting: HashSet<usize>,
    items: Vec<Value>,
    /// `initialize` answers (`airlock__status` results), per server.
    answers: Vec<(usize, Value)>,
}

struct St {
    ups: Vec<Up>,
    pending: HashMap<String, Pend>,
    fans: HashMap<u64, Fan>,
    /// Client request id → (server, gateway id), for cancellation.
    by_client: HashMap<String, (usize, Value)>,
    /// Gateway id of a server → client request → (server, its own id).
    server_reqs: HashMap<String, (usize, Value)>,
    /// (server, its request id) → gateway id.
    server_reqs_rev: HashMap<(usize, String), Value>,
    resources: HashMap<String, usize>,
    templates: Vec<(String, usize)>,
    client_initialized: bool,
    next: u64,
}

struct Mux {
    opts: GatewayOptions,
    prefix: String,
    st: Mutex<St>,
    to_client: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The list key of a fanned-out list method.
fn list_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/list" => Some("tools"),
        "prompts/list" => Some("prompts"),
        "resources/list" => Some("resources"),
        "resources/templates/list" => Some("resourceTemplates"),
        _ => None,
    }
}

/// The server capability a method needs.
fn capability(method: &str) -> Option<&'static str> {
    match method {
        "tools/list" => Some("tools"),
        "prompts/list" => Some("prompts"),
        "resources/list" | "resources/templates/list" => Some("resources"),
        "logging/setLevel" => Some("logging"),
        _ => None,
    }
}

fn with_id(raw: &Value, id: &Value) -> Value {
    let mut v = raw.clone();
    if let Some(o) = v.as_object_mut() {
        o.insert("id".into(), id.clone());
    }
    v
}

fn set_param(raw: &mut Value, key: &str, val: Value) {
    if let Some(o) = raw.as_object_mut() {
        let p = o
            .entry("params")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(p) = p.as_object_mut() {
            p.insert(key.into(), val);
        }
    }
}

/// The fixed part of a URI template, up to its first expression.
fn template_prefix(t: &str) -> &str {
    t.split('{').next().unwrap_or(t)
}

impl Mux {
    fn st(&self) -> MutexGuard<'_, St> {
        lock(&self.st)
    }

    fn new_id(&self) -> Value {
        let mut st = self.st();
        st.next += 1;
        Value::String(format!("gw-{}-{}", self.prefix, st.next))
    }

    async fn send_client(&self, v: &Value) {
        let tx = lock(&self.to_client).clone();
        if let Some(tx) = tx {
            let _ = tx.send(codec::encode(v)).await;
        }
    }

    async fn send_up(&self, up: usize, v: &Value) -> bool {
        let tx = self
            .st()
            .ups
            .get(up)
            .filter(|u| u.alive)
            .and_then(|u| u.tx.clone());
        match tx {
            Some(tx) => tx.send(codec::encode(v)).await.is_ok(),
            None => false,
        }
    }

    async fn error(&self, id: &Value, c: i64, msg: &str) {
        self.send_client(&codec::error(id, c, msg)).await;
    }

    /// Which server a `server__name` belongs to, and the name there.
    fn split_name(&self, name: &str) -> Option<(usize, String)> {
        let (server, rest) = name.split_once(SEP)?;
        let st = self.st();
        let up = st.ups.iter().position(|u| u.name == server)?;
        Some((up, rest.to_owned()))
    }

    fn resource_owner(&self, uri: &str) -> Option<usize> {
        let st = self.st();
        if let Some(up) = st.resources.get(uri) {
            return Some(*up);
        }
        let by_template = st
            .templates
            .iter()
            .filter(|(p, _)| !p.is_empty() && uri.starts_with(p.as_str()))
            .max_by_key(|(p, _)| p.len())
            .map(|(_, up)| *up);
        if by_template.is_some() {
            return by_template;
        }
        let with_resources: Vec<usize> = st
            .ups
            .iter()
            .enumerate()
            .filter(|(_, u)| u.ready && u.caps.get("resources").is_some())
            .map(|(i, _)| i)
            .collect();
        match with_resources.as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }

    // ---- client → servers -----------------------------------------------------------

    async fn client_loop<R: AsyncRead + Unpin>(self: Arc<Self>, read: R) {
        let mut frames = FrameReader::new(BufReader::new(read), self.opts.max_frame);
        loop {
            match frames.next().await {
                Ok(Some(Frame::Line(bytes))) => match codec::decode(&bytes) {
                    Ok(m) => self.on_client(m).await,
                    Err(e) => {
                        tracing::warn!(?e, "malformed message from the client refused");
                        self.send_client(&e.to_error()).await;
                    }
                },
                Ok(Some(Frame::Oversized { len })) => {
                    tracing::warn!(len, "client message over the size cap refused");
                    self.error(
                        &Value::Null,
                        code::INVALID_REQUEST,
                        "Invalid Request: message too large",
                    )
                    .await;
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "reading from the client failed");
                    break;
                }
            }
        }
    }

    async fn on_client(self: &Arc<Self>, m: Message) {
        match m {
            Message::Request { id, method, .. } if crate::proxy::disguised(&method) => {
                tracing::warn!("request with a disguised method name refused");
                self.error(
                    &id,
                    code::METHOD_NOT_FOUND,
                    "Method not found (method names are case-sensitive)",
                )
                .await;
            }
            Message::Notification { method, .. }
                if crate::proxy::disguised(&method)
                    || crate::proxy::JUDGED_METHODS.contains(&method.as_str()) =>
            {
                tracing::warn!("a judged method sent as a notification was dropped");
            }
            Message::Request { id, method, raw } => self.on_client_request(id, method, raw).await,
            Message::Notification { method, raw } => match method.as_str() {
                "notifications/cancelled" => {
                    let target = raw
                        .get("params")
                        .and_then(|p| p.get("requestId"))
                        .map(id_key);
                    let hit = target.and_then(|k| self.st().by_client.remove(&k));
                    if let Some((up, gid)) = hit {
                        let mut n = raw.clone();
                        set_param(&mut n, "requestId", gid);
                        self.send_up(up, &n).await;
                    }
                }
                "notifications/initialized" => {
                    let ready: Vec<usize> = {
                        let mut st = self.st();
                        st.client_initialized = true;
                        st.ups
                            .iter()
                            .enumerate()
                            .filter(|(_, u)| u.ready)
                            .map(|(i, _)| i)
                            .collect()
                    };
                    for up in ready {
                        self.send_up(up, &raw).await;
                    }
                }
                _ => {
                    let n = self.st().ups.len();
                    for up in 0..n {
                        self.send_up(up, &raw).await;
                    }
                }
            },
            Message::Response { id, raw } => {
                let hit = self.st().server_reqs.remove(&id_key(&id));
                match hit {
                    Some((up, orig)) => {
                        self.st().server_reqs_rev.remove(&(up, id_key(&orig)));
                        self.send_up(up, &with_id(&raw, &orig)).await;
                    }
                    None => tracing::debug!("client answered an unknown request; dropped"),
                }
            }
        }
    }

    async fn on_client_request(self: &Arc<Self>, id: Value, method: String, raw: Value) {
        let key = id_key(&id);
        let refuse = {
            let st = self.st();
            if st.by_client.contains_key(&key)
                || st.fans.values().any(|f| id_key(&f.client_id) == key)
            {
                Some("Invalid Request: duplicate id (a request with this id is still pending)")
            } else if st.pending.len() >= MAX_PENDING {
                Some("Too many requests pending")
            } else {
                None
            }
        };
        if let Some(msg) = refuse {
            self.error(&id, code::INVALID_REQUEST, msg).await;
            return;
        }
        let params = raw.get("params").cloned().unwrap_or(Value::Null);
        match method.as_str() {
            "ping" => self.send_client(&codec::result(&id, json!({}))).await,
            "initialize" => self.fan_out(id, method, raw, None).await,
            m if list_key(m).is_some() || m == "logging/setLevel" => {
                let cap = capability(m);
                self.fan_out(id, method.clone(), raw, cap).await;
            }
            "tools/call" | "prompts/get" => {
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    self.error(&id, code::INVALID_PARAMS, "params need a string `name`")
                        .await;
                    return;
                };
                if method == "tools/call" && name == builtin::STATUS {
                    self.fan_out(id, method, raw, Some("tools")).await;
                    return;
                }
                if method == "tools/call" && builtin::is_reserved(name) {
                    // Every session shares one memory: any server's proxy can answer.
                    let first = self.st().ups.iter().position(|u| u.ready && u.alive);
                    match first {
                        Some(up) => self.route(up, id, raw).await,
                        None => self.error(&id, code::INTERNAL_ERROR, UPSTREAM_GONE).await,
                    }
                    return;
                }
                match self.split_name(name) {
                    Some((up, inner)) => {
                        let mut raw = raw.clone();
                        set_param(&mut raw, "name", Value::String(inner));
                        self.route(up, id, raw).await;
                    }
                    None => {
                        let what = if method == "tools/call" {
                            "tool"
                        } else {
                            "prompt"
                        };
                        self.error(
                            &id,
                            code::INVALID_PARAMS,
                            &format!("Unknown {what}: names are `<server>__<name>`"),
                        )
                        .await;
                    }
                }
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let owner = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .and_then(|u| self.resource_owner(u));
                match owner {
                    Some(up) => self.route(up, id, raw).await,
                    None => {
                        self.error(&id, code::INVALID_PARAMS, "Unknown resource URI")
                            .await;
                    }
                }
            }
            "completion/complete" => {
                let r = params.get("ref");
                let kind = r.and_then(|r| r.get("type")).and_then(Value::as_str);
                let target = match kind {
                    Some("ref/prompt") => r
                        .and_then(|r| r.get("name"))
                        .and_then(Value::as_str)
                        .and_then(|n| self.split_name(n)),
                    Some("ref/resource") => r
                        .and_then(|r| r.get("uri"))
                        .and_then(Value::as_str)
                        .and_then(|u| self.resource_owner(u))
                        .map(|up| (up, String::new())),
                    _ => None,
                };
                match target {
                    Some((up, inner)) => {
                        let mut raw = raw.clone();
                        if kind == Some("ref/prompt")
                            && let Some(r) = raw
                                .get_mut("params")
                                .and_then(|p| p.get_mut("ref"))
                                .and_then(Value::as_object_mut)
                        {
                            r.insert("name".into(), Value::String(inner));
                        }
                        self.route(up, id, raw).await;
                    }
                    None => {
                        self.error(&id, code::INVALID_PARAMS, "Unknown completion reference")
                            .await;
                    }
                }
            }
            _ => {
                let only = {
                    let st = self.st();
                    if st.ups.len() == 1 { Some(0) } else { None }
                };
                match only {
                    Some(up) => self.route(up, id, raw).await,
                    None => {
                        self.error(
                            &id,
                            code::METHOD_NOT_FOUND,
                            "Method not found: the gateway cannot tell which server it is for",
                        )
                        .await;
                    }
                }
            }
        }
    }

    /// Send a client request to one server under a gateway id.
    async fn route(&self, up: usize, client_id: Value, raw: Value) {
        let gid = self.new_id();
        {
            let mut st = self.st();
            st.pending.insert(
                id_key(&gid),
                Pend::Route {
                    client_id: client_id.clone(),
                },
            );
            st.by_client.insert(id_key(&client_id), (up, gid.clone()));
        }
        if !self.send_up(up, &with_id(&raw, &gid)).await {
            {
                let mut st = self.st();
                st.pending.remove(&id_key(&gid));
                st.by_client.remove(&id_key(&client_id));
            }
            self.error(&client_id, code::INTERNAL_ERROR, UPSTREAM_GONE)
                .await;
        }
    }

    /// Send a request to every live server (with `cap`, when given) and merge the answers.
    async fn fan_out(
        self: &Arc<Self>,
        client_id: Value,
        method: String,
        raw: Value,
        cap: Option<&str>,
    ) {
        let targets: Vec<usize> = {
            let st = self.st();
            st.ups
                .iter()
                .enumerate()
                .filter(|(_, u)| u.alive && (method == "initialize" || u.ready))
                .filter(|(_, u)| cap.is_none_or(|c| u.caps.get(c).is_some()))
                .map(|(i, _)| i)
                .collect()
        };
        let fid = {
            let mut st = self.st();
            st.next += 1;
            let fid = st.next;
            st.fans.insert(
                fid,
                Fan {
                    client_id,
                    method: method.clone(),
                    params: raw.get("params").cloned().unwrap_or(Value::Null),
                    waiting: targets.iter().copied().collect(),
                    items: Vec::new(),
                    answers: Vec::new(),
                },
            );
            fid
        };
        for up in targets {
            self.send_part(fid, up, &raw, 1).await;
        }
        let mux = Arc::clone(self);
        let deadline = self.opts.fanout_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(deadline).await;
            mux.finish_fan(fid, true).await;
        });
        self.finish_fan(fid, false).await;
    }

    async fn send_part(&self, fid: u64, up: usize, raw: &Value, pages: u32) {
        let gid = self.new_id();
        self.st().pending.insert(
            id_key(&gid),
            Pend::Part {
                fan: fid,
                up,
                pages,
            },
        );
        if !self.send_up(up, &with_id(raw, &gid)).await {
            let mut st = self.st();
            st.pending.remove(&id_key(&gid));
            if let Some(f) = st.fans.get_mut(&fid) {
                f.waiting.remove(&up);
            }
        }
    }

    /// Answer a fan-out once every part is in (or, `force`, at its deadline).
    async fn finish_fan(&self, fid: u64, force: bool) {
        let fan = {
            let mut st = self.st();
            let done = st.fans.get(&fid).is_some_and(|f| f.waiting.is_empty());
            if !(done || force) {
                return;
            }
            let Some(fan) = st.fans.remove(&fid) else {
                return;
            };
            st.pending
                .retain(|_, p| !matches!(p, Pend::Part { fan, .. } if *fan == fid));
            if fan.method == "initialize" {
                for up in &fan.waiting {
                    if let Some(u) = st.ups.get_mut(*up) {
                        u.ready = false;
                    }
                }
            }
            fan
        };
        for up in &fan.waiting {
            let name = self.st().ups.get(*up).map(|u| u.name.clone());
            tracing::warn!(server = ?name, method = %fan.method, "server did not answer in time; left out");
        }
        let reply = self.merge(&fan);
        self.send_client(&reply).await;
    }

    fn merge(&self, fan: &Fan) -> Value {
        let id = &fan.client_id;
        match fan.method.as_str() {
            "initialize" => self.merge_initialize(id, fan),
            "tools/call" => {
                // airlock__status from every server's proxy.
                let mut content = Vec::new();
                let mut servers = Vec::new();
                for (_, r) in &fan.answers {
                    if let Some(c) = r.get("content").and_then(Value::as_array) {
                        content.extend(c.iter().cloned());
                    }
                    if let Some(s) = r.get("structuredContent") {
                        servers.push(s.clone());
                    }
                }
                codec::result(
                    id,
                    json!({"content": content, "structuredContent": {"servers": servers}, "isError": false}),
                )
            }
            "logging/setLevel" => codec::result(id, json!({})),
            m => {
                let key = list_key(m).unwrap_or("items");
                let mut items = fan.items.clone();
                if m == "tools/list" {
                    items.extend(builtin::definitions());
                }
                codec::result(id, json!({ key: items }))
            }
        }
    }

    fn merge_initialize(&self, id: &Value, fan: &Fan) -> Value {
        let st = self.st();
        let oks: Vec<&Value> = fan.answers.iter().map(|(_, r)| r).collect();
        if oks.is_empty() {
            return codec::error(
                id,
                code::INTERNAL_ERROR,
                "None of the gateway's MCP servers answered `initialize`.",
            );
        }
        let requested = fan
            .params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("2025-06-18");
        // The oldest version any server speaks (dated versions sort as strings).
        let version = oks
            .iter()
            .filter_map(|r| r.get("protocolVersion").and_then(Value::as_str))
            .min()
            .unwrap_or(requested);
        let any = |c: &str| {
            oks.iter()
                .any(|r| r.get("capabilities").and_then(|k| k.get(c)).is_some())
        };
        let any_flag = |c: &str, f: &str| {
            oks.iter().any(|r| {
                r.get("capabilities")
                    .and_then(|k| k.get(c))
                    .and_then(|k| k.get(f))
                    .and_then(Value::as_bool)
                    == Some(true)
            })
        };
        let mut caps = Map::new();
        caps.insert("tools".into(), json!({"listChanged": true}));
        if any("prompts") {
            caps.insert(
                "prompts".into(),
                json!({"listChanged": any_flag("prompts", "listChanged")}),
            );
        }
        if any("resources") {
            caps.insert(
                "resources".into(),
                json!({"subscribe": any_flag("resources", "subscribe"), "listChanged": any_flag("resources", "listChanged")}),
            );
        }
        if any("logging") {
            caps.insert("logging".into(), json!({}));
        }
        if any("completions") {
            caps.insert("completions".into(), json!({}));
        }
        let instructions: Vec<String> = st
            .ups
            .iter()
            .filter(|u| u.ready)
            .filter_map(|u| u.instructions.as_ref().map(|i| format!("[{}] {i}", u.name)))
            .collect();
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": caps,
            "serverInfo": {"name": "airlock-gateway", "title": "Airlock gateway", "version": env!("CARGO_PKG_VERSION")},
        });
        if !instructions.is_empty()
            && let Some(o) = result.as_object_mut()
        {
            o.insert(
                "instructions".into(),
                Value::String(instructions.join("\n")),
            );
        }
        codec::result(id, result)
    }

    // ---- servers → client -----------------------------------------------------------

    async fn upstream_loop<R: AsyncRead + Unpin>(self: Arc<Self>, up: usize, read: R) {
        let mut frames = FrameReader::new(BufReader::new(read), self.opts.max_frame);
        loop {
            match frames.next().await {
                Ok(Some(Frame::Line(bytes))) => match codec::decode(&bytes) {
                    Ok(m) => self.on_upstream(up, m).await,
                    Err(e) => tracing::warn!(?e, up, "malformed message from a server dropped"),
                },
                Ok(Some(Frame::Oversized { len })) => {
                    tracing::warn!(len, up, "server message over the size cap dropped");
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(error = %e, up, "reading from a server failed");
                    break;
                }
            }
        }
        self.upstream_gone(up).await;
    }

    async fn on_upstream(self: &Arc<Self>, up: usize, m: Message) {
        match m {
            Message::Request { id, raw, .. } => {
                let gid = self.new_id();
                {
                    let mut st = self.st();
                    st.server_reqs.insert(id_key(&gid), (up, id.clone()));
                    st.server_reqs_rev.insert((up, id_key(&id)), gid.clone());
                }
                self.send_client(&with_id(&raw, &gid)).await;
            }
            Message::Notification { method, raw } => {
                if method == "notifications/cancelled" {
                    let target = raw
                        .get("params")
                        .and_then(|p| p.get("requestId"))
                        .map(id_key);
                    let gid = target.and_then(|k| {
                        let mut st = self.st();
                        let gid = st.server_reqs_rev.remove(&(up, k));
                        if let Some(g) = &gid {
                            st.server_reqs.remove(&id_key(g));
                        }
                        gid
                    });
                    if let Some(gid) = gid {
                        let mut n = raw.clone();
                        set_param(&mut n, "requestId", gid);
                        self.send_client(&n).await;
                    }
                    return;
                }
                self.send_client(&raw).await;
            }
            Message::Response { id, raw } => {
                let p = self.st().pending.remove(&id_key(&id));
                match p {
                    Some(Pend::Route { client_id }) => {
                        self.st().by_client.remove(&id_key(&client_id));
                        self.send_client(&with_id(&raw, &client_id)).await;
                    }
                    Some(Pend::Part {
                        fan,
                        up: from,
                        pages,
                    }) => {
                        self.on_part(fan, from, pages, raw).await;
                    }
                    None => tracing::debug!("server answered an unknown id; dropped"),
                }
            }
        }
    }

    async fn on_part(&self, fid: u64, up: usize, pages: u32, raw: Value) {
        let result = raw.get("result").cloned();
        let mut next_page: Option<Value> = None;
        {
            let mut guard = self.st();
            let st = &mut *guard;
            let name = st.ups.get(up).map(|u| u.name.clone()).unwrap_or_default();
            let Some(fan) = st.fans.get_mut(&fid) else {
                return;
            };
            match (&result, fan.method.as_str()) {
                (None, m) => {
                    tracing::warn!(server = %name, method = m, "server answered with an error; left out");
                    fan.waiting.remove(&up);
                }
                (Some(r), "initialize") => {
                    fan.answers.push((up, r.clone()));
                    fan.waiting.remove(&up);
                    if let Some(u) = st.ups.get_mut(up) {
                        u.ready = true;
                        u.caps = r.get("capabilities").cloned().unwrap_or(Value::Null);
                        u.instructions = r
                            .get("instructions")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                    }
                }
                (Some(r), "tools/call" | "logging/setLevel") => {
                    fan.answers.push((up, r.clone()));
                    fan.waiting.remove(&up);
                }
                (Some(r), m) => {
                    let key = list_key(m).unwrap_or("items");
                    for item in r.get(key).and_then(Value::as_array).into_iter().flatten() {
                        let mut item = item.clone();
                        match m {
                            "tools/list" | "prompts/list" => {
                                let n =
                                    item.get("name").and_then(Value::as_str).unwrap_or_default();
                                if m == "tools/list" && builtin::is_reserved(n) {
                                    continue; // added once, by the gateway
                                }
                                let full = format!("{name}{SEP}{n}");
                                if let Some(o) = item.as_object_mut() {
                                    o.insert("name".into(), Value::String(full));
                                }
                            }
                            "resources/list" => {
                                if let Some(u) = item.get("uri").and_then(Value::as_str) {
                                    st.resources.insert(u.to_owned(), up);
                                }
                            }
                            _ => {
                                if let Some(t) = item.get("uriTemplate").and_then(Value::as_str) {
                                    let p = template_prefix(t).to_owned();
                                    if !st.templates.iter().any(|(q, u)| *q == p && *u == up) {
                                        st.templates.push((p, up));
                                    }
                                }
                            }
                        }
                        fan.items.push(item);
                    }
                    let cursor = r.get("nextCursor").filter(|c| !c.is_null()).cloned();
                    match cursor {
                        Some(c) if pages < MAX_PAGES => {
                            let mut params = fan.params.as_object().cloned().unwrap_or_default();
                            params.insert("cursor".into(), c);
                            next_page =
                                Some(codec::request(&Value::Null, m, Value::Object(params)));
                        }
                        _ => {
                            fan.waiting.remove(&up);
                        }
                    }
                }
            }
        }
        if let Some(req) = next_page {
            self.send_part(fid, up, &req, pages + 1).await;
        }
        self.finish_fan(fid, false).await;
    }

    /// A server's session ended: fail what it owed, hide its tools, keep the others serving.
    async fn upstream_gone(&self, up: usize) {
        let (routes, fans, name, any_alive, initialized) = {
            let mut st = self.st();
            let name = st.ups.get(up).map(|u| u.name.clone()).unwrap_or_default();
            if let Some(u) = st.ups.get_mut(up) {
                u.alive = false;
                u.ready = false;
                u.tx = None;
            }
            let owned: Vec<String> = st
                .by_client
                .iter()
                .filter(|(_, (u, _))| *u == up)
                .map(|(k, _)| k.clone())
                .collect();
            let mut routes = Vec::new();
            for k in owned {
                if let Some((_, gid)) = st.by_client.remove(&k)
                    && let Some(Pend::Route { client_id }) = st.pending.remove(&id_key(&gid))
                {
                    routes.push(client_id);
                }
            }
            st.pending
                .retain(|_, p| !matches!(p, Pend::Part { up: u, .. } if *u == up));
            let mut fans = Vec::new();
            for (fid, f) in st.fans.iter_mut() {
                if f.waiting.remove(&up) {
                    fans.push(*fid);
                }
            }
            st.server_reqs.retain(|_, (u, _)| *u != up);
            st.server_reqs_rev.retain(|(u, _), _| *u != up);
            st.resources.retain(|_, u| *u != up);
            st.templates.retain(|(_, u)| *u != up);
            let any_alive = st.ups.iter().any(|u| u.alive);
            (routes, fans, name, any_alive, st.client_initialized)
        };
        tracing::warn!(server = %name, pending = routes.len(), "an MCP server's session ended");
        for id in routes {
            self.error(&id, code::INTERNAL_ERROR, UPSTREAM_GONE).await;
        }
        for fid in fans {
            self.finish_fan(fid, false).await;
        }
        if any_alive && initialized {
            self.send_client(&codec::notification(
                "notifications/tools/list_changed",
                json!({}),
            ))
            .await;
        }
    }
}

/// Run the gateway between one client and `upstreams` until the client leaves or every
/// server is gone.
pub async fn run<CR, CW>(
    client_in: CR,
    client_out: CW,
    upstreams: Vec<Upstream>,
    opts: GatewayOptions,
) -> Ended
where
    CR: AsyncRead + Unpin + Send + 'static,
    CW: AsyncWrite + Unpin + Send + 'static,
{
    let (to_client, client_writer) = spawn_writer(client_out);
    let mut prefix = [0u8; 6];
    let _ = getrandom::fill(&mut prefix);
    let mut ups = Vec::new();
    let mut readers = Vec::new();
    let mut writers = Vec::new();
    for u in upstreams {
        let (tx, w) = spawn_writer(u.write);
        writers.push(w);
        readers.push(u.read);
        ups.push(Up {
            name: u.name,
            tx: Some(tx),
            alive: true,
            ready: false,
            caps: Value::Null,
            instructions: None,
        });
    }
    let mux = Arc::new(Mux {
        opts,
        prefix: hex::encode(prefix),
        st: Mutex::new(St {
            ups,
            pending: HashMap::new(),
            fans: HashMap::new(),
            by_client: HashMap::new(),
            server_reqs: HashMap::new(),
            server_reqs_rev: HashMap::new(),
            resources: HashMap::new(),
            templates: Vec::new(),
            client_initialized: false,
            next: 0,
        }),
        to_client: Mutex::new(Some(to_client)),
    });
    let mut up_tasks = tokio::task::JoinSet::new();
    for (i, r) in readers.into_iter().enumerate() {
        up_tasks.spawn(Arc::clone(&mux).upstream_loop(i, r));
    }
    let mut client = tokio::spawn(Arc::clone(&mux).client_loop(client_in));
    let ended = loop {
        tokio::select! {
            _ = &mut client => break Ended::ClientClosed,
            next = up_tasks.join_next() => {
                if next.is_none() || !mux.st().ups.iter().any(|u| u.alive) {
                    break Ended::ServerClosed;
                }
            }
        }
    };
    // Close every server session (their proxies close the servers' stdin), then the client.
    for u in &mut mux.st().ups {
        u.tx = None;
    }
    if ended == Ended::ClientClosed {
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while up_tasks.join_next().await.is_some() {}
        })
        .await;
    } else {
        client.abort();
    }
    up_tasks.abort_all();
    lock(&mux.to_client).take();
    let _ = tokio::time::timeout(Duration::from_secs(5), client_writer).await;
    for w in writers {
        let _ = tokio::time::timeout(Duration::from_secs(5), w).await;
    }
    ended
}

#[cfg(test)]
mod tests {
    //! The multiplexer alone, over in-memory duplex pairs: the test plays the client and two
    //! upstream proxy sessions message by message.

    use super::*;

    use crate::testpeer::Peer;

    fn rig() -> (Peer, Vec<Peer>, tokio::task::JoinHandle<Ended>) {
        let (client, gw_client) = tokio::io::duplex(1 << 16);
        let mut ups = Vec::new();
        let mut peers = Vec::new();
        for name in ["a", "b"] {
            let (mine, theirs) = tokio::io::duplex(1 << 16);
            let (r, w) = tokio::io::split(theirs);
            ups.push(Upstream {
                name: name.into(),
                read: Box::new(r),
                write: Box::new(w),
            });
            peers.push(Peer::new(mine));
        }
        let (cr, cw) = tokio::io::split(gw_client);
        let opts = GatewayOptions {
            fanout_timeout: Duration::from_secs(2),
            ..GatewayOptions::default()
        };
        let run = tokio::spawn(run(cr, cw, ups, opts));
        (Peer::new(client), peers, run)
    }

    async fn init(c: &mut Peer, ups: &mut [Peer]) {
        c.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t", "version": "1"}}}))
            .await;
        for (i, u) in ups.iter_mut().enumerate() {
            let req = u.recv().await;
            assert_eq!(req["method"], "initialize");
            assert_eq!(req["params"]["capabilities"]["elicitation"], json!({}));
            let v = if i == 0 { "2025-11-25" } else { "2025-06-18" };
            u.send(
                json!({"jsonrpc": "2.0", "id": req["id"], "result": {"protocolVersion": v,
                "capabilities": {"tools": {}}, "serverInfo": {"name": "x", "version": "1"}}}),
            )
            .await;
        }
        let r = c.recv().await;
        assert_eq!(r["id"], 0);
        assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(r["result"]["serverInfo"]["name"], "airlock-gateway");
    }

    #[tokio::test]
    async fn ids_never_collide_and_answers_and_cancellations_find_their_way() {
        let (mut c, mut ups, _run) = rig();
        init(&mut c, &mut ups).await;
        // Both servers ask the client something under the same id.
        for u in ups.iter_mut() {
            u.send(json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {"message": "m"}}))
                .await;
        }
        let first = c.recv().await;
        let second = c.recv().await;
        assert_ne!(first["id"], second["id"]);
        assert_ne!(first["id"], 1);
        // Answer in reverse order: each goes back to its own server under its own id.
        c.send(json!({"jsonrpc": "2.0", "id": second["id"], "result": {"action": "decline"}}))
            .await;
        c.send(json!({"jsonrpc": "2.0", "id": first["id"], "result": {"action": "accept"}}))
            .await;
        let (a, b) = (ups[0].recv().await, ups[1].recv().await);
        assert_eq!(a["id"], 1);
        assert_eq!(b["id"], 1);
        assert_ne!(a["result"]["action"], b["result"]["action"]);

        // A routed call, then its cancellation, both reach server b under the gateway id.
        c.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "b__slow", "arguments": {}, "_meta": {"progressToken": "p"}}, "x-keep": true}))
            .await;
        let call = ups[1].recv().await;
        assert_eq!(call["params"]["name"], "slow");
        assert_eq!(call["params"]["_meta"]["progressToken"], "p");
        assert_eq!(call["x-keep"], true);
        assert_ne!(call["id"], 7);
        ups[1]
            .send(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p", "progress": 1}}))
            .await;
        assert_eq!(c.recv().await["params"]["progress"], 1);
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}))
            .await;
        let cancel = ups[1].recv().await;
        assert_eq!(cancel["params"]["requestId"], call["id"]);

        // A server cancelling its own request toward the client is mapped too.
        ups[0]
            .send(json!({"jsonrpc": "2.0", "id": "q", "method": "roots/list"}))
            .await;
        let asked = c.recv().await;
        ups[0]
            .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "q"}}))
            .await;
        let cancelled = c.recv().await;
        assert_eq!(cancelled["params"]["requestId"], asked["id"]);
    }

    #[tokio::test]
    async fn lists_are_merged_across_pages_and_a_silent_server_is_left_out() {
        let (mut c, mut ups, _run) = rig();
        init(&mut c, &mut ups).await;
        c.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .await;
        let la = ups[0].recv().await;
        let _lb = ups[1].recv().await; // b never answers
        ups[0]
            .send(json!({"jsonrpc": "2.0", "id": la["id"], "result": {"tools": [{"name": "one"}, {"name": "airlock__status"}], "nextCursor": "c2"}}))
            .await;
        let la2 = ups[0].recv().await;
        assert_eq!(la2["params"]["cursor"], "c2");
        ups[0]
            .send(
                json!({"jsonrpc": "2.0", "id": la2["id"], "result": {"tools": [{"name": "two"}]}}),
            )
            .await;
        let r = c.recv().await;
        assert_eq!(r["id"], 2);
        let names: Vec<&str> = r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "a__one",
                "a__two",
                "airlock__status",
                "airlock__recent_decisions"
            ]
        );
        assert!(r["result"].get("nextCursor").is_none());
        // Unknown methods cannot be routed with two servers.
        c.send(json!({"jsonrpc": "2.0", "id": 3, "method": "vendor/x"}))
            .await;
        assert_eq!(c.recv().await["error"]["code"], code::METHOD_NOT_FOUND);
        // A duplicate pending id is refused.
        c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "a__one"}}))
            .await;
        let _ = ups[0].recv().await;
        c.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "a__one"}}))
            .await;
        assert_eq!(c.recv().await["error"]["code"], code::INVALID_REQUEST);
    }
}
