//! "Always, as a rule": scoped approvals that outlive the session (issue #14).
//!
//! A popup's *Always…* (or `airlock allow add --program … --project …`) writes an allow rule
//! with a [`Scope`]: the AUTH reasons it releases and what the call must be (kind, tool, MCP
//! server, the programs it runs, the paths it touches, where it sends, the project it runs
//! in), with an optional expiry. It is a weakening: it needs the factor and lands in the
//! ledger (`allow` rows, through [`crate::dials::add_allow_rule`]); removing it needs nothing.
//!
//! **What a scoped rule can release** ([`Scope::covers`]): an AUTH decision that is not high
//! risk, whose every AUTH reason is one the rule names, whose call the engine understood
//! completely (a truncated summary is never covered), and whose every program, every path and
//! every destination falls inside the rule's lists (a list that is set must cover all of them,
//! never just one). A BLOCK, a hard finding, a high-risk call or a new reason asks again.
//!
//! **Before it is saved** the rule is replayed ([`replay`]) against the labelled corpus built
//! into the binary: every attack it would have let through is shown to the human first.

use std::path::Path;

use airlock_engine::{CallSummary, Decision, Engine, Verdict};
use globset::GlobBuilder;
use serde::{Deserialize, Serialize};

use crate::CoreError;
use crate::custom::CustomRules;
use crate::eval::{self, Label};
use crate::settings::AllowRule;

/// Longest a rule can be set to last from the popup (the CLI takes any duration).
pub const MAX_EXPIRY_DAYS: u64 = 365;

/// What a scoped allow rule releases and where (see the module docs). Every field that is set
/// must hold for the rule to apply.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The AUTH reason codes it releases (every AUTH reason of the call must be one of them).
    pub reasons: Vec<String>,
    /// The kind of call: `shell`, `file_write`, `fetch`, `mcp_call`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Glob over the host's tool name (`Bash`, `Write`) or the MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Glob over the MCP server (the rule then covers MCP calls only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Programs the shell call may run: `name` or `name subcommand` (name is a glob). Every
    /// program the call runs must be one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<String>,
    /// Globs over the paths the call may touch (absolute, or relative to `project`). Every
    /// path the call reads, writes or deletes must match one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Globs over the hosts the call may send to. Every destination must match one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// The project folder the call must run in (its working directory at or below it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// When it stops applying (seconds since the Unix epoch); absent: until removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
}

fn glob_matches(pattern: &str, text: &str, path_like: bool) -> bool {
    GlobBuilder::new(pattern)
        .literal_separator(path_like)
        .case_insensitive(!path_like)
        .build()
        .map(|g| g.compile_matcher().is_match(text))
        // A pattern that does not compile matches nothing (validated when saved anyway).
        .unwrap_or(false)
}

/// Glob metacharacters written so they match themselves.
pub fn escape_glob(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '*' | '?' | '[' | ']' | '{' | '}' | '\\' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` at or below `dir` (by whole components).
fn within(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return path.starts_with('/');
    }
    path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

impl Scope {
    /// Has this rule run out at `now` (seconds since the epoch)?
    pub fn expired(&self, now: u64) -> bool {
        self.expires_at.is_some_and(|t| now >= t)
    }

    /// Does the rule release this decision on this call (see the module docs)?
    pub fn covers(&self, s: &CallSummary, d: &Decision, now: u64) -> bool {
        if self.expired(now)
            || d.effective != Verdict::Auth
            || d.high_risk
            || s.truncated
            || self.reasons.is_empty()
        {
            return false;
        }
        let mut any_auth = false;
        for r in &d.reasons {
            match r.verdict {
                Verdict::Pass => {}
                Verdict::Block => return false,
                Verdict::Auth if r.hard || !self.reasons.contains(&r.code) => return false,
                Verdict::Auth => any_auth = true,
            }
        }
        if !any_auth {
            return false;
        }
        if let Some(k) = &self.kind
            && s.kind.as_str() != k
        {
            return false;
        }
        if let Some(t) = &self.tool {
            let mcp_tool = s
                .mcp
                .as_ref()
                .is_some_and(|m| glob_matches(t, &m.tool, false));
            if !mcp_tool && !glob_matches(t, &s.tool, false) {
                return false;
            }
        }
        if let Some(server) = &self.server
            && !s
                .mcp
                .as_ref()
                .is_some_and(|m| glob_matches(server, &m.server, false))
        {
            return false;
        }
        if let Some(p) = &self.project
            && (s.cwd.is_empty() || !within(&s.cwd, p))
        {
            return false;
        }
        if !self.programs.is_empty()
            && (s.programs.is_empty()
                || !s.programs.iter().all(|p| {
                    self.programs.iter().any(|entry| {
                        let mut words = entry.split_whitespace();
                        let name = words.next().unwrap_or_default();
                        let sub = words.next();
                        glob_matches(name, &p.name, false) && sub.is_none_or(|w| w == p.subcommand)
                    })
                }))
        {
            return false;
        }
        if !self.paths.is_empty() {
            let mut touched = s
                .reads
                .iter()
                .chain(&s.writes)
                .chain(&s.deletes)
                .map(|t| t.path.as_str())
                .peekable();
            if touched.peek().is_none() || !touched.all(|p| self.path_allowed(p)) {
                return false;
            }
        }
        if !self.hosts.is_empty()
            && (s.destinations.is_empty()
                || !s
                    .destinations
                    .iter()
                    .all(|d| self.hosts.iter().any(|h| glob_matches(h, &d.host, false))))
        {
            return false;
        }
        true
    }

    fn path_allowed(&self, path: &str) -> bool {
        self.paths.iter().any(|g| {
            if g.starts_with('/') {
                glob_matches(g, path, true)
            } else {
                match &self.project {
                    Some(root) => {
                        let root = root.trim_end_matches('/');
                        path.strip_prefix(root)
                            .and_then(|r| r.strip_prefix('/'))
                            .is_some_and(|rel| glob_matches(g, rel, true))
                    }
                    None => false,
                }
            }
        })
    }

    /// Checks a rule before it is saved: reasons named, at least one thing it is bound to,
    /// every glob valid, relative paths only with a project, an absolute project.
    pub fn validate(&self) -> Result<(), CoreError> {
        let bad = |m: &str| Err(CoreError::Invalid(m.to_owned()));
        if self.reasons.is_empty() || self.reasons.iter().any(|r| r.trim().is_empty()) {
            return bad("a scoped rule names the reason codes it releases");
        }
        if self.kind.is_none()
            && self.tool.is_none()
            && self.server.is_none()
            && self.programs.is_empty()
            && self.paths.is_empty()
            && self.hosts.is_empty()
            && self.project.is_none()
        {
            return bad(
                "a scoped rule is bound to something: a tool, programs, paths, hosts or a project",
            );
        }
        if let Some(p) = &self.project
            && !Path::new(p).is_absolute()
        {
            return bad("a rule's project is an absolute folder");
        }
        let globs = self
            .tool
            .iter()
            .chain(&self.server)
            .chain(&self.hosts)
            .chain(&self.paths)
            .map(String::as_str)
            .chain(
                self.programs
                    .iter()
                    .filter_map(|p| p.split_whitespace().next()),
            );
        for g in globs {
            if g.trim().is_empty() || GlobBuilder::new(g).build().is_err() {
                return Err(CoreError::Invalid(format!("`{g}` is not a valid pattern")));
            }
        }
        if self
            .programs
            .iter()
            .any(|p| p.split_whitespace().count() > 2)
        {
            return bad("a program is `name` or `name subcommand`");
        }
        if self.project.is_none() && self.paths.iter().any(|p| !p.starts_with('/')) {
            return bad("relative paths need a project to be relative to");
        }
        Ok(())
    }

    /// The rule in words: `Bash running npm test, in /home/u/app (reasons two_step_exec)`.
    pub fn describe(&self, now: u64) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.tool {
            parts.push(t.clone());
        } else if let Some(k) = &self.kind {
            parts.push(k.replace('_', " "));
        }
        if let Some(s) = &self.server {
            parts.push(format!("on server {s}"));
        }
        if !self.programs.is_empty() {
            parts.push(format!("running {}", self.programs.join(" / ")));
        }
        if !self.paths.is_empty() {
            parts.push(format!("on {}", self.paths.join(", ")));
        }
        if !self.hosts.is_empty() {
            parts.push(format!("sending to {}", self.hosts.join(", ")));
        }
        match &self.project {
            Some(p) => parts.push(format!("in {p}")),
            None => parts.push("in any project".to_owned()),
        }
        parts.push(format!("(reasons {})", self.reasons.join(", ")));
        match self.expires_at {
            Some(t) if now >= t => parts.push("— expired".to_owned()),
            Some(t) => parts.push(format!("— expires in {}", crate::words::duration(t - now))),
            None => {}
        }
        parts.join(" ")
    }
}

/// Parses an expiry as people write it: `90m`, `12h`, `30d`, `2w` (a number and a unit).
pub fn parse_expiry(text: &str) -> Result<u64, CoreError> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| {
        CoreError::Invalid(format!(
            "`{text}` is not a duration: a number and a unit, such as 12h, 30d or 2w"
        ))
    })?;
    let per = match unit.trim() {
        "m" | "min" | "minutes" => 60,
        "h" | "hours" => 3_600,
        "d" | "days" => 86_400,
        "w" | "weeks" => 7 * 86_400,
        _ => {
            return Err(CoreError::Invalid(format!(
                "`{text}` has no known unit: m, h, d or w"
            )));
        }
    };
    match n.checked_mul(per) {
        Some(secs) if secs > 0 => Ok(secs),
        _ => Err(CoreError::Invalid(format!(
            "`{text}` is not a usable duration"
        ))),
    }
}

/// An engine for replaying a rule when the store is not at hand (the system level's CLI and
/// app): the built-in policy in `mode`, with a throwaway fingerprint key.
pub fn replay_engine(mode: airlock_engine::Mode) -> Result<Engine, CoreError> {
    let cfg = airlock_engine::PolicyConfig {
        mode,
        ..Default::default()
    };
    let policy = airlock_engine::Policy::compile(&cfg, &airlock_engine::HostFacts::default())?;
    Ok(Engine::new(
        policy,
        airlock_engine::FingerprintKey::new([7u8; 32]),
    )?)
}

/// A replay in a few lines for people: how many records, which attack families it would
/// let through and how often.
pub fn replay_words(r: &Replay) -> Vec<String> {
    let mut lines = vec![format!(
        "Replayed against {} labelled calls: it would release {} everyday call(s) that asked before.",
        r.records, r.benign_released
    )];
    if r.attacks_released.is_empty() {
        lines.push("It lets through none of the known attacks.".to_owned());
    } else {
        let mut by_family: std::collections::BTreeMap<&str, usize> = Default::default();
        for h in &r.attacks_released {
            *by_family.entry(h.category.as_str()).or_default() += 1;
        }
        lines.push(format!(
            "It would let through {} known attack(s) that should not pass:",
            r.attacks_released.len()
        ));
        for (family, n) in by_family {
            lines.push(format!("  {n} × {}", family.replace('_', " ")));
        }
    }
    lines
}

/// One scope the popup offers, narrowest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// A few words: "Exactly this", "Anywhere in these folders", ….
    pub label: String,
    pub rule: AllowRule,
}

impl Proposal {
    /// The label and the rule as JSON, as the approval broker carries them.
    pub fn wire(&self) -> Option<(String, serde_json::Value)> {
        Some((self.label.clone(), serde_json::to_value(&self.rule).ok()?))
    }
}

fn relative_to(path: &str, project: Option<&str>) -> String {
    if let Some(root) = project {
        let root = root.trim_end_matches('/');
        if let Some(rel) = path.strip_prefix(root).and_then(|r| r.strip_prefix('/'))
            && !rel.is_empty()
        {
            return escape_glob(rel);
        }
    }
    escape_glob(path)
}

fn parent_glob(path: &str, project: Option<&str>) -> String {
    let parent = Path::new(path)
        .parent()
        .and_then(Path::to_str)
        .unwrap_or("/");
    let in_root = project.is_some_and(|r| r.trim_end_matches('/') == parent.trim_end_matches('/'));
    if in_root {
        return "*".to_owned();
    }
    let base = relative_to(parent, project);
    format!("{}/**", base.trim_end_matches('/'))
}

/// The scopes "always" can write for this call, narrowest first (empty when it cannot be
/// approved as a rule: not AUTH, high risk, a hard or BLOCK reason, or not fully understood).
pub fn proposals(s: &CallSummary, d: &Decision) -> Vec<Proposal> {
    if d.effective != Verdict::Auth || d.high_risk || s.truncated {
        return Vec::new();
    }
    let mut reasons = Vec::new();
    for r in &d.reasons {
        match r.verdict {
            Verdict::Pass => {}
            Verdict::Block => return Vec::new(),
            Verdict::Auth if r.hard => return Vec::new(),
            Verdict::Auth => reasons.push(r.code.clone()),
        }
    }
    if reasons.is_empty() {
        return Vec::new();
    }
    reasons.sort();
    reasons.dedup();
    let project = (!s.cwd.is_empty()).then(|| s.cwd.clone());
    let root = project.as_deref();
    let touched: Vec<&str> = s
        .reads
        .iter()
        .chain(&s.writes)
        .chain(&s.deletes)
        .map(|t| t.path.as_str())
        .collect();
    let dedup = |mut v: Vec<String>| {
        v.sort();
        v.dedup();
        v
    };
    let (tool, server) = match &s.mcp {
        Some(m) => (Some(escape_glob(&m.tool)), Some(escape_glob(&m.server))),
        None => (Some(escape_glob(&s.tool)), None),
    };
    let base = Scope {
        reasons,
        kind: Some(s.kind.as_str().to_owned()),
        tool,
        server,
        programs: dedup(
            s.programs
                .iter()
                .map(|p| {
                    if p.subcommand.is_empty() {
                        escape_glob(&p.name)
                    } else {
                        format!("{} {}", escape_glob(&p.name), p.subcommand)
                    }
                })
                .filter(|p| p.split_whitespace().count() <= 2)
                .collect(),
        ),
        paths: dedup(touched.iter().map(|p| relative_to(p, root)).collect()),
        hosts: dedup(
            s.destinations
                .iter()
                .map(|d| escape_glob(&d.host))
                .collect(),
        ),
        project: project.clone(),
        expires_at: None,
    };
    let mut out = vec![Proposal {
        label: "Exactly this".to_owned(),
        rule: AllowRule::scoped(base.clone()),
    }];
    if !touched.is_empty() {
        let folders = Scope {
            paths: dedup(touched.iter().map(|p| parent_glob(p, root)).collect()),
            ..base.clone()
        };
        out.push(Proposal {
            label: "Anything in the same folders".to_owned(),
            rule: AllowRule::scoped(folders),
        });
    }
    let all_inside = root.is_some_and(|r| touched.iter().all(|p| within(p, r)));
    if root.is_some() && all_inside {
        let wide = Scope {
            paths: if touched.is_empty() {
                Vec::new()
            } else {
                vec!["**".to_owned()]
            },
            programs: dedup(
                base.programs
                    .iter()
                    .filter_map(|p| p.split_whitespace().next().map(str::to_owned))
                    .collect(),
            ),
            ..base.clone()
        };
        out.push(Proposal {
            label: "The same programs, anywhere in this project".to_owned(),
            rule: AllowRule::scoped(wide),
        });
    }
    out.dedup_by(|a, b| a.rule == b.rule);
    out
}

/// [`proposals`] for a call as the engine understands it (nothing when it cannot).
pub fn proposals_for(
    engine: &Engine,
    action: &airlock_engine::Action,
    session: &airlock_engine::SessionState,
    facts: &airlock_engine::CallFacts,
    d: &Decision,
) -> Vec<Proposal> {
    if d.effective != Verdict::Auth || d.high_risk {
        return Vec::new();
    }
    engine
        .call_summary(action, session, facts)
        .map(|s| proposals(&s, d))
        .unwrap_or_default()
}

/// An attack of the labelled corpus the rule would have let through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayHit {
    /// The corpus record (`two_step-001`).
    pub id: String,
    /// Its attack family.
    pub category: String,
}

/// What replaying a rule against the labelled corpus found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replay {
    /// Records judged.
    pub records: usize,
    /// Attacks the rule would have released (AUTH → PASS): what it should not let through.
    pub attacks_released: Vec<ReplayHit>,
    /// Benign records it would have released (what it is for).
    pub benign_released: usize,
}

/// The labelled corpus built into the binary: the general corpus and every family's
/// development set (a test keeps this list in step with `tests/corpus/families/`).
pub const CORPUS: &[(&str, &str)] = &[
    ("corpus", include_str!("../../tests/corpus/corpus.jsonl")),
    (
        "egress_channels",
        include_str!("../../tests/corpus/families/egress_channels.jsonl"),
    ),
    (
        "everyday",
        include_str!("../../tests/corpus/families/everyday.jsonl"),
    ),
    (
        "exec_programs",
        include_str!("../../tests/corpus/families/exec_programs.jsonl"),
    ),
    (
        "hidden_text",
        include_str!("../../tests/corpus/families/hidden_text.jsonl"),
    ),
    (
        "holdout",
        include_str!("../../tests/corpus/families/holdout.jsonl"),
    ),
    (
        "holdout2",
        include_str!("../../tests/corpus/families/holdout2.jsonl"),
    ),
    (
        "holdout3",
        include_str!("../../tests/corpus/families/holdout3.jsonl"),
    ),
    (
        "holdout4",
        include_str!("../../tests/corpus/families/holdout4.jsonl"),
    ),
    (
        "holdout5",
        include_str!("../../tests/corpus/families/holdout5.jsonl"),
    ),
    (
        "holdout6",
        include_str!("../../tests/corpus/families/holdout6.jsonl"),
    ),
    (
        "holdout7",
        include_str!("../../tests/corpus/families/holdout7.jsonl"),
    ),
    (
        "holdout9",
        include_str!("../../tests/corpus/families/holdout9.jsonl"),
    ),
    (
        "holdout10",
        include_str!("../../tests/corpus/families/holdout10.jsonl"),
    ),
    (
        "holdout11",
        include_str!("../../tests/corpus/families/holdout11.jsonl"),
    ),
    (
        "holdout12",
        include_str!("../../tests/corpus/families/holdout12.jsonl"),
    ),
    (
        "holdout13",
        include_str!("../../tests/corpus/families/holdout13.jsonl"),
    ),
    (
        "holdout15",
        include_str!("../../tests/corpus/families/holdout15.jsonl"),
    ),
    (
        "holdout16",
        include_str!("../../tests/corpus/families/holdout16.jsonl"),
    ),
    (
        "holdout17",
        include_str!("../../tests/corpus/families/holdout17.jsonl"),
    ),
    (
        "holdout18",
        include_str!("../../tests/corpus/families/holdout18.jsonl"),
    ),
    (
        "holdout19",
        include_str!("../../tests/corpus/families/holdout19.jsonl"),
    ),
    (
        "holdout20",
        include_str!("../../tests/corpus/families/holdout20.jsonl"),
    ),
    (
        "everyday6",
        include_str!("../../tests/corpus/families/everyday6.jsonl"),
    ),
    (
        "holdout21",
        include_str!("../../tests/corpus/families/holdout21.jsonl"),
    ),
    (
        "everyday7",
        include_str!("../../tests/corpus/families/everyday7.jsonl"),
    ),
    (
        "holdout22",
        include_str!("../../tests/corpus/families/holdout22.jsonl"),
    ),
    (
        "holdout23",
        include_str!("../../tests/corpus/families/holdout23.jsonl"),
    ),
    (
        "everyday8",
        include_str!("../../tests/corpus/families/everyday8.jsonl"),
    ),
    (
        "holdout24",
        include_str!("../../tests/corpus/families/holdout24.jsonl"),
    ),
    (
        "holdout25",
        include_str!("../../tests/corpus/families/holdout25.jsonl"),
    ),
    (
        "holdout26",
        include_str!("../../tests/corpus/families/holdout26.jsonl"),
    ),
    (
        "everyday9",
        include_str!("../../tests/corpus/families/everyday9.jsonl"),
    ),
    (
        "holdout27",
        include_str!("../../tests/corpus/families/holdout27.jsonl"),
    ),
    (
        "holdout28",
        include_str!("../../tests/corpus/families/holdout28.jsonl"),
    ),
    (
        "holdout29",
        include_str!("../../tests/corpus/families/holdout29.jsonl"),
    ),
    (
        "everyday10",
        include_str!("../../tests/corpus/families/everyday10.jsonl"),
    ),
    (
        "holdout30",
        include_str!("../../tests/corpus/families/holdout30.jsonl"),
    ),
    (
        "holdout31",
        include_str!("../../tests/corpus/families/holdout31.jsonl"),
    ),
    (
        "holdout32",
        include_str!("../../tests/corpus/families/holdout32.jsonl"),
    ),
    (
        "holdout33",
        include_str!("../../tests/corpus/families/holdout33.jsonl"),
    ),
    (
        "everyday11",
        include_str!("../../tests/corpus/families/everyday11.jsonl"),
    ),
    (
        "everyday12",
        include_str!("../../tests/corpus/families/everyday12.jsonl"),
    ),
    (
        "holdout34",
        include_str!("../../tests/corpus/families/holdout34.jsonl"),
    ),
    (
        "everyday13",
        include_str!("../../tests/corpus/families/everyday13.jsonl"),
    ),
    (
        "holdout35",
        include_str!("../../tests/corpus/families/holdout35.jsonl"),
    ),
    (
        "holdout36",
        include_str!("../../tests/corpus/families/holdout36.jsonl"),
    ),
    (
        "everyday14",
        include_str!("../../tests/corpus/families/everyday14.jsonl"),
    ),
    (
        "everyday15",
        include_str!("../../tests/corpus/families/everyday15.jsonl"),
    ),
    (
        "holdout37",
        include_str!("../../tests/corpus/families/holdout37.jsonl"),
    ),
    (
        "holdout38",
        include_str!("../../tests/corpus/families/holdout38.jsonl"),
    ),
    (
        "everyday16",
        include_str!("../../tests/corpus/families/everyday16.jsonl"),
    ),
    (
        "holdout39",
        include_str!("../../tests/corpus/families/holdout39.jsonl"),
    ),
    (
        "holdout40",
        include_str!("../../tests/corpus/families/holdout40.jsonl"),
    ),
    (
        "everyday17",
        include_str!("../../tests/corpus/families/everyday17.jsonl"),
    ),
    (
        "holdout41",
        include_str!("../../tests/corpus/families/holdout41.jsonl"),
    ),
    (
        "holdout42",
        include_str!("../../tests/corpus/families/holdout42.jsonl"),
    ),
    (
        "everyday18",
        include_str!("../../tests/corpus/families/everyday18.jsonl"),
    ),
    (
        "holdout43",
        include_str!("../../tests/corpus/families/holdout43.jsonl"),
    ),
    (
        "holdout44",
        include_str!("../../tests/corpus/families/holdout44.jsonl"),
    ),
    (
        "everyday19",
        include_str!("../../tests/corpus/families/everyday19.jsonl"),
    ),
    (
        "holdout45",
        include_str!("../../tests/corpus/families/holdout45.jsonl"),
    ),
    (
        "everyday20",
        include_str!("../../tests/corpus/families/everyday20.jsonl"),
    ),
    (
        "holdout46",
        include_str!("../../tests/corpus/families/holdout46.jsonl"),
    ),
    (
        "everyday21",
        include_str!("../../tests/corpus/families/everyday21.jsonl"),
    ),
    (
        "holdout47",
        include_str!("../../tests/corpus/families/holdout47.jsonl"),
    ),
    (
        "holdout48",
        include_str!("../../tests/corpus/families/holdout48.jsonl"),
    ),
    (
        "everyday22",
        include_str!("../../tests/corpus/families/everyday22.jsonl"),
    ),
    (
        "holdout49",
        include_str!("../../tests/corpus/families/holdout49.jsonl"),
    ),
    (
        "holdout50",
        include_str!("../../tests/corpus/families/holdout50.jsonl"),
    ),
    (
        "everyday23",
        include_str!("../../tests/corpus/families/everyday23.jsonl"),
    ),
    (
        "holdout51",
        include_str!("../../tests/corpus/families/holdout51.jsonl"),
    ),
    (
        "holdout52",
        include_str!("../../tests/corpus/families/holdout52.jsonl"),
    ),
    (
        "holdout53",
        include_str!("../../tests/corpus/families/holdout53.jsonl"),
    ),
    (
        "everyday24",
        include_str!("../../tests/corpus/families/everyday24.jsonl"),
    ),
    (
        "holdout54",
        include_str!("../../tests/corpus/families/holdout54.jsonl"),
    ),
    (
        "everyday25",
        include_str!("../../tests/corpus/families/everyday25.jsonl"),
    ),
    (
        "holdout55",
        include_str!("../../tests/corpus/families/holdout55.jsonl"),
    ),
    (
        "everyday26",
        include_str!("../../tests/corpus/families/everyday26.jsonl"),
    ),
    (
        "holdout56",
        include_str!("../../tests/corpus/families/holdout56.jsonl"),
    ),
    (
        "everyday27",
        include_str!("../../tests/corpus/families/everyday27.jsonl"),
    ),
    (
        "holdout57",
        include_str!("../../tests/corpus/families/holdout57.jsonl"),
    ),
    (
        "holdout58",
        include_str!("../../tests/corpus/families/holdout58.jsonl"),
    ),
    (
        "everyday28",
        include_str!("../../tests/corpus/families/everyday28.jsonl"),
    ),
    (
        "holdout59",
        include_str!("../../tests/corpus/families/holdout59.jsonl"),
    ),
    (
        "everyday29",
        include_str!("../../tests/corpus/families/everyday29.jsonl"),
    ),
    (
        "holdout60",
        include_str!("../../tests/corpus/families/holdout60.jsonl"),
    ),
    (
        "holdout61",
        include_str!("../../tests/corpus/families/holdout61.jsonl"),
    ),
    (
        "everyday5",
        include_str!("../../tests/corpus/families/everyday5.jsonl"),
    ),
    (
        "everyday2",
        include_str!("../../tests/corpus/families/everyday2.jsonl"),
    ),
    (
        "everyday3",
        include_str!("../../tests/corpus/families/everyday3.jsonl"),
    ),
    (
        "everyday4",
        include_str!("../../tests/corpus/families/everyday4.jsonl"),
    ),
    (
        "privilege",
        include_str!("../../tests/corpus/families/privilege.jsonl"),
    ),
    (
        "path_resolution",
        include_str!("../../tests/corpus/families/path_resolution.jsonl"),
    ),
    (
        "persistence",
        include_str!("../../tests/corpus/families/persistence.jsonl"),
    ),
    (
        "remote_exec",
        include_str!("../../tests/corpus/families/remote_exec.jsonl"),
    ),
    (
        "secret_places",
        include_str!("../../tests/corpus/families/secret_places.jsonl"),
    ),
    (
        "service_destructive",
        include_str!("../../tests/corpus/families/service_destructive.jsonl"),
    ),
    (
        "two_step",
        include_str!("../../tests/corpus/families/two_step.jsonl"),
    ),
];

/// Replays `scope` against every labelled record of `corpus` (JSONL text as `airlock eval`
/// reads it), judged by `engine` and `custom` as the service would. The rule's project is
/// moved to each record's working directory, so the replay shows what the rule would let
/// through in *its* project, whatever folder the corpus was written in. Records that cannot
/// be read are skipped (the corpus gate keeps them readable).
pub fn replay_text(engine: &Engine, custom: &CustomRules, scope: &Scope, corpus: &str) -> Replay {
    let mut out = Replay::default();
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(rec) = serde_json::from_str::<eval::RecordLine>(line) else {
            continue;
        };
        let Ok(Some((action, session))) = eval::last_call(engine, custom, &rec.events) else {
            continue;
        };
        out.records += 1;
        let d = crate::pipeline::judge(engine, custom, &[], &action, &session);
        if d.effective != Verdict::Auth {
            continue;
        }
        let Some(summary) = engine.call_summary(&action, &session, &Default::default()) else {
            continue;
        };
        let moved = Scope {
            project: scope.project.as_ref().map(|_| summary.cwd.clone()),
            expires_at: None,
            ..scope.clone()
        };
        if moved.covers(&summary, &d, 0) {
            match rec.label {
                Label::Attack => out.attacks_released.push(ReplayHit {
                    id: rec.id,
                    category: rec.category,
                }),
                Label::Benign => out.benign_released += 1,
            }
        }
    }
    out
}

/// [`replay_text`] over the whole built-in corpus ([`CORPUS`]).
pub fn replay(engine: &Engine, custom: &CustomRules, scope: &Scope) -> Replay {
    let mut all = Replay::default();
    for (_, text) in CORPUS {
        let r = replay_text(engine, custom, scope, text);
        all.records += r.records;
        all.attacks_released.extend(r.attacks_released);
        all.benign_released += r.benign_released;
    }
    all
}

#[cfg(test)]
mod tests;
