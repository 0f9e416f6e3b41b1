//! Skipping the project's own checks.
//!
//! **What it does:** `git commit/push/merge/rebase --no-verify` (and `commit -n`),
//! `git -c core.hooksPath=…`, and `HUSKY=0`/`HUSKY_SKIP_HOOKS`/`SKIP=`/`PRE_COMMIT_ALLOW_NO_CONFIG`
//! in front of git are AUTH in every mode.
//! **Why:** hooks run the tests, linters and secret scanners the team relies on; an agent
//! that skips them is hiding something or about to break the build.
//! **Example:** `git commit --no-verify -m wip` → `verification_bypass`.

use crate::paths;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;
use super::git_destructive::git_subcommand;

pub const VERIFICATION_BYPASS: Reason = Reason::new(
    "verification_bypass",
    "Skips the repository's verification hooks (tests, linters, secret scans).",
);

const BYPASS_VARS: &[&str] = &[
    "HUSKY",
    "HUSKY_SKIP_HOOKS",
    "SKIP",
    "PRE_COMMIT_ALLOW_NO_CONFIG",
    "LEFTHOOK",
    "OVERCOMMIT_DISABLE",
    "GIT_HOOKS_DISABLED",
];

/// `-n`, `-an`, `-nm MSG`: a short-option cluster with `n` before any option taking a value.
fn short_cluster_has_n(a: &str) -> bool {
    a.strip_prefix('-')
        .filter(|rest| !rest.starts_with('-'))
        .is_some_and(|rest| {
            rest.chars()
                .take_while(|c| !"mFCct".contains(*c))
                .any(|c| c == 'n')
        })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let hook_file = |p: &str| {
        p.contains("/.husky/")
            || paths::is_git_hook(p)
            || p.ends_with("/.pre-commit-config.yaml")
            || p.ends_with("/lefthook.yml")
    };
    if cx.fx.deletes.iter().any(|d| hook_file(&d.path))
        || cx
            .fx
            .writes
            .iter()
            .any(|w| w.path.contains("/.husky/") && w.program == "chmod")
    {
        out.push(Finding::new(VERIFICATION_BYPASS, Verdict::Auth));
    }
    let Some(sa) = cx.shell else {
        return;
    };
    for inv in &sa.invocations {
        if inv.program != "git" {
            continue;
        }
        let args: Vec<&str> = inv.argv().collect();
        let config_bypass = args.windows(2).any(
            |w| matches!(w, ["-c", kv] if kv.to_ascii_lowercase().starts_with("core.hookspath")),
        );
        let env_bypass = inv.assignments.iter().any(|(k, v)| {
            BYPASS_VARS.contains(&k.as_str())
                && !(k == "HUSKY" && v.text == "1")
                && !(k == "LEFTHOOK" && v.text == "1")
        });
        let Some((sub, rest)) = git_subcommand(inv) else {
            continue;
        };
        let hooked = matches!(
            sub,
            "commit" | "push" | "merge" | "rebase" | "am" | "cherry-pick" | "revert" | "pull"
        );
        let no_verify = rest.contains(&"--no-verify")
            || (sub == "commit" && rest.iter().any(|a| short_cluster_has_n(a)));
        if hooked && (no_verify || config_bypass || env_bypass) {
            out.push(Finding::new(VERIFICATION_BYPASS, Verdict::Auth));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn bypass_table() {
        for mode in Mode::ALL {
            table(
                mode,
                &[
                    ("git commit --no-verify -m x", Auth, "verification_bypass"),
                    ("git commit -n -m \"skip\"", Auth, "verification_bypass"),
                    ("git commit -nm skip", Auth, "verification_bypass"),
                    ("git push --no-verify", Auth, "verification_bypass"),
                    ("HUSKY=0 git commit -m x", Auth, "verification_bypass"),
                    (
                        "SKIP=eslint,mypy git commit -m x",
                        Auth,
                        "verification_bypass",
                    ),
                    (
                        "git -c core.hooksPath=/dev/null commit -m x",
                        Auth,
                        "verification_bypass",
                    ),
                    ("git commit -m \"docs: never use --no-verify\"", Pass, ""),
                    ("git commit -am \"fix: typo\"", Pass, ""),
                    ("git commit -m x", Pass, ""),
                ],
            );
        }
    }
}
