//! Shell understanding: a command line becomes the list of programs it would run.
//!
//! The command is parsed by `brush-parser` (a maintained POSIX/bash parser). The walker then
//! resolves each word the way the shell would for the purposes of judging it (quotes removed,
//! `$'\x..'` decoded, `$IFS` split, `$HOME`/`~` mapped, trivially constant `$(echo …)`
//! folded), unwraps wrappers (`sudo`, `env`, `timeout`, …), and recurses into everything that
//! executes text: `sh -c`, `eval`, `$(…)`, backticks, process substitution, heredocs fed to a
//! shell, `echo … | sh`, `base64 -d | sh` (decoded when the input is literal), `find -exec`,
//! `xargs`, and inline interpreter code (`python -c`, `node -e`, `perl -e`, …).
//!
//! Anything it cannot see through becomes a [`ShellIssue`], which rules turn into AUTH or
//! BLOCK: a command that cannot be understood is never PASS.

mod exec;
pub(crate) use exec::cargo_compiles;
mod globs;
mod inline;
pub mod runners;
pub mod windows;
mod words;

use std::collections::{BTreeMap, BTreeSet};

use brush_parser::ast;

pub use words::Word;

/// Largest command text handed to the parser (bigger ones are judged without parsing).
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Deepest nesting of `sh -c`/`eval`/`$(…)` the walker follows.
pub const MAX_DEPTH: u8 = 8;
/// Bracket nesting above which the text is not handed to the (recursive) parser at all.
const MAX_BRACKET_NESTING: usize = 64;
/// Most invocations recorded for one command.
const MAX_INVOCATIONS: usize = 4096;

/// Where a program's standard input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stdin {
    Inherit,
    /// Output of invocation `index` in the same pipeline.
    Pipe(usize),
    /// A heredoc or here-string with this (literal) text.
    Text(String),
    /// A file redirection.
    File(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    Read,
    Write,
    Append,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub fd: Option<i32>,
    pub kind: RedirectKind,
    pub target: Word,
}

/// One program the command line would run, after unwrapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// Basename of the program, lower-cased, without `.exe`.
    pub program: String,
    /// The command word as resolved (may contain a path).
    pub command_word: Word,
    pub args: Vec<Word>,
    /// `NAME=value` prefixes, and `export`/`declare -x` assignments.
    pub assignments: Vec<(String, Word)>,
    pub redirects: Vec<Redirect>,
    pub stdin: Stdin,
    /// Wrappers that were peeled off (`sudo`, `env`, `timeout`, …).
    pub wrappers: Vec<String>,
    /// Receives extra arguments from stdin (`xargs`) or from `find -exec`.
    pub args_from_input: bool,
    /// Nesting depth (0 = the command line itself).
    pub depth: u8,
    /// Synthesised from inline interpreter code rather than parsed shell.
    pub from_inline_code: bool,
    /// Runs on another machine: text handed to `ssh HOST` or `kubectl exec` (its programs,
    /// "local" tools included, act on that machine's services and data).
    pub remote: bool,
    /// Working directory this invocation runs in, when an earlier `cd` in the same command
    /// line changed it (absolute, normalised); `None` means the action's own.
    pub cwd: Option<String>,
    /// Read from a shell file the line runs (`. ./.env`, `bash x.sh`), not typed on it.
    pub from_file: bool,
}

impl Invocation {
    /// Argument texts.
    pub fn argv(&self) -> impl Iterator<Item = &str> {
        self.args.iter().map(|w| w.text.as_str())
    }

    pub fn has_flag(&self, short: char, long: &str) -> bool {
        self.args.iter().any(|w| {
            let t = w.text.as_str();
            if t == "--" {
                return false;
            }
            (!long.is_empty() && (t == long || t.starts_with(&format!("{long}="))))
                || (t.starts_with('-')
                    && !t.starts_with("--")
                    && t.len() > 1
                    && t.chars().skip(1).all(|c| c.is_ascii_alphanumeric())
                    && t.contains(short))
        })
    }

    /// Arguments that are not options (everything after `--`, and words not starting with `-`).
    pub fn operands(&self) -> Vec<&Word> {
        let mut out = Vec::new();
        let mut after_dd = false;
        for w in &self.args {
            if after_dd {
                out.push(w);
            } else if w.text == "--" {
                after_dd = true;
            } else if !w.text.starts_with('-') || w.text == "-" {
                out.push(w);
            }
        }
        out
    }
}

/// Something the walker could not see through. Each maps to a reason in `rules::shell_issues`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellIssue {
    /// The parser rejected the text.
    Unparseable,
    /// The text is larger than [`MAX_COMMAND_BYTES`].
    TooLarge,
    /// Nesting deeper than the walker follows.
    TooDeep,
    /// The program name is computed at run time (`$cmd`, `$(…)` that is not constant).
    DynamicCommand,
    /// `eval`/`sh -c` of text computed at run time.
    DynamicEval,
    /// A shell or interpreter reads code from the output of a network fetch.
    NetworkToShell,
    /// A shell or interpreter reads code that went through a decoder (base64, xxd, rev…).
    /// `decoded` tells whether the walker could decode it and analyse the result.
    DecodedToShell { decoded: bool },
    /// A shell or interpreter reads code from some other program's output or a file.
    PipeToShell,
    /// Inline interpreter code (`python -c`) that does things the walker cannot follow.
    OpaqueInlineCode,
    /// A file is executed (script, `Makefile`, `package.json` script, git hook) whose content
    /// the engine was not shown, could not be read, or was too large.
    UnseenFile,
    /// An interactive shell is started through another program (`pty.spawn`, `vim :shell`,
    /// `script -c bash`, `awk 'BEGIN{system("sh")}'`).
    InteractiveShell,
}

/// A shell function definition (kept for fork-bomb detection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDef {
    pub name: String,
    /// Programs invoked in the body, and whether any of them runs in the background.
    pub body_programs: Vec<String>,
    pub body_pipes_to_self: bool,
    pub body_backgrounds: bool,
}

/// Everything the walker learned about one command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellAnalysis {
    pub invocations: Vec<Invocation>,
    pub issues: Vec<ShellIssue>,
    pub functions: Vec<FunctionDef>,
    /// Absolute paths whose content the walker wanted (files executed, build manifests).
    pub wanted: Vec<String>,
    /// Files the command line writes with text known in advance (`cat > f <<EOF`,
    /// `echo … > f`): (absolute path, text, append).
    pub file_writes: Vec<(String, String, bool)>,
    /// Symbolic links the command line creates: (absolute link, absolute target).
    pub links: Vec<(String, String)>,
}

impl ShellAnalysis {
    pub fn has_issue(&self, issue: &ShellIssue) -> bool {
        self.issues.contains(issue)
    }

    /// The invocation feeding `inv`'s stdin through a pipe, if any.
    pub fn producer(&self, inv: &Invocation) -> Option<&Invocation> {
        match inv.stdin {
            Stdin::Pipe(i) => self.invocations.get(i),
            _ => None,
        }
    }

    /// All invocations upstream of `inv` in its pipeline, nearest first.
    pub fn upstream(&self, inv: &Invocation) -> Vec<&Invocation> {
        let mut out = Vec::new();
        let mut cur = self.producer(inv);
        while let Some(p) = cur {
            if out.len() > 64 {
                break;
            }
            out.push(p);
            cur = self.producer(p);
        }
        out
    }
}

/// Facts the walker needs from outside.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShellEnv<'a> {
    pub cwd: Option<&'a str>,
    /// The user's home directory (for `~` and `cd` with no argument).
    pub home: Option<&'a str>,
    /// File contents and links known for this call (adapter facts and session memory).
    pub files: Option<&'a crate::needs::Files<'a>>,
    /// The host ran the line through PowerShell (its `PowerShell` tool): read as PowerShell
    /// even when nothing in it looks Windows-specific (`$PSVersionTable`, `git clean -fdx
    /// .\build`).
    pub powershell: bool,
}

/// Analyse one command line.
pub fn analyze(command: &str, env: ShellEnv<'_>) -> ShellAnalysis {
    let mut w = Walker {
        env,
        out: ShellAnalysis::default(),
        scripts: 0,
        cwd: env.cwd.map(str::to_owned),
        dir_stack: Vec::new(),
        prev_cwd: None,
        local_files: BTreeMap::new(),
        local_links: BTreeMap::new(),
        decoded_files: BTreeSet::new(),
        file_execs: 0,
        runs_seen: BTreeSet::new(),
        project_depth: 0,
        aliases: BTreeMap::new(),
        remote_depth: 0,
        literal_vars: BTreeMap::new(),
        script_path: None,
        function_bodies: BTreeMap::new(),
        calling: Vec::new(),
    };
    if command.trim().is_empty() {
        // An empty command line is not something an agent legitimately sends.
        w.issue(ShellIssue::Unparseable);
        return w.out;
    }
    // PowerShell and `cmd.exe` lines are judged as the POSIX lines they amount to. (A line
    // over the size bound is refused as it is, without reading it as either.)
    let as_windows =
        command.len() <= MAX_COMMAND_BYTES && (env.powershell || windows::looks_windows(command));
    match as_windows
        .then(|| {
            if env.powershell {
                windows::translate_powershell(command)
            } else {
                windows::translate(command)
            }
        })
        .flatten()
    {
        Some(posix) => {
            w.script(&posix, 0, None);
            // A line that also sets shell variables the POSIX way (`X=…`, `export X=…`) may be
            // a POSIX line with a cmdlet-like word added so it reads as PowerShell (where
            // `$X = 1` is an assignment, not the command stored in X): judged both ways.
            if windows::posix_assignments(command) {
                w.script(command, 0, None);
            }
        }
        None => w.script(command, 0, None),
    }
    w.out
}

/// `NAME=value` given to `export`, `declare`, `local` and the like: the name and the value
/// as a word of its own.
fn declared_assignment(a: &Word) -> Option<(String, Word)> {
    let (k, v) = a.text.split_once('=')?;
    (!k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')).then(|| {
        (
            k.to_owned(),
            Word {
                text: v.to_owned(),
                ..a.clone()
            },
        )
    })
}

/// A value known before the line runs: a literal, or `$HOME` and a literal path under it
/// (as `~/…`, which paths resolve the same). An `export p="…"` word comes as written, its
/// quotes with it.
fn known_value(w: &Word) -> Option<String> {
    let t = w.text.as_str();
    if let Some(inner) = t.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        return Some(inner.to_owned());
    }
    let quoted = t.strip_prefix('"').and_then(|x| x.strip_suffix('"'));
    let inner = quoted.unwrap_or(t);
    if let Some(rest) = inner
        .strip_prefix("${HOME}")
        .or_else(|| inner.strip_prefix("$HOME"))
    {
        return ((rest.is_empty() || rest.starts_with('/'))
            && !rest.contains(['$', '`', '*', '?', '[']))
        .then(|| format!("~{rest}"));
    }
    if w.dynamic || quoted.is_some() && inner.contains(['$', '`']) {
        return None;
    }
    Some(inner.to_owned())
}

const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "busybox-sh",
];
const INTERPRETERS: &[&str] = &[
    // TypeScript runners: node with a loader (`tsx -e CODE` is `node -e CODE`).
    "tsx",
    "ts-node",
    "ts-node-esm",
    "esno",
    "vite-node",
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "php",
    "deno",
    "bun",
    "lua",
    "osascript",
    "pwsh",
    "powershell",
    "tclsh",
    "Rscript",
    "rscript",
    "r",
    "julia",
    "jshell",
    "guile",
    "racket",
    "sbcl",
    "clisp",
    "elixir",
    "iex",
    "erl",
    "escript",
    "groovy",
    "scala",
    "kotlin",
    "swift",
    "clojure",
    "clj",
    "bb",
    "nu",
    "xonsh",
    "elvish",
    "octave",
    "octave-cli",
    "matlab",
    "gjs",
    "qjs",
    "jjs",
];
const NETWORK_FETCHERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "http",
    "https",
    "xh",
    "aria2c",
    "lwp-request",
    "GET",
    "iwr",
    "invoke-webrequest",
    "invoke-restmethod",
];
const DECODERS: &[&str] = &[
    "base64", "base32", "basenc", "xxd", "openssl", "rev", "tr", "gunzip", "zcat", "gzip",
    "uudecode", "od", "python", "python3", "perl", "bzip2", "xz", "unxz", "bunzip2",
];

/// Is `program` a shell that would execute its stdin / `-c` text?
pub fn is_shell(program: &str) -> bool {
    SHELLS.contains(&program)
}

/// Is `program` a language interpreter that runs code?
pub fn is_interpreter(program: &str) -> bool {
    let p = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&program) || INTERPRETERS.contains(&p)
}

/// Is `program` a network fetcher whose output could be code?
pub fn is_network_fetcher(program: &str) -> bool {
    NETWORK_FETCHERS.contains(&program)
}

struct Walker<'a> {
    env: ShellEnv<'a>,
    out: ShellAnalysis,
    /// Scripts analysed so far (every `sh -c`, `$(…)`, heredoc …): a hard bound on total work.
    scripts: usize,
    /// The working directory as `cd` within the command line leaves it.
    cwd: Option<String>,
    /// `pushd` history.
    dir_stack: Vec<Option<String>>,
    /// The folder before the last `cd` (`cd -`, `~-`).
    prev_cwd: Option<String>,
    /// Files written earlier in this same command line (absolute path → text).
    local_files: BTreeMap<String, String>,
    /// Links made earlier in this same command line (absolute link → absolute target).
    local_links: BTreeMap<String, String>,
    /// Files written earlier in this same command line from text decoded out of a form the
    /// walker could not read (`base64 -d blob.txt > x`, `certutil -decode a b`, `xxd -r -p h
    /// x`): running one is running undecodable code.
    decoded_files: BTreeSet<String>,
    /// Files whose content was analysed (bounded).
    file_execs: usize,
    /// Task-runner recipes already analysed (file, program and operands): a recipe that
    /// runs its own runner again (`default: just --list`) is not analysed twice.
    runs_seen: BTreeSet<(String, String)>,
    /// Inside the project's own files (see `exec::in_file`).
    project_depth: u32,
    /// Aliases defined earlier in this command line (`alias ll='…'`): name → text.
    aliases: BTreeMap<String, String>,
    /// Inside text that runs on another machine (`ssh HOST '…'`, `kubectl exec … --`).
    remote_depth: u32,
    /// Variables set earlier in this command line to a literal (`x=-exec; y=rm`): a later
    /// `$x` is that text, as the shell will expand it.
    literal_vars: BTreeMap<String, String>,
    /// The script file being run (absolute), while its text is walked.
    script_path: Option<String>,
    /// Shell functions defined earlier in this command line: name → body text.
    function_bodies: BTreeMap<String, String>,
    /// The functions whose bodies are being walked for a call (innermost last).
    calling: Vec<String>,
}

/// Most nested scripts one command may contain before it is judged as too complex.
const MAX_SCRIPTS: usize = 1024;

fn max_bracket_nesting(s: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in s.bytes() {
        match b {
            b'(' | b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn parse_program(text: &str) -> Option<ast::Program> {
    let opts = brush_parser::ParserOptions::default();
    // The parser is third-party code; a panic inside it must become "unparseable", never
    // unwind through a hook. No I/O happens here.
    std::panic::catch_unwind(|| {
        let mut p = brush_parser::Parser::new(std::io::BufReader::new(text.as_bytes()), &opts);
        p.parse_program().ok()
    })
    .ok()
    .flatten()
}

/// Word-level inputs for the simple fast path: text a shell would split on spaces alone.
fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b' ' | b'-' | b'_' | b'.' | b'/' | b'=' | b':' | b',' | b'+' | b'@' | b'%'
                )
        })
}

impl Walker<'_> {
    /// The first line a program would read on stdin, when it is literal.
    fn stdin_first_line(&self, stdin: &Stdin) -> Option<String> {
        let text = match stdin {
            Stdin::Text(t) => t.clone(),
            Stdin::Pipe(i) => match literal_output(self.out.invocations.get(*i)?, &self.out) {
                Output::Literal(t) | Output::Decoded(t) => t,
                _ => return None,
            },
            _ => return None,
        };
        text.lines().next().map(|l| l.trim().to_owned())
    }

    fn issue(&mut self, i: ShellIssue) {
        if self.project_depth > 0
            && matches!(
                i,
                ShellIssue::DynamicCommand
                    | ShellIssue::DynamicEval
                    | ShellIssue::OpaqueInlineCode
                    | ShellIssue::PipeToShell
                    | ShellIssue::Unparseable
                    | ShellIssue::InteractiveShell
            )
        {
            return;
        }
        if !self.out.issues.contains(&i) {
            self.out.issues.push(i);
        }
    }

    /// Analyse a whole script. `stdin` feeds its first command (for `echo x | sh`).
    fn script(&mut self, text: &str, depth: u8, stdin: Option<Stdin>) {
        self.scripts += 1;
        if self.scripts > MAX_SCRIPTS {
            self.issue(ShellIssue::TooLarge);
            return;
        }
        if depth > MAX_DEPTH {
            self.issue(ShellIssue::TooDeep);
            return;
        }
        if text.len() > MAX_COMMAND_BYTES {
            self.issue(ShellIssue::TooLarge);
            return;
        }
        if max_bracket_nesting(text) > MAX_BRACKET_NESTING {
            self.issue(ShellIssue::TooDeep);
            return;
        }
        // Fast path: one simple command made only of characters the shell treats literally.
        if is_plain(text) {
            let mut assignments = Vec::new();
            let mut words = text.split(' ').filter(|s| !s.is_empty()).peekable();
            while let Some((k, v)) = words.peek().and_then(|w| w.split_once('=')) {
                if k.is_empty() || !k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    break;
                }
                assignments.push((k.to_owned(), Word::literal(v)));
                words.next();
            }
            let mut words = words.map(Word::literal);
            match words.next() {
                Some(first) => {
                    let args: Vec<Word> = words.collect();
                    self.simple(
                        assignments,
                        first,
                        args,
                        Vec::new(),
                        stdin.unwrap_or(Stdin::Inherit),
                        depth,
                    );
                }
                None => self.simple(
                    assignments,
                    Word::literal(""),
                    Vec::new(),
                    Vec::new(),
                    Stdin::Inherit,
                    depth,
                ),
            }
            return;
        }
        let Some(program) = parse_program(text) else {
            self.issue(ShellIssue::Unparseable);
            return;
        };
        let saved = self.cwd.clone();
        let mut first_stdin = stdin;
        for cc in &program.complete_commands {
            self.compound_list(cc, depth, &mut first_stdin);
        }
        if depth > 0 {
            // `sh -c 'cd x'`, `$(cd x; pwd)`: a child's `cd` does not move the caller.
            self.cwd = saved;
        }
    }

    fn compound_list(&mut self, list: &ast::CompoundList, depth: u8, stdin: &mut Option<Stdin>) {
        for item in &list.0 {
            let and_or = &item.0;
            self.pipeline(&and_or.first, depth, stdin.take());
            for next in &and_or.additional {
                match next {
                    ast::AndOr::And(p) | ast::AndOr::Or(p) => self.pipeline(p, depth, None),
                }
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline, depth: u8, stdin: Option<Stdin>) {
        let mut prev: Option<usize> = None;
        let mut first_stdin = stdin;
        for cmd in &p.seq {
            let input = match prev {
                Some(i) => Stdin::Pipe(i),
                None => first_stdin.take().unwrap_or(Stdin::Inherit),
            };
            let before = self.out.invocations.len();
            self.command(cmd, depth, input);
            // The last top-level invocation this command produced feeds the next stage.
            let produced = self.out.invocations.len();
            prev = if produced > before {
                self.last_top_level(before, depth)
            } else {
                prev
            };
        }
    }

    fn last_top_level(&self, from: usize, depth: u8) -> Option<usize> {
        (from..self.out.invocations.len())
            .rev()
            .find(|i| {
                self.out
                    .invocations
                    .get(*i)
                    .is_some_and(|inv| inv.depth == depth)
            })
            .or_else(|| self.out.invocations.len().checked_sub(1))
    }

    fn command(&mut self, cmd: &ast::Command, depth: u8, stdin: Stdin) {
        match cmd {
            ast::Command::Simple(sc) => self.simple_command(sc, depth, stdin),
            ast::Command::Compound(cc, redirs) => {
                let mut s = Some(stdin);
                self.compound(cc, depth, &mut s);
                if let Some(r) = redirs {
                    let redirects = self.redirects(&r.0, depth);
                    // Redirections on a compound apply to what ran inside it.
                    if let Some(last) = self.out.invocations.last_mut() {
                        last.redirects.extend(redirects);
                    }
                }
            }
            ast::Command::Function(f) => self.function(f, depth),
            ast::Command::ExtendedTest(t, _) => self.extended_test(&t.expr, depth),
        }
    }

    fn extended_test(&mut self, e: &ast::ExtendedTestExpr, depth: u8) {
        match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a, depth);
                self.extended_test(b, depth);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.extended_test(a, depth)
            }
            ast::ExtendedTestExpr::UnaryTest(_, w) => {
                let _ = self.words(&w.value, depth);
            }
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                let _ = self.words(&a.value, depth);
                let _ = self.words(&b.value, depth);
            }
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand, depth: u8, stdin: &mut Option<Stdin>) {
        match cc {
            ast::CompoundCommand::BraceGroup(b) => self.compound_list(&b.list, depth, stdin),
            ast::CompoundCommand::Subshell(s) => {
                // `(cd x && …)` leaves the outer directory alone.
                let saved = self.cwd.clone();
                self.compound_list(&s.list, depth, stdin);
                self.cwd = saved;
            }
            ast::CompoundCommand::ForClause(f) => {
                let mut literal_values = true;
                // Each value as the loop variable holds it (quotes removed): `$X` unquoted is
                // split into words again when used (`for X in "rm -rf ~"; do $X; done`).
                let mut held: Vec<String> = Vec::new();
                for w in f.values.iter().flatten() {
                    let words = self.words(&w.value, depth);
                    literal_values &= words.iter().all(|x| !x.dynamic);
                    held.push(
                        words
                            .iter()
                            .map(|x| x.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" "),
                    );
                }
                // The body once for each value the loop takes (`for f in ~/Documents/*; do
                // :> "$f"; done` empties files in the home folder): the variable replaced by
                // the value's text, so paths and globs are seen. With a few literal values that
                // is all; otherwise the body is also judged as written, the variable unknown.
                let var = f.variable_name.as_str();
                let body = f.body.list.to_string();
                let uses =
                    body.contains(&format!("${var}")) || body.contains(&format!("${{{var}}}"));
                let n_values = f.values.iter().flatten().count();
                let per_value = uses && body.len() <= 4096;
                if !(per_value && literal_values && (1..=8).contains(&n_values)) {
                    self.compound_list(&f.body.list, depth, stdin);
                }
                if per_value {
                    for (w, h) in f.values.iter().flatten().zip(&held).take(8) {
                        let v = w.value.as_str();
                        let text = replace_var(&body, var, v);
                        self.script(&text, depth + 1, None);
                        if literal_values && h != v && h.contains(' ') {
                            let text = replace_var(&body, var, h);
                            self.script(&text, depth + 1, None);
                        }
                    }
                }
            }
            ast::CompoundCommand::CaseClause(c) => {
                let _ = self.words(&c.value.value, depth);
                for item in &c.cases {
                    if let Some(l) = &item.cmd {
                        self.compound_list(l, depth, stdin);
                    }
                }
            }
            ast::CompoundCommand::IfClause(i) => {
                self.compound_list(&i.condition, depth, stdin);
                self.compound_list(&i.then, depth, stdin);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.compound_list(c, depth, stdin);
                    }
                    self.compound_list(&e.body, depth, stdin);
                }
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                let input = stdin.clone();
                self.compound_list(&w.0, depth, stdin);
                self.compound_list(&w.1.list, depth, stdin);
                // `PRODUCER | while read -r v; do BODY; done`: the body once for each line the
                // producer prints, when the line spells it out (as a `for` loop's values).
                let cond = w.0.to_string();
                let var = cond
                    .trim()
                    .trim_end_matches(';')
                    .strip_prefix("read ")
                    .map(|r| {
                        r.split_whitespace()
                            .filter(|t| !t.starts_with('-'))
                            .collect::<Vec<_>>()
                    })
                    .and_then(|v| match v.as_slice() {
                        [one] => Some((*one).to_owned()),
                        _ => None,
                    });
                if let (Some(var), Some(Stdin::Pipe(i))) = (var, input) {
                    let lines = self.out.invocations.get(i).map(|p| self.produced_lines(p));
                    let body = w.1.list.to_string();
                    for line in lines.into_iter().flatten().take(8) {
                        let text = replace_var(&body, &var, &quote_word(&line));
                        self.script(&text, depth + 1, None);
                    }
                }
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                self.compound_list(&f.body.list, depth, stdin)
            }
            ast::CompoundCommand::Coprocess(c) => self.command(&c.body, depth, Stdin::Inherit),
            ast::CompoundCommand::Arithmetic(_) => {}
        }
    }

    /// The lines `producer` prints, when the line spells them out: literal output, or the
    /// paths `command -v A B` / `which A B` report (a program's binary in a `bin` folder).
    fn produced_lines(&self, producer: &Invocation) -> Vec<String> {
        if matches!(
            producer.program.as_str(),
            "command" | "which" | "type" | "whence"
        ) {
            return producer
                .args
                .iter()
                .filter(|w| !w.text.starts_with('-') && !w.dynamic)
                .filter_map(|w| words::located_program_of(&w.text))
                .collect();
        }
        match literal_output(producer, &self.out) {
            Output::Literal(t) | Output::Decoded(t) => t
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn function(&mut self, f: &ast::FunctionDefinition, depth: u8) {
        let name = f.fname.value.clone();
        if self.function_bodies.len() < 32 {
            self.function_bodies
                .insert(name.clone(), f.body.0.to_string());
        }
        let before = self.out.invocations.len();
        let mut s = None;
        self.compound(&f.body.0, depth, &mut s);
        let body: Vec<&Invocation> = self.out.invocations.iter().skip(before).collect();
        let body_programs: Vec<String> = body.iter().map(|i| i.command_word.text.clone()).collect();
        let body_pipes_to_self = body.iter().any(|i| {
            i.command_word.text == name
                && matches!(i.stdin, Stdin::Pipe(p) if self.out.invocations.get(p).is_some_and(|x| x.command_word.text == name))
        });
        let body_backgrounds = function_body_backgrounds(&f.body.0);
        self.out.functions.push(FunctionDef {
            name,
            body_programs,
            body_pipes_to_self,
            body_backgrounds,
        });
    }

    fn simple_command(&mut self, sc: &ast::SimpleCommand, depth: u8, stdin: Stdin) {
        let mut assignments = Vec::new();
        let mut redirect_items = Vec::new();
        let mut words: Vec<Word> = Vec::new();
        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => {
                    assignments.push(self.assignment(a, depth));
                }
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirect_items.push(r.clone()),
                ast::CommandPrefixOrSuffixItem::Word(w) => {
                    words.extend(self.words(&w.value, depth))
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    words.push(self.process_substitution(sub, depth));
                }
            }
        }
        if let Some(w) = &sc.word_or_name {
            words.extend(self.words(&w.value, depth));
        }
        for item in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::Word(w) => {
                    words.extend(self.words(&w.value, depth))
                }
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirect_items.push(r.clone()),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    // `export X=1` arrives here as an assignment word in the suffix.
                    assignments.push(self.assignment(a, depth));
                    words.push(Word::literal(&w.value));
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    words.push(self.process_substitution(sub, depth));
                }
            }
        }
        let redirects = self.redirects(&redirect_items, depth);
        let mut stdin = stdin;
        for r in &redirect_items {
            match r {
                ast::IoRedirect::HereDocument(fd, doc) if fd.unwrap_or(0) == 0 => {
                    stdin = Stdin::Text(doc.doc.value.clone());
                }
                ast::IoRedirect::HereString(fd, w) if fd.unwrap_or(0) == 0 => {
                    let text = self
                        .words(&w.value, depth)
                        .into_iter()
                        .map(|w| w.text)
                        .collect::<Vec<_>>()
                        .join(" ");
                    stdin = Stdin::Text(text);
                }
                _ => {}
            }
        }
        if let Some(r) = redirects
            .iter()
            .find(|r| r.kind == RedirectKind::Read && r.fd.unwrap_or(0) == 0)
        {
            stdin = Stdin::File(r.target.text.clone());
        }
        let words: Vec<Word> = if self.literal_vars.is_empty()
            && !words.iter().any(|w| w.dynamic && w.text.contains("${"))
        {
            words
        } else {
            // A program named through a variable is still a named-at-run-time command
            // (`dynamic_command`), whatever the walk then sees it run.
            // A tool's path kept in a variable set to a literal earlier (`PROTOC=.tools/bin/
            // protoc; "$PROTOC" …`) is that path, as written: a bare program name hidden in
            // one (`P=rm; $P …`) is not.
            let named_at_run_time = words
                .first()
                .is_some_and(|w| w.dynamic && w.text.starts_with('$'));
            let expanded: Vec<Word> = words
                .into_iter()
                .flat_map(|w| self.expand_literal_var(w))
                .collect();
            if named_at_run_time
                && !expanded
                    .first()
                    .is_some_and(|w| !w.dynamic && w.text.contains('/'))
            {
                self.issue(ShellIssue::DynamicCommand);
            }
            expanded
        };
        // `~-` and `~+`: the previous and the current working folder.
        let words: Vec<Word> = words
            .into_iter()
            .map(|mut w| {
                for (tilde, dir) in [
                    ("~-", self.prev_cwd.as_deref()),
                    ("~+", self.cwd.as_deref()),
                ] {
                    if let Some(rest) = w.text.strip_prefix(tilde)
                        && (rest.is_empty() || rest.starts_with('/'))
                    {
                        match dir {
                            Some(d) => w.text = format!("{d}{rest}"),
                            None => w.dynamic = true,
                        }
                    }
                }
                w
            })
            .collect();
        // Bare assignments, and `export`/`declare`/`local`/`readonly` ones, of values known
        // here (a literal, or the home folder and a literal path under it).
        let declares = words.first().is_some_and(|w| {
            !w.dynamic
                && matches!(
                    w.text.as_str(),
                    "export" | "declare" | "typeset" | "local" | "readonly"
                )
        });
        let declared: Vec<(String, Word)> = if declares {
            words
                .iter()
                .skip(1)
                .filter_map(declared_assignment)
                .collect()
        } else {
            Vec::new()
        };
        if words.is_empty() || declares {
            for (name, value) in assignments.iter().chain(declared.iter()) {
                // A value made of variables known here (`DIR=".tools/protoc-${VERSION}"`).
                let composed = || {
                    (value.dynamic && !value.text.contains(['`', '*', '?', '[']))
                        .then(|| self.substitute_known(&value.text))
                        .flatten()
                };
                match known_value(value).or_else(composed) {
                    Some(v) if v.len() <= 4096 && self.literal_vars.len() < 64 => {
                        self.literal_vars.insert(name.clone(), v);
                    }
                    _ => {
                        self.literal_vars.remove(name);
                    }
                }
            }
        }
        let mut it = words.into_iter();
        match it.next() {
            Some(first) => {
                let args: Vec<Word> = it.collect();
                self.simple(assignments, first, args, redirects, stdin, depth);
            }
            None => {
                // Bare assignments / redirections: record them on an empty invocation.
                self.push(Invocation {
                    program: String::new(),
                    command_word: Word::literal(""),
                    args: Vec::new(),
                    assignments,
                    redirects,
                    stdin,
                    wrappers: Vec::new(),
                    args_from_input: false,
                    depth,
                    from_inline_code: false,
                    remote: self.remote_depth > 0,
                    cwd: self.cwd_if_moved(),
                    from_file: self.script_path.is_some(),
                });
            }
        }
    }

    fn assignment(&mut self, a: &ast::Assignment, depth: u8) -> (String, Word) {
        let name = match &a.name {
            ast::AssignmentName::VariableName(n) => n.clone(),
            ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => self.word_joined(&w.value, depth),
            ast::AssignmentValue::Array(items) => {
                let texts: Vec<String> = items
                    .iter()
                    .map(|(_, w)| self.word_joined(&w.value, depth).text)
                    .collect();
                Word::literal(&texts.join(" "))
            }
        };
        (name, value)
    }

    fn process_substitution(&mut self, sub: &ast::SubshellCommand, depth: u8) -> Word {
        let before = self.out.invocations.len();
        let mut s = None;
        self.compound_list(&sub.list, depth + 1, &mut s);
        let mut w = Word::dynamic("/dev/fd/63");
        w.procsub_from = self
            .last_top_level(before, depth + 1)
            .filter(|i| *i >= before);
        w
    }

    fn redirects(&mut self, items: &[ast::IoRedirect], depth: u8) -> Vec<Redirect> {
        let mut out = Vec::new();
        for r in items {
            match r {
                ast::IoRedirect::File(fd, kind, target) => {
                    let kind = match kind {
                        ast::IoFileRedirectKind::Read => RedirectKind::Read,
                        ast::IoFileRedirectKind::Append => RedirectKind::Append,
                        ast::IoFileRedirectKind::Write
                        | ast::IoFileRedirectKind::Clobber
                        | ast::IoFileRedirectKind::ReadAndWrite => RedirectKind::Write,
                        ast::IoFileRedirectKind::DuplicateInput
                        | ast::IoFileRedirectKind::DuplicateOutput => {
                            // `>&2`, `2>&1`: nothing to judge unless the target is a file name.
                            if let ast::IoFileRedirectTarget::Duplicate(w) = target {
                                let w = self.word_joined(&w.value, depth);
                                if w.text.parse::<i32>().is_err() && w.text != "-" {
                                    out.push(Redirect {
                                        fd: *fd,
                                        kind: RedirectKind::Write,
                                        target: w,
                                    });
                                }
                            }
                            continue;
                        }
                    };
                    match target {
                        ast::IoFileRedirectTarget::Filename(w)
                        | ast::IoFileRedirectTarget::Duplicate(w) => {
                            let target = self.target_word(&w.value, depth);
                            out.push(Redirect {
                                fd: *fd,
                                kind,
                                target,
                            });
                        }
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, sub) => {
                            let target = self.process_substitution(sub, depth);
                            out.push(Redirect {
                                fd: *fd,
                                kind,
                                target,
                            });
                        }
                        ast::IoFileRedirectTarget::Fd(_) => {}
                    }
                }
                ast::IoRedirect::OutputAndError(w, append) => {
                    let target = self.target_word(&w.value, depth);
                    out.push(Redirect {
                        fd: Some(1),
                        kind: if *append {
                            RedirectKind::Append
                        } else {
                            RedirectKind::Write
                        },
                        target,
                    });
                }
                ast::IoRedirect::HereDocument(_, doc) => {
                    if doc.requires_expansion {
                        // `$(…)` inside an unquoted heredoc runs when the heredoc is read.
                        self.heredoc_substitutions(&doc.doc.value, depth);
                    }
                }
                ast::IoRedirect::HereString(_, _) => {}
            }
        }
        out
    }

    fn heredoc_substitutions(&mut self, body: &str, depth: u8) {
        if !body.contains("$(") && !body.contains('`') {
            return;
        }
        let opts = brush_parser::ParserOptions::default();
        if let Ok(pieces) = brush_parser::word::parse_heredoc(body, &opts) {
            let mut ctx = words::ResolveCtx::default();
            let _ = words::resolve_pieces(&pieces, false, &mut ctx);
            for sub in ctx.substitutions {
                self.script(&sub, depth + 1, None);
            }
        }
    }

    /// `$x`, `${x}` or `$x/rest` where `x` was set earlier on the line to a literal: the
    /// words the shell makes of it (an unquoted expansion splits at blanks).
    fn expand_literal_var(&self, w: Word) -> Vec<Word> {
        // (A process substitution, `<(curl …)`, is the command it runs, not text: kept whole.)
        if !w.dynamic || w.procsub_from.is_some() || !w.text.contains('$') {
            return vec![w];
        }
        // A whole array (`"${opts[@]}"`) set on this line: its items, one word each.
        if let Some(name) = w
            .text
            .strip_prefix("${")
            .and_then(|t| t.strip_suffix("[@]}").or_else(|| t.strip_suffix("[*]}")))
            && let Some(value) = self.literal_vars.get(name)
        {
            return value.split_whitespace().map(Word::literal).collect();
        }
        // Expansions inside a word (`~/.aws/${f}entials`, `${HOME}${PATH:0:1}.aws`): when
        // every one is known, the word is the text it makes.
        let substring = w.text.starts_with("${")
            && w.text.split_once('}').is_some_and(|(n, _)| {
                n.get(2..)
                    .is_some_and(|n| n.contains(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
            });
        if !w.text.starts_with('$') || w.text.matches('$').count() > 1 || substring {
            return match self.substitute_known(&w.text) {
                Some(t) => vec![Word::literal(&t)],
                None => vec![w],
            };
        }
        let body = &w.text[1..];
        let (name, rest) = match body.strip_prefix('{') {
            Some(b) => match b.split_once('}') {
                Some((n, r)) => (n, r),
                None => return vec![w],
            },
            None => {
                let end = body
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(body.len());
                (&body[..end], &body[end..])
            }
        };
        if name.is_empty() || rest.contains('$') || !(rest.is_empty() || rest.starts_with('/')) {
            return vec![w];
        }
        let Some(value) = self.literal_vars.get(name) else {
            return vec![w];
        };
        if rest.is_empty() {
            // Split where the shell would: at the characters of `IFS` as set on this line.
            let ifs = self.literal_vars.get("IFS").map_or(" \t\n", String::as_str);
            value
                .split(|c: char| ifs.contains(c))
                .filter(|p| !p.is_empty())
                .map(Word::literal)
                .collect()
        } else {
            vec![Word::literal(&format!("{value}{rest}"))]
        }
    }

    /// `text` with every `$NAME`, `${NAME}` and `${NAME:OFFSET:LENGTH}` replaced, when each
    /// names a variable set to a literal earlier on this line, `HOME`, or the first
    /// character of `PATH` (always `/`); `None` when any expansion is unknown (or the text
    /// holds a command substitution).
    fn substitute_known(&self, text: &str) -> Option<String> {
        if text.contains("$(") || text.contains('`') || text.len() > 4096 {
            return None;
        }
        let value = |name: &str| -> Option<String> {
            match self.literal_vars.get(name) {
                Some(v) => Some(v.clone()),
                None if name == "HOME" => self.env.home.map(str::to_owned),
                None => None,
            }
        };
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(rest.get(..i)?);
            let after = rest.get(i + 1..)?;
            if let Some(b) = after.strip_prefix('{') {
                let (inner, tail) = b.split_once('}')?;
                // `${!NAME}` (the variable NAME names), `${NAME//a/b}`, `${NAME#prefix}`,
                // `${NAME%suffix}`, `${NAME^^}`: what they make of a known literal value.
                if let Some(v) = expand_operator(inner, &value) {
                    out.push_str(&v);
                    rest = tail;
                    continue;
                }
                let (name, range) = inner
                    .split_once(':')
                    .map_or((inner, None), |(n, r)| (n, Some(r)));
                let v = match (name, range) {
                    ("PATH", Some("0:1")) => "/".to_owned(),
                    // `${X:?msg}` and `${X:-default}` are X when X is set and not empty.
                    (n, Some(r)) if r.starts_with(['?', '-']) => {
                        value(n).filter(|v| !v.is_empty())?
                    }
                    (n, None) => match n.split_once(['?', '-']) {
                        Some((n, _)) => value(n)?,
                        None => value(n)?,
                    },
                    (n, Some(r)) => {
                        let v = value(n)?;
                        let (off, len) = r.split_once(':').map_or((r, None), |(o, l)| (o, Some(l)));
                        let off: usize = off.trim().parse().ok()?;
                        let chars: Vec<char> = v.chars().collect();
                        let end = match len {
                            Some(l) => off.checked_add(l.trim().parse::<usize>().ok()?)?,
                            None => chars.len(),
                        };
                        chars.get(off..end.min(chars.len()))?.iter().collect()
                    }
                };
                out.push_str(&v);
                rest = tail;
            } else {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                let name = after.get(..end)?;
                if name.is_empty() {
                    return None;
                }
                out.push_str(&value(name)?);
                rest = after.get(end..)?;
            }
        }
        out.push_str(rest);
        Some(out.replace(['"', '\''], ""))
    }

    /// Resolve one raw word into the words it becomes (IFS splitting may make several).
    fn words(&mut self, raw: &str, depth: u8) -> Vec<Word> {
        let cwd = self.cwd.clone();
        let (ws, subs) = words::resolve_in(raw, cwd.as_deref(), self.script_path.as_deref());
        for s in subs {
            self.script(&s, depth + 1, None);
        }
        ws
    }

    /// A redirection's target: one word, with variables set to literals earlier on the line
    /// replaced (`b=~/.x; : > "$b"`).
    fn target_word(&mut self, raw: &str, depth: u8) -> Word {
        let w = self.word_joined(raw, depth);
        Word::join(&self.expand_literal_var(w))
    }

    fn word_joined(&mut self, raw: &str, depth: u8) -> Word {
        let ws = self.words(raw, depth);
        Word::join(&ws)
    }

    fn push(&mut self, inv: Invocation) -> Option<usize> {
        if self.out.invocations.len() >= MAX_INVOCATIONS {
            self.issue(ShellIssue::TooLarge);
            return None;
        }
        self.out.invocations.push(inv);
        Some(self.out.invocations.len() - 1)
    }

    /// Record one simple command: peel wrappers, then recurse into anything that runs text.
    fn simple(
        &mut self,
        assignments: Vec<(String, Word)>,
        first: Word,
        args: Vec<Word>,
        redirects: Vec<Redirect>,
        stdin: Stdin,
        depth: u8,
    ) {
        let mut assignments = assignments;
        let mut cmd = first;
        // A glob command word (`/???/r?`) is the program it could match; a glob argument
        // that could name a key, a credential or the guard's settings (`~/.s?h/id_e*`) is
        // judged as naming it too (`globs`).
        if cmd.glob
            && !cmd.dynamic
            && let Some(p) = globs::program_match(&cmd.text)
        {
            cmd = Word::literal(&p);
        }
        let mut args: Vec<Word> = if args.iter().any(|w| w.glob) {
            let mut out = Vec::with_capacity(args.len() + 2);
            for w in args {
                let extra = if w.glob {
                    globs::sensitive_matches(&w.text, self.env.home)
                } else {
                    Vec::new()
                };
                out.push(w);
                out.extend(extra.into_iter().map(Word::literal));
            }
            out
        } else {
            args
        };
        let mut wrappers = Vec::new();
        let mut args_from_input = false;
        // Peel wrappers; bounded so a long chain cannot loop forever.
        for _ in 0..16 {
            let prog = program_name(&cmd.text);
            // A sandbox launcher changes what the program it starts sees at each path it
            // binds, hides or replaces: those are judged as the mounts they are.
            if SANDBOXES.contains(&prog.as_str()) {
                for m in sandbox_mounts(&prog, &args) {
                    self.script(&m, depth + 1, None);
                }
            }
            let Some(rest) = unwrap_wrapper(&prog, &args, &mut assignments) else {
                break;
            };
            match rest {
                Unwrapped::Command(i) => {
                    let repl = if prog == "xargs" {
                        xargs_replace(args.get(..i).unwrap_or(&[]))
                    } else {
                        None
                    };
                    let mut tail = args.split_off(i.min(args.len()));
                    if tail.is_empty() {
                        break;
                    }
                    if let Some(r) = repl {
                        // `xargs -I{} sh -c 'rm -rf {}'`: the input lands inside the command.
                        let input = self.stdin_first_line(&stdin);
                        for w in tail.iter_mut() {
                            if w.text.contains(&r) {
                                match &input {
                                    Some(v) => w.text = w.text.replace(&r, v),
                                    None => {
                                        // A whole argument from input is unknown; inside
                                        // `sh -c` text the variable makes its words dynamic.
                                        w.dynamic |= w.text.starts_with(&r);
                                        w.text = w.text.replace(&r, "$XARGS_INPUT");
                                    }
                                }
                            }
                        }
                    }
                    wrappers.push(prog.clone());
                    cmd = tail.remove(0);
                    args = tail;
                }
                Unwrapped::Script(text) => {
                    wrappers.push(prog.clone());
                    self.script(&text, depth + 1, Some(stdin.clone()));
                    return;
                }
                Unwrapped::NotExec => break,
            }
            if prog == "xargs" {
                args_from_input = true;
            }
        }
        let program = program_name(&cmd.text);
        if matches!(
            program.as_str(),
            "export" | "declare" | "typeset" | "local" | "readonly" | "set"
        ) {
            for (k, v) in args.iter().filter_map(declared_assignment) {
                if !assignments.iter().any(|(n, _)| *n == k) {
                    assignments.push((k, v));
                }
            }
        }
        if wrappers.iter().any(|w| w == "xargs") {
            // `xargs cat < paths.txt`: the words of a file the session showed are the
            // arguments (at most 256 of them).
            let text = match &stdin {
                Stdin::Text(t) => Some(t.clone()),
                Stdin::File(f) => {
                    let abs = self.abs(f);
                    self.file_text(&abs, false).map(|(t, _)| t)
                }
                _ => None,
            };
            if let Some(t) = text {
                args.extend(t.split_whitespace().take(256).map(Word::literal));
            }
        }
        if cmd.dynamic && !cmd.text.is_empty() {
            self.issue(ShellIssue::DynamicCommand);
        }
        let inv = Invocation {
            program: program.clone(),
            command_word: cmd,
            args,
            assignments,
            redirects,
            stdin,
            wrappers,
            args_from_input,
            depth,
            from_inline_code: false,
            remote: self.remote_depth > 0,
            cwd: self.cwd_if_moved(),
            from_file: self.script_path.is_some(),
        };
        let Some(idx) = self.push(inv) else {
            return;
        };
        self.after_simple(idx, depth);
        self.follow_exec(idx, depth);
        self.function_call(idx, depth);
    }

    /// A call of a function defined earlier on the line (`skip(){ sed -i … "$@"; }; skip
    /// tests/test_auth.py`): its body runs with the call's arguments as `$1`, `$@`, ….
    fn function_call(&mut self, idx: usize, depth: u8) {
        let Some(inv) = self.out.invocations.get(idx) else {
            return;
        };
        if !inv.wrappers.is_empty() || inv.command_word.dynamic {
            return;
        }
        let name = inv.command_word.text.clone();
        // A function calling itself (`:(){ :|:& };:`) is walked once.
        if self.calling.contains(&name) {
            return;
        }
        let Some(body) = self.function_bodies.get(&name) else {
            return;
        };
        let params: Vec<String> = inv
            .args
            .iter()
            .take(9)
            .map(|w| quote_word(&w.text))
            .collect();
        let text = with_params(body.clone(), &params);
        self.calling.push(name);
        self.script(&text, depth + 1, None);
        self.calling.pop();
    }

    /// Recurse into whatever text the invocation at `idx` would execute.
    fn follow_exec(&mut self, idx: usize, depth: u8) {
        let Some(inv) = self.out.invocations.get(idx).cloned() else {
            return;
        };
        let p = inv.program.as_str();
        if p == "eval" {
            let text: Vec<&str> = inv.argv().collect();
            // `eval "$(ssh-agent -s)"`: the tool's setup, not a command line to see into.
            if !inv.args.is_empty() && inv.args.iter().all(|w| prints_shell_setup(&w.text)) {
                return;
            }
            if inv.args.iter().any(|w| w.dynamic) {
                self.issue(ShellIssue::DynamicEval);
            }
            self.script(&text.join(" "), depth + 1, None);
            return;
        }
        if is_shell(p) || p == "su" || p == "script" || p == "watch" {
            if let Some(code) = dash_c(&inv, &["-c", "--command"]) {
                if code.dynamic {
                    self.issue(ShellIssue::DynamicEval);
                }
                let text = if is_shell(p) {
                    with_positional_args(&inv, &code)
                } else {
                    code.text.clone()
                };
                self.script(&text, depth + 1, None);
                return;
            }
            if p == "watch" {
                let mut text: Vec<&str> = Vec::new();
                let mut it = inv.args.iter();
                while let Some(w) = it.next() {
                    let t = w.text.as_str();
                    if matches!(t, "-n" | "--interval" | "-q" | "--equexit" | "--chgexit") {
                        let _ = it.next();
                    } else if !t.starts_with('-') || !text.is_empty() {
                        text.push(t);
                    }
                }
                self.script(&text.join(" "), depth + 1, None);
                return;
            }
            if is_shell(p) {
                // `bash -s -- args` reads its script from stdin whatever the operands.
                if inv.has_flag('s', "") {
                    self.code_from_stdin(&inv, depth, true);
                    return;
                }
                // `bash script.sh` runs a file; `bash <(curl …)` / `bash` reading stdin runs text.
                if let Some(script) = inv.operands().first() {
                    if let Some(src) = script.procsub_from {
                        self.code_from_invocation(src, depth, true);
                    }
                    if script.text == "/dev/stdin" || script.text == "-" {
                        self.code_from_stdin(&inv, depth, true);
                    } else {
                        let script = (*script).clone();
                        self.exec_file(&script, Some(p), depth);
                    }
                    return;
                }
                if depth > 0 && inv.stdin == Stdin::Inherit {
                    // A shell with nothing to run, started by another program: interactive.
                    self.issue(ShellIssue::InteractiveShell);
                }
                self.code_from_stdin(&inv, depth, true);
            }
            return;
        }
        if p == "source" || p == "." {
            if let Some(script) = inv.operands().first() {
                if let Some(src) = script.procsub_from {
                    self.code_from_invocation(src, depth, true);
                } else if script.text == "/dev/stdin" {
                    self.code_from_stdin(&inv, depth, true);
                } else {
                    let script = (*script).clone();
                    self.exec_file(&script, Some("sh"), depth);
                }
            }
            return;
        }
        if p == "find" || p == "fd" || p == "fdfind" {
            self.find_exec(&inv, depth);
            return;
        }
        // `emacs --batch --eval '(delete-directory …)'`: Emacs Lisp given on the line (a file
        // operand is a file to edit, not code).
        if p == "emacs" {
            if let Some(code) = dash_c(&inv, &["--eval", "-eval"]) {
                self.inline_code(p, &code, depth);
            }
            return;
        }
        if is_interpreter(p) {
            let base = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            let flags: &[&str] = match base {
                "node" | "nodejs" | "bun" | "tsx" | "ts-node" | "ts-node-esm" | "esno"
                | "vite-node" => &["-e", "--eval", "-p", "--print"],
                "perl" => &["-e", "-E"],
                "ruby" => &["-e"],
                "php" => &["-r"],
                "osascript" => &["-e"],
                "pwsh" | "powershell" => &["-c", "-command", "-Command", "-encodedcommand"],
                "deno" => &["eval"],
                "lua" | "luajit" => &["-e"],
                "rscript" | "r" => &["-e", "--expr"],
                "julia" => &["-e", "--eval", "-E", "--print"],
                "guile" => &["-c"],
                "racket" | "elixir" | "iex" | "groovy" | "scala" | "clojure" | "clj" | "bb"
                | "swift" => &["-e", "--eval"],
                "sbcl" => &["--eval"],
                "clisp" => &["-x"],
                "erl" => &["-eval"],
                "qjs" | "gjs" | "jjs" => &["-e", "-c"],
                "kotlin" => &["-e", "-script"],
                "jshell" | "tclsh" => &[],
                "octave" | "octave-cli" => &["--eval"],
                "matlab" => &["-batch", "-r"],
                _ => &["-c"],
            };
            // `osascript -e A -e B`: one script, line by line.
            if base == "osascript" {
                let lines: Vec<&str> = inv
                    .args
                    .windows(2)
                    .filter(|w| w.first().is_some_and(|f| f.text == "-e"))
                    .filter_map(|w| w.get(1).map(|c| c.text.as_str()))
                    .collect();
                if lines.len() > 1 {
                    self.inline_code(p, &Word::literal(&lines.join("\n")), depth);
                    return;
                }
            }
            if let Some(code) = dash_c(&inv, flags) {
                let lang = if TS_RUNNERS.contains(&base) {
                    "node"
                } else {
                    p
                };
                self.inline_code(lang, &code, depth);
                return;
            }
            // `powershell -ExecutionPolicy Bypass -File x.ps1`: the script file.
            if matches!(base, "pwsh" | "powershell")
                && let Some(file) = inv
                    .args
                    .windows(2)
                    .find(|w| {
                        w.first().is_some_and(|f| {
                            matches!(f.text.to_ascii_lowercase().as_str(), "-file" | "-f")
                        })
                    })
                    .and_then(|w| w.get(1))
            {
                let file = file.clone();
                self.exec_file(&file, Some("powershell"), depth);
                return;
            }
            let mut ops = inv.operands();
            if matches!(base, "deno" | "bun") {
                // `deno run FILE`, `bun run FILE`: the file follows the subcommand; other
                // subcommands (`deno test`, `bun install`) run no file named here.
                match ops.first().map(|w| w.text.as_str()) {
                    Some("run" | "serve") => {
                        ops.remove(0);
                        if base == "bun"
                            && ops.first().is_some_and(|w| !w.text.contains(['.', '/']))
                        {
                            return;
                        }
                    }
                    Some(
                        "test" | "task" | "fmt" | "lint" | "check" | "install" | "i" | "add"
                        | "remove" | "rm" | "update" | "upgrade" | "outdated" | "compile" | "bench"
                        | "doc" | "info" | "init" | "create" | "x" | "pm" | "link" | "unlink"
                        | "publish" | "build" | "repl" | "types" | "coverage" | "uninstall"
                        | "cache" | "vendor" | "completions" | "lsp" | "jupyter" | "patch"
                        | "audit",
                    ) => return,
                    _ => {}
                }
            }
            match ops.first() {
                Some(script) if script.procsub_from.is_some() => {
                    if let Some(src) = script.procsub_from {
                        self.code_from_invocation(src, depth, false);
                    }
                }
                Some(script) if script.text != "-" && script.text != "/dev/stdin" => {
                    let skip_module = inv.has_flag('m', "") && p.starts_with("python");
                    if !skip_module && !matches!(p, "osascript" | "pwsh" | "powershell") {
                        let script = (*script).clone();
                        self.exec_file(&script, Some(p), depth);
                    }
                }
                _ => {
                    // Module runs (`python -m pytest`) and REPL flags are not stdin code.
                    if inv.has_flag('m', "") && matches!(p, "python" | "python3" | "python2") {
                        return;
                    }
                    if inv.has_flag('V', "--version") {
                        return;
                    }
                    self.code_from_stdin(&inv, depth, false);
                }
            }
        }
    }

    fn find_exec(&mut self, inv: &Invocation, depth: u8) {
        let args: Vec<&Word> = inv.args.iter().collect();
        // find's starting points: the operands before its first test or option.
        let roots: Vec<Word> = if inv.program == "find" {
            args.iter()
                .take_while(|w| !w.text.starts_with(['-', '(', '!']))
                .map(|w| (*w).clone())
                .collect()
        } else {
            Vec::new()
        };
        let mut i = 0;
        while i < args.len() {
            let a = args.get(i).map(|w| w.text.as_str()).unwrap_or("");
            let fd_exec =
                inv.program != "find" && matches!(a, "-x" | "--exec" | "-X" | "--exec-batch");
            if matches!(a, "-exec" | "-execdir" | "-ok" | "-okdir") || fd_exec {
                let mut j = i + 1;
                let mut cmd: Vec<Word> = Vec::new();
                while j < args.len() {
                    let t = args.get(j).map(|w| w.text.as_str()).unwrap_or("");
                    if t == ";" || t == "+" || t == "\\;" {
                        break;
                    }
                    if let Some(w) = args.get(j) {
                        cmd.push((*w).clone());
                    }
                    j += 1;
                }
                if !cmd.is_empty() {
                    let first = cmd.remove(0);
                    // A reader given each file found reads what is under the starting points
                    // (`find ~/.ssh -type f -exec cat {} \;` reads the keys).
                    // The same for a shell given each file as `$1` (`-exec sh -c 'cat "$1"' _
                    // {} \;`).
                    if !roots.is_empty()
                        && (matches!(
                            program_name(&first.text).as_str(),
                            "cat"
                                | "head"
                                | "tail"
                                | "less"
                                | "more"
                                | "strings"
                                | "xxd"
                                | "od"
                                | "hexdump"
                                | "base64"
                                | "bat"
                                | "nl"
                                | "tac"
                        ) || is_shell(&program_name(&first.text))
                            // (what a script deletes stays each file found, not the whole
                            // starting point: `-name node_modules -exec sh -c 'rm -rf "$1"'`)
                            && !cmd.iter().any(|w| {
                                ["rm ", "rmdir", "unlink", "shred", "mv ", "truncate", "dd "]
                                    .iter()
                                    .any(|d| w.text.contains(d))
                            }))
                        && cmd.iter().any(|w| w.text == "{}")
                    {
                        cmd = found_files(cmd, &roots, "*");
                    }
                    // An in-place editor given each file found edits what the search names
                    // (`find tests/security -name 'test_*.py' -exec sed -i … {} +`): the files
                    // as `ROOT/NAME`, so the edit is judged by the kind of file it changes.
                    if !roots.is_empty()
                        && matches!(program_name(&first.text).as_str(), "sed" | "gsed" | "perl")
                    {
                        let name = args
                            .windows(2)
                            .find(|w| {
                                w.first()
                                    .is_some_and(|a| matches!(a.text.as_str(), "-name" | "-iname"))
                            })
                            .and_then(|w| w.get(1))
                            .map_or_else(|| "*".to_owned(), |w| w.text.clone());
                        cmd = found_files(cmd, &roots, &name);
                    }
                    let before = self.out.invocations.len();
                    self.simple(
                        Vec::new(),
                        first,
                        cmd,
                        Vec::new(),
                        Stdin::Inherit,
                        depth + 1,
                    );
                    for k in before..self.out.invocations.len() {
                        if let Some(x) = self.out.invocations.get_mut(k) {
                            x.args_from_input = true;
                        }
                    }
                }
                i = j;
            }
            i += 1;
        }
    }

    /// A shell or interpreter runs code from its stdin: find out what that code is.
    fn code_from_stdin(&mut self, inv: &Invocation, depth: u8, shell: bool) {
        match &inv.stdin {
            Stdin::Inherit => {}
            Stdin::Text(t) => {
                let t = t.clone();
                self.run_text(&inv.program, &t, depth, shell);
            }
            Stdin::File(_) => self.issue(ShellIssue::PipeToShell),
            Stdin::Pipe(i) => self.code_from_invocation(*i, depth, shell),
        }
    }

    /// Code comes out of invocation `src` (a pipe producer or a process substitution).
    fn code_from_invocation(&mut self, src: usize, depth: u8, shell: bool) {
        let Some(producer) = self.out.invocations.get(src).cloned() else {
            self.issue(ShellIssue::PipeToShell);
            return;
        };
        let runner = if shell { "sh" } else { "python" };
        match literal_output(&producer, &self.out) {
            Output::Literal(text) => self.run_text(runner, &text, depth, shell),
            Output::Decoded(text) => {
                self.issue(ShellIssue::DecodedToShell { decoded: true });
                self.run_text(runner, &text, depth, shell);
            }
            Output::Network => self.issue(ShellIssue::NetworkToShell),
            Output::Undecodable => self.issue(ShellIssue::DecodedToShell { decoded: false }),
            Output::Unknown => self.issue(ShellIssue::PipeToShell),
        }
    }

    fn run_text(&mut self, program: &str, text: &str, depth: u8, shell: bool) {
        if shell {
            self.script(text, depth + 1, None);
        } else {
            self.inline_code(program, &Word::literal(text), depth);
        }
    }

    fn inline_code(&mut self, lang: &str, code: &Word, depth: u8) {
        if code.dynamic {
            self.issue(ShellIssue::DynamicEval);
        }
        // Nushell, xonsh and elvish are read with the markers every language shares, but
        // their own ways to run, open and send are not modelled: what cannot be seen through
        // is asked about.
        let unmodelled = matches!(lang, "nu" | "xonsh" | "elvish");
        let found = inline::analyze(if lang == "xonsh" { "python3" } else { lang }, &code.text);
        if found.opaque || unmodelled {
            self.issue(ShellIssue::OpaqueInlineCode);
        }
        for cmd in found.shell_commands {
            self.script(&cmd, depth + 1, None);
        }
        for (program, args) in found.effects {
            let inv = Invocation {
                program: program.to_owned(),
                command_word: Word::literal(program),
                args: args.iter().map(|a| Word::literal(a)).collect(),
                assignments: Vec::new(),
                redirects: Vec::new(),
                stdin: Stdin::Inherit,
                wrappers: vec![lang.to_owned()],
                args_from_input: false,
                depth: depth + 1,
                from_inline_code: true,
                remote: self.remote_depth > 0,
                cwd: self.cwd_if_moved(),
                from_file: self.script_path.is_some(),
            };
            self.push(inv);
        }
    }
}

fn function_body_backgrounds(cc: &ast::CompoundCommand) -> bool {
    let list = match cc {
        ast::CompoundCommand::BraceGroup(b) => &b.list,
        ast::CompoundCommand::Subshell(s) => &s.list,
        _ => return false,
    };
    list.0
        .iter()
        .any(|item| matches!(item.1, ast::SeparatorOperator::Async))
}

/// `printf FORMAT ARGS…` with the plain conversions (`%s`, `%b`, `%d`, `%%`), the format
/// reused while arguments remain, as the shell does. `None` for anything else (widths,
/// `%x`, `%q`, …): what it prints is then not known.
fn printf_format(fmt: &str, args: &[&str]) -> Option<String> {
    let fmt = words::unescape_printf_format(fmt);
    let mut out = String::new();
    let mut next = 0usize;
    for _round in 0..64 {
        let mut chars = fmt.chars().peekable();
        let mut used = false;
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let arg = |n: &mut usize| -> &str {
                let a = args.get(*n).copied().unwrap_or("");
                *n += 1;
                a
            };
            match chars.next() {
                Some('%') => out.push('%'),
                Some('s') => {
                    out.push_str(arg(&mut next));
                    used = true;
                }
                Some('b') => {
                    out.push_str(&words::unescape_printf(arg(&mut next)));
                    used = true;
                }
                Some('d' | 'i') => {
                    let a = arg(&mut next);
                    if !a.is_empty() && a.parse::<i64>().is_err() {
                        return None;
                    }
                    out.push_str(if a.is_empty() { "0" } else { a });
                    used = true;
                }
                _ => return None,
            }
        }
        if !used || next >= args.len() {
            return Some(out);
        }
    }
    None
}

/// `body` with every expansion of `var` (`"$var"`, `"${var}"`, `${var}`, `$var` not followed
/// by a name character) replaced by `value`.
fn replace_var(body: &str, var: &str, value: &str) -> String {
    let quoted = body
        .replace(&format!("\"${var}\""), value)
        .replace(&format!("\"${{{var}}}\""), value)
        .replace(&format!("${{{var}}}"), value);
    let needle = format!("${var}");
    let mut out = String::with_capacity(quoted.len());
    let mut rest = quoted.as_str();
    while let Some(i) = rest.find(&needle) {
        let after = rest.get(i + needle.len()..).unwrap_or("");
        out.push_str(rest.get(..i).unwrap_or(""));
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&needle);
        } else {
            out.push_str(value);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Quote a literal so it is one word when the text is parsed again as shell.
/// `s` without one pair of matching surrounding quotes (`'x y'` → `x y`); as it is otherwise
/// (a lone quote, a command that only ends in one).
pub(crate) fn unquoted(s: &str) -> &str {
    ['\'', '"']
        .iter()
        .find_map(|q| s.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)))
        .unwrap_or(s)
}

/// Command lines a piece of code runs through its language's process calls
/// (`subprocess.run`, `session.run`, `exec.Command` …), as far as they are literal.
pub(crate) fn code_commands(lang: &str, code: &str) -> Vec<String> {
    inline::analyze(lang, code).shell_commands
}

/// For code a tool loads and runs by itself ([`crate::autorun`]): the command lines it hands
/// to the shell, then the shell lines its own deletes, appends, mode changes and downloads
/// amount to (`rm -rf P`, `tee -a ~/.bashrc`, `chmod`, a download run). Computed parts
/// are not asked about here: the write is judged by what it visibly does.
pub(crate) fn loaded_code_commands(lang: &str, code: &str) -> Vec<String> {
    let found = inline::analyze(lang, code);
    let mut out = found.shell_commands;
    for (program, args) in found.effects {
        let args: Vec<String> = args.iter().map(|a| inline::shell_quote(a)).collect();
        match program {
            "rm" | "tee" | "chmod" | "kill" | "printenv" => {
                out.push(format!("{program} {}", args.join(" ")).trim().to_owned());
            }
            "curl-pipe-shell" => out.push("curl-pipe-shell".to_owned()),
            _ => {}
        }
    }
    out
}

/// The quoted text literals in a piece of code or SQL (`'drop table %I;'`).
pub(crate) fn inline_string_literals(s: &str) -> Vec<String> {
    inline::string_literals(s)
}

pub fn quote_word(s: &str) -> String {
    inline::shell_quote(s)
}

/// Basename of a command word, lower-cased, without a Windows `.exe`.
pub fn program_name(word: &str) -> String {
    let base = word.replace('\\', "/");
    let base = base.rsplit('/').next().unwrap_or(&base).to_owned();
    let lower = base.to_ascii_lowercase();
    lower
        .strip_suffix(".exe")
        .map(str::to_owned)
        .unwrap_or(lower)
}

enum Unwrapped {
    /// The wrapped command starts at this argument index.
    Command(usize),
    /// The wrapper runs this text as a script (`env -S`).
    Script(String),
    /// The wrapper does not run a command here (`command -v`, `env` alone).
    NotExec,
}

/// Options of wrappers that take a value.
fn wrapper_value_opts(prog: &str) -> &'static [&'static str] {
    match prog {
        "sudo" => &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group",
            "--chdir", "--prompt",
        ],
        "doas" => &["-u", "-C"],
        "env" => &["-u", "--unset", "-C", "--chdir", "-P"],
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-t", "--class", "--classdata"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "exec" => &["-a"],
        "runuser" => &["-u", "-g", "-G", "--user", "--group"],
        "strace" | "ltrace" => &["-o", "-e", "-p", "-s", "-u"],
        "flock" => &["-w", "-E", "--timeout", "--conflict-exit-code"],
        "chrt" | "taskset" => &[],
        "unshare" => &[
            "-S",
            "-G",
            "-R",
            "-w",
            "--setuid",
            "--setgid",
            "--root",
            "--wd",
            "--map-user",
            "--map-group",
            "--propagation",
        ],
        "xargs" => &[
            "-a",
            "-d",
            "-E",
            "-e",
            "-I",
            "-i",
            "-L",
            "-l",
            "-n",
            "-P",
            "-s",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--replace",
            "--max-lines",
            "--max-chars",
        ],
        _ => &[],
    }
}

const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "nohup",
    "setsid",
    "time",
    "command",
    "exec",
    "builtin",
    "nice",
    "ionice",
    "timeout",
    "stdbuf",
    "chrt",
    "taskset",
    "unbuffer",
    "caffeinate",
    "runuser",
    "strace",
    "ltrace",
    "flock",
    "xargs",
    "busybox",
    "then",
    "do",
    "else",
    "!",
    "noglob",
    "unshare",
    "bwrap",
    "firejail",
    // macOS `arch -x86_64 CMD`: runs CMD under another architecture.
    "arch",
];

/// Launchers that run a program in a sandbox of their own making.
const SANDBOXES: &[&str] = &["bwrap", "firejail"];

/// bwrap's options and how many values each takes (the rest take none).
fn bwrap_arity(opt: &str) -> usize {
    match opt {
        "--bind" | "--ro-bind" | "--dev-bind" | "--bind-try" | "--ro-bind-try"
        | "--dev-bind-try" | "--symlink" | "--setenv" | "--file" | "--bind-data"
        | "--ro-bind-data" | "--chmod" => 2,
        "--tmpfs" | "--proc" | "--dev" | "--dir" | "--remount-ro" | "--chdir" | "--unsetenv"
        | "--uid" | "--gid" | "--hostname" | "--perms" | "--size" | "--lock-file" | "--sync-fd"
        | "--info-fd" | "--json-status-fd" | "--block-fd" | "--userns-block-fd" | "--seccomp"
        | "--add-seccomp-fd" | "--cap-add" | "--cap-drop" | "--exec-label" | "--file-label"
        | "--userns" | "--userns2" | "--pidns" | "--args" | "--argv0" => 1,
        _ => 0,
    }
}

/// The `mount` lines a sandbox launcher's options amount to: `bwrap --ro-bind SRC DEST`,
/// `--tmpfs DEST`, `--symlink`; `firejail --blacklist=P` / `--tmpfs=P` (P hidden),
/// `--bind=SRC,DEST`. Binding a path onto itself changes nothing and is left out.
fn sandbox_mounts(prog: &str, args: &[Word]) -> Vec<String> {
    let mut out = Vec::new();
    let q = |s: &str| quote_word(s);
    match prog {
        "bwrap" => {
            let mut i = 0;
            while let Some(a) = args.get(i) {
                let t = a.text.as_str();
                if t == "--" || !t.starts_with("--") {
                    break;
                }
                let n = bwrap_arity(t);
                let v = |k: usize| args.get(i + k).map(|w| w.text.as_str());
                match (t, v(1), v(2)) {
                    (
                        "--bind" | "--ro-bind" | "--dev-bind" | "--bind-try" | "--ro-bind-try"
                        | "--dev-bind-try",
                        Some(src),
                        Some(dest),
                    ) if src != dest => out.push(format!("mount --bind {} {}", q(src), q(dest))),
                    ("--tmpfs", Some(dest), _) => {
                        out.push(format!("mount -t tmpfs none {}", q(dest)));
                    }
                    ("--symlink", Some(src), Some(dest)) => {
                        out.push(format!("ln -sf {} {}", q(src), q(dest)));
                    }
                    _ => {}
                }
                i += 1 + n;
            }
        }
        "firejail" => {
            for a in args {
                let t = a.text.as_str();
                if !t.starts_with('-') {
                    break;
                }
                if let Some(p) = t
                    .strip_prefix("--blacklist=")
                    .or_else(|| t.strip_prefix("--tmpfs="))
                {
                    out.push(format!("mount -t tmpfs none {}", q(p)));
                } else if let Some((src, dest)) =
                    t.strip_prefix("--bind=").and_then(|b| b.split_once(','))
                    && src != dest
                {
                    out.push(format!("mount --bind {} {}", q(src), q(dest)));
                }
            }
        }
        _ => {}
    }
    out
}

/// TypeScript runners that run code as node does.
const TS_RUNNERS: &[&str] = &["tsx", "ts-node", "ts-node-esm", "esno", "vite-node"];

/// `$(ssh-agent -s)`, `` `minikube docker-env` ``, `$(pyenv init -)`, `$(brew shellenv)`:
/// the output of a tool that prints its own shell setup (variables, `PATH`, a prompt hook),
/// made to be `eval`ed. The tool's own output is not text anyone else chose.
fn prints_shell_setup(word: &str) -> bool {
    let w = word.trim().trim_matches('"');
    let Some(inner) = w
        .strip_prefix("$(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| w.strip_prefix('`').and_then(|r| r.strip_suffix('`')))
    else {
        return false;
    };
    if inner.contains(['$', '`', ';', '|', '&', '>', '<', '(', '\n']) {
        return false;
    }
    let words: Vec<&str> = inner.split_whitespace().collect();
    let Some((prog, args)) = words.split_first() else {
        return false;
    };
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    let first = args.iter().find(|a| !a.starts_with('-')).copied();
    match prog {
        "ssh-agent" => args.iter().all(|a| a.starts_with('-') && a.len() == 2),
        "keychain" => args.contains(&"--eval"),
        "minikube" => matches!(first, Some("docker-env" | "podman-env")),
        "docker-machine" => first == Some("env"),
        "pyenv" | "rbenv" | "nodenv" | "jenv" | "goenv" | "plenv" | "phpenv" => {
            matches!(first, Some("init" | "virtualenv-init") | None)
        }
        "direnv" => matches!(first, Some("hook" | "export")),
        "brew" => first == Some("shellenv"),
        "opam" => matches!(first, Some("env" | "config")),
        "conda" | "micromamba" | "mamba" => {
            first.is_some_and(|f| f.starts_with("shell")) && args.contains(&"hook")
        }
        "fnm" => first == Some("env"),
        "zoxide" | "starship" => first == Some("init"),
        "mise" | "rtx" => matches!(first, Some("activate" | "env")),
        "luarocks" => first == Some("path"),
        "dircolors" | "lesspipe" | "lesspipe.sh" => true,
        _ => false,
    }
}

/// The command a package runner starts, as a command line: `npx cdk destroy --all` →
/// `cdk destroy --all`, `pnpm dlx wrangler d1 …`, `npm exec -- prisma …`, `uvx --from X ruff
/// check`, `pipx run black .`; `npx -c 'CMD'` is CMD. The package's command is named by its
/// package (scope and version taken off; a few packages whose command has another name are
/// mapped). `None` when this is not a runner or it starts nothing.
pub(super) fn package_runner_command(program: &str, args: &[&str]) -> Option<String> {
    let rest: &[&str] = match (program, args.split_first()) {
        ("npx" | "pnpx" | "bunx" | "uvx", _) => args,
        ("pnpm" | "yarn", Some((&("dlx" | "exec"), r))) => r,
        ("npm", Some((&("exec" | "x"), r))) => r,
        ("pipx", Some((&"run", r))) => r,
        ("uv", Some((&"tool", r))) => match r.split_first() {
            Some((&"run", r)) => r,
            _ => return None,
        },
        _ => return None,
    };
    let mut i = 0;
    while let Some(a) = rest.get(i) {
        match *a {
            "--" => {
                i += 1;
                break;
            }
            "-c" | "--call" => return rest.get(i + 1).map(|c| (*c).to_owned()),
            "-p" | "--package" | "--from" | "--with" | "--python" | "--spec" | "--registry"
            | "--cache" | "--node-options" | "--userconfig" | "--index-url" | "--pip-args" => {
                i += 2
            }
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let pkg = rest.get(i)?;
    let unversioned = match pkg.strip_prefix('@') {
        Some(scoped) => format!("@{}", scoped.split('@').next().unwrap_or(scoped)),
        None => pkg
            .split(['@', '=', '<', '>', '[', '~'])
            .next()
            .unwrap_or(pkg)
            .to_owned(),
    };
    let bin = match unversioned.as_str() {
        "aws-cdk" | "aws-cdk-lib" => "cdk",
        "firebase-tools" => "firebase",
        "netlify-cli" => "netlify",
        "@railway/cli" => "railway",
        "@vercel/cli" => "vercel",
        "@planetscale/cli" => "pscale",
        "@neondatabase/cli" | "neonctl" => "neonctl",
        "@sentry/cli" => "sentry-cli",
        other => other.rsplit('/').next().unwrap_or(other),
    };
    if bin.is_empty() || bin.contains(['$', '`']) {
        return None;
    }
    let mut line = vec![quote_word(bin)];
    line.extend(rest.iter().skip(i + 1).map(|a| quote_word(a)));
    Some(line.join(" "))
}

/// An agent's `mcp add NAME [--] COMMAND ARGS…` (Claude Code, Codex, Gemini, Qwen) registers
/// COMMAND to start with every session: the command line it registers, judged as run.
/// `mcp add-json NAME JSON` likewise runs the JSON's `command` and `args`. A server reached
/// over HTTP (`--transport http NAME URL`, `--url`) starts nothing here.
pub(super) fn agent_mcp_server_command(program: &str, args: &[&str]) -> Option<String> {
    if !matches!(program, "claude" | "codex" | "gemini" | "qwen") || args.first() != Some(&"mcp") {
        return None;
    }
    let sub = args.get(1).copied();
    if sub == Some("add-json") {
        // NAME then JSON, past options and their values (`--scope user`, `-s user`).
        let mut positionals = Vec::new();
        let mut it = args.iter().skip(2);
        while let Some(w) = it.next() {
            if matches!(*w, "-s" | "--scope" | "-e" | "--env" | "-H" | "--header") {
                let _ = it.next();
            } else if !w.starts_with('-') {
                positionals.push(*w);
            }
        }
        let json = positionals.get(1)?;
        let v: serde_json::Value = serde_json::from_str(json).ok()?;
        let command = v.get("command")?.as_str()?;
        let mut line = vec![quote_word(command)];
        for a in v
            .get("args")
            .and_then(|a| a.as_array())
            .into_iter()
            .flatten()
        {
            line.push(quote_word(a.as_str()?));
        }
        return Some(line.join(" "));
    }
    if sub != Some("add") {
        return None;
    }
    const VALUE_OPTS: &[&str] = &[
        "-s",
        "--scope",
        "-t",
        "--transport",
        "-e",
        "--env",
        "-H",
        "--header",
        "--timeout",
        "--url",
        "--bearer-token-env-var",
        "--include-tools",
        "--exclude-tools",
        "--client-id",
        "--client-secret",
        "--callback-port",
        "--description",
    ];
    let mut i = 2;
    let mut name_seen = false;
    while let Some(t) = args.get(i).copied() {
        if t == "--" {
            i += 1;
            break;
        }
        if t == "--url" || t.starts_with("--url=") {
            return None;
        }
        if matches!(t, "-t" | "--transport")
            && args
                .get(i + 1)
                .is_some_and(|v| matches!(*v, "http" | "sse"))
        {
            return None;
        }
        if t.starts_with('-') && t.len() > 1 {
            i += if VALUE_OPTS.contains(&t) { 2 } else { 1 };
            continue;
        }
        if !name_seen {
            name_seen = true;
            i += 1;
            continue;
        }
        break;
    }
    let rest = args.get(i..)?;
    let first = rest.first()?;
    if first.starts_with("http://") || first.starts_with("https://") {
        return None;
    }
    Some(
        rest.iter()
            .map(|a| quote_word(a))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The value of a parameter expansion with an operator (`inner` is the text between the
/// braces) when the variable's value is known and every pattern is literal text: `!NAME`
/// (indirection), `NAME/PAT/REP` and `NAME//PAT/REP`, `NAME#PRE`, `NAME##PRE`, `NAME%SUF`,
/// `NAME%%SUF`, `NAME^^`, `NAME,,`. `None` for anything else (the caller falls back).
fn expand_operator(inner: &str, value: &impl Fn(&str) -> Option<String>) -> Option<String> {
    if let Some(n) = inner.strip_prefix('!') {
        if !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || n.is_empty() {
            return None;
        }
        return value(&value(n)?);
    }
    let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (name, op) = inner.split_at(end);
    if name.is_empty() {
        return None;
    }
    let literal = |p: &str| !p.contains(['*', '?', '[', '$', '`', '\\']);
    let v = || value(name);
    if let Some(rest) = op.strip_prefix('/') {
        let (all, rest) = match rest.strip_prefix('/') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let (pat, rep) = rest.split_once('/').unwrap_or((rest, ""));
        if pat.is_empty() || !literal(pat) || !literal(rep) {
            return None;
        }
        let v = v()?;
        return Some(if all {
            v.replace(pat, rep)
        } else {
            v.replacen(pat, rep, 1)
        });
    }
    for (ops, prefix) in [(["##", "#"], true), (["%%", "%"], false)] {
        for o in ops {
            if let Some(pat) = op.strip_prefix(o) {
                if !literal(pat) {
                    return None;
                }
                let v = v()?;
                let out = if prefix {
                    v.strip_prefix(pat)
                } else {
                    v.strip_suffix(pat)
                };
                return Some(out.unwrap_or(&v).to_owned());
            }
        }
    }
    match op {
        "^^" => Some(v()?.to_uppercase()),
        ",," => Some(v()?.to_lowercase()),
        _ => None,
    }
}

fn unwrap_wrapper(
    prog: &str,
    args: &[Word],
    assignments: &mut Vec<(String, Word)>,
) -> Option<Unwrapped> {
    // Runners that execute the rest of the line in a project environment.
    if matches!(
        prog,
        "bundle" | "poetry" | "pipenv" | "uv" | "pdm" | "hatch" | "rye" | "pixi"
    ) {
        let first = args.first().map(|w| w.text.as_str());
        if !matches!(first, Some("exec" | "run")) {
            return None;
        }
        let mut i = 1;
        while args.get(i).is_some_and(|w| w.text.starts_with('-')) {
            i += 1;
        }
        return Some(if i < args.len() {
            Unwrapped::Command(i)
        } else {
            Unwrapped::NotExec
        });
    }
    // `iex -S mix phx.server`: Elixir's shell running a Mix task (or any script) — what runs
    // is `mix phx.server`. (`iex` alone is the interactive shell: nothing runs.)
    if prog == "iex" {
        let mut i = 0;
        while let Some(t) = args.get(i).map(|w| w.text.as_str()) {
            match t {
                "-S" if i + 1 < args.len() => return Some(Unwrapped::Command(i + 1)),
                "-S" => return Some(Unwrapped::NotExec),
                "--sname" | "--name" | "--cookie" | "--erl" | "--dot-iex" | "--remsh" | "-r"
                | "-pa" | "-pz" => i += 2,
                _ if t.starts_with('-') => i += 1,
                // A script file (`iex script.exs`): judged as the interpreter running it.
                _ => return None,
            }
        }
        return Some(Unwrapped::NotExec);
    }
    if !WRAPPERS.contains(&prog) {
        return None;
    }
    let value_opts = wrapper_value_opts(prog);
    let mut i = 0;
    // Positional prefixes: timeout's DURATION, chrt's PRIORITY, taskset's MASK, flock's FILE.
    let mut positional_to_skip = match prog {
        "timeout" | "taskset" | "flock" => 1,
        "chrt" => 1,
        _ => 0,
    };
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if prog == "command" && (t == "-v" || t == "-V") {
            return Some(Unwrapped::NotExec);
        }
        // `flock FILE -c 'CMD'`: the command is a shell line.
        if prog == "flock" && (t == "-c" || t == "--command") {
            return Some(match args.get(i + 1) {
                Some(w) => Unwrapped::Script(w.text.clone()),
                None => Unwrapped::NotExec,
            });
        }
        if prog == "env" && (t == "-S" || t == "--split-string") {
            let rest: Vec<&str> = args.iter().skip(i + 1).map(|w| w.text.as_str()).collect();
            return Some(Unwrapped::Script(rest.join(" ")));
        }
        if prog == "env"
            && let Some((k, v)) = t.split_once('=')
            && !k.is_empty()
            && !k.starts_with('-')
        {
            assignments.push((k.to_owned(), Word::literal(v)));
            i += 1;
            continue;
        }
        if prog == "nice"
            && t.starts_with('-')
            && t.get(1..).is_some_and(|n| n.parse::<i32>().is_ok())
        {
            i += 1;
            continue;
        }
        if prog == "bwrap" && t.starts_with("--") {
            i += 1 + bwrap_arity(t);
            continue;
        }
        if t.starts_with('-') && t.len() > 1 && prog != "busybox" {
            let takes_value = value_opts.contains(&t);
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        if positional_to_skip > 0 {
            positional_to_skip -= 1;
            i += 1;
            continue;
        }
        break;
    }
    if i >= args.len() {
        return Some(Unwrapped::NotExec);
    }
    Some(Unwrapped::Command(i))
}

/// The replacement string of `xargs -I R` / `-i` / `--replace[=R]`.
fn xargs_replace(opts: &[Word]) -> Option<String> {
    let mut it = opts.iter();
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if t == "-I" {
            return it.next().map(|v| v.text.clone());
        }
        if let Some(r) = t.strip_prefix("-I").filter(|r| !r.is_empty()) {
            return Some(r.to_owned());
        }
        if t == "-i" || t == "--replace" {
            return Some("{}".to_owned());
        }
        if let Some(r) = t
            .strip_prefix("--replace=")
            .or_else(|| t.strip_prefix("-i"))
        {
            return Some(if r.is_empty() {
                "{}".to_owned()
            } else {
                r.to_owned()
            });
        }
    }
    None
}

/// The code argument after one of `flags` (`-c CODE`, `-cCODE` is not supported by shells).
/// `find … -exec rm …` and `find … -exec sh -c 'rm -rf "$1"' _ {} \;`: what find runs on each
/// file it finds deletes it.
pub fn find_exec_deletes(args: &[&str]) -> bool {
    const DELETERS: &[&str] = &["rm", "shred", "unlink", "rmdir", "truncate"];
    args.windows(4).any(|w| match w {
        ["-exec" | "-execdir" | "-ok" | "-okdir", prog, rest @ ..] => {
            let p = program_name(prog);
            DELETERS.contains(&p.as_str())
                || is_shell(&p)
                    && rest.windows(2).any(|c| match c {
                        ["-c", script] => script
                            .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                            .any(|word| DELETERS.contains(&word)),
                        _ => false,
                    })
        }
        _ => false,
    }) || args.windows(2).any(|w| match w {
        ["-exec" | "-execdir" | "-ok" | "-okdir", prog] => {
            DELETERS.contains(&program_name(prog).as_str())
        }
        _ => false,
    })
}

/// `sh -c 'rm -rf "$1"' name ~/src`: the script with `$1`… `$9`, `$@` and `$*` replaced by
/// the literal arguments that follow the script and its `$0` (a computed one leaves the
/// script as it is).
fn with_positional_args(inv: &Invocation, code: &Word) -> String {
    let Some(at) = inv.args.iter().position(|w| w.text == code.text) else {
        return code.text.clone();
    };
    let params: Vec<&Word> = inv.args.iter().skip(at + 2).take(9).collect();
    // `sh -c '… "$0" …' ../..`: the word after the text is `$0`.
    let zero = inv.args.get(at + 1).filter(|w| !w.dynamic);
    if (params.is_empty() && zero.is_none()) || params.iter().any(|w| w.dynamic) {
        return code.text.clone();
    }
    let mut text = code.text.clone();
    if let Some(z) = zero {
        text = replace_var(&text, "0", &quote_word(&z.text));
    }
    let quoted: Vec<String> = params.iter().map(|w| quote_word(&w.text)).collect();
    with_params(text, &quoted)
}

/// `find`'s `{}` in an executed command as the files under each starting point that `name`
/// matches (`ROOT/NAME`, a glob).
fn found_files(cmd: Vec<Word>, roots: &[Word], name: &str) -> Vec<Word> {
    cmd.into_iter()
        .flat_map(|w| {
            if w.text == "{}" {
                roots
                    .iter()
                    .map(|r| {
                        let mut x = r.clone();
                        x.text = format!("{}/{name}", r.text.trim_end_matches('/'));
                        x.glob = true;
                        x
                    })
                    .collect()
            } else {
                vec![w]
            }
        })
        .collect()
}

/// `text` with `$@`, `$*` (quoted or braced) and `$1`… replaced by the (already quoted)
/// positional parameters `params`.
fn with_params(mut text: String, params: &[String]) -> String {
    let all = params.join(" ");
    for var in ["@", "*"] {
        text = text
            .replace(&format!("\"${var}\""), &all)
            .replace(&format!("${{{var}}}"), &all)
            .replace(&format!("${var}"), &all);
    }
    for (i, p) in params.iter().enumerate() {
        text = replace_var(&text, &(i + 1).to_string(), p);
    }
    text
}

/// The identifier that ends `s` (`a.b_c` → `b_c`), possibly empty.
pub(crate) fn trailing_identifier(s: &str) -> String {
    let mut name: Vec<char> = s
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    name.reverse();
    name.into_iter().collect()
}

fn dash_c(inv: &Invocation, flags: &[&str]) -> Option<Word> {
    let mut it = inv.args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if flags.contains(&t) {
            return it.next().cloned();
        }
        // Combined short options like `bash -lc CODE` or `python3 -Sc CODE`.
        if flags.contains(&"-c")
            && t.starts_with('-')
            && !t.starts_with("--")
            && t.len() > 2
            && t.ends_with('c')
            && t.chars().skip(1).all(|c| c.is_ascii_alphabetic())
        {
            return it.next().cloned();
        }
        if let Some(code) = flags
            .iter()
            .filter(|f| f.starts_with("--"))
            .find_map(|f| t.strip_prefix(&format!("{f}=")))
        {
            return Some(Word::literal(code));
        }
    }
    None
}

enum Output {
    Literal(String),
    Decoded(String),
    Network,
    Undecodable,
    Unknown,
}

/// What an invocation would print, when it is knowable without running anything.
fn literal_output(inv: &Invocation, all: &ShellAnalysis) -> Output {
    let p = inv.program.as_str();
    if is_network_fetcher(p) {
        return Output::Network;
    }
    if inv.args.iter().any(|w| w.dynamic) && !DECODERS.contains(&p) {
        return Output::Unknown;
    }
    match p {
        "echo" => {
            let words: Vec<&str> = inv
                .args
                .iter()
                .map(|w| w.text.as_str())
                .skip_while(|t| matches!(*t, "-n" | "-e" | "-E" | "-ne" | "-en"))
                .collect();
            Output::Literal(words.join(" "))
        }
        "printf" => {
            let ops: Vec<&str> = inv.args.iter().map(|w| w.text.as_str()).collect();
            match ops.as_slice() {
                [fmt] if !fmt.contains('%') => Output::Literal(words::unescape_printf(fmt)),
                [fmt, rest @ ..] if *fmt == "%s" || *fmt == "%s\\n" => {
                    Output::Literal(rest.concat())
                }
                // `%b` expands the backslash escapes of each argument (`\x72\x6d` is `rm`).
                [fmt, rest @ ..] if *fmt == "%b" || *fmt == "%b\\n" => {
                    Output::Literal(rest.iter().map(|a| words::unescape_printf(a)).collect())
                }
                [fmt, rest @ ..] if !fmt.starts_with('-') => match printf_format(fmt, rest) {
                    Some(t) => Output::Literal(t),
                    None => Output::Unknown,
                },
                _ => Output::Unknown,
            }
        }
        "cat" if inv.operands().is_empty() => match &inv.stdin {
            Stdin::Text(t) => Output::Literal(t.clone()),
            Stdin::Pipe(i) => match all.invocations.get(*i) {
                Some(prev) if prev.depth == inv.depth => literal_output(prev, all),
                _ => Output::Unknown,
            },
            _ => Output::Unknown,
        },
        _ if DECODERS.contains(&p) => {
            let input = match &inv.stdin {
                Stdin::Text(t) => Some(t.clone()),
                Stdin::Pipe(i) => match all
                    .invocations
                    .get(*i)
                    .map(|prev| literal_output(prev, all))
                {
                    Some(Output::Literal(t)) | Some(Output::Decoded(t)) => Some(t),
                    Some(Output::Network) => return Output::Network,
                    _ => None,
                },
                _ => None,
            };
            match input.and_then(|t| words::decode_with(inv, &t)) {
                Some(text) => Output::Decoded(text),
                None => Output::Undecodable,
            }
        }
        _ => Output::Unknown,
    }
}

/// Split a git invocation into (subcommand, arguments after it), skipping global options.
pub fn git_subcommand(inv: &Invocation) -> Option<(&str, Vec<&str>)> {
    if inv.program != "git" {
        return None;
    }
    let args: Vec<&str> = inv.argv().collect();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if matches!(
            *a,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
        ) {
            i += 2;
            continue;
        }
        if a.starts_with('-') {
            i += 1;
            continue;
        }
        return Some((
            a,
            args.get(i + 1..).map(<[&str]>::to_vec).unwrap_or_default(),
        ));
    }
    None
}

#[cfg(test)]
mod tests;
