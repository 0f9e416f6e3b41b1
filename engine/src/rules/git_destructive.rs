//! Git operations that destroy history or uncommitted work.
//!
//! **What it does:** force pushes (`--force`, `-f`, `+refspec`) and `--mirror` are BLOCK
//! (AUTH in light), AUTH when every branch pushed is a named work branch (not `main`,
//! `master`, `develop`, `release*`, `prod*`, …); `--force-with-lease` is AUTH unless it
//! names only work branches (the routine after a rebase: PASS); deleting remote branches, `reset --hard`,
//! `clean -f`, `checkout -- .`/`restore .`, `stash clear/drop`, history rewriting and reflog
//! expiry are AUTH.
//! **Why:** they overwrite other people's commits or throw away work that exists nowhere else.
//! **Example:** `git push --force origin main` → `git_force_push`.

use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const FORCE_PUSH: Reason = Reason::new(
    "git_force_push",
    "Force-pushes, overwriting history on the remote.",
);
pub const HISTORY_LOSS: Reason = Reason::new(
    "git_discard_work",
    "Discards uncommitted work or rewrites local history.",
);
pub const REMOTE_DELETE: Reason = Reason::new(
    "git_remote_delete",
    "Deletes branches or tags on the remote.",
);

pub use crate::shell::git_subcommand;

/// Branches that are shared by convention (a force push there rewrites others' history).
fn shared_branch(name: &str) -> bool {
    let n = name.trim_start_matches("refs/heads/").to_ascii_lowercase();
    matches!(
        n.as_str(),
        "main"
            | "master"
            | "trunk"
            | "develop"
            | "development"
            | "dev"
            | "staging"
            | "stable"
            | "production"
            | "prod"
            | "live"
            | "gh-pages"
    ) || [
        "release",
        "releases/",
        "prod/",
        "production/",
        "hotfix/",
        "support/",
    ]
    .iter()
    .any(|p| n.starts_with(p))
        || n.starts_with("refs/tags/")
}

/// `git push [opts] REMOTE REFSPEC…` names only work branches (`feat/x`, `HEAD:fix-1`), none
/// of them shared, none of them computed. Without a refspec the branch is not known here.
fn only_feature_branches(rest: &[&str]) -> bool {
    let refspecs: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .skip(1)
        .collect();
    !refspecs.is_empty()
        && refspecs.iter().all(|r| {
            let r = r.trim_start_matches('+');
            let dst = r.rsplit_once(':').map_or(r, |(_, d)| d);
            !dst.is_empty()
                && dst != "HEAD"
                && !dst.contains(['$', '`', '*'])
                && !shared_branch(dst)
        })
}

/// A repository's whole history deleted (`rm -rf .git`, `find . -name .git -exec rm -rf`):
/// every commit, branch and stash not pushed is gone. A repository cloned on the same command
/// line (a template started afresh: `git clone T app && rm -rf app/.git`) or kept in a temp
/// folder is not asked about.
fn repository_deleted(cx: &Ctx<'_>) -> bool {
    let cloned = cx.shell.is_some_and(|sa| {
        sa.invocations
            .iter()
            .any(|i| git_subcommand(i).is_some_and(|(sub, _)| sub == "clone"))
            || sa.invocations.iter().any(|i| {
                matches!(i.program.as_str(), "degit" | "tiged")
                    || i.program == "npx" && i.argv().any(|a| a == "degit" || a == "tiged")
            })
    });
    !cloned
        && cx.fx.deletes.iter().any(|d| {
            let p = d.path.trim_end_matches('/');
            (d.recursive || d.glob)
                && crate::paths::basename(p) == ".git"
                && !p.starts_with("/tmp/")
                && !p.starts_with("/var/tmp/")
                && !p.starts_with("/private/tmp/")
                && !p.starts_with("/var/folders/")
        })
}

/// A remote-tracking branch (`origin/feat/x`, `upstream/main`) or the upstream shorthand
/// (`@{u}`, `@{upstream}`, `main@{u}`).
fn upstream_ref(t: &str) -> bool {
    let t = t.trim_start_matches("refs/remotes/");
    t.ends_with("@{u}")
        || t.ends_with("@{upstream}")
        || t.split_once('/').is_some_and(|(remote, branch)| {
            matches!(remote, "origin" | "upstream")
                && !branch.is_empty()
                && !branch.contains(['~', '^', '$', '`', '*', ':'])
                && !branch.contains("@{")
        })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if repository_deleted(cx) {
        out.push(Finding::new(
            HISTORY_LOSS,
            cx.mode()
                .pick([Verdict::Auth, Verdict::Auth, Verdict::Auth, Verdict::Block]),
        ));
    }
    let Some(sa) = cx.shell else {
        return;
    };
    let force_verdict = cx.mode().pick([
        Verdict::Auth,
        Verdict::Block,
        Verdict::Block,
        Verdict::Block,
    ]);
    for inv in &sa.invocations {
        let Some((sub, rest)) = git_subcommand(inv) else {
            continue;
        };
        let has = |f: &str| rest.contains(&f);
        let short = |c: char| {
            rest.iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
        };
        match sub {
            "push" => {
                let lease = rest.iter().any(|a| {
                    a.starts_with("--force-with-lease") || a.starts_with("--force-if-includes")
                });
                let plus_ref = rest
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .skip(1)
                    .any(|a| a.starts_with('+'));
                let feature = only_feature_branches(&rest);
                if has("--mirror") {
                    out.push(Finding::new(FORCE_PUSH, force_verdict));
                } else if has("--force") || short('f') || plus_ref {
                    // Overwrites whatever is there; a named work branch is asked about, a
                    // shared or unnamed one is not done.
                    let v = if feature {
                        Verdict::Auth
                    } else {
                        force_verdict
                    };
                    out.push(Finding::new(FORCE_PUSH, v));
                } else if lease && !feature {
                    out.push(Finding::new(FORCE_PUSH, Verdict::Auth));
                }
                let colon_ref = rest
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .skip(1)
                    .any(|a| a.starts_with(':'));
                // `git push origin $(… | awk '{print ":" $2}')`: refs computed at run time
                // may be deletions (`:branch`) or forced (`+branch`).
                let computed_ref = rest
                    .iter()
                    .filter(|a| !a.starts_with('-'))
                    .skip(1)
                    .any(|a| {
                        let l = a.to_ascii_lowercase();
                        // The current branch's name is not a deletion.
                        let current = [
                            "branch --show-current",
                            "rev-parse --abbrev-ref head",
                            "symbolic-ref --short head",
                        ]
                        .iter()
                        .any(|c| l.contains(c));
                        a.contains(['$', '`']) && !current
                    });
                if has("--prune") || computed_ref {
                    out.push(Finding::new(REMOTE_DELETE, Verdict::Auth));
                } else if has("--delete") || short('d') || colon_ref {
                    // A named work branch deleted after its merge is routine cleanup; a
                    // shared branch, a tag or an unnamed one is asked about.
                    let work_branches =
                        rest.iter()
                            .filter(|a| !a.starts_with('-'))
                            .skip(1)
                            .all(|r| {
                                let b = r.trim_start_matches(':');
                                let b = b.strip_prefix("refs/heads/").unwrap_or(b);
                                !b.is_empty()
                                    && !b.starts_with("refs/")
                                    && b.contains('/')
                                    && !b.contains(['$', '`', '*'])
                                    && !shared_branch(b)
                            })
                            && rest.iter().filter(|a| !a.starts_with('-')).count() > 1;
                    let v = if work_branches {
                        cx.mode()
                            .pick([Verdict::Pass, Verdict::Pass, Verdict::Auth, Verdict::Auth])
                    } else {
                        Verdict::Auth
                    };
                    out.push(Finding::new(REMOTE_DELETE, v));
                }
            }
            "reset" if has("--hard") || has("--merge") || has("--keep") => {
                // `git reset --hard origin/feat/x` / `@{u}`: the branch made to match what
                // was pushed — local commits stay in the reflog, and only uncommitted edits
                // go. Anything else (`HEAD~20`, a bare `--hard`) is asked about.
                let targets: Vec<&&str> = rest.iter().filter(|a| !a.starts_with('-')).collect();
                // `ORIG_HEAD`: back to where the last merge, rebase or reset started.
                let to_upstream =
                    matches!(targets.as_slice(), [t] if upstream_ref(t) || **t == "ORIG_HEAD");
                let v = if to_upstream {
                    cx.mode()
                        .pick([Verdict::Pass, Verdict::Pass, Verdict::Auth, Verdict::Auth])
                } else {
                    Verdict::Auth
                };
                out.push(Finding::new(HISTORY_LOSS, v));
            }
            "clean" if (has("--force") || short('f')) && !(short('n') || has("--dry-run")) => {
                // Untracked files in named build folders (`git clean -fd coverage tmp`) are
                // what `rm -rf coverage tmp` would remove; the whole tree, ignored files
                // (`-x`) or `-ff` (nested repositories) are asked about.
                let specs: Vec<&&str> = rest.iter().filter(|a| !a.starts_with('-')).collect();
                let scoped = !specs.is_empty()
                    && specs.iter().all(|p| {
                        !matches!(**p, "." | "./" | ":/" | "*" | ".." | "~")
                            && !p.starts_with(['/', '~', ':'])
                            && !p.contains("..")
                            && !p.contains('*')
                    })
                    // Ignored files too (`-x`) only in build-output folders, where nothing
                    // ignored is kept on purpose (a `.env` could be, elsewhere).
                    && (!(short('x') || short('X'))
                        || specs.iter().all(|p| {
                            // `build`, or a module's (`android/app/build`, `ios/build`).
                            let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or(p);
                            super::bulk_delete::ARTIFACT_DIRS.contains(&last)
                        }))
                    && !rest.iter().any(|a| {
                        a.starts_with('-') && !a.starts_with("--") && a.matches('f').count() > 1
                    });
                if !scoped {
                    out.push(Finding::new(HISTORY_LOSS, Verdict::Auth));
                }
            }
            "checkout" => {
                let after_dd: Vec<&&str> =
                    rest.iter().skip_while(|a| **a != "--").skip(1).collect();
                let broad = |a: &&&str| matches!(**a, "." | "*" | ":/" | "./");
                if after_dd.iter().any(broad)
                    || rest.first() == Some(&".")
                    || has("-f") && rest.len() == 1
                {
                    out.push(Finding::new(HISTORY_LOSS, Verdict::Auth));
                }
            }
            "restore" => {
                let staged_only =
                    (has("--staged") || short('S')) && !has("--worktree") && !short('W');
                if !staged_only && rest.iter().any(|a| matches!(*a, "." | "*" | ":/" | "./")) {
                    out.push(Finding::new(HISTORY_LOSS, Verdict::Auth));
                }
            }
            // One named stash dropped (`git stash drop stash@{2}`) is tidying; every stash
            // (`clear`) or the latest unnamed one is asked about.
            "stash" if rest.first().is_some_and(|a| matches!(*a, "clear" | "drop")) => {
                let one_named = rest.first() == Some(&"drop")
                    && matches!(rest.get(1..), Some([r]) if r.starts_with("stash@{") && r.ends_with('}'));
                let v = if one_named {
                    cx.mode()
                        .pick([Verdict::Pass, Verdict::Pass, Verdict::Auth, Verdict::Auth])
                } else {
                    Verdict::Auth
                };
                out.push(Finding::new(HISTORY_LOSS, v));
            }
            "filter-branch" | "filter-repo" => out.push(Finding::new(HISTORY_LOSS, Verdict::Auth)),
            "reflog" if rest.first() == Some(&"expire") || rest.first() == Some(&"delete") => {
                out.push(Finding::new(HISTORY_LOSS, Verdict::Auth));
            }
            // `git gc --prune=now` drops objects nothing (not even the reflog) reaches; with
            // the reflog expired first it is history gone, and `reflog expire` is asked
            // about on its own.
            "gc" if rest.iter().any(|a| a.starts_with("--prune")) => {
                out.push(Finding::new(
                    HISTORY_LOSS,
                    cx.mode()
                        .pick([Verdict::Pass, Verdict::Pass, Verdict::Auth, Verdict::Auth]),
                ));
            }
            "branch" if has("-D") || (has("-d") && has("--force")) => {
                out.push(Finding::new(
                    HISTORY_LOSS,
                    cx.mode()
                        .pick([Verdict::Pass, Verdict::Pass, Verdict::Auth, Verdict::Auth]),
                ));
            }
            "update-ref" if has("-d") => out.push(Finding::new(HISTORY_LOSS, Verdict::Auth)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn git_table() {
        table(
            Mode::Balanced,
            &[
                // The repository's history deleted.
                (
                    "rm -rf .git && git init -q && git add -A && git commit -qm init",
                    Auth,
                    "git_discard_work",
                ),
                ("rm -rf ./.git/", Auth, "git_discard_work"),
                ("rm -rf /home/dev/project/.git", Auth, "git_discard_work"),
                (
                    "git clone https://github.com/acme/template app && rm -rf app/.git",
                    Pass,
                    "",
                ),
                ("npx degit acme/template app && rm -rf app/.git", Pass, ""),
                ("rm -rf /tmp/scratch/.git", Pass, ""),
                ("rm -rf .github/old", Pass, ""),
                ("rm .gitignore.orig", Pass, ""),
                ("git clean -fdx -- dist/ coverage/", Pass, ""),
                ("git clean -fdx -- .pio/ build/", Pass, ""),
                ("git clean -fdx -- .pio/ .env", Auth, "git_discard_work"),
                ("git clean -fdX -- android/app/build ios/build", Pass, ""),
                (
                    "git clean -fdX -- android/app/src",
                    Auth,
                    "git_discard_work",
                ),
                ("git clean -fdx src/", Auth, "git_discard_work"),
                ("git clean -fdx", Auth, "git_discard_work"),
                ("git push origin --delete feature/old-login-form", Pass, ""),
                ("git push origin :fix/typo", Pass, ""),
                ("git push origin --delete main", Auth, "git_remote_delete"),
                ("git push origin --delete v1.2.0", Auth, "git_remote_delete"),
                ("git push --force origin main", Block, "git_force_push"),
                ("git push -f", Block, "git_force_push"),
                ("git push origin +main", Block, "git_force_push"),
                (
                    "git push --mirror https://github.com/org/repo",
                    Block,
                    "git_force_push",
                ),
                (
                    "git -C /home/dev/project push -f origin HEAD",
                    Block,
                    "git_force_push",
                ),
                (
                    "git push --force-with-lease origin main",
                    Auth,
                    "git_force_push",
                ),
                ("git push --force-with-lease", Auth, "git_force_push"),
                (
                    "git push --force origin feat/rate-limit",
                    Auth,
                    "git_force_push",
                ),
                (
                    "git push -f origin HEAD:release/2.1",
                    Block,
                    "git_force_push",
                ),
                ("git push origin +HEAD:main", Block, "git_force_push"),
                // The lease on a named work branch is the routine after a rebase.
                ("git push --force-with-lease origin feature", Pass, ""),
                (
                    "git push --force-with-lease origin HEAD:fix/login-redirect",
                    Pass,
                    "",
                ),
                (
                    "git push origin --delete old-branch",
                    Auth,
                    "git_remote_delete",
                ),
                (
                    "git push origin $(git ls-remote --heads origin | awk '{print \":\" $2}')",
                    Auth,
                    "git_remote_delete",
                ),
                ("git push origin \"$(git branch --show-current)\"", Pass, ""),
                ("git push origin HEAD", Pass, ""),
                (
                    "git push -u origin \"$(git rev-parse --abbrev-ref HEAD)\"",
                    Pass,
                    "",
                ),
                ("git reset --hard HEAD~20", Auth, "git_discard_work"),
                ("git clean -fdx", Auth, "git_discard_work"),
                ("git clean -fd", Auth, "git_discard_work"),
                ("git clean -fd .", Auth, "git_discard_work"),
                ("git clean -fdx build", Pass, ""),
                ("git clean -fdx config", Auth, "git_discard_work"),
                ("git clean -fd coverage tmp", Pass, ""),
                ("git checkout -- .", Auth, "git_discard_work"),
                ("git restore .", Auth, "git_discard_work"),
                ("git stash clear", Auth, "git_discard_work"),
                (
                    "git reflog expire --expire=now --all && git gc --prune=now",
                    Auth,
                    "git_discard_work",
                ),
                ("git push origin feature-x", Pass, ""),
                ("git push -u origin HEAD", Pass, ""),
                ("git reset --soft HEAD~1", Pass, ""),
                // Made to match what was pushed: local commits stay in the reflog.
                ("git reset --hard origin/feat/saved-replies", Pass, ""),
                ("git fetch origin && git reset --hard origin/main", Pass, ""),
                ("git reset --hard @{u}", Pass, ""),
                ("git reset --hard origin/main~5", Auth, "git_discard_work"),
                ("git reset --hard ORIG_HEAD", Pass, ""),
                ("git reset --hard", Auth, "git_discard_work"),
                ("git stash drop stash@{2}", Pass, ""),
                ("git stash drop", Auth, "git_discard_work"),
                ("git stash clear", Auth, "git_discard_work"),
                ("git gc --prune=now", Pass, ""),
                (
                    "git reflog expire --expire=now --all && git gc --prune=now",
                    Auth,
                    "git_discard_work",
                ),
                ("git reset --hard", Auth, "git_discard_work"),
                (
                    "git reset --hard origin/main && git clean -fd",
                    Auth,
                    "git_discard_work",
                ),
                (
                    "git reset --hard origin/main && git reflog expire --expire=now --all",
                    Auth,
                    "git_discard_work",
                ),
                ("git clean -n", Pass, ""),
                ("git restore --staged src/lib.rs", Pass, ""),
                ("git restore src/lib.rs", Pass, ""),
                ("git checkout -b feature/login", Pass, ""),
                ("git log --grep=\"force push\"", Pass, ""),
                ("git commit --amend --no-edit", Pass, ""),
            ],
        );
        table(
            Mode::Light,
            &[("git push --force origin main", Auth, "git_force_push")],
        );
    }
}
