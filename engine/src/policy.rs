//! Strictness modes, the enforcement dial, and the compiled policy the engine accepts.
//!
//! Configuration is parsed (TOML text handed in by the caller, never read here), validated,
//! then compiled into [`Policy`], the only form [`crate::Engine`] takes.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Strictness mode. Ordered: a higher mode is stricter, so moving down is a weakening.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Light,
    #[default]
    Balanced,
    Strict,
    Paranoid,
}

impl Mode {
    pub const ALL: [Mode; 4] = [Mode::Light, Mode::Balanced, Mode::Strict, Mode::Paranoid];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Light => "light",
            Mode::Balanced => "balanced",
            Mode::Strict => "strict",
            Mode::Paranoid => "paranoid",
        }
    }

    /// How many paths one command may delete before it needs a human.
    pub fn bulk_delete_threshold(self) -> usize {
        match self {
            Mode::Light => 100,
            Mode::Balanced => 25,
            Mode::Strict => 10,
            Mode::Paranoid => 3,
        }
    }

    /// Strict and paranoid ask before talking to a destination nobody listed.
    pub fn auth_unknown_destinations(self) -> bool {
        self >= Mode::Strict
    }

    /// Pick a verdict by mode: `[light, balanced, strict, paranoid]`.
    pub fn pick(self, by_mode: [crate::Verdict; 4]) -> crate::Verdict {
        let [l, b, s, p] = by_mode;
        match self {
            Mode::Light => l,
            Mode::Balanced => b,
            Mode::Strict => s,
            Mode::Paranoid => p,
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "light" => Ok(Mode::Light),
            "balanced" => Ok(Mode::Balanced),
            "strict" => Ok(Mode::Strict),
            "paranoid" => Ok(Mode::Paranoid),
            _ => Err(PolicyError::UnknownMode(s.chars().take(40).collect())),
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The enforcement dial. Ordered from weakest to strongest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Enforcement {
    Off,
    Monitor,
    #[default]
    Enforce,
}

impl Enforcement {
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Off => "off",
            Enforcement::Monitor => "monitor",
            Enforcement::Enforce => "enforce",
        }
    }
}

impl std::str::FromStr for Enforcement {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(Enforcement::Off),
            "monitor" => Ok(Enforcement::Monitor),
            "enforce" => Ok(Enforcement::Enforce),
            _ => Err(PolicyError::UnknownEnforcement(
                s.chars().take(40).collect(),
            )),
        }
    }
}

impl std::fmt::Display for Enforcement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The turn gate on what the user submits (issue #12). Ordered: `Off` < `On`, so switching it
/// off is a weakening.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum TurnGate {
    Off,
    #[default]
    On,
}

impl TurnGate {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnGate::Off => "off",
            TurnGate::On => "on",
        }
    }
}

impl std::str::FromStr for TurnGate {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(TurnGate::Off),
            "on" => Ok(TurnGate::On),
            _ => Err(PolicyError::UnknownValue {
                what: "turn_gate",
                value: s.chars().take(40).collect(),
                expected: "on or off",
            }),
        }
    }
}

impl std::fmt::Display for TurnGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happens to a tool result that carries instructions for the agent. Ordered from
/// weakest to strongest: `Off` < `Flag` < `Block`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ScreenAction {
    /// Not screened (the session is still tainted by untrusted sources).
    Off,
    /// The model is told the content carries instructions it must not follow.
    #[default]
    Flag,
    /// The result is withheld from the model where the host allows it (else flagged).
    Block,
}

impl ScreenAction {
    pub fn as_str(self) -> &'static str {
        match self {
            ScreenAction::Off => "off",
            ScreenAction::Flag => "flag",
            ScreenAction::Block => "block",
        }
    }
}

impl std::str::FromStr for ScreenAction {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" => Ok(ScreenAction::Off),
            "flag" => Ok(ScreenAction::Flag),
            "block" => Ok(ScreenAction::Block),
            _ => Err(PolicyError::UnknownValue {
                what: "screening",
                value: s.chars().take(40).collect(),
                expected: "off, flag or block",
            }),
        }
    }
}

impl std::fmt::Display for ScreenAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a tool result came from, for the screening policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultSource {
    /// A web fetch or search.
    Web,
    /// A file the agent read.
    File,
    /// A shell command's output.
    Shell,
    /// An MCP tool's result or a resource read through the proxy.
    Mcp,
}

impl ResultSource {
    pub const ALL: [ResultSource; 4] = [
        ResultSource::Web,
        ResultSource::File,
        ResultSource::Shell,
        ResultSource::Mcp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ResultSource::Web => "web",
            ResultSource::File => "file",
            ResultSource::Shell => "shell",
            ResultSource::Mcp => "mcp",
        }
    }
}

impl std::str::FromStr for ResultSource {
    type Err = PolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ResultSource::ALL
            .into_iter()
            .find(|r| r.as_str() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| PolicyError::UnknownValue {
                what: "screening source",
                value: s.chars().take(40).collect(),
                expected: "web, file, shell or mcp",
            })
    }
}

/// The `[screening]` table: what each source's injected results get.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreeningConfig {
    #[serde(default)]
    pub web: ScreenAction,
    #[serde(default)]
    pub file: ScreenAction,
    #[serde(default)]
    pub shell: ScreenAction,
    #[serde(default)]
    pub mcp: ScreenAction,
}

impl ScreeningConfig {
    pub fn get(&self, source: ResultSource) -> ScreenAction {
        match source {
            ResultSource::Web => self.web,
            ResultSource::File => self.file,
            ResultSource::Shell => self.shell,
            ResultSource::Mcp => self.mcp,
        }
    }

    pub fn set(&mut self, source: ResultSource, to: ScreenAction) {
        match source {
            ResultSource::Web => self.web = to,
            ResultSource::File => self.file = to,
            ResultSource::Shell => self.shell = to,
            ResultSource::Mcp => self.mcp = to,
        }
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum PolicyError {
    #[error("unknown strictness mode `{0}` (expected light, balanced, strict or paranoid)")]
    UnknownMode(String),
    #[error("unknown enforcement `{0}` (expected enforce, monitor or off)")]
    UnknownEnforcement(String),
    #[error("unknown {what} `{value}` (expected {expected})")]
    UnknownValue {
        what: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Config {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: field `{field}`: {message}")]
    Field {
        file: String,
        field: String,
        message: String,
    },
}

/// The configuration file as written by a person (`config.toml`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    #[serde(default)]
    pub mode: Mode,
    #[serde(default)]
    pub enforcement: Enforcement,
    /// Extra destinations (host names, `*.suffix` wildcards) that are not "unknown".
    #[serde(default)]
    pub allow_hosts: Vec<String>,
    /// Extra `npx`/`uvx` packages that may run without asking.
    #[serde(default)]
    pub allow_packages: Vec<String>,
    /// E-mail recipients MCP tools may send to: `me@example.com`, `*@corp.example`,
    /// `*@*.corp.example`.
    #[serde(default)]
    pub allow_emails: Vec<String>,
    /// Phone numbers MCP tools may send to (any punctuation; compared as digits).
    #[serde(default)]
    pub allow_phones: Vec<String>,
    /// The turn gate on user prompts (`on` / `off`).
    #[serde(default)]
    pub turn_gate: TurnGate,
    /// What tool results carrying injected instructions get, per source.
    #[serde(default)]
    pub screening: ScreeningConfig,
    /// What happens when no `[[rules]]` entry matches.
    #[serde(default)]
    pub rules_default: crate::user_rules::DefaultAction,
    /// The user's own rules, first match wins ([`crate::user_rules`]).
    #[serde(default)]
    pub rules: Vec<crate::user_rules::RuleConfig>,
    /// Options of the MCP proxy (`airlock serve`, `airlock gateway`).
    #[serde(default)]
    pub mcp: McpConfig,
    /// A JSONL copy of the audit log for other tools to read.
    #[serde(default)]
    pub audit: AuditConfig,
    /// Copies of decisions and ledger events sent to a collector (OTLP) or a SIEM (syslog).
    #[serde(default)]
    pub export: ExportConfig,
}

/// The `[export]` table: decisions and ledger events sent to a team's OpenTelemetry collector
/// (OTLP logs over HTTP) and/or a syslog receiver (CEF). Always redacted: codes, names and
/// keyed hashes, never arguments, results or secrets. A destination is data leaving the
/// machine, so at user level it is a loosening part of the file (`airlock policy approve`).
///
/// ```toml
/// [export.otlp]
/// endpoint = "http://127.0.0.1:4318"      # `/v1/logs` is added to a bare base URL
/// protocol = "http/protobuf"
/// headers = { "x-team" = "platform" }
///
/// [export.syslog]
/// address = "127.0.0.1:514"
/// transport = "udp"                      # or "tcp"
/// format = "cef"
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub otlp: Option<OtlpConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syslog: Option<SyslogConfig>,
}

impl ExportConfig {
    pub fn is_empty(&self) -> bool {
        self.otlp.is_none() && self.syslog.is_none()
    }
}

/// `[export.otlp]`. Its `Debug` names the headers without their values (they may be
/// credentials).
#[derive(Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtlpConfig {
    pub endpoint: String,
    #[serde(default)]
    pub protocol: OtlpProtocol,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub headers: std::collections::BTreeMap<String, String>,
    /// Milliseconds one export may take (default 3000, at most 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

impl std::fmt::Debug for OtlpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpConfig")
            .field("endpoint", &self.endpoint)
            .field("protocol", &self.protocol)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

/// `[export.otlp] protocol`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OtlpProtocol {
    #[default]
    #[serde(rename = "http/protobuf")]
    HttpProtobuf,
    #[serde(rename = "grpc")]
    Grpc,
}

/// `[export.syslog]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyslogConfig {
    /// `host:port` (`[v6]:port` for IPv6).
    pub address: String,
    #[serde(default)]
    pub transport: SyslogTransport,
    #[serde(default)]
    pub format: SyslogFormat,
}

/// `[export.syslog] transport`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyslogTransport {
    #[default]
    Udp,
    Tcp,
}

impl SyslogTransport {
    pub fn as_str(self) -> &'static str {
        match self {
            SyslogTransport::Udp => "udp",
            SyslogTransport::Tcp => "tcp",
        }
    }
}

/// `[export.syslog] format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyslogFormat {
    #[default]
    Cef,
}

/// The loosening entry of an OTLP destination (what `airlock policy approve` approves).
pub fn otlp_entry(o: &OtlpConfig) -> String {
    format!("export.otlp={}", o.endpoint.trim())
}

/// The loosening entry of a syslog destination.
pub fn syslog_entry(s: &SyslogConfig) -> String {
    format!(
        "export.syslog={}://{}",
        s.transport.as_str(),
        s.address.trim()
    )
}

/// The `[audit]` table: a JSONL copy of every decision beside the SQLite audit log, for log
/// shippers and SIEMs. Always redacted (secrets replaced by their kind).
///
/// ```toml
/// [audit]
/// jsonl = "~/.local/state/airlock/audit.jsonl"
/// include_arguments = false   # the call's arguments (redacted)
/// include_results = false     # what a tool returned (redacted, first 4 KiB)
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jsonl: Option<String>,
    #[serde(default)]
    pub include_arguments: bool,
    #[serde(default)]
    pub include_results: bool,
}

/// The `[mcp]` table: rate limits and redaction for the MCP proxy.
///
/// ```toml
/// [mcp]
/// rate = "120/min"                 # every tool of every server
/// [mcp.rates]                      # `server/tool` globs, first match wins
/// "github/create_*" = "5/min"
/// [mcp.redaction]
/// enabled = true                   # false is a loosening (needs approval)
/// extra = ["email", "ipv4", "ssn"] # opt-in kinds besides secrets
/// patterns = ["ACME-[0-9]{8}"]     # your own (regexes)
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub rates: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub redaction: RedactionConfig,
    /// What a tool never seen before gets: `pin` (pinned on first sight, the default), `ask`
    /// (AUTH until you pin it), `block` (hidden until you pin it).
    #[serde(default)]
    pub new_tools: NewTools,
    /// What a tool whose definition changed gets: `block` (hidden until approved, the
    /// default) or `ask` (AUTH on each call; a loosening that needs approval).
    #[serde(default)]
    pub changed_tools: ChangedTools,
}

/// `[mcp] new_tools`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NewTools {
    #[default]
    Pin,
    Ask,
    Block,
}

/// `[mcp] changed_tools`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangedTools {
    #[default]
    Block,
    Ask,
}

/// What the MCP proxy redacts from results before the client sees them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionConfig {
    /// Secrets are redacted unless this is false (a loosening: needs approval).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Opt-in kinds: `email`, `ipv4`, `ssn`.
    #[serde(default)]
    pub extra: Vec<String>,
    /// Your own patterns (regexes), redacted as `custom`.
    #[serde(default)]
    pub patterns: Vec<String>,
}

fn yes() -> bool {
    true
}

impl Default for RedactionConfig {
    fn default() -> Self {
        RedactionConfig {
            enabled: true,
            extra: Vec::new(),
            patterns: Vec::new(),
        }
    }
}

impl PolicyConfig {
    /// The parts of this configuration that lower a verdict, one canonical line each: the
    /// allow lists' entries, `pass` rules and a `pass` default. The caller keeps them out of
    /// the compiled policy until the user approved them with the factor.
    pub fn loosening_entries(&self) -> Vec<String> {
        let mut out = Vec::new();
        out.extend(
            self.allow_hosts
                .iter()
                .map(|h| format!("allow_hosts={}", h.trim())),
        );
        out.extend(
            self.allow_packages
                .iter()
                .map(|h| format!("allow_packages={}", h.trim())),
        );
        out.extend(
            self.allow_emails
                .iter()
                .map(|h| format!("allow_emails={}", h.trim())),
        );
        out.extend(
            self.allow_phones
                .iter()
                .map(|h| format!("allow_phones={}", h.trim())),
        );
        if self.rules_default == crate::user_rules::DefaultAction::Pass {
            out.push("rules_default=pass".to_owned());
        }
        if !self.mcp.redaction.enabled {
            out.push("mcp.redaction.enabled=false".to_owned());
        }
        if self.mcp.changed_tools == ChangedTools::Ask {
            out.push("mcp.changed_tools=ask".to_owned());
        }
        out.extend(self.export.otlp.as_ref().map(otlp_entry));
        out.extend(self.export.syslog.as_ref().map(syslog_entry));
        out.extend(
            self.rules
                .iter()
                .filter(|r| r.action == crate::user_rules::RuleAction::Pass)
                .map(|r| format!("rule={}", r.canonical())),
        );
        out
    }

    /// Drop every loosening part [`PolicyConfig::loosening_entries`] lists that `approved`
    /// does not contain; returns what was dropped.
    pub fn keep_approved(&mut self, approved: &std::collections::BTreeSet<String>) -> Vec<String> {
        let mut dropped = Vec::new();
        let mut keep = |entry: String| {
            let ok = approved.contains(&entry);
            if !ok {
                dropped.push(entry);
            }
            ok
        };
        self.allow_hosts
            .retain(|h| keep(format!("allow_hosts={}", h.trim())));
        self.allow_packages
            .retain(|h| keep(format!("allow_packages={}", h.trim())));
        self.allow_emails
            .retain(|h| keep(format!("allow_emails={}", h.trim())));
        self.allow_phones
            .retain(|h| keep(format!("allow_phones={}", h.trim())));
        if self.rules_default == crate::user_rules::DefaultAction::Pass
            && !keep("rules_default=pass".to_owned())
        {
            self.rules_default = crate::user_rules::DefaultAction::Judge;
        }
        if !self.mcp.redaction.enabled && !keep("mcp.redaction.enabled=false".to_owned()) {
            self.mcp.redaction.enabled = true;
        }
        if self.mcp.changed_tools == ChangedTools::Ask && !keep("mcp.changed_tools=ask".to_owned())
        {
            self.mcp.changed_tools = ChangedTools::Block;
        }
        self.rules.retain(|r| {
            r.action != crate::user_rules::RuleAction::Pass
                || keep(format!("rule={}", r.canonical()))
        });
        if self
            .export
            .otlp
            .as_ref()
            .is_some_and(|o| !keep(otlp_entry(o)))
        {
            self.export.otlp = None;
        }
        if self
            .export
            .syslog
            .as_ref()
            .is_some_and(|s| !keep(syslog_entry(s)))
        {
            self.export.syslog = None;
        }
        dropped
    }
}

fn export_field(field: String, message: &str) -> PolicyError {
    PolicyError::Field {
        file: "config".into(),
        field,
        message: message.to_owned(),
    }
}

/// Check `[export]` and put it in the form the exporters take: the OTLP endpoint as the full
/// logs URL (`/v1/logs` added to a bare base URL), the syslog address as `host:port`.
fn compile_export(cfg: &ExportConfig) -> Result<ExportConfig, PolicyError> {
    let mut out = cfg.clone();
    if let Some(o) = out.otlp.as_mut() {
        if o.protocol == OtlpProtocol::Grpc {
            return Err(export_field(
                "export.otlp.protocol".into(),
                "`grpc` is not supported (it needs an async runtime the guard service does not link); use `http/protobuf` (collectors listen for it on port 4318)",
            ));
        }
        let mut url = url::Url::parse(o.endpoint.trim()).map_err(|_| {
            export_field(
                "export.otlp.endpoint".into(),
                "expected a URL such as `http://127.0.0.1:4318`",
            )
        })?;
        if !matches!(url.scheme(), "http" | "https")
            || url.host_str().is_none_or(str::is_empty)
            || !url.username().is_empty()
            || url.password().is_some()
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(export_field(
                "export.otlp.endpoint".into(),
                "expected an `http://` or `https://` URL with a host, without credentials, query or fragment (put tokens in `headers`)",
            ));
        }
        if url.path().is_empty() || url.path() == "/" {
            url.set_path("/v1/logs");
        }
        o.endpoint = url.to_string();
        for (name, value) in &o.headers {
            let token = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if !token {
                return Err(export_field(
                    format!("export.otlp.headers.{name}"),
                    "expected a header name (letters, digits, `-`)",
                ));
            }
            if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
                return Err(export_field(
                    format!("export.otlp.headers.{name}"),
                    "a header value cannot hold control characters or line breaks",
                ));
            }
        }
        if o.timeout_ms.is_some_and(|t| t == 0 || t > 30_000) {
            return Err(export_field(
                "export.otlp.timeout_ms".into(),
                "expected 1 to 30000 milliseconds",
            ));
        }
    }
    if let Some(s) = out.syslog.as_mut() {
        let a = s.address.trim().to_owned();
        let (host, port) = a.rsplit_once(':').ok_or_else(|| {
            export_field(
                "export.syslog.address".into(),
                "expected `host:port`, e.g. `127.0.0.1:514`",
            )
        })?;
        let host_ok = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            v6.parse::<std::net::Ipv6Addr>().is_ok()
        } else {
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        };
        if !host_ok || !matches!(port.parse::<u16>(), Ok(p) if p != 0) {
            return Err(export_field(
                "export.syslog.address".into(),
                "expected `host:port`, e.g. `127.0.0.1:514` (`[::1]:514` for IPv6)",
            ));
        }
        s.address = a;
    }
    Ok(out)
}

/// Facts about the machine, supplied by the caller (the engine never looks them up).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostFacts {
    /// The user's home directory, absolute.
    pub home: Option<String>,
    /// Airlock's own files and folders (config, store, hook scripts, binaries).
    pub protected_paths: Vec<String>,
}

/// Destinations that ordinary development talks to all day.
pub const DEFAULT_ALLOW_HOSTS: &[&str] = &[
    "localhost",
    "github.com",
    "*.github.com",
    "*.githubusercontent.com",
    "ghcr.io",
    "gitlab.com",
    "bitbucket.org",
    "crates.io",
    "*.crates.io",
    "docs.rs",
    "rust-lang.org",
    "*.rust-lang.org",
    "rustup.rs",
    "npmjs.org",
    "*.npmjs.org",
    "npmjs.com",
    "*.npmjs.com",
    "yarnpkg.com",
    "*.yarnpkg.com",
    "pypi.org",
    // Vendor package indexes that install guides name (`--index-url`).
    "download.pytorch.org",
    "pypi.nvidia.com",
    "*.pypi.org",
    "pythonhosted.org",
    "*.pythonhosted.org",
    "python.org",
    "*.python.org",
    "go.dev",
    "*.go.dev",
    "golang.org",
    "*.golang.org",
    "maven.org",
    "*.maven.org",
    "gradle.org",
    "*.gradle.org",
    "nodejs.org",
    "*.nodejs.org",
    "developer.mozilla.org",
    "stackoverflow.com",
    "docker.io",
    "*.docker.io",
    "docker.com",
    "*.docker.com",
    "quay.io",
    "kubernetes.io",
    "learn.microsoft.com",
    "readthedocs.io",
    "*.readthedocs.io",
    "readthedocs.org",
    "wikipedia.org",
    "*.wikipedia.org",
    "tauri.app",
    "*.tauri.app",
];

/// Hosts whose main use is receiving data from strangers: paste bins, request catchers,
/// tunnels, out-of-band collaborators.
pub const EXFIL_HOSTS: &[&str] = &[
    "webhook.site",
    "*.webhook.site",
    "requestbin.com",
    "*.requestbin.com",
    "requestbin.net",
    "*.pipedream.net",
    "pipedream.com",
    "*.ngrok.io",
    "*.ngrok-free.app",
    "*.ngrok.app",
    "pastebin.com",
    "paste.ee",
    "hastebin.com",
    "transfer.sh",
    "file.io",
    "0x0.st",
    "termbin.com",
    "*.oast.fun",
    "*.oast.me",
    "*.oast.pro",
    "*.oast.live",
    "*.oast.site",
    "*.oast.online",
    "*.interact.sh",
    "*.burpcollaborator.net",
    "*.trycloudflare.com",
    "*.requestcatcher.com",
    "beeceptor.com",
    "*.beeceptor.com",
    "*.free.beeceptor.com",
    "hookbin.com",
    "*.hookbin.com",
    "postb.in",
    "dpaste.org",
    "ix.io",
];

/// Packages that `npx -y` and friends may fetch and run without asking.
pub const DEFAULT_ALLOW_PACKAGES: &[&str] = &[
    // Testing, linting, release and load tools run by name in their own docs.
    "autocannon",
    "secretlint",
    "linkinator",
    "semantic-release",
    "madge",
    "wait-on",
    "commitlint",
    "cspell",
    "publint",
    "@arethetypeswrong/cli",
    "tsc-watch",
    "vite-node",
    "cdk",
    "aws-cdk",
    "typescript",
    "tsc",
    "prettier",
    "eslint",
    "jest",
    "vitest",
    "svelte-check",
    "vite",
    "create-react-app",
    "create-next-app",
    "create-vite",
    "next",
    "nx",
    "turbo",
    "tsx",
    "ts-node",
    "playwright",
    "@playwright/test",
    "prisma",
    "@tauri-apps/cli",
    "@modelcontextprotocol/inspector",
    "@modelcontextprotocol/server-filesystem",
    "@modelcontextprotocol/server-everything",
    // The MCP project's other reference servers (the scope is the project's own).
    "@modelcontextprotocol/server-memory",
    "@modelcontextprotocol/server-sequential-thinking",
    "@modelcontextprotocol/server-github",
    "@modelcontextprotocol/server-gitlab",
    "@modelcontextprotocol/server-postgres",
    "@modelcontextprotocol/server-puppeteer",
    "@modelcontextprotocol/server-slack",
    "@modelcontextprotocol/server-brave-search",
    "@modelcontextprotocol/server-google-maps",
    "@modelcontextprotocol/server-redis",
    // Vendors' own MCP servers, under their own scope or name (exact names).
    "@playwright/mcp",
    "chrome-devtools-mcp",
    "@upstash/context7-mcp",
    "@sentry/mcp-server",
    "@notionhq/notion-mcp-server",
    "@stripe/mcp",
    "@supabase/mcp-server-supabase",
    "@cloudflare/mcp-server-cloudflare",
    "@azure/mcp",
    "gh-pages",
    "npm-check-updates",
    "serve",
    "http-server",
    "rimraf",
    "husky",
    "lint-staged",
    "lefthook",
    "@yarnpkg/sdks",
    "wrangler",
    "vercel",
    "ruff",
    "black",
    "pytest",
    "mypy",
    "pre-commit",
    // The Python packaging authority's own tools (`uvx twine check dist/*`).
    "twine",
    "build",
    "pip-tools",
    "pipx",
    "tox",
    "nox",
    "hatch",
    "cibuildwheel",
    "check-wheel-contents",
    // Scopes of projects whose codemods and generators agents run (`npx @eslint/migrate-config`,
    // `npx @turbo/codemod`): only the project can publish under its scope. MCP servers stay
    // listed by exact name above: a misspelt server name is asked about, whoever owns it.
    "@eslint/*",
    "@typescript-eslint/*",
    "@turbo/*",
    "@angular/*",
    "@angular-devkit/*",
    "@schematics/*",
    "@vue/*",
    "@nestjs/*",
    "@docusaurus/*",
    "@storybook/*",
    "@vercel/*",
    "@nx/*",
    "@biomejs/*",
    "@sveltejs/*",
    "@astrojs/*",
    "@remix-run/*",
    "@changesets/*",
    "@commitlint/*",
    "@graphql-codegen/*",
    "@nuxt/*",
    "@vitejs/*",
    "@babel/*",
    "@swc/*",
    "@prisma/*",
    "@tailwindcss/*",
    "@aws-cdk/*",
    "@redwoodjs/*",
    "@ionic/*",
    "@capacitor/*",
    "@electron-forge/*",
    // Widely used project CLIs (exact names: a look-alike is still asked about).
    "expo",
    "@expo/cli",
    "react-native",
    "@react-native-community/cli",
    "@angular/cli",
    "@vue/cli",
    "create-vue",
    "nuxi",
    "astro",
    "create-astro",
    "sv",
    "storybook",
    "tailwindcss",
    "@tailwindcss/cli",
    "postcss",
    "webpack",
    "webpack-cli",
    "rollup",
    "esbuild",
    "@babel/cli",
    "nodemon",
    "concurrently",
    "cross-env",
    "mocha",
    "cypress",
    "knip",
    "depcheck",
    "typeorm",
    "sequelize-cli",
    "knex",
    "drizzle-kit",
    "@nestjs/cli",
    "source-map-explorer",
    "firebase-tools",
    "netlify-cli",
    "degit",
    "shadcn",
    "@biomejs/biome",
    "oxlint",
    "@changesets/cli",
    "lerna",
    "electron",
    "electron-builder",
    "json-server",
    "markdownlint-cli",
    "stylelint",
    "typedoc",
    "openapi-typescript",
    "supabase",
    "pyright",
    "isort",
    "flake8",
    "pylint",
    "cookiecutter",
    "mkdocs",
    "hatch",
    "tox",
    "nox",
    // Everyday utility CLIs run through `npx`.
    "kill-port",
    "git-cliff",
    "npkill",
    "envinfo",
    "license-checker",
    "npm-check",
    "sort-package-json",
    "syncpack",
    "patch-package",
    "release-it",
    "commitizen",
    "@commitlint/cli",
    "size-limit",
    "ts-prune",
    "dependency-cruiser",
    "lighthouse",
    "@lhci/cli",
    "wscat",
    "@openapitools/openapi-generator-cli",
    "markdownlint-cli2",
    "dotenv-cli",
    "dotenv",
    "env-cmd",
    // Build, test, lint and codegen CLIs projects run through `npx` (exact names).
    "vue-tsc",
    "tsup",
    "jscodeshift",
    "c8",
    "nyc",
    "pa11y",
    "@axe-core/cli",
    "dprint",
    "tsd",
    "npm-run-all",
    "npm-run-all2",
    "type-coverage",
    "@redocly/cli",
    "@stoplight/spectral-cli",
    // Project generators that `npm create NAME` runs (as `create-NAME`).
    "create-t3-app",
    "create-svelte",
    "create-remix",
    "create-expo-app",
    "create-nx-workspace",
    "create-turbo",
    "create-electron-app",
    "create-docusaurus",
    "create-tauri-app",
    "create-solid",
    "create-qwik",
    "create-hono",
    "create-cloudflare",
    "create-playwright",
    "create-react-router",
    "create-nuxt",
    "create-video",
    "create-tsrouter-app",
    "create-rsbuild",
    "create-vuepress",
    "create-strapi-app",
    "create-redwood-app",
    "create-payload-app",
    "create-medusa-app",
    "@angular/create",
    "@sveltejs/create",
    "@vitejs/create-app",
];

/// A compiled destination pattern: exact host or `*.suffix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostPattern {
    Exact(String),
    Suffix(String),
}

impl HostPattern {
    fn parse(s: &str) -> Option<HostPattern> {
        let s = s.trim().trim_end_matches('.').to_ascii_lowercase();
        if s.is_empty() || s.contains(['/', ' ', ':']) {
            return None;
        }
        match s.strip_prefix("*.") {
            Some(rest) if !rest.is_empty() => Some(HostPattern::Suffix(format!(".{rest}"))),
            Some(_) => None,
            None => Some(HostPattern::Exact(s)),
        }
    }

    pub(crate) fn matches(&self, host: &str) -> bool {
        match self {
            HostPattern::Exact(h) => host == h,
            HostPattern::Suffix(sfx) => host.ends_with(sfx.as_str()),
        }
    }
}

/// The compiled policy: the only form the engine accepts.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    pub enforcement: Enforcement,
    pub(crate) allow_hosts: Vec<HostPattern>,
    pub(crate) exfil_hosts: Vec<HostPattern>,
    pub(crate) allow_packages: Vec<String>,
    /// (local part or `*`, domain pattern).
    pub(crate) allow_emails: Vec<(String, HostPattern)>,
    pub(crate) allow_phones: Vec<String>,
    pub(crate) home: Option<String>,
    pub(crate) protected_paths: Vec<String>,
    pub turn_gate: TurnGate,
    pub screening: ScreeningConfig,
    pub(crate) rules: Vec<crate::user_rules::UserRule>,
    pub(crate) rules_default: crate::user_rules::DefaultAction,
    /// Where the JSONL copy of the audit log goes (`~/` expanded), and what it includes.
    pub audit: AuditConfig,
    /// Where decisions and ledger events are sent (validated; the OTLP endpoint is the full
    /// logs URL).
    pub export: ExportConfig,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::compile(&PolicyConfig::default(), &HostFacts::default())
            .unwrap_or_else(|_| Policy::empty())
    }
}

impl Policy {
    fn empty() -> Policy {
        Policy {
            mode: Mode::Balanced,
            enforcement: Enforcement::Enforce,
            allow_hosts: Vec::new(),
            exfil_hosts: Vec::new(),
            allow_packages: Vec::new(),
            allow_emails: Vec::new(),
            allow_phones: Vec::new(),
            home: None,
            protected_paths: Vec::new(),
            turn_gate: TurnGate::On,
            screening: ScreeningConfig::default(),
            rules: Vec::new(),
            rules_default: crate::user_rules::DefaultAction::Judge,
            audit: AuditConfig::default(),
            export: ExportConfig::default(),
        }
    }

    /// Parse a `config.toml` text. `file` names it in errors.
    pub fn parse_config(text: &str, file: &str) -> Result<PolicyConfig, PolicyError> {
        toml::from_str::<PolicyConfig>(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            PolicyError::Config {
                file: file.to_owned(),
                line,
                column,
                message: e.message().to_owned(),
            }
        })
    }

    /// Compile a parsed configuration plus host facts into a policy.
    pub fn compile(config: &PolicyConfig, facts: &HostFacts) -> Result<Policy, PolicyError> {
        let mut p = Policy::empty();
        p.mode = config.mode;
        p.enforcement = config.enforcement;
        p.turn_gate = config.turn_gate;
        p.screening = config.screening;
        for h in DEFAULT_ALLOW_HOSTS {
            if let Some(pat) = HostPattern::parse(h) {
                p.allow_hosts.push(pat);
            }
        }
        for h in EXFIL_HOSTS {
            if let Some(pat) = HostPattern::parse(h) {
                p.exfil_hosts.push(pat);
            }
        }
        for (i, h) in config.allow_hosts.iter().enumerate() {
            let pat = HostPattern::parse(h).ok_or_else(|| PolicyError::Field {
                file: "config".into(),
                field: format!("allow_hosts[{i}]"),
                message: "expected a host name or `*.suffix`, without scheme, port or path".into(),
            })?;
            p.allow_hosts.push(pat);
        }
        for (i, e) in config.allow_emails.iter().enumerate() {
            let bad = || PolicyError::Field {
                file: "config".into(),
                field: format!("allow_emails[{i}]"),
                message: "expected `name@domain`, `*@domain` or `*@*.domain`".into(),
            };
            let e = e.trim().to_ascii_lowercase();
            let (local, domain) = e.split_once('@').ok_or_else(bad)?;
            if local.is_empty() || (local.contains(['*', ' ']) && local != "*") {
                return Err(bad());
            }
            let pat = HostPattern::parse(domain).ok_or_else(bad)?;
            p.allow_emails.push((local.to_owned(), pat));
        }
        for (i, ph) in config.allow_phones.iter().enumerate() {
            let n = crate::rules::mcp_recipients::normalize_phone(ph).ok_or_else(|| {
                PolicyError::Field {
                    file: "config".into(),
                    field: format!("allow_phones[{i}]"),
                    message: "expected a phone number of 7 to 15 digits, e.g. `+1 555 123 4567`"
                        .into(),
                }
            })?;
            p.allow_phones.push(n);
        }
        p.allow_packages = DEFAULT_ALLOW_PACKAGES
            .iter()
            .map(|s| (*s).to_owned())
            .chain(config.allow_packages.iter().map(|s| s.trim().to_owned()))
            .filter(|s| !s.is_empty())
            .collect();
        p.home = facts
            .home
            .as_deref()
            .map(|h| h.trim_end_matches('/').to_owned())
            .filter(|h| !h.is_empty());
        p.protected_paths = facts
            .protected_paths
            .iter()
            .map(|s| crate::paths::normalize(s, None, p.home.as_deref()))
            .filter(|s| s.len() > 1)
            .collect();
        p.rules = crate::user_rules::compile(&config.rules, p.home.as_deref(), "config")?;
        p.rules_default = config.rules_default;
        p.audit = config.audit.clone();
        if let Some(j) = &p.audit.jsonl {
            let path = match (j.strip_prefix("~/"), p.home.as_deref()) {
                (Some(rest), Some(h)) => format!("{h}/{rest}"),
                _ => j.clone(),
            };
            if !path.starts_with('/') {
                return Err(PolicyError::Field {
                    file: "config".into(),
                    field: "audit.jsonl".into(),
                    message: "expected an absolute path or one starting with `~/`".into(),
                });
            }
            p.audit.jsonl = Some(path);
        }
        p.export = compile_export(&config.export)?;
        Ok(p)
    }

    /// Shorthand used by tests and benchmarks: the default policy in another mode.
    pub fn with_mode(mut self, mode: Mode) -> Policy {
        self.mode = mode;
        self
    }

    pub fn with_enforcement(mut self, enforcement: Enforcement) -> Policy {
        self.enforcement = enforcement;
        self
    }

    pub fn home(&self) -> Option<&str> {
        self.home.as_deref()
    }

    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        self.allow_hosts.iter().any(|p| p.matches(host))
    }

    /// Is this (lower-cased) e-mail address on the user's list?
    pub(crate) fn email_allowed(&self, email: &str) -> bool {
        let Some((local, domain)) = email.rsplit_once('@') else {
            return false;
        };
        self.allow_emails
            .iter()
            .any(|(l, d)| (l == "*" || l == local) && d.matches(domain))
    }

    /// Is this (normalised) phone number on the user's list? Compared on digits, so
    /// `+15551234567` and `15551234567` match.
    pub(crate) fn phone_allowed(&self, phone: &str) -> bool {
        let digits = |s: &str| s.trim_start_matches('+').to_owned();
        self.allow_phones.iter().any(|p| digits(p) == digits(phone))
    }

    pub(crate) fn has_email_list(&self) -> bool {
        !self.allow_emails.is_empty()
    }

    pub(crate) fn has_phone_list(&self) -> bool {
        !self.allow_phones.is_empty()
    }

    pub(crate) fn host_is_exfil(&self, host: &str) -> bool {
        self.exfil_hosts.iter().any(|p| p.matches(host))
    }

    pub(crate) fn package_allowed(&self, pkg: &str) -> bool {
        // `pkg@1.2.3` and `@scope/pkg@1` compare by name.
        let name = match pkg.rfind('@') {
            Some(i) if i > 0 => pkg.get(..i).unwrap_or(pkg),
            _ => pkg,
        };
        // `@scope/*`: every package of a scope, which only its owner on the registry can
        // publish to (a look-alike scope is another name, still asked about).
        self.allow_packages.iter().any(|p| {
            p == name
                || p.strip_suffix("/*").is_some_and(|scope| {
                    scope.starts_with('@')
                        && name
                            .strip_prefix(scope)
                            .is_some_and(|rest| rest.len() > 1 && rest.starts_with('/'))
                })
        })
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_order_is_strictness() {
        assert!(Mode::Light < Mode::Balanced);
        assert!(Mode::Balanced < Mode::Strict);
        assert!(Mode::Strict < Mode::Paranoid);
        let thresholds: Vec<usize> = Mode::ALL
            .iter()
            .map(|m| m.bulk_delete_threshold())
            .collect();
        assert_eq!(thresholds, vec![100, 25, 10, 3]);
    }

    #[test]
    fn config_errors_name_line_and_field() {
        let err = Policy::parse_config(
            "mode = \"balanced\"\nenforcement = \"sometimes\"\n",
            "c.toml",
        )
        .unwrap_err();
        match err {
            PolicyError::Config { file, line, .. } => {
                assert_eq!(file, "c.toml");
                assert_eq!(line, 2);
            }
            other => panic!("unexpected {other:?}"),
        }
        let err = Policy::parse_config("colour = 1\n", "c.toml").unwrap_err();
        assert!(err.to_string().contains("colour"), "{err}");
        let cfg = Policy::parse_config("allow_hosts = [\"https://x.com/a\"]", "c.toml").unwrap();
        assert!(matches!(
            Policy::compile(&cfg, &HostFacts::default()),
            Err(PolicyError::Field { .. })
        ));
    }

    #[test]
    fn host_patterns() {
        let cfg = Policy::parse_config("allow_hosts = [\"*.corp.example\", \"api.example\"]", "c")
            .unwrap();
        let p = Policy::compile(&cfg, &HostFacts::default()).unwrap();
        for (h, want) in [
            ("api.example", true),
            ("x.api.example", false),
            ("git.corp.example", true),
            ("corp.example", false),
            ("github.com", true),
            ("raw.githubusercontent.com", true),
            ("evil.example", false),
            ("github.com.evil.example", false),
        ] {
            assert_eq!(p.host_allowed(h), want, "{h}");
        }
        assert!(p.host_is_exfil("webhook.site"));
        assert!(p.package_allowed("prettier@3.1.0"));
        assert!(!p.package_allowed("some-unknown-pkg"));
        // A scope listed whole: its packages, not a look-alike scope or the bare scope.
        assert!(p.package_allowed("@eslint/migrate-config"));
        assert!(p.package_allowed("@turbo/codemod@latest"));
        assert!(!p.package_allowed("@eslint-config/migrate"));
        assert!(!p.package_allowed("@esl1nt/migrate-config"));
        assert!(!p.package_allowed("@eslint"));
        assert!(!p.package_allowed("@eslint/"));
    }

    #[test]
    fn recipient_lists_compile_or_name_the_field() {
        let cfg = Policy::parse_config(
            "allow_emails = [\"Me@Home.example\", \"*@corp.example\", \"*@*.corp.example\"]\nallow_phones = [\"+1 (555) 123-4567\"]",
            "c",
        )
        .unwrap();
        let p = Policy::compile(&cfg, &HostFacts::default()).unwrap();
        assert!(p.email_allowed("me@home.example"));
        assert!(!p.email_allowed("you@home.example"));
        assert!(p.email_allowed("anyone@corp.example"));
        assert!(p.email_allowed("a@eu.corp.example"));
        assert!(!p.email_allowed("a@corp.example.evil"));
        assert!(p.phone_allowed("+15551234567") && p.phone_allowed("15551234567"));
        assert!(!p.phone_allowed("+15551234568"));
        for (text, field) in [
            ("allow_emails = [\"nobody\"]", "allow_emails[0]"),
            ("allow_emails = [\"a*b@x.example\"]", "allow_emails[0]"),
            (
                "allow_emails = [\"ok@x.example\", \"x@https://y\"]",
                "allow_emails[1]",
            ),
            ("allow_phones = [\"call me\"]", "allow_phones[0]"),
        ] {
            let cfg = Policy::parse_config(text, "c").unwrap();
            match Policy::compile(&cfg, &HostFacts::default()) {
                Err(PolicyError::Field { field: f, .. }) => assert_eq!(f, field, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
