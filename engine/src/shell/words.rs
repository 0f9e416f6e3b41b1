//! Word resolution: what one shell word becomes for the purpose of judging it.

use base64::Engine as _;
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};

use super::Invocation;

/// A resolved word.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The text the shell would pass (quotes removed, escapes decoded). Unresolvable parts
    /// keep their source text (`$VAR`).
    pub text: String,
    /// Some part is only known at run time (a variable, a non-constant substitution).
    pub dynamic: bool,
    /// Contains an unquoted glob character.
    pub glob: bool,
    /// The word is a process substitution whose first program is this invocation index.
    pub procsub_from: Option<usize>,
}

impl Word {
    pub fn literal(s: &str) -> Word {
        Word {
            text: s.to_owned(),
            dynamic: false,
            glob: s.contains(['*', '?', '[']),
            procsub_from: None,
        }
    }

    pub fn dynamic(s: &str) -> Word {
        Word {
            text: s.to_owned(),
            dynamic: true,
            glob: false,
            procsub_from: None,
        }
    }

    pub(crate) fn join(words: &[Word]) -> Word {
        Word {
            text: words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            dynamic: words.iter().any(|w| w.dynamic),
            glob: words.iter().any(|w| w.glob),
            procsub_from: words.iter().find_map(|w| w.procsub_from),
        }
    }
}

/// State gathered while resolving pieces.
#[derive(Default)]
pub(crate) struct ResolveCtx<'a> {
    pub substitutions: Vec<String>,
    pub cwd: Option<&'a str>,
    /// The script file being run, when the text is one (`$0`, `${BASH_SOURCE[0]}`).
    pub script: Option<&'a str>,
    done: Vec<Word>,
    current: Word,
    /// The current word has content (even an empty quoted string counts).
    started: bool,
}

impl ResolveCtx<'_> {
    fn cur(&mut self) -> &mut Word {
        &mut self.current
    }

    fn push_str(&mut self, s: &str) {
        self.started = true;
        self.current.text.push_str(s);
    }

    fn split(&mut self) {
        if self.started {
            self.done.push(std::mem::take(&mut self.current));
            self.started = false;
        }
    }

    fn finish(mut self) -> (Vec<Word>, Vec<String>) {
        if self.started || self.current.dynamic || !self.current.text.is_empty() {
            self.done.push(std::mem::take(&mut self.current));
        }
        (self.done, self.substitutions)
    }
}

fn parse_word(raw: &str) -> Option<Vec<WordPieceWithSource>> {
    let opts = brush_parser::ParserOptions::default();
    // Third-party parser: a panic becomes "could not resolve", never an unwind.
    std::panic::catch_unwind(|| brush_parser::word::parse(raw, &opts).ok())
        .ok()
        .flatten()
}

/// Resolve a raw word. Returns the resulting words and the command substitutions found in it
/// (which the caller analyses as commands of their own).
#[cfg(test)]
pub(crate) fn resolve(raw: &str, cwd: Option<&str>) -> (Vec<Word>, Vec<String>) {
    resolve_in(raw, cwd, None)
}

/// [`resolve`] inside a script file at `script` (absolute), so that the script's own folder
/// (`$(dirname "$0")`, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`) is known.
pub(crate) fn resolve_in(
    raw: &str,
    cwd: Option<&str>,
    script: Option<&str>,
) -> (Vec<Word>, Vec<String>) {
    // Brace expansion (`{rm,-rf,~}`, `cp f{,.bak}`, `{rm,-rf,$HOME/src}`) happens before
    // anything else, parameters included (`${…}` and `$(…)` are left to the parser).
    if raw.contains('{')
        && raw.contains(',')
        && !raw.contains(['\'', '"', '`', '\\'])
        && !raw.contains("${")
        && !raw.contains("$(")
        && let Some(expanded) = brace_expand(raw, 0)
        && expanded.len() > 1
    {
        let mut words = Vec::new();
        let mut subs = Vec::new();
        for e in expanded {
            let (w, s) = resolve_in(&e, cwd, script);
            words.extend(w);
            subs.extend(s);
        }
        return (words, subs);
    }
    if !raw.contains(['\\', '\'', '"', '$', '`', '~', '*', '?', '[']) {
        return (vec![Word::literal(raw)], Vec::new());
    }
    let Some(pieces) = parse_word(raw) else {
        let mut w = Word::dynamic(&raw.replace(['\'', '"'], ""));
        w.glob = false;
        return (vec![w], Vec::new());
    };
    let mut ctx = ResolveCtx {
        cwd,
        script,
        ..ResolveCtx::default()
    };
    resolve_pieces_into(&pieces, raw, false, &mut ctx);
    let (words, subs) = ctx.finish();
    let mut words: Vec<Word> = words
        .into_iter()
        .filter(|w| !w.text.is_empty() || w.dynamic)
        .collect();
    if words.is_empty() {
        // `''` is one empty word.
        words.push(Word::literal(""));
    }
    (words, subs)
}

/// Most words one brace expansion may produce.
const MAX_BRACE_WORDS: usize = 64;

/// Expand the first `{a,b}` group of `s` (recursively), or `None` when there is none.
fn brace_expand(s: &str, depth: u8) -> Option<Vec<String>> {
    if depth > 8 {
        return None;
    }
    let bytes: Vec<(usize, char)> = s.char_indices().collect();
    for (k, (open, c)) in bytes.iter().enumerate() {
        if *c != '{' {
            continue;
        }
        let mut level = 0i32;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, d) in bytes.iter().skip(k) {
            match d {
                '{' => level += 1,
                '}' => {
                    level -= 1;
                    if level == 0 {
                        close = Some(*i);
                        break;
                    }
                }
                ',' if level == 1 => commas.push(*i),
                _ => {}
            }
        }
        let close = close?;
        if commas.is_empty() {
            continue;
        }
        let prefix = s.get(..*open)?;
        let suffix = s.get(close + 1..)?;
        let mut bounds = vec![*open];
        bounds.extend(commas);
        bounds.push(close);
        let mut out = Vec::new();
        for w in bounds.windows(2) {
            let (a, b) = (*w.first()?, *w.get(1)?);
            let alt = s.get(a + 1..b)?;
            let joined = format!("{prefix}{alt}{suffix}");
            match brace_expand(&joined, depth + 1) {
                Some(more) => out.extend(more),
                None => out.push(joined),
            }
            if out.len() > MAX_BRACE_WORDS {
                return None;
            }
        }
        return Some(out);
    }
    None
}

/// Resolve pieces from a heredoc body (used to find substitutions in it).
pub(crate) fn resolve_pieces(
    pieces: &[WordPieceWithSource],
    quoted: bool,
    ctx: &mut ResolveCtx<'_>,
) -> String {
    resolve_pieces_into(pieces, "", quoted, ctx);
    let mut texts: Vec<&str> = ctx.done.iter().map(|w| w.text.as_str()).collect();
    texts.push(ctx.current.text.as_str());
    texts.join(" ")
}

fn resolve_pieces_into(
    pieces: &[WordPieceWithSource],
    raw: &str,
    quoted: bool,
    ctx: &mut ResolveCtx<'_>,
) {
    for p in pieces {
        let src = raw.get(p.start_index..p.end_index).unwrap_or("$?");
        match &p.piece {
            WordPiece::Text(t) => {
                if !quoted && t.contains(['*', '?', '[']) {
                    ctx.cur().glob = true;
                }
                ctx.push_str(t);
            }
            WordPiece::SingleQuotedText(t) => ctx.push_str(t),
            WordPiece::AnsiCQuotedText(t) => ctx.push_str(&unescape_ansi_c(t)),
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                ctx.started = true;
                resolve_pieces_into(inner, raw, true, ctx);
            }
            WordPiece::EscapeSequence(e) => {
                let body = e.strip_prefix('\\').unwrap_or(e);
                if body == "\n" {
                    continue;
                }
                if quoted && !matches!(body, "$" | "`" | "\"" | "\\") {
                    ctx.push_str(e);
                } else {
                    ctx.push_str(body);
                }
            }
            WordPiece::TildeExpansion(t) => match t {
                TildeExpr::Home => ctx.push_str("~"),
                TildeExpr::UserHome(u) => ctx.push_str(&format!("/home/{u}")),
                TildeExpr::WorkingDir => {
                    let c = ctx.cwd.unwrap_or(".").to_owned();
                    ctx.push_str(&c);
                }
                _ => {
                    ctx.cur().dynamic = true;
                    ctx.push_str(src);
                }
            },
            WordPiece::ParameterExpansion(expr) => parameter(expr, src, quoted, ctx),
            WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                if let Some(dir) = ctx.script.and_then(|p| script_folder(s, p)) {
                    ctx.push_str(&dir);
                    continue;
                }
                ctx.substitutions.push(s.clone());
                match fold_constant(s) {
                    Some(out) if quoted => ctx.push_str(out.trim_end_matches('\n')),
                    Some(out) => {
                        let parts: Vec<&str> = out.split_whitespace().collect();
                        for (i, part) in parts.iter().enumerate() {
                            if i > 0 {
                                ctx.split();
                            }
                            ctx.push_str(part);
                        }
                    }
                    None => {
                        ctx.cur().dynamic = true;
                        match located_program(s) {
                            // Where exactly is only known at run time; that it is this
                            // program's binary in a `bin` folder is known now.
                            Some(path) => ctx.push_str(&path),
                            None => ctx.push_str(src),
                        }
                    }
                }
            }
            WordPiece::ArithmeticExpression(_) => {
                ctx.cur().dynamic = true;
                ctx.push_str("0");
            }
        }
    }
}

fn parameter(expr: &ParameterExpr, src: &str, quoted: bool, ctx: &mut ResolveCtx<'_>) {
    let name = match expr {
        ParameterExpr::Parameter {
            parameter: Parameter::Named(n),
            indirect: false,
        } => Some(n.as_str()),
        _ => None,
    };
    match name {
        Some("IFS") => {
            if quoted {
                ctx.push_str(" ");
            } else {
                ctx.split();
            }
        }
        Some("HOME") => ctx.push_str("~"),
        // The user's login shell: a shell binary in a system folder (`$SHELL -c …` is judged
        // as `sh -c …`, `rm $SHELL` as removing a system file).
        Some("SHELL") => ctx.push_str("/bin/sh"),
        Some("PWD") => {
            let c = ctx.cwd.unwrap_or(".").to_owned();
            ctx.push_str(&c);
        }
        _ => {
            ctx.cur().dynamic = true;
            ctx.push_str(src);
        }
    }
}

/// `$(echo rm)` and `$(printf rm)` print a constant: fold them so the command word is seen.
fn fold_constant(sub: &str) -> Option<String> {
    // Only flat text is folded: a substitution inside a substitution is analysed once by the
    // walker, never again here (re-analysing at every level would be exponential).
    if sub.len() > 4096 || sub.contains("$(") || sub.contains('`') || sub.contains("<(") {
        return None;
    }
    let analysis = super::analyze(sub, super::ShellEnv::default());
    if !analysis.issues.is_empty() {
        return None;
    }
    let [inv] = analysis.invocations.as_slice() else {
        return None;
    };
    if inv.args.iter().any(|w| w.dynamic) || !inv.redirects.is_empty() {
        return None;
    }
    match inv.program.as_str() {
        "echo" => Some(
            inv.args
                .iter()
                .map(|w| w.text.as_str())
                .skip_while(|t| matches!(*t, "-n" | "-e" | "-E"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "printf" => match inv.args.as_slice() {
            [fmt] if !fmt.text.contains('%') => Some(unescape_printf(&fmt.text)),
            _ => None,
        },
        _ => None,
    }
}

/// The folder of the script being run, as the idioms that find it print it:
/// `dirname "$0"`, `dirname -- "${BASH_SOURCE[0]}"`, `cd "$(dirname "$0")" && pwd`,
/// `cd -- "$(dirname …)" &>/dev/null && pwd -P`, `realpath "$(dirname "$0")"`,
/// `dirname "$(realpath "$0")"`. Anything else is left to be run-time (`None`).
pub(crate) fn script_folder(sub: &str, script: &str) -> Option<String> {
    const SELF: &[&str] = &[
        "$0",
        "\"$0\"",
        "${0}",
        "\"${0}\"",
        "${BASH_SOURCE[0]}",
        "\"${BASH_SOURCE[0]}\"",
        "$BASH_SOURCE",
        "\"$BASH_SOURCE\"",
        "${BASH_SOURCE}",
        "\"${BASH_SOURCE}\"",
    ];
    if sub.len() > 256 || !script.starts_with('/') {
        return None;
    }
    let parent = |p: &str| -> String {
        match p.rsplit_once('/') {
            Some(("", _)) => "/".to_owned(),
            Some((d, _)) => d.to_owned(),
            None => ".".to_owned(),
        }
    };
    // Noise that changes nothing printed: `--`, `-P`, and output thrown away.
    let words: Vec<&str> = split_top(sub)
        .into_iter()
        .filter(|w| {
            !matches!(
                *w,
                "--" | ">/dev/null" | "2>/dev/null" | "&>/dev/null" | "2>&1" | "1>/dev/null"
            )
        })
        .collect();
    // `"$(dirname "$0")"` (quoted or not) as one argument, with an optional `/..` tail.
    let arg = |w: &str| -> Option<String> {
        let w = w.trim_matches('"');
        if let Some(inner) = w.strip_prefix("$(").and_then(|x| x.strip_suffix(')')) {
            return script_folder(inner, script);
        }
        let inner = w.strip_prefix("$(")?;
        let (inner, tail) = inner.split_once(')')?;
        let dir = script_folder(inner, script)?;
        (tail.starts_with('/') && !tail.contains(['$', '`', '"', '\'']))
            .then(|| format!("{dir}{tail}"))
    };
    let is_self = |w: &str| SELF.contains(&w);
    match words.as_slice() {
        ["dirname", w] if is_self(w) => Some(parent(script)),
        ["realpath" | "readlink", w] | ["readlink", "-f" | "-e" | "-m", w] if is_self(w) => {
            Some(script.to_owned())
        }
        ["dirname", w] => {
            // `dirname "$(realpath "$0")"`
            let w = w.trim_matches('"');
            let inner = w.strip_prefix("$(")?.strip_suffix(')')?;
            let real = script_folder(inner, script)?;
            (real == script).then(|| parent(script))
        }
        ["realpath" | "readlink", w] | ["readlink", "-f" | "-e" | "-m", w] => arg(w),
        ["cd", w, "&&" | ";", "pwd"] | ["cd", w, "&&" | ";", "pwd", "-P"] => arg(w),
        _ => None,
    }
}

/// Split on blanks outside double quotes and `$(…)`.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, None::<usize>);
    let b = s.as_bytes();
    for (i, c) in s.char_indices() {
        match c {
            '(' if i > 0 && b.get(i - 1) == Some(&b'$') => depth += 1,
            ')' if depth > 0 => depth -= 1,
            '"' if depth == 0 => quoted = !quoted,
            _ => {}
        }
        if c.is_whitespace() && depth == 0 && !quoted {
            if let Some(st) = start.take() {
                out.push(s.get(st..i).unwrap_or(""));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push(s.get(st..).unwrap_or(""));
    }
    out
}

/// `$(command -v airlock)`, `$(which airlock)`, `$(type -P airlock)`: the path of a program
/// on `PATH`. Stands for it as `/usr/local/bin/NAME` (the folder is a guess; the name and
/// that it is a `bin` folder are not), so rules about binaries see what is changed.
/// Where `command -v NAME` would find NAME: see [`located_program`].
pub(crate) fn located_program_of(name: &str) -> Option<String> {
    located_program(&format!("command -v {name}"))
}

fn located_program(sub: &str) -> Option<String> {
    if sub.len() > 256 || sub.contains("$(") || sub.contains('`') {
        return None;
    }
    let words: Vec<&str> = sub.split_whitespace().collect();
    let name = match words.as_slice() {
        ["command", "-v" | "-V", name]
        | ["which", name]
        | ["which", "-a", name]
        | ["type", "-p" | "-P" | "-fp" | "-fP", name]
        | ["whence", "-p", name] => *name,
        _ => return None,
    };
    let name = name.trim_matches(['"', '\'']);
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.+/".contains(c))
    {
        return None;
    }
    Some(if name.contains('/') {
        name.to_owned()
    } else {
        format!("/usr/local/bin/{name}")
    })
}

/// Decode bash `$'…'` escapes.
pub(crate) fn unescape_ansi_c(s: &str) -> String {
    unescape(s, true)
}

/// Decode the escapes of a `printf` format, keeping `%` conversions for the caller
/// (`\045` would be a literal `%`: such formats are rare enough to be decoded the same way).
pub(crate) fn unescape_printf_format(s: &str) -> String {
    unescape(s, false)
}

/// Decode the escapes `printf` interprets in its format.
pub(crate) fn unescape_printf(s: &str) -> String {
    unescape(s, false)
}

fn unescape(s: &str, _ansi_c: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let hex_run = |start: usize, max: usize| -> (u32, usize) {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            match chars.get(start + n).and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    v = v.saturating_mul(16).saturating_add(d);
                    n += 1;
                }
                None => break,
            }
        }
        (v, n)
    };
    while let Some(&c) = chars.get(i) {
        if c != '\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&n) = chars.get(i + 1) else {
            out.push('\\');
            break;
        };
        i += 2;
        match n {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            'e' | 'E' => out.push('\x1b'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            '?' => out.push('?'),
            'x' => {
                let (v, len) = hex_run(i, 2);
                if len == 0 {
                    out.push_str("\\x");
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    i += len;
                }
            }
            'u' | 'U' => {
                let (v, len) = hex_run(i, if n == 'u' { 4 } else { 8 });
                if len == 0 {
                    out.push('\\');
                    out.push(n);
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    i += len;
                }
            }
            '0'..='7' => {
                let mut v = n.to_digit(8).unwrap_or(0);
                let mut len = 0;
                while len < 2 {
                    match chars.get(i + len).and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            len += 1;
                        }
                        None => break,
                    }
                }
                i += len;
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// Statically run a decoder invocation on known input, when it is one we understand.
pub(crate) fn decode_with(inv: &Invocation, input: &str) -> Option<String> {
    let flag = |f: &str| inv.args.iter().any(|w| w.text == f);
    let decode_flag = flag("-d") || flag("--decode") || flag("-D") || flag("-di") || flag("-id");
    match inv.program.as_str() {
        "base64" | "basenc" if decode_flag => decode_base64(input),
        "openssl" if flag("base64") && flag("-d") => decode_base64(input),
        "xxd" if flag("-r") || flag("-rp") || flag("-pr") => decode_hex(input),
        "rev" => Some(
            input
                .lines()
                .map(|l| l.chars().rev().collect::<String>())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

fn decode_base64(input: &str) -> Option<String> {
    let cleaned: String = input.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&cleaned)
        .or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(cleaned.trim_end_matches('='))
        })
        .or_else(|_| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(cleaned.trim_end_matches('='))
        })
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn decode_hex(input: &str) -> Option<String> {
    let cleaned: Vec<u8> = input.bytes().filter(|b| b.is_ascii_hexdigit()).collect();
    if !cleaned.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = cleaned
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(s, 16).ok()
        })
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scripts_own_folder() {
        let me = "/home/dev/project/scripts/clean.sh";
        for (sub, want) in [
            ("dirname \"$0\"", Some("/home/dev/project/scripts")),
            (
                "dirname -- \"${BASH_SOURCE[0]}\"",
                Some("/home/dev/project/scripts"),
            ),
            (
                "cd \"$(dirname \"$0\")\" && pwd",
                Some("/home/dev/project/scripts"),
            ),
            (
                "cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")\" &>/dev/null && pwd -P",
                Some("/home/dev/project/scripts"),
            ),
            (
                "cd \"$(dirname \"$0\")/..\" && pwd",
                Some("/home/dev/project/scripts/.."),
            ),
            ("realpath \"$0\"", Some(me)),
            (
                "dirname \"$(realpath \"$0\")\"",
                Some("/home/dev/project/scripts"),
            ),
            // Anything else stays a run-time value.
            ("dirname \"$1\"", None),
            ("cd \"$TARGET\" && pwd", None),
            ("git rev-parse --show-toplevel", None),
        ] {
            assert_eq!(script_folder(sub, me).as_deref(), want, "{sub}");
        }
    }

    fn texts(raw: &str) -> Vec<String> {
        resolve(raw, Some("/p"))
            .0
            .into_iter()
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn resolve_table() {
        let cases: &[(&str, &[&str])] = &[
            ("rm", &["rm"]),
            ("r''m", &["rm"]),
            ("\\rm", &["rm"]),
            ("\"r\"m", &["rm"]),
            ("$'\\x72\\x6d'", &["rm"]),
            ("$'\\162\\155'", &["rm"]),
            ("$'\\u0072m'", &["rm"]),
            ("rm${IFS}-rf${IFS}/", &["rm", "-rf", "/"]),
            ("\"a${IFS}b\"", &["a b"]),
            ("~/.ssh", &["~/.ssh"]),
            ("$HOME/.aws", &["~/.aws"]),
            ("${HOME}", &["~"]),
            ("$SHELL", &["/bin/sh"]),
            ("$(echo rm)", &["rm"]),
            ("`echo rm`", &["rm"]),
            ("$(printf rm)", &["rm"]),
            ("''", &[""]),
            ("'a b'", &["a b"]),
        ];
        for (raw, want) in cases {
            assert_eq!(texts(raw), *want, "{raw}");
        }
    }

    #[test]
    fn dynamic_parts_are_marked() {
        let (w, subs) = resolve("$(whoami)", None);
        assert!(w.iter().all(|w| w.dynamic));
        assert_eq!(subs, vec!["whoami".to_owned()]);
        let (w, _) = resolve("$TARGET/", None);
        assert!(w.first().is_some_and(|w| w.dynamic));
        let (w, _) = resolve("*.log", None);
        assert!(w.first().is_some_and(|w| w.glob));
        let (w, _) = resolve("'*.log'", None);
        assert!(w.first().is_some_and(|w| !w.glob));
    }

    #[test]
    fn decoders() {
        let inv = |p: &str, a: &[&str]| Invocation {
            program: p.into(),
            command_word: Word::literal(p),
            args: a.iter().map(|s| Word::literal(s)).collect(),
            assignments: vec![],
            redirects: vec![],
            stdin: super::super::Stdin::Inherit,
            wrappers: vec![],
            args_from_input: false,
            depth: 0,
            from_inline_code: false,
            remote: false,
            cwd: None,
            from_file: false,
        };
        assert_eq!(
            decode_with(&inv("base64", &["-d"]), "cm0gLXJmIC8K").as_deref(),
            Some("rm -rf /\n")
        );
        assert_eq!(
            decode_with(&inv("base64", &["--decode"]), "cm0gLXJmIH4=").as_deref(),
            Some("rm -rf ~")
        );
        assert_eq!(
            decode_with(&inv("xxd", &["-r", "-p"]), "726d202d7266202f").as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(
            decode_with(&inv("rev", &[]), "/ fr- mr").as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(decode_with(&inv("base64", &[]), "x"), None);
        assert_eq!(decode_with(&inv("base64", &["-d"]), "!!!"), None);
    }
}
