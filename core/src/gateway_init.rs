//! `airlock init`: a starter configuration for `airlock gateway --config`, made from the MCP
//! servers the agents' own configs name ([`crate::agent_configs::discover`]).
//!
//! **No secret value is ever written.** Every `env` value becomes a `${VAR}` reference (the
//! variable named like the key, or the one the agent's config already referenced); a header,
//! argument or URL that holds a secret becomes a reference to a variable named after the
//! server (`${GITHUB_AUTHORIZATION}`); the file's header lists every variable to export before
//! starting the gateway. References in the agents' own spellings (`${env:X}`, `${X:-default}`,
//! `${userHome}`) are turned into the gateway's `${X}`; other `$` signs are escaped (`$$`).
//!
//! A server started through Airlock already (`airlock serve … -- CMD`) is written as `CMD`
//! (the gateway judges it itself); servers the gateway cannot run (the old HTTP+SSE
//! transport, an entry with neither command nor URL, another gateway) are listed as comments
//! with the reason. Servers of the same name are written once when their definitions agree,
//! else renamed `NAME-AGENT`. The text is TOML that `airlock gateway --config FILE --check`
//! accepts (tested end to end).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use airlock_engine::SecretScanner;

use crate::agent_configs::{
    self, AirlockInvocation, McpServer, Transport, agent_title, airlock_invocation, looks_secret,
    secret_name,
};

/// What [`render`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The configuration file's text.
    pub text: String,
    /// Server names written (enabled ones), in file order.
    pub servers: Vec<String>,
    /// Servers left out, as `(agent/name, why)`.
    pub skipped: Vec<(String, &'static str)>,
    /// Every environment variable the file references, with where it is used.
    pub variables: BTreeMap<String, BTreeSet<String>>,
}

impl Rendered {
    /// Whether the gateway can start from this file (at least one enabled server).
    pub fn usable(&self) -> bool {
        !self.servers.is_empty()
    }
}

/// A gateway server name from an agent's name for it: 1–64 of `A–Z a–z 0–9 - _ .`, no `__`,
/// not `airlock` (the gateway's own rule).
pub fn gateway_name(name: &str) -> String {
    let mut n: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    while n.contains("__") {
        n = n.replace("__", "_");
    }
    if n.is_empty() {
        n = "server".to_owned();
    }
    if n.eq_ignore_ascii_case("airlock") {
        n = "airlock-server".to_owned();
    }
    n
}

/// An environment variable name from free text: `A–Z 0–9 _`, not starting with a digit.
fn var_name(parts: &[&str]) -> String {
    let mut v: String = parts
        .join("_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    while v.contains("__") {
        v = v.replace("__", "_");
    }
    let v = v.trim_matches('_').to_owned();
    if v.is_empty() || v.starts_with(|c: char| c.is_ascii_digit()) {
        format!("MCP_{v}")
    } else {
        v
    }
}

fn valid_var(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// VS Code's and Cursor's own variables: not environment variables, so the gateway cannot
/// expand them.
const EDITOR_VARIABLES: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "workspaceRoot",
    "cwd",
    "file",
    "fileBasename",
    "fileDirname",
    "relativeFile",
    "pathSeparator",
    "execPath",
    "lineNumber",
    "selectedText",
];

/// An agent's value in the gateway's syntax: its references turned into `${X}`, literal `$`
/// escaped. `None` when it references something the gateway cannot expand (`${input:…}`,
/// `${workspaceFolder}`).
fn convert(s: &str, vars: &mut Vec<String>) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('$') {
        out.push_str(rest.get(..pos).unwrap_or_default());
        let after = rest.get(pos + 1..).unwrap_or_default();
        let Some(inner_start) = after.strip_prefix('{') else {
            out.push_str("$$");
            rest = after;
            continue;
        };
        let end = inner_start.find('}')?;
        let inner = inner_start.get(..end).unwrap_or_default();
        let inner = inner.strip_prefix("env:").unwrap_or(inner);
        let inner = inner.split_once(":-").map_or(inner, |(n, _)| n);
        let name = if inner == "userHome" { "HOME" } else { inner };
        if !valid_var(name) || EDITOR_VARIABLES.contains(&name) {
            return None;
        }
        vars.push(name.to_owned());
        out.push_str(&format!("${{{name}}}"));
        rest = inner_start.get(end + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    Some(out)
}

/// Exactly one reference and nothing else (`${X}`, `${env:X}`): its name.
fn sole_reference(s: &str) -> Option<String> {
    let mut vars = Vec::new();
    let c = convert(s.trim(), &mut vars)?;
    match vars.as_slice() {
        [one] if c == format!("${{{one}}}") => Some(one.clone()),
        _ => None,
    }
}

struct Builder<'a> {
    scanner: Option<&'a SecretScanner>,
    variables: BTreeMap<String, BTreeSet<String>>,
}

impl Builder<'_> {
    fn uses(&mut self, names: &[String], place: &str) {
        for n in names {
            self.variables
                .entry(n.clone())
                .or_default()
                .insert(place.to_owned());
        }
    }

    /// A value copied in the gateway's syntax, or replaced by `${fallback}` when it holds a
    /// secret (or cannot be expressed).
    fn value(&mut self, v: &str, secret: bool, fallback: &str, place: &str) -> String {
        let mut vars = Vec::new();
        match convert(v, &mut vars) {
            Some(c) if !secret && !looks_secret(self.scanner, v) => {
                self.uses(&vars, place);
                c
            }
            _ => {
                self.uses(&[fallback.to_owned()], place);
                format!("${{{fallback}}}")
            }
        }
    }

    /// The gateway entry for one server, or why it is left out.
    fn body(
        &mut self,
        name: &str,
        s: &McpServer,
    ) -> Result<(Option<String>, toml::Table), &'static str> {
        let mut t = toml::Table::new();
        let place = |what: &str| format!("servers.{name}.{what}");
        let mut served_name = None;
        match &s.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let (command, args) = match airlock_invocation(command, args) {
                    None => (command.clone(), args.clone()),
                    Some(AirlockInvocation::Serve { name: n, inner }) => {
                        let Some((c, a)) = inner.split_first() else {
                            return Err("an `airlock serve` entry without a server command");
                        };
                        served_name = n;
                        (c.clone(), a.to_vec())
                    }
                    Some(AirlockInvocation::Gateway) => {
                        return Err("it is an Airlock gateway already (merge its config by hand)");
                    }
                    Some(AirlockInvocation::Other) => {
                        return Err("it runs an Airlock command that is not an MCP server");
                    }
                };
                let cmd = self.value(
                    &command,
                    false,
                    &var_name(&[name, "COMMAND"]),
                    &place("command"),
                );
                t.insert("command".into(), cmd.into());
                let mut out_args = Vec::new();
                let mut prev: Option<&str> = None;
                for (i, a) in args.iter().enumerate() {
                    let after_flag = prev
                        .is_some_and(|p| p.starts_with('-') && !p.contains('=') && secret_name(p));
                    let n = (i + 1).to_string();
                    out_args.push(toml::Value::from(self.value(
                        a,
                        after_flag,
                        &var_name(&[name, "ARG", &n]),
                        &place(&format!("args[{i}]")),
                    )));
                    prev = Some(a);
                }
                if !out_args.is_empty() {
                    t.insert("args".into(), toml::Value::Array(out_args));
                }
                if !env.is_empty() {
                    let mut e = toml::Table::new();
                    for (k, v) in env {
                        // Never copied: the value comes from the gateway's environment, under
                        // the name the agent's config already referenced, else the key's.
                        let var = sole_reference(v).unwrap_or_else(|| {
                            if valid_var(k) {
                                k.clone()
                            } else {
                                var_name(&[name, k])
                            }
                        });
                        self.uses(std::slice::from_ref(&var), &place(&format!("env.{k}")));
                        e.insert(k.clone(), format!("${{{var}}}").into());
                    }
                    t.insert("env".into(), toml::Value::Table(e));
                }
                if let Some(c) = cwd {
                    let v = self.value(c, false, &var_name(&[name, "CWD"]), &place("cwd"));
                    t.insert("cwd".into(), v.into());
                }
            }
            Transport::Http { sse: true, .. } => {
                return Err(
                    "it uses the old HTTP+SSE transport, which the gateway does not speak (use the server's streamable-HTTP endpoint)",
                );
            }
            Transport::Http { url, headers, .. } => {
                let u = self.value(url, false, &var_name(&[name, "URL"]), &place("url"));
                t.insert("url".into(), u.into());
                if !headers.is_empty() {
                    let mut h = toml::Table::new();
                    for (k, v) in headers {
                        // Kept only when nothing but references (and an auth scheme) is left.
                        let mut vars = Vec::new();
                        let converted = convert(v, &mut vars);
                        let bare = converted.as_deref().map(|c| {
                            let mut rest = c.to_owned();
                            for n in &vars {
                                rest = rest.replace(&format!("${{{n}}}"), "");
                            }
                            rest.trim()
                                .trim_start_matches("Bearer")
                                .trim_start_matches("Basic")
                                .trim_start_matches("Token")
                                .trim()
                                .is_empty()
                        });
                        let value = match (converted, bare) {
                            (Some(c), Some(true)) if !vars.is_empty() => {
                                self.uses(&vars, &place(&format!("headers.{k}")));
                                c
                            }
                            (Some(c), _) if !secret_name(k) && !looks_secret(self.scanner, v) => {
                                self.uses(&vars, &place(&format!("headers.{k}")));
                                c
                            }
                            _ => {
                                let var = var_name(&[name, k]);
                                self.uses(
                                    std::slice::from_ref(&var),
                                    &place(&format!("headers.{k}")),
                                );
                                format!("${{{var}}}")
                            }
                        };
                        h.insert(k.clone(), value.into());
                    }
                    t.insert("headers".into(), toml::Value::Table(h));
                }
            }
            Transport::Unusable(why) => return Err(why),
        }
        if s.disabled {
            t.insert("disabled".into(), true.into());
        }
        Ok((served_name, t))
    }
}

fn shown(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rel) => format!("~/{}", rel.display()),
        None => path.display().to_string(),
    }
}

fn origin(s: &McpServer, home: Option<&Path>) -> String {
    format!(
        "{}, {} ({})",
        agent_title(s.agent),
        shown(&s.source, home),
        s.scope
    )
}

/// A TOML key: bare when it can be, else quoted.
fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        k.to_owned()
    } else {
        toml::Value::String(k.to_owned()).to_string()
    }
}

/// One server's table, keys in the order people read them (`command`, `args`, `env`, `cwd`,
/// `url`, `headers`, `disabled`), maps as inline tables.
fn server_toml(name: &str, body: &toml::Table) -> String {
    let mut out = format!("[servers.{}]\n", toml_key(name));
    for k in [
        "command", "args", "env", "cwd", "url", "headers", "disabled",
    ] {
        let Some(v) = body.get(k) else { continue };
        let value = match v {
            toml::Value::Table(t) => {
                let items: Vec<String> = t
                    .iter()
                    .map(|(k, v)| format!("{} = {}", toml_key(k), v))
                    .collect();
                format!("{{ {} }}", items.join(", "))
            }
            other => other.to_string(),
        };
        out.push_str(&format!("{k} = {value}\n"));
    }
    out
}

/// Renders the gateway configuration for `servers`. `home` only shortens paths in comments.
pub fn render(
    servers: &[McpServer],
    scanner: Option<&SecretScanner>,
    home: Option<&Path>,
) -> Rendered {
    let mut b = Builder {
        scanner,
        variables: BTreeMap::new(),
    };
    // name → (body, origins)
    let mut entries: Vec<(String, toml::Table, Vec<String>)> = Vec::new();
    let mut skipped = Vec::new();
    for s in servers {
        let base = gateway_name(&s.name);
        // Variables are named after the first choice of name; collisions are rare and only
        // change which entry a variable is listed under.
        let (served, body) = match b.body(&base, s) {
            Ok(x) => x,
            Err(why) => {
                skipped.push((format!("{}/{} ({})", s.agent, s.name, origin(s, home)), why));
                continue;
            }
        };
        let base = served.map_or(base, |n| gateway_name(&n));
        if let Some(e) = entries
            .iter_mut()
            .find(|(n, t, _)| *n == base && *t == body)
        {
            e.2.push(origin(s, home));
            continue;
        }
        let mut name = base.clone();
        if entries.iter().any(|(n, _, _)| *n == name) {
            name = gateway_name(&format!("{base}-{}", s.agent));
            let mut i = 2;
            while entries.iter().any(|(n, _, _)| *n == name) {
                name = gateway_name(&format!("{base}-{i}"));
                i += 1;
            }
        }
        entries.push((name, body, vec![origin(s, home)]));
    }

    let mut text = String::new();
    text.push_str(
        "# Airlock gateway configuration, written by `airlock init`.\n\
         #\n\
         # Check it:  airlock gateway --config THIS_FILE --check\n\
         # Start it:  airlock gateway --config THIS_FILE\n\
         # Then point your agents at the gateway (one MCP server, tools named SERVER__TOOL)\n\
         # instead of the servers below, so every call is judged by Airlock.\n\
         #\n\
         # The servers come from your agents' own configs. No secret value was copied: each\n\
         # one is a ${VARIABLE} reference, expanded from the environment the gateway starts in.\n",
    );
    if b.variables.is_empty() {
        text.push_str("# No environment variables are needed.\n");
    } else {
        text.push_str("# Export these before starting it:\n");
        for (v, places) in &b.variables {
            let places: Vec<&str> = places.iter().map(String::as_str).collect();
            text.push_str(&format!("#   {v:<32} used by {}\n", places.join(", ")));
        }
    }
    text.push_str(
        "#\n# Rate limits: `rate = \"60/min\"` on a server, or `tools.TOOL.rate` for one tool.\n",
    );
    if !skipped.is_empty() {
        text.push_str("#\n# Not added:\n");
        for (who, why) in &skipped {
            text.push_str(&format!("#   {who}: {why}\n"));
        }
    }
    let mut written = Vec::new();
    for (name, body, origins) in &entries {
        text.push('\n');
        for o in origins {
            text.push_str(&format!("# {name}: from {o}\n"));
        }
        text.push_str(&server_toml(name, body));
        if !matches!(body.get("disabled"), Some(toml::Value::Boolean(true))) {
            written.push(name.clone());
        }
    }
    if written.is_empty() {
        text.push_str(
            "\n# No MCP server was found in your agents' configs (or none the gateway can run).\n\
             # Add servers like this, then remove the comment signs:\n\
             #\n\
             # [servers.filesystem]\n\
             # command = \"npx\"\n\
             # args = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"${HOME}/src\"]\n\
             #\n\
             # [servers.github]\n\
             # url = \"https://api.example.com/mcp\"\n\
             # headers = { Authorization = \"Bearer ${GITHUB_TOKEN}\" }\n",
        );
    }
    Rendered {
        text,
        servers: written,
        skipped,
        variables: b.variables,
    }
}

/// Discovers the servers under `home` / `project` and renders them (the `airlock init` flow).
pub fn from_agent_configs(
    home: &Path,
    project: Option<&Path>,
) -> (Rendered, Vec<agent_configs::Problem>) {
    let found = agent_configs::discover(home, project);
    let scanner = SecretScanner::new().ok();
    (
        render(&found.servers, scanner.as_ref(), Some(home)),
        found.problems,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn server(agent: &'static str, name: &str, transport: Transport) -> McpServer {
        McpServer {
            agent,
            source: PathBuf::from("/home/u/.claude.json"),
            scope: "user".into(),
            name: name.into(),
            transport,
            disabled: false,
            trusted: false,
        }
    }

    fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> Transport {
        Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|s| (*s).to_owned()).collect(),
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            cwd: None,
        }
    }

    #[test]
    fn names_and_variables_follow_the_gateways_rules() {
        assert_eq!(gateway_name("my server/1"), "my-server-1");
        assert_eq!(gateway_name("a__b___c"), "a_b_c");
        assert_eq!(gateway_name("Airlock"), "airlock-server");
        assert_eq!(gateway_name(""), "server");
        assert_eq!(gateway_name(&"x".repeat(80)).len(), 64);
        assert_eq!(
            var_name(&["gh-api", "Authorization"]),
            "GH_API_AUTHORIZATION"
        );
        assert_eq!(var_name(&["1x", "arg", "2"]), "MCP_1X_ARG_2");
        let mut v = Vec::new();
        assert_eq!(
            convert("${env:A}/${B:-x}/${userHome}/$HOME/$$", &mut v).as_deref(),
            Some("${A}/${B}/${HOME}/$$HOME/$$$$")
        );
        assert_eq!(v, ["A", "B", "HOME"]);
        assert_eq!(convert("${input:token}", &mut v), None);
        assert_eq!(convert("${workspaceFolder}/x", &mut v), None);
        assert_eq!(sole_reference("${env:TOKEN}").as_deref(), Some("TOKEN"));
        assert_eq!(sole_reference("x${TOKEN}"), None);
    }

    #[test]
    fn secrets_never_reach_the_file_and_it_parses_as_toml() {
        let scanner = SecretScanner::new().unwrap();
        let servers = vec![
            server(
                "claude-code",
                "github",
                stdio(
                    "npx",
                    &[
                        "-y",
                        "@modelcontextprotocol/server-github",
                        "--api-key",
                        "s3cr3t-value",
                    ],
                    &[
                        ("GITHUB_TOKEN", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
                        ("NODE_ENV", "production"),
                        ("KEY", "${env:MY_KEY}"),
                    ],
                ),
            ),
            // Same name, same definition elsewhere: one entry, two origins.
            server(
                "cursor",
                "github",
                stdio(
                    "npx",
                    &[
                        "-y",
                        "@modelcontextprotocol/server-github",
                        "--api-key",
                        "s3cr3t-value",
                    ],
                    &[
                        ("GITHUB_TOKEN", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"),
                        ("NODE_ENV", "production"),
                        ("KEY", "${env:MY_KEY}"),
                    ],
                ),
            ),
            // Same name, another definition: renamed.
            server("gemini", "github", stdio("gh-mcp", &[], &[])),
            server(
                "cursor",
                "remote",
                Transport::Http {
                    url: "https://mcp.example.com/mcp?api_key=abc123".into(),
                    headers: BTreeMap::from([
                        (
                            "Authorization".to_owned(),
                            "Bearer sk-live-abcdef".to_owned(),
                        ),
                        ("X-Team".to_owned(), "blue".to_owned()),
                        ("X-Api".to_owned(), "Bearer ${env:API_TOKEN}".to_owned()),
                    ]),
                    sse: false,
                },
            ),
            server(
                "claude-code",
                "wrapped",
                stdio(
                    "/usr/bin/airlock",
                    &[
                        "serve",
                        "--name",
                        "fs",
                        "--",
                        "npx",
                        "fs-mcp",
                        "${HOME}/src",
                    ],
                    &[],
                ),
            ),
            server(
                "gemini",
                "old",
                Transport::Http {
                    url: "https://o.example/sse".into(),
                    headers: BTreeMap::new(),
                    sse: true,
                },
            ),
            server(
                "vscode",
                "broken",
                Transport::Unusable("no command and no URL"),
            ),
        ];
        let r = render(&servers, Some(&scanner), Some(Path::new("/home/u")));
        for secret in [
            "ghp_0123",
            "s3cr3t-value",
            "abc123",
            "sk-live",
            "production",
        ] {
            assert!(!r.text.contains(secret), "{secret} leaked:\n{}", r.text);
        }
        let doc: toml::Table = toml::from_str(&r.text).unwrap();
        let s = doc["servers"].as_table().unwrap();
        let names: Vec<&String> = s.keys().collect();
        assert_eq!(names, ["fs", "github", "github-gemini", "remote"]);
        assert_eq!(r.servers, ["github", "github-gemini", "remote", "fs"]);
        let gh = &s["github"];
        assert_eq!(gh["env"]["GITHUB_TOKEN"].as_str(), Some("${GITHUB_TOKEN}"));
        assert_eq!(gh["env"]["NODE_ENV"].as_str(), Some("${NODE_ENV}"));
        assert_eq!(gh["env"]["KEY"].as_str(), Some("${MY_KEY}"));
        assert_eq!(gh["args"][3].as_str(), Some("${GITHUB_ARG_4}"));
        assert_eq!(
            gh["args"][1].as_str(),
            Some("@modelcontextprotocol/server-github")
        );
        let remote = &s["remote"];
        assert_eq!(remote["url"].as_str(), Some("${REMOTE_URL}"));
        assert_eq!(
            remote["headers"]["Authorization"].as_str(),
            Some("${REMOTE_AUTHORIZATION}")
        );
        assert_eq!(remote["headers"]["X-Team"].as_str(), Some("blue"));
        assert_eq!(
            remote["headers"]["X-Api"].as_str(),
            Some("Bearer ${API_TOKEN}")
        );
        assert_eq!(s["fs"]["command"].as_str(), Some("npx"));
        assert_eq!(s["fs"]["args"][1].as_str(), Some("${HOME}/src"));
        assert!(
            r.text
                .contains("# github: from Claude Code, ~/.claude.json (user)")
        );
        assert!(r.text.contains("# github: from Cursor"));
        assert_eq!(r.skipped.len(), 2);
        assert!(r.text.contains("HTTP+SSE"));
        for v in [
            "GITHUB_TOKEN",
            "NODE_ENV",
            "MY_KEY",
            "GITHUB_ARG_4",
            "REMOTE_URL",
            "REMOTE_AUTHORIZATION",
            "API_TOKEN",
            "HOME",
        ] {
            assert!(r.variables.contains_key(v), "{v}: {:?}", r.variables);
        }
        assert!(r.usable());
    }

    #[test]
    fn no_servers_gives_a_commented_template() {
        let r = render(&[], None, None);
        assert!(!r.usable());
        let doc: toml::Table = toml::from_str(&r.text).unwrap();
        assert!(doc.is_empty());
        assert!(r.text.contains("# [servers.filesystem]"));
    }

    #[test]
    fn names_and_keys_that_need_quotes_are_quoted() {
        let s = server(
            "vscode",
            "my.server",
            stdio("node", &["a \"quoted\" arg"], &[("weird key", "v")]),
        );
        let r = render(&[s], None, None);
        assert!(r.text.contains("[servers.\"my.server\"]"), "{}", r.text);
        let doc: toml::Table = toml::from_str(&r.text).unwrap();
        let srv = &doc["servers"]["my.server"];
        assert_eq!(srv["args"][0].as_str(), Some("a \"quoted\" arg"));
        assert_eq!(
            srv["env"]["weird key"].as_str(),
            Some("${MY_SERVER_WEIRD_KEY}")
        );
    }

    #[test]
    fn disabled_servers_are_written_switched_off() {
        let mut s = server("codex", "docs", stdio("uvx", &["docs"], &[]));
        s.disabled = true;
        let r = render(&[s], None, None);
        assert!(!r.usable());
        let doc: toml::Table = toml::from_str(&r.text).unwrap();
        assert_eq!(doc["servers"]["docs"]["disabled"].as_bool(), Some(true));
    }
}
