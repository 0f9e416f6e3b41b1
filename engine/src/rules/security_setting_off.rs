//! A security setting switched off in configuration or through an administration API.
//!
//! **What it does:** an edit that changes a setting named for a protection from on to off
//! (`mfa_required: true` → `false`, `enforce_admins = true` → `false`, `"kyc_required": true`
//! → `false`, `encrypted: enabled` → `disabled`), that turns on a setting named for the lack
//! of one (`allow_insecure: false` → `true`, `skip_signature_check`, `public`), or that
//! lowers a count a protection depends on (`required_approving_review_count = 2` → `0`,
//! `payout_hold_days: 7` → `0`); and a call to an administration API that sends such a
//! setting as off (`auth0 api patch … '{"mfa":{"active":false}}'`, `gh api -X PATCH … -F
//! enforce_admins=false`, `curl -X PATCH … -d '{"brute_force_protection": false}'`) are
//! `security_setting_off`, AUTH (PASS in light). Settings switched on, other keys changed, and
//! test fixtures pass.
//! **Why:** the file still parses and the service still runs; what changed is that a check
//! no longer happens, which is what an injected "fix" is for.
//! **Example:** an Edit of `branch_protection.tf` from `enforce_admins = true` to `false` →
//! `security_setting_off`.

use crate::action::Operation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const SECURITY_SETTING_OFF: Reason = Reason::new(
    "security_setting_off",
    "Switches a security setting off in configuration or through an admin API (MFA, signatures, encryption, reviews, audit).",
);

/// A key lower-cased with its separators dropped (`enforce_admins`, `enforceAdmins` →
/// `enforceadmins`).
fn squashed(key: &str) -> String {
    key.to_ascii_lowercase()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// A key named for a protection, where on is the safe value.
fn protective_key(key: &str) -> bool {
    let k = squashed(key);
    [
        "mfa",
        "2fa",
        "twofactor",
        "otp",
        "kyc",
        "fraud",
        "bruteforce",
        "csrf",
        "xss",
        "signature",
        "signed",
        "verif",
        "ssl",
        "tls",
        "encrypt",
        "audit",
        "protect",
        "secure",
        "httponly",
        "lockout",
        "captcha",
        "sanitiz",
        "authentic",
        "authoriz",
        "rowlevel",
        "passwordpolicy",
        "codeowner",
        "enforceadmins",
        "stalereview",
        "statuscheck",
        "secretscanning",
        "pushprotection",
        "dependabot",
        "firewall",
        "ratelimit",
        "deletionprotection",
        "preventdestroy",
        "blockpublic",
        "restrictpublic",
        "ignorepublic",
        // Xcode's build-phase script sandbox, the hardened runtime.
        "scriptsandboxing",
        "hardenedruntime",
    ]
    .iter()
    .any(|w| k.contains(w))
        && !inverted_key(key)
}

/// A key named for the lack of a protection, where on is the unsafe value.
fn inverted_key(key: &str) -> bool {
    let k = squashed(key);
    [
        "insecure",
        "skip",
        "disable",
        "bypass",
        "allowall",
        "publicread",
        "anonymous",
    ]
    .iter()
    .any(|w| k.contains(w))
}

/// Counts a protection depends on: reviews required, days a payout is held, a password's
/// minimum length.
fn protective_count(key: &str) -> bool {
    let k = squashed(key);
    k.contains("reviewcount")
        || k.contains("approvingreview")
        || k.contains("holddays")
        || k.contains("holdperiod")
        || k.contains("minlength") && k.contains("password")
        || k.contains("passwordminlength")
}

fn truthy(v: &str) -> bool {
    matches!(
        v,
        "true" | "yes" | "on" | "enabled" | "enable" | "1" | "required" | "strict" | "enforced"
    )
}

fn falsy(v: &str) -> bool {
    matches!(
        v,
        "false" | "no" | "off" | "disabled" | "disable" | "0" | "none" | "optional" | "permissive"
    )
}

/// `key = value`, `key: value`, `"key": value,` on one line: key and value, unquoted, the
/// value lower-cased.
fn setting(line: &str) -> Option<(String, String)> {
    let l = line.trim().trim_start_matches(['-', ' ']);
    if l.starts_with(['#', '/']) {
        return None;
    }
    let i = l.find([':', '='])?;
    let key = l[..i].trim().trim_matches(['"', '\'', ' ']).to_owned();
    if key.is_empty() || key.contains(char::is_whitespace) {
        return None;
    }
    let value = l[i + 1..]
        .trim()
        .trim_end_matches([',', ';'])
        .trim_matches(['"', '\'', ' '])
        .to_ascii_lowercase();
    Some((key, value))
}

/// One replacement that switches a protective setting off.
fn switched_off(old: &str, new: &str) -> bool {
    let before: Vec<(String, String)> = old.lines().filter_map(setting).collect();
    new.lines().filter_map(setting).any(|(k, v)| {
        before.iter().any(|(ok, ov)| {
            ok == &k
                && (protective_key(&k) && truthy(ov) && falsy(&v)
                    || inverted_key(&k) && falsy(ov) && truthy(&v)
                    || protective_count(&k)
                        && matches!(
                            (ov.parse::<u64>(), v.parse::<u64>()),
                            (Ok(a), Ok(b)) if b < a
                        ))
        })
    })
}

/// The (old, new) text pairs of this call's edits: the file tool's, or an MCP filesystem
/// server's `edits` (`oldText`/`newText`).
fn edits(cx: &Ctx<'_>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = cx
        .facts
        .edits
        .iter()
        .map(|e| (e.old.clone(), e.new.clone()))
        .collect();
    if let Operation::McpCall { arguments, .. } = &cx.action.op
        && let Some(list) = arguments.get("edits").and_then(|v| v.as_array())
    {
        for e in list.iter().take(64) {
            let text = |keys: &[&str]| {
                keys.iter()
                    .find_map(|k| e.get(*k).and_then(|v| v.as_str()))
                    .unwrap_or("")
                    .to_owned()
            };
            out.push((
                text(&["oldText", "old_text", "old_string"]),
                text(&["newText", "new_text", "new_string"]),
            ));
        }
    }
    out
}

/// A protective setting sent as off to an administration API: JSON bodies
/// (`{"mfa":{"active":false}}` counts the enclosing key) and `-f/-F key=false` fields.
fn api_sends_off(inv: &crate::shell::Invocation) -> bool {
    if !matches!(
        inv.program.as_str(),
        "curl" | "http" | "https" | "xh" | "gh" | "glab" | "auth0" | "okta" | "az" | "wget"
    ) {
        return false;
    }
    let args: Vec<&str> = inv.argv().collect();
    let writes = args.iter().any(|a| {
        matches!(
            a.to_ascii_uppercase().as_str(),
            "PATCH" | "PUT" | "POST" | "-XPATCH" | "-XPUT" | "-XPOST"
        ) || matches!(*a, "patch" | "put" | "post" | "update")
    });
    if !writes {
        return false;
    }
    let field_off = args.iter().any(|a| {
        a.split_once('=').is_some_and(|(k, v)| {
            let v = v.to_ascii_lowercase();
            protective_key(k) && falsy(&v) || inverted_key(k) && truthy(&v)
        })
    });
    let json_off = args.iter().any(|a| {
        let t = a.trim();
        t.starts_with('{')
            && serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| json_off(&v, "", 0))
    });
    field_off || json_off
}

fn json_off(v: &serde_json::Value, parent: &str, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    match v {
        serde_json::Value::Object(m) => m.iter().any(|(k, x)| {
            let key = if matches!(k.as_str(), "active" | "enabled" | "enforced" | "status") {
                format!("{parent}_{k}")
            } else {
                k.clone()
            };
            let off = match x {
                serde_json::Value::Bool(b) => {
                    protective_key(&key) && !b || inverted_key(&key) && *b
                }
                serde_json::Value::String(s) => {
                    let s = s.to_ascii_lowercase();
                    protective_key(&key) && falsy(&s)
                }
                _ => false,
            };
            off || json_off(x, k, depth + 1)
        }),
        serde_json::Value::Array(a) => a.iter().take(64).any(|x| json_off(x, parent, depth + 1)),
        _ => false,
    }
}

/// A signer trusted for every identity: a `*` principal added to git's SSH
/// `allowed_signers` (any commit signed with that key then verifies as anyone's).
fn any_signer_trusted(cx: &Ctx<'_>) -> bool {
    let wildcard = |l: &str| {
        let t = l.trim_start();
        t.starts_with("* ") || t.starts_with("*\t") || t.starts_with("\"*\"") || t.starts_with("*,")
    };
    let signers = |p: &str| p.to_ascii_lowercase().ends_with("allowed_signers");
    if let Operation::FileWrite { path, content } = &cx.action.op
        && signers(path)
    {
        return super::verification_bypass::added_lines(cx, content)
            .iter()
            .any(|l| wildcard(l));
    }
    cx.shell.is_some_and(|sa| {
        sa.invocations.iter().any(|inv| {
            inv.redirects
                .iter()
                .any(|r| r.kind != crate::shell::RedirectKind::Read && signers(&r.target.text))
                && inv.argv().any(|a| a.lines().any(wildcard))
        })
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if any_signer_trusted(cx) {
        out.push(Finding::new(
            SECURITY_SETTING_OFF,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
        ));
        return;
    }
    let path = match &cx.action.op {
        Operation::FileWrite { path, .. } => Some(path.as_str()),
        Operation::McpCall { arguments, .. } => arguments
            .get("path")
            .or_else(|| arguments.get("file_path"))
            .and_then(|v| v.as_str()),
        _ => None,
    };
    let fixture = path.is_some_and(|p| crate::code::is_test_or_dev(&p.to_ascii_lowercase()));
    let edited = !fixture && edits(cx).iter().any(|(o, n)| switched_off(o, n));
    let api = cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(api_sends_off));
    if edited || api {
        out.push(Finding::new(
            SECURITY_SETTING_OFF,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::switched_off;
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::{judge_edit, table};

    #[test]
    fn settings_switched_off_in_edits() {
        for (old, new, want) in [
            (
                "  enforce_admins = true\n",
                "  enforce_admins = false\n",
                true,
            ),
            (
                "\"kyc_required\": true,\n",
                "\"kyc_required\": false,\n",
                true,
            ),
            ("mfa_required: yes\n", "mfa_required: no\n", true),
            (
                "    encrypted: enabled\n",
                "    encrypted: disabled\n",
                true,
            ),
            (
                "allow_insecure_tls: false\n",
                "allow_insecure_tls: true\n",
                true,
            ),
            (
                "  required_approving_review_count = 2\n",
                "  required_approving_review_count = 0\n",
                true,
            ),
            (
                "\"payout_hold_days\": 7,\n",
                "\"payout_hold_days\": 0,\n",
                true,
            ),
            (
                "deletion_protection = true\n",
                "deletion_protection = false\n",
                true,
            ),
            // Look-alikes: switched on, other keys, a schema's `required`, a count raised,
            // debug output off.
            ("enforce_admins = false\n", "enforce_admins = true\n", false),
            ("\"required\": true,\n", "\"required\": false,\n", false),
            ("\"dark_mode\": true,\n", "\"dark_mode\": false,\n", false),
            (
                "  required_approving_review_count = 1\n",
                "  required_approving_review_count = 2\n",
                false,
            ),
            (
                "verbose_audit_output: true\n",
                "verbose_audit_output: true\n",
                false,
            ),
            ("skip_preflight: true\n", "skip_preflight: false\n", false),
        ] {
            assert_eq!(switched_off(old, new), want, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn through_files_and_apis() {
        let (got, reasons) = judge_edit(
            "infra/github/branch_protection.tf",
            "  enforce_admins = true\n",
            "  enforce_admins = false\n",
        );
        assert_eq!(got, Auth, "{reasons:?}");
        assert!(reasons.iter().any(|r| r == "security_setting_off"));
        let (got, _) = judge_edit(
            "tests/fixtures/flags.json",
            "\"kyc_required\": true\n",
            "\"kyc_required\": false\n",
        );
        assert_eq!(got, Pass);
        let (got, _) = judge_edit(
            ".github/allowed_signers",
            "dev@acme.example namespaces=\"git\" ssh-ed25519 AAAAC3Nz\n",
            "dev@acme.example namespaces=\"git\" ssh-ed25519 AAAAC3Nz\n* namespaces=\"git\" ssh-ed25519 AAAAC3Nzb\n",
        );
        assert_eq!(got, Auth);
        let (got, _) = judge_edit(
            ".github/allowed_signers",
            "dev@acme.example namespaces=\"git\" ssh-ed25519 AAAAC3Nz\n",
            "dev@acme.example namespaces=\"git\" ssh-ed25519 AAAAC3Nz\nana@acme.example namespaces=\"git\" ssh-ed25519 AAAAC3Nzb\n",
        );
        assert_eq!(got, Pass);
        table(
            Mode::Balanced,
            &[
                (
                    "printf '%s\\n' '* ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEC2X build-signer' >> ~/.config/git/allowed_signers",
                    Auth,
                    "security_setting_off",
                ),
                (
                    "printf '%s\\n' 'ana@acme.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEC2X' >> ~/.config/git/allowed_signers",
                    Pass,
                    "",
                ),
                (
                    "auth0 api patch connections/con_8f --data '{\"options\":{\"mfa\":{\"active\":false},\"brute_force_protection\":false}}'",
                    Auth,
                    "security_setting_off",
                ),
                (
                    "gh api -X PUT repos/acme/api/branches/main/protection -F enforce_admins=false",
                    Auth,
                    "security_setting_off",
                ),
                (
                    "curl -X PATCH https://api.vendor.example/v1/settings -d '{\"signature_verification\": \"disabled\"}'",
                    Auth,
                    "security_setting_off",
                ),
                (
                    "auth0 api patch connections/con_8f --data '{\"options\":{\"mfa\":{\"active\":true}}}'",
                    Pass,
                    "",
                ),
                (
                    "curl -X PATCH https://api.vendor.example/v1/settings -d '{\"theme\": \"dark\"}'",
                    Pass,
                    "",
                ),
            ],
        );
    }
}
