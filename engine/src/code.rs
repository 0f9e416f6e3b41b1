//! Source code and configuration as the code rules see a write: which kind of file it is,
//! and each piece of text the write puts in beside the text it takes away.
//!
//! There is no parser for every language an agent edits (Python, JavaScript, Go, Java, C#,
//! Ruby, PHP, Rust, YAML, HCL, TOML…), so the code rules work on a *compact* form of the
//! text: lower case, quotes dropped, and white space kept only where it separates two words
//! (`verify = False` and `"verify": false` both read `verify=false`, `return exec(` keeps
//! its space). An idiom is judged only when the write *adds* it: it is in the new text of a
//! replacement and not in its old text.

use crate::action::Operation;
use crate::needs::CallFacts;
use crate::paths;

/// Most text of one write the code rules look at.
const MAX_TEXT: usize = 256 * 1024;

/// One replacement, compacted: what was there and what the write puts instead (`old` is
/// empty for a whole-file write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old: String,
    pub new: String,
    /// The new text as written, lower case (for the few checks that need its quotes).
    pub new_lower: String,
    /// The old text as written, lower case (line by line comparisons).
    pub old_lower: String,
}

/// A write of source code or configuration, as the code rules see it.
#[derive(Debug, Clone)]
pub struct SourceWrite {
    /// Absolute path, lower case.
    pub path: String,
    pub hunks: Vec<Hunk>,
}

impl SourceWrite {
    /// The write this call makes, when it is one the code rules judge (not documentation).
    pub fn of(
        op: &Operation,
        facts: &CallFacts,
        cwd: Option<&str>,
        home: Option<&str>,
    ) -> Option<Self> {
        let Operation::FileWrite { path, content } = op else {
            return None;
        };
        let path = paths::normalize(path, cwd, home).to_ascii_lowercase();
        if is_documentation(&path) {
            return None;
        }
        let hunks = if facts.edits.is_empty() {
            vec![Hunk::new("", content)]
        } else {
            facts
                .edits
                .iter()
                .map(|e| Hunk::new(&e.old, &e.new))
                .collect()
        };
        Some(SourceWrite { path, hunks })
    }

    pub fn basename(&self) -> &str {
        paths::basename(&self.path)
    }

    /// The new text of every replacement has `needle` and the old text of that replacement
    /// did not (compact form).
    pub fn adds(&self, needle: &str) -> bool {
        self.hunks
            .iter()
            .any(|h| h.new.contains(needle) && !h.old.contains(needle))
    }

    /// Some replacement adds every one of `needles` (each missing from its old text).
    pub fn adds_all(&self, needles: &[&str]) -> bool {
        self.hunks.iter().any(|h| {
            needles
                .iter()
                .all(|n| h.new.contains(n) && !h.old.contains(n))
        })
    }
}

impl Hunk {
    fn new(old: &str, new: &str) -> Self {
        let new = truncate(new);
        let old = truncate(old);
        Hunk {
            old: compact(old),
            new: compact(new),
            new_lower: new.to_lowercase(),
            old_lower: old.to_lowercase(),
        }
    }
}

fn truncate(s: &str) -> &str {
    if s.len() <= MAX_TEXT {
        return s;
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Lower case, quotes and backticks dropped, white space kept (as one space) only between
/// two word characters.
pub fn compact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if matches!(c, '"' | '\'' | '`') {
            continue;
        }
        let c = c.to_ascii_lowercase();
        if pending_space && out.chars().next_back().is_some_and(is_word) && is_word(c) {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// `needle` occurs in `hay` not preceded by a word character, nor by a dot unless `needle`
/// is itself qualified (`exec(` but not `regex.exec(` or `doexec(`).
pub fn has_call(hay: &str, needle: &str) -> bool {
    find_calls(hay, needle).next().is_some()
}

/// Byte offsets just past each free-standing occurrence of `needle` (see [`has_call`]).
pub fn find_calls<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    hay.match_indices(needle).filter_map(move |(i, _)| {
        let before = hay[..i].chars().next_back();
        // A qualified name (`os.popen(`) may itself follow a dot (`Runtime.getRuntime().exec(`).
        let dot_ok = needle.contains('.');
        (!before.is_some_and(|c| is_word(c) || (c == '.' && !dot_ok))).then_some(i + needle.len())
    })
}

/// The text between the `(` that ends at `open_end` and its matching `)` (at most 400
/// bytes; unbalanced text runs to that limit).
pub fn call_args(hay: &str, open_end: usize) -> &str {
    let rest = &hay[open_end.min(hay.len())..];
    let mut depth = 1usize;
    for (i, c) in rest.char_indices() {
        if i >= 400 {
            return &rest[..i];
        }
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[..i];
                }
            }
            _ => {}
        }
    }
    rest
}

/// Prose, not code: README and other documents describe insecure settings to warn about
/// them. (Agent instruction files are judged by `planted_instructions`.)
pub fn is_documentation(lower_path: &str) -> bool {
    let base = paths::basename(lower_path);
    // Requirement lists and CMake files are `.txt` too.
    let text_but_code = base.starts_with("requirements")
        || base.starts_with("constraints")
        || base == "cmakelists.txt";
    [".md", ".markdown", ".rst", ".txt", ".adoc", ".org"]
        .iter()
        .any(|e| base.ends_with(e))
        && !text_but_code
        || matches!(base, "license" | "changelog" | "authors" | "notice")
}

/// Tests, fixtures, examples and settings for a developer's own machine: where turning a
/// check off (a self-signed local server, a fast password hasher) is routine.
pub fn is_test_or_dev(lower_path: &str) -> bool {
    let base = paths::basename(lower_path);
    let dirs = lower_path.rsplit_once('/').map_or("", |(d, _)| d);
    let dir_hit = dirs.split('/').any(|c| {
        matches!(
            c,
            "test"
                | "tests"
                | "spec"
                | "specs"
                | "__tests__"
                | "__mocks__"
                | "testdata"
                | "test_data"
                | "testing"
                | "fixtures"
                | "e2e"
                | "example"
                | "examples"
                | "samples"
                | "development"
                | "testutil"
                | "testutils"
                | "testhelpers"
                | "testsupport"
        )
    }) || lower_path.contains("/src/debug/");
    let stem = base.split('.').next().unwrap_or(base);
    let base_hit = base.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || base.contains(".test.")
        || base.contains(".spec.")
        || base == "conftest.py"
        || base.starts_with("phpunit.xml")
        || base.starts_with(".env.development")
        || base.starts_with(".env.test")
        || base.starts_with(".env.local")
        || base.starts_with("docker-compose.override")
        || base.starts_with("compose.override")
        || matches!(
            stem,
            "local" | "dev" | "development" | "test" | "testing" | "settings_local"
        );
    dir_hit || base_hit
}

/// A production configuration by its name (`settings/production.py`, `config/prod.yaml`,
/// `environments/production.rb`).
pub fn is_production_config(lower_path: &str) -> bool {
    let base = paths::basename(lower_path);
    let stem = base.split('.').next().unwrap_or(base);
    // `application-prod.yml`, `appsettings.Production.json`, `values-prod.yaml`.
    let named = base
        .split(['.', '-', '_'])
        .any(|p| matches!(p, "production" | "prod"));
    named
        || matches!(stem, "settings_prod" | "prod_settings")
        || lower_path.contains("/production/")
        || lower_path.contains("/prod/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_keeps_only_word_separating_space() {
        for (text, want) in [
            ("verify = False", "verify=false"),
            ("\"verify_signature\": False", "verify_signature:false"),
            ("return  exec( cmd )", "return exec(cmd)"),
            ("rejectUnauthorized:\n  false", "rejectunauthorized:false"),
            ("'rounds' => 4,", "rounds=>4,"),
        ] {
            assert_eq!(compact(text), want, "{text}");
        }
    }

    #[test]
    fn calls_are_free_standing() {
        assert!(has_call("return exec(req.body.cmd)", "exec("));
        assert!(!has_call("m = re.exec(line)", "exec("));
        assert!(!has_call("cursor.doexec(x)", "exec("));
        let s = "os.popen(request.args.get(cmd)).read()";
        let end = find_calls(s, "os.popen(").next().unwrap_or(0);
        assert_eq!(call_args(s, end), "request.args.get(cmd)");
    }

    #[test]
    fn test_and_dev_paths() {
        for p in [
            "/p/tests/test_api.py",
            "/p/src/api_test.go",
            "/p/src/app.test.ts",
            "/p/config/settings/local.py",
            "/p/config/settings/test.py",
            "/p/phpunit.xml",
            "/p/config/environments/development.rb",
            "/p/spec/models/user_spec.rb",
        ] {
            assert!(is_test_or_dev(p), "{p}");
        }
        for p in [
            "/p/src/app.ts",
            "/p/config/settings/production.py",
            "/p/billing/partner_client.py",
            "/p/src/latest.py",
            "/p/contest/app.py",
        ] {
            assert!(!is_test_or_dev(p), "{p}");
        }
    }
}
