//! What a call will do, in plain words, for the human asked to approve it
//! ([`crate::Engine::consequences`]).
//!
//! Every line is derived from what the engine understood ([`Effects`], the shell analysis,
//! the [`Decision`]), never from the raw payload alone: the files deleted, written and read
//! (resolved, home shown as `~`) and how many, the diff of an edit, where traffic goes and
//! whether data leaves, the *kind* of secret involved, each reason in words, and where the
//! session's untrusted content came from.
//!
//! Bounded: at most [`MAX_NAMED`] paths or destinations named per line ("and 12 more"), at
//! most [`MAX_DIFF_LINES`] diff lines, at most [`MAX_CONSEQUENCES`] lines in all.
//!
//! Never a secret value: every text that reaches a line or a detail is masked first — what
//! the [`SecretScanner`] finds (a private key block to its end), values the session
//! fingerprinted as secrets it read, and long random-looking tokens — as
//! `[redacted: AWS access key]`. Masking runs on whole texts before anything is cut, so a
//! cut can never leave part of a secret unrecognised.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Operation, Provenance};
use crate::effects::{Effects, json_strings};
use crate::paths::{self, SecretKind};
use crate::policy::Policy;
use crate::rules::secret_access;
use crate::secrets::{self, SecretScanner};
use crate::session::{self, FingerprintKey, SessionState};
use crate::shell::ShellAnalysis;
use crate::verdict::Decision;

/// Most lines in one call's list (the last one then says how many more there were).
pub const MAX_CONSEQUENCES: usize = 24;
/// Most paths, destinations or secret kinds named in one line.
pub const MAX_NAMED: usize = 5;
/// Longest line text, in characters.
pub const MAX_TEXT_CHARS: usize = 300;
/// Most diff lines in a detail (a last line then says how many more there were).
pub const MAX_DIFF_LINES: usize = 40;
/// Longest diff line, in characters.
pub const MAX_DIFF_LINE_CHARS: usize = 200;
/// Lines of each side of an edit looked at; the rest is counted, not shown.
const MAX_EDIT_LINES: usize = 400;
/// A longer line of an edit is left out whole (never cut: a cut could split a secret).
const MAX_EDIT_LINE_BYTES: usize = 4096;
/// Most edits of one call shown.
const MAX_EDITS: usize = 16;
/// Context lines kept on each side of a change.
const CONTEXT: usize = 3;

/// What a line is about (the popup groups and styles by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsequenceKind {
    /// Runs programs, calls a tool.
    Runs,
    Deletes,
    Writes,
    Reads,
    /// Traffic: where it goes and whether data leaves.
    Sends,
    /// A secret is read, written or passed (its kind, never its value).
    Secret,
    /// Why Airlock raised the call (one reason in words).
    Reason,
    /// Where the session's untrusted content came from.
    Untrusted,
}

impl ConsequenceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ConsequenceKind::Runs => "runs",
            ConsequenceKind::Deletes => "deletes",
            ConsequenceKind::Writes => "writes",
            ConsequenceKind::Reads => "reads",
            ConsequenceKind::Sends => "sends",
            ConsequenceKind::Secret => "secret",
            ConsequenceKind::Reason => "reason",
            ConsequenceKind::Untrusted => "untrusted",
        }
    }
}

/// One plain-words line about what a call will do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consequence {
    pub kind: ConsequenceKind,
    /// One sentence, masked and bounded.
    pub text: String,
    /// A block shown in monospace under the line (an edit's diff), masked and bounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Consequence {
    fn new(kind: ConsequenceKind, text: String) -> Consequence {
        Consequence {
            kind,
            text: clip(&text, MAX_TEXT_CHARS),
            detail: None,
        }
    }
}

/// One replacement an edit makes (`old_string` → `new_string`), as the host sent it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TextEdit {
    pub old: String,
    pub new: String,
}

/// Everything one call's lines are derived from.
pub(crate) struct Inputs<'a> {
    pub action: &'a Action,
    pub shell: Option<&'a ShellAnalysis>,
    pub fx: &'a Effects,
    pub decision: &'a Decision,
    pub edits: &'a [TextEdit],
    pub policy: &'a Policy,
    pub masker: Masker<'a>,
}

/// Hides secret values in text shown to a human.
pub(crate) struct Masker<'a> {
    pub scanner: &'a SecretScanner,
    pub session: &'a SessionState,
    pub key: &'a FingerprintKey,
}

impl Masker<'_> {
    /// `text` with every secret value replaced by `[redacted: <kind>]`.
    pub fn mask(&self, text: &str) -> String {
        let mut ranges: Vec<(usize, usize, &'static str)> = Vec::new();
        for m in self.scanner.scan(text) {
            let end = if m.kind == "private_key" {
                key_block_end(text, m.end)
            } else {
                m.end
            };
            ranges.push((m.start, end, secrets::kind_words(m.kind)));
        }
        for cand in session::outbound_candidates(text) {
            if self.session.knows(self.key, cand) {
                occurrences(text, cand, "secret this session read", &mut ranges);
            }
        }
        for tok in tokens(text) {
            if random_looking(tok) {
                occurrences(text, tok, "random-looking value", &mut ranges);
            }
        }
        ranges.sort_by_key(|r| (r.0, std::cmp::Reverse(r.1)));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end, label) in ranges {
            if end <= at {
                continue;
            }
            out.push_str(text.get(at..start.max(at)).unwrap_or(""));
            out.push_str("[redacted: ");
            out.push_str(label);
            out.push(']');
            at = end;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        out
    }
}

/// Where a private key block that starts before `from` ends: after its `-----END …-----`
/// line, or at the end of the text when there is none.
fn key_block_end(text: &str, from: usize) -> usize {
    let Some(rest) = text.get(from..) else {
        return text.len();
    };
    let Some(i) = rest.find("-----END") else {
        return text.len();
    };
    let after = i + "-----END".len();
    match rest.get(after..).and_then(|r| r.find("-----")) {
        Some(j) => from + after + j + "-----".len(),
        None => text.len(),
    }
}

fn occurrences(
    text: &str,
    needle: &str,
    label: &'static str,
    out: &mut Vec<(usize, usize, &'static str)>,
) {
    if needle.is_empty() {
        return;
    }
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|t| t.find(needle)) {
        let start = from + i;
        out.push((start, start + needle.len(), label));
        from = start + needle.len();
    }
}

/// Word-like pieces of a text (split at whitespace, quotes and brackets).
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}')
    })
    .flat_map(|p| p.split(['=', ':', ',', ';']))
}

/// A long token of mixed letters and digits with high entropy: key material the scanner has
/// no pattern for (a private key's body lines, an unnamed API key).
fn random_looking(tok: &str) -> bool {
    tok.len() >= 32
        && tok
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-'))
        && tok.chars().any(|c| c.is_ascii_digit())
        && tok.chars().any(|c| c.is_ascii_lowercase())
        && tok.chars().any(|c| c.is_ascii_uppercase())
        && !tok.contains("//")
        && secrets::entropy(tok) >= 4.3
}

/// At most `max` characters, `…` marking a cut.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The first [`MAX_NAMED`] items, then "and N more".
fn named(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > MAX_NAMED {
        s.push_str(&format!(" and {} more", items.len() - MAX_NAMED));
    }
    s
}

fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

impl Inputs<'_> {
    fn home(&self) -> Option<&str> {
        self.policy.home()
    }

    /// A resolved path as shown: home as `~`, masked.
    fn show_path(&self, p: &str) -> String {
        let shown = match self.home().map(|h| h.trim_end_matches('/')) {
            Some(h) if !h.is_empty() && p == h => "~".to_owned(),
            Some(h) if !h.is_empty() => match p.strip_prefix(h).and_then(|r| r.strip_prefix('/')) {
                Some(rest) => format!("~/{rest}"),
                None => p.to_owned(),
            },
            _ => p.to_owned(),
        };
        self.masker.mask(&shown)
    }
}

/// Programs whose first operand names what they do (`git reset`, `kubectl delete`).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "docker",
    "podman",
    "kubectl",
    "helm",
    "npm",
    "pnpm",
    "yarn",
    "cargo",
    "go",
    "pip",
    "pip3",
    "terraform",
    "aws",
    "gcloud",
    "az",
    "gh",
    "systemctl",
    "brew",
    "apt",
    "apt-get",
    "dnf",
    "make",
    "airlock",
];

/// The lines for one call (see the module docs).
pub(crate) fn build(i: &Inputs<'_>) -> Vec<Consequence> {
    let mut out = Vec::new();
    runs(i, &mut out);
    deletes(i, &mut out);
    writes(i, &mut out);
    reads(i, &mut out);
    sends(i, &mut out);
    secrets_in_call(i, &mut out);
    reasons(i.decision, &mut out);
    untrusted(i, &mut out);
    bound(out)
}

/// When understanding the call failed: the reasons alone, after a line that says so.
pub(crate) fn fallback(decision: &Decision) -> Vec<Consequence> {
    let mut out = vec![Consequence::new(
        ConsequenceKind::Runs,
        "Airlock could not put what this call does into words; see the details.".to_owned(),
    )];
    reasons(decision, &mut out);
    bound(out)
}

fn bound(mut out: Vec<Consequence>) -> Vec<Consequence> {
    if out.len() > MAX_CONSEQUENCES {
        let more = out.len() - (MAX_CONSEQUENCES - 1);
        let kind = out
            .get(MAX_CONSEQUENCES - 1)
            .map_or(ConsequenceKind::Reason, |c| c.kind);
        out.truncate(MAX_CONSEQUENCES - 1);
        out.push(Consequence::new(kind, format!("… and {more} more")));
    }
    out
}

fn runs(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    let a = i.action;
    let m = &i.masker;
    let line = match &a.op {
        Operation::Shell { .. } => {
            let mut progs: Vec<String> = Vec::new();
            for inv in i.shell.map(|s| s.invocations.as_slice()).unwrap_or(&[]) {
                let name = paths::basename(&inv.program);
                if name.is_empty() {
                    continue;
                }
                let mut label = name.to_owned();
                if SUBCOMMAND_PROGRAMS.contains(&name)
                    && let Some(sub) = inv.operands().first().map(|w| w.text.as_str())
                    && !sub.is_empty()
                    && sub.len() <= 24
                    && sub
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                {
                    label.push(' ');
                    label.push_str(sub);
                }
                if inv.wrappers.iter().any(|w| w == "sudo" || w == "doas") {
                    label.push_str(" as root");
                }
                push_unique(&mut progs, m.mask(&label));
            }
            if progs.is_empty() {
                return;
            }
            format!("Runs {}", named(&progs))
        }
        Operation::McpCall { server, tool, .. } => {
            format!("Calls the MCP tool {}", m.mask(&format!("{server}/{tool}")))
        }
        Operation::Prompt { .. } if a.tool == crate::PROMPT_TOOL => {
            "Submits a prompt to the agent".to_owned()
        }
        Operation::Prompt { .. } => "Hands a task to a sub-agent".to_owned(),
        Operation::UnknownTool { tool } => format!(
            "Uses the tool {}, which Airlock does not know: it cannot tell what it does",
            m.mask(tool)
        ),
        Operation::Unparseable { reason } => {
            format!("Airlock could not read this call ({})", m.mask(reason))
        }
        Operation::FileRead { .. }
        | Operation::FileWrite { .. }
        | Operation::FileDelete { .. }
        | Operation::Fetch { .. }
        | Operation::Internal { .. } => return,
    };
    out.push(Consequence::new(ConsequenceKind::Runs, line));
}

/// " (…)" notes for paths only known at run time or matched by a pattern.
fn notes(dynamic: bool, glob: bool) -> String {
    let mut s = String::new();
    if glob {
        s.push_str(" (a pattern: what it matches is decided when it runs)");
    }
    if dynamic {
        s.push_str(" (part of a path is only known when it runs)");
    }
    s
}

fn deletes(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    for recursive in [true, false] {
        let mut shown = Vec::new();
        let (mut dynamic, mut glob) = (false, false);
        for d in i.fx.deletes.iter().filter(|d| d.recursive == recursive) {
            push_unique(&mut shown, i.show_path(&d.path));
            dynamic |= d.dynamic;
            glob |= d.glob;
        }
        if shown.is_empty() {
            continue;
        }
        let text = if recursive {
            format!(
                "Deletes {}, recursively: {}{}",
                plural(shown.len(), "path", "paths"),
                named(&shown),
                notes(dynamic, glob)
            )
        } else {
            format!(
                "Deletes {}: {}{}",
                plural(shown.len(), "file", "files"),
                named(&shown),
                notes(dynamic, glob)
            )
        };
        out.push(Consequence::new(ConsequenceKind::Deletes, text));
    }
}

fn writes(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    let a = i.action;
    let mut own = None;
    if let Operation::FileWrite { path, content } = &a.op {
        let abs = paths::normalize(path, a.cwd.as_deref(), i.home());
        let shown = i.show_path(&abs);
        let line = if i.edits.is_empty() {
            let n = content.lines().count();
            Consequence::new(
                ConsequenceKind::Writes,
                format!(
                    "Writes 1 file: {shown} ({})",
                    plural(n, "line of new text", "lines of new text")
                ),
            )
        } else {
            Consequence {
                detail: Some(diff(&i.masker, i.edits)),
                ..Consequence::new(
                    ConsequenceKind::Writes,
                    format!(
                        "Edits 1 file: {shown} ({})",
                        plural(i.edits.len(), "change", "changes")
                    ),
                )
            }
        };
        out.push(line);
        own = Some(abs);
    }
    let mut shown = Vec::new();
    let mut dynamic = false;
    for w in &i.fx.writes {
        if own.as_deref() == Some(w.path.as_str()) {
            continue;
        }
        push_unique(&mut shown, i.show_path(&w.path));
        dynamic |= w.dynamic;
    }
    if !shown.is_empty() {
        let also = if own.is_some() {
            "Also writes"
        } else {
            "Writes"
        };
        out.push(Consequence::new(
            ConsequenceKind::Writes,
            format!(
                "{also} {}: {}{}",
                plural(shown.len(), "file", "files"),
                named(&shown),
                notes(dynamic, false)
            ),
        ));
    }
}

/// Home-relative prefixes of well-known credential stores, in words.
const SECRET_PLACES: &[(&str, &str)] = &[
    (".ssh", "SSH keys"),
    (".gnupg", "GPG keys"),
    (".aws", "AWS credentials"),
    (".config/gcloud", "Google Cloud credentials"),
    (".azure", "Azure credentials"),
    (".kube", "Kubernetes credentials"),
    (".docker", "Docker registry credentials"),
    (".netrc", "login credentials (.netrc)"),
    (".git-credentials", "git credentials"),
    (".npmrc", "npm token"),
    (".pypirc", "PyPI token"),
    (".cargo", "crates.io token"),
    (".config/gh", "GitHub CLI token"),
    (".password-store", "password store"),
    (".terraform.d", "Terraform Cloud token"),
];

/// What kind of secret a path holds, in words.
fn secret_words(path: &str, kind: SecretKind, home: Option<&str>) -> &'static str {
    if let Some(rel) = paths::home_relative(path, home) {
        for (pre, words) in SECRET_PLACES {
            if rel == *pre || rel.strip_prefix(pre).is_some_and(|r| r.starts_with('/')) {
                return words;
            }
        }
    }
    match kind {
        SecretKind::DotEnv => "environment file with secrets (.env)",
        SecretKind::PrivateKey => "private key",
        SecretKind::Credentials => "stored credentials",
        SecretKind::System => "system password database",
    }
}

fn reads(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    let home = i.home();
    // Secrets first, grouped by kind.
    let mut kinds: Vec<(&'static str, Vec<String>)> = Vec::new();
    let (mut rec, mut rec_dyn) = (Vec::new(), false);
    let (mut files, mut files_dyn) = (Vec::new(), false);
    for r in &i.fx.reads {
        if let Some(k) = secret_access::secret_of_read(&r.path, r.recursive, home) {
            let words = secret_words(&r.path, k, home);
            let shown = i.show_path(&r.path);
            match kinds.iter_mut().find(|(w, _)| *w == words) {
                Some((_, v)) => push_unique(v, shown),
                None => kinds.push((words, vec![shown])),
            }
            continue;
        }
        let (list, dynamic) = if r.recursive {
            (&mut rec, &mut rec_dyn)
        } else {
            (&mut files, &mut files_dyn)
        };
        push_unique(list, i.show_path(&r.path));
        *dynamic |= r.dynamic;
    }
    for (words, shown) in kinds {
        out.push(Consequence::new(
            ConsequenceKind::Secret,
            format!("Reads a secret, {words}: {}", named(&shown)),
        ));
    }
    if i.fx.env_dump {
        out.push(Consequence::new(
            ConsequenceKind::Secret,
            "Prints every environment variable, secrets among them".to_owned(),
        ));
    }
    if !rec.is_empty() {
        out.push(Consequence::new(
            ConsequenceKind::Reads,
            format!(
                "Reads {}, recursively: {}{}",
                plural(rec.len(), "path", "paths"),
                named(&rec),
                notes(rec_dyn, false)
            ),
        ));
    }
    if !files.is_empty() {
        out.push(Consequence::new(
            ConsequenceKind::Reads,
            format!(
                "Reads {}: {}{}",
                plural(files.len(), "file", "files"),
                named(&files),
                notes(files_dyn, false)
            ),
        ));
    }
}

fn sends(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    let a = i.action;
    let m = &i.masker;
    let mut lines: Vec<String> = Vec::new();
    for e in &i.fx.egress {
        let text = match &e.dest {
            Some(d) => {
                let host = m.mask(&d.host);
                let mut t = if e.raw_socket {
                    format!("Opens a raw connection to {host}")
                } else if e.dns {
                    format!("Looks up {host} in DNS (data can ride in the name)")
                } else if e.uploads {
                    format!("Sends data to {host}")
                } else if matches!(a.op, Operation::Fetch { .. }) {
                    format!("Fetches a page from {host}")
                } else {
                    format!("Connects to {host} (downloads)")
                };
                if d.is_local() {
                    t.push_str(" (stays on this machine)");
                } else if i.policy.host_allowed(&d.host) {
                    t.push_str(" (on your allow list)");
                }
                if d.has_credentials {
                    t.push_str(" (with credentials in the address)");
                }
                t
            }
            None => match (&a.op, &e.git_remote) {
                (
                    Operation::Fetch {
                        is_search: true, ..
                    },
                    _,
                ) => "Searches the web".to_owned(),
                (_, Some(remote)) => format!("Pushes to the git remote {}", m.mask(remote)),
                (Operation::McpCall { server, tool, .. }, _) if e.uploads => format!(
                    "Sends data out through the MCP tool {}",
                    m.mask(&format!("{server}/{tool}"))
                ),
                _ if e.raw_socket => {
                    "Opens a raw connection to an address only known when it runs".to_owned()
                }
                _ if e.uploads => "Sends data to a destination only known when it runs".to_owned(),
                _ => "Connects to a destination only known when it runs".to_owned(),
            },
        };
        push_unique(&mut lines, text);
    }
    let more = lines.len().saturating_sub(MAX_NAMED);
    for t in lines.into_iter().take(MAX_NAMED) {
        out.push(Consequence::new(ConsequenceKind::Sends, t));
    }
    if more > 0 {
        out.push(Consequence::new(
            ConsequenceKind::Sends,
            format!("… and {} more", plural(more, "destination", "destinations")),
        ));
    }
}

/// Secrets spelled in the call itself (the command line, the text written, the arguments):
/// their kinds.
fn secrets_in_call(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    let a = i.action;
    let texts: Vec<String> = match &a.op {
        Operation::Shell { command } => vec![command.clone()],
        Operation::FileWrite { content, .. } => {
            let mut v = vec![content.clone()];
            v.extend(i.edits.iter().map(|e| e.new.clone()));
            v
        }
        Operation::Fetch { url, .. } => vec![url.clone()],
        Operation::McpCall { arguments, .. } => {
            let mut strings = Vec::new();
            json_strings(arguments, &mut strings, "", 0);
            strings.into_iter().map(|(_, s)| s).collect()
        }
        Operation::Prompt { text } if a.tool != crate::PROMPT_TOOL => vec![text.clone()],
        _ => Vec::new(),
    };
    let mut kinds: Vec<String> = Vec::new();
    for t in &texts {
        for s in i.masker.scanner.scan(t) {
            push_unique(&mut kinds, secrets::kind_words(s.kind).to_owned());
        }
        if session::outbound_candidates(t)
            .iter()
            .any(|c| i.masker.session.knows(i.masker.key, c))
        {
            push_unique(&mut kinds, "a secret this session read".to_owned());
        }
    }
    if kinds.is_empty() {
        return;
    }
    let text = match &a.op {
        Operation::FileWrite { path, .. } => format!(
            "Writes a secret into {}: {}",
            i.show_path(&paths::normalize(path, a.cwd.as_deref(), i.home())),
            named(&kinds)
        ),
        _ if i.fx.external_egress().next().is_some() => {
            format!("Sends a secret out: {}", named(&kinds))
        }
        _ => format!("Passes a secret in the call: {}", named(&kinds)),
    };
    out.push(Consequence::new(ConsequenceKind::Secret, text));
}

fn reasons(d: &Decision, out: &mut Vec<Consequence>) {
    for r in &d.reasons {
        out.push(Consequence::new(ConsequenceKind::Reason, r.message.clone()));
    }
}

fn untrusted(i: &Inputs<'_>, out: &mut Vec<Consequence>) {
    let sources: Vec<String> = i
        .decision
        .untrusted_sources
        .iter()
        .map(|s| i.masker.mask(s))
        .collect();
    if !sources.is_empty() {
        out.push(Consequence::new(
            ConsequenceKind::Untrusted,
            format!(
                "Untrusted content in this session came from: {}",
                named(&sources)
            ),
        ));
    } else if i.action.provenance == Provenance::Untrusted {
        out.push(Consequence::new(
            ConsequenceKind::Untrusted,
            "This call is driven by untrusted content".to_owned(),
        ));
    }
}

/// The first [`MAX_EDIT_LINES`] lines of one side of an edit, a line over
/// [`MAX_EDIT_LINE_BYTES`] left out whole, what was left out counted.
fn edit_side(text: &str) -> String {
    let mut kept = Vec::new();
    let mut total = 0usize;
    for line in text.lines() {
        total += 1;
        if kept.len() >= MAX_EDIT_LINES {
            continue;
        }
        if line.len() > MAX_EDIT_LINE_BYTES {
            kept.push(format!(
                "[a line of {} characters, not shown]",
                line.chars().count()
            ));
        } else {
            kept.push(line.to_owned());
        }
    }
    if total > kept.len() {
        kept.push(format!("[… {} more lines]", total - kept.len()));
    }
    kept.join("\n")
}

/// Unified-diff lines for the edits (masked, bounded, truncation marked).
fn diff(m: &Masker<'_>, edits: &[TextEdit]) -> String {
    let mut lines: Vec<String> = Vec::new();
    let n = edits.len();
    for (k, e) in edits.iter().take(MAX_EDITS).enumerate() {
        // Whole sides are masked before they are split or cut.
        let old = m.mask(&edit_side(&e.old));
        let new = m.mask(&edit_side(&e.new));
        if n > 1 {
            lines.push(format!("@@ change {} of {n} @@", k + 1));
        }
        line_diff(&old, &new, &mut lines);
    }
    if n > MAX_EDITS {
        lines.push(format!("[… {} more changes not shown]", n - MAX_EDITS));
    }
    if lines.len() > MAX_DIFF_LINES {
        let more = lines.len() - MAX_DIFF_LINES;
        lines.truncate(MAX_DIFF_LINES);
        lines.push(format!("[… {more} more diff lines not shown]"));
    }
    lines
        .iter()
        .map(|l| clip(l, MAX_DIFF_LINE_CHARS))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The common lines before and after a change as context (the nearest [`CONTEXT`]), the
/// rest as removed (`-`) and added (`+`) lines.
fn line_diff(old: &str, new: &str, out: &mut Vec<String>) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(a.len().min(b.len()) - prefix)
        .take_while(|(x, y)| x == y)
        .count();
    let ctx_before = a.get(prefix.saturating_sub(CONTEXT)..prefix).unwrap_or(&[]);
    let removed = a.get(prefix..a.len() - suffix).unwrap_or(&[]);
    let added = b.get(prefix..b.len() - suffix).unwrap_or(&[]);
    let ctx_after = a
        .get(a.len() - suffix..(a.len() - suffix + CONTEXT).min(a.len()))
        .unwrap_or(&[]);
    out.extend(ctx_before.iter().map(|l| format!("  {l}")));
    out.extend(removed.iter().map(|l| format!("- {l}")));
    out.extend(added.iter().map(|l| format!("+ {l}")));
    out.extend(ctx_after.iter().map(|l| format!("  {l}")));
    if removed.is_empty() && added.is_empty() {
        out.push("  (no change)".to_owned());
    }
}

#[cfg(test)]
mod tests;
