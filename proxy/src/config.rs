//! The gateway's configuration file: which MCP servers to aggregate, and the per-tool rate
//! limits that apply to them. (Where tool arguments may send things — hosts, e-mail
//! addresses, phone numbers — is policy, judged by the engine for the hooks and the proxy
//! alike: `allow_hosts`, `allow_emails`, `allow_phones` in Airlock's `config.toml`.)
//!
//! Parsed, then compiled (CONVENTIONS §11): [`GatewayConfig::load`] reads TOML (or JSON when
//! the file ends in `.json`, accepting the `mcpServers` layout agents already use), expands
//! `${VAR}` from the environment, and checks every field; an error names the file and the
//! field, never a secret value.
//!
//! ```toml
//! [servers.filesystem]
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"]
//!
//! [servers.github]
//! url = "https://api.example.com/mcp"
//! headers = { Authorization = "Bearer ${GITHUB_TOKEN}" }
//! rate = "60/min"                       # every tool of this server
//! tools.create_issue.rate = "5/min"     # one tool
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::limits::Rate;

/// Why a configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: cannot read it")]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}: {message}")]
    Syntax { file: PathBuf, message: String },
    #[error("{file}: `{field}`: {message}")]
    Field {
        file: PathBuf,
        field: String,
        message: String,
    },
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default, alias = "mcpServers")]
    servers: BTreeMap<String, RawServer>,
    /// A rate applied to every tool of every server unless overridden.
    #[serde(default)]
    rate: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    /// `stdio`, `http` / `streamable-http` / `streamableHttp`; inferred when absent.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    rate: Option<String>,
    #[serde(default)]
    tools: BTreeMap<String, RawTool>,
    #[serde(default)]
    disabled: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    #[serde(default)]
    rate: Option<String>,
}

/// How the gateway reaches one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP over its stdio.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// A remote streamable-HTTP server.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// Rate limits for one server: a default for its tools and per-tool overrides (from the
/// gateway file), then the policy file's `[mcp]` rates (`server/tool` globs, first match wins,
/// and its `rate` for every tool).
#[derive(Debug, Clone, Default)]
pub struct RateLimits {
    pub default: Option<Rate>,
    pub tools: BTreeMap<String, Rate>,
    /// This server's name, which the policy file's globs see as `server/tool`.
    pub server: String,
    pub globs: Vec<(globset::GlobMatcher, Rate)>,
    pub policy_default: Option<Rate>,
}

impl PartialEq for RateLimits {
    fn eq(&self, other: &Self) -> bool {
        self.default == other.default
            && self.tools == other.tools
            && self.server == other.server
            && self.policy_default == other.policy_default
            && self.globs.len() == other.globs.len()
            && self
                .globs
                .iter()
                .zip(&other.globs)
                .all(|((a, ra), (b, rb))| a.glob() == b.glob() && ra == rb)
    }
}

impl RateLimits {
    /// The rate for `tool`, if any.
    pub fn for_tool(&self, tool: &str) -> Option<Rate> {
        if let Some(r) = self.tools.get(tool) {
            return Some(*r);
        }
        let key = format!("{}/{tool}", self.server);
        self.globs
            .iter()
            .find(|(g, _)| g.is_match(&key))
            .map(|(_, r)| *r)
            .or(self.default)
            .or(self.policy_default)
    }

    /// Add the policy file's `[mcp]` rates for the server named `server`. Errors name the key.
    pub fn with_policy(
        mut self,
        server: &str,
        mcp: &airlock_engine::McpConfig,
    ) -> Result<RateLimits, String> {
        self.server = server.to_owned();
        if let Some(r) = &mcp.rate {
            self.policy_default = Some(Rate::parse(r).map_err(|e| format!("mcp.rate: {e}"))?);
        }
        for (pat, rate) in &mcp.rates {
            let g = globset::Glob::new(pat)
                .map_err(|e| format!("mcp.rates.\"{pat}\": not a valid glob: {}", e.kind()))?
                .compile_matcher();
            let r = Rate::parse(rate).map_err(|e| format!("mcp.rates.\"{pat}\": {e}"))?;
            self.globs.push((g, r));
        }
        Ok(self)
    }
}

/// One configured server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    pub limits: RateLimits,
}

/// The compiled gateway configuration.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    pub servers: Vec<ServerConfig>,
}

/// Is `name` usable as a gateway server name? Tools are exposed as `<name>__<tool>`, so the
/// name may not contain `__`, and `airlock` is reserved for the proxy's own tools.
pub fn valid_gateway_name(name: &str) -> bool {
    crate::names::valid_server_name(name)
        && !name.contains("__")
        && !name.eq_ignore_ascii_case("airlock")
}

/// Expand `${VAR}` from `env`; `$$` is a literal `$`. An unset variable is an error (a
/// missing token must not silently become an empty header).
pub fn expand(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('$') {
        out.push_str(rest.get(..pos).unwrap_or_default());
        let after = rest.get(pos + 1..).unwrap_or_default();
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('{') {
            let Some(end) = tail.find('}') else {
                return Err("`${` without a closing `}`".to_owned());
            };
            let name = tail.get(..end).unwrap_or_default();
            let ok = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit());
            if !ok {
                return Err(format!("`${{{name}}}` is not a variable name"));
            }
            match env(name) {
                Some(v) => out.push_str(&v),
                None => return Err(format!("the environment variable `{name}` is not set")),
            }
            rest = tail.get(end + 1..).unwrap_or_default();
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

impl GatewayConfig {
    /// Read and compile `path`, expanding `${VAR}` from the process environment.
    pub fn load(path: &Path) -> Result<GatewayConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            file: path.to_path_buf(),
            source,
        })?;
        let json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        GatewayConfig::parse(&text, json, path, &|k| std::env::var(k).ok())
    }

    /// Compile configuration text (`json` selects the format).
    pub fn parse(
        text: &str,
        json: bool,
        file: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<GatewayConfig, ConfigError> {
        let raw: RawFile = if json {
            serde_json::from_str(text).map_err(|e| ConfigError::Syntax {
                file: file.to_path_buf(),
                message: e.to_string(),
            })?
        } else {
            toml::from_str(text).map_err(|e| ConfigError::Syntax {
                file: file.to_path_buf(),
                message: e.to_string(),
            })?
        };
        let field = |field: String, message: String| ConfigError::Field {
            file: file.to_path_buf(),
            field,
            message,
        };
        let global_rate = match &raw.rate {
            Some(r) => Some(Rate::parse(r).map_err(|m| field("rate".into(), m))?),
            None => None,
        };
        let mut servers = Vec::new();
        for (name, s) in raw.servers {
            let at = |f: &str| format!("servers.{name}.{f}");
            if !valid_gateway_name(&name) {
                return Err(field(
                    format!("servers.{name}"),
                    "a server name is 1–64 characters of A–Z, a–z, 0–9, `-`, `_`, `.`, without `__`, and not `airlock`".into(),
                ));
            }
            if s.disabled {
                continue;
            }
            let x = |f: &str, v: &str| expand(v, env).map_err(|m| field(at(f), m));
            let kind = s.kind.as_deref().map(str::to_ascii_lowercase);
            let transport = match (kind.as_deref(), &s.command, &s.url) {
                (None | Some("stdio"), Some(cmd), None) => {
                    if !s.headers.is_empty() {
                        return Err(field(at("headers"), "only for `url` servers".into()));
                    }
                    let mut env_out = BTreeMap::new();
                    for (k, v) in &s.env {
                        env_out.insert(k.clone(), x(&format!("env.{k}"), v)?);
                    }
                    let mut args = Vec::new();
                    for (i, a) in s.args.iter().enumerate() {
                        args.push(x(&format!("args[{i}]"), a)?);
                    }
                    let command = x("command", cmd)?;
                    if command.trim().is_empty() {
                        return Err(field(at("command"), "is empty".into()));
                    }
                    Transport::Stdio {
                        command,
                        args,
                        env: env_out,
                        cwd: match &s.cwd {
                            Some(c) => Some(PathBuf::from(x("cwd", c)?)),
                            None => None,
                        },
                    }
                }
                (None | Some("http" | "streamable-http" | "streamablehttp"), None, Some(url)) => {
                    if !s.args.is_empty() || !s.env.is_empty() || s.cwd.is_some() {
                        return Err(field(
                            at("url"),
                            "`args`, `env` and `cwd` are only for `command` servers".into(),
                        ));
                    }
                    let url = x("url", url)?;
                    let lower = url.to_ascii_lowercase();
                    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
                        return Err(field(
                            at("url"),
                            "must be an http:// or https:// URL".into(),
                        ));
                    }
                    let mut headers = Vec::new();
                    for (k, v) in &s.headers {
                        headers.push((k.clone(), x(&format!("headers.{k}"), v)?));
                    }
                    Transport::Http { url, headers }
                }
                (Some("sse"), _, _) => {
                    return Err(field(
                        at("type"),
                        "the old HTTP+SSE transport is not supported; use the server's streamable-HTTP endpoint".into(),
                    ));
                }
                (Some(k), _, _)
                    if !matches!(k, "stdio" | "http" | "streamable-http" | "streamablehttp") =>
                {
                    return Err(field(at("type"), format!("unknown server type `{k}`")));
                }
                _ => {
                    return Err(field(
                        format!("servers.{name}"),
                        "needs exactly one of `command` (stdio) or `url` (streamable HTTP)".into(),
                    ));
                }
            };
            let mut limits = RateLimits {
                default: global_rate,
                server: name.clone(),
                ..RateLimits::default()
            };
            if let Some(r) = &s.rate {
                limits.default = Some(Rate::parse(r).map_err(|m| field(at("rate"), m))?);
            }
            for (tool, t) in &s.tools {
                if let Some(r) = &t.rate {
                    limits.tools.insert(
                        tool.clone(),
                        Rate::parse(r).map_err(|m| field(at(&format!("tools.{tool}.rate")), m))?,
                    );
                }
            }
            servers.push(ServerConfig {
                name,
                transport,
                limits,
            });
        }
        if servers.is_empty() {
            return Err(field(
                "servers".into(),
                "no (enabled) server is configured".into(),
            ));
        }
        Ok(GatewayConfig { servers })
    }
}

/// How long a gateway waits for every server to answer `initialize` or a fanned-out list.
pub const FANOUT_TIMEOUT: Duration = Duration::from_secs(30);

#[cfg(test)]
mod tests {
    use super::*;

    fn env(k: &str) -> Option<String> {
        match k {
            "HOME" => Some("/home/u".into()),
            "TOKEN" => Some("s3cr3t".into()),
            _ => None,
        }
    }

    fn parse(text: &str) -> Result<GatewayConfig, ConfigError> {
        GatewayConfig::parse(text, false, Path::new("gw.toml"), &env)
    }

    #[test]
    fn expands_variables() {
        for (input, want) in [
            ("${HOME}/src", Ok("/home/u/src".to_owned())),
            ("Bearer ${TOKEN}", Ok("Bearer s3cr3t".to_owned())),
            ("cost $$5 and $x", Ok("cost $5 and $x".to_owned())),
            (
                "${MISSING}",
                Err("the environment variable `MISSING` is not set".to_owned()),
            ),
            ("${HOME", Err("`${` without a closing `}`".to_owned())),
            ("${1X}", Err("`${1X}` is not a variable name".to_owned())),
        ] {
            assert_eq!(expand(input, &env), want, "{input}");
        }
    }

    #[test]
    fn compiles_stdio_and_http_servers() {
        let c = parse(
            r#"
            rate = "100/min"
            [servers.fs]
            command = "npx"
            args = ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"]
            [servers.gh]
            url = "https://api.example.com/mcp"
            headers = { Authorization = "Bearer ${TOKEN}" }
            rate = "10/s"
            tools.create_issue.rate = "5/min"
            [servers.off]
            command = "x"
            disabled = true
            "#,
        )
        .unwrap();
        assert_eq!(c.servers.len(), 2);
        let fs = &c.servers[0];
        assert_eq!(fs.name, "fs");
        assert_eq!(
            fs.transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@modelcontextprotocol/server-filesystem".into(),
                    "/home/u/src".into()
                ],
                env: BTreeMap::new(),
                cwd: None
            }
        );
        assert_eq!(
            fs.limits.for_tool("read"),
            Some(Rate::parse("100/min").unwrap())
        );
        let gh = &c.servers[1];
        assert_eq!(
            gh.transport,
            Transport::Http {
                url: "https://api.example.com/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer s3cr3t".into())]
            }
        );
        assert_eq!(gh.limits.for_tool("x"), Some(Rate::parse("10/s").unwrap()));
        assert_eq!(
            gh.limits.for_tool("create_issue"),
            Some(Rate::parse("5/min").unwrap())
        );
    }

    #[test]
    fn accepts_the_mcp_servers_json_layout() {
        let c = GatewayConfig::parse(
            r#"{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
                               "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}"#,
            true,
            Path::new("claude_desktop_config.json"),
            &env,
        )
        .unwrap();
        assert_eq!(c.servers.len(), 2);
    }

    #[test]
    fn bad_configs_name_the_field_and_never_the_secret() {
        for (text, field) in [
            ("[servers.a]\nurl = \"ftp://x\"", "servers.a.url"),
            (
                "[servers.a]\ncommand = \"x\"\nurl = \"http://x\"",
                "servers.a",
            ),
            ("[servers.a]", "servers.a"),
            ("[servers.a__b]\ncommand = \"x\"", "servers.a__b"),
            ("[servers.airlock]\ncommand = \"x\"", "servers.airlock"),
            (
                "[servers.a]\ncommand = \"x\"\nrate = \"lots\"",
                "servers.a.rate",
            ),
            (
                "[servers.a]\ncommand = \"x\"\ntype = \"sse\"",
                "servers.a.type",
            ),
            (
                "[servers.a]\nurl = \"http://x\"\nheaders = { A = \"${NOPE}\" }",
                "servers.a.headers.A",
            ),
            ("", "servers"),
        ] {
            match parse(text) {
                Err(ConfigError::Field { field: f, .. }) => assert_eq!(f, field, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let e = parse("[servers.a]\nurl = \"http://x\"\nextra = 1").unwrap_err();
        assert!(matches!(e, ConfigError::Syntax { .. }), "{e}");
        let e = parse("[servers.a]\nurl = \"nope://${TOKEN}\"").unwrap_err();
        assert!(!e.to_string().contains("s3cr3t"), "{e}");
    }
}
