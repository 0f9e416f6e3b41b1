//! Bulk deletion with per-mode thresholds.
//!
//! **What it does:** counts what one command deletes. Explicit operands count one each; a
//! glob over a source folder (`rm -rf src/*`), `find … -delete` over sources, `xargs rm` and
//! `git rm -r` are unbounded. Build artefacts (`node_modules`, `target`, `*.pyc`, …) and temp
//! files do not count. Over the mode's threshold (light 100, balanced 25, strict 10,
//! paranoid 3) or unbounded (except in light) is AUTH.
//! **Why:** mass deletion of work is how a confused or hijacked agent does the most damage
//! short of `rm -rf /`.
//! **Example:** `git ls-files | xargs rm` → `bulk_delete`.

use crate::policy::Mode;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const BULK_DELETE: Reason = Reason::new(
    "bulk_delete",
    "Deletes more files at once than this strictness mode allows without asking.",
);

const ARTIFACT_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "dist",
    "build",
    "out",
    ".next",
    ".nuxt",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".cache",
    "coverage",
    ".coverage",
    "htmlcov",
    ".tox",
    ".venv",
    "venv",
    ".gradle",
    ".parcel-cache",
    ".turbo",
    "tmp",
    "temp",
    ".svelte-kit",
    "bin",
    "obj",
    "DerivedData",
    ".angular",
    "storybook-static",
    ".eggs",
    "site",
    "_build",
    ".docusaurus",
    ".expo",
    "Pods",
    ".dart_tool",
    ".pnpm-store",
    "logs",
];
const ARTIFACT_EXTS: &[&str] = &[
    ".pyc",
    ".pyo",
    ".o",
    ".obj",
    ".class",
    ".log",
    ".tmp",
    ".orig",
    ".rej",
    ".swp",
    ".bak",
    ".DS_Store",
    "~",
    ".d",
    ".tsbuildinfo",
    ".map",
    ".egg-info",
    ".coverage",
    ".lcov",
    ".profraw",
];

fn is_artifact(path: &str) -> bool {
    path.starts_with("/tmp/")
        || path.split('/').any(|seg| {
            ARTIFACT_DIRS.contains(&seg)
                || seg.ends_with(".egg-info")
                || seg.starts_with("cmake-build-")
        })
        || ARTIFACT_EXTS.iter().any(|e| path.ends_with(e))
}

fn find_filters_artifacts(args: &[&str]) -> bool {
    let mut named = false;
    for w in args.windows(2) {
        if let [flag, pat] = w
            && matches!(*flag, "-name" | "-iname" | "-path" | "-ipath" | "-regex")
        {
            named = true;
            if !is_artifact(pat.trim_start_matches('*')) && !ARTIFACT_DIRS.contains(pat) {
                return false;
            }
        }
    }
    named
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let mode = cx.mode();
    let mut count = 0usize;
    let mut unbounded = false;
    for d in &cx.fx.deletes {
        if is_artifact(&d.path) || d.program == "mv" {
            continue;
        }
        if d.glob {
            let dir = d.path.rsplit_once('/').map_or("", |(a, _)| a);
            if !is_artifact(dir) {
                // `rm -rf src/*` or `rm *.ts`: a whole folder's worth.
                unbounded |= d.recursive || d.path.ends_with("/*");
                count += 10;
            }
        } else if d.dynamic && (d.path.starts_with("$(") || d.path.starts_with('`')) {
            // `rm $(git ls-files …)`: as many files as the command prints.
            unbounded = true;
        } else if d.recursive && d.program != "rmdir" && !d.path.contains("{}") {
            // A whole folder: weigh it as ten files.
            count += 10;
        } else {
            count += 1;
        }
    }
    if let Some(sa) = cx.shell {
        for inv in &sa.invocations {
            let args: Vec<&str> = inv.argv().collect();
            if inv.program == "find"
                && (args.contains(&"-delete")
                    || args
                        .windows(2)
                        .any(|w| matches!(w, ["-exec" | "-execdir", "rm" | "shred" | "unlink"])))
                && !find_filters_artifacts(&args)
            {
                unbounded = true;
            }
            if inv.args_from_input
                && matches!(inv.program.as_str(), "rm" | "shred" | "unlink")
                && !inv.wrappers.is_empty()
            {
                let from_artifact_find = sa.upstream(inv).iter().any(|u| {
                    u.program == "find" && find_filters_artifacts(&u.argv().collect::<Vec<_>>())
                });
                if !from_artifact_find {
                    unbounded = true;
                }
            }
            if matches!(inv.program.as_str(), "fd" | "fdfind")
                && args.windows(2).any(|w| {
                    matches!(
                        w,
                        [
                            "-x" | "-X" | "--exec" | "--exec-batch",
                            "rm" | "shred" | "unlink"
                        ]
                    )
                })
            {
                unbounded = true;
            }
            if inv.program == "git"
                && args.first() == Some(&"rm")
                && inv.has_flag('r', "")
                && !args.contains(&"--cached")
            {
                unbounded = true;
            }
        }
    }
    let threshold = mode.bulk_delete_threshold();
    if count > threshold || (unbounded && mode > Mode::Light) {
        out.push(Finding::new(BULK_DELETE, Verdict::Auth));
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::{decide_shell, table};

    #[test]
    fn thresholds_by_mode() {
        let files = |n: usize| {
            format!(
                "rm {}",
                (0..n)
                    .map(|i| format!("src/f{i}.rs"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        };
        let cases = [
            (Mode::Light, 100),
            (Mode::Balanced, 25),
            (Mode::Strict, 10),
            (Mode::Paranoid, 3),
        ];
        for (mode, t) in cases {
            assert_eq!(
                decide_shell(mode, &files(t)).verdict,
                Pass,
                "{mode} at threshold"
            );
            let d = decide_shell(mode, &files(t + 1));
            assert_eq!(d.verdict, Auth, "{mode} over threshold");
            assert_eq!(d.codes(), vec!["bulk_delete"]);
        }
    }

    #[test]
    fn unbounded_deletes() {
        table(
            Mode::Balanced,
            &[
                ("rm -rf src/*", Auth, "bulk_delete"),
                ("find . -name '*.ts' -delete", Auth, "bulk_delete"),
                ("git ls-files | xargs rm", Auth, "bulk_delete"),
                ("git rm -r src", Auth, "bulk_delete"),
                ("find . -name '*.pyc' -delete", Pass, ""),
                ("find . -name '*.orig' -delete", Pass, ""),
                (
                    "find . -type d -name __pycache__ -exec rm -rf {} +",
                    Pass,
                    "",
                ),
                ("rm -rf node_modules dist build .next", Pass, ""),
                ("git rm --cached -r .idea", Pass, ""),
                ("find . -name '*.rs' | xargs wc -l", Pass, ""),
            ],
        );
    }
}
