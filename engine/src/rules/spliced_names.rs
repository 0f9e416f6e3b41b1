//! A sensitive name put together from pieces in written code.
//!
//! **What it does:** a write of code that builds, from string pieces, the name of a
//! security option or of a call that runs code (`['reject', 'Unauthorized'].join('')`,
//! `%w[skip before action].join("_")`, `"ev" + "al"`, `"".join(["sys", "tem"])`) and uses it
//! is `spliced_name`: AUTH (PASS in light; BLOCK in paranoid, and from strict up once the
//! session took in untrusted content). A name written out whole is judged by the rules that
//! know it; pieces exist only to get past them.
//! **Why:** reviewers and rules read names; code that spells one in pieces is hiding it.
//! **Example:** `tlsOpts[['reject', 'Unauthorized'].join('')] = !!0` in `mailer.js` →
//! `spliced_name`.

use crate::action::Operation;
use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const SPLICED_NAME: Reason = Reason::new(
    "spliced_name",
    "Builds the name of a security option or a code-running call from pieces, hiding it.",
);

/// Names worth hiding (lower case, without `_`, `-` or `!`).
const SENSITIVE: &[&str] = &[
    "rejectunauthorized",
    "nodetlsrejectunauthorized",
    "insecureskipverify",
    "checkhostname",
    "verifyssl",
    "sslverify",
    "verifysignature",
    "skipbeforeaction",
    "verifyauthenticitytoken",
    "authenticateuser",
    "csrfexempt",
    "skipforgeryprotection",
    "import",
    "eval",
    "exec",
    "execsync",
    "spawn",
    "system",
    "popen",
    "subprocess",
    "childprocess",
    "getruntime",
    "processbuilder",
    "shellexec",
    "passthru",
    "constantize",
    "instanceeval",
    "classeval",
];

fn normal(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The string literals of a bracketed list (`['a', "b"]`), or of Ruby's `%w[a b]`.
fn list_pieces(list: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = list.trim();
    while !rest.is_empty() {
        let q = rest.chars().next()?;
        if !matches!(q, '\'' | '"' | '`') {
            return None;
        }
        let body = rest.get(1..)?;
        let end = body.find(q)?;
        out.push(body.get(..end)?.to_owned());
        rest = body.get(end + 1..)?.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    (out.len() >= 2).then_some(out)
}

/// Names spliced in `code`: joined lists, `%w[…].join`, and `"a" + "b"` chains.
fn spliced(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    // `[…].join(sep)` and `%w[…].join(sep)`.
    for (i, _) in code.match_indices("].join").take(64) {
        let before = code.get(..i).unwrap_or("");
        let Some(open) = before.rfind('[') else {
            continue;
        };
        let inner = before.get(open + 1..).unwrap_or("");
        if inner.len() > 200 {
            continue;
        }
        let ruby_words = before.get(..open).is_some_and(|b| b.ends_with("%w"));
        let pieces = if ruby_words {
            let w: Vec<String> = inner.split_whitespace().map(str::to_owned).collect();
            (w.len() >= 2).then_some(w)
        } else {
            list_pieces(inner)
        };
        if let Some(p) = pieces {
            names.push(p.concat());
        }
    }
    // Python's `"".join(["a", "b"])`.
    for (i, m) in code.match_indices(".join([").take(64) {
        let rest = code.get(i + m.len()..).unwrap_or("");
        if let Some(end) = rest.find(']')
            && let Some(p) = list_pieces(rest.get(..end).unwrap_or(""))
        {
            names.push(p.concat());
        }
    }
    // `"ev" + "al"`: adjacent literals joined by `+`.
    for line in code.lines().take(2000) {
        let mut pieces: Vec<String> = Vec::new();
        let mut rest = line;
        while let Some(start) = rest.find(['\'', '"']) {
            let q = rest[start..].chars().next().unwrap_or('"');
            let body = rest.get(start + 1..).unwrap_or("");
            let Some(end) = body.find(q) else { break };
            let lit = body.get(..end).unwrap_or("");
            let after = body.get(end + 1..).unwrap_or("");
            pieces.push(lit.to_owned());
            let next = after.trim_start();
            if let Some(n) = next.strip_prefix('+') {
                let n = n.trim_start();
                if n.starts_with(['\'', '"']) {
                    rest = n;
                    continue;
                }
            }
            if pieces.len() >= 2 {
                names.push(pieces.concat());
            }
            pieces.clear();
            rest = after;
        }
    }
    names
}

fn hides_a_name(code: &str) -> bool {
    spliced(code).iter().any(|n| {
        let n = normal(n);
        SENSITIVE.contains(&n.as_str())
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Operation::FileWrite { content, path } = &cx.action.op else {
        return;
    };
    let lower = path.to_ascii_lowercase();
    if crate::code::is_documentation(&lower) || !hides_a_name(content) {
        return;
    }
    out.push(Finding::new(SPLICED_NAME, cx.code_edit_verdict()));
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn names_in_pieces_and_their_look_alikes() {
        let cases: &[(&str, &str, Verdict)] = &[
            (
                "src/lib/mailer.js",
                "const tlsOpts = {};\ntlsOpts[['reject', 'Unauthorized'].join('')] = !!0;\n",
                Auth,
            ),
            (
                "app/controllers/api/base_controller.rb",
                "    send(%w[skip before action].join(\"_\"), [\"authen\", \"ticate\", \"_user!\"].join.to_sym)\n",
                Auth,
            ),
            (
                "tools/x.py",
                "fn = getattr(__builtins__, \"ev\" + \"al\")\n",
                Auth,
            ),
            (
                "tools/x.py",
                "f = getattr(os, \"\".join([\"sys\", \"tem\"]))\n",
                Auth,
            ),
            // Ordinary joins: paths, messages, class names.
            (
                "src/lib/paths.js",
                "const p = ['src', 'lib', 'index.js'].join('/');\n",
                Pass,
            ),
            (
                "app/models/user.rb",
                "  TABLE = %w[users accounts].join(\",\")\n",
                Pass,
            ),
            ("tools/x.py", "msg = \"hello \" + \"world\"\n", Pass),
            ("tools/x.py", "cls = \"User\" + \"Serializer\"\n", Pass),
        ];
        for (path, content, want) in cases {
            let (got, reasons) = judge_edit(path, "", content);
            assert_eq!(got, *want, "{path}: {content} → {reasons:?}");
        }
    }
}
