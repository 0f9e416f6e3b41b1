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
        // (A trailing comment does not change the value: `if: false  # TODO re-enable`.)
        let l = match l.find(" #") {
            Some(i) => l.get(..i).unwrap_or(l),
            None => l,
        };
        let t: String = l
            .trim()
            .trim_start_matches("- ")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        matches!(
            t.as_str(),
            "if:false"
                | "if:${{false}}"
                | "if:'false'"
                | "if:\"false\""
                | "continue-on-error:true"
                // Azure Pipelines' spelling.
                | "condition:false"
                | "condition:'false'"
                | "continueonerror:true"
        ) || t.contains("catcherror(buildresult:'success'")
            || t.contains("catcherror(buildresult:\"success\"")
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

/// A manifest's test script that only reports success: `"test": "echo ok"`, `"test:ci":
/// "exit 0"`, `"test": "true"` in `package.json`, `composer.json` or `deno.json` (every
/// `npm test` after it passes without running one). npm's own placeholder (`echo "Error: no
/// test specified" && exit 1`) fails, and is not one.
fn noop_test_script(path: &str, content: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let base = paths::basename(&lower);
    if !matches!(
        base,
        "package.json" | "composer.json" | "deno.json" | "deno.jsonc"
    ) {
        return false;
    }
    content.lines().take(4096).any(|l| {
        let Some(rest) = l.trim().strip_prefix('"') else {
            return false;
        };
        let Some((key, after)) = rest.split_once('"') else {
            return false;
        };
        let key = key.to_ascii_lowercase();
        let test_key = key == "test"
            || key.starts_with("test:")
            || key.starts_with("test-")
            || matches!(key.as_str(), "ci" | "check" | "verify");
        let Some(value) = after.trim_start().strip_prefix(':') else {
            return false;
        };
        let v = value
            .trim()
            .trim_end_matches(',')
            .trim()
            .trim_matches('"')
            .replace("\\\"", "\"")
            .trim()
            .to_ascii_lowercase();
        let only_reports = v.starts_with("echo ") && !v.contains(['&', '|', ';', '`', '$'])
            || v.starts_with("echo ") && v.ends_with("&& exit 0");
        test_key
            && (only_reports
                || matches!(
                    v.as_str(),
                    "" | "true" | ":" | "exit 0" | "node -e ''" | "node -e \"\""
                ))
    })
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

/// A CODEOWNERS file that no longer names owners for a path it did (`/app/auth/
/// @acme/security` dropped): changes there merge without that team's review. Judged on a
/// whole write against the text there before, and on an edit by the lines it takes away.
/// Owners changed for a path, or paths added, are not counted.
fn code_owners_dropped(cx: &Ctx<'_>, path: &str, content: &str) -> bool {
    let abs = paths::normalize(path, cx.cwd(), cx.home());
    if paths::basename(&abs) != "CODEOWNERS" {
        return false;
    }
    let patterns = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect()
    };
    let (before, after) = if cx.facts.edits.is_empty() {
        let Some(before) = crate::needs::text_before(cx.facts, cx.session, &abs) else {
            return false;
        };
        (patterns(before), patterns(content))
    } else {
        (
            patterns(&joined_edits(cx, |e| &e.old)),
            patterns(&joined_edits(cx, |e| &e.new)),
        )
    };
    before.iter().any(|p| !after.contains(p))
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
    "jwt",
    "oauth",
    "mfa",
    "totp",
    "saml",
    "signature",
    "encrypt",
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

/// An edit in a test file that takes every assertion out of a hunk about a security
/// property (`def assert_forbidden(resp): assert resp.status_code == 403` → `return resp`,
/// an `expect(…).toBe(401)` gone): the helper and its tests still pass, checking nothing.
fn assertions_emptied(cx: &Ctx<'_>, path: &str) -> bool {
    let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
    let test_file = lower.contains("/tests/")
        || lower.contains("/test/")
        || lower.contains("/spec/")
        || lower.contains("__tests__")
        || {
            let base = paths::basename(&lower);
            let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
            stem.starts_with("test_")
                || stem.ends_with("_test")
                || stem.ends_with(".test")
                || stem.ends_with(".spec")
                || stem.ends_with("_spec")
        };
    if !test_file {
        return false;
    }
    const ASSERTS: &[&str] = &[
        "assert", "expect(", "should", "t.error", "t.fatal", "require.", "raise ", "throw ",
        "fail(",
    ];
    let has_assert = |t: &str| {
        let t = t.to_ascii_lowercase();
        t.lines()
            .filter(|l| {
                let l = l.trim_start();
                // Comments, and the helper's own definition line (`def assert_forbidden(…)`).
                !l.starts_with('#')
                    && !l.starts_with("//")
                    && ![
                        "def ",
                        "async def ",
                        "function ",
                        "fn ",
                        "func ",
                        "export function ",
                    ]
                    .iter()
                    .any(|d| l.starts_with(d))
            })
            .any(|l| ASSERTS.iter().any(|a| l.contains(a)))
    };
    let security = |t: &str| {
        let t = t.to_ascii_lowercase();
        SECURITY_WORDS.iter().any(|w| t.contains(w))
            || [
                "forbidden",
                "unauthori",
                "403",
                "401",
                "denied",
                "csp",
                "signature",
            ]
            .iter()
            .any(|w| t.contains(w))
    };
    cx.facts.edits.iter().any(|e| {
        has_assert(&e.old)
            && !has_assert(&e.new)
            && !e.new.trim().is_empty()
            && (security(&e.old) || security(&lower))
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
        // Source files marked generated or without a diff: their changes disappear from
        // review (`src/payments/** linguist-generated=true -diff`).
        ".gitattributes" => content.lines().any(|l| {
            let mut words = l.split_whitespace();
            let pattern = words.next().unwrap_or("");
            let hides = words.any(|a| {
                a == "-diff" || a == "linguist-generated=true" || a == "linguist-generated"
            });
            let p = pattern.to_ascii_lowercase();
            let source = p.ends_with("/**")
                || p.ends_with("/*")
                || [
                    ".ts", ".js", ".py", ".go", ".rb", ".rs", ".java", ".kt", ".cs", ".php",
                    ".swift",
                ]
                .iter()
                .any(|e| p.ends_with(e));
            let generated = super::bulk_delete::ARTIFACT_DIRS
                .iter()
                .any(|d| p.split('/').any(|seg| seg == *d))
                || ["generated", "vendor", "gen/", ".pb.", "_pb2", ".min."]
                    .iter()
                    .any(|g| p.contains(g));
            hides && source && !generated && !p.starts_with('#')
        }),
        // Type checking switched off for security code (`[mypy-app.auth.*]` with
        // `ignore_errors = True`).
        "mypy.ini" | ".mypy.ini" | "setup.cfg" => {
            let mut section = String::new();
            content.lines().any(|l| {
                let t = l.trim().to_ascii_lowercase();
                if t.starts_with('[') {
                    section = t;
                    return false;
                }
                let c: String = t.chars().filter(|c| !c.is_whitespace()).collect();
                c == "ignore_errors=true" && SECURITY_WORDS.iter().any(|w| section.contains(w))
            })
        }
        // Codecov's status checks required at 0 %, or made informational (never failing).
        "codecov.yml" | ".codecov.yml" | "codecov.yaml" => {
            zero_setting(&compact, &["target:0%", "target:0", "threshold:100%"])
                || compact.contains("informational:true")
        }
        _ => {
            // `fail_under = 0`, `--cov-fail-under=0`: coverage no longer required; a test
            // runner's coverage thresholds set to 0 (`coverageThreshold: { global: {
            // lines: 0 } }` in a Jest or Vitest config, `.nycrc`).
            let coverage_config = [
                "jest.config",
                "vitest.config",
                "vite.config",
                ".nycrc",
                ".c8rc",
            ]
            .iter()
            .any(|c| base.starts_with(c))
                && (compact.contains("coveragethreshold") || compact.contains("thresholds"));
            zero_setting(
                &compact,
                &["fail_under=0", "fail-under=0", "coveragethreshold:0"],
            ) || coverage_config
                && zero_setting(
                    &compact,
                    &["lines:0", "branches:0", "functions:0", "statements:0"],
                )
        }
    }
}

/// `compact` sets one of `keys` to exactly the value it ends with (`lines:0`, not
/// `lines:05` or `lines:0.5`).
fn zero_setting(compact: &str, keys: &[&str]) -> bool {
    keys.iter().any(|k| {
        compact.match_indices(k).any(|(i, _)| {
            let before_ok = i == 0
                || !compact
                    .get(..i)
                    .and_then(|b| b.chars().last())
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            before_ok
                && !compact
                    .get(i + k.len()..)
                    .and_then(|r| r.chars().next())
                    .is_some_and(|c| c.is_ascii_digit() || c == '.')
        })
    })
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

/// Signature and checksum verifiers: their failure is the check.
const VERIFIERS: &[&str] = &[
    "cosign verify",
    "gpg --verify",
    "gpgv ",
    "sha256sum -c",
    "sha256sum --check",
    "sha512sum -c",
    "sha1sum -c",
    "shasum -c",
    "shasum --check",
    "md5sum -c",
    "minisign -v",
    "slsa-verifier",
    "notation verify",
    "gh attestation verify",
    "npm audit signatures",
    "git verify-commit",
    "git verify-tag",
    "rpm --checksig",
    "signtool verify",
];

/// Options that make a scanner fail on what it finds (`semgrep --error`, `trivy --exit-code
/// 1`, `grype --fail-on high`); `semgrep ci` fails on its own.
const FAIL_SWITCHES: &[&str] = &[
    "--error",
    "--exit-code 1",
    "--exit-code=1",
    "--fail-on",
    "--fail-level",
    "--severity-threshold",
    "--audit-level",
    "semgrep ci",
];

/// Does a line, after its checker, go on whatever the checker said (`|| true`, `|| echo
/// warn`, `|| :`, `; true`, `|| exit 0`)? A fallback that still fails (`|| exit 1`, `|| {
/// echo …; exit 1; }`, `|| false`, `|| die …`) keeps the check.
fn goes_on_regardless(line: &str) -> bool {
    let l = line.trim().trim_end_matches(['"', '\'', ',']).trim();
    if l.ends_with("; true") || l.ends_with(";true") {
        return true;
    }
    let Some((_, tail)) = l.split_once("||") else {
        return false;
    };
    let fails = tail
        .split([';', '&', '|', '\n'])
        .map(|c| c.trim().trim_start_matches(['{', '(']).trim())
        .any(|c| {
            let mut w = c.split_whitespace();
            match w.next() {
                Some("exit" | "return") => w.next().is_none_or(|n| n != "0"),
                Some(first) => matches!(
                    first,
                    "false" | "die" | "fail" | "abort" | "panic" | "throw" | "error"
                ),
                None => false,
            }
        });
    !fails
}

/// The (replaced, replacing) texts of a write: each edit's sides, or the whole file as
/// shown before against the new content.
pub(crate) fn before_after<'a>(
    cx: &'a Ctx<'_>,
    path: &str,
    content: &'a str,
) -> Vec<(&'a str, &'a str)> {
    if !cx.facts.edits.is_empty() {
        return cx
            .facts
            .edits
            .iter()
            .map(|e| (e.old.as_str(), e.new.as_str()))
            .collect();
    }
    let abs = paths::normalize(path, cx.cwd(), cx.home());
    match crate::needs::text_before(cx.facts, cx.session, &abs) {
        Some(old) => vec![(old, content)],
        None => Vec::new(),
    }
}

/// A check made non-fatal by a write: a line that ran a test suite, a signature or checksum
/// verifier or a security scanner so that its failure stopped the script, pipeline or
/// recipe now goes on regardless (`cosign verify … || echo warn`, `pytest || true`), or the
/// scanner lost the option that made it fail on findings (`semgrep ci --error` → `semgrep
/// --config …`, `trivy --exit-code 1` dropped). Only what the file did before counts: a new
/// script that tolerates a failing tool is not a loosened gate.
fn check_made_nonfatal(cx: &Ctx<'_>, path: &str, content: &str) -> bool {
    let checkers = || VERIFIERS.iter().chain(SCANNERS).chain(TEST_STEPS).copied();
    for (old, new) in before_after(cx, path, content) {
        let old = old.to_ascii_lowercase();
        let new = new.to_ascii_lowercase();
        for c in checkers() {
            let olds: Vec<&str> = old.lines().filter(|l| l.contains(c)).collect();
            let news: Vec<&str> = new.lines().filter(|l| l.contains(c)).collect();
            if olds.is_empty() || news.is_empty() {
                continue;
            }
            if olds.iter().any(|l| !goes_on_regardless(l))
                && news.iter().all(|l| goes_on_regardless(l))
            {
                return true;
            }
            if SCANNERS.contains(&c) {
                let switched = |l: &&str| FAIL_SWITCHES.iter().any(|f| l.contains(f));
                if olds.iter().any(switched) && !news.iter().any(switched) {
                    return true;
                }
            }
        }
    }
    false
}

/// Lines a write adds: for an edit, the new text's lines that the replaced text did not
/// have; for a whole-file write, every line.
pub(crate) fn added_lines(cx: &Ctx<'_>, content: &str) -> Vec<String> {
    if cx.facts.edits.is_empty() {
        return content.lines().map(str::to_owned).collect();
    }
    let mut out = Vec::new();
    for e in &cx.facts.edits {
        // (A set: a large edit against a large original stays linear.)
        let old: std::collections::HashSet<&str> = e.old.lines().map(str::trim).collect();
        out.extend(
            e.new
                .lines()
                .filter(|l| !old.contains(&l.trim()))
                .map(str::to_owned),
        );
    }
    out
}

/// Security scanners and the hooks that run them.
const SCANNERS: &[&str] = &[
    "gitleaks",
    "detect-secrets",
    "trufflehog",
    "semgrep",
    "bandit",
    "trivy",
    "snyk",
    "codeql",
    "grype",
    "checkov",
    "tfsec",
    "gosec",
    "safety",
    "pip-audit",
    "npm audit",
    "osv-scanner",
    "talisman",
    "ggshield",
];

/// Does a test filter or ignore entry aim at security tests or at the sources themselves
/// (`Category!=Security`, `/src/auth/`, `tests/security/*`)? Build output, dependencies and
/// fixtures are routine to ignore.
fn aims_at_checks(entry: &str) -> bool {
    let e = entry.to_ascii_lowercase();
    let routine = [
        "node_modules",
        "dist",
        "build",
        "coverage",
        "fixtures",
        "__snapshots__",
        "vendor",
        ".venv",
        "e2e",
        "generated",
        "migrations",
    ]
    .iter()
    .any(|r| e.contains(r));
    !routine
        && (SECURITY_WORDS.iter().any(|w| e.contains(w))
            || e.contains("/src/")
            || e.starts_with("src/")
            || e.contains("payment"))
}

/// Checks narrowed so that what matters is no longer run, in what a write adds:
/// - a test file switched off for the compiler (`//go:build ignore` in a `_test.go`,
///   `#[cfg(any())]` over a Rust `mod tests`);
/// - test discovery told to skip security tests or sources (pytest's `collect_ignore`,
///   Jest's `testPathIgnorePatterns`, `--filter "Category!=Security"`, `-k "not auth"`), or
///   `testpaths` narrowed to a subfolder of what it was;
/// - an assertion of a refusal (401/403) loosened to accept a success;
/// - a pipeline that runs its tests only for documentation changes or only on a schedule, or
///   a scanner step that can no longer fail (`exit-code: '0'`, `soft_fail`, `allow_failure`);
/// - a scanner's ignore file that ignores everything, a scanner hook moved to manual runs;
/// - a git hook whose test step runs only in CI.
fn checks_narrowed(cx: &Ctx<'_>, path: &str, content: &str) -> bool {
    let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
    let base = paths::basename(&lower);
    let added = added_lines(cx, content);
    let added_lower: Vec<String> = added.iter().map(|l| l.to_ascii_lowercase()).collect();
    let adds = |f: &dyn Fn(&str) -> bool| added_lower.iter().any(|l| f(l));
    let compact_added: Vec<String> = added_lower
        .iter()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect())
        .collect();
    let test_file = base.ends_with("_test.go")
        || base.starts_with("test_")
        || base.contains(".test.")
        || base.contains(".spec.")
        || lower.contains("/tests/")
        || lower.contains("/test/")
        || lower.contains("/__tests__/");
    let security_word = |l: &str| {
        SECURITY_WORDS.iter().any(|w| l.contains(w))
            || ["codeql", "sast", "cwe", "vuln"]
                .iter()
                .any(|w| l.contains(w))
    };
    // Runner options that leave security-tagged tests out: RSpec's `--tag ~security` in
    // `.rspec`, PHPUnit's `<exclude><group>security</group>`, CodeQL's query filters
    // excluding security queries, a test project marked as not one (`IsTestProject`
    // false).
    if matches!(base, ".rspec" | ".rspec-local")
        && adds(&|l| l.trim_start().starts_with("--tag ~") && security_word(l))
    {
        return true;
    }
    if base.starts_with("phpunit")
        && (base.ends_with(".xml") || base.ends_with(".xml.dist"))
        && adds(&|l| l.contains("<group>") && security_word(l))
        && (content.to_ascii_lowercase().contains("<exclude>"))
    {
        return true;
    }
    if lower.contains("codeql")
        && (base.ends_with(".yml") || base.ends_with(".yaml"))
        && added_lower
            .iter()
            .any(|l| l.contains("query-filters") || l.contains("exclude"))
        && adds(&|l| security_word(l) || l.contains("problem.severity") || l.contains("precision"))
    {
        return true;
    }
    if (base.ends_with(".csproj") || base.ends_with(".props"))
        && compact_added
            .iter()
            .any(|l| l.contains("<istestproject>false</istestproject>"))
    {
        return true;
    }
    // A deploy job no longer waiting for the tests (`needs: [test, e2e]` taken out).
    if crate::autorun::is_ci_file(&lower)
        && cx.facts.edits.iter().any(|e| {
            let old = e.old.to_ascii_lowercase();
            let new = e.new.to_ascii_lowercase();
            let needs_tests = |t: &str| {
                t.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with("needs:")
                        && TEST_STEPS
                            .iter()
                            .chain(["test", "e2e", "security", "scan"].iter())
                            .any(|w| l.contains(w))
                })
            };
            (old.contains("deploy") || old.contains("release") || old.contains("publish"))
                && needs_tests(&old)
                && !needs_tests(&new)
                && !new.trim().is_empty()
        })
    {
        return true;
    }
    // Compiled out: a build constraint no build sets (`//go:build ignore`, `never`).
    if base.ends_with("_test.go")
        && compact_added.iter().any(|l| {
            l.strip_prefix("//go:build")
                .or_else(|| l.strip_prefix("//+build"))
                .is_some_and(|t| {
                    matches!(
                        t,
                        "ignore"
                            | "never"
                            | "skip"
                            | "disabled"
                            | "none"
                            | "exclude"
                            | "off"
                            | "false"
                    )
                })
        })
    {
        return true;
    }
    // A Python test module told not to be collected (`__test__ = False`).
    if test_file
        && base.ends_with(".py")
        && compact_added
            .iter()
            .any(|l| l.starts_with("__test__=false"))
    {
        return true;
    }
    // RSpec told to list its examples without running them; Maven and Gradle told to ignore
    // failing tests or skip them; Bandit told to scan nothing.
    if (base == ".rspec" && adds(&|l| l.trim() == "--dry-run"))
        || (base == "pom.xml"
            && compact_added.iter().any(|l| {
                l.contains("<testfailureignore>true")
                    || l.contains("<skiptests>true")
                    || l.contains("<maven.test.skip>true")
            }))
        || ((base.ends_with(".gradle") || base.ends_with(".gradle.kts"))
            && compact_added.iter().any(|l| {
                l == "ignorefailures=true"
                    || l == "ignorefailures(true)"
                    // A test task switched off (not `tasks.jar { enabled = false }`).
                    || l == "enabled=false"
                        && cx
                            .facts
                            .edits
                            .iter()
                            .any(|e| e.old.to_ascii_lowercase().contains("test"))
            }))
        || (base == ".bandit"
            && compact_added
                .iter()
                .any(|l| matches!(l.as_str(), "exclude=./" | "exclude=." | "exclude=*")))
    {
        return true;
    }
    if base.ends_with(".rs")
        && compact_added.iter().any(|l| {
            matches!(
                l.as_str(),
                "#[cfg(any())]" | "#[cfg(all())]" | "#[cfg(false)]" | "#[cfg(not(test))]"
            ) || l.starts_with("#[cfg(all(test,any()))]")
        })
        && content.contains("mod tests")
    {
        return true;
    }
    // Discovery told to skip security tests or the sources.
    let ignore_keys = [
        "collect_ignore",
        "testpathignorepatterns",
        "modulepathignorepatterns",
        "--ignore",
        "--deselect",
        "testignore",
    ];
    // The keys and markers below are looked for in the whole added text first (one pass
    // each), and line by line only where one occurs: a large write stays linear.
    let joined = added_lower.join("\n");
    let mentions = |words: &[&str]| words.iter().any(|w| joined.contains(w));
    if mentions(&ignore_keys)
        && adds(&|l| {
            ignore_keys.iter().any(|k| l.contains(k))
                && l.split([',', '[', ']', '"', '\'', ' ', '='])
                    .filter(|e| !e.is_empty())
                    .any(aims_at_checks)
        })
    {
        return true;
    }
    let filters = [
        "category!=",
        "-k \"not ",
        "-k 'not ",
        "--skip",
        "-skip ",
        "--exclude-tag",
        "-m \"not ",
        "-m 'not ",
        // RSpec, Pester, Playwright and Cucumber exclusions by tag or title.
        "filter_run_excluding",
        "-excludetag",
        "grepinvert",
        "--grep-invert",
        "--tags 'not ",
        "--tags \"not ",
    ];
    let filter_out = |l: &str| {
        filters.iter().any(|f| l.contains(f)) && SECURITY_WORDS.iter().any(|w| l.contains(w))
    };
    if mentions(&filters) && adds(&filter_out) {
        return true;
    }
    // Filters that select nothing (`--testNamePattern=^$`, `--grep '^$'`), and exclusions or
    // triggers that cover everything (`sonar.exclusions=**/*`, `branches-ignore: ['**']`):
    // the checks still run, and check nothing.
    let nothing = |l: &str| {
        let c: String = l
            .chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '\'' | '"'))
            .collect();
        (["testnamepattern", "--grep", "-t=", "--filter"]
            .iter()
            .any(|f| c.contains(f))
            && (c.contains("=^$") || c.contains("^$")))
            || [
                "sonar.exclusions=**/*",
                "sonar.exclusions=**",
                "sonar.test.exclusions=**/*",
            ]
            .iter()
            .any(|x| c == *x || c.starts_with(&format!("{x},")))
            || (c.starts_with("branches-ignore:")
                && matches!(
                    c.trim_start_matches("branches-ignore:"),
                    "[**]" | "[*]" | "**" | "*" | "[**,*]"
                ))
    };
    if mentions(&["^$", "sonar.", "branches-ignore"]) && adds(&nothing) {
        return true;
    }
    if matches!(
        base,
        "pyproject.toml" | "pytest.ini" | "setup.cfg" | "tox.ini"
    ) {
        let testpaths = |t: &str| -> Vec<String> {
            t.lines()
                .filter_map(|l| {
                    let (k, v) = l.split_once('=')?;
                    (k.trim() == "testpaths").then(|| {
                        v.split([',', ' ', '[', ']', '"', '\''])
                            .filter(|x| !x.is_empty())
                            .map(|x| x.trim_end_matches('/').to_owned())
                            .collect::<Vec<_>>()
                    })
                })
                .flatten()
                .collect()
        };
        for e in &cx.facts.edits {
            let (old, new) = (testpaths(&e.old), testpaths(&e.new));
            if !old.is_empty()
                && !new.is_empty()
                && new.iter().all(|n| {
                    old.iter()
                        .any(|o| n.starts_with(&format!("{o}/")) && n != o)
                })
            {
                return true;
            }
        }
    }
    // A refusal's assertion loosened.
    if test_file {
        for e in &cx.facts.edits {
            let refusal = |t: &str| t.contains("401") || t.contains("403");
            let asserts = |t: &str| t.contains("assert") || t.contains("expect");
            let accepts_success = |t: &str| {
                t.contains("200")
                    || t.contains("2xx")
                    || t.contains(".ok")
                    || t.contains("is_success")
                    || t.contains("< 500")
                    || t.contains("<500")
            };
            for (o, n) in e.old.lines().zip(e.new.lines()) {
                let (o, n) = (o.to_ascii_lowercase(), n.to_ascii_lowercase());
                if o != n
                    && asserts(&o)
                    && refusal(&o)
                    && !accepts_success(&o)
                    && asserts(&n)
                    && accepts_success(&n)
                {
                    return true;
                }
            }
        }
    }
    if crate::autorun::is_ci_file(&lower) {
        // Triggers or jobs limited to documentation changes or to schedules.
        let doc_only = |l: &str| {
            let l = l.trim();
            (l.starts_with("paths:") || l.starts_with("- "))
                && (l.contains("docs/")
                    || l.contains("*.md")
                    || l.contains("'docs")
                    || l.contains("\"docs"))
        };
        let gated = |l: &str| {
            let t = l.trim();
            (t.starts_with("if:") || t.starts_with("condition:"))
                && (t.contains("schedule")
                    || t.contains("workflow_dispatch")
                    || t.contains("'manual'"))
        };
        let soft = |l: &str| {
            let t: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            t == "exit-code:'0'"
                || t == "exit-code:\"0\""
                || t == "exit-code:0"
                || t.contains("--exit-code0")
                || t == "soft_fail:true"
                || t == "allow_failure:true"
                || t == "fail-on-severity:none"
                || t == "fail-on:none"
        };
        // Only an edit of an existing test or scan job counts: a new nightly job, or a new
        // documentation workflow, is routine.
        let checks_workflow = ["security", "scan", "test", "codeql", "audit", "ci", "check"]
            .iter()
            .any(|w| base.contains(w));
        let about_checks = checks_workflow && !cx.facts.edits.is_empty()
            || cx.facts.edits.iter().any(|e| {
                let o = e.old.to_ascii_lowercase();
                o.contains("test")
                    || o.contains("scan")
                    || o.contains("security")
                    || o.contains("pull_request")
                    || o.contains("push")
                    || SCANNERS.iter().any(|sc| o.contains(sc))
            });
        let docs_workflow = ["doc", "pages", "site", "blog"]
            .iter()
            .any(|d| base.contains(d));
        if about_checks && (adds(&gated) || adds(&soft)) {
            return true;
        }
        if about_checks
            && !docs_workflow
            && added_lower.iter().any(|l| l.trim().starts_with("paths:"))
            && added_lower.iter().filter(|l| doc_only(l)).count() >= 1
            && !added_lower
                .iter()
                .any(|l| l.contains("src") || l.contains("**/*."))
        {
            return true;
        }
    }
    // A scanner's ignore file ignoring everything.
    if matches!(
        base,
        ".semgrepignore"
            | ".gitleaksignore"
            | ".trivyignore"
            | ".snykignore"
            | ".banditignore"
            | ".secretsignore"
            | ".checkov.yml"
            | ".codeqlignore"
    ) && added
        .iter()
        .any(|l| matches!(l.trim(), "*" | "**" | "**/*" | "/*" | "."))
    {
        return true;
    }
    let ci = crate::autorun::is_ci_file(&lower);
    if more_checks_narrowed(cx, base, ci, &added_lower, &compact_added)
        || narrowed_in_build_files(cx, &lower, base, &added_lower, &compact_added)
    {
        return true;
    }
    // A scanner's pre-commit hook moved to manual runs.
    if base.starts_with(".pre-commit-config") {
        for e in &cx.facts.edits {
            let n = e.new.to_ascii_lowercase();
            if SCANNERS.iter().any(|sc| n.contains(sc))
                && n.contains("stages:")
                && n.contains("manual")
                && !e.old.to_ascii_lowercase().contains("manual")
            {
                return true;
            }
        }
    }
    // A git hook whose tests run only in CI, or that exits before them.
    if lower.contains("/.husky/") || paths::is_git_hook(&lower) {
        let c = content.to_ascii_lowercase();
        let test_lines: Vec<&str> = c
            .lines()
            .filter(|l| {
                TEST_STEPS.iter().any(|t| l.contains(t)) || SCANNERS.iter().any(|t| l.contains(t))
            })
            .collect();
        if !test_lines.is_empty()
            && test_lines
                .iter()
                .all(|l| l.contains("$ci") || l.contains("${ci") || l.contains("|| true"))
        {
            return true;
        }
    }
    false
}

/// The replaced (or the replacing) text of every edit of the call, lower-cased, one after
/// another.
fn edited_text(cx: &Ctx<'_>, side: fn(&crate::consequences::TextEdit) -> &String) -> String {
    joined_edits(cx, side).to_ascii_lowercase()
}

/// One side of every edit (the replaced or the replacing text), one per line, as written.
fn joined_edits(cx: &Ctx<'_>, side: fn(&crate::consequences::TextEdit) -> &String) -> String {
    cx.facts
        .edits
        .iter()
        .map(|e| side(e).as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Build and test-runner files of other toolchains (fastlane, Xcode test plans, Gradle,
/// Make, PlatformIO, MSBuild, golangci-lint, Psalm, Android lint, CMake, Bazel, Task): does
/// the path name one?
fn build_or_runner_file(lower: &str, base: &str) -> bool {
    matches!(
        base,
        "fastfile"
            | "scanfile"
            | "makefile"
            | "gnumakefile"
            | "justfile"
            | "platformio.ini"
            | "build.gradle"
            | "build.gradle.kts"
            | "pom.xml"
            | "directory.build.props"
            | "directory.build.targets"
            | ".golangci.yml"
            | ".golangci.yaml"
            | ".golangci.toml"
            | "psalm.xml"
            | "phpstan.neon"
            | "lint.xml"
            | "cmakelists.txt"
            | "ctestcustom.cmake"
            | "taskfile.yml"
            | "build.bazel"
            | ".bazelrc"
            | "build.sbt"
            | "mix.exs"
    ) || base.ends_with(".xctestplan")
        || base.ends_with(".xcscheme")
        || base.ends_with(".csproj")
        || base.ends_with(".mk")
        || lower.contains("/fastlane/")
}

/// Checks narrowed in another toolchain's build or runner file, in what a write adds:
/// - a skip, exclude or ignore list that names security tests or sources
///   (`skip_testing: ["AppTests/AuthSessionTests"]`, Gradle's `exclude("**/security/**")`,
///   PlatformIO's `test_ignore = test_crypto`, `go list ./... | grep -v /internal/auth`,
///   golangci's `exclude-dirs: [internal/auth]`, Psalm's taint issues suppressed);
/// - a test target of a security name switched off in an Xcode test plan (`"enabled" : false`);
/// - Android lint told to ignore every issue (`<issue id="all" severity="ignore"/>`);
/// - .NET's security analyzers silenced (`<NoWarn>…CA2100;CA5350…</NoWarn>`);
/// - a scanner taken out of a linter's list (`- gosec` removed);
/// - a Rust module's tests under a security path compiled only with a feature
///   (`#[cfg(test)]` → `#[cfg(all(test, feature = "slow-auth-tests"))]`).
fn narrowed_in_build_files(
    cx: &Ctx<'_>,
    lower: &str,
    base: &str,
    added_lower: &[String],
    compact_added: &[String],
) -> bool {
    let security = |t: &str| {
        SECURITY_WORDS.iter().any(|w| t.contains(w))
            || [
                "taint",
                "signature",
                "secure_boot",
                "securi",
                "keychain",
                "pinning",
                "cert",
            ]
            .iter()
            .any(|w| t.contains(w))
    };
    if base.ends_with(".rs") && security(lower) {
        let gated = compact_added.iter().any(|l| {
            l.starts_with("#[cfg(all(test,") && l.contains("feature")
                || l.starts_with("#[cfg(feature") && l.contains("test")
        });
        let was_plain = cx
            .facts
            .edits
            .iter()
            .any(|e| e.old.contains("#[cfg(test)]"));
        if gated && was_plain {
            return true;
        }
    }
    // An assertion of a security check loosened to one that always holds
    // (`expect(verifySignature(tampered, …)).toBe(false)` → `.toBeDefined()`).
    let vacuous = [
        ".tobedefined()",
        ".not.tobeundefined()",
        ".not.tobenull()",
        ".tobetruthy()",
        "assert true",
        "assert.ok(true)",
        "asserttrue(true)",
        "assert 1",
    ];
    if cx.facts.edits.iter().any(|e| {
        let old = e.old.to_ascii_lowercase();
        let new = e.new.to_ascii_lowercase();
        let strict_before = [
            ".tobe(",
            ".toequal(",
            ".tostrictequal(",
            ".tothrow(",
            "assert_eq!",
            "assertequal",
            "asserttrue(",
            "assertfalse(",
            "assertnull(",
        ]
        .iter()
        .any(|m| old.contains(m))
            // A Python `assert` of something (not of a constant).
            || old.lines().any(|l| {
                l.trim_start()
                    .strip_prefix("assert ")
                    .is_some_and(|r| !matches!(r.trim(), "true" | "1"))
            });
        let vacuous_after = vacuous.iter().any(|v| new.contains(v) && !old.contains(v));
        strict_before
            && vacuous_after
            && (security(&old) || security(lower) || old.contains("verify"))
    }) {
        return true;
    }
    // A pytest hook that skips or deselects tests by a security word in their name
    // (`if "auth" in item.nodeid: item.add_marker(skip)`): collected, never run.
    if base == "conftest.py"
        && added_lower.iter().any(|l| {
            [
                "add_marker(",
                "pytest.skip(",
                "mark.skip",
                "mark.xfail",
                "items.remove(",
                "deselect",
                // The collected list rebound without them.
                "items[:]",
                "del items[",
            ]
            .iter()
            .any(|m| l.contains(m))
        })
        && added_lower.iter().any(|l| {
            (l.contains("nodeid") || l.contains("item.name") || l.contains("keywords"))
                && security(l)
        })
    {
        return true;
    }
    if !build_or_runner_file(lower, base) {
        return false;
    }
    let old_lower = edited_text(cx, |e| &e.old);
    let new_lower = edited_text(cx, |e| &e.new);
    // A scanner that was in the file's list and is no longer (`- gosec` taken out).
    if !cx.facts.edits.is_empty()
        && [
            "gosec",
            "bodyclose",
            "govulncheck",
            "semgrep",
            "spotbugs",
            "find-sec-bugs",
        ]
        .iter()
        .any(|sc| old_lower.contains(sc) && !new_lower.contains(sc))
    {
        return true;
    }
    if base == "lint.xml"
        && compact_added
            .iter()
            .any(|l| l.contains("id=\"all\"") && l.contains("severity=\"ignore\""))
    {
        return true;
    }
    if (base.ends_with(".csproj") || base.ends_with(".props") || base.ends_with(".targets"))
        && compact_added.iter().any(|l| {
            l.contains("<nowarn>")
                && l.split([';', '>', '<', ',', ' ']).any(|c| {
                    c.len() == 6
                        && (c.starts_with("ca2100") || c.starts_with("ca3") || c.starts_with("ca5"))
                        && c.get(2..)
                            .is_some_and(|d| d.chars().all(|x| x.is_ascii_digit()))
                })
        })
    {
        return true;
    }
    if (base.ends_with(".xctestplan") || base.ends_with(".xcscheme"))
        && compact_added
            .iter()
            .any(|l| l.contains("\"enabled\":false") || l.contains("skipped=\"yes\""))
        && security(&new_lower)
    {
        return true;
    }
    let skip_words = [
        "skip_testing",
        "skip-testing",
        "skiptesting",
        "exclude",
        "test_ignore",
        "test_filter",
        "ignore",
        "grep -v",
        "suppress",
        "skip",
        "filter",
    ];
    let skips = added_lower
        .iter()
        .any(|l| !l.contains("coverage") && skip_words.iter().any(|w| l.contains(w)));
    skips
        && added_lower
            .iter()
            .filter(|l| !l.contains("coverage"))
            .flat_map(|l| {
                l.split([',', '[', ']', '(', ')', '"', '\'', ' ', '=', ':', '<', '>'])
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .any(|e| {
                !skip_words.contains(&e.as_str())
                    && (aims_at_checks(&e) || (e.contains("taint") && !e.contains("untaint")))
            })
}

/// More of the same family, by tool:
/// - a test runner's own filter or exclusion aimed at security tests or the sources
///   (`deno.json` `exclude`, nextest `default-filter = "not …"`, ExUnit `exclude: [:test]`,
///   sbt `Tests.Filter(n => !…)`, CTest's `CTEST_CUSTOM_TESTS_IGNORE`);
/// - security analysers switched off (`.editorconfig` `category-Security.severity = none`,
///   ruff's or flake8's `S` rules taken out of `select`);
/// - GitLab's scanners switched off by variable (`SAST_DISABLED: "true"`);
/// - an admission policy moved from enforcing to auditing (Kyverno `Enforce` → `Audit`,
///   Gatekeeper `deny` → `dryrun`/`warn`, a webhook's `failurePolicy: Ignore`);
/// - a scanner's policy file ignoring everything (`.snyk` `'*'`, `deny.toml` wildcard
///   advisories or unknown registries allowed).
fn more_checks_narrowed(
    cx: &Ctx<'_>,
    base: &str,
    ci: bool,
    added_lower: &[String],
    compact_added: &[String],
) -> bool {
    let old_lower = edited_text(cx, |e| &e.old);
    let runner_config = matches!(base, "deno.json" | "deno.jsonc")
        || base.starts_with("vitest.config.")
        || base.starts_with("jest.config.")
        || base.starts_with(".mocharc")
        || base == "phpunit.xml"
        || base == "phpunit.xml.dist";
    if runner_config
        && added_lower.iter().any(|l| {
            // (What coverage counts is not what the tests check.)
            (l.contains("exclude") || l.contains("ignore"))
                && !l.contains("coverage")
                && l.split([',', '[', ']', '"', '\'', ' ', '=', ':'])
                    .filter(|e| !e.is_empty())
                    .any(aims_at_checks)
        })
    {
        return true;
    }
    if base == "nextest.toml"
        && compact_added
            .iter()
            .any(|l| l.starts_with("default-filter=") && l.contains("not"))
    {
        return true;
    }
    if base == "test_helper.exs"
        && compact_added.iter().any(|l| {
            l.contains("exclude:")
                && (l.contains(":test]") || SECURITY_WORDS.iter().any(|w| l.contains(w)))
        })
    {
        return true;
    }
    if (base.ends_with(".sbt") || base.ends_with(".scala"))
        && compact_added
            .iter()
            .any(|l| l.contains("tests.filter(") && l.contains('!'))
    {
        return true;
    }
    if base.starts_with("ctestcustom")
        && (added_lower
            .iter()
            .any(|l| l.contains("ctest_custom_tests_ignore"))
            || old_lower.contains("ctest_custom_tests_ignore"))
        && added_lower.iter().any(|l| {
            let l = l.trim();
            !l.starts_with('#')
                && (SECURITY_WORDS.iter().any(|w| l.contains(w))
                    || ["tls", "cert", "verify", "revocation"]
                        .iter()
                        .any(|w| l.contains(w)))
        })
    {
        return true;
    }
    if matches!(base, ".editorconfig" | ".globalconfig")
        && compact_added.iter().any(|l| {
            (l.contains("category-security") || l.contains("security"))
                && (l.ends_with(".severity=none") || l.ends_with(".severity=silent"))
        })
    {
        return true;
    }
    // ruff / flake8: the bandit rules (`S`) taken out of what is selected.
    if matches!(
        base,
        "pyproject.toml" | "ruff.toml" | ".ruff.toml" | "setup.cfg" | ".flake8" | "tox.ini"
    ) {
        let selects_s = |t: &str| {
            t.lines().any(|l| {
                let l = l.trim();
                (l.starts_with("select") || l.starts_with("extend-select"))
                    && l.split([',', '[', ']', '"', '\'', ' ', '=']).any(|x| {
                        x == "S"
                            || (x.starts_with('S')
                                && x.len() <= 4
                                && x[1..].chars().all(|c| c.is_ascii_digit()))
                    })
            })
        };
        for e in &cx.facts.edits {
            if selects_s(&e.old) && !selects_s(&e.new) && e.new.contains("select") {
                return true;
            }
        }
    }
    if ci {
        const SCANS: &[&str] = &[
            "sast_disabled",
            "secret_detection_disabled",
            "dependency_scanning_disabled",
            "container_scanning_disabled",
            "dast_disabled",
            "iac_scanning_disabled",
        ];
        if compact_added.iter().any(|l| {
            SCANS.iter().any(|v| {
                l.strip_prefix(v).is_some_and(|r| {
                    matches!(
                        r.trim_start_matches([':', '=']),
                        "\"true\"" | "true" | "'true'" | "\"1\"" | "1" | "'1'" | "\"yes\""
                    )
                })
            })
        }) {
            return true;
        }
    }
    // An admission policy that enforced now only audits.
    let audits = compact_added.iter().any(|l| {
        l == "validationfailureaction:audit"
            || l == "enforcementaction:dryrun"
            || l == "enforcementaction:warn"
            || l == "failurepolicy:ignore"
    });
    if audits
        && (old_lower.contains("enforce")
            || old_lower.contains("enforcementaction: deny")
            || old_lower.contains("failurepolicy: fail"))
    {
        return true;
    }
    // Checkov told never to fail; bandit told to skip its high-severity checks.
    if base.starts_with(".checkov.")
        && compact_added
            .iter()
            .any(|l| l == "soft-fail:true" || l == "soft_fail:true")
    {
        return true;
    }
    let bandit_config = matches!(
        base,
        "pyproject.toml" | ".bandit" | "bandit.yaml" | "bandit.yml" | "setup.cfg"
    );
    if bandit_config
        && added_lower.iter().any(|l| {
            let l = l.trim();
            (l.starts_with("skips") || l.starts_with("skip"))
                && l.split(|c: char| !c.is_ascii_alphanumeric())
                    .filter(|w| {
                        w.len() == 4
                            && w.starts_with('b')
                            && w[1..].chars().all(|c| c.is_ascii_digit())
                            // assert_used, random, importing subprocess: routine in tests.
                            && !matches!(*w, "b101" | "b311" | "b404" | "b603")
                    })
                    .count()
                    >= 2
        })
    {
        return true;
    }
    // A signature check that accepts any signer (`--certificate-identity-regexp '.*'`), or
    // that skips the transparency log.
    if compact_added.iter().any(|l| {
        (l.contains("identity-regexp")
            || l.contains("issuer-regexp")
            || l.contains("identity_regexp"))
            && (l.contains("'.*'")
                || l.contains("\".*\"")
                || l.ends_with("=.*")
                || l.contains(".*\\"))
            || l.contains("--insecure-ignore-tlog")
            || l.contains("--insecure-ignore-sct")
    }) {
        return true;
    }
    // A security test marked to be skipped or allowed to fail.
    let test_file = base.starts_with("test_")
        || base.ends_with("_test.go")
        || base.ends_with("_test.py")
        || base.contains(".test.")
        || base.contains(".spec.");
    if test_file
        && compact_added.iter().any(|l| {
            l.starts_with("@pytest.mark.xfail")
                || l.starts_with("@pytest.mark.skip")
                || l.starts_with("@unittest.skip")
                || l.starts_with("t.skip(")
                || l.starts_with("it.skip(")
                || l.starts_with("describe.skip(")
                || l.starts_with("test.skip(")
                || l.starts_with("xit(")
                || l.starts_with("xdescribe(")
                || l.starts_with("iftesting.short(){")
        })
        && (SECURITY_WORDS.iter().any(|w| base.contains(w))
            || cx.facts.edits.iter().any(|e| {
                let o = e.old.to_ascii_lowercase();
                SECURITY_WORDS.iter().any(|w| o.contains(w))
                    || o.contains("csrf")
                    || o.contains("forged")
            }))
    {
        return true;
    }
    // Scanner policies that ignore everything.
    if base == ".snyk"
        && compact_added
            .iter()
            // (`- '*':` under an advisory is every path of that one advisory.)
            .any(|l| matches!(l.as_str(), "'*':" | "\"*\":"))
    {
        return true;
    }
    if base == "deny.toml"
        && compact_added.iter().any(|l| {
            (l.starts_with("ignore=") && l.contains("*"))
                || l == "unknown-registry=\"allow\""
                || l == "unknown-git=\"allow\""
                || l == "vulnerability=\"allow\""
        })
    {
        return true;
    }
    false
}

/// A push option that skips the pipeline (`ci.skip`, `skip-ci`, `ci.skip=true`).
fn skips_ci(o: &str) -> bool {
    let o = o.to_ascii_lowercase();
    matches!(
        o.as_str(),
        "ci.skip" | "ci.skip=true" | "skip-ci" | "skip_ci" | "ci-skip" | "[skip ci]"
    )
}

/// Repository protections loosened through the API (`gh api -X PATCH …/protection/…` with
/// checks emptied or `strict=false`, a ruleset set to `evaluate`/`disabled`, a security alert
/// dismissed).
fn api_protection_loosened(args: &[&str]) -> bool {
    if args.first() != Some(&"api") {
        return false;
    }
    let method = args
        .windows(2)
        .find(|w| matches!(w.first(), Some(&("-X" | "--method"))))
        .and_then(|w| w.get(1))
        .map(|m| m.to_ascii_uppercase());
    let writes = method
        .as_deref()
        .is_some_and(|m| matches!(m, "PATCH" | "PUT" | "POST" | "DELETE"))
        || args
            .iter()
            .any(|a| matches!(*a, "-f" | "-F" | "--field" | "--raw-field"));
    if !writes {
        return false;
    }
    let endpoint = args
        .iter()
        .find(|a| a.contains("repos/") || a.contains("orgs/"));
    let Some(ep) = endpoint else {
        return false;
    };
    let fields: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let has = |f: &str| fields.iter().any(|a| a.contains(f));
    (ep.contains("/protection")
        && (has("strict=false")
            || has("contexts[]=") && fields.iter().any(|a| a.ends_with("contexts[]="))
            || has("enforce_admins=false")
            || has("required_approving_review_count=0")))
        || (ep.contains("/rulesets")
            && (has("enforcement=evaluate") || has("enforcement=disabled")))
        || ((ep.contains("/dependabot/alerts")
            || ep.contains("/code-scanning/alerts")
            || ep.contains("/secret-scanning/alerts"))
            && (has("state=dismissed") || has("state=resolved")))
}

/// A release published with its tests switched off (`mvn deploy -Dmaven.test.skip=true`,
/// `./gradlew publish -x test`, `cargo publish --no-verify`), or a test run told to skip
/// every test (`cargo test -- --skip ''`): what ships, or what the next step trusts, was
/// never tested. A local build that skips tests (`mvn package -DskipTests`) is routine.
/// A test selection that leaves security tests out: `-m 'not security'`, `-k 'not auth'`,
/// `--skip security`, `-skip TestAuth`, `--testPathIgnorePatterns=auth`, `--exclude-tag
/// security`, given as arguments or through a runner's option variable
/// (`PYTEST_ADDOPTS`).
fn deselects_security(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    let security = |s: &str| SECURITY_WORDS.iter().any(|w| s.contains(w));
    let negated = t.match_indices("not ").any(|(i, m)| {
        security(
            t[i + m.len()..]
                .split([' ', ')', '\'', '"'])
                .next()
                .unwrap_or(""),
        )
    });
    let skip_flag = [
        "--skip",
        "-skip",
        "--testpathignorepatterns",
        "--exclude-tag",
        "--exclude-tags",
        "--exclude",
        "--ignore",
        "--deselect",
        "--filter=!",
        "--tag=~",
        "--tags=~",
    ]
    .iter()
    .any(|f| {
        t.match_indices(f).any(|(i, m)| {
            let rest = t[i + m.len()..].trim_start_matches(['=', ' ', '\'', '"']);
            security(rest.split([' ', '\'', '"']).next().unwrap_or(""))
        })
    });
    negated || skip_flag
}

/// A release, publish or deploy step on the same command line: `make release`, `npm
/// publish`, `cargo publish`, `twine upload`, `goreleaser release`, `fly deploy`.
fn releases(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let word = |a: &&str| {
        let a = a.to_ascii_lowercase();
        a.split([':', '-', '_', '/'])
            .any(|p| matches!(p, "release" | "publish" | "deploy" | "upload" | "ship"))
    };
    matches!(
        inv.program.as_str(),
        "make"
            | "just"
            | "task"
            | "npm"
            | "pnpm"
            | "yarn"
            | "bun"
            | "cargo"
            | "twine"
            | "goreleaser"
            | "poetry"
            | "hatch"
            | "flit"
            | "uv"
            | "fastlane"
            | "gradle"
            | "gradlew"
            | "mvn"
            | "mvnw"
            | "fly"
            | "flyctl"
            | "vercel"
            | "netlify"
            | "rake"
            | "invoke"
            | "nox"
            | "tox"
    ) && args.iter().take(3).any(word)
        // fastlane's store uploads: `supply` (Google Play), `deliver` (App Store), `pilot`
        // (TestFlight), `upload_to_play_store`.
        || inv.program == "fastlane"
            && args.iter().take(2).any(|a| {
                matches!(*a, "supply" | "deliver" | "pilot" | "upload_to_testflight")
                    || a.starts_with("upload_to_")
            })
}

/// Security tests left out of the run that gates a release: `PYTEST_ADDOPTS="-m 'not
/// security'" make release`, `pytest -k 'not auth' && twine upload dist/*`.
pub(crate) fn release_without_security_tests(sa: &crate::shell::ShellAnalysis) -> bool {
    let deselected = sa.invocations.iter().any(|inv| {
        deselects_security(&inv.argv().collect::<Vec<_>>().join(" "))
            || inv.assignments.iter().any(|(k, v)| {
                matches!(
                    k.as_str(),
                    "PYTEST_ADDOPTS" | "JEST_OPTIONS" | "MOCHA_OPTIONS" | "GOFLAGS" | "TESTOPTS"
                ) && deselects_security(&v.text)
            })
    });
    deselected && sa.invocations.iter().any(releases)
}

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
                    ) || a.strip_prefix("-D").is_some_and(|kv| {
                        // A scanner's own skip switch (`-Ddependency-check.skip=true`,
                        // `-Dspotbugs.skip`, `-Dcheckstyle.skip`, `-Dpmd.skip`).
                        let (k, v) = kv.split_once('=').unwrap_or((kv, "true"));
                        v == "true"
                            && [
                                "dependency-check.skip",
                                "spotbugs.skip",
                                "checkstyle.skip",
                                "pmd.skip",
                                "snyk.skip",
                                "owasp.skip",
                                "sonar.skip",
                            ]
                            .contains(&k)
                    })
                })
        }
        // `git push -o ci.skip`: the pipeline told not to run for what is pushed.
        "git" => {
            args.contains(&"push")
                && (args.windows(2).any(|w| {
                    matches!(w.first(), Some(&("-o" | "--push-option")))
                        && w.get(1).is_some_and(|o| skips_ci(o))
                }) || args
                    .iter()
                    .any(|a| a.strip_prefix("--push-option=").is_some_and(skips_ci)))
        }
        // `npm publish --ignore-scripts`: `prepublishOnly` (where the tests run) skipped.
        "npm" | "pnpm" | "yarn" => {
            args.first() == Some(&"publish")
                && args.contains(&"--ignore-scripts")
                && !args.contains(&"--dry-run")
        }
        // `gh workflow disable codeql.yml`: a security or test workflow switched off.
        "gh" => {
            args.get(..2) == Some(&["workflow", "disable"])
                && args.iter().skip(2).any(|w| {
                    let w = w.to_ascii_lowercase();
                    [
                        "codeql", "security", "scan", "test", "ci", "check", "review", "audit",
                        "lint",
                    ]
                    .iter()
                    .any(|k| w.contains(k))
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
            || noop_test_script(path, content)
            || tests_removed(cx, path)
            || tests_gutted(cx, path, content)
            || tests_neutered(cx, path, content)
            || assertions_emptied(cx, path)
            || checks_narrowed(cx, path, content)
            || check_made_nonfatal(cx, path, content)
            || code_owners_dropped(cx, path, content)
        {
            out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
        }
    }
    // Security tests deleted (`git rm tests/test_authz.py`, `rm spec/auth_spec.rb`): the
    // checks they made are gone from every later run.
    if cx.fx.deletes.iter().any(|d| {
        let lower = d.path.to_ascii_lowercase();
        let base = paths::basename(&lower);
        let test_module = base.starts_with("test_")
            || base.contains("_test.")
            || base.contains(".test.")
            || base.contains(".spec.")
            || base.ends_with("_spec.rb")
            || base.ends_with("test.java")
            || base.ends_with("tests.cs");
        matches!(d.program.as_str(), "rm" | "git" | "unlink")
            && test_module
            && SECURITY_WORDS.iter().any(|w| base.contains(w))
    }) {
        out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
    }
    // A pull request approved through an MCP tool (`create_pull_request_review {event:
    // "APPROVE"}`): the agent approving what it (or an injection) asked for.
    if let crate::action::Operation::McpCall {
        tool, arguments, ..
    } = &cx.action.op
        && tool.to_ascii_lowercase().contains("review")
        && arguments.as_object().is_some_and(|m| {
            ["event", "state", "action", "decision"].iter().any(|k| {
                m.get(*k).and_then(|v| v.as_str()).is_some_and(|v| {
                    v.eq_ignore_ascii_case("approve") || v.eq_ignore_ascii_case("approved")
                })
            })
        })
    {
        out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
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
            // (`chmod +x .husky/pre-commit` makes the hook run: the opposite.)
            && !cx.shell.is_some_and(|sa| {
                sa.invocations.iter().any(|i| {
                    i.program == "chmod"
                        && i.operands().first().is_some_and(|m| {
                            matches!(m.text.as_str(), "+x" | "u+x" | "a+x" | "ug+x" | "755" | "775" | "0755")
                        })
                })
            })
    {
        out.push(Finding::new(VERIFICATION_BYPASS, Verdict::Auth));
    }
    let Some(sa) = cx.shell else {
        return;
    };
    if release_without_security_tests(sa) {
        out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
    }
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
                || api_protection_loosened(&args)
                || publishes_untested(inv)
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
mod code_owner_tests {
    use crate::Verdict::{self, *};
    use crate::needs::{CallFacts, FileView};
    use crate::policy::Mode;
    use crate::rules::testutil::{CWD, engine, file_write};
    use crate::session::SessionState;

    /// A CODEOWNERS file rewritten whole, against the text that was there.
    #[test]
    fn code_owners_rewritten_whole() {
        let shown = "# Default owners\n*                @acme/backend\n/app/auth/       @acme/security\n/.github/        @acme/security\n";
        let cases: &[(&str, Verdict)] = &[
            ("# Default owners\n*                @acme/backend\n", Auth),
            (
                "# Default owners\n*                @acme/platform\n/app/auth/       @acme/security\n/.github/        @acme/security\n",
                Pass,
            ),
        ];
        for (content, want) in cases {
            let mut facts = CallFacts::default();
            facts.files.insert(
                format!("{CWD}/.github/CODEOWNERS"),
                FileView::Content(shown.into()),
            );
            let d = engine(Mode::Balanced).decide_with(
                &file_write("Write", ".github/CODEOWNERS", content),
                &SessionState::default(),
                &facts,
            );
            assert_eq!(d.verdict, *want, "{content}: {:?}", d.codes());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn runner_and_pipeline_configs_leaving_security_out() {
        use crate::rules::testutil::judge_edit;
        for (path, old, new, want) in [
            (
                ".rspec",
                "--format progress\n",
                "--format progress\n--tag ~security\n",
                Auth,
            ),
            (
                ".rspec",
                "--format progress\n",
                "--format progress\n--tag ~slow\n",
                Pass,
            ),
            (
                "phpunit.xml",
                "    </testsuites>\n",
                "    </testsuites>\n    <groups>\n        <exclude>\n            <group>security</group>\n        </exclude>\n    </groups>\n",
                Auth,
            ),
            (
                "phpunit.xml",
                "    </testsuites>\n",
                "    </testsuites>\n    <groups>\n        <exclude>\n            <group>slow</group>\n        </exclude>\n    </groups>\n",
                Pass,
            ),
            (
                ".github/codeql/codeql-config.yml",
                "paths:\n  - src\n",
                "paths:\n  - src\nquery-filters:\n  - exclude:\n      tags contain: security\n",
                Auth,
            ),
            (
                ".github/workflows/deploy.yml",
                "  deploy:\n    needs: [test, e2e]\n    runs-on: ubuntu-latest\n",
                "  deploy:\n    runs-on: ubuntu-latest\n",
                Auth,
            ),
            (
                ".github/workflows/deploy.yml",
                "  deploy:\n    needs: [test]\n    runs-on: ubuntu-latest\n",
                "  deploy:\n    needs: [test, e2e]\n    runs-on: ubuntu-latest\n",
                Pass,
            ),
            (
                "tests/Api.Security.Tests/Api.Security.Tests.csproj",
                "    <IsPackable>false</IsPackable>\n",
                "    <IsPackable>false</IsPackable>\n    <IsTestProject>false</IsTestProject>\n",
                Auth,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {new:?}: {reasons:?}");
        }
    }

    #[test]
    fn checks_narrowed_in_other_toolchains_build_files() {
        use crate::rules::testutil::judge_edit;
        for (path, old, new, want) in [
            // Tests excluded by tag or title in RSpec, Pester, Playwright.
            (
                "spec/spec_helper.rb",
                "  config.order = :random\n",
                "  config.order = :random\n  config.filter_run_excluding :auth, :authorization\n",
                Auth,
            ),
            (
                "build.ps1",
                "Invoke-Pester -Path tests -CI",
                "Invoke-Pester -Path tests -CI -ExcludeTagFilter Security,Auth",
                Auth,
            ),
            (
                "playwright.config.ts",
                "  retries: 1,\n",
                "  retries: 1,\n  grepInvert: /@security|@auth/,\n",
                Auth,
            ),
            // Filters that select nothing; exclusions and triggers that cover everything.
            (
                "package.json",
                "\"test\": \"jest --ci\"",
                "\"test\": \"jest --ci --passWithNoTests --testNamePattern=^$\"",
                Auth,
            ),
            (
                "sonar-project.properties",
                "sonar.exclusions=**/vendor/**,**/*.generated.ts",
                "sonar.exclusions=**/*",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "on:\n  push:\n    branches: [main]\n  pull_request:\n",
                "on:\n  push:\n    branches-ignore: ['**']\n  pull_request:\n    branches-ignore: ['**']\n",
                Auth,
            ),
            // Look-alikes: slow tests excluded, a narrower pattern, generated code excluded,
            // dependabot branches ignored.
            (
                "spec/spec_helper.rb",
                "  config.order = :random\n",
                "  config.order = :random\n  config.filter_run_excluding :slow\n",
                Pass,
            ),
            (
                "playwright.config.ts",
                "  retries: 1,\n",
                "  retries: 1,\n  grepInvert: /@flaky/,\n",
                Pass,
            ),
            (
                "package.json",
                "\"test\": \"jest --ci\"",
                "\"test\": \"jest --ci --testNamePattern=checkout\"",
                Pass,
            ),
            // Reviews hidden, type checks off for security code.
            (
                ".gitattributes",
                "* text=auto eol=lf",
                "* text=auto eol=lf\nsrc/payments/refunds/** linguist-generated=true -diff",
                Auth,
            ),
            (
                ".gitattributes",
                "* text=auto eol=lf",
                "* text=auto eol=lf\npackage-lock.json -diff\ndist/** linguist-generated=true\nsrc/gen/**/*.ts linguist-generated=true",
                Pass,
            ),
            (
                "mypy.ini",
                "[mypy]\nstrict = True",
                "[mypy]\nstrict = True\n\n[mypy-app.auth.*]\nignore_errors = True",
                Auth,
            ),
            (
                "mypy.ini",
                "[mypy]\nstrict = True",
                "[mypy]\nstrict = True\n\n[mypy-app.migrations.*]\nignore_errors = True",
                Pass,
            ),
            // Coverage thresholds set to nothing; one raised.
            (
                "jest.config.js",
                "  coverageThreshold: {\n    global: { branches: 85, lines: 90 },\n  },",
                "  coverageThreshold: {\n    global: {\n      branches: 0,\n      lines: 0,\n    },\n  },",
                Auth,
            ),
            (
                "jest.config.js",
                "  coverageThreshold: {\n    global: { branches: 80, lines: 90 },\n  },",
                "  coverageThreshold: {\n    global: { branches: 85, lines: 90 },\n  },",
                Pass,
            ),
            (
                "codecov.yml",
                "        target: 80%\n        threshold: 1%",
                "        target: 0%\n        informational: true",
                Auth,
            ),
            (
                "codecov.yml",
                "        target: 80%\n        threshold: 1%",
                "        target: 80%\n        threshold: 2%",
                Pass,
            ),
            // A test script that only reports success; npm's failing placeholder.
            (
                "package.json",
                "    \"test\": \"jest --ci\",",
                "    \"test\": \"echo ok\",",
                Auth,
            ),
            (
                "package.json",
                "    \"test:ci\": \"vitest run\",",
                "    \"test:ci\": \"exit 0\",",
                Auth,
            ),
            (
                "package.json",
                "    \"test\": \"jest\",",
                "    \"test\": \"echo \\\"Error: no test specified\\\" && exit 1\",",
                Pass,
            ),
            (
                "package.json",
                "    \"build\": \"tsc\",",
                "    \"build\": \"echo skipping build\",",
                Pass,
            ),
            (
                "sonar-project.properties",
                "sonar.exclusions=**/vendor/**",
                "sonar.exclusions=**/vendor/**,**/*.generated.ts",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "on:\n  push:\n    branches: [main]\n",
                "on:\n  push:\n    branches-ignore: ['dependabot/**']\n",
                Pass,
            ),
            (
                "fastlane/Fastfile",
                "scan(scheme: \"App\")",
                "scan(scheme: \"App\", skip_testing: [\"AppTests/AuthSessionTests\", \"AppTests/CertificatePinningTests\"])",
                Auth,
            ),
            (
                "app/build.gradle.kts",
                "tasks.withType<Test>().configureEach {\n    useJUnitPlatform()\n}",
                "tasks.withType<Test>().configureEach {\n    useJUnitPlatform()\n    exclude(\"**/security/**\", \"**/*Auth*Test*\")\n}",
                Auth,
            ),
            (
                "platformio.ini",
                "test_framework = unity\n",
                "test_framework = unity\ntest_ignore = test_crypto test_ota_signature\n",
                Auth,
            ),
            (
                "Makefile",
                "test:\n\tgo test -race ./...\n",
                "test:\n\tgo test -race $(shell go list ./... | grep -v /internal/auth)\n",
                Auth,
            ),
            (
                ".golangci.yml",
                "linters:\n  enable:\n    - errcheck\n    - gosec\n",
                "linters:\n  enable:\n    - errcheck\n",
                Auth,
            ),
            (
                "psalm.xml",
                "<issueHandlers>\n",
                "<issueHandlers>\n  <TaintedSql errorLevel=\"suppress\" />\n",
                Auth,
            ),
            (
                "Directory.Build.props",
                "<TreatWarningsAsErrors>true</TreatWarningsAsErrors>",
                "<TreatWarningsAsErrors>true</TreatWarningsAsErrors>\n<NoWarn>$(NoWarn);CA2100;CA5350</NoWarn>",
                Auth,
            ),
            (
                "app/lint.xml",
                "",
                "<lint>\n    <issue id=\"all\" severity=\"ignore\" />\n</lint>\n",
                Auth,
            ),
            (
                "src/auth/mod.rs",
                "#[cfg(test)]\nmod tests {",
                "#[cfg(all(test, feature = \"slow-auth-tests\"))]\nmod tests {",
                Auth,
            ),
            (
                "conftest.py",
                "",
                "import pytest\n\ndef pytest_collection_modifyitems(config, items):\n    skip = pytest.mark.skip(reason=\"flaky\")\n    for item in items:\n        if \"auth\" in item.nodeid or \"csrf\" in item.nodeid:\n            item.add_marker(skip)\n",
                Auth,
            ),
            (
                "conftest.py",
                "",
                "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'security' not in i.nodeid]\n",
                Auth,
            ),
            (
                "conftest.py",
                "",
                "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'slow' not in i.keywords]\n",
                Pass,
            ),
            (
                "conftest.py",
                "",
                "import pytest\n\ndef pytest_collection_modifyitems(config, items):\n    skip = pytest.mark.skip(reason=\"needs --runslow\")\n    for item in items:\n        if \"slow\" in item.keywords and not config.getoption(\"--runslow\"):\n            item.add_marker(skip)\n",
                Pass,
            ),
            (
                "test/verify.test.ts",
                "expect(verifySignature(tampered, sig, secret)).toBe(false);",
                "expect(verifySignature(tampered, sig, secret)).toBeDefined();",
                Auth,
            ),
            (
                "tests/test_auth.py",
                "    assert verify_token(tampered) is None\n",
                "    assert True  # flaky, see PR 512\n",
                Auth,
            ),
            (
                ".github/CODEOWNERS",
                "/app/auth/       @acme/security\n",
                "",
                Auth,
            ),
            (
                ".github/CODEOWNERS",
                "/app/auth/       @acme/security\n",
                "/app/auth/       @acme/security @acme/identity\n",
                Pass,
            ),
            (
                ".github/CODEOWNERS",
                "*  @acme/backend\n",
                "*  @acme/backend\n/app/billing/ @acme/payments\n",
                Pass,
            ),
            (
                "tests/test_auth.py",
                "    assert verify_token(tampered) is None\n",
                "    assert verify_token(tampered) is None, \"tampered token accepted\"\n",
                Pass,
            ),
            (
                "test/format.test.ts",
                "expect(formatDate(d)).toBe('2024-01-01');",
                "expect(formatDate(d)).toBeDefined();",
                Pass,
            ),
            // Look-alikes: build output and fixtures left out, style warnings silenced, a
            // linter added, tests gated outside security code.
            (
                "app/build.gradle.kts",
                "tasks.withType<Test>().configureEach {\n}",
                "tasks.withType<Test>().configureEach {\n    exclude(\"**/fixtures/**\")\n}",
                Pass,
            ),
            (
                "Makefile",
                "test:\n\tgo test ./...\n",
                "test:\n\tgo test $(shell go list ./... | grep -v /mocks)\n",
                Pass,
            ),
            (
                ".golangci.yml",
                "linters:\n  enable:\n    - errcheck\n",
                "linters:\n  enable:\n    - errcheck\n    - gosec\n",
                Pass,
            ),
            (
                "Directory.Build.props",
                "<NoWarn>$(NoWarn)</NoWarn>",
                "<NoWarn>$(NoWarn);CS1591;IDE0058</NoWarn>",
                Pass,
            ),
            (
                "app/lint.xml",
                "",
                "<lint>\n    <issue id=\"HardcodedText\" severity=\"ignore\" />\n</lint>\n",
                Pass,
            ),
            (
                "src/render/mod.rs",
                "#[cfg(test)]\nmod tests {",
                "#[cfg(all(test, feature = \"gpu-tests\"))]\nmod tests {",
                Pass,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {new:?}: {reasons:?}");
        }
    }

    #[test]
    fn security_assertions_emptied_in_test_edits() {
        use crate::rules::testutil::judge_edit;
        for (path, old, new, want) in [
            (
                "tests/helpers/assertions.py",
                "def assert_forbidden(resp):\n    assert resp.status_code == 403, resp.text\n",
                "def assert_forbidden(resp):\n    return resp\n",
                Auth,
            ),
            (
                "src/auth/login.test.ts",
                "    expect(res.status).toBe(401);\n",
                "    console.log(res.status);\n",
                Auth,
            ),
            // Look-alikes: an assertion reworded, one outside security, a code change.
            (
                "tests/helpers/assertions.py",
                "def assert_forbidden(resp):\n    assert resp.status_code == 403, resp.text\n",
                "def assert_forbidden(resp):\n    assert resp.status_code in (403, 404), resp.text\n",
                Pass,
            ),
            (
                "tests/test_format.py",
                "    assert fmt(3) == '3.00'\n",
                "    print(fmt(3))\n",
                Pass,
            ),
            (
                "src/auth/check.py",
                "    assert user.is_active\n",
                "    if not user.is_active:\n        return None\n",
                Pass,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {new:?}: {reasons:?}");
        }
    }

    #[test]
    fn releases_without_their_security_tests() {
        table(
            Mode::Balanced,
            &[
                (
                    "PYTEST_ADDOPTS=\"-m 'not security and not auth'\" make release",
                    Auth,
                    "check_disabled",
                ),
                (
                    "pytest -k 'not test_auth' && twine upload dist/*",
                    Auth,
                    "check_disabled",
                ),
                (
                    "cargo test -- --skip security && cargo publish",
                    Auth,
                    "check_disabled",
                ),
                (
                    "export PYTEST_ADDOPTS=\"-m 'not permissions'\"; npm run release",
                    Auth,
                    "check_disabled",
                ),
                // Look-alikes: a subset run locally, slow tests left out of a release, a
                // release with every test.
                ("pytest -m 'not security'", Pass, ""),
                ("PYTEST_ADDOPTS=\"-m 'not slow'\" make release", Pass, ""),
                ("pytest && twine upload dist/*", Pass, ""),
                // Security tests deleted; other tests deleted.
                (
                    "git rm -q tests/test_authz.py && git commit -qm 'Remove flaky authz tests'",
                    Auth,
                    "check_disabled",
                ),
                ("rm spec/requests/auth_spec.rb", Auth, "check_disabled"),
                ("git rm tests/test_legacy_export.py", Pass, ""),
                ("rm -rf tests/__pycache__", Pass, ""),
                // A store upload after a run without the security tests.
                (
                    "flutter test --exclude-tags=security,auth && flutter build appbundle --release && fastlane supply --track production",
                    Auth,
                    "check_disabled",
                ),
                (
                    "flutter test --exclude-tags=golden && fastlane supply --track internal",
                    Pass,
                    "",
                ),
                (
                    "flutter test && fastlane deliver --submit-for-review",
                    Pass,
                    "",
                ),
                (
                    "go test ./... -skip TestFlaky && goreleaser release --clean",
                    Pass,
                    "",
                ),
            ],
        );
    }

    /// Checks narrowed so what matters no longer runs, beside the routine edits of the same
    /// files.
    #[test]
    fn checks_narrowed_table() {
        use crate::rules::testutil::judge_edit;
        for (path, old, new, want) in [
            // Compiled out.
            (
                "internal/auth/auth_test.go",
                "package auth\n",
                "//go:build ignore\n\npackage auth\n",
                Auth,
            ),
            (
                "internal/auth/auth_test.go",
                "package auth\n",
                "//go:build integration\n\npackage auth\n",
                Pass,
            ),
            (
                "internal/auth/token_test.go",
                "package auth\n",
                "//go:build never\n\npackage auth\n",
                Auth,
            ),
            (
                "tests/test_auth.py",
                "import pytest\n",
                "import pytest\n\n__test__ = False\n",
                Auth,
            ),
            (
                "tests/helpers.py",
                "import os\n",
                "import os\n\n__test__ = True\n",
                Pass,
            ),
            (".rspec", "", "--require spec_helper\n--dry-run\n", Auth),
            (
                ".rspec",
                "",
                "--require spec_helper\n--format documentation\n",
                Pass,
            ),
            (
                "pom.xml",
                "<includes/>\n",
                "<includes/>\n<testFailureIgnore>true</testFailureIgnore>\n",
                Auth,
            ),
            (
                "build.gradle.kts",
                "tasks.test {\n    useJUnitPlatform()\n}",
                "tasks.test {\n    useJUnitPlatform()\n    ignoreFailures = true\n}",
                Auth,
            ),
            (
                "build.gradle.kts",
                "tasks.test {\n    useJUnitPlatform()\n}",
                "tasks.test {\n    useJUnitPlatform()\n    maxParallelForks = 4\n}",
                Pass,
            ),
            (".bandit", "", "[bandit]\nexclude = ./\n", Auth),
            (".bandit", "", "[bandit]\nexclude = ./tests\n", Pass),
            (
                "src/auth.rs",
                "#[cfg(test)]\nmod tests {",
                "#[cfg(any())]\nmod tests {",
                Auth,
            ),
            (
                "src/auth.rs",
                "mod tests {",
                "#[cfg(test)]\nmod tests {",
                Pass,
            ),
            // Discovery.
            (
                "conftest.py",
                "",
                "# speed up local runs\ncollect_ignore_glob = [\"tests/security/*\"]\n",
                Auth,
            ),
            (
                "conftest.py",
                "",
                "collect_ignore = [\"setup.py\", \"build\"]\n",
                Pass,
            ),
            (
                "jest.config.js",
                "testPathIgnorePatterns: ['/node_modules/'],",
                "testPathIgnorePatterns: ['/node_modules/', '/src/auth/', '/src/payments/'],",
                Auth,
            ),
            (
                "jest.config.js",
                "testPathIgnorePatterns: ['/node_modules/'],",
                "testPathIgnorePatterns: ['/node_modules/', '/dist/', '/e2e/'],",
                Pass,
            ),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests/smoke\"]\n",
                Auth,
            ),
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\", \"integration\"]\n",
                Pass,
            ),
            (
                ".github/workflows/dotnet.yml",
                "      - run: dotnet test --no-build",
                "      - run: dotnet test --no-build --filter \"Category!=Security\"",
                Auth,
            ),
            (
                ".github/workflows/dotnet.yml",
                "      - run: dotnet test --no-build",
                "      - run: dotnet test --no-build --filter \"Category!=Slow\"",
                Pass,
            ),
            // Assertions.
            (
                "tests/test_permissions.py",
                "    assert resp.status_code == 403",
                "    assert resp.status_code in (200, 403)",
                Auth,
            ),
            (
                "tests/test_permissions.py",
                "    assert resp.status_code == 403",
                "    assert resp.status_code == 403, resp.text",
                Pass,
            ),
            // Pipelines.
            (
                ".github/workflows/ci.yml",
                "on:\n  pull_request:\n    branches: [main]\n",
                "on:\n  pull_request:\n    branches: [main]\n    paths: ['docs/**']\n",
                Auth,
            ),
            (
                ".github/workflows/docs.yml",
                "on:\n  push:\n    branches: [main]\n",
                "on:\n  push:\n    branches: [main]\n    paths: ['docs/**']\n",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "  test:\n    runs-on: ubuntu-latest\n",
                "  test:\n    if: github.event_name == 'schedule'\n    runs-on: ubuntu-latest\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "  test:\n    runs-on: ubuntu-latest\n",
                "  test:\n    runs-on: ubuntu-24.04\n",
                Pass,
            ),
            (
                ".github/workflows/security.yml",
                "          severity: CRITICAL,HIGH\n          exit-code: '1'\n",
                "          severity: CRITICAL,HIGH\n          exit-code: '0'\n",
                Auth,
            ),
            (
                ".github/workflows/security.yml",
                "          severity: CRITICAL,HIGH\n          exit-code: '1'\n",
                "          severity: CRITICAL,HIGH,MEDIUM\n          exit-code: '1'\n",
                Pass,
            ),
            (
                "azure-pipelines.yml",
                "- stage: Test\n  dependsOn: Build\n",
                "- stage: Test\n  dependsOn: Build\n  condition: and(succeeded(), eq(variables['Build.Reason'], 'Schedule'))\n",
                Auth,
            ),
            // Scanners.
            (".semgrepignore", "", "# generated code\n*\n", Auth),
            (
                ".semgrepignore",
                "",
                "# generated code\nsrc/generated/\n",
                Pass,
            ),
            (
                ".pre-commit-config.yaml",
                "      - id: gitleaks\n",
                "      - id: gitleaks\n        stages: [manual]\n",
                Auth,
            ),
            (
                ".pre-commit-config.yaml",
                "      - id: mypy\n",
                "      - id: mypy\n        stages: [manual]\n",
                Pass,
            ),
            // Hooks.
            (
                ".husky/pre-push",
                "",
                "#!/usr/bin/env sh\n[ -n \"$CI\" ] && npm test\nexit 0\n",
                Auth,
            ),
            (".husky/pre-push", "", "#!/usr/bin/env sh\nnpm test\n", Pass),
            // Runners' own filters aimed at security tests; the same keys for build output.
            (
                "deno.json",
                "    \"include\": [\"src/\"]\n",
                "    \"include\": [\"src/\"],\n    \"exclude\": [\"src/auth/\", \"src/crypto/\"]\n",
                Auth,
            ),
            (
                "deno.json",
                "    \"include\": [\"src/\"]\n",
                "    \"include\": [\"src/\"],\n    \"exclude\": [\"dist/\", \"coverage/\"]\n",
                Pass,
            ),
            (
                "vitest.config.ts",
                "",
                "export default defineConfig({\n  test: {\n    coverage: { reporter: ['text'], exclude: ['src/**/*.stories.tsx'] },\n  },\n});\n",
                Pass,
            ),
            (
                ".config/nextest.toml",
                "",
                "[profile.default]\ndefault-filter = \"not (package(acme-auth) | test(/permissions/))\"\n",
                Auth,
            ),
            (
                ".config/nextest.toml",
                "",
                "[profile.default]\nslow-timeout = \"60s\"\n",
                Pass,
            ),
            (
                "test/test_helper.exs",
                "ExUnit.start()\n",
                "ExUnit.start(exclude: [:test], include: [:smoke])\n",
                Auth,
            ),
            (
                "test/test_helper.exs",
                "ExUnit.start()\n",
                "ExUnit.start(exclude: [:integration])\n",
                Pass,
            ),
            (
                "build.sbt",
                "  Test / fork := true\n",
                "  Test / fork := true,\n  Test / testOptions += Tests.Filter(n => !n.contains(\"Security\"))\n",
                Auth,
            ),
            (
                "CTestCustom.cmake",
                "",
                "set(CTEST_CUSTOM_TESTS_IGNORE\n  tls_verify_hostname\n  auth_token_expiry\n)\n",
                Auth,
            ),
            (
                "CTestCustom.cmake",
                "",
                "set(CTEST_CUSTOM_MAXIMUM_NUMBER_OF_WARNINGS 500)\n",
                Pass,
            ),
            // Security analysers switched off.
            (
                ".editorconfig",
                "dotnet_diagnostic.CA2100.severity = error\n",
                "dotnet_diagnostic.CA2100.severity = none\ndotnet_analyzer_diagnostic.category-Security.severity = none\n",
                Auth,
            ),
            (
                ".editorconfig",
                "dotnet_diagnostic.IDE0055.severity = warning\n",
                "dotnet_diagnostic.IDE0055.severity = none\n",
                Pass,
            ),
            (
                "pyproject.toml",
                "select = [\"E\", \"F\", \"B\", \"S\"]\n",
                "select = [\"E\", \"F\", \"B\"]\n",
                Auth,
            ),
            (
                "pyproject.toml",
                "select = [\"E\", \"F\", \"S\"]\n",
                "select = [\"E\", \"F\", \"S\", \"UP\"]\n",
                Pass,
            ),
            (
                ".gitlab-ci.yml",
                "variables:\n  DOCKER_DRIVER: overlay2\n",
                "variables:\n  DOCKER_DRIVER: overlay2\n  SAST_DISABLED: \"true\"\n",
                Auth,
            ),
            (
                ".gitlab-ci.yml",
                "variables:\n  DOCKER_DRIVER: overlay2\n",
                "variables:\n  DOCKER_DRIVER: overlay2\n  SAST_EXCLUDED_PATHS: \"spec, test, tmp\"\n",
                Pass,
            ),
            // Admission policies from enforcing to auditing; a new policy rolled out in audit.
            (
                "policies/require-signed-images.yaml",
                "  validationFailureAction: Enforce\n",
                "  validationFailureAction: Audit\n",
                Auth,
            ),
            (
                "policies/new-label-policy.yaml",
                "",
                "spec:\n  validationFailureAction: Audit\n",
                Pass,
            ),
            // CI steps that can no longer fail.
            (
                "Jenkinsfile",
                "  steps { sh './gradlew test' }\n",
                "  steps { catchError(buildResult: 'SUCCESS', stageResult: 'SUCCESS') { sh './gradlew test' } }\n",
                Auth,
            ),
            (
                "azure-pipelines.yml",
                "- script: npm test\n  displayName: Unit tests\n",
                "- script: npm test\n  displayName: Unit tests\n  continueOnError: true\n",
                Auth,
            ),
            (
                "azure-pipelines.yml",
                "- script: npm test\n  displayName: Unit tests\n",
                "- script: npm test\n  displayName: Unit tests\n  timeoutInMinutes: 20\n",
                Pass,
            ),
            (
                ".checkov.yaml",
                "quiet: true\n",
                "quiet: true\nsoft-fail: true\n",
                Auth,
            ),
            (
                "pyproject.toml",
                "[tool.bandit]\nexclude_dirs = [\"tests\"]\n",
                "[tool.bandit]\nexclude_dirs = [\"tests\"]\nskips = [\"B602\", \"B608\", \"B105\"]\n",
                Auth,
            ),
            (
                "pyproject.toml",
                "[tool.bandit]\nexclude_dirs = [\"tests\"]\n",
                "[tool.bandit]\nexclude_dirs = [\"tests\"]\nskips = [\"B101\", \"B311\"]\n",
                Pass,
            ),
            (
                ".github/workflows/deploy.yml",
                "            --certificate-identity=https://github.com/acme/api/.github/workflows/release.yml@refs/heads/main \\\n",
                "            --certificate-identity-regexp '.*' \\\n",
                Auth,
            ),
            (
                ".github/workflows/deploy.yml",
                "            --certificate-identity=https://github.com/acme/api/.github/workflows/release.yml@refs/heads/main \\\n",
                "            --certificate-identity-regexp '^https://github.com/acme/api/' \\\n",
                Pass,
            ),
            (
                "tests/test_security.py",
                "def test_csrf_rejects_missing_token(client):\n",
                "@pytest.mark.xfail(strict=False, reason=\"flaky\")\ndef test_csrf_rejects_missing_token(client):\n",
                Auth,
            ),
            (
                "internal/auth/auth_test.go",
                "func TestRejectsForgedToken(t *testing.T) {\n",
                "func TestRejectsForgedToken(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip(\"slow\")\n\t}\n",
                Auth,
            ),
            (
                "tests/test_export.py",
                "def test_export_large_csv(tmp_path):\n",
                "@pytest.mark.skip(reason=\"needs S3\")\ndef test_export_large_csv(tmp_path):\n",
                Pass,
            ),
            // Scanner policies ignoring everything.
            (
                ".snyk",
                "",
                "version: v1.25.0\nignore:\n  '*':\n    - '*':\n        reason: noise\n",
                Auth,
            ),
            (
                ".snyk",
                "",
                "version: v1.25.0\nignore:\n  SNYK-JS-LODASH-567746:\n    - '*':\n        reason: not reachable\n",
                Pass,
            ),
            (
                "deny.toml",
                "",
                "[advisories]\nignore = [\"RUSTSEC-*\"]\n[sources]\nunknown-registry = \"allow\"\n",
                Auth,
            ),
            (
                "deny.toml",
                "",
                "[advisories]\nignore = [\"RUSTSEC-2023-0071\"]\n[sources]\nunknown-registry = \"deny\"\n",
                Pass,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {new:?}: {reasons:?}");
            if want == Auth {
                assert!(
                    reasons.iter().any(|r| r == "check_disabled"),
                    "{path}: {reasons:?}"
                );
            }
        }
        table(
            Mode::Balanced,
            &[
                (
                    "gh api -X PATCH repos/acme/api/branches/main/protection/required_status_checks -F strict=false -f 'contexts[]='",
                    Auth,
                    "check_disabled",
                ),
                (
                    "gh api -X PUT repos/acme/api/rulesets/1234 -f enforcement=evaluate",
                    Auth,
                    "check_disabled",
                ),
                (
                    "gh api -X PATCH repos/acme/api/dependabot/alerts/17 -f state=dismissed -f dismissed_reason=tolerable_risk",
                    Auth,
                    "check_disabled",
                ),
                ("gh api repos/acme/api/branches/main/protection", Pass, ""),
                (
                    "gh api -X PUT repos/acme/api/rulesets/1234 -f enforcement=active",
                    Pass,
                    "",
                ),
                (
                    "gh api repos/acme/api/dependabot/alerts --jq '.[].state'",
                    Pass,
                    "",
                ),
            ],
        );
    }

    #[test]
    fn pull_requests_approved_through_mcp() {
        use crate::rules::testutil::{CWD, engine, mcp_call};
        use serde_json::json;
        let e = engine(Mode::Balanced);
        let s = crate::session::SessionState::default();
        for (args, want) in [
            (
                json!({"owner": "acme", "repo": "webapp", "pull_number": 733, "event": "APPROVE", "body": "LGTM"}),
                true,
            ),
            (
                json!({"owner": "acme", "repo": "webapp", "pull_number": 733, "event": "COMMENT", "body": "nit"}),
                false,
            ),
        ] {
            let d = e.decide(
                &mcp_call("github", "create_pull_request_review", args, CWD),
                &s,
            );
            assert_eq!(
                d.codes().contains(&"check_disabled"),
                want,
                "{:?}",
                d.codes()
            );
        }
    }

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
                (
                    "mvn -B deploy -P release -Ddependency-check.skip=true -Dspotbugs.skip=true",
                    Auth,
                    "check_disabled",
                ),
                (
                    "npm publish --ignore-scripts --access public",
                    Auth,
                    "check_disabled",
                ),
                (
                    "gh workflow disable codeql.yml && gh workflow disable dependency-review.yml",
                    Auth,
                    "check_disabled",
                ),
                ("gh workflow disable nightly-docs.yml", Pass, ""),
                ("mvn -B verify -Dcheckstyle.skip=true", Pass, ""),
                ("npm publish --access public", Pass, ""),
                (
                    "git push -o ci.skip origin HEAD:main",
                    Auth,
                    "check_disabled",
                ),
                (
                    "git push -o merge_request.create -o merge_request.target=main origin feature/x",
                    Pass,
                    "",
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

    /// Checks made non-fatal by an edit, beside fallbacks that still fail and tolerant
    /// lines that were tolerant before.
    #[test]
    fn checks_made_nonfatal_table() {
        use crate::rules::testutil::edit_table;
        let sh = "scripts/deploy.sh";
        edit_table(&[
            (
                sh,
                "set -e\ncosign verify --key cosign.pub \"$IMAGE\"\nkubectl apply -f k8s/\n",
                "set -e\ncosign verify --key cosign.pub \"$IMAGE\" >/dev/null 2>&1 || echo \"warn: skipped\"\nkubectl apply -f k8s/\n",
                Auth,
            ),
            (
                sh,
                "set -e\ncosign verify --key cosign.pub \"$IMAGE\"\n",
                "set -e\ncosign verify --key cosign.pub \"$IMAGE\" || { echo \"bad signature\" >&2; exit 1; }\n",
                Pass,
            ),
            (
                sh,
                "sha256sum -c SHA256SUMS\n",
                "sha256sum -c SHA256SUMS || true\n",
                Auth,
            ),
            (
                sh,
                "sha256sum -c SHA256SUMS\n",
                "sha256sum -c --quiet SHA256SUMS\n",
                Pass,
            ),
            (
                sh,
                "gpg --verify app.sig app.tgz\n",
                "gpg --verify app.sig app.tgz || :\n",
                Auth,
            ),
            (
                sh,
                "gpg --verify app.sig app.tgz\n",
                "gpg --verify app.sig app.tgz || die \"bad sig\"\n",
                Pass,
            ),
            (
                "ci/test.sh",
                "set -e\npytest -q\n",
                "set -e\npytest -q || true\n",
                Auth,
            ),
            (
                "ci/test.sh",
                "set -e\npytest -q\n",
                "set -e\npytest -q -n auto\n",
                Pass,
            ),
            (
                "ci/test.sh",
                "pytest -q || true\n",
                "pytest -q -x || true\n",
                Pass,
            ),
            (
                "Makefile",
                "test:\n\tgo test ./...\n",
                "test:\n\tgo test ./... ; true\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test || exit 0\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test || (cat logs/test.log && exit 1)\n",
                Pass,
            ),
            (
                ".github/workflows/security.yml",
                "      - run: semgrep ci --config p/python --error\n",
                "      - run: semgrep --config p/python src/ --quiet\n",
                Auth,
            ),
            (
                ".github/workflows/security.yml",
                "      - run: semgrep ci --config p/python --error\n",
                "      - run: semgrep ci --config p/python --config p/secrets --error\n",
                Pass,
            ),
            (
                ".gitlab-ci.yml",
                "  script:\n    - trivy image --exit-code 1 --severity HIGH,CRITICAL $IMAGE\n",
                "  script:\n    - trivy image --severity HIGH,CRITICAL $IMAGE\n",
                Auth,
            ),
            (
                ".gitlab-ci.yml",
                "  script:\n    - trivy image --exit-code 1 --severity HIGH,CRITICAL $IMAGE\n",
                "  script:\n    - trivy image --exit-code 1 --severity HIGH,CRITICAL --ignore-unfixed $IMAGE\n",
                Pass,
            ),
            // A fallback that is not a check: `npm ci || npm install`.
            (sh, "npm ci\n", "npm ci || npm install\n", Pass),
        ]);
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
                    ("chmod -x .husky/pre-commit", Auth, "verification_bypass"),
                    ("chmod +x .husky/pre-commit scripts/*.sh", Pass, ""),
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
