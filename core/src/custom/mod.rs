//! Custom rules in Cedar: `forbid` policies that only ever raise a call's verdict.
//!
//! **Where they live:** `<config dir>/rules/*.cedar` (user level `~/.config/airlock/rules/`,
//! system level `/etc/airlock/rules/`) and installed packs under
//! `<config dir>/rules/packs/<name>/*.cedar` ([`rule_files`]). At system level only the
//! root-owned directory is read. The config directory is one of the paths the engine's
//! self-protection rule guards, so an agent cannot edit or remove a rule.
//!
//! **What they are:** Cedar policies checked against Airlock's schema ([`SCHEMA`],
//! `airlock.cedarschema` beside this file). A call is one Cedar request per thing it
//! touches — principal `Agent::"<host>"`, action `Action::"<kind>"` (shell, file_read,
//! file_write, file_delete, fetch, mcp_call, prompt_turn, subagent, other), resource
//! `Call::"call"` plus each `File`, `Host`, `Program` and `McpTool` — with the facts the
//! engine derived as the context ([`airlock_engine::CallSummary`]).
//!
//! **Raise-only, by construction:** only `forbid` policies are compiled; a `permit` is dropped
//! at load (and `airlock policy check` warns about it), so no policy can allow anything.
//! A matching forbid becomes a finding — BLOCK, or AUTH when annotated `@verdict("auth")` —
//! with the code `custom:<@id or file.policyN>` and the message of its `@reason("…")`
//! annotation (a constant written by the rule's author, never the payload). The pipeline
//! folds findings in with `max` ([`crate::pipeline::raise`]); nothing here can lower a verdict.
//!
//! **Failing closed:** a policy that errors while evaluating, or a call the engine could not
//! summarise, is AUTH [`RULE_ERROR`]. A rule file that does not parse or validate is left out
//! whole, and since its raises are then missing, every tool call is AUTH [`RULES_INVALID`]
//! until it is fixed (`airlock doctor` and `airlock policy check` name it). A user's own turn
//! is not held up by a broken file: a turn does nothing on the machine, every tool call it
//! leads to is held.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr as _;

use airlock_engine::{CallKind, CallSummary, Verdict};
use cedar_policy::{
    Authorizer, Context, Effect, Entities, EntityId, EntityTypeName, EntityUid, PolicyId,
    PolicySet, Request, Schema, ValidationMode, Validator,
};
use miette::Diagnostic;
use serde::Serialize;
use serde_json::json;

use crate::Paths;

/// Airlock's Cedar schema for custom rules.
pub const SCHEMA: &str = include_str!("airlock.cedarschema");

/// Code of the finding every tool call gets while a rule file is invalid.
pub const RULES_INVALID: &str = "custom_rules_invalid";
const RULES_INVALID_MSG: &str = "A custom rule file is invalid, so its rules cannot be applied; calls need your approval until it is fixed (see `airlock policy check`).";
/// Code of the finding a call gets when a custom rule could not be evaluated for it.
pub const RULE_ERROR: &str = "custom_rule_error";
const RULE_ERROR_MSG: &str =
    "A custom rule could not be evaluated for this call, so it needs your approval.";
/// Every custom rule's reason code starts with this.
pub const CODE_PREFIX: &str = "custom:";
/// Rule files end with this.
pub const EXTENSION: &str = "cedar";
/// Longest `@reason` message kept.
const MAX_REASON: usize = 300;
/// Largest rule file read.
const MAX_FILE: u64 = 1024 * 1024;

/// How bad a problem in a rule file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file is left out (and every tool call is AUTH until it is fixed).
    Error,
    /// The file is used; something in it does not do what it may look like.
    Warning,
}

/// A problem in a rule file: where (file, line and column when Cedar gives them, the
/// policy) and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub policy: Option<String>,
    pub severity: Severity,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {sev}")?;
        if let Some(p) = &self.policy {
            write!(f, " in policy `{p}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// One compiled rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleInfo {
    /// The rule's id (`@id`, else `<file stem>.policyN`).
    pub id: String,
    /// `custom:<id>`.
    pub code: String,
    /// BLOCK, or AUTH with `@verdict("auth")`.
    pub verdict: Verdict,
    /// The `@reason` annotation (or a generic sentence naming the rule).
    pub message: String,
    /// The file it came from.
    pub file: String,
}

/// A rule that matched a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub code: String,
    pub message: String,
    pub verdict: Verdict,
}

/// The compiled custom rules: forbid policies only, plus what was wrong with the files.
#[derive(Debug, Clone)]
pub struct CustomRules {
    schema: Option<Schema>,
    policies: PolicySet,
    rules: BTreeMap<String, RuleInfo>,
    problems: Vec<Problem>,
    files: Vec<String>,
}

impl Default for CustomRules {
    fn default() -> Self {
        CustomRules::empty()
    }
}

/// The rules directory: `<config dir>/rules`.
pub fn rules_dir(paths: &Paths) -> PathBuf {
    paths.config_dir.join("rules")
}

/// Installed packs: `<config dir>/rules/packs`.
pub fn packs_dir(paths: &Paths) -> PathBuf {
    rules_dir(paths).join("packs")
}

fn is_rule_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == EXTENSION)
}

/// `*.cedar` files directly in `dir`, sorted. A missing directory has none.
pub fn cedar_files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            for e in rd {
                let p = e?.path();
                if is_rule_file(&p) {
                    out.push(p);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    out.sort();
    Ok(out)
}

/// Installed packs: `(name, directory)`, sorted by name.
pub fn packs(paths: &Paths) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    match std::fs::read_dir(packs_dir(paths)) {
        Ok(rd) => {
            for e in rd {
                let e = e?;
                if e.file_type()?.is_dir() {
                    out.push((e.file_name().to_string_lossy().into_owned(), e.path()));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    out.sort();
    Ok(out)
}

/// Every rule file in force: `rules/*.cedar`, then each pack's `*.cedar`.
pub fn rule_files(paths: &Paths) -> std::io::Result<Vec<PathBuf>> {
    let mut files = cedar_files_in(&rules_dir(paths))?;
    for (_, dir) in packs(paths)? {
        files.extend(cedar_files_in(&dir)?);
    }
    Ok(files)
}

/// What the compiled rules depend on, read cheaply (names, lengths, modification times):
/// part of [`crate::settings::policy_stamp`].
pub fn stamp(paths: &Paths) -> String {
    let mut s = String::new();
    match rule_files(paths) {
        Ok(files) => {
            for f in files {
                let meta = std::fs::metadata(&f)
                    .map(|m| format!("{}:{:?}", m.len(), m.modified().ok()))
                    .unwrap_or_else(|e| format!("unreadable:{:?}", e.kind()));
                s.push_str(&format!("{}={meta};", f.display()));
            }
        }
        Err(e) => s.push_str(&format!("unlistable:{:?}", e.kind())),
    }
    s
}

/// The schema, compiled. It is a constant: failing to parse it is a bug, reported as a
/// problem (and so fails closed), never a panic.
fn schema() -> Result<Schema, String> {
    Schema::from_cedarschema_str(SCHEMA)
        .map(|(s, _warnings)| s)
        .map_err(|e| format!("Airlock's own rule schema does not compile: {e}"))
}

/// 1-based line and column of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn first_offset(d: &dyn Diagnostic) -> Option<usize> {
    d.labels()
        .and_then(|mut l| l.next())
        .map(|s| s.offset())
        .or_else(|| {
            d.related()
                .and_then(|mut r| r.next())
                .and_then(first_offset)
        })
}

fn diagnostic_text(d: &dyn Diagnostic) -> String {
    let mut m = d.to_string();
    if let Some(h) = d.help() {
        m.push_str(&format!(" ({h})"));
    }
    m
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

struct FileRules {
    rules: Vec<(cedar_policy::Policy, RuleInfo)>,
    problems: Vec<Problem>,
}

impl CustomRules {
    /// No rules, no problems.
    pub fn empty() -> CustomRules {
        CustomRules {
            schema: None,
            policies: PolicySet::new(),
            rules: BTreeMap::new(),
            problems: Vec::new(),
            files: Vec::new(),
        }
    }

    /// The rules in force for these paths ([`rule_files`]). Never fails: what cannot be read
    /// or compiled is a [`Problem`] (and makes [`CustomRules::invalid`] true).
    pub fn load(paths: &Paths) -> CustomRules {
        match rule_files(paths) {
            Ok(files) => CustomRules::from_files(&files),
            Err(e) => {
                let mut r = CustomRules::empty();
                r.problems.push(Problem {
                    file: rules_dir(paths).display().to_string(),
                    line: None,
                    column: None,
                    policy: None,
                    severity: Severity::Error,
                    message: format!("the rules directory cannot be listed: {e}"),
                });
                r
            }
        }
    }

    /// The rules in these files.
    pub fn from_files(files: &[PathBuf]) -> CustomRules {
        let mut sources = Vec::new();
        let mut unreadable = Vec::new();
        for f in files {
            let name = f.display().to_string();
            let text = std::fs::metadata(f).and_then(|m| {
                if m.len() > MAX_FILE {
                    Err(std::io::Error::other("the file is larger than 1 MiB"))
                } else {
                    std::fs::read_to_string(f)
                }
            });
            match text {
                Ok(t) => sources.push((name, t)),
                Err(e) => unreadable.push(Problem {
                    file: name,
                    line: None,
                    column: None,
                    policy: None,
                    severity: Severity::Error,
                    message: format!("cannot be read: {e}"),
                }),
            }
        }
        let mut r = CustomRules::from_sources(&sources);
        r.problems.extend(unreadable);
        r.files = files.iter().map(|f| f.display().to_string()).collect();
        r
    }

    /// The rules in these `(file name, text)` pairs.
    pub fn from_sources(sources: &[(String, String)]) -> CustomRules {
        let mut r = CustomRules::empty();
        r.files = sources.iter().map(|(n, _)| n.clone()).collect();
        let schema = match schema() {
            Ok(s) => s,
            Err(message) => {
                r.problems.push(Problem {
                    file: "<airlock.cedarschema>".to_owned(),
                    line: None,
                    column: None,
                    policy: None,
                    severity: Severity::Error,
                    message,
                });
                return r;
            }
        };
        let validator = Validator::new(schema.clone());
        for (name, text) in sources {
            let fr = compile_file(name, text, &validator);
            let failed = fr.problems.iter().any(|p| p.severity == Severity::Error);
            r.problems.extend(fr.problems);
            if failed {
                continue;
            }
            for (policy, info) in fr.rules {
                if let Some(other) = r.rules.get(&info.id) {
                    r.problems.push(Problem {
                        file: name.clone(),
                        line: None,
                        column: None,
                        policy: Some(info.id.clone()),
                        severity: Severity::Error,
                        message: format!(
                            "the id `{}` is already used in {}: reason codes must be unique",
                            info.id, other.file
                        ),
                    });
                    continue;
                }
                match r.policies.add(policy) {
                    Ok(()) => {
                        r.rules.insert(info.id.clone(), info);
                    }
                    Err(e) => r.problems.push(Problem {
                        file: name.clone(),
                        line: None,
                        column: None,
                        policy: Some(info.id.clone()),
                        severity: Severity::Error,
                        message: e.to_string(),
                    }),
                }
            }
        }
        r.schema = Some(schema);
        r
    }

    /// No rules and no problems: nothing to do for any call.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.problems.is_empty()
    }

    /// Some rule file could not be used (every tool call is AUTH [`RULES_INVALID`]).
    pub fn invalid(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    /// Everything wrong or doubtful in the files, in file order.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The rules in force, by id.
    pub fn rules(&self) -> impl Iterator<Item = &RuleInfo> {
        self.rules.values()
    }

    /// The files read.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The findings custom rules add to a call: [`RULES_INVALID`] while a file is invalid
    /// (not for a user's own turn), [`RULE_ERROR`] when the call could not be summarised or
    /// a rule failed, and each matching rule's own finding. `builtin` is the built-in rules'
    /// verdict (the context's `builtin`).
    pub fn findings(&self, summary: Option<&CallSummary>, builtin: Verdict) -> Vec<Hit> {
        let mut out = Vec::new();
        let turn = summary.is_some_and(|s| s.kind == CallKind::PromptTurn);
        if self.invalid() && !turn {
            out.push(Hit {
                code: RULES_INVALID.to_owned(),
                message: RULES_INVALID_MSG.to_owned(),
                verdict: Verdict::Auth,
            });
        }
        if self.rules.is_empty() {
            return out;
        }
        let evaluated = summary.and_then(|s| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.evaluate(s, builtin)))
                .ok()
        });
        match evaluated {
            Some(Ok(hits)) => out.extend(hits),
            Some(Err(e)) => {
                tracing::warn!(error = %e, "a custom rule could not be evaluated");
                out.push(Hit {
                    code: RULE_ERROR.to_owned(),
                    message: RULE_ERROR_MSG.to_owned(),
                    verdict: Verdict::Auth,
                });
            }
            None => out.push(Hit {
                code: RULE_ERROR.to_owned(),
                message: RULE_ERROR_MSG.to_owned(),
                verdict: Verdict::Auth,
            }),
        }
        out
    }

    /// The rules that match `s`; `Err` (never with the payload in it) when the call could
    /// not be evaluated completely.
    pub fn evaluate(&self, s: &CallSummary, builtin: Verdict) -> Result<Vec<Hit>, String> {
        let schema = self.schema.as_ref().ok_or("no schema")?;
        if s.truncated {
            return Err("the call touches more than custom rules can be given".to_owned());
        }
        let principal = uid("Agent", &s.agent)?;
        let action = uid("Action", s.kind.as_str())?;
        let context = Context::from_json_value(context_json(s, builtin), Some((schema, &action)))
            .map_err(|e| format!("context: {e}"))?;
        let authorizer = Authorizer::new();
        let mut matched: Vec<&RuleInfo> = Vec::new();
        let mut error = None;
        for target in targets(s) {
            let resource = uid(target.kind, &target.id)?;
            let entities = Entities::from_json_value(
                json!([{ "uid": { "type": target.kind, "id": target.id }, "attrs": target.attrs, "parents": [] }]),
                Some(schema),
            )
            .map_err(|e| format!("entities: {e}"))?;
            let request = Request::new(
                principal.clone(),
                action.clone(),
                resource,
                context.clone(),
                Some(schema),
            )
            .map_err(|e| format!("request: {e}"))?;
            let response = authorizer.is_authorized(&request, &self.policies, &entities);
            for id in response.diagnostics().reason() {
                if let Some(r) = self.rules.get(id.as_ref() as &str)
                    && !matched.iter().any(|m| m.id == r.id)
                {
                    matched.push(r);
                }
            }
            if let Some(e) = response.diagnostics().errors().next() {
                error = Some(e.to_string());
            }
        }
        if let Some(e) = error {
            return Err(e);
        }
        Ok(matched
            .into_iter()
            .map(|r| Hit {
                code: r.code.clone(),
                message: r.message.clone(),
                verdict: r.verdict,
            })
            .collect())
    }
}

fn uid(kind: &str, id: &str) -> Result<EntityUid, String> {
    let t = EntityTypeName::from_str(kind).map_err(|e| format!("type {kind}: {e}"))?;
    Ok(EntityUid::from_type_name_and_id(t, EntityId::new(id)))
}

struct Target {
    kind: &'static str,
    id: String,
    attrs: serde_json::Value,
}

/// The resources of a call: the call itself, then each thing it touches.
fn targets(s: &CallSummary) -> Vec<Target> {
    let mut v = vec![Target {
        kind: "Call",
        id: "call".to_owned(),
        attrs: json!({}),
    }];
    for (access, list) in [
        ("read", &s.reads),
        ("write", &s.writes),
        ("delete", &s.deletes),
    ] {
        for p in list {
            v.push(Target {
                kind: "File",
                id: p.path.clone(),
                attrs: json!({ "path": p.path, "access": access, "recursive": p.recursive }),
            });
        }
    }
    for d in &s.destinations {
        v.push(Target {
            kind: "Host",
            id: d.host.clone(),
            attrs: json!({
                "name": d.host, "local": d.local, "allowed": d.allowed,
                "uploads": d.uploads, "raw_socket": d.raw_socket,
            }),
        });
    }
    for p in &s.programs {
        v.push(Target {
            kind: "Program",
            id: p.name.clone(),
            attrs: json!({ "name": p.name, "subcommand": p.subcommand, "args": p.args }),
        });
    }
    if let Some(m) = &s.mcp {
        v.push(Target {
            kind: "McpTool",
            id: format!("{}/{}", m.server, m.tool),
            attrs: json!({ "server": m.server, "tool": m.tool }),
        });
    }
    v
}

fn context_json(s: &CallSummary, builtin: Verdict) -> serde_json::Value {
    let paths =
        |l: &[airlock_engine::PathTouch]| l.iter().map(|p| p.path.clone()).collect::<Vec<_>>();
    let (server, tool, args) = match &s.mcp {
        Some(m) => (
            m.server.clone(),
            m.tool.clone(),
            m.args
                .iter()
                .map(|(k, v)| json!({ "key": k, "value": v }))
                .collect::<Vec<_>>(),
        ),
        None => (String::new(), String::new(), Vec::new()),
    };
    json!({
        "tool": s.tool,
        "cwd": s.cwd,
        "programs": s.programs.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "reads": paths(&s.reads),
        "writes": paths(&s.writes),
        "deletes": paths(&s.deletes),
        "hosts": s.destinations.iter().map(|d| d.host.clone()).collect::<Vec<_>>(),
        "unlisted_hosts": s.destinations.iter().filter(|d| !d.local && !d.allowed).map(|d| d.host.clone()).collect::<Vec<_>>(),
        "uploads": s.destinations.iter().any(|d| !d.local && d.uploads),
        "env_dump": s.env_dump,
        "mcp_server": server,
        "mcp_tool": tool,
        "mcp_args": args,
        "tainted": s.tainted,
        "secret_read": s.secret_read,
        "mode": s.mode,
        "builtin": builtin.as_str(),
    })
}

/// The file stem used in default rule ids.
fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "rules".to_owned())
}

fn compile_file(name: &str, text: &str, validator: &Validator) -> FileRules {
    let mut out = FileRules {
        rules: Vec::new(),
        problems: Vec::new(),
    };
    let problem = |policy: Option<String>, severity, offset: Option<usize>, message: String| {
        let (line, column) = match offset {
            Some(o) => {
                let (l, c) = line_col(text, o);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        Problem {
            file: name.to_owned(),
            line,
            column,
            policy,
            severity,
            message,
        }
    };
    let set = match PolicySet::from_str(text) {
        Ok(s) => s,
        Err(errs) => {
            for e in errs.iter() {
                out.problems.push(problem(
                    None,
                    Severity::Error,
                    first_offset(e),
                    diagnostic_text(e),
                ));
            }
            return out;
        }
    };
    if set.templates().next().is_some() {
        out.problems.push(problem(
            None,
            Severity::Error,
            None,
            "policy templates (`?principal`, `?resource`) are not supported in custom rules"
                .to_owned(),
        ));
    }
    let file_stem = stem(name);
    // The id each policy is known by (its `@id`, else `<stem>.policyN`), for messages too.
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    let mut policies: Vec<&cedar_policy::Policy> = set.policies().collect();
    policies.sort_by_key(|p| p.id().to_string());
    for p in &policies {
        let cedar_id = p.id().to_string();
        // Where the policy starts: its own text, found in the file.
        let offset = p.to_cedar().and_then(|src| text.find(src.trim()));
        let id = match p.annotation("id") {
            Some(id) if valid_id(id) => id.to_owned(),
            Some(_) => {
                out.problems.push(problem(
                    Some(cedar_id.clone()),
                    Severity::Error,
                    offset,
                    "`@id` must be 1 to 64 letters, digits, `_`, `-` or `.`".to_owned(),
                ));
                continue;
            }
            None => format!("{file_stem}.{cedar_id}"),
        };
        ids.insert(cedar_id.clone(), id.clone());
        if p.effect() == Effect::Permit {
            out.problems.push(problem(
                Some(id),
                Severity::Warning,
                offset,
                "`permit` policies are ignored: custom rules can only raise a verdict (write a `forbid`)".to_owned(),
            ));
            continue;
        }
        if ids.values().filter(|v| **v == id).count() > 1 {
            out.problems.push(problem(
                Some(id.clone()),
                Severity::Error,
                offset,
                format!("the id `{id}` is used twice in this file"),
            ));
            continue;
        }
        let verdict = match p.annotation("verdict") {
            None | Some("block") => Verdict::Block,
            Some("auth") => Verdict::Auth,
            Some(_) => {
                out.problems.push(problem(
                    Some(id),
                    Severity::Error,
                    offset,
                    "`@verdict` must be \"block\" or \"auth\"".to_owned(),
                ));
                continue;
            }
        };
        let message = match p.annotation("reason") {
            Some(r) if !r.trim().is_empty() && r.len() <= MAX_REASON && !r.contains('\n') => {
                r.trim().to_owned()
            }
            Some(_) => {
                out.problems.push(problem(
                    Some(id),
                    Severity::Error,
                    offset,
                    format!("`@reason` must be one line of at most {MAX_REASON} bytes"),
                ));
                continue;
            }
            None => {
                out.problems.push(problem(
                    Some(id.clone()),
                    Severity::Warning,
                    offset,
                    "no `@reason(\"…\")`: the agent and the log get a generic message".to_owned(),
                ));
                format!("The custom rule `{id}` forbids this call.")
            }
        };
        if p.annotation("id").is_none() {
            out.problems.push(problem(
                Some(id.clone()),
                Severity::Warning,
                offset,
                format!("no `@id(\"…\")`: its reason code `{CODE_PREFIX}{id}` changes if policies are added above it"),
            ));
        }
        let info = RuleInfo {
            code: format!("{CODE_PREFIX}{id}"),
            id: id.clone(),
            verdict,
            message,
            file: name.to_owned(),
        };
        out.rules.push((p.new_id(PolicyId::new(&id)), info));
    }
    let validated = validator.validate(&set, ValidationMode::Strict);
    for e in validated.validation_errors() {
        let id = e.policy_id().to_string();
        out.problems.push(problem(
            Some(ids.get(&id).cloned().unwrap_or(id)),
            Severity::Error,
            first_offset(e),
            diagnostic_text(e),
        ));
    }
    for w in validated.validation_warnings() {
        out.problems.push(problem(
            None,
            Severity::Warning,
            first_offset(w),
            diagnostic_text(w),
        ));
    }
    out
}

#[cfg(test)]
mod tests;
