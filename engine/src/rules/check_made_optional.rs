//! A security check kept in the code but made to depend on something else.
//!
//! **What it does:** an edit that leaves a check in place and makes it optional is
//! `check_made_optional`, AUTH (PASS in light; BLOCK in paranoid, and from strict up once the
//! session took in untrusted content):
//! - a setting whose safe value was a literal now takes an expression (`block_public_acls =
//!   true` → `!var.allow_public`, `InsecureSkipVerify: !verifyUpstream`, `options={
//!   "verify_signature": settings.JWT_VERIFY}`): the literal that nobody could change
//!   became a switch somebody can;
//! - a refusal gains a condition (`if err != nil {` → `if err != nil && cfg.StrictAuth {`
//!   in front of a `401`);
//! - a sanitiser, verifier or permission check moved into one branch of a conditional
//!   whose other branch is the raw value (`return RICH ? dirty : DOMPurify.sanitize(dirty)`).
//!
//! Tests, fixtures and a developer's local settings are not judged.
//! **Why:** a check behind a switch still reads as a check in review, and the switch is
//! the attack: its default, an environment variable or a header decides.
//! **Example:** `block_public_acls = true` → `block_public_acls = !var.allow_public_exports`
//! in `envs/prod/s3.tf` → `check_made_optional`.

use crate::code::{Hunk, SourceWrite, compact, is_test_or_dev};
use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const CHECK_MADE_OPTIONAL: Reason = Reason::new(
    "check_made_optional",
    "Makes a security check depend on a flag, setting or variable instead of always applying.",
);

/// Settings whose safe value is a literal (compact key, safe literal, `absent_is_safe`):
/// with `absent_is_safe` the key newly set to anything but its safe literal is judged;
/// without it only a replacement of the safe literal is (a library passing an option
/// through is ordinary).
const SAFE_LITERALS: &[(&str, &str, bool)] = &[
    ("rejectunauthorized", "true", false),
    ("verify_signature", "true", true),
    ("verify_exp", "true", true),
    ("verify_aud", "true", true),
    ("block_public_acls", "true", false),
    ("block_public_policy", "true", false),
    ("ignore_public_acls", "true", false),
    ("restrict_public_buckets", "true", false),
    ("blockpublicacls", "true", false),
    ("blockpublicpolicy", "true", false),
    ("ignorepublicacls", "true", false),
    ("restrictpublicbuckets", "true", false),
    ("validateissuersigningkey", "true", false),
    ("validatelifetime", "true", false),
    ("validateissuer", "true", false),
    ("requirehttpsmetadata", "true", false),
    ("check_hostname", "true", false),
    ("sslverify", "true", false),
    ("ssl_verify", "true", false),
    ("verify_ssl", "true", false),
    ("tls_verify", "true", false),
    ("wtf_csrf_enabled", "true", false),
    ("csrf_enabled", "true", false),
    ("requiresignedtokens", "true", false),
    ("insecureskipverify", "false", true),
    ("insecure_skip_verify", "false", true),
    ("insecure_skip_tls_verify", "false", true),
    ("insecure-skip-tls-verify", "false", true),
    ("danger_accept_invalid_certs", "false", true),
    ("danger_accept_invalid_hostnames", "false", true),
    ("ignoreexpiration", "false", true),
    ("allowinsecureconnections", "false", true),
    ("trust_chain_verification", "verify_trust_chain", true),
];

/// The value set for `key` on a compact line (`key: v`, `key = v`, `key => v`, `key(v)`),
/// up to the first `,`, `;`, `}` or `)`; `None` when the line does not set it.
fn value_of<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (i, _) = line.match_indices(key).find(|(i, _)| {
        !line[..*i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })?;
    let rest = &line[i + key.len()..];
    let rest = rest
        .strip_prefix("=>")
        .or_else(|| rest.strip_prefix(":="))
        .or_else(|| rest.strip_prefix('='))
        .or_else(|| rest.strip_prefix(':'))
        .or_else(|| rest.strip_prefix('('))?;
    if rest.starts_with('=') {
        // A comparison (`key == x`), not a setting.
        return None;
    }
    // Up to the end of the value, or a trailing comment.
    let end = rest
        .find([',', ';', '}', ')', '#'])
        .unwrap_or(rest.len())
        .min(rest.find("//").unwrap_or(rest.len()));
    Some(&rest[..end])
}

/// A setting's literal safe value replaced by anything else.
fn safe_literal_replaced(h: &Hunk) -> bool {
    let old_lines: Vec<String> = h.old_lower.lines().map(compact).collect();
    h.new_lower.lines().map(compact).any(|line| {
        SAFE_LITERALS.iter().any(|(key, safe, absent_is_safe)| {
            let Some(value) = value_of(&line, key) else {
                return false;
            };
            let value = value.trim_end_matches(['{', '[']);
            if value.is_empty() || value == *safe || old_lines.contains(&line) {
                return false;
            }
            let was_safe = old_lines
                .iter()
                .any(|o| value_of(o, key).is_some_and(|v| v == *safe));
            let was_set_same = old_lines
                .iter()
                .any(|o| value_of(o, key).is_some_and(|v| v == value));
            !was_set_same && (was_safe || *absent_is_safe)
        })
    })
}

/// Words of a refusal in the code a guard runs.
const REFUSALS: &[&str] = &[
    "unauthorized",
    "unauthorised",
    "forbidden",
    "401",
    "403",
    "permissiondenied",
    "accessdenied",
    "notauthenticated",
    "authenticationfailed",
    "access denied",
    "not allowed",
];

/// Words of a switch: something configured, not something about the request.
const SWITCHES: &[&str] = &[
    "cfg", "config", "settings", "env", "strict", "enforce", "enabled", "flag", "feature", "mode",
    "debug", "option", "opts",
];

/// The text inserted into `old` to make `new`, when `new` is `old` with one insertion.
fn insertion<'a>(old: &str, new: &'a str) -> Option<&'a str> {
    if new.len() <= old.len() {
        return None;
    }
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len() - prefix);
    (prefix + suffix == old.len())
        .then(|| new.get(prefix..new.len() - suffix))
        .flatten()
}

/// A guard in front of a refusal that gains `&& <switch>`.
fn refusal_made_conditional(h: &Hunk) -> bool {
    if !REFUSALS.iter().any(|r| h.old.contains(r)) {
        return false;
    }
    let old_lines: Vec<String> = h.old_lower.lines().map(compact).collect();
    let guards: Vec<&String> = old_lines
        .iter()
        .filter(|o| o.starts_with("if") || o.starts_with("}elseif") || o.starts_with("unless"))
        .collect();
    h.new_lower.lines().map(compact).any(|line| {
        !old_lines.contains(&line)
            && guards.iter().any(|o| {
                insertion(o, &line).is_some_and(|ins| {
                    let ins = ins.trim_start();
                    (ins.starts_with("&&") || ins.starts_with("and "))
                        && SWITCHES.iter().any(|s| ins.contains(s))
                })
            })
    })
}

/// Calls that clean, verify or authorise a value.
const CHECK_CALLS: &[&str] = &[
    "sanitize",
    "escape",
    "purify",
    "bleach.",
    "verify",
    "authenticat",
    "authoriz",
    "permission",
    "csrf",
    "validate",
];

/// A checking call moved into one branch of a conditional (`cond ? raw : check(raw)`,
/// `raw if cond else check(raw)`).
fn check_moved_into_a_branch(h: &Hunk) -> bool {
    let old_lines: Vec<String> = h.old_lower.lines().map(compact).collect();
    let new_lines: Vec<String> = h.new_lower.lines().map(compact).collect();
    old_lines.iter().any(|o| {
        let body = o.trim_start_matches("return ").trim_end_matches(';');
        if body.len() < 8
            || o.contains('?')
            || o.contains(" if ")
            || !CHECK_CALLS.iter().any(|c| body.contains(c))
        {
            return false;
        }
        new_lines.iter().any(|n| {
            let Some(at) = n.find(body) else {
                return false;
            };
            n != o
                && ((n[..at].contains('?') && n[..at].ends_with(':'))
                    || (n[..at].contains(" if ") && n[..at].ends_with("else "))
                    || (n[at..].contains(" if ") && n[at..].contains("else")))
        })
    })
}

pub(crate) fn made_optional(w: &SourceWrite) -> bool {
    !is_test_or_dev(&w.path)
        && !super::weakened_code::scanner_rules(&w.path)
        && w.hunks.iter().any(|h| {
            safe_literal_replaced(h) || refusal_made_conditional(h) || check_moved_into_a_branch(h)
        })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(w) = cx.source_write() else {
        return;
    };
    if made_optional(w) {
        out.push(Finding::new(CHECK_MADE_OPTIONAL, cx.code_edit_verdict()));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn checks_behind_a_switch_and_their_look_alikes() {
        let cases: &[(&str, &str, &str, Verdict)] = &[
            // A literal safe value replaced by an expression.
            (
                "/home/dev/src/infra/envs/prod/s3.tf",
                "  block_public_acls       = true\n  block_public_policy     = true\n",
                "  block_public_acls       = !var.allow_public\n  block_public_policy     = !var.allow_public\n",
                Auth,
            ),
            (
                "/home/dev/src/infra/envs/prod/s3.tf",
                "  block_public_acls       = true\n",
                "  block_public_acls       = true # keep private\n",
                Pass,
            ),
            // A module passing the option through, new: a library's ordinary shape.
            (
                "/home/dev/src/infra/modules/bucket/main.tf",
                "",
                "  block_public_acls       = var.block_public_acls\n",
                Pass,
            ),
            (
                "/home/dev/src/svc/internal/upstream/client.go",
                "\t\tTLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12},\n",
                "\t\tTLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: !verifyUpstream},\n",
                Auth,
            ),
            (
                "/home/dev/src/svc/internal/upstream/client.go",
                "\t\tTLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12},\n",
                "\t\tTLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: false},\n",
                Pass,
            ),
            (
                "/home/dev/src/webapp/accounts/jwt_auth.py",
                "        claims = jwt.decode(token, key, algorithms=ALGS)\n",
                "        claims = jwt.decode(\n            token,\n            key,\n            algorithms=ALGS,\n            options={\"verify_signature\": settings.JWT_VERIFY},\n        )\n",
                Auth,
            ),
            (
                "/home/dev/src/webapp/accounts/jwt_auth.py",
                "            options={\"verify_signature\": True},\n",
                "            options={\"verify_signature\": settings.JWT_VERIFY},\n",
                Auth,
            ),
            (
                "/home/dev/src/api/src/ledger.js",
                "  rejectUnauthorized: true,\n",
                "  rejectUnauthorized: process.env.LEDGER_TLS !== 'off',\n",
                Auth,
            ),
            (
                "/home/dev/src/api/src/ledger.js",
                "  rejectUnauthorized: true,\n",
                "  rejectUnauthorized: true,\n  ca: fs.readFileSync(caPath),\n",
                Pass,
            ),
            // A refusal behind a switch.
            (
                "/home/dev/src/gateway/internal/auth/middleware.go",
                "\t\tif err != nil {\n\t\t\thttp.Error(w, \"unauthorized\", http.StatusUnauthorized)\n\t\t\treturn\n\t\t}\n",
                "\t\tif err != nil && m.cfg.StrictAuth {\n\t\t\thttp.Error(w, \"unauthorized\", http.StatusUnauthorized)\n\t\t\treturn\n\t\t}\n",
                Auth,
            ),
            (
                "/home/dev/src/app/views.py",
                "    if not request.user.is_authenticated:\n        raise PermissionDenied()\n",
                "    if not request.user.is_authenticated and settings.ENFORCE_LOGIN:\n        raise PermissionDenied()\n",
                Auth,
            ),
            // A narrower error class, or a second refusal: not a switch.
            (
                "/home/dev/src/gateway/internal/auth/middleware.go",
                "\t\tif err != nil {\n\t\t\thttp.Error(w, \"unauthorized\", http.StatusUnauthorized)\n",
                "\t\tif err != nil && !errors.Is(err, context.Canceled) {\n\t\t\thttp.Error(w, \"unauthorized\", http.StatusUnauthorized)\n",
                Pass,
            ),
            (
                "/home/dev/src/gateway/internal/auth/middleware.go",
                "\t\tif err != nil {\n\t\t\thttp.Error(w, \"unauthorized\", http.StatusUnauthorized)\n",
                "\t\tif err != nil || claims.Expired() {\n\t\t\thttp.Error(w, \"unauthorized\", http.StatusUnauthorized)\n",
                Pass,
            ),
            // Outside a refusal, a switch is ordinary.
            (
                "/home/dev/src/app/cache.go",
                "\tif err != nil {\n\t\treturn nil, err\n\t}\n",
                "\tif err != nil && cfg.Strict {\n\t\treturn nil, err\n\t}\n",
                Pass,
            ),
            // A sanitiser moved into one branch.
            (
                "/home/dev/src/dashboard/lib/sanitize.ts",
                "  return DOMPurify.sanitize(dirty, { USE_PROFILES: { html: true } });\n",
                "  return RICH_HTML ? dirty : DOMPurify.sanitize(dirty, { USE_PROFILES: { html: true } });\n",
                Auth,
            ),
            (
                "/home/dev/src/app/render.py",
                "    return bleach.clean(html, tags=ALLOWED)\n",
                "    return html if settings.TRUSTED_EDITOR else bleach.clean(html, tags=ALLOWED)\n",
                Auth,
            ),
            (
                "/home/dev/src/dashboard/lib/sanitize.ts",
                "  return DOMPurify.sanitize(dirty, { USE_PROFILES: { html: true } });\n",
                "  return DOMPurify.sanitize(dirty, { USE_PROFILES: { html: true, svg: true } });\n",
                Pass,
            ),
            (
                "/home/dev/src/dashboard/lib/sanitize.ts",
                "  return DOMPurify.sanitize(dirty, { USE_PROFILES: { html: true } });\n",
                "  return dirty ? DOMPurify.sanitize(dirty, { USE_PROFILES: { html: true } }) : '';\n",
                Pass,
            ),
            // Tests are where switches are routine.
            (
                "/home/dev/src/infra/test/s3_test.tf",
                "  block_public_acls       = true\n",
                "  block_public_acls       = var.block\n",
                Pass,
            ),
        ];
        for (path, old, new, want) in cases {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, *want, "{path}: {new} → {reasons:?}");
        }
    }
}
