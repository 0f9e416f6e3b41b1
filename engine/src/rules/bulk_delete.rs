//! Bulk deletion with per-mode thresholds.
//!
//! **What it does:** counts what one command deletes. Explicit operands count one each; a
//! glob over a source folder (`rm -rf src/*`), `find … -delete` over sources, `xargs rm` and
//! `git rm -r` of the tree or a top-level source folder are unbounded. Build artefacts
//! (`node_modules`, `target`, `*.pyc`, …) and temp files do not count. Over the mode's
//! threshold (light 100, balanced 25, strict 10, paranoid 3) or unbounded (except in light)
//! is AUTH.
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

/// Folders of regenerable output (build, caches, installed dependencies): also what `git
/// clean -x` may clear without asking (`rules::git_destructive`).
pub(crate) const ARTIFACT_DIRS: &[&str] = &[
    "node_modules",
    "tmp",
    "temp",
    ".tmp",
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
    ".pio",
    ".zig-cache",
    "zig-out",
    ".stack-work",
    "dist-newstyle",
    ".elixir_ls",
    "output",
    "outputs",
    "artifacts",
    "test-results",
    "playwright-report",
    "blob-report",
    ".nyc_output",
    "lightning_logs",
    "mlruns",
    "wandb",
    ".ipynb_checkpoints",
    // Provider and module downloads (`terraform init` fetches them again; state is not here).
    ".terraform",
    ".terragrunt-cache",
    ".aws-sam",
    ".serverless",
    ".vite",
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

/// Build output or a temp file by its name alone (a relative path or a pattern).
fn is_artifact(path: &str) -> bool {
    // Frameworks' own caches: Laravel's `bootstrap/cache` and `storage/framework/*`,
    // Symfony's `var/cache`.
    let p = path.trim_start_matches("./");
    if [
        "bootstrap/cache/",
        "storage/framework/",
        "var/cache/",
        "storage/logs/",
    ]
    .iter()
    .any(|c| p.starts_with(c) || p.contains(&format!("/{c}")))
    {
        return true;
    }
    path.split('/').any(|seg| {
        ARTIFACT_DIRS.contains(&seg)
            || seg.ends_with(".egg-info")
            || seg.starts_with("cmake-build-")
    }) || ARTIFACT_EXTS.iter().any(|e| path.ends_with(e))
}

/// Is deleting this (absolute) path routine cleanup? Inside the project only what lies under
/// it counts (a project checked out under `/tmp` is still work: its `src/` is not a temp
/// file); outside it, a temp folder's contents are scratch — but not the whole temp folder.
fn is_cleanup(path: &str, cwd: Option<&str>) -> bool {
    if let Some(c) = cwd {
        let c = c.trim_end_matches('/');
        if !c.is_empty()
            && let Some(rel) = path.strip_prefix(c).and_then(|r| r.strip_prefix('/'))
        {
            return is_artifact(rel);
        }
    }
    if matches!(path.trim_end_matches('/'), "/tmp" | "/var/tmp") {
        return false;
    }
    for tmp in ["/tmp/", "/var/tmp/"] {
        if let Some(rest) = path.strip_prefix(tmp) {
            let whole = rest.is_empty() || matches!(rest, "*" | ".*" | "*/" | "{*,.*}");
            return !whole;
        }
    }
    is_artifact(path)
}

fn find_filters_artifacts(args: &[&str]) -> bool {
    // Only inside the working folder: `*.bak` under `D:/Backups` or `~` are the backups.
    let inside = args
        .iter()
        .take_while(|a| !a.starts_with(['-', '(', '!']))
        .all(|a| {
            let scratch = [
                "/tmp",
                "/var/tmp",
                "$TMPDIR",
                "${TMPDIR}",
                "$TMP",
                "$TEMP",
                "~/.cache",
                "~/Library/Caches",
                "$HOME/.cache",
                "$HOME/Library/Caches",
            ]
            .iter()
            .any(|t| *a == *t || a.starts_with(&format!("{t}/")));
            scratch || !a.starts_with(['/', '~', '$']) && !a.contains("..") && !a.contains(':')
        });
    if !inside {
        return false;
    }
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

/// `git ls-files` narrowed by pathspecs that are all leftover-file patterns inside the working
/// folder (`git ls-files -oz --exclude-standard -- '*.orig' '*.rej'`).
fn ls_files_of_artifacts(args: &[&str]) -> bool {
    if args.first() != Some(&"ls-files") {
        return false;
    }
    let specs: Vec<&str> = args
        .iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    !specs.is_empty()
        && specs.iter().all(|p| {
            let base = p.rsplit('/').next().unwrap_or(p);
            !p.starts_with(['/', '~', '$', ':'])
                && !p.contains("..")
                && base.starts_with('*')
                && is_artifact(base.trim_start_matches('*'))
        })
}

/// An `fd` search narrowed to leftover files by extension (`fd -e orig -e rej . -X rm`):
/// every `-e` a build or merge leftover, and the search inside the working folder.
fn fd_filters_artifacts(args: &[&str], cwd: Option<&str>, home: Option<&str>) -> bool {
    let mut exts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i).copied() {
        match a {
            "-x" | "-X" | "--exec" | "--exec-batch" => break,
            "-e" | "--extension" => {
                if let Some(e) = args.get(i + 1) {
                    exts.push(*e);
                }
                i += 2;
                continue;
            }
            "-t" | "--type" | "-d" | "--max-depth" | "-E" | "--exclude" | "--changed-before"
            | "--changed-within" | "-S" | "--size" => {
                i += 2;
                continue;
            }
            _ if a.starts_with('-') => {}
            _ => operands.push(a),
        }
        i += 1;
    }
    let inside = operands.get(1).is_none_or(|p| {
        let abs = crate::paths::normalize(p, cwd, home);
        cwd.is_some_and(|c| {
            let c = c.trim_end_matches('/');
            abs == c || abs.starts_with(&format!("{c}/"))
        })
    });
    !exts.is_empty()
        && inside
        && exts
            .iter()
            .all(|e| is_artifact(&format!(".{}", e.trim_start_matches('.'))))
}

/// A `find` whose deletion is bounded by where it looks and what it matches: every starting
/// point in a temporary folder (`find /tmp -name 'vite-*' -mtime +1 -delete`), or inside the
/// project with a name pattern and an age filter (`find ./logs -name '*.gz' -mtime +14
/// -delete`: rotated logs).
fn find_bounded(args: &[&str], cwd: Option<&str>, home: Option<&str>) -> bool {
    let starts: Vec<String> = args
        .iter()
        .take_while(|a| !a.starts_with('-') && !matches!(**a, "(" | "!"))
        .map(|a| crate::paths::normalize(a, cwd, home))
        .collect();
    if starts.is_empty() {
        return false;
    }
    let temp = |p: &str| {
        ["/tmp/", "/var/tmp/", "/private/tmp/"]
            .iter()
            .any(|t| p.starts_with(t) || p == t.trim_end_matches('/'))
    };
    let inside = |p: &str| {
        cwd.is_some_and(|c| {
            let c = c.trim_end_matches('/');
            p == c || p.starts_with(&format!("{c}/"))
        })
    };
    // (A project that lives in /tmp is still a project.)
    if starts.iter().all(|p| temp(p) && !inside(p)) {
        return true;
    }
    // The project's own scratch and build folders (`find ./tmp -mtime +7 -delete`).
    let project = cwd.map(|c| c.trim_end_matches('/'));
    if starts
        .iter()
        .all(|p| Some(p.trim_end_matches('/')) != project && is_cleanup(p, cwd))
    {
        return true;
    }
    let named = args.windows(2).any(|w| {
        matches!(w.first(), Some(&("-name" | "-iname"))) && w.get(1).is_some_and(|p| *p != "*")
    });
    let aged = args.iter().any(|a| {
        matches!(
            *a,
            "-mtime" | "-mmin" | "-atime" | "-amin" | "-ctime" | "-newer"
        )
    });
    starts.iter().all(|p| inside(p)) && named && aged
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let mode = cx.mode();
    let mut count = 0usize;
    let mut unbounded = false;
    let cwd = cx.cwd();
    for d in &cx.fx.deletes {
        if is_cleanup(&d.path, cwd) || d.program == "mv" {
            continue;
        }
        if d.glob {
            let dir = d.path.rsplit_once('/').map_or("", |(a, _)| a);
            if !is_cleanup(dir, cwd) {
                // `rm -rf src/*` or `rm *.ts`: a whole folder's worth; `rm src/**/*.ts`
                // (globstar), every folder's below it.
                unbounded |= d.recursive || d.path.ends_with("/*") || d.path.contains("**");
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
                && (args.contains(&"-delete") || crate::shell::find_exec_deletes(&args))
                && !find_filters_artifacts(&args)
                && !find_bounded(&args, inv.cwd.as_deref().or(cwd), cx.home())
            {
                unbounded = true;
            }
            // `truncate -s 0` empties files: as destructive as deleting them.
            let empties = inv.program == "truncate"
                && (args.windows(2).any(|w| matches!(w, ["-s" | "--size", "0"]))
                    || args.iter().any(|a| *a == "-s0" || *a == "--size=0"));
            if inv.args_from_input
                && (matches!(inv.program.as_str(), "rm" | "shred" | "unlink") || empties)
                && !inv.wrappers.is_empty()
            {
                let from_artifact_find = sa.upstream(inv).iter().any(|u| {
                    let ua: Vec<&str> = u.argv().collect();
                    u.program == "find" && find_filters_artifacts(&ua)
                        || u.program == "git" && ls_files_of_artifacts(&ua)
                });
                // `find build -mindepth 1 -maxdepth 1 | xargs rm -rf`: a build folder's
                // listing (what is deleted is judged as `build/*`).
                let roots = crate::effects::listed_roots(sa, inv);
                let from_artifact_listing = !roots.is_empty()
                    && roots.iter().all(|r| {
                        let at = inv.cwd.as_deref().or(cwd);
                        is_cleanup(&crate::paths::normalize(r, at, cx.home()), at)
                    });
                if !from_artifact_find && !from_artifact_listing {
                    unbounded = true;
                }
            }
            if matches!(inv.program.as_str(), "fd" | "fdfind")
                && !fd_filters_artifacts(&args, inv.cwd.as_deref().or(cwd), cx.home())
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
            // `git rm -r .` (every tracked file) or a top-level source folder is unbounded; a
            // named subfolder (`git rm -r legacy_migrations/`) is tracked work that git keeps
            // in history — counted, not unbounded.
            if inv.program == "git"
                && args.first() == Some(&"rm")
                && inv.has_flag('r', "")
                && !args.contains(&"--cached")
            {
                let specs: Vec<&&str> = args
                    .iter()
                    .skip(1)
                    .filter(|a| !a.starts_with('-'))
                    .collect();
                let wide = specs.is_empty()
                    || specs.iter().any(|p| {
                        let p = p.trim_start_matches("./").trim_end_matches('/');
                        p.is_empty()
                            || matches!(
                                p,
                                "." | "*" | ":/" | ".." | "src" | "lib" | "app" | "source"
                            )
                            || p.contains('*')
                            || p.starts_with(['/', '~', ':'])
                            || p.contains("..")
                    });
                if wide {
                    unbounded = true;
                }
            }
            // Everything a listing prints, removed: `git ls-files | xargs git rm` (every
            // tracked file), `docker volume ls -q | xargs docker volume rm` (every volume, and
            // the databases in them). A listing narrowed by a filter is a choice.
            if inv.args_from_input {
                // Every tracked file: `git ls-files` with no pathspec and no state filter
                // (`-d` deleted, `-m` modified, `-o` others).
                let listing = |u: &crate::shell::Invocation, program: &str, first: &[&str]| {
                    let ua: Vec<&str> = u.argv().collect();
                    u.program == program
                        && ua.first().is_some_and(|a| first.contains(a))
                        && ua.iter().skip(1).all(|a| {
                            a.starts_with('-')
                                && !matches!(
                                    *a,
                                    "-d" | "-m"
                                        | "-o"
                                        | "-u"
                                        | "-k"
                                        | "--deleted"
                                        | "--modified"
                                        | "--others"
                                        | "--unmerged"
                                        | "--killed"
                                )
                                && !a.starts_with("-x")
                                && !a.starts_with("--exclude")
                        })
                };
                let up = sa.upstream(inv);
                let narrowed = up.iter().any(|u| {
                    matches!(
                        u.program.as_str(),
                        "grep" | "rg" | "awk" | "sed" | "head" | "tail"
                    )
                });
                let git_all = inv.program == "git"
                    && args.first() == Some(&"rm")
                    && !args.contains(&"--cached")
                    && up.iter().any(|u| listing(u, "git", &["ls-files"]));
                let volumes_all = matches!(inv.program.as_str(), "docker" | "podman")
                    && args.first() == Some(&"volume")
                    && args.get(1).is_some_and(|a| matches!(*a, "rm" | "remove"))
                    && up.iter().any(|u| {
                        matches!(u.program.as_str(), "docker" | "podman")
                            && u.argv().next() == Some("volume")
                            && u.argv().nth(1).is_some_and(|a| matches!(a, "ls" | "list"))
                            && !u.argv().any(|a| a.starts_with("--filter") || a == "-f")
                    });
                if (git_all || volumes_all) && !narrowed {
                    unbounded = true;
                }
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
                // fd narrowed to merge leftovers inside the project; fd over everything.
                ("fd -e orig -e rej . -X rm", Pass, ""),
                // Framework caches, and the sources beside them.
                (
                    "rm -rf bootstrap/cache/*.php storage/framework/views/*.php",
                    Pass,
                    "",
                ),
                ("rm -rf var/cache/*", Pass, ""),
                ("rm -rf src/*.php", Auth, "bulk_delete"),
                // Globstar: every folder below, not one.
                (
                    "shopt -s globstar; rm -f src/**/*.ts src/**/*.tsx",
                    Auth,
                    "bulk_delete",
                ),
                ("shopt -s globstar; rm -f build/**/*.js.map", Pass, ""),
                ("rm -f src/legacy.ts src/legacy.test.ts", Pass, ""),
                // An unfiltered listing deleted whole: a build folder's, or the sources'.
                (
                    "find build -mindepth 1 -maxdepth 1 | xargs rm -rf",
                    Pass,
                    "",
                ),
                ("ls src | xargs rm -rf", Auth, "bulk_delete"),
                // PowerShell: one folder's listing piped to `Remove-Item`.
                (
                    "Get-ChildItem .\\logs -Filter *.log | Where-Object LastWriteTime -lt (Get-Date).AddDays(-7) | Remove-Item",
                    Pass,
                    "",
                ),
                (
                    "Get-ChildItem .\\src -Filter *.ts | Remove-Item",
                    Auth,
                    "bulk_delete",
                ),
                ("rm -rf app/Http/Controllers/*.php", Auth, "bulk_delete"),
                ("fd -e orig . src -x rm {}", Pass, ""),
                ("fd . -X rm", Auth, "bulk_delete"),
                ("fd -e py . -X rm", Auth, "bulk_delete"),
                ("fd -e orig . ~ -X rm", Auth, "bulk_delete"),
                (
                    "git ls-files -z | xargs -0 git rm -q -- && git commit -qm prune",
                    Auth,
                    "bulk_delete",
                ),
                (
                    "docker volume ls -q | xargs -r docker volume rm -f",
                    Auth,
                    "bulk_delete",
                ),
                ("git ls-files '*.orig' | xargs git rm", Pass, ""),
                (
                    "git ls-files -oz --exclude-standard -- '*.orig' '*.rej' | xargs -0 rm -f",
                    Pass,
                    "",
                ),
                (
                    "git ls-files -oz -- '*.ts' | xargs -0 rm -f",
                    Auth,
                    "bulk_delete",
                ),
                (
                    "git ls-files -oz -- '../*.orig' | xargs -0 rm -f",
                    Auth,
                    "bulk_delete",
                ),
                (
                    "docker volume ls -q --filter dangling=true | xargs -r docker volume rm",
                    Pass,
                    "",
                ),
                (
                    "docker volume ls -q | grep '^myproj_test' | xargs -r docker volume rm",
                    Pass,
                    "",
                ),
                ("rm -rf src/*", Auth, "bulk_delete"),
                ("find . -name '*.ts' -delete", Auth, "bulk_delete"),
                ("git ls-files | xargs rm", Auth, "bulk_delete"),
                (
                    "find /tmp -maxdepth 1 -name 'vite-*' -mtime +1 -exec rm -rf {} +",
                    Pass,
                    "",
                ),
                (
                    "find ./logs -name '*.log.*.gz' -mtime +14 -delete",
                    Pass,
                    "",
                ),
                ("find ./logs -name '*.gz' -delete", Pass, ""),
                ("find ./tmp -type f -mtime +7 -delete", Pass, ""),
                ("find ./src -type f -mtime +7 -delete", Auth, "bulk_delete"),
                ("find ~ -name '*.log' -mtime +14 -delete", Block, ""),
                (
                    "find ~/code -name '*.py' | xargs truncate -s 0",
                    Auth,
                    "bulk_delete",
                ),
                ("truncate -s 0 logs/app.log", Pass, ""),
                ("git rm -r src", Auth, "bulk_delete"),
                ("git rm -rf -q .", Block, "bulk_delete"),
                ("git rm -r legacy_migrations/", Pass, ""),
                ("git rm -r docs/old-api docs/v1", Pass, ""),
                ("find . -name '*.pyc' -delete", Pass, ""),
                ("find . -name '*.orig' -delete", Pass, ""),
                // The same names outside the working folder are someone's backups and logs.
                (
                    "find /mnt/backups/sql -name '*.bak' -delete",
                    Block,
                    "bulk_delete",
                ),
                (
                    "find . -type d -name .terraform -prune -exec rm -rf {} +",
                    Pass,
                    "",
                ),
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

    /// Issue #13: a project under `/tmp` is still work; scratch files in a temp folder outside
    /// the project are not, but the whole temp folder is.
    #[test]
    fn temp_folders_are_judged_by_where_the_project_is() {
        use crate::action::{Action, Host};
        use crate::rules::testutil::engine;
        let e = engine(Mode::Balanced);
        let s = crate::SessionState::default();
        let cases = [
            ("/tmp/work/app", "rm -rf src/*", Auth),
            ("/tmp/work/app", "find . -name '*.ts' -delete", Auth),
            ("/tmp/work/app", "git ls-files | xargs rm", Auth),
            ("/tmp/work/app", "rm -rf /tmp/work/app/lib/*", Auth),
            ("/var/tmp/ci/repo", "rm -rf src/*", Auth),
            ("/tmp/work/app", "rm -rf node_modules target dist", Pass),
            ("/tmp/work/app", "find . -name '*.pyc' -delete", Pass),
            (
                "/home/dev/project",
                "rm -rf /tmp/build-1234 /tmp/pytest-of-dev",
                Pass,
            ),
            ("/home/dev/project", "rm -rf /tmp/scratch/*", Pass),
            ("/home/dev/project", "rm -rf /tmp/*", Auth),
            ("/home/dev/project", "rm -rf /var/tmp/*", Auth),
        ];
        for (cwd, cmd, want) in cases {
            let d = e.decide(&Action::shell(Host::ClaudeCode, cmd, Some(cwd)), &s);
            assert_eq!(d.verdict, want, "{cwd}: {cmd}: {:?}", d.codes());
            if want == Auth {
                assert!(d.codes().contains(&"bulk_delete"), "{cmd}: {:?}", d.codes());
            }
        }
    }
}
