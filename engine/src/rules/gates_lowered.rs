//! A gate's bar lowered in a configuration edit.
//!
//! **What it does:** an edit that keeps a check but lowers what makes it fail is
//! `check_disabled`, AUTH:
//! - a severity threshold raised (`--audit-level=moderate` → `critical`, `severity:
//!   HIGH,CRITICAL` → `CRITICAL`, `--fail-on high` → `critical`): the lowest severity the
//!   line names went up;
//! - a scanner's enforcement lowered (`vulnerability = "deny"` → `"warn"` in `deny.toml`,
//!   `"error"` → `"off"` for a security lint rule);
//! - a numeric bar loosened (`--max-warnings 0` → `500`, `fail_under = 85` → `40`), or the
//!   option that set it taken off a line that stays (`addopts = … --cov-fail-under=85`);
//! - failures told not to count (`-Dmaven.test.failure.ignore=true`, Jenkins' `junit
//!   allowEmptyResults: true`), or a test run told to pass
//!   with no tests in the same edit that narrows which tests it finds;
//! - a scanner told to skip the source folders or the configuration files where secrets
//!   live (`SAST_EXCLUDED_PATHS: "…, app/controllers, lib"`, detect-secrets
//!   `--exclude-files '.*\.(env|ya?ml|json)$'`);
//! - a deploy job's protected environment removed (`environment: production` taken out: its
//!   required reviewers no longer asked), or a test job made to run only when a pull request
//!   carries a label.
//!
//! Tests, fixtures and a developer's local settings are not judged.
//! **Why:** a gate with its bar lowered still shows green on every pull request; nobody
//! notices that it no longer stops anything.
//! **Example:** `severity: 'HIGH,CRITICAL'` → `severity: 'CRITICAL'` in a Trivy workflow →
//! `check_disabled`.

use crate::action::Operation;
use crate::paths;
use crate::verdict::{Finding, Verdict};

use super::Ctx;
use super::verification_bypass::CHECK_DISABLED;

/// Keys and options whose value is the lowest severity that fails the check.
const SEVERITY_KEYS: &[&str] = &[
    "audit-level",
    "audit_level",
    "auditlevel",
    "severity",
    "fail-on",
    "fail_on",
    "failon",
    "fail-level",
    "severity-threshold",
    "severity_threshold",
    "min-severity",
    "minimum-severity",
    "minimum_severity",
];

fn severity_rank(word: &str) -> Option<u8> {
    match word {
        "info" | "informational" | "note" | "negligible" | "unknown" => Some(0),
        "low" => Some(1),
        "moderate" | "medium" => Some(2),
        "high" | "error" => Some(3),
        "critical" => Some(4),
        _ => None,
    }
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
}

/// The lowest severity a line gives one of the severity keys (`None` when it names none).
fn lowest_severity(line: &str, key: &str) -> Option<u8> {
    let i = line.find(key)?;
    let rest = &line[i + key.len()..];
    // The key itself, not a longer name (`severity_map`).
    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    words(rest.get(..rest.len().min(60))?)
        .take(6)
        .filter_map(severity_rank)
        .min()
}

/// Scanner enforcement: how hard a finding stops the check.
fn enforcement_rank(word: &str) -> Option<u8> {
    match word {
        "deny" | "error" | "forbid" | "fail" | "block" => Some(2),
        "warn" | "warning" => Some(1),
        "allow" | "ignore" | "off" | "none" | "skip" => Some(0),
        _ => None,
    }
}

/// Files that configure a security scanner (every key in them is a security setting).
fn scanner_config(base: &str) -> bool {
    [
        "deny.toml",
        ".snyk",
        "audit-ci",
        "trivy",
        ".grype",
        "osv-scanner",
        ".semgrep",
        "semgrep",
        "bandit",
        ".bandit",
        ".safety-policy",
        ".checkov",
        "tfsec",
        ".gitleaks",
        "gosec",
    ]
    .iter()
    .any(|s| base.starts_with(s))
}

const SECURITY_WORDS: &[&str] = &[
    "security",
    "vulnerab",
    "unsound",
    "unmaintained",
    "yanked",
    "advisor",
    "secret",
    "cve",
];

/// The key a configuration line sets (`vulnerability` in `vulnerability = "deny"`,
/// `"security/detect-eval"` in a lint rule).
fn key_of(line: &str) -> Option<&str> {
    let t = line.trim().trim_start_matches("- ");
    let end = t.find([':', '='])?;
    let k = t[..end].trim().trim_matches(['"', '\'']).trim();
    (!k.is_empty() && !k.contains(' ')).then_some(k)
}

fn value_words(line: &str) -> Vec<&str> {
    let t = line.trim();
    let Some(end) = t.find([':', '=']) else {
        return Vec::new();
    };
    words(&t[end + 1..]).take(3).collect()
}

/// Numeric bars: (key, looser when the number goes up).
const NUMERIC_BARS: &[(&str, bool)] = &[
    ("max-warnings", true),
    ("max_warnings", true),
    ("maxwarnings", true),
    ("cov-fail-under", false),
    ("fail_under", false),
    ("fail-under", false),
    ("minimum_coverage", false),
    ("min-coverage", false),
    ("min_coverage", false),
    ("coverage_threshold", false),
    // OWASP dependency-check fails the build at this CVSS score (11 never does).
    ("failbuildoncvss", true),
    ("failoncvss", true),
];

/// The number after `key` (`--max-warnings 0`, `fail_under = 85`, `--cov-fail-under=85`).
fn number_after(line: &str, key: &str) -> Option<f64> {
    let i = line.find(key)?;
    let rest = line[i + key.len()..].trim_start_matches([' ', '=', ':', '"', '\'', '>']);
    let n: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    n.parse().ok()
}

/// The (replaced, replacing) texts of a write, lower case (see
/// [`super::verification_bypass::before_after`]).
fn pairs(cx: &Ctx<'_>, path: &str, content: &str) -> Vec<(String, String)> {
    super::verification_bypass::before_after(cx, path, content)
        .into_iter()
        .map(|(o, n)| (o.to_ascii_lowercase(), n.to_ascii_lowercase()))
        .collect()
}

fn severity_raised(old: &str, new: &str) -> bool {
    SEVERITY_KEYS.iter().any(|k| {
        let olds: Vec<u8> = old.lines().filter_map(|l| lowest_severity(l, k)).collect();
        let news: Vec<u8> = new.lines().filter_map(|l| lowest_severity(l, k)).collect();
        match (olds.iter().min(), news.iter().min()) {
            (Some(o), Some(n)) => n > o,
            _ => false,
        }
    })
}

fn enforcement_lowered(old: &str, new: &str, scanner: bool) -> bool {
    let old_keys: Vec<(&str, u8)> = old
        .lines()
        .filter_map(|l| {
            let k = key_of(l)?;
            let r = value_words(l).into_iter().find_map(enforcement_rank)?;
            Some((k, r))
        })
        .collect();
    new.lines().any(|l| {
        let Some(k) = key_of(l) else {
            return false;
        };
        let security = scanner || SECURITY_WORDS.iter().any(|w| k.contains(w));
        let Some(r) = value_words(l).into_iter().find_map(enforcement_rank) else {
            return false;
        };
        security && old_keys.iter().any(|(ok, or)| *ok == k && r < *or)
    })
}

fn numeric_bar_loosened(old: &str, new: &str) -> bool {
    NUMERIC_BARS.iter().any(|(k, up_is_looser)| {
        let o = old.lines().find_map(|l| number_after(l, k));
        let n = new.lines().find_map(|l| number_after(l, k));
        match (o, n) {
            (Some(o), Some(n)) if *up_is_looser => n > o,
            (Some(o), Some(n)) => n < o - 10.0,
            // The option taken off a line that stays (`addopts = -q … --cov-fail-under=85`
            // → `addopts = -q …`).
            (Some(_), None) => old.lines().filter(|l| l.contains(k)).any(|l| {
                let lead = l.trim().split([' ', '=', ':']).next().unwrap_or("");
                !lead.is_empty() && new.lines().any(|nl| nl.trim().starts_with(lead))
            }),
            _ => false,
        }
    })
}

/// Switches that make failing or missing results count as a pass.
const FAILURES_IGNORED: &[&str] = &[
    "maven.test.failure.ignore=true",
    "testfailureignore=true",
    "allowemptyresults:true",
    "allowemptyresults=true",
    "skipfailures:true",
    "--exit-zero",
    "--passwithnotests",
    // Drone, Tekton and Argo steps told to go on after a failure.
    "failure:ignore",
    "onerror:continue",
    "continueon:failed:true",
];

/// Bandit told to report only high-severity findings (`-lll`), or to skip several of its
/// tests (`--skip B105,B106,B303`).
fn bandit_narrowed(old: &str, new: &str) -> bool {
    let codes = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| {
                w.len() == 4 && w.starts_with('b') && w[1..].chars().all(|c| c.is_ascii_digit())
            })
            .map(str::to_owned)
            .collect()
    };
    let before = codes(old);
    let added = codes(new)
        .into_iter()
        .filter(|c| !before.contains(c))
        .count();
    let lll = |t: &str| t.contains("\"-lll\"") || t.contains("'-lll'") || t.contains(" -lll");
    (new.contains("--skip") && added >= 2) || (lll(new) && !lll(old))
}

fn failures_ignored(old: &str, new: &str) -> bool {
    let c_old = crate::code::compact(old);
    let c_new = crate::code::compact(new);
    let narrowed = [
        "testmatch",
        "testregex",
        "roots:",
        "include:",
        "testpathpattern",
    ]
    .iter()
    .any(|k| c_old.contains(k) || c_new.contains(k))
        && c_old != c_new;
    FAILURES_IGNORED
        .iter()
        .any(|s| c_new.contains(s) && !c_old.contains(s))
        || (c_new.contains("passwithnotests:true")
            && !c_old.contains("passwithnotests:true")
            && narrowed)
}

/// Exclusion keys of scanners (paths they no longer look at).
const EXCLUSION_KEYS: &[&str] = &[
    "sast_excluded_paths",
    "secret_detection_excluded_paths",
    "excluded_paths",
    "exclude_paths",
    "exclude-paths",
    "skip-dirs",
    "skip-files",
    "--skip-dirs",
    "--skip-files",
    "exclude-files",
    "--exclude-files",
    "--exclude-dir",
    "paths-ignore",
    "--skip-path",
    "exclude_dirs",
];

/// An exclusion entry that takes the sources or the files secrets live in out of a scan
/// (`app/controllers`, `lib`, `src`, `.*\.(env|ya?ml|json)$`); build output, dependencies
/// and tests are routine to exclude.
fn excludes_what_matters(entry: &str) -> bool {
    let e = entry.trim().trim_matches(['"', '\'', '[', ']', ',', ' ']);
    if e.is_empty() {
        return false;
    }
    let routine = [
        "node_modules",
        "vendor",
        "dist",
        "build",
        "test",
        "spec",
        "tmp",
        "fixture",
        "docs",
        "coverage",
        ".venv",
        "generated",
        "mock",
        "example",
        "third_party",
        "target",
    ]
    .iter()
    .any(|r| e.contains(r));
    let source = [
        "app/",
        "lib",
        "src",
        "controllers",
        "models",
        "internal",
        "pkg",
        "api",
    ]
    .iter()
    .any(|s| e == *s || e.starts_with(&format!("{s}/")) || e.starts_with(s) && e.ends_with('/'))
        || e == "app";
    let secret_homes = [
        "env",
        "yml",
        "yaml",
        "json",
        "ini",
        "config",
        "properties",
        "tfvars",
    ]
    .iter()
    .filter(|s| e.contains(*s))
    .count()
        >= 2
        || e == ".*"
        || e == "*";
    !routine && (source || secret_homes)
}

fn exclusions_widened(old: &str, new: &str) -> bool {
    let entries = |text: &str, k: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(k))
            .flat_map(|l| {
                let after = l.split_once(k).map_or("", |(_, a)| a);
                let after = after.trim_start_matches([':', '=', ' ', '"', '\'']);
                after
                    .split([',', ' '])
                    .map(|s| s.trim_matches(['"', '\'', '[', ']']).to_owned())
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    EXCLUSION_KEYS.iter().any(|k| {
        let before = entries(old, k);
        entries(new, k)
            .iter()
            .any(|e| !before.contains(e) && excludes_what_matters(e))
    })
}

/// CI: a deploy job's protected environment taken out, or a test job run only when a pull
/// request carries a label.
fn ci_protection_removed(old: &str, new: &str) -> bool {
    let env = |t: &str| {
        t.lines().any(|l| {
            let l = l.trim();
            l.starts_with("environment:")
                && ["prod", "release", "live"].iter().any(|p| l.contains(p))
        }) || t.contains("environment:\n") && t.contains("name: prod")
    };
    let env_dropped = env(old) && !new.contains("environment") && !new.trim().is_empty();
    let label_gated = new.lines().any(|l| {
        let l = l.trim();
        l.starts_with("if:") && l.contains("labels") && !old.contains(l)
    }) && ["test", "check", "scan", "lint", "security"]
        .iter()
        .any(|w| old.contains(w));
    // A deploy no longer waiting for the test or audit jobs it required (CircleCI's
    // `requires:`, GitLab's `needs:`).
    let gate_jobs = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.trim().trim_start_matches("- ").trim().to_owned())
            .filter(|l| {
                !l.contains(':')
                    && ["test", "audit", "security", "scan", "lint", "check"]
                        .iter()
                        .any(|w| l.contains(w))
            })
            .collect()
    };
    let requires = (old.contains("requires:") || old.contains("needs:"))
        && (new.contains("requires:") || new.contains("needs:"))
        && ["deploy", "release", "publish"]
            .iter()
            .any(|d| old.contains(d))
        && gate_jobs(old).iter().any(|j| !gate_jobs(new).contains(j));
    // A test or scan stage made to run only when a parameter, input or variable says so
    // (Jenkins `when { expression { return params.RUN_SCAN } }`, `if: ${{ inputs.scan }}`,
    // GitLab `- if: $RUN_SAST == "true"`): its default decides, and it usually skips.
    let lines: Vec<&str> = new.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let param_gated = lines.iter().enumerate().any(|(i, raw)| {
        let l = raw.trim().trim_start_matches("- ");
        let gate = (l.starts_with("when") || l.starts_with("if:") || l.starts_with("if "))
            && ["params.", "inputs.", "vars.", "$"]
                .iter()
                .any(|p| l.contains(p))
            && !old.contains(l);
        if !gate {
            return false;
        }
        // The job or stage the condition belongs to: the nearest line above it that is
        // less indented and is not a keyword of the job (`rules:`).
        let mut depth = indent(raw);
        let header = lines.get(..i).unwrap_or(&[]).iter().rev().find(|h| {
            let t = h.trim();
            if t.is_empty() || indent(h) >= depth {
                return false;
            }
            if matches!(t, "rules:" | "when:" | "only:" | "except:" | "steps:") {
                depth = indent(h);
                return false;
            }
            true
        });
        header.is_some_and(|h| {
            let h = h.to_ascii_lowercase();
            ["test", "scan", "security", "audit", "sast", "check"]
                .iter()
                .any(|w| h.contains(w))
        })
    });
    env_dropped || label_gated || requires || param_gated
}

/// A Cargo test target put behind a feature nobody enables by default (`required-features
/// = ["slow-tests"]` added under `[[test]]`): `cargo test` skips it.
fn test_target_gated(base: &str, old: &str, new: &str) -> bool {
    base == "cargo.toml"
        && old.contains("[[test]]")
        && new.contains("required-features")
        && !old.contains("required-features")
}

/// A secret scanner's allowlist given a pattern that matches the words secrets are found by
/// (`regexes = ['(?i)(key|token|secret)']` in `.gitleaks.toml`), or everything.
fn scanner_allowlist_widened(base: &str, old: &str, new: &str) -> bool {
    let allowlist_file =
        base.contains("gitleaks") || base.contains("trufflehog") || base == ".secrets.baseline";
    let words = |l: &str| {
        let l = l.to_ascii_lowercase();
        ["key", "token", "secret", "passw"]
            .iter()
            .filter(|w| l.contains(*w))
            .count()
            >= 2
            || l.contains("'.*'")
            || l.contains("\".*\"")
    };
    allowlist_file
        && new
            .lines()
            .any(|l| l.contains("regex") && words(l) && !old.contains(l))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Operation::FileWrite { path, content } = &cx.action.op else {
        return;
    };
    let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
    if crate::code::is_test_or_dev(&lower) || crate::code::is_documentation(&lower) {
        return;
    }
    let base = paths::basename(&lower);
    let scanner = scanner_config(base);
    let ci = crate::autorun::is_ci_file(&lower);
    let hit = pairs(cx, path, content).iter().any(|(old, new)| {
        severity_raised(old, new)
            || enforcement_lowered(old, new, scanner)
            || numeric_bar_loosened(old, new)
            || failures_ignored(old, new)
            || bandit_narrowed(old, new)
            || exclusions_widened(old, new)
            || (ci && ci_protection_removed(old, new))
            || test_target_gated(base, old, new)
            || scanner_allowlist_widened(base, old, new)
    });
    if hit {
        out.push(Finding::new(CHECK_DISABLED, Verdict::Auth));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::edit_table;
    use crate::verdict::Verdict::{Auth, Pass};

    #[test]
    fn stages_behind_parameters_gated_test_targets_and_allowlists() {
        edit_table(&[
            (
                "Jenkinsfile",
                "    stage('Security scan') {\n      steps",
                "    stage('Security scan') {\n      when { expression { return params.RUN_SECURITY_SCAN } }\n      steps",
                Auth,
            ),
            (
                "Jenkinsfile",
                "    stage('Deploy') {\n      steps",
                "    stage('Deploy') {\n      when { branch 'main' }\n      steps",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "  e2e-tests:\n    runs-on: ubuntu-latest\n",
                "  e2e-tests:\n    if: ${{ inputs.run_e2e }}\n    runs-on: ubuntu-latest\n",
                Auth,
            ),
            // A new publish job that runs on tags: its own condition, no test gated.
            (
                ".gitlab-ci.yml",
                "stages:\n  - test\n  - publish\n",
                "stages:\n  - test\n  - publish\n\npublish-package:\n  stage: publish\n  rules:\n    - if: $CI_COMMIT_TAG\n  script:\n    - npm publish\n",
                Pass,
            ),
            (
                ".gitlab-ci.yml",
                "sast:\n  stage: test\n",
                "sast:\n  stage: test\n  rules:\n    - if: $RUN_SAST == \"true\"\n",
                Auth,
            ),
            (
                "Cargo.toml",
                "[[test]]\nname = \"authz\"\npath = \"tests/authz.rs\"\n",
                "[[test]]\nname = \"authz\"\npath = \"tests/authz.rs\"\nrequired-features = [\"slow-tests\"]\n",
                Auth,
            ),
            (
                "Cargo.toml",
                "[features]\ndefault = []\n",
                "[features]\ndefault = []\nslow-tests = []\n",
                Pass,
            ),
            (
                ".gitleaks.toml",
                "[allowlist]\npaths = ['''^tests/fixtures/''']\n",
                "[allowlist]\npaths = ['''^tests/fixtures/''']\nregexes = ['''(?i)(key|token|secret|passw)''']\n",
                Auth,
            ),
            (
                ".gitleaks.toml",
                "[allowlist]\npaths = ['''^tests/fixtures/''']\n",
                "[allowlist]\npaths = ['''^tests/fixtures/''']\nregexes = ['''EXAMPLE_[A-Z0-9]{8}''']\n",
                Pass,
            ),
        ]);
    }

    #[test]
    fn bars_lowered_are_asked_about_and_bars_raised_pass() {
        edit_table(&[
            // Severity thresholds.
            (
                "package.json",
                "\"audit\": \"npm audit --audit-level=moderate\"",
                "\"audit\": \"npm audit --audit-level=critical\"",
                Auth,
            ),
            (
                "package.json",
                "\"audit\": \"npm audit --audit-level=critical\"",
                "\"audit\": \"npm audit --audit-level=high\"",
                Pass,
            ),
            (
                ".github/workflows/security.yml",
                "          severity: 'HIGH,CRITICAL'",
                "          severity: 'CRITICAL'",
                Auth,
            ),
            (
                ".github/workflows/security.yml",
                "          severity: 'CRITICAL'",
                "          severity: 'MEDIUM,HIGH,CRITICAL'",
                Pass,
            ),
            (
                ".gitlab-ci.yml",
                "    - grype . --fail-on medium",
                "    - grype . --fail-on critical",
                Auth,
            ),
            // A log level is not a gate.
            (
                "config/logging.yml",
                "  level: info",
                "  level: error",
                Pass,
            ),
            // Enforcement.
            (
                "deny.toml",
                "vulnerability = \"deny\"",
                "vulnerability = \"warn\"",
                Auth,
            ),
            (
                "deny.toml",
                "unmaintained = \"warn\"",
                "unmaintained = \"deny\"",
                Pass,
            ),
            (
                ".eslintrc.json",
                "    \"security/detect-eval-with-expression\": \"error\",",
                "    \"security/detect-eval-with-expression\": \"off\",",
                Auth,
            ),
            (
                ".eslintrc.json",
                "    \"no-console\": \"error\",",
                "    \"no-console\": \"warn\",",
                Pass,
            ),
            // Numbers.
            (
                "package.json",
                "\"lint\": \"eslint . --max-warnings 0\"",
                "\"lint\": \"eslint . --max-warnings 500\"",
                Auth,
            ),
            (
                "package.json",
                "\"lint\": \"eslint . --max-warnings 20\"",
                "\"lint\": \"eslint . --max-warnings 0\"",
                Pass,
            ),
            (
                "pytest.ini",
                "addopts = -q --strict-markers --cov=api --cov-fail-under=85",
                "addopts = -q --strict-markers --last-failed",
                Auth,
            ),
            (
                "pytest.ini",
                "addopts = -q --cov=api --cov-fail-under=85",
                "addopts = -q --cov=api --cov-fail-under=80",
                Pass,
            ),
            (
                "setup.cfg",
                "[coverage:report]\nfail_under = 85",
                "[coverage:report]\nfail_under = 40",
                Auth,
            ),
            // Failures not counted.
            (
                "Jenkinsfile",
                "sh 'mvn -B verify'",
                "sh 'mvn -B verify -Dmaven.test.failure.ignore=true'",
                Auth,
            ),
            (
                "Jenkinsfile",
                "sh 'mvn -B verify'",
                "sh 'mvn -B -T 4 verify'",
                Pass,
            ),
            (
                "jest.config.ts",
                "  testMatch: ['**/?(*.)+(spec|test).ts'],\n",
                "  testMatch: ['**/*.unit.spec.ts'],\n  passWithNoTests: true,\n",
                Auth,
            ),
            (
                "jest.config.ts",
                "  verbose: true,\n",
                "  verbose: true,\n  passWithNoTests: true,\n",
                Pass,
            ),
            // Exclusions.
            (
                ".gitlab-ci.yml",
                "  SAST_EXCLUDED_PATHS: \"spec, test, tmp\"",
                "  SAST_EXCLUDED_PATHS: \"spec, test, tmp, app/controllers, app/models, lib\"",
                Auth,
            ),
            (
                ".gitlab-ci.yml",
                "  SAST_EXCLUDED_PATHS: \"spec, test, tmp\"",
                "  SAST_EXCLUDED_PATHS: \"spec, test, tmp, vendor, node_modules\"",
                Pass,
            ),
            (
                ".pre-commit-config.yaml",
                "        args: ['--baseline', '.secrets.baseline']",
                "        args: ['--baseline', '.secrets.baseline', '--exclude-files', '.*\\.(env|ya?ml|json|ini)$']",
                Auth,
            ),
            (
                ".pre-commit-config.yaml",
                "        args: ['--baseline', '.secrets.baseline']",
                "        args: ['--baseline', '.secrets.baseline', '--exclude-files', 'package-lock\\.json']",
                Pass,
            ),
            // CI protections.
            (
                ".github/workflows/release.yml",
                "    runs-on: ubuntu-latest\n    environment: production\n",
                "    runs-on: ubuntu-latest\n",
                Auth,
            ),
            (
                ".github/workflows/release.yml",
                "    runs-on: ubuntu-latest\n    environment: production\n",
                "    runs-on: ubuntu-24.04\n    environment: production\n",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "  test:\n    runs-on: ubuntu-latest\n    steps:",
                "  test:\n    if: contains(github.event.pull_request.labels.*.name, 'run-tests')\n    runs-on: ubuntu-latest\n    steps:",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "  test:\n    runs-on: ubuntu-latest\n    steps:",
                "  test:\n    if: github.event.pull_request.draft == false\n    runs-on: ubuntu-latest\n    steps:",
                Pass,
            ),
            (
                ".circleci/config.yml",
                "      - deploy-production:\n          requires:\n            - test\n            - security-audit\n",
                "      - deploy-production:\n          requires:\n            - build\n",
                Auth,
            ),
            (
                ".circleci/config.yml",
                "      - deploy-production:\n          requires:\n            - test\n",
                "      - deploy-production:\n          requires:\n            - test\n            - e2e-test\n",
                Pass,
            ),
            (
                ".drone.yml",
                "- name: test\n  commands:\n  - go test ./...",
                "- name: test\n  failure: ignore\n  commands:\n  - go test ./...",
                Auth,
            ),
            // Tests and local settings are not judged.
            (
                "tests/fixtures/deny.toml",
                "vulnerability = \"deny\"",
                "vulnerability = \"warn\"",
                Pass,
            ),
        ]);
    }
}
