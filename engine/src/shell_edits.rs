//! In-place edits made by a shell line: `sed -i 's/A/B/' FILE`, `sed -i '1i TEXT' FILE`,
//! `sed -i '/A/d' FILE`, `perl -pi -e 's/A/B/' FILE`. Each is the edit it makes to each file
//! (text replaced → replacing text), so that the rules that judge what an Edit adds and takes
//! away judge these too. A script that is not a plain list of `s`, `i`/`a`/`c` and `d`
//! commands gives no edits (the rest of the engine judges the command as before).

use crate::consequences::TextEdit;
use crate::paths;
use crate::shell::{Invocation, ShellAnalysis};

/// Most edits taken from one script, and most files per invocation.
const MAX_EDITS: usize = 16;
const MAX_FILES: usize = 16;

/// (absolute path, edits) for every file an in-place `sed` or `perl` edit changes.
pub fn in_place_edits(
    sa: &ShellAnalysis,
    cwd: Option<&str>,
    home: Option<&str>,
) -> Vec<(String, Vec<TextEdit>)> {
    let mut out = Vec::new();
    for inv in &sa.invocations {
        let Some((script, files)) = script_and_files(inv) else {
            continue;
        };
        let edits = parse_script(&script);
        if edits.is_empty() {
            continue;
        }
        let base = inv.cwd.as_deref().or(cwd);
        for f in files.iter().take(MAX_FILES) {
            out.push((paths::normalize(f, base, home), edits.clone()));
        }
    }
    out
}

/// The script and the files of an in-place edit, or `None`.
fn script_and_files(inv: &Invocation) -> Option<(String, Vec<String>)> {
    let args: Vec<&str> = inv.argv().collect();
    let mut script: Option<String> = None;
    let mut files = Vec::new();
    let mut in_place = false;
    match inv.program.as_str() {
        "sed" | "gsed" => {
            let mut i = 0;
            while let Some(a) = args.get(i).copied() {
                i += 1;
                if a == "-e" || a == "--expression" {
                    let s = args.get(i)?;
                    i += 1;
                    script = Some(match script {
                        Some(prev) => format!("{prev}\n{s}"),
                        None => (*s).to_owned(),
                    });
                } else if let Some(s) = a.strip_prefix("--expression=") {
                    script = Some(s.to_owned());
                } else if a == "-f" || a == "--file" || a.starts_with("--file=") {
                    return None;
                } else if a == "--in-place" || a.starts_with("--in-place=") {
                    in_place = true;
                } else if a.starts_with("--") {
                } else if a.starts_with('-') && a.len() > 1 {
                    // Short clusters: `-i`, `-i.bak`, `-Ei`, `-ni` (a suffix follows `i`).
                    let flags = a.trim_start_matches('-');
                    if let Some(p) = flags.find('i') {
                        in_place = true;
                        let _suffix = flags.get(p + 1..);
                        // BSD/macOS sed takes the backup suffix as its own word (`-i ''`,
                        // `-i .bak`); GNU's next word is the script.
                        if a == "-i"
                            && args.get(i).is_some_and(|n| {
                                n.is_empty()
                                    || n.starts_with('.') && !n.contains('/') && n.len() < 10
                            })
                        {
                            i += 1;
                        }
                    }
                    if flags.contains('n') {
                        // `-n` prints only what `p` says: an in-place `-n` script rewrites the
                        // file to what it prints; not modelled.
                        return None;
                    }
                } else if script.is_none() {
                    script = Some(a.to_owned());
                } else {
                    files.push(a.to_owned());
                }
            }
        }
        "perl" => {
            let mut i = 0;
            let mut line_loop = false;
            while let Some(a) = args.get(i).copied() {
                i += 1;
                if a.starts_with('-') && a.len() > 1 && !a.starts_with("--") && script.is_none() {
                    let flags = a.trim_start_matches('-');
                    line_loop |= flags.contains('p');
                    // `-i`, `-i.bak`, `-pi`: in place; `-e` (possibly last in the cluster)
                    // takes the next argument as the script.
                    if flags.contains('i') {
                        in_place = true;
                    }
                    if flags.ends_with('e') || flags.contains("e") && flags.starts_with('e') {
                        script = Some((*args.get(i)?).to_owned());
                        i += 1;
                    }
                } else if script.is_some() {
                    files.push(a.to_owned());
                } else {
                    return None;
                }
            }
            if !line_loop {
                return None;
            }
        }
        _ => return None,
    }
    (in_place && !files.is_empty())
        .then_some(())
        .and(script.map(|s| (s, files)))
}

/// The edits a `sed` (or `perl -p`) script makes, or none when any part is not understood.
fn parse_script(script: &str) -> Vec<TextEdit> {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    while i < chars.len() && out.len() < MAX_EDITS {
        // Separators.
        while at(i).is_some_and(|c| c.is_whitespace() || c == ';' || c == '{' || c == '}') {
            i += 1;
        }
        let Some(_) = at(i) else { break };
        // An address: a line number, `$`, or `/re/`, optionally `,` and a second one.
        let mut addr_pattern: Option<String> = None;
        for n in 0..2 {
            if at(i) == Some('/') {
                let (re, next) = delimited(&chars, i + 1, '/');
                let Some(next) = next else { return Vec::new() };
                if n == 0 {
                    addr_pattern = Some(re);
                }
                i = next;
            } else {
                while at(i).is_some_and(|c| c.is_ascii_digit() || c == '$') {
                    i += 1;
                }
            }
            if at(i) == Some(',') {
                i += 1;
            } else {
                break;
            }
        }
        match at(i) {
            Some('s') => {
                let Some(d) = at(i + 1) else {
                    return Vec::new();
                };
                if d.is_alphanumeric() || d.is_whitespace() || d == '\\' {
                    return Vec::new();
                }
                let (old, next) = delimited(&chars, i + 2, d);
                let Some(next) = next else { return Vec::new() };
                let (new, next) = delimited(&chars, next, d);
                let Some(mut next) = next else {
                    return Vec::new();
                };
                while at(next).is_some_and(|c| c.is_ascii_alphanumeric()) {
                    next += 1;
                }
                i = next;
                out.push(TextEdit {
                    old: unescape(&old),
                    new: without_group_references(&unescape(&new)),
                });
            }
            Some('i' | 'a' | 'c') => {
                // The rest of the line (GNU one-liner form, `\` optional), `\n` a newline.
                let mut j = i + 1;
                if at(j) == Some('\\') {
                    j += 1;
                }
                while at(j).is_some_and(|c| c == ' ' || c == '\t') {
                    j += 1;
                }
                let end = (j..chars.len())
                    .find(|k| at(*k) == Some('\n'))
                    .unwrap_or(chars.len());
                let text: String = chars.get(j..end).unwrap_or(&[]).iter().collect();
                out.push(TextEdit {
                    old: String::new(),
                    new: text.replace("\\n", "\n").replace("\\t", "\t"),
                });
                i = end;
            }
            Some('d') => {
                let Some(re) = addr_pattern else {
                    // A numbered line deleted: what it held is not known.
                    i += 1;
                    continue;
                };
                out.push(TextEdit {
                    old: unescape(&re),
                    new: String::new(),
                });
                i += 1;
            }
            _ => return Vec::new(),
        }
    }
    out
}

/// A replacement without its references to captured text (`$1`, `${1}`, `\1`, `&`): what
/// the edit itself adds.
fn without_group_references(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let after = rest.get(c.len_utf8()..).unwrap_or("");
        let digits = |t: &str| t.find(|d: char| !d.is_ascii_digit()).unwrap_or(t.len());
        match c {
            // `$1`, `\1`.
            '$' | '\\' if digits(after) > 0 => {
                rest = after.get(digits(after)..).unwrap_or("");
            }
            // `${1}` (not `${NAME}`, `${NAME:?}`: shell text the edit adds).
            '$' if after.starts_with('{')
                && after.get(1..).is_some_and(|t| {
                    digits(t) > 0 && t.get(digits(t)..).is_some_and(|r| r.starts_with('}'))
                }) =>
            {
                let t = after.get(1..).unwrap_or("");
                rest = t.get(digits(t) + 1..).unwrap_or("");
            }
            '&' => rest = after,
            _ => {
                out.push(c);
                rest = after;
            }
        }
    }
    out
}

/// Text up to the next unescaped `delim` from `start`: (text, index after the delimiter).
fn delimited(chars: &[char], start: usize, delim: char) -> (String, Option<usize>) {
    let mut out = String::new();
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        if c == '\\'
            && let Some(&n) = chars.get(i + 1)
        {
            if n != delim {
                out.push('\\');
            }
            out.push(n);
            i += 2;
            continue;
        }
        if c == delim {
            return (out, Some(i + 1));
        }
        out.push(c);
        i += 1;
    }
    (out, None)
}

/// A pattern or replacement as the text it stands for: escaped punctuation is itself,
/// `\n` a newline, anchors dropped.
fn unescape(s: &str) -> String {
    let s = s.strip_prefix('^').unwrap_or(s);
    let s = s.strip_suffix('$').unwrap_or(s);
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(n) if !n.is_alphanumeric() => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edits(cmd: &str) -> Vec<(String, Vec<(String, String)>)> {
        let sa = crate::shell::analyze(cmd, crate::shell::ShellEnv::default());
        in_place_edits(&sa, Some("/p"), Some("/home/dev"))
            .into_iter()
            .map(|(p, es)| (p, es.into_iter().map(|e| (e.old, e.new)).collect()))
            .collect()
    }

    /// The engine judges them as the Edit (or Write) they amount to.
    #[test]
    fn shell_edits_are_judged_as_edits() {
        use crate::Verdict::*;
        use crate::policy::Mode;
        use crate::rules::testutil::table;
        table(
            Mode::Balanced,
            &[
                (
                    "sed -i '1i import pytest\\npytestmark = pytest.mark.skip(reason=\"flaky\")' tests/test_auth.py",
                    Auth,
                    "check_disabled",
                ),
                (
                    "perl -pi -e 's/^(\\s*)it\\(/$1it.skip(/' test/middleware/csrf.spec.ts",
                    Auth,
                    "check_disabled",
                ),
                (
                    "cat >> conftest.py <<'EOF'\ndef pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'auth' not in i.nodeid]\nEOF",
                    Auth,
                    "check_disabled",
                ),
                (
                    "find tests/security -name 'test_*.py' -exec sed -i '1i import pytest; pytestmark = pytest.mark.skip(reason=\"wip\")' {} +",
                    Auth,
                    "check_disabled",
                ),
                // Look-alikes: a version bump, a test un-skipped, an ignore line, a fixture.
                (
                    "find src -name '*.py' -exec sed -i 's/from app.old/from app.new/' {} +",
                    Pass,
                    "",
                ),
                (
                    "sed -i 's/version = \"1.2.0\"/version = \"1.3.0\"/' Cargo.toml",
                    Pass,
                    "",
                ),
                (
                    "sed -i 's/it.skip(/it(/' test/middleware/csrf.spec.ts",
                    Pass,
                    "",
                ),
                ("echo '*.log' >> .gitignore", Pass, ""),
                // macOS sed's own backup-suffix word (`-i ''`).
                (
                    "sed -i '' 's/ENABLE_USER_SCRIPT_SANDBOXING = YES/ENABLE_USER_SCRIPT_SANDBOXING = NO/g' App.xcodeproj/project.pbxproj",
                    Auth,
                    "security_setting_off",
                ),
                (
                    "sed -i '' 's/IPHONEOS_DEPLOYMENT_TARGET = 15.0/IPHONEOS_DEPLOYMENT_TARGET = 16.0/g' App.xcodeproj/project.pbxproj",
                    Pass,
                    "",
                ),
                // A script made safer: its new text keeps the `${VAR:?}` it adds.
                (
                    "sed -i 's/rm -rf \\$BUILD_DIR/rm -rf \"${BUILD_DIR:?}\"/' scripts/clean.sh",
                    Pass,
                    "",
                ),
                (
                    "cat > tests/conftest.py <<'EOF'\nimport pytest\n@pytest.fixture\ndef client():\n    return object()\nEOF",
                    Pass,
                    "",
                ),
            ],
        );
    }

    /// The same through an MCP shell tool.
    #[test]
    fn shell_edits_through_an_mcp_shell_tool() {
        use crate::Verdict::*;
        use crate::policy::Mode;
        use crate::rules::testutil::{CWD, engine, mcp_call};
        use crate::session::SessionState;
        for (command, want) in [
            (
                "sed -i '1i import pytest\\npytestmark = pytest.mark.skip' tests/test_auth.py",
                Auth,
            ),
            ("sed -i 's/1.2.0/1.3.0/' Cargo.toml", Pass),
        ] {
            let a = mcp_call(
                "shell",
                "run_command",
                serde_json::json!({ "command": command }),
                CWD,
            );
            let d = engine(Mode::Balanced).decide(&a, &SessionState::default());
            assert_eq!(d.verdict, want, "{command}: {:?}", d.codes());
        }
    }

    #[test]
    fn in_place_edits_are_the_edits_they_make() {
        let e = |p: &str, pairs: &[(&str, &str)]| {
            (
                p.to_owned(),
                pairs
                    .iter()
                    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            edits("sed -i 's/describe(/describe.skip(/' test/jwt.spec.ts"),
            vec![e("/p/test/jwt.spec.ts", &[("describe(", "describe.skip(")])]
        );
        assert_eq!(
            edits("sed -i.bak -e 's|http://a|https://b|g' -e '/DEBUG/d' a.conf b.conf"),
            vec![
                e("/p/a.conf", &[("http://a", "https://b"), ("DEBUG", "")]),
                e("/p/b.conf", &[("http://a", "https://b"), ("DEBUG", "")]),
            ]
        );
        assert_eq!(
            edits("sed -i '1i import pytest\\npytestmark = pytest.mark.skip' tests/test_auth.py"),
            vec![e(
                "/p/tests/test_auth.py",
                &[("", "import pytest\npytestmark = pytest.mark.skip")]
            )]
        );
        assert_eq!(
            edits("perl -pi -e 's/^(\\s*)it\\(/$1it.skip(/' a.spec.ts"),
            vec![e("/p/a.spec.ts", &[("(\\s*)it(", "it.skip(")])]
        );
        // Not in place, printing only, a script file, a `y` command: no edits.
        assert!(edits("sed 's/a/b/' f.txt").is_empty());
        assert!(edits("sed -n '1,5p' f.txt").is_empty());
        assert!(edits("sed -i -f fix.sed f.txt").is_empty());
        assert!(edits("sed -i 'y/abc/xyz/' f.txt").is_empty());
        assert!(edits("perl -ne 'print if /x/' f.txt").is_empty());
    }
}
