#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code
//! The streamable-HTTP parts against REAL peers:
//!
//! * `airlock-proxy serve --listen` (the real binary) with `server-everything` (stdio) behind
//!   it, driven by the official `mcp` Python SDK's streamable-HTTP client and by raw HTTP;
//! * `http_remote::connect` against `server-everything streamableHttp` (a real remote), driven
//!   by a small line driver;
//! * `http_front::serve` in process with a scripted session, for the limits.
//!
//! Prerequisite: `proxy/tests/setup-peers.sh` (run by the first test if the peers are missing).
//! Every proxy runs as a throw-away user (HOME is a temp dir, XDG_* removed).

use std::io::{BufRead, BufReader as StdBufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_proxy::http_front::{self, FrontOptions, SessionFactory};
use airlock_proxy::http_remote::{self, RemoteOptions};
use airlock_store::{DecisionFilter, DecisionRow, Store};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

mod common;
use common::{
    GHP, conformance_bin, ensure_peers, everything_server, python, sandboxed, tests_dir,
    wait_with_timeout,
};

/// `airlock-proxy serve --listen 127.0.0.1:0 …` as a throw-away user; killed on drop.
struct Listening {
    home: tempfile::TempDir,
    child: Child,
    url: String,
    stderr: Arc<Mutex<String>>,
}

impl Listening {
    fn start(extra: &[&str], server: &[String]) -> Listening {
        let mut args: Vec<String> = vec!["serve".into(), "--listen".into(), "127.0.0.1:0".into()];
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        args.push("--".into());
        args.extend(server.iter().cloned());
        Listening::launch(tempfile::tempdir().unwrap(), &args)
    }

    /// Start `airlock-proxy <args…>` (which must listen) as a throw-away user in `home`.
    fn launch(home: tempfile::TempDir, args: &[String]) -> Listening {
        ensure_peers();
        let mut c = sandboxed(Path::new(env!("CARGO_BIN_EXE_airlock-proxy")), home.path());
        c.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let err = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let log = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in StdBufReader::new(err).lines() {
                let Ok(line) = line else { break };
                if let Some(u) = line.strip_prefix("airlock-proxy: listening on ") {
                    let _ = tx.send(u.trim().to_owned());
                }
                let mut l = log.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no listening line; stderr:\n{}", stderr.lock().unwrap()));
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
            "{url}"
        );
        Listening {
            home,
            child,
            url,
            stderr,
        }
    }

    fn everything(extra: &[&str]) -> Listening {
        let mut args = vec!["--name", "everything"];
        args.extend_from_slice(extra);
        Listening::start(&args, &[everything_server().to_string_lossy().into_owned()])
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn decisions(&self) -> Vec<DecisionRow> {
        let store = Store::open(&self.home.path().join(".local/share/airlock/airlock.db")).unwrap();
        let mut rows = store
            .recent_decisions(&DecisionFilter {
                limit: 100,
                ..Default::default()
            })
            .unwrap();
        rows.reverse();
        rows
    }

    /// Run the Python SDK client (streamable HTTP) with these steps.
    fn sdk(&self, elicit: &str, steps: Value) -> Vec<Value> {
        let mut c = sandboxed(&python(), self.home.path());
        c.arg(tests_dir().join("mcp_client.py"))
            .args(["--elicit", elicit, "--steps", &steps.to_string()])
            .args(["--url", &self.url])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = wait_with_timeout(c.spawn().unwrap(), Duration::from_secs(120));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "client failed ({}):\nstdout:\n{stdout}\nstderr:\n{}\nproxy stderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr),
            self.stderr()
        );
        stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn step(lines: &[Value], i: usize) -> &Value {
    lines
        .iter()
        .find(|l| l["step"] == i)
        .unwrap_or_else(|| panic!("no output for step {i}: {lines:?}"))
}

fn text(lines: &[Value], i: usize) -> String {
    step(lines, i)["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("step {i} has no content: {}", step(lines, i)))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn call(name: &str, args: Value) -> Value {
    json!({"op": "call", "name": name, "args": args})
}

// ---- (a) the Python SDK over streamable HTTP ---------------------------------------------

#[test]
fn python_sdk_over_http_lists_passes_blocks_and_gets_progress() {
    let p = Listening::everything(&[]);
    let lines = p.sdk(
        "none",
        json!([
            {"op": "list"},
            call("echo", json!({"message": "hi over http"})),
            // A live credential headed to a host nobody listed: a hard BLOCK.
            call("echo", json!({"message": format!("send {GHP} to https://evil.example/c")})),
            {"op": "call", "name": "trigger-long-running-operation", "args": {"duration": 1, "steps": 3}, "progress": true},
            call("airlock__status", json!({})),
        ]),
    );
    let names: Vec<&str> = step(&lines, 0)["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    assert!(
        names.contains(&"trigger-long-running-operation"),
        "{names:?}"
    );
    assert_eq!(
        names.last(),
        Some(&"airlock__recent_decisions"),
        "{names:?}"
    );
    assert!(names.contains(&"airlock__status"), "{names:?}");
    // PASS reaches the server: it echoes.
    assert_eq!(text(&lines, 1), "Echo: hi over http");
    // BLOCK never does: Airlock's answer, not the server's echo.
    let blocked = text(&lines, 2);
    assert_eq!(step(&lines, 2)["result"]["isError"], true, "{blocked}");
    assert!(blocked.starts_with("Blocked by Airlock: "), "{blocked}");
    assert!(
        !blocked.contains("Echo:") && !blocked.contains(GHP),
        "{blocked}"
    );
    // Server → client notifications travel on the POST's SSE stream.
    assert_eq!(step(&lines, 3)["progress"], json!([1.0, 2.0, 3.0]));
    let status = &step(&lines, 4)["result"]["structuredContent"];
    assert_eq!(status["server"], "everything");
    let rows = p.decisions();
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r.tool.as_str(), r.verdict.as_str(), r.outcome.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("mcp__everything__echo", "PASS", "passed"),
            ("mcp__everything__echo", "BLOCK", "blocked"),
            (
                "mcp__everything__trigger-long-running-operation",
                "PASS",
                "passed"
            ),
        ]
    );
    // The session id is the MCP session id: 128 random bits, hex.
    let sid = &rows[0].session_id;
    assert_eq!(sid.len(), 32, "{sid}");
    assert!(sid.bytes().all(|b| b.is_ascii_hexdigit()), "{sid}");
    assert!(rows.iter().all(|r| &r.session_id == sid));
    // A second client gets a session (and a session id) of its own.
    let again = p.sdk("none", json!([call("echo", json!({"message": "second"}))]));
    assert_eq!(text(&again, 0), "Echo: second");
    let rows = p.decisions();
    assert_eq!(rows.len(), 4);
    assert_ne!(&rows[3].session_id, sid);
    let all = serde_json::to_string(&rows).unwrap();
    assert!(!all.contains(GHP), "a payload reached the audit log");
}

// ---- (b) raw HTTP against the real binary --------------------------------------------

fn sse_messages(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

const BOTH: &str = "application/json, text/event-stream";

fn init_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"}}})
}

#[tokio::test]
async fn raw_http_origin_session_version_and_malformed_json() {
    let p = Listening::everything(&[]);
    let http = reqwest::Client::new();
    let post = |body: String| {
        http.post(&p.url)
            .header("content-type", "application/json")
            .header("accept", BOTH)
            .body(body)
    };

    // A browser page from another origin (DNS rebinding): 403, no session created.
    let r = post(init_body().to_string())
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get("mcp-session-id").is_none());
    // A rebound Host name: 403 as well.
    let r = post(init_body().to_string())
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // Unknown session: 404.
    let r = post(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}).to_string())
        .header("mcp-session-id", "0123456789abcdef0123456789abcdef")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // Sessionless ("stateless") request: 400 with a JSON-RPC error naming the id.
    let r = post(json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["id"], 7);
    assert_eq!(v["error"]["code"], -32600);
    // Unknown protocol version (e.g. a 2026-07-28 stateless request): 400, naming ours.
    let r = post(init_body().to_string())
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert!(
        v["error"]["data"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-06-18")),
        "{v}"
    );

    // A loopback page may talk to it: initialize → SSE answer with a session id.
    let r = post(init_body().to_string())
        .header("origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "http://localhost:5173"
    );
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    assert_eq!(sid.len(), 32);
    let msgs = sse_messages(&r.text().await.unwrap());
    let init = msgs
        .iter()
        .find(|m| m["id"] == 0)
        .expect("initialize result");
    let version = init["result"]["protocolVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let in_session = |body: String| {
        post(body)
            .header("mcp-session-id", &sid)
            .header("mcp-protocol-version", &version)
    };
    let r = in_session(json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    assert!(r.text().await.unwrap().is_empty());

    // Malformed JSON: 400 with a JSON-RPC parse error; the session keeps serving.
    let r = in_session("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": ".to_owned())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], -32700);
    // A batch: 400 too.
    let r = in_session("[]".to_owned()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    // JSON-only Accept: one application/json answer; pretty-printed bodies are fine.
    let list =
        serde_json::to_string_pretty(&json!({"jsonrpc":"2.0","id":"l1","method":"tools/list"}))
            .unwrap();
    let r = http
        .post(&p.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-session-id", &sid)
        .body(list)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["id"], "l1");
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"echo") && names.contains(&"airlock__status"),
        "{names:?}"
    );
    // A call in the session still works after the malformed one.
    let r = in_session(json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"message":"still here"}}}).to_string())
        .send()
        .await
        .unwrap();
    let msgs = sse_messages(&r.text().await.unwrap());
    let res = msgs.iter().find(|m| m["id"] == 4).expect("call result");
    assert_eq!(res["result"]["content"][0]["text"], "Echo: still here");
    // Other methods and paths.
    let r = http.put(&p.url).send().await.unwrap();
    assert_eq!(r.status(), 405);
    let r = http
        .post(p.url.replace("/mcp", "/other"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // DELETE ends the session: its id is unknown afterwards.
    let r = http
        .delete(&p.url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let r = in_session(json!({"jsonrpc":"2.0","id":5,"method":"tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let rows = p.decisions();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].session_id, sid);
}

#[test]
fn non_loopback_listen_is_refused() {
    let home = tempfile::tempdir().unwrap();
    for addr in ["0.0.0.0:0", "[::]:0", "8.8.8.8:80"] {
        let mut c = sandboxed(Path::new(env!("CARGO_BIN_EXE_airlock-proxy")), home.path());
        c.args(["serve", "--listen", addr, "--", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = wait_with_timeout(c.spawn().unwrap(), Duration::from_secs(30));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{addr}: {err}");
        assert!(err.contains("loopback"), "{addr}: {err}");
        assert!(!err.contains("listening on"), "{addr}: {err}");
    }
}

// ---- the front in process, with a scripted session ---------------------------------------

/// A scripted "proxy session": answers every request with `{"echo": method}`, sends a
/// `notifications/message` before answering `slow`, and sends `ping-me` server requests on
/// `kick`.
fn scripted() -> SessionFactory {
    Arc::new(|_sid: String, io: tokio::io::DuplexStream| {
        Box::pin(async move {
            let (rd, mut wr) = tokio::io::split(io);
            let mut lines = BufReader::new(rd).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                let v: Value = serde_json::from_str(&l).unwrap();
                let Some(id) = v.get("id").cloned() else {
                    continue;
                };
                let Some(method) = v["method"].as_str() else {
                    continue;
                };
                let mut out = String::new();
                if method == "slow" {
                    out.push_str(&json!({"jsonrpc":"2.0","method":"notifications/message","params":{"data":"working"}}).to_string());
                    out.push('\n');
                }
                if method == "kick" {
                    out.push_str(
                        &json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})
                            .to_string(),
                    );
                    out.push('\n');
                }
                out.push_str(
                    &json!({"jsonrpc":"2.0","id":id,"result":{"echo":method}}).to_string(),
                );
                out.push('\n');
                if wr.write_all(out.as_bytes()).await.is_err() {
                    break;
                }
            }
        })
    })
}

async fn in_process(opts: FrontOptions) -> String {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", l.local_addr().unwrap());
    tokio::spawn(http_front::serve(l, opts, scripted()));
    url
}

async fn initialize(http: &reqwest::Client, url: &str) -> String {
    let r = http
        .post(url)
        .header("accept", BOTH)
        .header("content-type", "application/json")
        .body(init_body().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let msgs = sse_messages(&r.text().await.unwrap());
    assert_eq!(msgs[0]["result"]["echo"], "initialize");
    sid
}

#[tokio::test]
async fn front_limits_streams_and_routing_in_process() {
    let url = in_process(FrontOptions {
        max_body: 4096,
        max_sessions: 2,
        ..FrontOptions::default()
    })
    .await;
    let http = reqwest::Client::new();
    let sid = initialize(&http, &url).await;
    let post = |sid: &str, body: String, accept: &str| {
        http.post(&url)
            .header("accept", accept)
            .header("content-type", "application/json")
            .header("mcp-session-id", sid)
            .body(body)
    };
    // A message on the POST's stream before its answer.
    let r = post(
        &sid,
        json!({"jsonrpc":"2.0","id":1,"method":"slow"}).to_string(),
        BOTH,
    )
    .send()
    .await
    .unwrap();
    let msgs = sse_messages(&r.text().await.unwrap());
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert_eq!(msgs[0]["method"], "notifications/message");
    assert_eq!(msgs[1]["result"]["echo"], "slow");
    // A server message while no stream is open waits in the backlog for the GET stream.
    let r = post(
        &sid,
        json!({"jsonrpc":"2.0","id":2,"method":"kick"}).to_string(),
        "application/json",
    )
    .send()
    .await
    .unwrap();
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["result"]["echo"], "kick");
    let mut get = http
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let chunk = tokio::time::timeout(Duration::from_secs(5), get.chunk())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let first = sse_messages(&String::from_utf8_lossy(&chunk));
    assert_eq!(first[0]["method"], "notifications/tools/list_changed");
    // Only one GET stream per session.
    let r = http
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 409);
    // While a JSON-mode request is open, server messages go to the GET stream.
    let r = post(
        &sid,
        json!({"jsonrpc":"2.0","id":3,"method":"slow"}).to_string(),
        "application/json",
    )
    .send()
    .await
    .unwrap();
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["result"]["echo"], "slow");
    let chunk = tokio::time::timeout(Duration::from_secs(5), get.chunk())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        sse_messages(&String::from_utf8_lossy(&chunk))[0]["method"],
        "notifications/message"
    );
    // Notifications and responses: 202.
    let r = post(
        &sid,
        json!({"jsonrpc":"2.0","id":"s1","result":{}}).to_string(),
        BOTH,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 202);
    // Bodies over the limit: 413, and the session keeps serving.
    let big = json!({"jsonrpc":"2.0","id":4,"method":"x","params":{"pad":"a".repeat(5000)}});
    let r = post(&sid, big.to_string(), BOTH).send().await.unwrap();
    assert_eq!(r.status(), 413);
    // Not acceptable / wrong media type.
    let r = post(
        &sid,
        json!({"jsonrpc":"2.0","id":5,"method":"x"}).to_string(),
        "text/html",
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 406);
    let r = http
        .post(&url)
        .header("accept", BOTH)
        .header("content-type", "text/plain")
        .header("mcp-session-id", &sid)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 415);
    // initialize inside a session: refused.
    let r = post(&sid, init_body().to_string(), BOTH)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = post(
        &sid,
        json!({"jsonrpc":"2.0","id":6,"method":"after"}).to_string(),
        BOTH,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(
        sse_messages(&r.text().await.unwrap())[0]["result"]["echo"],
        "after"
    );
    // The session limit: with both sessions busy (a GET stream open), 503 for a third.
    let second = initialize(&http, &url).await;
    let get2 = http
        .get(&url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &second)
        .send()
        .await
        .unwrap();
    assert_eq!(get2.status(), 200);
    let third = || {
        http.post(&url)
            .header("accept", BOTH)
            .header("content-type", "application/json")
            .body(init_body().to_string())
            .send()
    };
    assert_eq!(third().await.unwrap().status(), 503);
    // Once the second is idle, a new session replaces it (least recently used idle one).
    drop(get2);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = third().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = post(
        &second,
        json!({"jsonrpc":"2.0","id":1,"method":"x"}).to_string(),
        BOTH,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    // DELETE frees a slot and closes the GET stream.
    let r = http
        .delete(&url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let end = tokio::time::timeout(Duration::from_secs(5), get.chunk())
        .await
        .unwrap();
    assert!(matches!(end, Ok(None)), "{end:?}");
    let _third = initialize(&http, &url).await;
}

#[tokio::test]
async fn a_session_whose_proxy_ends_fails_pending_requests_and_then_404s() {
    // A factory whose session never answers and ends on `die`.
    let factory: SessionFactory = Arc::new(|_sid, io: tokio::io::DuplexStream| {
        Box::pin(async move {
            let (rd, mut wr) = tokio::io::split(io);
            let mut lines = BufReader::new(rd).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                let v: Value = serde_json::from_str(&l).unwrap();
                if v["method"] == "initialize" {
                    let a = json!({"jsonrpc":"2.0","id":v["id"],"result":{}});
                    wr.write_all(format!("{a}\n").as_bytes()).await.unwrap();
                }
                if v["method"] == "die" {
                    return;
                }
            }
        })
    });
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", l.local_addr().unwrap());
    tokio::spawn(http_front::serve(l, FrontOptions::default(), factory));
    let http = reqwest::Client::new();
    let r = http
        .post(&url)
        .header("accept", BOTH)
        .body(init_body().to_string())
        .send()
        .await
        .unwrap();
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let post = |body: Value| {
        http.post(&url)
            .header("accept", BOTH)
            .header("mcp-session-id", &sid)
            .body(body.to_string())
            .send()
    };
    let hanging = tokio::spawn(post(json!({"jsonrpc":"2.0","id":"h","method":"hang"})));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let _ = post(json!({"jsonrpc":"2.0","id":"d","method":"die"})).await;
    let r = tokio::time::timeout(Duration::from_secs(5), hanging)
        .await
        .expect("the pending request hung")
        .unwrap()
        .unwrap();
    let msgs = sse_messages(&r.text().await.unwrap());
    assert_eq!(msgs[0]["id"], "h");
    assert_eq!(msgs[0]["error"]["code"], -32603);
    let r = post(json!({"jsonrpc":"2.0","id":1,"method":"x"}))
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

// ---- (c) http_remote against a real streamable-HTTP server --------------------------------

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `server-everything streamableHttp` on a free port; killed on drop.
struct Remote {
    child: Child,
    url: String,
}

impl Remote {
    fn start() -> Remote {
        ensure_peers();
        let port = free_port();
        let child = Command::new(everything_server())
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "server-everything did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Remote {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A small line driver over the duplex `http_remote::connect` returns.
struct Driver {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    wr: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    seen: Vec<Value>,
}

impl Driver {
    async fn connect(url: &str) -> Driver {
        let headers = [("Authorization".to_owned(), "Bearer not-a-secret".to_owned())];
        let io = http_remote::connect(url, &headers, RemoteOptions::default())
            .await
            .unwrap();
        let (rd, wr) = tokio::io::split(io);
        Driver {
            lines: BufReader::new(rd).lines(),
            wr,
            seen: Vec::new(),
        }
    }

    async fn send(&mut self, v: Value) {
        self.wr
            .write_all(format!("{v}\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next line, or None at EOF; panics after `limit`.
    async fn next(&mut self, limit: Duration) -> Option<Value> {
        let l = tokio::time::timeout(limit, self.lines.next_line())
            .await
            .expect("no message from the remote in time (a hang)")
            .unwrap()?;
        Some(serde_json::from_str(&l).unwrap())
    }

    /// Everything up to the answer for `id`; other messages are kept in `seen`.
    async fn answer(&mut self, id: Value) -> Value {
        loop {
            let v = self
                .next(Duration::from_secs(30))
                .await
                .expect("EOF before the answer");
            if v["id"] == id && v.get("method").is_none() {
                return v;
            }
            self.seen.push(v);
        }
    }
}

#[tokio::test]
async fn http_remote_round_trip_and_the_remote_killed_mid_call() {
    let mut remote = Remote::start();
    let mut d = Driver::connect(&remote.url).await;
    d.send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"airlock-test","version":"0"}}}),
    )
    .await;
    let init = d.answer(json!(1)).await;
    assert!(init["result"]["protocolVersion"].is_string(), "{init}");
    assert!(init["result"]["serverInfo"]["name"].is_string(), "{init}");
    d.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    d.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))
        .await;
    let list = d.answer(json!(2)).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");
    d.send(json!({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"echo","arguments":{"message":"remote hi"}}}))
        .await;
    let r = d.answer(json!("c1")).await;
    assert_eq!(r["result"]["content"][0]["text"], "Echo: remote hi", "{r}");
    // Progress notifications arrive before the answer (SSE answer stream).
    d.send(json!({"jsonrpc":"2.0","id":"p1","method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":1,"steps":2},"_meta":{"progressToken":"tok"}}}))
        .await;
    let r = d.answer(json!("p1")).await;
    assert!(r["result"].is_object(), "{r}");
    let progress = d
        .seen
        .iter()
        .filter(|m| {
            m["method"] == "notifications/progress" && m["params"]["progressToken"] == "tok"
        })
        .count();
    assert_eq!(progress, 2, "{:?}", d.seen);

    // The remote killed mid-call: the pending call ends with an error, no hang.
    d.send(json!({"jsonrpc":"2.0","id":"k1","method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":30,"steps":30}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let started = Instant::now();
    remote.child.kill().unwrap();
    remote.child.wait().unwrap();
    let r = d.answer(json!("k1")).await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // The next request finds it gone for good: an error for it, then EOF.
    d.send(json!({"jsonrpc":"2.0","id":"after","method":"tools/list"}))
        .await;
    let r = d.answer(json!("after")).await;
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be reached"),
        "{r}"
    );
    loop {
        match d.next(Duration::from_secs(10)).await {
            None => break,
            Some(v) => assert!(v.get("method").is_some(), "unexpected {v}"),
        }
    }
}

// ---- (d) the MCP conformance suite ---------------------------------------------------------

/// The official conformance suite (server mode, active suite) against `serve --listen` with
/// server-everything behind it. `tests/conformance-baseline.yml` lists the scenarios that fail
/// for lack of the suite's fixtures in server-everything; the suite exits non-zero when any
/// other scenario fails (a regression) or a listed one passes (a stale baseline).
#[test]
fn mcp_conformance_suite_server_mode() {
    let p = Listening::everything(&[]);
    let out_dir = tempfile::tempdir().unwrap();
    let mut c = Command::new(conformance_bin());
    c.current_dir(out_dir.path())
        .args(["server", "--url", &p.url, "--expected-failures"])
        .arg(tests_dir().join("conformance-baseline.yml"))
        .args(["-o"])
        .arg(out_dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = wait_with_timeout(c.spawn().unwrap(), Duration::from_secs(240));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conformance regressions:\n{stdout}\n{}\nproxy stderr (tail):\n{}",
        String::from_utf8_lossy(&out.stderr),
        p.stderr()
            .lines()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .join("\n")
    );
    for must in [
        "server-initialize",
        "tools-list",
        "tools-call-error",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
    ] {
        assert!(
            stdout.lines().any(|l| l.contains(&format!("✓ {must}:"))),
            "{must} did not pass:\n{stdout}"
        );
    }
}

// ---- (d) the gateway with a streamable-HTTP remote ----------------------------------------

#[test]
fn gateway_reaches_a_streamable_http_remote_with_expanded_headers() {
    let remote = Remote::start();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.remote]\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer ${{REMOTE_TOKEN}}\" }}\n",
            remote.url
        ),
    )
    .unwrap();
    let steps = json!([
        {"op": "sleep", "s": 0.3},
        {"op": "list"},
        call("remote__echo", json!({"message": "over streamable http"})),
        call("remote__echo", json!({"message": "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 to https://evil.example"})),
    ]);
    let mut c = sandboxed(&python(), home.path());
    c.arg(tests_dir().join("mcp_client.py"))
        .args(["--elicit", "none", "--steps", &steps.to_string(), "--"])
        .arg(env!("CARGO_BIN_EXE_airlock-proxy"))
        .args(["gateway", "--config"])
        .arg(&config)
        .env("REMOTE_TOKEN", "t0ken")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = wait_with_timeout(c.spawn().unwrap(), Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let names: Vec<&str> = step(&lines, 1)["names"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        names.contains(&"remote__echo") && names.contains(&"airlock__status"),
        "{names:?}"
    );
    assert!(
        text(&lines, 2).contains("over streamable http"),
        "{}",
        text(&lines, 2)
    );
    // Judged like any other server: a secret on its way out never reaches the remote.
    assert_eq!(step(&lines, 3)["result"]["isError"], true);
    assert!(
        text(&lines, 3).starts_with("Blocked by Airlock: "),
        "{}",
        text(&lines, 3)
    );
    drop(remote);
}

#[test]
fn gateway_listens_over_http_with_one_gateway_per_session() {
    ensure_peers();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.everything]\ncommand = {:?}\n",
            everything_server().to_string_lossy()
        ),
    )
    .unwrap();
    let l = Listening::launch(
        home,
        &[
            "gateway".into(),
            "--config".into(),
            config.to_string_lossy().into_owned(),
            "--listen".into(),
            "127.0.0.1:0".into(),
        ],
    );
    let steps = json!([
        {"op": "list"},
        call("everything__echo", json!({"message": "gateway over http"})),
        call("airlock__status", json!({})),
    ]);
    let first = l.sdk("none", steps.clone());
    let names = step(&first, 0)["names"].to_string();
    assert!(
        names.contains("everything__echo") && names.contains("airlock__status"),
        "{names}"
    );
    assert!(
        text(&first, 1).contains("gateway over http"),
        "{}",
        text(&first, 1)
    );
    let s1 = step(&first, 2)["result"]["structuredContent"]["servers"][0]["session_id"].clone();
    let second = l.sdk("none", steps);
    let s2 = step(&second, 2)["result"]["structuredContent"]["servers"][0]["session_id"].clone();
    assert!(s1.is_string() && s2.is_string() && s1 != s2, "{s1} {s2}");
    let rows = l.decisions();
    assert!(
        rows.iter()
            .any(|r| r.tool == "mcp__everything__echo" && r.outcome.as_str() == "passed")
    );
}
