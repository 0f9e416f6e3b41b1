//! What the coding agents' own config files say: the MCP servers each agent starts, and the
//! documents `scan` checks for settings that let an agent act without asking.
//!
//! Read-only. Shared by `airlock init` (a gateway config from the servers found), `airlock
//! scan`, and anything else (the tray app) that wants to show the same picture. Every file is
//! parsed with serde — JSON with comments and trailing commas where the host accepts them
//! (VS Code, Cursor), TOML for Codex — and a file that cannot be parsed is reported as a
//! [`Problem`], never guessed at. A missing file is simply not there.
//!
//! Values read here can be secrets (an API key in `env`, a token in a header): [`McpServer`]
//! and [`Transport`] do not print them in `Debug`, and [`literal_secrets`] says *where* a
//! secret sits (`env GITHUB_TOKEN`), never what it is.
//!
//! Files read (home is an argument; nothing here reads the environment):
//!
//! | agent | MCP servers | other settings |
//! |---|---|---|
//! | Claude Code | `~/.claude.json` `mcpServers` (user) and `projects.<dir>.mcpServers` (local), `<project>/.mcp.json` | `~/.claude/settings.json`, `<project>/.claude/settings{,.local}.json` |
//! | Cursor | `~/.cursor/mcp.json`, `<project>/.cursor/mcp.json` (`mcpServers`) | `~/.cursor/cli-config.json`, `~/.cursor/permissions.json` |
//! | VS Code | `<user dir>/mcp.json` (`servers`), `<user dir>/settings.json` (`mcp.servers`), `<project>/.vscode/mcp.json` | `<user dir>/settings.json` |
//! | Gemini CLI | `~/.gemini/settings.json`, `<project>/.gemini/settings.json` (`mcpServers`) | the same files |
//! | Codex CLI | `~/.codex/config.toml`, `<project>/.codex/config.toml` (`[mcp_servers.*]`) | the same files |
//! | Copilot CLI | `~/.copilot/mcp-config.json` (`mcpServers`) | `~/.copilot/config.json` |
//! | Windsurf | `~/.codeium/windsurf/mcp_config.json` (`mcpServers`; remote: `serverUrl`) | — |
//! | Cline | `<VS Code user dir>/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`, `~/.cline/data/settings/cline_mcp_settings.json` (`mcpServers`; `type` or `transportType`) | — |
//! | OpenCode (MCP only here) | `~/.config/opencode/opencode.json{,c}`, `<project>/opencode.json{,c}`, `<project>/.opencode/opencode.json{,c}` (`mcp.<name>` (v1) or `mcp.servers.<name>` (v2): `type` `local` with `command` as an argv array and `environment`, or `remote` with `url`, `headers`) | — |
//! | Zed (MCP only, no hooks) | `~/.config/zed/settings.json`, `<project>/.zed/settings.json` (`context_servers`: `{command, args, env}`, the older `{command: {path, args, env}}`, or `{url, headers}`; extension servers have neither) | — |
//!
//! VS Code's user dir is `~/.config/Code/User` (Linux), `~/Library/Application
//! Support/Code/User` (macOS), and the same for `Code - Insiders`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

/// Agent names, as `airlock wire` and `airlock hook` spell them.
pub const CLAUDE_CODE: &str = "claude-code";
pub const CURSOR: &str = "cursor";
pub const VSCODE: &str = "vscode";
pub const GEMINI: &str = "gemini";
pub const CODEX: &str = "codex";
pub const COPILOT: &str = "copilot";
pub const WINDSURF: &str = "windsurf";
pub const CLINE: &str = "cline";
/// Zed: its agent reaches MCP servers (`context_servers`) but has no hook API.
pub const ZED: &str = "zed";
/// OpenCode: MCP servers in `opencode.json` (its hook API is an in-process JS plugin).
pub const OPENCODE: &str = "opencode";

/// Every agent this module reads, in a stable order.
pub const AGENTS: [&str; 10] = [
    CLAUDE_CODE,
    CURSOR,
    CODEX,
    GEMINI,
    COPILOT,
    VSCODE,
    WINDSURF,
    CLINE,
    ZED,
    OPENCODE,
];

/// The agent's name for people.
pub fn agent_title(agent: &str) -> &'static str {
    match agent {
        CLAUDE_CODE => "Claude Code",
        CURSOR => "Cursor",
        VSCODE => "VS Code",
        GEMINI => "Gemini CLI",
        CODEX => "Codex CLI",
        COPILOT => "Copilot CLI",
        WINDSURF => "Windsurf",
        CLINE => "Cline",
        ZED => "Zed",
        OPENCODE => "OpenCode",
        _ => "an agent",
    }
}

/// A config file that exists but could not be read or parsed (the message never quotes it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub agent: &'static str,
    pub path: PathBuf,
    pub message: String,
}

/// How an agent reaches one MCP server.
#[derive(Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP over its stdio.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    /// A remote server (`sse`: the old HTTP+SSE transport).
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        sse: bool,
    },
    /// Neither a command nor a URL (or something unreadable): shown, never started.
    Unusable(&'static str),
}

impl std::fmt::Debug for Transport {
    /// Never the values: arguments, environment and headers may hold secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Transport::Stdio { args, env, .. } => write!(
                f,
                "Stdio {{ {} args, env keys {:?} }}",
                args.len(),
                env.keys().collect::<Vec<_>>()
            ),
            Transport::Http { headers, sse, .. } => write!(
                f,
                "Http {{ sse: {sse}, header names {:?} }}",
                headers.keys().collect::<Vec<_>>()
            ),
            Transport::Unusable(why) => write!(f, "Unusable({why})"),
        }
    }
}

/// One MCP server an agent's config names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub agent: &'static str,
    /// The file it was found in.
    pub source: PathBuf,
    /// `user`, `project`, or `local <dir>` (Claude Code's per-project entries).
    pub scope: String,
    pub name: String,
    pub transport: Transport,
    /// Switched off in the agent's config.
    pub disabled: bool,
    /// Gemini CLI's `trust: true` (its tool calls run without confirmation).
    pub trusted: bool,
}

impl McpServer {
    /// Whether the agent reaches this server through Airlock's proxy (`airlock serve …`,
    /// `airlock gateway …`, `airlock-proxy …`).
    pub fn routed_through_airlock(&self) -> bool {
        match &self.transport {
            Transport::Stdio { command, args, .. } => airlock_invocation(command, args).is_some(),
            _ => false,
        }
    }
}

/// What an `airlock …` / `airlock-proxy …` server command runs: `serve` with the wrapped
/// command (and `--name`, if given), or `gateway`. `None` when it is not Airlock's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AirlockInvocation {
    Serve {
        name: Option<String>,
        inner: Vec<String>,
    },
    Gateway,
    Other,
}

pub fn airlock_invocation(command: &str, args: &[String]) -> Option<AirlockInvocation> {
    let program = Path::new(command)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(command)
        .trim_end_matches(".exe");
    if program != "airlock" && program != "airlock-proxy" {
        return None;
    }
    let sub = args.first().map(String::as_str);
    Some(match sub {
        Some("serve") => {
            let mut name = None;
            let mut it = args.iter().skip(1);
            let mut inner = Vec::new();
            while let Some(a) = it.next() {
                if a == "--" {
                    inner = it.cloned().collect();
                    break;
                }
                if a == "--name" {
                    name = it.next().cloned();
                } else if let Some(n) = a.strip_prefix("--name=") {
                    name = Some(n.to_owned());
                }
            }
            AirlockInvocation::Serve { name, inner }
        }
        Some("gateway") => AirlockInvocation::Gateway,
        _ => AirlockInvocation::Other,
    })
}

/// Everything found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub servers: Vec<McpServer>,
    pub problems: Vec<Problem>,
}

/// The config files of one agent, where they are and what they hold (parsed), for checks
/// that look at settings other than MCP servers.
#[derive(Debug, Clone)]
pub struct Document {
    pub agent: &'static str,
    pub path: PathBuf,
    /// `user` or `project`.
    pub scope: &'static str,
    pub value: Value,
}

/// Removes `//` and `/* */` comments and trailing commas outside strings (VS Code's and
/// Cursor's JSON-with-comments), so serde can read it. A leading byte-order mark goes too.
pub fn strip_jsonc(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    if n == '\n' {
                        out.push('\n');
                    }
                    prev = n;
                }
                out.push(' ');
            }
            '}' | ']' => {
                let kept = out.trim_end().len();
                if kept > 0 && out.get(..kept).is_some_and(|t| t.ends_with(',')) {
                    out.replace_range(kept - 1..kept, " ");
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Reads a JSON (or JSON-with-comments) file: `Ok(None)` when it does not exist.
pub fn read_json(path: &Path) -> Result<Option<Value>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => serde_json::from_str(&strip_jsonc(&text))
            .map(Some)
            .map_err(|e| format!("not valid JSON ({e})")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read it ({e})")),
    }
}

/// Reads a TOML file as a JSON value: `Ok(None)` when it does not exist.
pub fn read_toml(path: &Path) -> Result<Option<Value>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let table: toml::Table = toml::from_str(&text).map_err(|e| {
                // The TOML error quotes the offending line; say only where it is.
                match e.span() {
                    Some(span) => format!(
                        "not valid TOML (line {})",
                        text.get(..span.start)
                            .map_or(0, |t| t.lines().count().max(1))
                    ),
                    None => "not valid TOML".to_owned(),
                }
            })?;
            serde_json::to_value(table)
                .map(Some)
                .map_err(|_| "not representable as data".to_owned())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read it ({e})")),
    }
}

/// VS Code's user settings directories that exist under `home`.
pub fn vscode_user_dirs(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for flavour in ["Code", "Code - Insiders", "VSCodium"] {
        for base in [
            home.join(".config"),
            home.join("Library").join("Application Support"),
        ] {
            let dir = base.join(flavour).join("User");
            if dir.is_dir() {
                out.push(dir);
            }
        }
    }
    out
}

/// Where each agent keeps its settings (not its MCP servers): `(agent, path, scope, toml)`.
fn settings_files(
    home: &Path,
    project: Option<&Path>,
) -> Vec<(&'static str, PathBuf, &'static str, bool)> {
    let mut v = vec![
        (
            CLAUDE_CODE,
            home.join(".claude").join("settings.json"),
            "user",
            false,
        ),
        (
            CURSOR,
            home.join(".cursor").join("cli-config.json"),
            "user",
            false,
        ),
        (
            CURSOR,
            home.join(".cursor").join("permissions.json"),
            "user",
            false,
        ),
        (
            GEMINI,
            home.join(".gemini").join("settings.json"),
            "user",
            false,
        ),
        (CODEX, home.join(".codex").join("config.toml"), "user", true),
        (
            COPILOT,
            home.join(".copilot").join("config.json"),
            "user",
            false,
        ),
    ];
    for dir in vscode_user_dirs(home) {
        v.push((VSCODE, dir.join("settings.json"), "user", false));
    }
    if let Some(p) = project {
        v.push((
            CLAUDE_CODE,
            p.join(".claude").join("settings.json"),
            "project",
            false,
        ));
        v.push((
            CLAUDE_CODE,
            p.join(".claude").join("settings.local.json"),
            "project",
            false,
        ));
        v.push((CURSOR, p.join(".cursor").join("cli.json"), "project", false));
        v.push((
            CURSOR,
            p.join(".cursor").join("permissions.json"),
            "project",
            false,
        ));
        v.push((
            GEMINI,
            p.join(".gemini").join("settings.json"),
            "project",
            false,
        ));
        v.push((CODEX, p.join(".codex").join("config.toml"), "project", true));
        v.push((
            VSCODE,
            p.join(".vscode").join("settings.json"),
            "project",
            false,
        ));
    }
    v
}

/// Every agent settings file that exists, parsed; the unreadable ones as problems.
pub fn settings_documents(home: &Path, project: Option<&Path>) -> (Vec<Document>, Vec<Problem>) {
    let mut docs = Vec::new();
    let mut problems = Vec::new();
    for (agent, path, scope, is_toml) in settings_files(home, project) {
        let read = if is_toml {
            read_toml(&path)
        } else {
            read_json(&path)
        };
        match read {
            Ok(Some(value)) => docs.push(Document {
                agent,
                path,
                scope,
                value,
            }),
            Ok(None) => {}
            Err(message) => problems.push(Problem {
                agent,
                path,
                message,
            }),
        }
    }
    (docs, problems)
}

/// The MCP server entry shapes the agents use (a superset: each agent uses some fields).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawEntry {
    /// `type`; Cline's older entries say `transportType`.
    #[serde(rename = "type", alias = "transportType")]
    kind: Option<String>,
    command: Option<String>,
    args: Vec<Value>,
    env: BTreeMap<String, Value>,
    cwd: Option<String>,
    /// Windsurf spells it `serverUrl`.
    #[serde(alias = "serverUrl")]
    url: Option<String>,
    /// Gemini CLI: the streamable-HTTP endpoint (`url` is its SSE endpoint).
    #[serde(rename = "httpUrl")]
    http_url: Option<String>,
    #[serde(alias = "http_headers")]
    headers: BTreeMap<String, Value>,
    disabled: Option<bool>,
    enabled: Option<bool>,
    trust: Option<bool>,
    /// Codex: the environment variable holding a bearer token.
    bearer_token_env_var: Option<String>,
    /// Codex: header → environment variable.
    env_http_headers: BTreeMap<String, String>,
    /// Codex: variables passed through from the environment.
    env_vars: Vec<Value>,
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Which agent's conventions an entry follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Standard,
    Gemini,
    Codex,
    /// Zed's `context_servers`: the older entries nest the command as `{path, args, env}`.
    Zed,
    /// OpenCode's `mcp`: `command` is an argv array, `environment` the env, `type` is `local`
    /// or `remote`.
    OpenCode,
}

fn transport_of(e: &RawEntry, dialect: Dialect) -> Transport {
    let kind = e.kind.as_deref().map(str::to_ascii_lowercase);
    let mut env = BTreeMap::new();
    for (k, v) in &e.env {
        match text_of(v) {
            Some(t) => {
                env.insert(k.clone(), t);
            }
            None => return Transport::Unusable("an `env` value is not text"),
        }
    }
    for v in &e.env_vars {
        // Passed through from the agent's environment under the same name.
        if let Some(name) = v.as_str().or_else(|| v.get("name").and_then(Value::as_str)) {
            env.entry(name.to_owned())
                .or_insert_with(|| format!("${{{name}}}"));
        }
    }
    let mut headers = BTreeMap::new();
    for (k, v) in &e.headers {
        match text_of(v) {
            Some(t) => {
                headers.insert(k.clone(), t);
            }
            None => return Transport::Unusable("a header value is not text"),
        }
    }
    for (h, var) in &e.env_http_headers {
        headers.insert(h.clone(), format!("${{{var}}}"));
    }
    if let Some(var) = &e.bearer_token_env_var {
        headers.insert("Authorization".to_owned(), format!("Bearer ${{{var}}}"));
    }
    let http = |url: &str, sse: bool| Transport::Http {
        url: url.to_owned(),
        headers: headers.clone(),
        sse,
    };
    let url = e.http_url.as_deref().or(e.url.as_deref());
    match (kind.as_deref(), &e.command, url) {
        (None | Some("stdio" | "local"), Some(command), _) => {
            let mut args = Vec::new();
            for a in &e.args {
                match text_of(a) {
                    Some(t) => args.push(t),
                    None => return Transport::Unusable("an argument is not text"),
                }
            }
            Transport::Stdio {
                command: command.clone(),
                args,
                env,
                cwd: e.cwd.clone(),
            }
        }
        (Some("sse"), None, Some(u)) => http(u, true),
        (Some("http" | "streamable-http" | "streamablehttp"), None, Some(u)) => http(u, false),
        (None, None, Some(_)) => match (dialect, &e.http_url, &e.url) {
            (_, Some(u), _) => http(u, false),
            // Gemini CLI: a bare `url` is its SSE endpoint.
            (Dialect::Gemini, None, Some(u)) => http(u, true),
            (_, None, Some(u)) => http(u, false),
            (_, None, None) => Transport::Unusable("no command and no URL"),
        },
        (Some(_), _, _) if e.command.is_some() && url.is_some() => {
            Transport::Unusable("both a command and a URL")
        }
        (Some(_), None, None) | (None, None, None) => Transport::Unusable("no command and no URL"),
        _ => Transport::Unusable("an unknown server type"),
    }
}

struct Origin<'a> {
    agent: &'static str,
    source: &'a Path,
    scope: String,
    dialect: Dialect,
}

/// Zed's older entry shape, `{"command": {"path", "args", "env"}}`, as the flat one.
fn zed_flattened(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(obj) = v.as_object_mut()
        && let Some(Value::Object(cmd)) = obj.get("command").cloned()
    {
        obj.remove("command");
        for (from, to) in [("path", "command"), ("args", "args"), ("env", "env")] {
            if let Some(x) = cmd.get(from) {
                obj.insert(to.to_owned(), x.clone());
            }
        }
    }
    v
}

/// OpenCode's entry shape as the common one: `command: [program, args…]` split,
/// `environment` as `env`, `local`/`remote` as `stdio`/`http`.
fn opencode_flattened(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(obj) = v.as_object_mut() {
        if let Some(Value::Array(argv)) = obj.get("command").cloned() {
            let mut it = argv.into_iter();
            match it.next() {
                Some(program) => {
                    obj.insert("command".to_owned(), program);
                    obj.insert("args".to_owned(), Value::Array(it.collect()));
                }
                None => {
                    obj.remove("command");
                }
            }
        }
        if let Some(env) = obj.remove("environment") {
            obj.insert("env".to_owned(), env);
        }
        let kind = match obj.get("type").and_then(Value::as_str) {
            Some("local") => Some("stdio"),
            Some("remote") => Some("http"),
            _ => None,
        };
        if let Some(k) = kind {
            obj.insert("type".to_owned(), Value::String(k.to_owned()));
        }
    }
    v
}

/// OpenCode v2 nests the servers under `mcp.servers`; v1 names them directly under `mcp`.
fn opencode_servers(mcp: &Map<String, Value>) -> &Map<String, Value> {
    match mcp.get("servers").and_then(Value::as_object) {
        Some(inner)
            if !["type", "command", "url"]
                .iter()
                .any(|k| inner.contains_key(*k)) =>
        {
            inner
        }
        _ => mcp,
    }
}

fn servers_from_map(map: &Map<String, Value>, o: &Origin<'_>, d: &mut Discovery) {
    let map = if o.dialect == Dialect::OpenCode {
        opencode_servers(map)
    } else {
        map
    };
    for (name, v) in map {
        let v = match o.dialect {
            Dialect::Zed => zed_flattened(v),
            Dialect::OpenCode => opencode_flattened(v),
            _ => v.clone(),
        };
        let entry: RawEntry = match serde_json::from_value(v) {
            Ok(e) => e,
            Err(_) => {
                d.problems.push(Problem {
                    agent: o.agent,
                    path: o.source.to_path_buf(),
                    message: format!("the MCP server `{name}` has an unexpected shape; skipped"),
                });
                continue;
            }
        };
        let disabled = entry.disabled == Some(true) || entry.enabled == Some(false);
        d.servers.push(McpServer {
            agent: o.agent,
            source: o.source.to_path_buf(),
            scope: o.scope.clone(),
            name: name.clone(),
            transport: transport_of(&entry, o.dialect),
            disabled,
            trusted: entry.trust == Some(true),
        });
    }
}

fn object_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Map<String, Value>> {
    let mut cur = v;
    for k in path {
        cur = cur.get(*k)?;
    }
    cur.as_object()
}

/// A file that may name MCP servers, and where in it they are.
struct ServerFile {
    agent: &'static str,
    path: PathBuf,
    scope: &'static str,
    /// Key path to the server map.
    keys: &'static [&'static str],
    dialect: Dialect,
    toml: bool,
}

/// Finds the MCP servers in every agent config under `home` (and `project`, the directory
/// the agents would run in).
pub fn discover(home: &Path, project: Option<&Path>) -> Discovery {
    let mut d = Discovery::default();
    let f = |agent, path, scope, keys, dialect, toml| ServerFile {
        agent,
        path,
        scope,
        keys,
        dialect,
        toml,
    };
    let mut files = vec![
        f(
            CLAUDE_CODE,
            home.join(".claude.json"),
            "user",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ),
        f(
            CURSOR,
            home.join(".cursor").join("mcp.json"),
            "user",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ),
        f(
            GEMINI,
            home.join(".gemini").join("settings.json"),
            "user",
            &["mcpServers"],
            Dialect::Gemini,
            false,
        ),
        f(
            CODEX,
            home.join(".codex").join("config.toml"),
            "user",
            &["mcp_servers"],
            Dialect::Codex,
            true,
        ),
        f(
            COPILOT,
            home.join(".copilot").join("mcp-config.json"),
            "user",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ),
        f(
            WINDSURF,
            home.join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            "user",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ),
        f(
            CLINE,
            home.join(".cline")
                .join("data")
                .join("settings")
                .join("cline_mcp_settings.json"),
            "user",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ),
        f(
            ZED,
            home.join(".config").join("zed").join("settings.json"),
            "user",
            &["context_servers"],
            Dialect::Zed,
            false,
        ),
    ];
    for name in ["opencode.json", "opencode.jsonc"] {
        files.push(f(
            OPENCODE,
            home.join(".config").join("opencode").join(name),
            "user",
            &["mcp"],
            Dialect::OpenCode,
            false,
        ));
    }
    for dir in vscode_user_dirs(home) {
        files.push(f(
            CLINE,
            dir.join("globalStorage")
                .join("saoudrizwan.claude-dev")
                .join("settings")
                .join("cline_mcp_settings.json"),
            "user",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ));
        files.push(f(
            VSCODE,
            dir.join("mcp.json"),
            "user",
            &["servers"],
            Dialect::Standard,
            false,
        ));
        files.push(f(
            VSCODE,
            dir.join("settings.json"),
            "user",
            &["mcp.servers"],
            Dialect::Standard,
            false,
        ));
    }
    if let Some(p) = project {
        files.push(f(
            CLAUDE_CODE,
            p.join(".mcp.json"),
            "project",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ));
        files.push(f(
            CURSOR,
            p.join(".cursor").join("mcp.json"),
            "project",
            &["mcpServers"],
            Dialect::Standard,
            false,
        ));
        files.push(f(
            GEMINI,
            p.join(".gemini").join("settings.json"),
            "project",
            &["mcpServers"],
            Dialect::Gemini,
            false,
        ));
        files.push(f(
            CODEX,
            p.join(".codex").join("config.toml"),
            "project",
            &["mcp_servers"],
            Dialect::Codex,
            true,
        ));
        files.push(f(
            VSCODE,
            p.join(".vscode").join("mcp.json"),
            "project",
            &["servers"],
            Dialect::Standard,
            false,
        ));
        files.push(f(
            ZED,
            p.join(".zed").join("settings.json"),
            "project",
            &["context_servers"],
            Dialect::Zed,
            false,
        ));
        for name in ["opencode.json", "opencode.jsonc"] {
            for dir in [p.to_path_buf(), p.join(".opencode")] {
                files.push(f(
                    OPENCODE,
                    dir.join(name),
                    "project",
                    &["mcp"],
                    Dialect::OpenCode,
                    false,
                ));
            }
        }
    }
    for ServerFile {
        agent,
        path,
        scope,
        keys,
        dialect,
        toml: is_toml,
    } in files
    {
        let read = if is_toml {
            read_toml(&path)
        } else {
            read_json(&path)
        };
        let value = match read {
            Ok(Some(v)) => v,
            Ok(None) => continue,
            Err(message) => {
                d.problems.push(Problem {
                    agent,
                    path,
                    message,
                });
                continue;
            }
        };
        let origin = Origin {
            agent,
            source: &path,
            scope: scope.to_owned(),
            dialect,
        };
        // VS Code's settings name it `"mcp.servers"` or nest it as `"mcp": {"servers"}`.
        let map = object_at(&value, keys).or_else(|| match keys {
            ["mcp.servers"] => object_at(&value, &["mcp", "servers"]),
            _ => None,
        });
        if let Some(map) = map {
            servers_from_map(map, &origin, &mut d);
        }
        // Claude Code keeps per-project ("local") servers in ~/.claude.json too.
        if agent == CLAUDE_CODE
            && scope == "user"
            && let Some(projects) = object_at(&value, &["projects"])
        {
            for (dir, p) in projects {
                if let Some(map) = object_at(p, &["mcpServers"]) {
                    let local = Origin {
                        scope: format!("local {dir}"),
                        ..origin
                    };
                    servers_from_map(map, &local, &mut d);
                }
            }
        }
    }
    d
}

/// Names of variables or header fields that usually hold a secret.
pub fn secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "apikey",
        "api_key",
        "api-key",
        "access_key",
        "private",
        "credential",
        "auth",
        "cookie",
        "session",
        "bearer",
    ]
    .iter()
    .any(|w| n.contains(w))
        || n.ends_with("_key")
        || n.ends_with("-key")
        || n == "key"
}

/// `${VAR}` references in a value (any of the agents' spellings: `${VAR}`, `${env:VAR}`,
/// `${VAR:-default}`): the text with them taken out, and the referenced names.
fn without_references(s: &str) -> (String, Vec<String>) {
    let mut literal = String::new();
    let mut names = Vec::new();
    let mut rest = s;
    while let Some(pos) = rest.find("${") {
        literal.push_str(rest.get(..pos).unwrap_or_default());
        let after = rest.get(pos + 2..).unwrap_or_default();
        match after.find('}') {
            Some(end) => {
                names.push(after.get(..end).unwrap_or_default().to_owned());
                rest = after.get(end + 1..).unwrap_or_default();
            }
            None => {
                literal.push_str(rest.get(pos..).unwrap_or_default());
                rest = "";
            }
        }
    }
    literal.push_str(rest);
    (literal, names)
}

/// Whether literal text (references excluded) looks like a secret: a known token format,
/// credentials in a URL, a secret-named query parameter or `--flag=value`, or a long random
/// string.
pub fn looks_secret(scanner: Option<&airlock_engine::SecretScanner>, text: &str) -> bool {
    let (literal, _) = without_references(text);
    let t = literal.trim();
    if t.is_empty() {
        return false;
    }
    if scanner.is_some_and(|s| s.contains_secret(t)) {
        return true;
    }
    if let Ok(u) = url::Url::parse(t)
        && u.has_host()
    {
        if u.password().is_some() {
            return true;
        }
        if u.query_pairs()
            .any(|(k, v)| secret_name(&k) && !v.is_empty())
        {
            return true;
        }
        return false;
    }
    if let Some((flag, value)) = t.split_once('=')
        && flag.starts_with('-')
    {
        return secret_name(flag) && !value.is_empty();
    }
    // A long unbroken random-looking string (a token of a format nobody listed).
    t.len() >= 24
        && !t.contains(['/', '\\', ' ', '.'])
        && airlock_engine::secrets::entropy(t) >= 4.0
}

/// Where this server's config holds a secret value in plain text: `env NAME`, `header NAME`,
/// `argument N`, `url`. Never the value.
pub fn literal_secrets(
    scanner: Option<&airlock_engine::SecretScanner>,
    s: &McpServer,
) -> Vec<String> {
    let mut out = Vec::new();
    let is_literal = |v: &str| !without_references(v).0.trim().is_empty();
    match &s.transport {
        Transport::Stdio { args, env, .. } => {
            for (k, v) in env {
                if is_literal(v) && (secret_name(k) || looks_secret(scanner, v)) {
                    out.push(format!("env {k}"));
                }
            }
            let mut prev: Option<&str> = None;
            for (i, a) in args.iter().enumerate() {
                let after_secret_flag =
                    prev.is_some_and(|p| p.starts_with('-') && !p.contains('=') && secret_name(p));
                if is_literal(a) && (after_secret_flag || looks_secret(scanner, a)) {
                    out.push(format!("argument {}", i + 1));
                }
                prev = Some(a);
            }
        }
        Transport::Http { url, headers, .. } => {
            if looks_secret(scanner, url) {
                out.push("url".to_owned());
            }
            for (k, v) in headers {
                let (literal, _) = without_references(v);
                let literal = literal
                    .trim()
                    .trim_start_matches("Bearer")
                    .trim_start_matches("Basic")
                    .trim();
                if !literal.is_empty() && (secret_name(k) || looks_secret(scanner, v)) {
                    out.push(format!("header {k}"));
                }
            }
        }
        Transport::Unusable(_) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_are_removed_outside_strings() {
        let text = "\u{feff}{\n // a comment\n \"a\": \"x // not a comment\", /* block\n */ \"b\": [1, 2,],\n \"c\": \"/* kept */\",\n}";
        let v: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": "x // not a comment", "b": [1, 2], "c": "/* kept */"})
        );
        let esc = r#"{"a": "quote \" // still a string",}"#;
        let v: Value = serde_json::from_str(&strip_jsonc(esc)).unwrap();
        assert_eq!(v["a"], "quote \" // still a string");
    }

    #[test]
    fn finds_windsurf_cline_zed_and_opencode_servers() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let proj = h.join("work");
        write(
            &h.join(".codeium/windsurf/mcp_config.json"),
            r#"{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GITHUB_TOKEN": "t"}},
                "remote": {"serverUrl": "https://w.example/mcp", "headers": {"Authorization": "Bearer x"}},
                "off": {"command": "x", "disabled": true}}}"#,
        );
        write(
            &h.join(".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"),
            r#"{"mcpServers": {"fs": {"command": "node", "args": ["fs.js"], "autoApprove": [], "disabled": false},
                "sse": {"url": "https://c.example/sse", "transportType": "sse"},
                "http": {"type": "streamableHttp", "url": "https://c.example/mcp"}}}"#,
        );
        write(
            &h.join(".cline/data/settings/cline_mcp_settings.json"),
            r#"{"mcpServers": {"cli": {"command": "uvx", "args": ["srv"]}}}"#,
        );
        write(
            &h.join(".config/zed/settings.json"),
            r#"{ // Zed
 "context_servers": {
  "new": {"source": "custom", "command": "some-command", "args": ["a"], "env": {}},
  "old": {"command": {"path": "/usr/bin/old", "args": ["b"], "env": {"K": "v"}}, "settings": {}},
  "ext": {"source": "extension", "settings": {}},
  "url": {"url": "https://z.example/mcp"},
 },
 "theme": "One Dark"}"#,
        );
        write(
            &proj.join(".zed/settings.json"),
            r#"{"context_servers": {"proj": {"command": "p", "enabled": false}}}"#,
        );
        write(
            &h.join(".config/opencode/opencode.json"),
            r#"{"$schema": "https://opencode.ai/config.json", "mcp": {
                "everything": {"type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-everything"], "environment": {"K": "v"}},
                "jira": {"type": "remote", "url": "https://jira.example.com/mcp", "enabled": false, "headers": {"Authorization": "Bearer x"}}}}"#,
        );
        write(
            &proj.join(".opencode/opencode.jsonc"),
            "{\"mcp\": {\"servers\": {\"v2\": {\"type\": \"local\", \"command\": [\"npx\", \"-y\", \"example-mcp-server\"],},},},}",
        );
        let d = discover(h, Some(&proj));
        let mut got: Vec<(String, String, String, bool)> = d
            .servers
            .iter()
            .map(|s| {
                let t = match &s.transport {
                    Transport::Stdio { command, args, .. } => {
                        format!("stdio {command} {}", args.join(" "))
                    }
                    Transport::Http { url, sse, .. } => format!("http {url} sse={sse}"),
                    Transport::Unusable(w) => format!("unusable {w}"),
                };
                (
                    format!("{}/{}", s.agent, s.name),
                    s.scope.clone(),
                    t,
                    s.disabled,
                )
            })
            .collect();
        got.sort();
        let mut want: Vec<(String, String, String, bool)> = [
            ("windsurf/gh", "user", "stdio npx -y gh-mcp", false),
            (
                "windsurf/remote",
                "user",
                "http https://w.example/mcp sse=false",
                false,
            ),
            ("windsurf/off", "user", "stdio x ", true),
            ("cline/fs", "user", "stdio node fs.js", false),
            (
                "cline/sse",
                "user",
                "http https://c.example/sse sse=true",
                false,
            ),
            (
                "cline/http",
                "user",
                "http https://c.example/mcp sse=false",
                false,
            ),
            ("cline/cli", "user", "stdio uvx srv", false),
            ("zed/new", "user", "stdio some-command a", false),
            ("zed/old", "user", "stdio /usr/bin/old b", false),
            ("zed/ext", "user", "unusable no command and no URL", false),
            (
                "zed/url",
                "user",
                "http https://z.example/mcp sse=false",
                false,
            ),
            ("zed/proj", "project", "stdio p ", true),
            (
                "opencode/everything",
                "user",
                "stdio npx -y @modelcontextprotocol/server-everything",
                false,
            ),
            (
                "opencode/jira",
                "user",
                "http https://jira.example.com/mcp sse=false",
                true,
            ),
            (
                "opencode/v2",
                "project",
                "stdio npx -y example-mcp-server",
                false,
            ),
        ]
        .iter()
        .map(|(a, b, c, d)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned(), *d))
        .collect();
        want.sort();
        assert_eq!(got, want);
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        for a in [WINDSURF, CLINE, ZED, OPENCODE] {
            assert!(AGENTS.contains(&a));
            assert_ne!(agent_title(a), "an agent");
        }
    }

    #[test]
    fn finds_every_agents_servers_with_their_transports() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let proj = h.join("work");
        write(
            &h.join(".claude.json"),
            r#"{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh-mcp", 3], "env": {"GITHUB_TOKEN": "ghp_x"}}},
                "projects": {"/p": {"mcpServers": {"db": {"type": "http", "url": "https://db.example/mcp"}}}}}"#,
        );
        write(
            &proj.join(".mcp.json"),
            r#"{"mcpServers": {"fs": {"command": "airlock", "args": ["serve", "--name", "fs", "--", "npx", "fs-mcp"]}}}"#,
        );
        write(
            &h.join(".cursor/mcp.json"),
            "{\"mcpServers\": {\"remote\": {\"url\": \"https://r.example/mcp\", \"headers\": {\"Authorization\": \"Bearer abc\"}},}} // c",
        );
        write(
            &h.join(".gemini/settings.json"),
            r#"{"mcpServers": {"old": {"url": "https://o.example/sse"}, "new": {"httpUrl": "https://n.example/mcp", "trust": true}}}"#,
        );
        write(
            &h.join(".codex/config.toml"),
            "[mcp_servers.docs]\ncommand = \"uvx\"\nargs = [\"docs\"]\nenabled = false\nenv_vars = [\"HOME_TOKEN\"]\n[mcp_servers.api]\nurl = \"https://a.example/mcp\"\nbearer_token_env_var = \"API_TOKEN\"\n",
        );
        write(
            &h.join(".config/Code/User/mcp.json"),
            "{ // servers\n \"servers\": {\"vs\": {\"type\": \"stdio\", \"command\": \"node\", \"args\": [\"s.js\"]}}, \"inputs\": []}",
        );
        write(
            &h.join(".config/Code/User/settings.json"),
            r#"{"mcp": {"servers": {"nested": {"command": "x"}}}}"#,
        );
        write(
            &h.join(".copilot/mcp-config.json"),
            r#"{"mcpServers": {"cp": {"type": "local", "command": "cp-mcp", "tools": ["*"]}, "bad": {"command": 7}}}"#,
        );
        let d = discover(h, Some(&proj));
        let got: Vec<(String, &str, String, bool)> = d
            .servers
            .iter()
            .map(|s| {
                let t = match &s.transport {
                    Transport::Stdio { command, .. } => format!("stdio {command}"),
                    Transport::Http { url, sse, .. } => format!("http {url} sse={sse}"),
                    Transport::Unusable(w) => format!("unusable {w}"),
                };
                (
                    format!("{}/{}", s.agent, s.name),
                    s.scope.as_str(),
                    t,
                    s.disabled,
                )
            })
            .collect();
        let want: Vec<(String, &str, String, bool)> = vec![
            ("claude-code/gh".into(), "user", "stdio npx".into(), false),
            (
                "claude-code/db".into(),
                "local /p",
                "http https://db.example/mcp sse=false".into(),
                false,
            ),
            (
                "cursor/remote".into(),
                "user",
                "http https://r.example/mcp sse=false".into(),
                false,
            ),
            (
                "gemini/new".into(),
                "user",
                "http https://n.example/mcp sse=false".into(),
                false,
            ),
            (
                "gemini/old".into(),
                "user",
                "http https://o.example/sse sse=true".into(),
                false,
            ),
            (
                "codex/api".into(),
                "user",
                "http https://a.example/mcp sse=false".into(),
                false,
            ),
            ("codex/docs".into(), "user", "stdio uvx".into(), true),
            ("copilot/cp".into(), "user", "stdio cp-mcp".into(), false),
            ("vscode/vs".into(), "user", "stdio node".into(), false),
            ("vscode/nested".into(), "user", "stdio x".into(), false),
            (
                "claude-code/fs".into(),
                "project",
                "stdio airlock".into(),
                false,
            ),
        ];
        // Servers of one file come in the order its JSON map yields them, which depends on
        // serde_json's `preserve_order` feature (on when the whole workspace is built): compare
        // as sets.
        let (mut got, mut want) = (got, want);
        got.sort();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
        assert!(d.problems[0].message.contains("`bad`"));
        let fs = d.servers.iter().find(|s| s.name == "fs").unwrap();
        assert!(fs.routed_through_airlock());
        assert!(!d.servers[0].routed_through_airlock());
        assert!(d.servers.iter().find(|s| s.name == "new").unwrap().trusted);
        let Transport::Http { headers, .. } = &d
            .servers
            .iter()
            .find(|s| s.name == "api")
            .unwrap()
            .transport
        else {
            panic!()
        };
        assert_eq!(headers["Authorization"], "Bearer ${API_TOKEN}");
        let Transport::Stdio { env, .. } = &d
            .servers
            .iter()
            .find(|s| s.name == "docs")
            .unwrap()
            .transport
        else {
            panic!()
        };
        assert_eq!(env["HOME_TOKEN"], "${HOME_TOKEN}");
        // Debug output never shows values.
        let dbg = format!("{:?}", d.servers);
        assert!(
            !dbg.contains("ghp_x") && !dbg.contains("Bearer abc"),
            "{dbg}"
        );
    }

    #[test]
    fn unreadable_files_are_problems_and_missing_ones_are_nothing() {
        let home = tempfile::tempdir().unwrap();
        write(&home.path().join(".cursor/mcp.json"), "{ not json");
        write(
            &home.path().join(".codex/config.toml"),
            "a = \nsecret_value = \"x\"",
        );
        let d = discover(home.path(), None);
        assert!(d.servers.is_empty());
        assert_eq!(d.problems.len(), 2);
        assert!(
            d.problems
                .iter()
                .all(|p| !p.message.contains("secret_value")),
            "{:?}",
            d.problems
        );
    }

    #[test]
    fn airlock_invocations_unwrap_the_served_command() {
        let a = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            airlock_invocation(
                "/usr/bin/airlock",
                &a(&["serve", "--name", "fs", "--", "npx", "x"])
            ),
            Some(AirlockInvocation::Serve {
                name: Some("fs".into()),
                inner: a(&["npx", "x"])
            })
        );
        assert_eq!(
            airlock_invocation("airlock-proxy", &a(&["gateway", "--config", "g.toml"])),
            Some(AirlockInvocation::Gateway)
        );
        assert_eq!(airlock_invocation("npx", &a(&["airlock"])), None);
    }

    #[test]
    fn secrets_are_found_by_name_or_shape_and_never_in_references() {
        let scanner = airlock_engine::SecretScanner::new().unwrap();
        let s = Some(&scanner);
        for (text, want) in [
            ("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", true),
            ("postgres://user:hunter2@db.local/app", true),
            ("https://api.example.com/mcp?api_key=abc123", true),
            ("--token=abc123", true),
            ("Zx9q2Lm8Rt4Vb7Nc1Kd6Hf3Js5Gp0Wy", true),
            ("${GITHUB_TOKEN}", false),
            ("${env:API_KEY}", false),
            ("@modelcontextprotocol/server-filesystem", false),
            ("/home/u/src", false),
            ("https://api.example.com/mcp", false),
            ("--verbose", false),
            ("production", false),
        ] {
            assert_eq!(looks_secret(s, text), want, "{text}");
        }
        let server = McpServer {
            agent: CLAUDE_CODE,
            source: PathBuf::from("/x"),
            scope: "user".into(),
            name: "gh".into(),
            transport: Transport::Stdio {
                command: "npx".into(),
                args: vec!["--api-key".into(), "abc".into(), "-y".into()],
                env: BTreeMap::from([
                    ("GITHUB_TOKEN".to_owned(), "abc".to_owned()),
                    ("NODE_ENV".to_owned(), "production".to_owned()),
                    ("API_KEY".to_owned(), "${env:API_KEY}".to_owned()),
                ]),
                cwd: None,
            },
            disabled: false,
            trusted: false,
        };
        assert_eq!(
            literal_secrets(s, &server),
            ["env GITHUB_TOKEN", "argument 2"]
        );
    }
}
