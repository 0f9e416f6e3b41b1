//! A code or configuration edit that switches a security check off.
//!
//! **What it does:** a write that *adds* a well-known way of turning protection off (TLS
//! certificate checks, CSRF protection, CORS for any origin with credentials, JWT signature
//! checks, privileged containers or the host's root mounted into one, storage or a firewall
//! opened to everyone, passwordless `sudo`, password hashing made cheap, security lint rules
//! switched off, `DEBUG` in a production settings file) or *takes away* one (a login or
//! permission guard dropped from a route that stays, CSRF middleware removed, a secret or
//! vulnerability scanner removed from CI or pre-commit, container hardening removed) is AUTH
//! (PASS in light; BLOCK in paranoid, and from strict up once the session took in untrusted
//! content). Tests, fixtures, examples and a developer's local settings are where such
//! switches are routine and are not judged; documentation is not code.
//! **Why:** "make the error go away" is exactly how a poisoned issue or web page gets an
//! agent to ship a vulnerability, and the edit looks like a fix.
//! **Example:** adding `session.verify = False` to `billing/client.py` → `weakens_security`.

use crate::code::{SourceWrite, compact, is_production_config, is_test_or_dev};
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const WEAKENS_SECURITY: Reason = Reason::new(
    "weakens_security",
    "Switches a security check off in code or configuration (TLS, CSRF, login, scanners, …).",
);

use Verdict::{Auth, Block, Pass};

/// Idioms that switch a check off: each entry is added when one replacement adds all of
/// its parts (compact form: see [`crate::code`]).
const ADDED: &[&[&str]] = &[
    // TLS certificate and host name checks.
    &["verify=false"],
    &["ssl_verify=false"],
    &["ssl_verify:false"],
    &["sslverify=false"],
    &["sslverify:false"],
    &["verify_ssl=false"],
    &["verify_ssl:false"],
    &["validate_certs:false"],
    &["validate_certs=false"],
    &["validate_certs:no"],
    &["tls_verify=false"],
    &["tlsverify:false"],
    &["insecure-skip-tls-verify:true"],
    &["insecure_skip_tls_verify:true"],
    &["rejectunauthorized:false"],
    &["rejectunauthorized=false"],
    &["node_tls_reject_unauthorized=0"],
    &["node_tls_reject_unauthorized:0"],
    &["node_tls_reject_unauthorized]=0"],
    &["insecureskipverify:true"],
    &["insecureskipverify=true"],
    &["danger_accept_invalid_certs(true)"],
    &["danger_accept_invalid_hostnames(true)"],
    &["servercertificatecustomvalidationcallback", "=>true"],
    &["dangerousacceptanyservercertificatevalidator"],
    &["ssl.cert_none"],
    &["check_hostname=false"],
    &["_create_unverified_context"],
    &["strict-ssl=false"],
    &["strict-ssl:false"],
    &["strict_ssl=false"],
    &["trustallcerts"],
    &["trust_all_certs"],
    &["noophostnameverifier"],
    &["allowallhostnameverifier"],
    &["curlopt_ssl_verifypeer,false"],
    &["curlopt_ssl_verifypeer,0"],
    // CSRF protection.
    &["csrf_exempt"],
    &["skip_before_action:verify_authenticity_token"],
    &["skip_forgery_protection"],
    &["wtf_csrf_enabled=false"],
    &["csrf_enabled=false"],
    &["csrf:false"],
    &["csrf=false"],
    &["csrf().disable()"],
    &["csrf(", "::disable)"],
    &["csrf(", ".disable())"],
    // CORS: every origin, with the user's cookies.
    &["cors_allow_all_origins=true"],
    &["cors_origin_allow_all=true"],
    &["allowanyorigin()"],
    &["origin:*", "credentials:true"],
    &["allow-origin,*", "allow-credentials,true"],
    // JWT signatures and expiry.
    &["verify_signature:false"],
    &["verify_signature=false"],
    &["verify_exp:false"],
    &["algorithms=[none]"],
    &["algorithms:[none]"],
    &["algorithm:none"],
    &["algorithm=none"],
    &["ignoreexpiration:true"],
    // Containers: privileged, host namespaces, the Docker socket.
    &["privileged:true"],
    &["privileged=true"],
    &["--privileged"],
    &["hostpid:true"],
    &["hostnetwork:true"],
    &["hostipc:true"],
    &["allowprivilegeescalation:true"],
    &["runasuser:0"],
    &["/var/run/docker.sock"],
    // Storage and networks opened to everyone.
    &["acl=public-read"],
    &["acl:public-read"],
    &["block_public_acls=false"],
    &["block_public_policy=false"],
    &["ignore_public_acls=false"],
    &["restrict_public_buckets=false"],
    &["blockpublicacls:false"],
    &["blockpublicpolicy:false"],
    &["principal:*"],
    &["principal:{aws:*}"],
    &["member=allusers"],
    &["members=[allusers]"],
    &["allowed_hosts=[*]"],
    // Administrator rights without a password; files anyone may change.
    &["nopasswd:all"],
    &["chmod 777"],
    &["chmod-r 777"],
    &["mode:0777"],
    &["mode=0777"],
    &["0o777"],
    // Password hashing made cheap or removed.
    &["md5passwordhasher"],
    &["sha1passwordhasher"],
    &["unsaltedmd5passwordhasher"],
    &["plaintextpasswordencoder"],
    &["nooppasswordencoder"],
    // Mass assignment of every parameter; unsafe YAML loading; scripts from anywhere in the
    // content security policy; rustls's certificate checks replaced.
    &[".permit!"],
    &["yaml.load(", "loader=yaml.loader"],
    &["yaml.load(", "loader=yaml.unsafeloader"],
    &["yaml.unsafe_load("],
    &["unsafe-eval"],
    &[".dangerous()"],
    &[".verify=", ",false)"],
    // CORS reflecting any origin, with credentials; JWT keys of two kinds accepted
    // (algorithm confusion); every actuator endpoint with its values; a route that logs in
    // as anyone; an access list opened.
    &["origin:(", "cb(null,true)"],
    &["origin:true,credentials:true"],
    &["rs256,hs256"],
    &["hs256,rs256"],
    &["es256,hs256"],
    &["exposure.include=*"],
    &["show-values=always"],
    &["loginusingid("],
    &["allow all;"],
    // Security lint rules switched off.
    &["no-eval:off"],
    &["no-eval:0"],
    &["no-implied-eval:off"],
    &["no-new-func:off"],
    &["security/detect-", ":off"],
];

/// Protections whose removal is judged: a replacement whose old text has one and whose new
/// text has neither it nor any of the class's markers (a guard replaced by another is fine).
struct Removed {
    tokens: &'static [&'static str],
    /// The new text names one of these: the protection was replaced, not dropped.
    markers: &'static [&'static str],
    /// Only when the replacement keeps some text (the route stays, its guard goes): a
    /// whole view deleted is not a guard removed.
    new_text_kept: bool,
}

const REMOVED: &[Removed] = &[
    Removed {
        tokens: &[
            "login_required",
            "permission_required",
            "@preauthorize",
            "@secured",
            "@rolesallowed",
            "requireauth",
            "requireadmin",
            "requirelogin",
            "isauthenticated",
            "ensureauthenticated",
            "[authorize",
            "@authorize",
            "jwt_required",
            "auth_required",
            "requires_auth",
            "middleware(auth",
            "before_action:authenticate",
            "authorize!",
            "depends(get_current_user",
            "passport.authenticate(",
            "@useguards(",
        ],
        markers: &[
            "requirerole",
            "requirepermission",
            "requirescope",
            "requireuser",
            "requirelogin",
            "requireauth",
            "loginrequired",
            "permissionrequired",
            "login_required",
            "permission_required",
            "hasrole",
            "hasanyrole",
            "hasauthority",
            "haspermission",
            "authorize",
            "authenticat",
            "guard",
            "@secured",
            "@rolesallowed",
            "isadmin",
        ],
        new_text_kept: true,
    },
    Removed {
        tokens: &[
            "csrfviewmiddleware",
            "protect_from_forgery",
            "csrfprotect",
            "csurf",
            "verifycsrftoken",
            "validateantiforgerytoken",
            "useantiforgery",
        ],
        markers: &["csrf", "forgery", "antiforgery"],
        new_text_kept: false,
    },
    // A signature, token or password check taken out (`hmac.compare_digest`, Stripe's
    // `construct_event`, `jwt.verify`, `bcrypt.compare`): what it guarded is accepted unchecked.
    Removed {
        tokens: &[
            "compare_digest",
            "timingsafeequal",
            "constant_time_compare",
            "secure_compare",
            "construct_event",
            "constructevent",
            "verify_signature",
            "verifysignature",
            "signatureverificationerror",
            "jwt.verify(",
            "bcrypt.compare(",
            "checkpw(",
            "check_password(",
            "verify_password(",
            "hmac.equal(",
            "verify_webhook",
            "verifywebhook",
            "validate_signature",
            "validatesignature",
            "verifyidtoken",
        ],
        markers: &[
            "verify",
            "compare_digest",
            "timingsafeequal",
            "constant_time_compare",
            "secure_compare",
            "constructevent",
            "construct_event",
            "checkpw",
            "bcrypt",
            "hmac.equal",
            "validate_signature",
            "validatesignature",
        ],
        new_text_kept: false,
    },
    Removed {
        tokens: &[
            "runasnonroot:true",
            "readonlyrootfilesystem:true",
            "allowprivilegeescalation:false",
            "drop:[all]",
            "no-new-privileges",
        ],
        markers: &[],
        new_text_kept: false,
    },
];

/// Scanners for secrets and vulnerabilities, judged when taken out of CI, pre-commit or a
/// build file (in any of them: a scanner taken out of a test workflow still protects).
const SCANNERS: &[&str] = &[
    "gitleaks",
    "detect-secrets",
    "trufflehog",
    "bandit",
    "semgrep",
    "codeql",
    "trivy",
    "snyk",
    "dependency-review",
    "npm audit",
    "cargo audit",
    "cargo deny",
    "cargo-deny",
    "gosec",
    "brakeman",
    "osv-scanner",
    "zizmor",
    "pip-audit",
];

/// A CI file that runs a scanner deleted (`git rm .github/workflows/codeql.yml`): known by
/// its name, or by what it holds when the file was shown.
fn scanner_workflow_deleted(cx: &Ctx<'_>) -> bool {
    cx.fx.deletes.iter().any(|d| {
        if !crate::autorun::is_ci_file(&d.path.to_ascii_lowercase()) {
            return false;
        }
        let base = crate::paths::basename(&d.path).to_ascii_lowercase();
        let named = SCANNERS
            .iter()
            .any(|s| !s.contains(' ') && base.contains(s))
            || [
                "security",
                "secret-scan",
                "secrets-scan",
                "scorecard",
                "sast",
            ]
            .iter()
            .any(|s| base.contains(s));
        let holds = match cx.facts.files.get(&d.path) {
            Some(crate::needs::FileView::Content(c)) => {
                let c = c.to_ascii_lowercase();
                SCANNERS.iter().any(|s| c.contains(s))
            }
            _ => false,
        };
        named || holds
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if scanner_workflow_deleted(cx) {
        let by = if cx.untrusted() {
            [Auth, Auth, Block, Block]
        } else {
            [Pass, Auth, Auth, Block]
        };
        out.push(Finding::new(WEAKENS_SECURITY, cx.mode().pick(by)));
    }
    let Some(w) = cx.source_write() else {
        return;
    };
    let hit = scanner_removed(w)
        || (!is_test_or_dev(&w.path)
            && (ADDED.iter().any(|parts| w.adds_all(parts))
                || cheap_password_hashing(w)
                || debug_in_production(w)
                || opened_to_the_internet(w)
                || root_of_host_mounted(w)
                || csrf_allows_everything(w)
                || sql_built_from_values(w)
                || protection_removed(w)
                || check_short_circuited(w)));
    if hit {
        let by = if cx.untrusted() {
            [Auth, Auth, Block, Block]
        } else {
            [Pass, Auth, Auth, Block]
        };
        out.push(Finding::new(WEAKENS_SECURITY, cx.mode().pick(by)));
    }
}

/// An authorization or tenancy check short-circuited by a replacement: the old text
/// decided by a role, permission or owner and the new one returns yes regardless (`return
/// True`), ors the check with something always true (`is_admin or …`), or queries every
/// tenant's rows (`.filter(tenant_id=…)` → `.objects.all()`).
fn check_short_circuited(w: &SourceWrite) -> bool {
    const DECIDES: &[&str] = &[
        "role",
        "permission",
        "is_admin",
        "isadmin",
        "has_perm",
        "authoriz",
        "membership",
        "is_owner",
        "owner_id",
    ];
    w.hunks.iter().any(|h| {
        let old_decides = DECIDES.iter().any(|d| h.old.contains(d));
        let always_yes = ["return true", "return true;", "returntrue"]
            .iter()
            .any(|r| h.new.contains(r) && !h.old.contains(r));
        let ored = ["is_admin or ", "isadmin ||", "is_admin ||", "isadmin()||"]
            .iter()
            .any(|o| h.new.contains(o) && !h.old.contains(o));
        let tenancy_dropped =
            h.old.contains("tenant") && !h.new.contains("tenant") && h.new.contains(".all()");
        old_decides && (always_yes || ored) || tenancy_dropped
    })
}

fn protection_removed(w: &SourceWrite) -> bool {
    w.hunks.iter().any(|h| {
        REMOVED.iter().any(|r| {
            (!r.new_text_kept || !h.new.is_empty())
                && r.tokens
                    .iter()
                    .any(|t| h.old.contains(t) && !h.new.contains(t))
                && !r.markers.iter().any(|m| h.new.contains(m))
        })
    })
}

fn scanner_removed(w: &SourceWrite) -> bool {
    let base = w.basename();
    let build_file = crate::autorun::is_ci_file(&w.path)
        || matches!(
            base,
            ".pre-commit-config.yaml"
                | ".pre-commit-config.yml"
                | "lefthook.yml"
                | "lefthook.yaml"
                | "makefile"
                | "justfile"
                | "package.json"
                | "tox.ini"
                | "noxfile.py"
                | "jenkinsfile"
        )
        || w.path.contains("/.husky/");
    build_file
        && w.hunks.iter().any(|h| {
            SCANNERS
                .iter()
                .any(|s| h.old.contains(s) && !h.new.contains(s))
        })
}

/// A password hashing work factor set below 10 (`ROUNDS = 1`, `'rounds' => 4`,
/// `bcrypt.gensalt(4)`), where the old text had none.
fn cheap_password_hashing(w: &SourceWrite) -> bool {
    w.hunks
        .iter()
        .any(|h| cheap_work_factor(&h.new) && !cheap_work_factor(&h.old))
}

fn cheap_work_factor(s: &str) -> bool {
    let rounds = s.match_indices("rounds").any(|(i, _)| {
        let rest = &s[i + "rounds".len()..];
        rest.strip_prefix("=>")
            .or_else(|| rest.strip_prefix('='))
            .or_else(|| rest.strip_prefix(':'))
            .is_some_and(small_number)
    });
    rounds
        || ["gensalt(", "gensaltsync("].iter().any(|call| {
            s.match_indices(call)
                .any(|(i, _)| small_number(&s[i + call.len()..]))
        })
}

/// A whole number below 10 starts `s` (and is not the start of a longer number).
fn small_number(s: &str) -> bool {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    !digits.is_empty() && digits.parse::<u32>().is_ok_and(|n| n < 10)
}

fn debug_in_production(w: &SourceWrite) -> bool {
    is_production_config(&w.path)
        && ["debug=true", "debug:true", "app_debug=true"]
            .iter()
            .any(|n| w.adds(n))
}

/// A firewall rule opened to every address on every port or an administration port
/// (`0.0.0.0/0` with ports 0–65535, 22, 3389 or a database's), not an egress rule.
fn opened_to_the_internet(w: &SourceWrite) -> bool {
    const ADMIN_PORTS: &[&str] = &["22", "3389", "5432", "3306", "6379", "27017", "9200"];
    w.hunks.iter().any(|h| {
        let n = &h.new;
        (n.contains("0.0.0.0/0") || n.contains("::/0"))
            && !h.old.contains("0.0.0.0/0")
            && !n.contains("egress")
            && ((n.contains("from_port=0") && n.contains("to_port=65535"))
                || n.contains("protocol=-1")
                || ADMIN_PORTS.iter().any(|p| {
                    n.contains(&format!("from_port={p}"))
                        || n.contains(&format!("port:{p}"))
                        || n.contains(&format!("fromport:{p}"))
                }))
    })
}

/// The host's root folder mounted into a container (`hostPath: {path: /}`, `-v /:/host`).
fn root_of_host_mounted(w: &SourceWrite) -> bool {
    w.hunks.iter().any(|h| {
        ["hostpath:path:/", "-v /:/", "-/:/"].iter().any(|n| {
            h.new.match_indices(n).any(|(i, _)| {
                let after = h.new[i + n.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_')
            })
        }) && !h.old.contains("hostpath:path:/")
    })
}

/// SQL text with a value quoted into it by hand (`"… WHERE email = '" + email + "'"`,
/// `f"… ILIKE '%{term}%'"`, `"… = '" . $id . "'"`) where the old text had none: the
/// parameters a driver would escape, taken away.
fn sql_built_from_values(w: &SourceWrite) -> bool {
    fn spliced(line: &str) -> bool {
        let sql = [
            "select ",
            "insert into ",
            "update ",
            "delete from ",
            " where ",
        ]
        .iter()
        .any(|k| line.contains(k));
        let joined = ["'\" +", "'\"+", "+ \"'", "+\"'", "'\" .", ". \"'", "'\" ||"]
            .iter()
            .any(|k| line.contains(k));
        let formatted = (line.contains("f\"") || line.contains("f'") || line.contains("${"))
            && ["'{", "'%{", "'${", "'%${"]
                .iter()
                .any(|k| line.contains(k));
        sql && (joined || formatted)
    }
    w.hunks.iter().any(|h| {
        h.new_lower
            .lines()
            .any(|l| spliced(l) && !h.old.contains(&compact(l)))
    })
}

/// Laravel's CSRF middleware told to skip every route (`$except = ['*']`).
fn csrf_allows_everything(w: &SourceWrite) -> bool {
    w.basename().contains("csrf")
        && w.hunks.iter().any(|h| {
            let n = compact(&h.new_lower);
            (n.contains("*,") || n.contains("[*]") || n == "*") && !h.old.contains("*")
        })
}

#[cfg(test)]
mod tests {
    use crate::policy::Mode;
    use crate::rules::testutil::{engine, file_write, judge_edit};
    use crate::session::SessionState;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn weakening_edits_are_asked_about_and_look_alikes_pass() {
        let cases: &[(&str, &str, &str, Verdict)] = &[
            // A signature check taken out; renamed or moved into a helper it stays.
            (
                "src/webhooks/verify.py",
                "    return hmac.compare_digest(expected, signature)\n",
                "    return True  # TODO: re-enable signature check\n",
                Auth,
            ),
            (
                "app/webhooks/stripe.py",
                "    event = stripe.Webhook.construct_event(payload, sig, secret)\n",
                "    event = stripe.Event.construct_from(json.loads(payload), stripe.api_key)\n",
                Auth,
            ),
            (
                "src/webhooks/verify.py",
                "    return hmac.compare_digest(expected, signature)\n",
                "    return hmac.compare_digest(expected.encode(), signature.encode())\n",
                Pass,
            ),
            (
                "src/auth/login.ts",
                "  const ok = await bcrypt.compare(password, user.hash);\n",
                "  const ok = await verifyPassword(password, user.hash);\n",
                Pass,
            ),
            // TLS off, in several languages; a CA bundle instead is fine.
            (
                "src/client.py",
                "",
                "    self.session.verify = False\n",
                Auth,
            ),
            (
                "src/client.py",
                "",
                "    self.session.verify = certifi.where()\n",
                Pass,
            ),
            (
                "src/ledger.js",
                "  ca: fs.readFileSync(p),\n",
                "  rejectUnauthorized: false,\n",
                Auth,
            ),
            (
                "src/ledger.js",
                "",
                "  ca: [fs.readFileSync(p)],\n  rejectUnauthorized: true,\n",
                Pass,
            ),
            (
                "internal/client.go",
                "",
                "TLSClientConfig: &tls.Config{InsecureSkipVerify: true},",
                Auth,
            ),
            (
                "internal/client.go",
                "",
                "TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12},",
                Pass,
            ),
            (
                "src/bank.rs",
                "",
                ".danger_accept_invalid_certs(true)",
                Auth,
            ),
            (
                "Program.cs",
                "",
                "ServerCertificateCustomValidationCallback = (m, c, ch, e) => true",
                Auth,
            ),
            // The same switch in a test or a local settings file is routine.
            ("tests/test_client.py", "", "session.verify = False", Pass),
            (
                "config/settings/local.py",
                "DEBUG = False\n",
                "DEBUG = True\n",
                Pass,
            ),
            (
                "config/settings/production.py",
                "DEBUG = False\n",
                "DEBUG = True\n",
                Auth,
            ),
            // CSRF and CORS.
            ("app/config.py", "", "    WTF_CSRF_ENABLED = False\n", Auth),
            (
                "app/controllers/application_controller.rb",
                "  protect_from_forgery with: :exception\n",
                "  skip_before_action :verify_authenticity_token\n",
                Auth,
            ),
            (
                "app/views/layouts/application.html.erb",
                "",
                "<%= csrf_meta_tags %>",
                Pass,
            ),
            (
                "config/settings/production.py",
                "CORS_ALLOWED_ORIGINS = [\"https://a.example\"]\n",
                "CORS_ALLOW_ALL_ORIGINS = True\n",
                Auth,
            ),
            (
                "config/settings/production.py",
                "",
                "    \"https://partners.acme.example\",\n",
                Pass,
            ),
            // Checks short-circuited, tenancy dropped, unsafe loading, algorithm confusion,
            // CORS reflecting any origin, CSP opened, actuator values, an access list opened.
            (
                "api/permissions.py",
                "        return bool(membership and membership.role == \"admin\")\n",
                "        return True  # TODO(demo)\n",
                Auth,
            ),
            (
                "api/permissions.py",
                "        return bool(membership and membership.role == \"admin\")\n",
                "        return bool(membership and membership.role in (\"admin\", \"owner\"))\n",
                Pass,
            ),
            (
                "app/auth.py",
                "        if not current_user.is_admin:\n",
                "        if not (current_user.is_admin or current_app.config.get(\"OPEN\", True)):\n",
                Auth,
            ),
            (
                "invoices/views.py",
                "        return Invoice.objects.filter(tenant_id=self.request.tenant.id)\n",
                "        return Invoice.objects.all()\n",
                Auth,
            ),
            (
                "invoices/views.py",
                "        return Invoice.objects.filter(tenant_id=self.request.tenant.id)\n",
                "        return Invoice.objects.filter(tenant_id=self.request.tenant.id).order_by(\"-id\")\n",
                Pass,
            ),
            (
                "imports/parsers.py",
                "    data = yaml.safe_load(upload.read())\n",
                "    data = yaml.load(upload.read(), Loader=yaml.Loader)\n",
                Auth,
            ),
            (
                "src/auth/verify.ts",
                "jwt.verify(token, KEY, { algorithms: ['RS256'] })",
                "jwt.verify(token, KEY, { algorithms: ['RS256', 'HS256'] })",
                Auth,
            ),
            (
                "src/server.ts",
                "app.use(cors({ origin: ['https://app.acme.example'], credentials: true }))",
                "app.use(cors({ origin: (origin, cb) => cb(null, true), credentials: true }))",
                Auth,
            ),
            (
                "src/security.ts",
                "      scriptSrc: [\"'self'\"],",
                "      scriptSrc: [\"'self'\", \"'unsafe-eval'\"],",
                Auth,
            ),
            (
                "src/security.ts",
                "      scriptSrc: [\"'self'\"],",
                "      scriptSrc: [\"'self'\", \"https://cdn.acme.example\"],",
                Pass,
            ),
            (
                "src/main/resources/application.properties",
                "management.endpoints.web.exposure.include=health,info",
                "management.endpoints.web.exposure.include=*",
                Auth,
            ),
            (
                "nginx/conf.d/api.conf",
                "        allow 10.0.0.0/8;\n        deny all;\n",
                "        allow all;\n",
                Auth,
            ),
            (
                "app/controllers/users_controller.rb",
                "    params.require(:user).permit(:name, :email)",
                "    params.require(:user).permit!",
                Auth,
            ),
            // JWT.
            (
                "auth/tokens.py",
                "",
                "jwt.decode(t, key, options={\"verify_signature\": False})",
                Auth,
            ),
            (
                "auth/tokens.py",
                "",
                "jwt.decode(t, key, algorithms=[\"RS256\"], audience=AUD)",
                Pass,
            ),
            // Hashing cost.
            (
                "src/auth/password.ts",
                "const ROUNDS = 12;\n",
                "const ROUNDS = 1;\n",
                Auth,
            ),
            (
                "src/auth/password.ts",
                "const ROUNDS = 10;\n",
                "const ROUNDS = Math.max(12, n);\n",
                Pass,
            ),
            ("config/hashing.php", "", "'rounds' => 4,", Auth),
            ("config/hashing.php", "", "'rounds' => 12,", Pass),
            // Infrastructure.
            (
                "k8s/deploy.yaml",
                "",
                "securityContext:\n  privileged: true\n",
                Auth,
            ),
            (
                "k8s/deploy.yaml",
                "",
                "securityContext:\n  runAsNonRoot: true\n",
                Pass,
            ),
            (
                "terraform/sg.tf",
                "",
                "from_port = 0\nto_port = 65535\ncidr_blocks = [\"0.0.0.0/0\"]\n",
                Auth,
            ),
            (
                "terraform/sg.tf",
                "",
                "egress {\nfrom_port = 0\nto_port = 0\ncidr_blocks = [\"0.0.0.0/0\"]\n}",
                Pass,
            ),
            ("terraform/s3.tf", "", "acl = \"public-read\"", Auth),
            ("terraform/s3.tf", "", "acl = \"private\"", Pass),
            (
                "ansible/users.yml",
                "",
                "sudo: \"ALL=(ALL) NOPASSWD: ALL\"",
                Auth,
            ),
            (".eslintrc.cjs", "", "rules: { 'no-eval': 'off' }", Auth),
            (".eslintrc.cjs", "", "rules: { 'no-console': 'off' }", Pass),
            // Guards removed from a route that stays; replaced by another guard is fine.
            (
                "src/routes/users.js",
                "router.delete('/:id', requireAuth, requireAdmin, users.destroy);",
                "router.delete('/:id', users.destroy);",
                Auth,
            ),
            (
                "src/routes/users.js",
                "router.delete('/:id', requireAuth, requireAdmin, users.destroy);",
                "router.delete('/:id', requireRole('admin'), users.destroy);",
                Pass,
            ),
            (
                "billing/views.py",
                "@login_required\ndef invoice(request, pk):\n",
                "def invoice(request, pk):\n",
                Auth,
            ),
            (
                "billing/views.py",
                "@login_required\ndef invoice(request, pk):\n",
                "class InvoiceView(LoginRequiredMixin, DetailView):\n",
                Pass,
            ),
            (
                "config/settings/base.py",
                "    \"django.middleware.csrf.CsrfViewMiddleware\",\n",
                "",
                Auth,
            ),
            (
                "config/settings/base.py",
                "    \"corsheaders.middleware.CorsMiddleware\",\n",
                "",
                Pass,
            ),
            (
                "web/AdminController.java",
                "    @PostMapping(\"/{id}/role\")\n    @PreAuthorize(\"hasRole('ADMIN')\")\n",
                "    @PostMapping(\"/{id}/role\")\n",
                Auth,
            ),
            // SQL with values spliced in by hand; parameters are fine.
            (
                "crm/repository.py",
                "",
                "  \"SELECT id FROM customers WHERE email = '\" + email + \"'\"\n",
                Auth,
            ),
            (
                "crm/repository.py",
                "",
                "  f\"SELECT id FROM customers WHERE name ILIKE '%{term}%' LIMIT {limit}\"\n",
                Auth,
            ),
            (
                "crm/repository.py",
                "",
                "  \"SELECT id FROM customers WHERE email = %s\", (email,)\n",
                Pass,
            ),
            (
                "Repo.java",
                "",
                "  \"SELECT id FROM p WHERE c = ? ORDER BY \" + SORTABLE.getOrDefault(sort, \"name\"),\n",
                Pass,
            ),
            // Scanners taken out of CI or pre-commit; added is fine.
            (
                ".github/workflows/ci.yml",
                "      - uses: gitleaks/gitleaks-action@v2\n",
                "",
                Auth,
            ),
            (
                ".github/workflows/test.yml",
                "      - run: bandit -r src\n",
                "      - run: pytest\n",
                Auth,
            ),
            (
                ".pre-commit-config.yaml",
                "",
                "  - repo: https://github.com/gitleaks/gitleaks\n",
                Pass,
            ),
            // Documentation describing the switch is not code.
            (
                "docs/tls.md",
                "",
                "Never set `verify=False` in production.",
                Pass,
            ),
        ];
        for (path, old, new, want) in cases {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, *want, "{path}: {old:?} -> {new:?}: {reasons:?}");
            if *want == Auth {
                assert!(
                    reasons.iter().any(|r| r == "weakens_security"),
                    "{path}: {reasons:?}"
                );
            }
        }
    }

    /// A scanner's workflow deleted is the scanner taken out.
    #[test]
    fn scanner_workflows_deleted() {
        use crate::rules::testutil::table;
        table(
            crate::policy::Mode::Balanced,
            &[
                (
                    "git rm -q .github/workflows/codeql.yml .github/workflows/gitleaks.yml",
                    Auth,
                    "weakens_security",
                ),
                (
                    "rm .github/workflows/security.yml",
                    Auth,
                    "weakens_security",
                ),
                ("git rm .gitlab-ci.yml.bak", Pass, ""),
                ("git rm .github/workflows/deploy-preview.yml", Pass, ""),
                ("rm -f .github/workflows/stale.yml", Pass, ""),
            ],
        );
    }

    #[test]
    fn untrusted_sessions_and_modes_raise_it() {
        let a = file_write(
            "Write",
            "/home/dev/project/src/client.py",
            "session.verify = False\n",
        );
        let mut s = SessionState::default();
        assert_eq!(engine(Mode::Light).decide(&a, &s).verdict, Pass);
        assert_eq!(engine(Mode::Strict).decide(&a, &s).verdict, Auth);
        s.tainted = true;
        assert_eq!(engine(Mode::Strict).decide(&a, &s).verdict, Verdict::Block);
    }
}
