//! The user's own rules in the policy file: per-tool and per-server, with globs, argument
//! matchers, first match wins, and a default.
//!
//! ```toml
//! rules_default = "judge"          # no rule matched: Airlock's own verdict (or ask / never)
//!
//! [[rules]]
//! name = "no-deletes-on-github"
//! server = "github"                # MCP server (glob)
//! tool = "delete_*"                # MCP tool, or the host's tool name (Bash, Write, …)
//! action = "never"                 # never → BLOCK, ask → AUTH, pass → lowers AUTH to PASS
//!
//! [[rules]]
//! name = "infra-is-off-limits"
//! paths = ["infra/**"]             # any path the call reads, writes or deletes (resolved;
//! action = "never"                 # relative globs are relative to the project)
//!
//! [[rules]]
//! name = "ask-before-terraform"
//! programs = ["terraform", "tofu"]
//! action = "ask"
//!
//! [[rules]]
//! server = "mail"
//! tool = "send_*"
//! args = { to = "*@corp.example" } # an argument matcher (glob, or { regex = "…" })
//! action = "pass"
//! ```
//!
//! The first matching rule decides, except that every matching `never` rule applies wherever
//! it stands (nothing placed before it can shadow it).
//!
//! **Raise-only:** `ask` and `never` only ever add a finding. `pass` (and `rules_default =
//! "pass"`) lowers AUTH findings — never a BLOCK — and is a *loosening*: the caller
//! ([`crate::PolicyConfig::loosening_entries`]) keeps it out of the compiled policy until the
//! user approved it with the factor. A `never` rule is a hard block: it holds in `monitor`.
//! Rules judge what the call does (resolved paths, programs that run, destinations), not the
//! text it contains.

use std::collections::BTreeMap;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::action::{Action, Operation};
use crate::effects::Effects;
use crate::paths;
use crate::policy::PolicyError;
use crate::shell::ShellAnalysis;
use crate::verdict::{Finding, Reason, ReasonReport, Verdict};

pub const POLICY_RULE_ASK: Reason = Reason::new(
    "policy_rule",
    "A rule in your policy file asks for approval of this call.",
);
pub const POLICY_RULE_NEVER: Reason = Reason::new(
    "policy_rule_never",
    "A rule in your policy file forbids this call.",
);

/// What a rule does when it is the first to match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    /// Lower AUTH findings to PASS (never a BLOCK). A loosening: needs approval.
    #[serde(alias = "allow")]
    Pass,
    /// AUTH.
    #[serde(alias = "auth", alias = "require-approval")]
    Ask,
    /// BLOCK, in every mode and under `monitor`.
    #[serde(alias = "deny", alias = "block")]
    Never,
}

/// What happens when no rule matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DefaultAction {
    /// Airlock's own verdict.
    #[default]
    Judge,
    /// Lower AUTH to PASS (a loosening: needs approval).
    #[serde(alias = "allow")]
    Pass,
    #[serde(alias = "auth", alias = "require-approval")]
    Ask,
    #[serde(alias = "deny", alias = "block")]
    Never,
}

/// An argument matcher: a glob over the argument's text, a regex, or `{ recipient = true }`
/// (the argument names an e-mail address, phone number or URL that is not on your allow
/// lists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ArgMatcher {
    Glob(String),
    Regex { regex: String },
    Recipient { recipient: bool },
}

/// One `[[rules]]` entry as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// Shown in the log and the popup (`policy_rule:<name>`); defaults to `rule-<n>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The kind of call: `shell`, `file_read`, `file_write`, `file_delete`, `fetch`,
    /// `mcp_call`, `prompt_turn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Glob over the tool: an MCP call's tool name, or the host's tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Glob over the MCP server name (the rule then matches MCP calls only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Globs over the paths the call reads, writes or deletes (resolved; relative globs are
    /// relative to the project, `~/` is home).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Globs over the programs a shell call runs (basenames).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<String>,
    /// Globs over the hosts the call sends to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// MCP arguments (`name` or `a.b` for nested objects) and what their text must match.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, ArgMatcher>,
    pub action: RuleAction,
}

impl RuleConfig {
    /// The rule as one canonical line (for approval and the ledger).
    pub fn canonical(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("{self:?}"))
    }
}

#[derive(Debug, Clone)]
enum CompiledArg {
    Glob(GlobMatcher),
    Regex(regex::Regex),
    /// `true`: an unlisted recipient; `false`: no unlisted recipient.
    Recipient(bool),
}

/// A compiled rule.
#[derive(Debug, Clone)]
pub(crate) struct UserRule {
    name: String,
    kind: Option<String>,
    tool: Option<GlobMatcher>,
    server: Option<GlobMatcher>,
    abs_paths: Option<GlobSet>,
    rel_paths: Option<GlobSet>,
    programs: Option<GlobSet>,
    hosts: Option<GlobSet>,
    args: Vec<(String, CompiledArg)>,
    pub(crate) action: RuleAction,
}

const KINDS: &[&str] = &[
    "shell",
    "file_read",
    "file_write",
    "file_delete",
    "fetch",
    "mcp_call",
    "prompt_turn",
    "internal",
    "unknown_tool",
];

fn glob(pat: &str, field: &str, file: &str, literal_sep: bool) -> Result<GlobMatcher, PolicyError> {
    GlobBuilder::new(pat)
        .literal_separator(literal_sep)
        .case_insensitive(!literal_sep)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| PolicyError::Field {
            file: file.into(),
            field: field.into(),
            message: format!("not a valid glob: {}", e.kind()),
        })
}

fn glob_set(
    pats: &[String],
    field: &str,
    file: &str,
    literal_sep: bool,
) -> Result<Option<GlobSet>, PolicyError> {
    if pats.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for (i, p) in pats.iter().enumerate() {
        let g = GlobBuilder::new(p)
            .literal_separator(literal_sep)
            .case_insensitive(!literal_sep)
            .build()
            .map_err(|e| PolicyError::Field {
                file: file.into(),
                field: format!("{field}[{i}]"),
                message: format!("not a valid glob: {}", e.kind()),
            })?;
        b.add(g);
    }
    b.build().map(Some).map_err(|e| PolicyError::Field {
        file: file.into(),
        field: field.into(),
        message: e.to_string(),
    })
}

/// Compile the rules (the caller has already dropped unapproved loosenings).
pub(crate) fn compile(
    rules: &[RuleConfig],
    home: Option<&str>,
    file: &str,
) -> Result<Vec<UserRule>, PolicyError> {
    let mut out = Vec::with_capacity(rules.len());
    for (i, r) in rules.iter().enumerate() {
        let at = |f: &str| format!("rules[{i}].{f}");
        if let Some(k) = &r.kind
            && !KINDS.contains(&k.as_str())
        {
            return Err(PolicyError::Field {
                file: file.into(),
                field: at("kind"),
                message: format!("unknown kind `{k}` (expected one of {})", KINDS.join(", ")),
            });
        }
        let (mut abs, mut rel) = (Vec::new(), Vec::new());
        for p in &r.paths {
            if let Some(rest) = p.strip_prefix("~/") {
                match home {
                    Some(h) => abs.push(format!("{}/{rest}", h.trim_end_matches('/'))),
                    // No home known: the glob cannot match a real path, so it is kept as is.
                    None => abs.push(p.clone()),
                }
            } else if p.starts_with('/') {
                abs.push(p.clone());
            } else {
                rel.push(p.trim_start_matches("./").to_owned());
            }
        }
        let mut args = Vec::new();
        for (k, m) in &r.args {
            let compiled = match m {
                ArgMatcher::Glob(g) => {
                    CompiledArg::Glob(glob(g, &at(&format!("args.{k}")), file, false)?)
                }
                ArgMatcher::Recipient { recipient } => CompiledArg::Recipient(*recipient),
                ArgMatcher::Regex { regex } => CompiledArg::Regex(
                    regex::RegexBuilder::new(regex)
                        .size_limit(1 << 20)
                        .build()
                        .map_err(|e| PolicyError::Field {
                            file: file.into(),
                            field: at(&format!("args.{k}.regex")),
                            message: format!("not a valid regex: {e}"),
                        })?,
                ),
            };
            args.push((k.clone(), compiled));
        }
        out.push(UserRule {
            name: r
                .name
                .clone()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| format!("rule-{}", i + 1)),
            kind: r.kind.clone(),
            tool: r
                .tool
                .as_deref()
                .map(|t| glob(t, &at("tool"), file, false))
                .transpose()?,
            server: r
                .server
                .as_deref()
                .map(|t| glob(t, &at("server"), file, false))
                .transpose()?,
            abs_paths: glob_set(&abs, &at("paths"), file, true)?,
            rel_paths: glob_set(&rel, &at("paths"), file, true)?,
            programs: glob_set(&r.programs, &at("programs"), file, false)?,
            hosts: glob_set(&r.hosts, &at("hosts"), file, false)?,
            args,
            action: r.action,
        });
    }
    Ok(out)
}

/// An argument's text by `name` or `a.b` (strings as they are, other values as JSON).
fn arg_text(args: &serde_json::Value, key: &str) -> Option<String> {
    let mut v = args;
    for part in key.split('.') {
        v = v.get(part)?;
    }
    Some(match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

impl UserRule {
    fn matches(
        &self,
        policy: &crate::Policy,
        action: &Action,
        sa: Option<&ShellAnalysis>,
        fx: &Effects,
    ) -> bool {
        if let Some(k) = &self.kind
            && action.kind().as_str() != k
        {
            return false;
        }
        let mcp = match &action.op {
            Operation::McpCall {
                server,
                tool,
                arguments,
                ..
            } => Some((server.as_str(), tool.as_str(), arguments)),
            _ => None,
        };
        if let Some(s) = &self.server {
            match mcp {
                Some((server, _, _)) if s.is_match(server) => {}
                _ => return false,
            }
        }
        if let Some(t) = &self.tool {
            let by_mcp = mcp.is_some_and(|(_, tool, _)| t.is_match(tool));
            if !by_mcp && !t.is_match(&action.tool) {
                return false;
            }
        }
        if !self.args.is_empty() {
            let Some((_, _, arguments)) = mcp else {
                return false;
            };
            for (k, m) in &self.args {
                let Some(text) = arg_text(arguments, k) else {
                    return false;
                };
                let ok = match m {
                    CompiledArg::Glob(g) => g.is_match(&text),
                    CompiledArg::Regex(r) => r.is_match(&text),
                    CompiledArg::Recipient(want) => {
                        crate::rules::mcp_recipients::unlisted_recipient(policy, &text) == *want
                    }
                };
                if !ok {
                    return false;
                }
            }
        }
        if self.abs_paths.is_some() || self.rel_paths.is_some() {
            let cwd = action.cwd.as_deref().map(|c| c.trim_end_matches('/'));
            let touched = fx
                .reads
                .iter()
                .map(|r| r.path.as_str())
                .chain(fx.writes.iter().map(|w| w.path.as_str()))
                .chain(fx.deletes.iter().map(|d| d.path.as_str()));
            let mut hit = false;
            for p in touched {
                if self.abs_paths.as_ref().is_some_and(|g| g.is_match(p)) {
                    hit = true;
                    break;
                }
                if let (Some(g), Some(c)) = (&self.rel_paths, cwd)
                    && let Some(rel) = p.strip_prefix(c).and_then(|r| r.strip_prefix('/'))
                    && g.is_match(rel)
                {
                    hit = true;
                    break;
                }
            }
            if !hit {
                return false;
            }
        }
        if let Some(g) = &self.programs {
            let ran = sa.is_some_and(|sa| {
                sa.invocations
                    .iter()
                    .any(|i| g.is_match(paths::basename(&i.program)))
            });
            if !ran {
                return false;
            }
        }
        if let Some(g) = &self.hosts {
            let sent = fx
                .egress
                .iter()
                .any(|e| e.dest.as_ref().is_some_and(|d| g.is_match(&d.host)));
            if !sent {
                return false;
            }
        }
        true
    }
}

/// The rules that apply: the first matching rule (else the default; nothing for `judge`),
/// plus every other matching `never` rule — a `never` holds wherever it stands, so no rule
/// placed before it can shadow it.
pub(crate) fn matching(
    policy: &crate::Policy,
    rules: &[UserRule],
    default: DefaultAction,
    action: &Action,
    sa: Option<&ShellAnalysis>,
    fx: &Effects,
) -> Vec<(String, RuleAction)> {
    let mut out: Vec<(String, RuleAction)> = Vec::new();
    for r in rules {
        if !r.matches(policy, action, sa, fx) {
            continue;
        }
        if out.is_empty() || r.action == RuleAction::Never {
            out.push((r.name.clone(), r.action));
        }
    }
    if out.is_empty() {
        let a = match default {
            DefaultAction::Judge => return out,
            DefaultAction::Pass => RuleAction::Pass,
            DefaultAction::Ask => RuleAction::Ask,
            DefaultAction::Never => RuleAction::Never,
        };
        out.push(("default".to_owned(), a));
    }
    out
}

/// Apply the rules to the findings: `ask` / `never` add one, `pass` drops the AUTH findings
/// that are not hard (a BLOCK always stays).
pub(crate) fn apply(matched: &[(String, RuleAction)], findings: &mut Vec<Finding>) {
    for (_, a) in matched {
        if *a == RuleAction::Pass {
            findings.retain(|f| f.verdict != Verdict::Auth || f.hard);
        }
    }
    for (_, a) in matched {
        match a {
            RuleAction::Ask => findings.push(Finding::new(POLICY_RULE_ASK, Verdict::Auth)),
            RuleAction::Never => findings.push(Finding::hard_block(POLICY_RULE_NEVER)),
            RuleAction::Pass => {}
        }
    }
}

pub const PROJECT_POLICY_INVALID: Reason = Reason::new(
    "project_policy_invalid",
    "This project's .airlock/policy.toml cannot be read or parsed, so every call in it is asked about.",
);

/// The project's own rules for this call: compiled on the fly (a project file is small), only
/// `ask` and `never` kept, names prefixed `project/`. A rule that does not compile makes the
/// call AUTH (`project_policy_invalid`).
pub(crate) fn project_matching(
    policy: &crate::Policy,
    rules: &[RuleConfig],
    home: Option<&str>,
    action: &Action,
    sa: Option<&ShellAnalysis>,
    fx: &Effects,
    findings: &mut Vec<Finding>,
) -> Vec<(String, RuleAction)> {
    let raising: Vec<RuleConfig> = rules
        .iter()
        .filter(|r| r.action != RuleAction::Pass)
        .cloned()
        .map(|mut r| {
            r.name = Some(format!("project/{}", r.name.as_deref().unwrap_or("rule")));
            r
        })
        .collect();
    if raising.is_empty() {
        return Vec::new();
    }
    match compile(&raising, home, ".airlock/policy.toml") {
        Ok(compiled) => compiled
            .iter()
            .filter(|r| r.matches(policy, action, sa, fx))
            .map(|r| (r.name.clone(), r.action))
            .collect(),
        Err(_) => {
            findings.push(Finding::new(PROJECT_POLICY_INVALID, Verdict::Auth));
            Vec::new()
        }
    }
}

/// Name the rules in the reported reasons (`policy_rule:<name>`, `policy_rule_never:<name>`):
/// the names are the user's own words from their policy file, never the payload.
pub(crate) fn name_in_report(matched: &[(String, RuleAction)], reasons: &mut Vec<ReasonReport>) {
    let template = |code: &str| reasons.iter().find(|r| r.code == code).cloned();
    let (ask, never) = (
        template(POLICY_RULE_ASK.code),
        template(POLICY_RULE_NEVER.code),
    );
    reasons.retain(|r| r.code != POLICY_RULE_ASK.code && r.code != POLICY_RULE_NEVER.code);
    let mut named = Vec::new();
    for (name, a) in matched {
        let (t, verb) = match a {
            RuleAction::Never => (&never, "forbids"),
            RuleAction::Ask => (&ask, "asks for approval of"),
            RuleAction::Pass => continue,
        };
        if let Some(t) = t {
            let name: String = name.chars().take(64).collect();
            named.push(ReasonReport {
                code: format!("{}:{name}", t.code),
                message: format!("Your policy rule `{name}` {verb} this call."),
                ..t.clone()
            });
        }
    }
    // Strongest first, as the report orders them.
    named.sort_by_key(|n| std::cmp::Reverse(n.verdict));
    let at = reasons
        .iter()
        .position(|r| r.verdict < named.first().map_or(Verdict::Pass, |n| n.verdict))
        .unwrap_or(reasons.len());
    reasons.splice(at..at, named);
}

#[cfg(test)]
mod tests {
    use crate::action::{Action, AnnotationInfo, Host, Operation, Provenance};
    use crate::policy::{Enforcement, HostFacts, Policy};
    use crate::{Engine, FingerprintKey, SessionState, Verdict};

    const CWD: &str = "/home/dev/project";

    fn engine(toml: &str) -> Engine {
        let cfg = Policy::parse_config(toml, "test.toml").unwrap();
        let facts = HostFacts {
            home: Some("/home/dev".into()),
            ..HostFacts::default()
        };
        Engine::new(
            Policy::compile(&cfg, &facts).unwrap(),
            FingerprintKey::new([1; 32]),
        )
        .unwrap()
    }

    fn mcp(server: &str, tool: &str, args: serde_json::Value) -> Action {
        Action {
            host: Host::ClaudeCode,
            tool: format!("mcp__{server}__{tool}"),
            op: Operation::McpCall {
                server: server.into(),
                tool: tool.into(),
                arguments: args,
                annotations: AnnotationInfo::Unknown,
            },
            cwd: Some(CWD.into()),
            provenance: Provenance::User,
            session_id: None,
        }
    }

    fn sh(cmd: &str) -> Action {
        Action::shell(Host::ClaudeCode, cmd, Some(CWD))
    }

    fn write(path: &str) -> Action {
        Action {
            host: Host::ClaudeCode,
            tool: "Write".into(),
            op: Operation::FileWrite {
                path: path.into(),
                content: "x = 1\n".into(),
            },
            cwd: Some(CWD.into()),
            provenance: Provenance::User,
            session_id: None,
        }
    }

    const RULES: &str = r#"
allow_emails = ["*@corp.example"]

[[rules]]
name = "no-github-deletes"
server = "github"
tool = "delete_*"
action = "never"

[[rules]]
name = "mail-to-corp"
server = "mail"
tool = "send_*"
args = { to = "*@corp.example" }
action = "never"

[[rules]]
name = "ask-before-send"
tool = "send_*"
action = "ask"

[[rules]]
name = "infra-off-limits"
paths = ["infra/**"]
action = "never"

[[rules]]
name = "ask-terraform"
programs = ["terraform", "tofu"]
action = "ask"

[[rules]]
name = "ask-pastebins"
hosts = ["*.pastebin.example", "pastebin.example"]
action = "ask"

[[rules]]
name = "mail-outside"
server = "mail"
tool = "forward_*"
args = { to = { recipient = true } }
action = "never"

[[rules]]
name = "ticket-ids"
server = "jira"
args = { key = { regex = "^SEC-[0-9]+$" } }
action = "ask"
"#;

    /// Each rule kind, with the nearest look-alike that must be left to Airlock.
    #[test]
    fn each_rule_kind_and_its_look_alike() {
        let e = engine(RULES);
        let s = SessionState::default();
        let cases: Vec<(Action, Verdict, &str)> = vec![
            (
                mcp("github", "delete_repo", serde_json::json!({"repo": "a/b"})),
                Verdict::Block,
                "policy_rule_never:no-github-deletes",
            ),
            (
                mcp("github", "get_repo", serde_json::json!({"repo": "a/b"})),
                Verdict::Pass,
                "",
            ),
            (
                mcp("slack", "send_message", serde_json::json!({"text": "hi"})),
                Verdict::Auth,
                "policy_rule:ask-before-send",
            ),
            (
                mcp("slack", "list_channels", serde_json::json!({})),
                Verdict::Pass,
                "",
            ),
            (
                write("/home/dev/project/infra/main.tf"),
                Verdict::Block,
                "policy_rule_never:infra-off-limits",
            ),
            (write("/home/dev/project/src/infra.rs"), Verdict::Pass, ""),
            (
                sh("cat infra/prod.tfvars"),
                Verdict::Block,
                "policy_rule_never:infra-off-limits",
            ),
            (
                sh("cd infra && rm -f old.tf"),
                Verdict::Block,
                "policy_rule_never:infra-off-limits",
            ),
            (
                sh("terraform apply -auto-approve"),
                Verdict::Auth,
                "policy_rule:ask-terraform",
            ),
            (sh("echo terraform"), Verdict::Pass, ""),
            (
                mcp(
                    "mail",
                    "send_email",
                    serde_json::json!({"to": "boss@corp.example"}),
                ),
                Verdict::Block,
                "policy_rule_never:mail-to-corp",
            ),
            (
                sh("curl -s https://pastebin.example/raw/x"),
                Verdict::Auth,
                "policy_rule:ask-pastebins",
            ),
            (sh("curl -s https://docs.rs/serde"), Verdict::Pass, ""),
            (
                mcp("jira", "get_issue", serde_json::json!({"key": "SEC-42"})),
                Verdict::Auth,
                "policy_rule:ticket-ids",
            ),
            (
                mcp("jira", "get_issue", serde_json::json!({"key": "DEV-42"})),
                Verdict::Pass,
                "",
            ),
            (
                mcp(
                    "mail",
                    "forward_message",
                    serde_json::json!({"to": "someone@elsewhere.example"}),
                ),
                Verdict::Block,
                "policy_rule_never:mail-outside",
            ),
        ];
        for (a, want, code) in cases {
            let d = e.decide(&a, &s);
            assert!(
                d.verdict >= want,
                "{:?}: {:?} {:?}",
                a.op,
                d.verdict,
                d.codes()
            );
            if want == Verdict::Pass {
                assert_eq!(d.verdict, Verdict::Pass, "{:?}: {:?}", a.op, d.codes());
            }
            if !code.is_empty() {
                assert!(d.codes().contains(&code), "{:?}: {:?}", a.op, d.codes());
            }
        }
        // A listed recipient: the rule does not match (Airlock alone decides).
        for to in ["me@corp.example", "https://github.com/o/r/issues"] {
            let d = e.decide(
                &mcp("mail", "forward_message", serde_json::json!({ "to": to })),
                &s,
            );
            assert!(
                !d.codes().iter().any(|c| c.contains("mail-outside")),
                "{to}: {:?}",
                d.codes()
            );
        }
        // gitlab/delete_repo: the github rule does not apply; Airlock alone decides.
        let d = e.decide(&mcp("gitlab", "delete_repo", serde_json::json!({})), &s);
        assert!(
            !d.codes().iter().any(|c| c.contains("no-github-deletes")),
            "{:?}",
            d.codes()
        );
    }

    /// A `never` rule is a hard block: it holds under `monitor`. A pass rule lowers AUTH, never
    /// a BLOCK; first match wins; the default applies when nothing matches.
    #[test]
    fn never_is_hard_pass_lowers_only_auth_first_match_wins() {
        let e = engine(RULES);
        let p = e.policy().clone().with_enforcement(Enforcement::Monitor);
        let m = e.with_policy(p);
        let d = m.decide(
            &write("/home/dev/project/infra/main.tf"),
            &SessionState::default(),
        );
        assert_eq!(d.effective, Verdict::Block);

        let e = engine(
            r#"
[[rules]]
programs = ["git"]
action = "pass"
[[rules]]
programs = ["git"]
action = "never"
"#,
        );
        let s = SessionState::default();
        // A `never` holds even behind a pass rule that matches first.
        assert_eq!(e.decide(&sh("git status"), &s).verdict, Verdict::Block);
        let e = engine(
            r#"
[[rules]]
programs = ["git"]
action = "pass"
[[rules]]
programs = ["git"]
action = "ask"
"#,
        );
        // git reset --hard is AUTH by Airlock: the first (pass) rule lowers it, and shadows
        // the later `ask`.
        let d = e.decide(&sh("git reset --hard HEAD~1"), &s);
        assert_eq!(d.verdict, Verdict::Pass, "{:?}", d.codes());
        // A hard block stays.
        assert_eq!(
            e.decide(&sh("git status; rm -rf ~"), &s).verdict,
            Verdict::Block
        );

        let e = engine("rules_default = \"ask\"\n[[rules]]\ntool = \"Read\"\naction = \"ask\"\n");
        let d = e.decide(&sh("ls"), &s);
        assert_eq!(d.verdict, Verdict::Auth);
        assert!(
            d.codes().contains(&"policy_rule:default"),
            "{:?}",
            d.codes()
        );
    }

    /// Bad rules are errors that name the field.
    #[test]
    fn bad_rules_name_the_field() {
        let facts = HostFacts::default();
        for (toml, field) in [
            (
                "[[rules]]\ntool = \"[\"\naction = \"ask\"\n",
                "rules[0].tool",
            ),
            (
                "[[rules]]\nkind = \"shel\"\naction = \"ask\"\n",
                "rules[0].kind",
            ),
            (
                "[[rules]]\nargs = { a = { regex = \"(\" } }\naction = \"ask\"\n",
                "rules[0].args.a.regex",
            ),
        ] {
            let cfg = Policy::parse_config(toml, "t.toml").unwrap();
            let err = Policy::compile(&cfg, &facts).unwrap_err().to_string();
            assert!(err.contains(field), "{toml}: {err}");
        }
        let err = Policy::parse_config("[[rules]]\naction = \"maybe\"\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("t.toml:2"), "{err}");
    }

    /// The loosening parts are listed one per line and can be kept out until approved.
    #[test]
    fn loosening_parts_are_listed_and_dropped_unless_approved() {
        let mut cfg = Policy::parse_config(
            "allow_hosts = [\"api.example.net\"]\nrules_default = \"pass\"\n[[rules]]\ntool = \"read_*\"\naction = \"pass\"\n[[rules]]\ntool = \"delete_*\"\naction = \"never\"\n",
            "t.toml",
        )
        .unwrap();
        let entries = cfg.loosening_entries();
        assert_eq!(entries.len(), 3, "{entries:?}");
        let approved: std::collections::BTreeSet<String> = entries
            .iter()
            .filter(|e| e.starts_with("allow_hosts"))
            .cloned()
            .collect();
        let dropped = cfg.keep_approved(&approved);
        assert_eq!(dropped.len(), 2);
        assert_eq!(cfg.allow_hosts, vec!["api.example.net".to_owned()]);
        assert_eq!(cfg.rules.len(), 1, "the never rule stays");
        assert_eq!(cfg.rules_default, super::DefaultAction::Judge);

        // Turning MCP redaction off is a loosening too.
        let mut cfg = Policy::parse_config("[mcp.redaction]\nenabled = false\n", "t.toml").unwrap();
        assert_eq!(
            cfg.loosening_entries(),
            vec!["mcp.redaction.enabled=false".to_owned()]
        );
        cfg.keep_approved(&std::collections::BTreeSet::new());
        assert!(cfg.mcp.redaction.enabled);
    }
}
