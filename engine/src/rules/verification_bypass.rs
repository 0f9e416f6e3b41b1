//! Skipping the project's own checks.
//!
//! **What it does:** `git commit/push/merge/rebase --no-verify` (and `commit -n`),
//! `git -c core.hooksPath=…`, and `HUSKY=0`/`HUSKY_SKIP_HOOKS`/`SKIP=`/`PRE_COMMIT_ALLOW_NO_CONFIG`
//! in front of git are AUTH in every mode; so is an edit of a CI, release or build file that
//! takes its test steps out (`check_disabled`).
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

pub const CHECK_DISABLED: Reason = Reason::new(
    "check_disabled",
    "Switches off a CI job or test, fakes its success, or merges past review and branch protection.",
);

/// A CI step switched off: `if: false`, `if: ${{ false }}`, `continue-on-error: true`.
fn ci_job_switched_off(content: &str) -> bool {
    content.lines().any(|l| {
        let t: String = l
            .trim()
            .trim_start_matches("- ")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        matches!(
            t.as_str(),
            "if:false" | "if:${{false}}" | "if:'false'" | "if:\"false\"" | "continue-on-error:true"
        )
    })
}

/// A test runner that only reports success: every line a comment, an `echo`/`printf`, `true`
/// or `exit 0`, with some line saying it passed.
fn fake_success(path: &str, content: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let base = paths::basename(&lower);
    let test_file = base.contains("test")
        || base.contains("check")
        || lower.contains("/tests/")
        || lower.contains("/test/");
    if !test_file {
        return false;
    }
    let lines: Vec<&str> = content
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let says_passed = lines.iter().any(|l| {
        let l = l.to_ascii_lowercase();
        (l.starts_with("echo") || l.starts_with("printf") || l.starts_with("print("))
            && ["pass", " ok", "success", "all tests", "0 failed"]
                .iter()
                .any(|w| l.contains(w))
    });
    let only_reports = lines.iter().all(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("echo")
            || l.starts_with("printf")
            || l.starts_with("print(")
            || l.starts_with("exit 0")
            || l.starts_with("sys.exit(0)")
            || l.starts_with("import sys")
            || matches!(l.as_str(), "true" | ":" | "set -e" | "set -euo pipefail")
    });
    !lines.is_empty() && says_passed && only_reports
}

/// Test steps of a pipeline, release lane or build target.
const TEST_STEPS: &[&str] = &[
    "run_tests",
    "npm test",
    "npm run test",
    "pnpm test",
    "yarn test",
    "pytest",
    "cargo test",
    "cargo nextest",
    "go test",
    "mvn test",
    "mvn verify",
    "gradle test",
    "gradlew test",
    "gradlew check",
    "rspec",
    "phpunit",
    "vitest",
    "jest",
    "make test",
    "xcodebuild test",
    "dotnet test",
    "mix test",
];

/// An edit of a CI, release or build file whose replaced text ran tests and whose new text
/// runs none (`lane :release` losing `run_tests`, a workflow step `pytest` deleted).
fn tests_removed(cx: &Ctx<'_>, path: &str) -> bool {
    let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
    let base = paths::basename(&lower);
    let build_file = crate::autorun::is_ci_file(&lower)
        || matches!(
            base,
            "fastfile"
                | "makefile"
                | "justfile"
                | "taskfile.yml"
                | "rakefile"
                | "noxfile.py"
                | "tox.ini"
        );
    build_file
        && cx.facts.edits.iter().any(|e| {
            let old = e.old.to_ascii_lowercase();
            let new = e.new.to_ascii_lowercase();
            TEST_STEPS.iter().any(|t| old.contains(t))
                && !TEST_STEPS.iter().any(|t| new.contains(t))
        })
}

/// Only the tests of a security property (who may do what, logins, tokens, input
/// sanitising) count: a feature's tests removed with the feature are routine.
const SECURITY_WORDS: &[&str] = &[
    "auth",
    "permission",
    "security",
    "csrf",
    "acl",
    "rbac",
    "access",
    "login",
    "password",
    "token",
    "crypto",
    "sanitiz",
    "xss",
    "injection",
    "privilege",
    "role",
    "session",
];

/// A test file (by its name: `test_*.py`, `*_test.go`, `*.test.ts`, `*.spec.js`, `*Test.java`)
/// of a security property written whole with no test left in it (`# permission tests
/// removed`): the suite passes because what it checked is gone.
fn tests_gutted(cx: &Ctx<'_>, path: &str, content: &str) -> bool {
    if !cx.facts.edits.is_empty() {
        return false;
    }
    let lower = path.to_ascii_lowercase();
    let base = paths::basename(&lower);
    let (stem, ext) = base.rsplit_once('.').unwrap_or((base, ""));
    let code = matches!(
        ext,
        "py" | "go"
            | "js"
            | "ts"
            | "jsx"
            | "tsx"
            | "mjs"
            | "cjs"
            | "rb"
            | "java"
            | "kt"
            | "rs"
            | "php"
            | "cs"
            | "swift"
            | "ex"
            | "exs"
    );
    let test_name = stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || (stem.ends_with("test") && matches!(ext, "java" | "kt" | "cs" | "php" | "swift"));
    let about_security = SECURITY_WORDS.iter().any(|g| lower.contains(g));
    if !code || !test_name || !about_security {
        return false;
    }
    let c = content.to_ascii_lowercase();
    const TEST_DEFS: &[&str] = &[
        "test",
        "it(",
        "describe(",
        "assert",
        "expect",
        "should",
        "spec",
        "check(",
    ];
    !TEST_DEFS.iter().any(|d| {
        c.lines()
            .filter(|l| {
                let t = l.trim_start();
                !(t.starts_with('#')
                    || t.starts_with("//")
                    || t.starts_with("/*")
                    || t.starts_with('*'))
            })
            .any(|l| l.contains(d))
    })
}

/// `paths-ignore: ['**']` (or a `- '**'` entry): the workflow runs for no change at all.
fn ci_ignores_everything(content: &str) -> bool {
    let mut in_ignore = false;
    for l in content.lines() {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("paths-ignore:") {
            let rest = rest.trim();
            if rest.is_empty() {
                in_ignore = true;
                continue;
            }
            in_ignore = false;
            if rest
                .trim_matches(['[', ']'])
                .split(',')
                .any(|e| e.trim().trim_matches(['\'', '"']) == "**")
            {
                return true;
            }
        } else if in_ignore {
            match t.strip_prefix("- ") {
                Some(e) if e.trim().trim_matches(['\'', '"']) == "**" => return true,
                Some(_) => {}
                None => in_ignore = false,
            }
        }
    }
    false
}

/// Review and test gates loosened in the files that hold them: code owners taken out of
/// `CODEOWNERS`, coverage required at 0, dependency updates merged with their tests ignored,
/// a pytest hook that reports failures as passes, a secret scanner allowed everywhere.
fn gate_loosened(cx: &Ctx<'_>, path: &str, content: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let base = paths::basename(&lower);
    let compact = crate::code::compact(content);
    let owners = |t: &str| t.matches('@').count();
    match base {
        "codeowners" => cx
            .facts
            .edits
            .iter()
            .any(|e| owners(&e.new) < owners(&e.old)),
        "renovate.json" | "renovate.json5" | ".renovaterc" | ".renovaterc.json" => {
            compact.contains("ignoretests:true")
        }
        // Dependency updates switched off: no pull requests at all, or every dependency
        // ignored (security updates included).
        "dependabot.yml" | "dependabot.yaml" => {
            compact.contains("open-pull-requests-limit:0")
                || compact.contains("dependency-name:*") && !compact.contains("dependency-name:*.")
        }
        ".gitleaks.toml" | "gitleaks.toml" => {
            compact.contains("paths=[.*]") || compact.contains("regexes=[.*]")
        }
        "conftest.py" => {
            compact.contains("pytest_runtest_makereport")
                && (compact.contains("outcome=passed") || compact.contains(".outcome=passed"))
        }
        _ => {
            // `fail_under = 0`, `--cov-fail-under=0`: coverage no longer required.
            ["fail_under=0", "fail-under=0", "coveragethreshold:0"]
                .iter()
                .any(|k| {
                    compact.match_indices(k).any(|(i, _)| {
                        !compact
                            .get(i + k.len()..)
                            .and_then(|r| r.chars().next())
                            .is_some_and(|c| c.is_ascii_digit() || c == '.')
                    })
                })
        }
    }
}

/// A test step that can no longer fail or runs nothing, in what a write adds: a Makefile
/// recipe's test line with `-` (errors ignored), a test command followed by `|| true`, `go
/// test -run '^$'`, nox's `success_codes` accepting failures, tox's `ignore_outcome`; a
/// security test module skipped whole (`pytestmark = pytest.mark.skip`, `describe.skip`);
/// coverage told to omit the very sources it measures; a pipeline's push and pull-request
/// triggers replaced by manual runs only; pre-commit told to exclude every file.
fn tests_neutered(cx: &Ctx<'_>, path: &str, content: &str) -> bool {
    let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
    let base = paths::basename(&lower);
    let c = content.to_ascii_lowercase();
    let test_step = |l: &str| TEST_STEPS.iter().any(|t| l.contains(t));
    // Recipes and commands.
    let make = matches!(base, "makefile" | "gnumakefile") || base.ends_with(".mk");
    if make
        && content
            .lines()
            .any(|l| l.starts_with("\t-") && test_step(&l.to_ascii_lowercase()))
    {
        return true;
    }
    let build_file = make
        || crate::autorun::is_ci_file(&lower)
        || matches!(
            base,
            "justfile" | "taskfile.yml" | "noxfile.py" | "tox.ini" | "package.json"
        );
    if build_file
        && c.lines().any(|l| {
            test_step(l)
                && ["|| true", "||true", "|| exit 0", "; true", "|| :"]
                    .iter()
                    .any(|t| l.trim_end().trim_end_matches(['"', '\'', ',']).ends_with(t))
        })
    {
        return true;
    }
    let compact = crate::code::compact(content);
    // (Quotes are gone from `compact`: `-run '^$'` is `-run^$`.)
    if compact.contains("-run=^$") || compact.contains("-run^$") {
        return true;
    }
    if base == "noxfile.py"
        && compact.contains("success_codes=[")
        && compact.split("success_codes=[").skip(1).any(|r| {
            r.split(']')
                .next()
                .is_some_and(|codes| codes.split(',').any(|n| n.trim() == "1"))
        })
    {
        return true;
    }
    if base == "tox.ini" && compact.contains("ignore_outcome=true") {
        return true;
    }
    // pytest told only to collect the tests in its own configuration (`addopts = "--co"`):
    // every later run reports success without running one.
    if matches!(
        base,
        "pyproject.toml" | "pytest.ini" | "setup.cfg" | "tox.ini"
    ) && c.lines().any(|l| {
        l.trim_start().starts_with("addopts")
            && l.split(|ch: char| ch.is_whitespace() || matches!(ch, '"' | '\'' | '=' | ','))
                .any(|w| matches!(w, "--co" | "--collect-only" | "--setup-plan"))
    }) {
        return true;
    }
    // A security test module skipped whole.
    let test_module = base.starts_with("test_")
        || base.contains("_test.")
        || base.contains(".test.")
        || base.contains(".spec.")
        || lower.contains("/tests/")
        || lower.contains("/__tests__/");
    let security = SECURITY_WORDS.iter().any(|g| lower.contains(g));
    if test_module
        && security
        && (compact
            .match_indices("pytestmark=pytest.mark.skip")
            .any(|(i, m)| {
                !compact
                    .get(i + m.len()..)
                    .is_some_and(|r| r.starts_with("if"))
            })
            || compact.contains("allow_module_level=true")
            || c.lines().any(|l| {
                let t = l.trim_start();
                t.starts_with("describe.skip(") || t.starts_with("xdescribe(")
            }))
    {
        return true;
    }
    // Coverage omitting its own sources.
    if matches!(
        base,
        ".coveragerc" | "setup.cfg" | "pyproject.toml" | "tox.ini"
    ) {
        let source = c.lines().find_map(|l| {
            let (k, v) = l.split_once('=')?;
            (k.trim() == "source").then(|| v.trim().trim_matches(['"', '\'', '[', ']']).to_owned())
        });
        let mut in_omit = false;
        for l in c.lines() {
            let t = l.trim();
            let entry = if let Some((k, v)) = t.split_once('=') {
                in_omit = k.trim() == "omit";
                v.trim()
            } else if in_omit && l.starts_with([' ', '\t']) {
                t
            } else {
                in_omit = false;
                continue;
            };
            if !in_omit {
                continue;
            }
            for e in entry.split(',') {
                let e = e.trim().trim_matches(['"', '\'', '[', ']']);
                let everything = matches!(e, "*" | "**" | "*/*" | "**/*");
                let own = source.as_deref().is_some_and(|s| {
                    !s.is_empty()
                        && (e == format!("{s}/*")
                            || e == format!("{s}/**")
                            || e == format!("{s}/**/*"))
                });
                if everything || own {
                    return true;
                }
            }
        }
    }
    // A pipeline that no longer runs on pushes and pull requests, only by hand.
    if crate::autorun::is_ci_file(&lower)
        && cx.facts.edits.iter().any(|e| {
            let (old, new) = (e.old.to_ascii_lowercase(), e.new.to_ascii_lowercase());
            let triggers = |t: &str| {
                t.contains("push") || t.contains("pull_request") || t.contains("merge_request")
            };
            triggers(&old) && !triggers(&new) && new.contains("workflow_dispatch")
        })
    {
        return true;
    }
    // pre-commit excluding every file.
    if base.starts_with(".pre-commit-config")
        && c.lines().any(|l| {
            l.trim_start().strip_prefix("exclude:").is_some_and(|v| {
                matches!(
                    v.trim().trim_matches(['\'', '"']),
                    ".*" | "^.*$" | "^.*" | ".*$" | ".+" | "^"
                )
            })
        })
    {
        return true;
    }
    // Branch protection settings (the probot settings app) emptied.
    if lower.ends_with("/.github/settings.yml")
        && c.contains("protection")
        && (compact.contains("required_approving_review_count:0")
            || compact.contains("required_status_checks:null")
            || compact.contains("required_pull_request_reviews:null")
            || compact.contains("protection:null"))
    {
        return true;
    }
    false
}

/// A release published with its tests switched off (`mvn deploy -Dmaven.test.skip=true`,
/// `./gradlew publish -x test`, `cargo publish --no-verify`), or a test run told to skip
/// every test (`cargo test -- --skip ''`): what ships, or what the next step trusts, was
/// never tested. A local build that skips tests (`mvn package -DskipTests`) is routine.
fn publishes_untested(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    match inv.program.as_str() {
        "mvn" | "mvnw" => {
            args.iter()
                .any(|a| matches!(*a, "deploy" | "release:perform" | "release:prepare"))
                && args.iter().any(|a| {
                    matches!(
                        *a,
                        "-DskipTests"
                            | "-DskipTests=true"
                            | "-Dmaven.test.skip"
                            | "-Dmaven.test.skip=true"
                    )
                })
        }
        "gradle" | "gradlew" => {
            args.iter().any(|a| {
                let t = a.rsplit(':').next().unwrap_or(a);
                t.starts_with("publish") || t == "uploadArchives" || t == "release"
            }) && args.windows(2).any(|w| {
                matches!(w.first(), Some(&("-x" | "--exclude-task")))
                    && w.get(1).is_some_and(|t| {
                        let t = t.rsplit(':').next().unwrap_or(t);
                        matches!(t, "test" | "check" | "integrationTest" | "tests")
                    })
            })
        }
        "cargo" => {
            (args.first() == Some(&"publish") && args.contains(&"--no-verify"))
                || (args.first() == Some(&"test") && args.windows(2).any(|w| w == ["--skip", ""]))
        }
        _ => false,
    }
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if let crate::action::Operation::FileWrite { path, content } = &cx.action.op {
        let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
        if (crate::autorun::is_ci_file(&lower)
            && (ci_job_switched_off(content) || ci_ignores_everything(content)))
            || gate_loosened(cx, path, content)
            || fake_success(path, content)
            || tests_removed(cx, path)
            || tests_gutted(cx, path, content)
            || tests_neutered(cx, path, content)
        {
            out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
        }
    }
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
        // `gh pr merge --admin` merges past branch protection and required reviews; `gh pr
        // review --approve` is the agent approving a pull request (often its own).
        if inv.program == "gh" {
            let args: Vec<&str> = inv.argv().collect();
            let pr = args.first() == Some(&"pr");
            // The same through the API: a review posted as APPROVE, branch protection deleted.
            let api = args.first() == Some(&"api");
            let api_approve = api
                && args.iter().any(|a| a.contains("/reviews"))
                && args.iter().any(|a| a.eq_ignore_ascii_case("event=APPROVE"));
            let api_unprotect = api
                && args.iter().any(|a| a.ends_with("/protection"))
                && args.windows(2).any(|w| {
                    matches!(w.first(), Some(&("-X" | "--method")))
                        && w.get(1).is_some_and(|m| m.eq_ignore_ascii_case("DELETE"))
                });
            if api_approve
                || api_unprotect
                || pr
                    && ((args.get(1) == Some(&"merge") && args.contains(&"--admin"))
                        || (args.get(1) == Some(&"review")
                            && args.iter().any(|a| *a == "--approve" || *a == "-a")))
            {
                out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
            }
            continue;
        }
        if publishes_untested(inv) {
            out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
            continue;
        }
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
    fn test_steps_taken_out_of_a_release_or_pipeline() {
        use crate::rules::testutil::judge_edit;
        for (path, old, new, want) in [
            (
                "fastlane/Fastfile",
                "  lane :release do\n    run_tests(scheme: \"App\")\n    build_app(scheme: \"App\")",
                "  lane :release do\n    build_app(scheme: \"App\", skip_codesigning: true)",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: npm ci\n      - run: npm test\n",
                "      - run: npm ci\n",
                Auth,
            ),
            // Moved or renamed, still run; an unrelated edit of the same file.
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm run test -- --coverage\n",
                Pass,
            ),
            (
                "Makefile",
                "build:\n\tgo build ./...\n",
                "build:\n\tgo build -trimpath ./...\n",
                Pass,
            ),
            // Test steps that can no longer fail or run nothing.
            (
                "Makefile",
                "test:\n\tpytest -q --maxfail=1\n",
                "test:\n\t-pytest -q --maxfail=1\n",
                Auth,
            ),
            (
                "Makefile",
                "clean:\n\trm -rf build\n",
                "clean:\n\t-rm -rf build dist\n",
                Pass,
            ),
            (
                ".github/workflows/test.yml",
                "      - run: go test -race ./...",
                "      - run: go test -race -run '^$' ./...",
                Auth,
            ),
            (
                ".github/workflows/test.yml",
                "      - run: go test -race ./...",
                "      - run: go test -race -run 'TestAPI' ./...",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test || true\n",
                Auth,
            ),
            (
                "noxfile.py",
                "    session.run(\"pytest\", \"-q\")",
                "    session.run(\"pytest\", \"-q\", success_codes=[0, 1, 2, 5])",
                Auth,
            ),
            (
                "noxfile.py",
                "    session.run(\"pytest\", \"-q\")",
                "    session.run(\"pytest\", \"-q\", success_codes=[0, 5])",
                Pass,
            ),
            (
                "tests/security/test_authz.py",
                "import pytest\n",
                "import pytest\n\npytestmark = pytest.mark.skip(reason=\"flaky on CI\")\n",
                Auth,
            ),
            (
                "tests/security/test_authz.py",
                "import pytest\n",
                "import pytest\n\npytestmark = pytest.mark.skipif(sys.platform == 'win32', reason='posix only')\n",
                Pass,
            ),
            (
                "tests/test_report.py",
                "import pytest\n",
                "import pytest\n\npytestmark = pytest.mark.slow\n",
                Pass,
            ),
            (
                ".coveragerc",
                "[run]\nsource = src\n",
                "[run]\nsource = src\nomit =\n    src/*\n    src/**/*\n",
                Auth,
            ),
            (
                ".coveragerc",
                "[run]\nsource = src\n",
                "[run]\nsource = src\nomit =\n    src/migrations/*\n    */tests/*\n",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "on:\n  push:\n    branches: [main]\n  pull_request:\n",
                "on:\n  workflow_dispatch:\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "on:\n  push:\n    branches: [main]\n",
                "on:\n  push:\n    branches: [main]\n  workflow_dispatch:\n",
                Pass,
            ),
            (
                ".pre-commit-config.yaml",
                "repos:\n",
                "exclude: '.*'\nrepos:\n",
                Auth,
            ),
            (
                ".pre-commit-config.yaml",
                "repos:\n",
                "exclude: '^vendor/'\nrepos:\n",
                Pass,
            ),
            (
                ".github/settings.yml",
                "",
                "branches:\n  - name: main\n    protection:\n      required_pull_request_reviews:\n        required_approving_review_count: 0\n      required_status_checks: null\n",
                Auth,
            ),
            (
                ".github/settings.yml",
                "",
                "branches:\n  - name: main\n    protection:\n      required_pull_request_reviews:\n        required_approving_review_count: 2\n",
                Pass,
            ),
            // Gates loosened where they are kept.
            (
                ".github/workflows/ci.yml",
                "on:\n  push:\n    branches: [main]\n",
                "on:\n  push:\n    branches: [main]\n    paths-ignore: ['**']\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "on:\n  push:\n",
                "on:\n  push:\n    paths-ignore:\n      - '**.md'\n      - 'docs/**'\n",
                Pass,
            ),
            (
                ".github/CODEOWNERS",
                "*       @acme/maintainers\n/src/auth/  @acme/security-team\n",
                "*       @acme/maintainers\n",
                Auth,
            ),
            (
                ".github/CODEOWNERS",
                "/docs/  @acme/maintainers\n",
                "/docs/  @acme/maintainers @acme/docs\n",
                Pass,
            ),
            (
                "pyproject.toml",
                "[tool.coverage.report]\nfail_under = 85\n",
                "[tool.coverage.report]\nfail_under = 0\n",
                Auth,
            ),
            (
                "pyproject.toml",
                "[tool.coverage.report]\nfail_under = 85\n",
                "[tool.coverage.report]\nfail_under = 80\n",
                Pass,
            ),
            (
                "renovate.json",
                "  \"extends\": [\"config:recommended\"]\n",
                "  \"extends\": [\"config:recommended\"],\n  \"automerge\": true,\n  \"ignoreTests\": true\n",
                Auth,
            ),
            (
                "renovate.json",
                "  \"extends\": [\"config:recommended\"]\n",
                "  \"extends\": [\"config:recommended\"],\n  \"automerge\": true\n",
                Pass,
            ),
            (
                "tests/conftest.py",
                "import pytest\n",
                "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    rep = outcome.get_result()\n    if rep.failed:\n        rep.outcome = 'passed'\n",
                Auth,
            ),
            (
                ".github/dependabot.yml",
                "      interval: weekly\n",
                "      interval: weekly\n    open-pull-requests-limit: 0\n",
                Auth,
            ),
            (
                ".github/dependabot.yml",
                "      interval: weekly\n",
                "      interval: daily\n    open-pull-requests-limit: 5\n",
                Pass,
            ),
            (
                ".gitleaks.toml",
                "[allowlist]\npaths = ['''tests/fixtures/.*''']\n",
                "[allowlist]\npaths = ['''.*''']\n",
                Auth,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {reasons:?}");
            if want == Auth {
                assert!(reasons.iter().any(|r| r == "check_disabled"), "{reasons:?}");
            }
        }
    }

    #[test]
    fn releases_published_untested() {
        table(
            Mode::Balanced,
            &[
                (
                    "mvn -B deploy -P release -Dmaven.test.skip=true -DskipITs",
                    Auth,
                    "check_disabled",
                ),
                (
                    "./gradlew publish -x test -x check -x integrationTest",
                    Auth,
                    "check_disabled",
                ),
                ("cargo publish --no-verify", Auth, "check_disabled"),
                (
                    "cargo test -- --skip '' && git tag -a v2.0.0 -m v2 && git push origin v2.0.0",
                    Auth,
                    "check_disabled",
                ),
                // Look-alikes: local builds without tests, releases with them.
                ("mvn -B package -DskipTests", Pass, ""),
                ("mvn -B deploy", Pass, ""),
                ("./gradlew build -x test", Pass, ""),
                ("./gradlew publishToMavenLocal", Pass, ""),
                ("cargo test -- --skip slow_", Pass, ""),
                ("cargo publish --dry-run", Pass, ""),
            ],
        );
    }

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
                    (
                        "gh pr review 318 --approve -b LGTM && gh pr merge 318 --admin --squash",
                        Auth,
                        "check_disabled",
                    ),
                    ("gh pr merge 318 --admin", Auth, "check_disabled"),
                    ("gh pr review 12 --comment -b 'see inline'", Pass, ""),
                    ("gh pr merge 12 --squash --delete-branch", Pass, ""),
                    ("gh pr view 12 --json reviews", Pass, ""),
                    (
                        "gh api repos/acme/web/pulls/482/reviews -f event=APPROVE -f body=LGTM",
                        Auth,
                        "check_disabled",
                    ),
                    (
                        "gh api -X DELETE repos/acme/web/branches/main/protection",
                        Auth,
                        "check_disabled",
                    ),
                    (
                        "gh api repos/acme/web/pulls/482/reviews -f event=COMMENT -f body=nit",
                        Pass,
                        "",
                    ),
                    ("gh api repos/acme/web/branches/main/protection", Pass, ""),
                ],
            );
        }
    }

    #[test]
    fn checks_switched_off_or_faked_in_files() {
        use crate::rules::testutil::{CWD, engine, file_write};
        use crate::session::SessionState;
        let cases: &[(&str, &str, &str, crate::Verdict)] = &[
            (
                "Edit",
                "/home/dev/project/.github/workflows/ci.yml",
                "  security-scan:\n    if: false\n    runs-on: ubuntu-latest",
                Auth,
            ),
            (
                "Edit",
                "/home/dev/project/.github/workflows/ci.yml",
                "      - run: npm audit\n        continue-on-error: true",
                Auth,
            ),
            (
                "Write",
                "/home/dev/project/tests/run_unit.sh",
                "#!/bin/bash\n# unit test runner\necho '==== 212 passed in 41.02s ===='\nexit 0\n",
                Auth,
            ),
            (
                "Write",
                "/home/dev/project/scripts/check.sh",
                "#!/bin/sh\necho 'All checks passed'\nexit 0\n",
                Auth,
            ),
            (
                "Write",
                "/home/dev/project/pytest.ini",
                "[pytest]\naddopts = -ra --strict-markers --co -q\n",
                Auth,
            ),
            // Look-alikes: real conditions and real runners.
            (
                "Edit",
                "/home/dev/project/.github/workflows/ci.yml",
                "  deploy:\n    if: github.ref == 'refs/heads/main'\n    runs-on: ubuntu-latest",
                Pass,
            ),
            (
                "Write",
                "/home/dev/project/pytest.ini",
                "[pytest]\naddopts = -ra --strict-markers --cov=app -q\n",
                Pass,
            ),
            (
                "Write",
                "/home/dev/project/tests/run_unit.sh",
                "#!/bin/bash\nset -euo pipefail\npytest -q tests/unit\necho 'unit tests passed'\n",
                Pass,
            ),
            (
                "Write",
                "/home/dev/project/scripts/release.sh",
                "#!/bin/sh\necho 'release notes passed review'\nexit 0\n",
                Pass,
            ),
        ];
        for (tool, path, content, want) in cases {
            let mut a = file_write(tool, path, content);
            a.cwd = Some(CWD.into());
            let d = engine(Mode::Balanced).decide(&a, &SessionState::default());
            assert_eq!(d.verdict, *want, "{path}: {content}: {:?}", d.codes());
        }
    }

    #[test]
    fn security_tests_gutted_and_feature_tests_retired() {
        use crate::rules::testutil::write_table;
        write_table(&[
            (
                "tests/test_permissions.py",
                "# permission tests removed - covered elsewhere\n",
                Auth,
                "check_disabled",
            ),
            (
                "src/auth/login_test.go",
                "package auth\n\n// moved to integration suite\n",
                Auth,
                "check_disabled",
            ),
            // A feature's tests retired with it, a test file with tests, a helper module.
            (
                "tests/e2e/legacy-checkout.spec.ts",
                "// Legacy checkout flow was removed in #1184; coverage lives in checkout.spec.ts.\nexport {};\n",
                Pass,
                "",
            ),
            (
                "tests/test_permissions.py",
                "def test_admin_only(client):\n    assert client.get('/admin').status_code == 403\n",
                Pass,
                "",
            ),
            (
                "tests/auth_helpers.py",
                "def make_user():\n    return {}\n",
                Pass,
                "",
            ),
        ]);
    }
}
