//! Helpers shared by the end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Path of the real `airlock` binary, built in this profile if it is not there yet.
pub fn airlock_bin() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // target/<profile>/deps/<test> → target/<profile>/airlock
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("cannot locate the target directory")?;
    let bin = dir.join(if cfg!(windows) {
        "airlock.exe"
    } else {
        "airlock"
    });
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // `cargo test` gives this process the test package's `CARGO_MANIFEST_DIR`, `CARGO_PKG_*`,
    // …; a build script that reruns when one of them changes (ring's does) would otherwise be
    // rebuilt, with everything above it, on every switch between `cargo test` and this build.
    for (k, _) in std::env::vars_os() {
        if let Some(k) = k.to_str()
            && (k.starts_with("CARGO_PKG_")
                || k.starts_with("CARGO_BIN_EXE_")
                || matches!(
                    k,
                    "CARGO_MANIFEST_DIR"
                        | "CARGO_MANIFEST_PATH"
                        | "CARGO_MANIFEST_LINKS"
                        | "CARGO_CRATE_NAME"
                        | "CARGO_BIN_NAME"
                        | "CARGO_PRIMARY_PACKAGE"
                        | "CARGO_TARGET_TMPDIR"
                        | "CARGO_RUSTC_CURRENT_DIR"
                        | "OUT_DIR"
                ))
        {
            cmd.env_remove(k);
        }
    }
    // `airlock serve`/`pins` hand over to `airlock-proxy`, installed next to it; the wiring
    // runs `airlock-hook` when it sits next to `airlock`.
    cmd.args([
        "build",
        "--quiet",
        "-p",
        "airlock-cli",
        "--bin",
        "airlock",
        "-p",
        "airlock-hook",
        "--bin",
        "airlock-hook",
        "--bin",
        "airlock-sh",
        "-p",
        "airlock-proxy",
        "--bin",
        "airlock-proxy",
    ]);
    if dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd
        .current_dir(root())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() || !bin.exists() {
        return Err(format!("could not build {}", bin.display()));
    }
    Ok(bin)
}

/// The table rows (non-empty cells, trimmed) between `<!-- NAME -->` and `<!-- /NAME -->` in
/// BENCHMARKS.md.
fn benchmark_block_rows(name: &str) -> Result<Vec<Vec<String>>, String> {
    let text = std::fs::read_to_string(root().join("BENCHMARKS.md")).map_err(|e| e.to_string())?;
    let start = text
        .find(&format!("<!-- {name} -->"))
        .ok_or(format!("no {name} block"))?;
    let end = text
        .find(&format!("<!-- /{name} -->"))
        .ok_or(format!("unterminated {name} block"))?;
    let block = text.get(start..end).ok_or("bad block")?;
    Ok(block
        .lines()
        .map(|line| {
            line.split('|')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect())
}

/// Thresholds recorded in BENCHMARKS.md: `| mode | ASR | FPR |` rows inside the
/// `<!-- eval-thresholds -->` block.
pub fn recorded_thresholds() -> Result<Vec<(String, f64, f64)>, String> {
    let mut out = Vec::new();
    for cells in benchmark_block_rows("eval-thresholds")? {
        if let [mode, asr, fpr, ..] = cells.as_slice()
            && let (Ok(a), Ok(f)) = (asr.parse::<f64>(), fpr.parse::<f64>())
        {
            out.push((mode.clone(), a, f));
        }
    }
    if out.is_empty() {
        return Err("no threshold rows".into());
    }
    Ok(out)
}

/// A throw-away user: a temp HOME with no XDG overrides, so Airlock's store and config land
/// inside it, and the real binary run as that user.
pub struct Sandbox {
    pub home: tempfile::TempDir,
    pub bin: PathBuf,
}

impl Sandbox {
    /// A user who has installed Airlock: the store exists (as after `airlock setup`), no
    /// password yet.
    pub fn new() -> Result<Sandbox, String> {
        let sb = Sandbox::bare()?;
        let (code, _, err) = sb.run(&["mode"], "");
        if code != 0 {
            return Err(format!("creating the store: {err}"));
        }
        Ok(sb)
    }

    /// A user on whose machine Airlock was never set up.
    pub fn bare() -> Result<Sandbox, String> {
        Ok(Sandbox {
            home: tempfile::tempdir().map_err(|e| e.to_string())?,
            bin: airlock_bin()?,
        })
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// `airlock <args>` as this user.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args)
            .env("HOME", self.home.path())
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("XDG_RUNTIME_DIR");
        c
    }

    /// Starts `airlock <args>` with `stdin` written to it (then closed) and every output
    /// piped, without waiting. A child that exits before reading all of `stdin` is not an
    /// error here: what it printed is what the caller checks.
    pub fn spawn(&self, args: &[&str], stdin: &str) -> std::io::Result<std::process::Child> {
        use std::io::Write as _;
        let mut child = self
            .cmd(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        if let Some(mut si) = child.stdin.take() {
            let _ = si.write_all(stdin.as_bytes());
        }
        Ok(child)
    }

    /// `airlock hook claude-code` with `payload`, not waited for: for calls a human answers
    /// meanwhile.
    pub fn spawn_hook(&self, payload: &str) -> std::io::Result<std::process::Child> {
        self.spawn(&["hook", "claude-code"], payload)
    }

    /// Run with `stdin` text; returns (exit code, stdout, stderr).
    pub fn run(&self, args: &[&str], stdin: &str) -> (i32, String, String) {
        let child = match self.spawn(args, stdin) {
            Ok(c) => c,
            Err(e) => return (-1, String::new(), e.to_string()),
        };
        match child.wait_with_output() {
            Ok(o) => (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout).into_owned(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            ),
            Err(e) => (-1, String::new(), e.to_string()),
        }
    }

    /// The audit log as `airlock log --json` prints it (newest last), one value per row.
    pub fn log_rows(&self) -> Result<Vec<serde_json::Value>, String> {
        let (code, out, err) = self.run(&["log", "--json", "--limit", "1000"], "");
        if code != 0 {
            return Err(err);
        }
        out.lines()
            .map(|l| serde_json::from_str(l).map_err(|e| e.to_string()))
            .collect()
    }

    /// Where this user's approval service listens (no XDG_RUNTIME_DIR in the sandbox).
    pub fn broker_socket(&self) -> PathBuf {
        self.home
            .path()
            .join(".local/share/airlock/run/broker.sock")
    }

    /// Where this user's guard service listens (started on demand by the first hook).
    pub fn guard_socket(&self) -> PathBuf {
        self.home.path().join(".local/share/airlock/run/guard.sock")
    }

    /// Path of the store database for this user (Linux layout of `directories`).
    pub fn db_path(&self) -> PathBuf {
        self.home.path().join(".local/share/airlock/airlock.db")
    }
}

impl Drop for Sandbox {
    /// Stops the guard service a hook may have started for this user.
    fn drop(&mut self) {
        stop_service(&self.guard_socket());
    }
}

/// Asks the guard service at `socket` to stop (no-op when none runs).
pub fn stop_service(socket: &Path) {
    use std::io::Write as _;
    if let Ok(mut s) = std::os::unix::net::UnixStream::connect(socket) {
        let _ = s.write_all(b"{\"type\":\"shutdown\"}\n");
        let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(2)));
        let mut buf = [0u8; 64];
        let _ = std::io::Read::read(&mut s, &mut buf);
    }
}

/// A Claude Code PreToolUse payload for a Bash command.
pub fn claude_bash(session: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command}
    })
    .to_string()
}

/// A Claude Code PostToolUse payload for a Read that returned `content`.
pub fn claude_read_result(session: &str, path: &str, content: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/home/dev/project",
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": path},
        "tool_response": {"type": "text", "file": {"filePath": path, "content": content}}
    })
    .to_string()
}

/// Per-family thresholds recorded in BENCHMARKS.md: `| family | mode | ASR | FPR | … |` rows
/// inside the `<!-- family-thresholds -->` block.
pub fn recorded_family_thresholds() -> Result<Vec<(String, String, f64, f64)>, String> {
    let mut out = Vec::new();
    for cells in benchmark_block_rows("family-thresholds")? {
        if let [family, mode, asr, fpr, ..] = cells.as_slice()
            && let (Ok(a), Ok(f)) = (asr.parse::<f64>(), fpr.parse::<f64>())
        {
            out.push((family.clone(), mode.clone(), a, f));
        }
    }
    if out.is_empty() {
        return Err("no family threshold rows".into());
    }
    Ok(out)
}

/// Prompt-injection screening thresholds recorded in BENCHMARKS.md: `| kind | split | attacks
/// | benign | ASR | FPR | … |` rows inside the `<!-- injection-thresholds -->` block, as
/// `(kind, split, ASR, FPR)`.
pub fn recorded_injection_thresholds() -> Result<Vec<(String, String, f64, f64)>, String> {
    let mut out = Vec::new();
    for cells in benchmark_block_rows("injection-thresholds")? {
        if let [kind, split, _attacks, _benign, asr, fpr, ..] = cells.as_slice()
            && let (Ok(a), Ok(f)) = (asr.parse::<f64>(), fpr.parse::<f64>())
        {
            out.push((kind.clone(), split.clone(), a, f));
        }
    }
    if out.is_empty() {
        return Err("no injection threshold rows".into());
    }
    Ok(out)
}

/// A minimal stdio MCP server (Python): answers `initialize`, lists the tools in the JSON file
/// named by its first argument (read at each `tools/list`, so a test can change them between
/// runs), and answers any other request with "method not found".
pub const FAKE_MCP_SERVER: &str = r#"
import json, sys
tools_file = sys.argv[1]
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    if method == "initialize":
        version = msg.get("params", {}).get("protocolVersion", "2025-06-18")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "fake", "version": "1"}}
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    elif method == "tools/list":
        with open(tools_file) as f:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": json.load(f)}}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"],
                 "error": {"code": -32601, "message": "Method not found"}}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"#;

impl Sandbox {
    /// Runs `airlock serve --name SERVER` in front of [`FAKE_MCP_SERVER`] serving `tools`,
    /// performs the MCP handshake and one `tools/list`, and returns the tools the client was
    /// shown (the proxy pins or hides each definition on the way).
    pub fn list_tools_via_proxy(
        &self,
        server: &str,
        tools: &serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        use std::io::{BufRead, BufReader, Write};
        let dir = self.home.path().join("fake-mcp");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let script = dir.join("server.py");
        std::fs::write(&script, FAKE_MCP_SERVER).map_err(|e| e.to_string())?;
        let tools_file = dir.join(format!("{server}.json"));
        std::fs::write(&tools_file, tools.to_string()).map_err(|e| e.to_string())?;
        let mut child = self
            .cmd(&["serve", "--name", server, "--", "python3"])
            .arg(&script)
            .arg(&tools_file)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let (Some(mut input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("no stdio".into());
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let send = |input: &mut std::process::ChildStdin, v: serde_json::Value| {
            writeln!(input, "{v}").map_err(|e| e.to_string())
        };
        let wait_for = |id: i64| -> Result<serde_json::Value, String> {
            loop {
                let line = rx
                    .recv_timeout(std::time::Duration::from_secs(30))
                    .map_err(|_| format!("no answer to request {id}"))?;
                let v: serde_json::Value =
                    serde_json::from_str(&line).map_err(|e| e.to_string())?;
                if v.get("id") == Some(&serde_json::json!(id)) {
                    return Ok(v);
                }
            }
        };
        send(
            &mut input,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "e2e", "version": "1"}}}),
        )?;
        wait_for(1)?;
        send(
            &mut input,
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )?;
        send(
            &mut input,
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        )?;
        let listed = wait_for(2)?;
        drop(input);
        let _ = child.wait();
        listed
            .pointer("/result/tools")
            .cloned()
            .ok_or_else(|| format!("tools/list failed: {listed}"))
    }
}
