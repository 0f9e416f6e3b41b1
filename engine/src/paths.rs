//! Path normalisation and classification.
//!
//! Paths are normalised lexically (`~`, `.`/`..`, duplicate slashes, Windows separators)
//! before anything compares them; the engine never touches the file system, so symlinks are
//! the caller's concern.

/// Lexically normalise `path`: expand `~`, make it absolute against `cwd` when both are
/// known, fold `.`/`..` and repeated separators. Home stays as `~` when unknown.
pub fn normalize(path: &str, cwd: Option<&str>, home: Option<&str>) -> String {
    let p = path.trim().replace('\\', "/");
    let p = if p == "~" || p.starts_with("~/") {
        match home {
            Some(h) => format!("{}{}", h.trim_end_matches('/'), p.get(1..).unwrap_or("")),
            None => p,
        }
    } else if let Some(rest) = p.strip_prefix('~')
        && let Some(h) = home
    {
        // `~dev/.ssh`: that user's home, beside this one (`/home/dev` → `/home/<user>`).
        let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let h = h.trim_end_matches('/');
        let parent = h.rsplit_once('/').map_or("", |(p, _)| p);
        if user.is_empty()
            || !user
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            p
        } else if user == "root" {
            format!("/root/{tail}")
        } else {
            format!("{parent}/{user}/{tail}")
        }
    } else {
        p
    };
    // Other names for the same places: the process's own working folder and root
    // (`/proc/self/cwd/../.git-credentials`), macOS's data volume and `/private` firmlinks
    // (`/System/Volumes/Data/Users/alex/.aws/credentials`).
    let p = match cwd {
        Some(c) if !c.is_empty() => ["/proc/self/cwd", "/proc/thread-self/cwd"]
            .iter()
            .find_map(|pre| {
                p.strip_prefix(pre)
                    .filter(|r| r.is_empty() || r.starts_with('/'))
                    .map(|r| format!("{}{r}", c.trim_end_matches('/')))
            })
            .unwrap_or(p),
        _ => p,
    };
    let p = [
        "/proc/self/root",
        "/proc/thread-self/root",
        "/proc/1/root",
        "/System/Volumes/Data",
    ]
    .iter()
    .find_map(|pre| {
        p.strip_prefix(pre)
            .filter(|r| r.starts_with('/'))
            .map(str::to_owned)
    })
    .unwrap_or(p);
    let p = ["/private/var/", "/private/tmp/", "/private/etc/"]
        .iter()
        .find_map(|pre| {
            p.strip_prefix(pre)
                .map(|r| format!("{}{r}", pre.trim_start_matches("/private")))
        })
        .unwrap_or(p);
    // `$VAR/x` is rooted wherever the variable points: never assume it is under cwd.
    let absolute =
        p.starts_with('/') || p.starts_with('~') || p.starts_with('$') || is_windows_abs(&p);
    let joined = match cwd {
        Some(c) if !absolute && !c.is_empty() => format!("{}/{}", c.replace('\\', "/"), p),
        _ => p,
    };
    fold(&joined)
}

fn is_windows_abs(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 2 && b.first().is_some_and(u8::is_ascii_alphabetic) && b.get(1) == Some(&b':')
}

fn fold(p: &str) -> String {
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != ".." && *l != "~") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let body = parts.join("/");
    if rooted {
        format!("/{body}")
    } else if body.is_empty() {
        ".".to_owned()
    } else {
        body
    }
}

/// If `path` (normalised) lies in a home directory, the part after it (`""` for home itself).
/// Recognises `~`, the configured home, and the conventional `/home/<u>`, `/Users/<u>`,
/// `/root` and `C:/Users/<u>` layouts, so another user's home is treated as a home too.
pub fn home_relative<'a>(path: &'a str, home: Option<&str>) -> Option<&'a str> {
    if let Some(h) = home {
        let h = h.trim_end_matches('/');
        if !h.is_empty() {
            if path == h {
                return Some("");
            }
            if let Some(rest) = path.strip_prefix(h).and_then(|r| r.strip_prefix('/')) {
                return Some(rest);
            }
        }
    }
    if path == "~" {
        return Some("");
    }
    if let Some(rest) = path.strip_prefix("~/") {
        return Some(rest);
    }
    if path == "/root" {
        return Some("");
    }
    if let Some(rest) = path.strip_prefix("/root/") {
        return Some(rest);
    }
    // WSL sees a Windows home (`C:/Users/<u>`) as `/mnt/c/Users/<u>`.
    if let Some(rest) = path.strip_prefix("/mnt/") {
        let mut it = rest.splitn(3, '/');
        let drive = it.next().unwrap_or("");
        let users = it.next().unwrap_or("");
        if drive.len() == 1
            && drive.chars().all(|c| c.is_ascii_alphabetic())
            && users.eq_ignore_ascii_case("users")
            && let Some(after) = it.next()
        {
            let mut it = after.splitn(2, '/');
            let user = it.next().unwrap_or("");
            if !user.is_empty() && !user.contains(['*', '?']) {
                return Some(it.next().unwrap_or(""));
            }
        }
    }
    let lower_prefix = [
        "/home/",
        "/Users/",
        "/users/",
        "C:/Users/",
        "c:/users/",
        "C:/users/",
    ];
    for pre in lower_prefix {
        if let Some(rest) = path.strip_prefix(pre) {
            let mut it = rest.splitn(2, '/');
            let user = it.next().unwrap_or("");
            if user.is_empty() || user.contains(['*', '?']) {
                continue;
            }
            return Some(it.next().unwrap_or(""));
        }
    }
    None
}

/// The rest of a path under every user's home at once (`/home/*/.ssh/id_*`,
/// `/Users/*/Library/Keychains`): the same file of each of them.
fn every_home_relative(path: &str) -> Option<&str> {
    ["/home/", "/Users/", "/users/", "C:/Users/", "c:/users/"]
        .iter()
        .find_map(|pre| {
            let (user, rest) = path.strip_prefix(pre)?.split_once('/')?;
            user.contains(['*', '?', '[']).then_some(rest)
        })
}

/// `path` is `dir` or lies under it (both normalised).
pub fn within(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Final path component.
pub fn basename(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

/// What kind of secret a path holds, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    /// `.env`-style project secrets.
    DotEnv,
    /// Private keys (SSH, TLS, GPG).
    PrivateKey,
    /// Cloud, registry and tool credentials in the home directory.
    Credentials,
    /// System password databases.
    System,
}

const ENV_SAFE_SUFFIXES: &[&str] = &[
    "example", "sample", "template", "dist", "defaults", "default", "schema", "tmpl", "md",
];

/// Home-relative files and folders that hold credentials.
const HOME_SECRETS: &[(&str, SecretKind)] = &[
    (".ssh", SecretKind::PrivateKey),
    (".gnupg", SecretKind::PrivateKey),
    (".password-store", SecretKind::Credentials),
    (".aws/credentials", SecretKind::Credentials),
    (".aws/sso/cache", SecretKind::Credentials),
    (".config/gcloud", SecretKind::Credentials),
    (".azure", SecretKind::Credentials),
    (".kube/config", SecretKind::Credentials),
    (".docker/config.json", SecretKind::Credentials),
    (".netrc", SecretKind::Credentials),
    (".pgpass", SecretKind::Credentials),
    (".my.cnf", SecretKind::Credentials),
    (".s3cfg", SecretKind::Credentials),
    (".boto", SecretKind::Credentials),
    (".git-credentials", SecretKind::Credentials),
    (".npmrc", SecretKind::Credentials),
    (".pypirc", SecretKind::Credentials),
    (".cargo/credentials", SecretKind::Credentials),
    (".cargo/credentials.toml", SecretKind::Credentials),
    (".config/gh/hosts.yml", SecretKind::Credentials),
    (".config/hub", SecretKind::Credentials),
    (
        ".terraform.d/credentials.tfrc.json",
        SecretKind::Credentials,
    ),
    (".vault-token", SecretKind::Credentials),
    // Folders people make for their own secrets, and age keys (SOPS reads them there).
    (".secrets", SecretKind::Credentials),
    (".credentials", SecretKind::Credentials),
    (".creds", SecretKind::Credentials),
    // Build tools' saved publishing and signing passwords.
    (".gradle/gradle.properties", SecretKind::Credentials),
    (".m2/settings.xml", SecretKind::Credentials),
    (".m2/settings-security.xml", SecretKind::Credentials),
    (".config/sops/age", SecretKind::PrivateKey),
    (".config/age", SecretKind::PrivateKey),
    ("AppData/Roaming/sops/age", SecretKind::PrivateKey),
    (".config/op", SecretKind::Credentials),
    (".local/share/keyrings", SecretKind::Credentials),
    ("Library/Keychains", SecretKind::Credentials),
    (".mozilla/firefox", SecretKind::Credentials),
    ("snap/firefox/common/.mozilla", SecretKind::Credentials),
    (
        "Library/Application Support/Firefox",
        SecretKind::Credentials,
    ),
    (".config/chromium", SecretKind::Credentials),
    (".config/BraveSoftware", SecretKind::Credentials),
    (".config/microsoft-edge", SecretKind::Credentials),
    ("Library/Cookies", SecretKind::Credentials),
    // macOS personal data stores: messages, mail, browser history, notes, contacts, and the
    // privacy-permission database.
    // Windows: CLI tokens, browser profiles, the credential and key stores.
    ("AppData/Roaming/GitHub CLI", SecretKind::Credentials),
    (
        "AppData/Local/Google/Chrome/User Data",
        SecretKind::Credentials,
    ),
    (
        "AppData/Local/Microsoft/Edge/User Data",
        SecretKind::Credentials,
    ),
    ("AppData/Local/BraveSoftware", SecretKind::Credentials),
    ("AppData/Roaming/Mozilla/Firefox", SecretKind::Credentials),
    (
        "AppData/Roaming/Microsoft/Credentials",
        SecretKind::Credentials,
    ),
    (
        "AppData/Local/Microsoft/Credentials",
        SecretKind::Credentials,
    ),
    ("AppData/Roaming/Microsoft/Protect", SecretKind::Credentials),
    ("AppData/Roaming/npm/etc/npmrc", SecretKind::Credentials),
    (
        "AppData/Roaming/Docker/config.json",
        SecretKind::Credentials,
    ),
    (".azure", SecretKind::Credentials),
    ("Library/Messages", SecretKind::Credentials),
    ("Library/Mail", SecretKind::Credentials),
    ("Library/Safari", SecretKind::Credentials),
    (
        "Library/Group Containers/group.com.apple.notes",
        SecretKind::Credentials,
    ),
    (
        "Library/Application Support/AddressBook",
        SecretKind::Credentials,
    ),
    (
        "Library/Application Support/com.apple.TCC",
        SecretKind::Credentials,
    ),
    (
        "Library/Containers/com.apple.Safari",
        SecretKind::Credentials,
    ),
    (
        "Library/Application Support/BraveSoftware",
        SecretKind::Credentials,
    ),
    (
        "Library/Application Support/Microsoft Edge",
        SecretKind::Credentials,
    ),
    ("Library/Application Support/Slack", SecretKind::Credentials),
    (
        "Library/Application Support/Signal",
        SecretKind::Credentials,
    ),
    (".config/Slack", SecretKind::Credentials),
    (".config/Signal", SecretKind::Credentials),
    // Shell and REPL histories hold typed passwords and tokens.
    (".bash_history", SecretKind::Credentials),
    (
        "AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine",
        SecretKind::Credentials,
    ),
    (".zsh_history", SecretKind::Credentials),
    (".zhistory", SecretKind::Credentials),
    (".history", SecretKind::Credentials),
    (".sh_history", SecretKind::Credentials),
    (".local/share/fish/fish_history", SecretKind::Credentials),
    (".python_history", SecretKind::Credentials),
    (".psql_history", SecretKind::Credentials),
    (".mysql_history", SecretKind::Credentials),
    (".node_repl_history", SecretKind::Credentials),
    (".rediscli_history", SecretKind::Credentials),
    // Cloud and service CLIs keep tokens in their config.
    (".config/doctl", SecretKind::Credentials),
    (".oci", SecretKind::Credentials),
    (".fly", SecretKind::Credentials),
    (".config/hcloud", SecretKind::Credentials),
    (".config/stripe", SecretKind::Credentials),
    (".config/netlify", SecretKind::Credentials),
    (".config/configstore", SecretKind::Credentials),
    (".config/rclone", SecretKind::Credentials),
    // Database and file-transfer clients keep saved logins (FileZilla in base64, DBeaver
    // under a fixed key).
    (".config/filezilla", SecretKind::Credentials),
    (".filezilla", SecretKind::Credentials),
    (
        ".local/share/DBeaverData/workspace6/General/.dbeaver",
        SecretKind::Credentials,
    ),
    (
        "Library/DBeaverData/workspace6/General/.dbeaver",
        SecretKind::Credentials,
    ),
    (".config/remmina", SecretKind::Credentials),
    (".local/share/remmina", SecretKind::Credentials),
    (".config/transmission", SecretKind::Credentials),
    (".mylogin.cnf", SecretKind::Credentials),
    // AI agents' own logins (API keys, OAuth tokens).
    (".codex/auth.json", SecretKind::Credentials),
    (".claude/.credentials.json", SecretKind::Credentials),
    (".gemini/oauth_creds.json", SecretKind::Credentials),
    (".config/github-copilot/apps.json", SecretKind::Credentials),
    (".config/github-copilot/hosts.json", SecretKind::Credentials),
    (".config/Bitwarden CLI", SecretKind::Credentials),
    (".cloudflared", SecretKind::Credentials),
    (".wrangler", SecretKind::Credentials),
    (".local/share/com.vercel.cli", SecretKind::Credentials),
    (".config/heroku", SecretKind::Credentials),
    (".databrickscfg", SecretKind::Credentials),
    (".config/gcloud-credentials", SecretKind::Credentials),
    (".ansible/vault_pass", SecretKind::Credentials),
    (".local/share/kwalletd", SecretKind::Credentials),
    (".config/google-chrome", SecretKind::Credentials),
    // Mobile, ML and data tools keep logins and signing keys here: fastlane's Apple session
    // cookies, adb's private key, Kaggle and Hugging Face API tokens, Pulumi, Composer, Hex,
    // RubyGems, Sentry, ngrok, Snowflake and dbt connection passwords.
    (".fastlane", SecretKind::Credentials),
    (".android/adbkey", SecretKind::PrivateKey),
    (".android/debug.keystore", SecretKind::PrivateKey),
    (".kaggle/kaggle.json", SecretKind::Credentials),
    (".cache/huggingface/token", SecretKind::Credentials),
    (".cache/huggingface/stored_tokens", SecretKind::Credentials),
    (".huggingface/token", SecretKind::Credentials),
    (".pulumi/credentials.json", SecretKind::Credentials),
    (".composer/auth.json", SecretKind::Credentials),
    (".config/composer/auth.json", SecretKind::Credentials),
    (".hex/hex.config", SecretKind::Credentials),
    (".mix/hex.config", SecretKind::Credentials),
    (".gem/credentials", SecretKind::Credentials),
    (".local/share/gem/credentials", SecretKind::Credentials),
    (".sentryclirc", SecretKind::Credentials),
    (".config/ngrok/ngrok.yml", SecretKind::Credentials),
    (".ngrok2/ngrok.yml", SecretKind::Credentials),
    (".snowsql/config", SecretKind::Credentials),
    (".snowflake/connections.toml", SecretKind::Credentials),
    (".dbt/profiles.yml", SecretKind::Credentials),
    (".config/glab-cli/config.yml", SecretKind::Credentials),
    (".terraformrc", SecretKind::Credentials),
    (".config/containers/auth.json", SecretKind::Credentials),
    // Chat apps' local storage holds their session tokens; agents' user-level MCP
    // configurations hold the servers' API keys in `env`.
    (
        "Library/Application Support/discord",
        SecretKind::Credentials,
    ),
    (".config/discord", SecretKind::Credentials),
    ("AppData/Roaming/discord", SecretKind::Credentials),
    (
        "Library/Application Support/Claude/claude_desktop_config.json",
        SecretKind::Credentials,
    ),
    (
        ".config/Claude/claude_desktop_config.json",
        SecretKind::Credentials,
    ),
    (
        "AppData/Roaming/Claude/claude_desktop_config.json",
        SecretKind::Credentials,
    ),
    (".claude.json", SecretKind::Credentials),
    (".cursor/mcp.json", SecretKind::Credentials),
    (".codeium/windsurf/mcp_config.json", SecretKind::Credentials),
    (
        "Library/Application Support/Google/Chrome",
        SecretKind::Credentials,
    ),
];

/// SSH directory entries that are public by design.
const SSH_PUBLIC: &[&str] = &[
    "known_hosts",
    "known_hosts.old",
    "config",
    "authorized_keys",
    "authorized_keys2",
    "allowed_signers",
];

/// A `.pem` named as a certificate (`cert.pem`, `fullchain.pem`, `dev-ca.pem`,
/// `rootCA.pem`, `ca-bundle.pem`): certificates are public by design. A name that also says
/// key (`rootCA-key.pem`, `cert-key.pem`, `privkey.pem`) is still a key.
fn certificate_pem(lower: &str) -> bool {
    let Some(stem) = lower.strip_suffix(".pem") else {
        return false;
    };
    let words: Vec<&str> = stem
        .split(['-', '_', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    let cert = words.iter().any(|w| {
        matches!(
            *w,
            "cert"
                | "certs"
                | "certificate"
                | "crt"
                | "ca"
                | "cacert"
                | "cacerts"
                | "rootca"
                | "chain"
                | "fullchain"
                | "bundle"
                | "pub"
                | "public"
        )
    });
    let key = words.iter().any(|w| {
        w.contains("key") || w.contains("priv") || w.contains("secret") || *w == "combined"
    });
    cert && !key
}

/// Classify a normalised path as a secret.
pub fn secret_kind(path: &str, home: Option<&str>) -> Option<SecretKind> {
    let base = basename(path);
    let lower = base.to_ascii_lowercase();
    if let Some(rel) = home_relative(path, home).or_else(|| every_home_relative(path)) {
        for (pre, kind) in HOME_SECRETS {
            if rel == *pre || rel.strip_prefix(pre).is_some_and(|r| r.starts_with('/')) {
                if *pre == ".ssh" && (lower.ends_with(".pub") || SSH_PUBLIC.contains(&base)) {
                    return None;
                }
                return Some(*kind);
            }
        }
    }
    // (`.dev.vars`: Cloudflare Wrangler's local secrets, a `.env` by another name.)
    if lower == ".env"
        || lower == ".envrc"
        || lower == ".dev.vars"
        || lower.starts_with(".dev.vars.")
    {
        return Some(SecretKind::DotEnv);
    }
    // Files that exist only to hold logins, wherever they lie (a copy in a project, a
    // mounted home): `.pgpass`, `.netrc`, `.git-credentials`. (A project's `.npmrc` is
    // mostly registry settings; the home folder's is judged above.)
    if matches!(
        lower.as_str(),
        ".pgpass"
            | ".netrc"
            | "_netrc"
            | ".git-credentials"
            | ".s3cfg"
            | ".pypirc"
            | ".vault-token"
    ) {
        return Some(SecretKind::Credentials);
    }
    // A token file in the home folder itself (`~/.vault-token`, `~/.consul-token`,
    // `~/.nomad_token`): how CLIs and people keep one login.
    if home_relative(path, home).is_some_and(|r| !r.contains('/'))
        && lower.starts_with('.')
        && (lower.ends_with("-token") || lower.ends_with("_token") || lower.ends_with(".token"))
    {
        return Some(SecretKind::Credentials);
    }
    // A command-line tool's saved login in its own folder under the home folder
    // (`~/Library/Application Support/com.vercel.cli/auth.json`, `~/.config/<tool>/token.json`,
    // `~/.composer/auth.json`): where CLIs keep the token they log in with.
    if let Some(rel) = home_relative(path, home)
        && (rel.starts_with('.')
            || rel.starts_with("Library/Application Support/")
            || rel.starts_with("AppData/"))
        && rel.contains('/')
        && matches!(
            lower.as_str(),
            "auth.json"
                | "token.json"
                | "tokens.json"
                | "session.json"
                | "credentials.toml"
                | "credentials.yml"
                | "credentials.yaml"
                | "access_token"
                | "refresh_token"
                | "auth.toml"
        )
    {
        return Some(SecretKind::Credentials);
    }
    // A pod's Kubernetes service-account token (and the same mounted elsewhere).
    if path.contains("/serviceaccount/") && lower == "token" {
        return Some(SecretKind::Credentials);
    }
    if let Some(suffix) = lower.strip_prefix(".env.") {
        return (!ENV_SAFE_SUFFIXES.contains(&suffix)).then_some(SecretKind::DotEnv);
    }
    if lower.ends_with(".env") && !lower.contains("example") && !lower.contains("sample") {
        return Some(SecretKind::DotEnv);
    }
    if matches!(
        lower.as_str(),
        "id_rsa" | "id_dsa" | "id_ecdsa" | "id_ed25519" | "id_ecdsa_sk" | "id_ed25519_sk"
    ) {
        return Some(SecretKind::PrivateKey);
    }
    // GnuPG's secret keys, wherever its home is (`$GNUPGHOME/private-keys-v1.d`).
    if lower == "secring.gpg" || path.split('/').any(|c| c == "private-keys-v1.d") {
        return Some(SecretKind::PrivateKey);
    }
    let key_ext = [
        ".pem",
        ".key",
        ".p12",
        ".pfx",
        ".jks",
        ".keystore",
        ".ppk",
        ".asc",
        // PKCS#8 keys as Apple issues them (`AuthKey_ABC123.p8`: App Store Connect, APNs).
        ".p8",
    ];
    if key_ext.iter().any(|e| lower.ends_with(e))
        && !lower.starts_with("public")
        && !certificate_pem(&lower)
    {
        return Some(SecretKind::PrivateKey);
    }
    if matches!(
        lower.as_str(),
        "credentials.json"
            // Azure Functions' local settings: storage and service connection strings.
            | "local.settings.json"
            | "service-account.json"
            | "secrets.json"
            | "secrets.yaml"
            | "secrets.yml"
            | "secrets.toml"
            | ".htpasswd"
            | "terraform.tfstate"
    ) || (lower.starts_with("service-account") && lower.ends_with(".json"))
        // Cloud service-account key files by their usual names: `gcp-sa.json`,
        // `deploy-sa-key.json`, `sa-key.json`, `keyfile.json`, `gcp-key.json`.
        || (lower.ends_with(".json")
            && !lower.contains("example")
            && !lower.contains("schema")
            && {
                let stem = lower.trim_end_matches(".json");
                let parts: Vec<&str> = stem.split(['-', '_', '.']).collect();
                stem == "keyfile"
                    || (parts.contains(&"sa") && parts.len() >= 2)
                    || (parts.contains(&"key")
                        && parts
                            .iter()
                            .any(|p| matches!(*p, "gcp" | "gcloud" | "sa" | "service" | "firebase" | "adminsdk")))
                    || stem.contains("firebase-adminsdk")
            })
    {
        return Some(SecretKind::Credentials);
    }
    if lower.ends_with(".tfvars") && !lower.contains("example") {
        return Some(SecretKind::Credentials);
    }
    if path.starts_with("/proc/") && path.ends_with("/environ") {
        return Some(SecretKind::Credentials);
    }
    if matches!(
        path,
        "/etc/shadow" | "/etc/gshadow" | "/etc/master.passwd" | "/etc/sudoers"
    ) || path.starts_with("/etc/ssl/private")
        // Agents' and runners' configs hold their API keys and cluster admin logins.
        || matches!(
            path,
            "/etc/datadog-agent/datadog.yaml"
                | "/etc/gitlab-runner/config.toml"
                | "/etc/kubernetes/admin.conf"
                | "/etc/rancher/k3s/k3s.yaml"
                | "/etc/newrelic-infra.yml"
        )
        || path.starts_with("/etc/sudoers.d")
    {
        return Some(SecretKind::System);
    }
    None
}

/// Top-level system folders whose loss breaks the machine.
const SYSTEM_ROOTS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/home",
    "/Users",
    "/root",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/snap",
    "/mnt",
    "/media",
    "C:",
    "C:/Windows",
    "C:/Users",
    "C:/Program Files",
];

/// Is `path` a system folder or file outside any home and outside temporary space?
pub fn is_system_path(path: &str) -> bool {
    if path.starts_with("/tmp")
        || path.starts_with("/var/tmp")
        || path.starts_with("/var/folders")
        || path.starts_with("/private/tmp")
        || path.starts_with("/dev/null")
        || path.starts_with("/dev/std")
        || path.starts_with("/dev/fd/")
        || path.starts_with("/proc/self/fd")
    {
        return false;
    }
    if home_relative(path, None).is_some() {
        return false;
    }
    SYSTEM_ROOTS
        .iter()
        .any(|r| path == *r || path.strip_prefix(r).is_some_and(|x| x.starts_with('/')))
}

/// Would deleting `path` (normalised) take out the system, a home, the project or an ancestor
/// of it? `target_has_glob` marks `dir/*`-style operands (normalised without the glob).
pub fn is_critical_delete_target(path: &str, cwd: Option<&str>, home: Option<&str>) -> bool {
    if path == "/" || path == "." || path == ".." || path == "~" || path == "*" {
        return true;
    }
    if SYSTEM_ROOTS.contains(&path) {
        return true;
    }
    if let Some(rel) = home_relative(path, home) {
        // a home itself, or a top-level folder every user keeps
        if rel.is_empty()
            || matches!(
                rel,
                "Documents"
                    | "Desktop"
                    | "Downloads"
                    | "Pictures"
                    | "Library"
                    | ".config"
                    | "src"
                    | "code"
                    | "projects"
                    | "work"
                    | "dev"
                    | ".local"
                    | ".ssh"
                    | ".gnupg"
            )
        {
            return true;
        }
    }
    if SYSTEM_ROOTS
        .iter()
        .any(|r| path.strip_prefix(r).is_some_and(|x| x.starts_with('/')))
        && is_system_path(path)
        && path.matches('/').count() <= 2
    {
        // /usr/bin, /etc/ssh, /var/lib …
        return true;
    }
    if let Some(c) = cwd {
        let c = fold(&c.replace('\\', "/"));
        if path == c
            || (c.starts_with(path) && c.get(path.len()..).is_some_and(|r| r.starts_with('/')))
        {
            return true;
        }
    }
    false
}

/// A shell or batch script by its name (`deploy.sh`, `setup.ps1`, `build.cmd`).
pub fn is_script_name(path: &str) -> bool {
    [".sh", ".bash", ".zsh", ".ps1", ".cmd", ".bat"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// Shell start-up files: whatever is appended runs in every future shell.
pub fn is_shell_rc(path: &str, home: Option<&str>) -> bool {
    if let Some(rel) = home_relative(path, home) {
        return matches!(
            rel,
            ".bashrc"
                | ".bash_profile"
                | ".bash_login"
                | ".bash_logout"
                | ".profile"
                | ".bash_aliases"
                | ".zshrc"
                | ".zprofile"
                | ".zshenv"
                | ".zlogin"
                | ".cshrc"
                | ".tcshrc"
                | ".kshrc"
                | ".config/fish/config.fish"
                | ".inputrc"
                // Other shells' start-up files: xonsh, Nushell, Elvish.
                | ".xonshrc"
                | ".config/xonsh/rc.xsh"
                | ".config/nushell/config.nu"
                | ".config/nushell/env.nu"
                | ".config/elvish/rc.elv"
                | ".elvish/rc.elv"
        ) || rel.starts_with(".config/fish/conf.d/")
            // Sourced by every interactive shell: completions and profile snippets.
            || rel == ".bash_completion"
            || rel.starts_with(".bash_completion.d/")
            || rel.starts_with(".local/share/bash-completion/")
            || rel.starts_with(".config/fish/completions/")
            || rel.starts_with(".config/fish/functions/")
            || rel.starts_with(".zfunc/")
            || rel.starts_with(".oh-my-zsh/custom/")
            || rel.starts_with(".profile.d/")
            // PowerShell's profile scripts run in every session.
            || rel.starts_with("Documents/PowerShell/") && rel.ends_with("profile.ps1")
            || rel.starts_with("Documents/WindowsPowerShell/") && rel.ends_with("profile.ps1");
    }
    matches!(
        path,
        "/etc/profile" | "/etc/bash.bashrc" | "/etc/zshrc" | "/etc/environment"
    ) || path.starts_with("/etc/profile.d/")
}

/// Places whose content makes code run later without anyone asking (autostart, cron, keys).
pub fn is_persistence(path: &str, home: Option<&str>) -> bool {
    if let Some(rel) = home_relative(path, home) {
        return rel == ".ssh/authorized_keys"
            || rel == ".ssh/config"
            || rel == ".ssh/authorized_keys2"
            || rel == ".ssh/rc"
            || rel.starts_with(".config/systemd/")
            || rel.starts_with("Library/LaunchAgents")
            || rel.starts_with(".config/autostart")
            || rel == ".xinitrc"
            || rel == ".xprofile"
            || rel == ".xsessionrc"
            || rel == ".xsession"
            // A launcher of the user's own replaces the system's under the same name: what
            // it runs starts whenever that application is opened.
            || rel.starts_with(".local/share/applications/") && rel.ends_with(".desktop")
            // Terminal apps' own start-up scripts: iTerm2 runs `AutoLaunch` scripts at start.
            || rel.starts_with("Library/Application Support/iTerm2/Scripts/AutoLaunch/")
            // The user session's environment (a `PATH` put first here shadows every program).
            || rel.starts_with(".config/environment.d/")
            || rel == ".pam_environment"
            // Windows: what starts at log-on.
            || rel.starts_with("AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup");
    }
    path.starts_with("/etc/cron")
        || path.starts_with("/var/spool/cron")
        || path.starts_with("/etc/systemd/")
        || path.starts_with("/Library/LaunchDaemons")
        || path.starts_with("/Library/LaunchAgents")
        || path.starts_with("/etc/init.d")
        || path.starts_with("/etc/rc.local")
        || path == "/etc/ld.so.preload"
}

/// Files inside a Git hooks folder: they run on every commit, push or checkout.
pub fn is_git_hook(path: &str) -> bool {
    path.contains("/.git/hooks/")
        || path.starts_with(".git/hooks/")
        || path.ends_with("/.git/hooks")
}

/// Built-in locations of Airlock's own state and of the agent configs that wire its hooks.
/// Airlock's own files and the agents' hook wiring, relative to the home folder (see
/// [`is_protected`]); the service adds where any of them really lives when it is a link.
pub fn self_home_paths() -> &'static [&'static str] {
    SELF_HOME_PATHS
}

const SELF_HOME_PATHS: &[&str] = &[
    ".config/airlock",
    ".local/share/airlock",
    ".local/state/airlock",
    ".cache/airlock",
    ".airlock",
    "Library/Application Support/airlock",
    "Library/Application Support/dev.airlock.app",
    "Library/Preferences/dev.airlock.app.plist",
    "AppData/Roaming/airlock",
    "AppData/Local/airlock",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude.json",
    ".cursor/hooks.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    // Windsurf's hooks, the OpenCode plugin and Cline's global hook scripts that
    // `airlock wire` writes.
    ".codeium/windsurf/hooks.json",
    ".config/opencode/plugins/airlock.js",
    "Documents/Cline/Hooks",
    ".copilot/hooks",
    ".copilot/config.json",
    // Kiro CLI runs the hooks of the default agent (`kiro_default.json`, where Airlock is
    // wired); its settings pick which agent that is.
    ".kiro/agents",
    ".kiro/settings/cli.json",
    ".config/Code/User/settings.json",
    "Library/Application Support/Code/User/settings.json",
    "Library/Application Support/Claude/claude_desktop_config.json",
    ".config/Claude/claude_desktop_config.json",
];

/// Project-relative agent configs that can carry hooks.
const SELF_PROJECT_FILES: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".cursor/hooks.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".github/hooks",
    ".vscode/settings.json",
];

/// An agent's own settings file that can load hooks (`…/.claude/settings.json`,
/// `~/.claude.json`, VS Code's user settings), as against Airlock's own files: the project
/// files above wherever they stand, and the two that only live in a home folder.
pub fn agent_settings_file(lower: &str) -> bool {
    SELF_PROJECT_FILES
        .iter()
        .filter(|f| f.contains('.') && !f.ends_with("/hooks"))
        .chain(
            [
                ".claude.json",
                "code/user/settings.json",
                ".copilot/config.json",
                ".kiro/settings/cli.json",
            ]
            .iter(),
        )
        .any(|f| lower.ends_with(&format!("/{f}")))
}

/// Does this folder hold something [`is_protected`] names (`~/.claude` holds
/// `~/.claude/settings.json`)? Mounting over it or handing it to a container reaches those.
pub fn holds_protected(dir: &str, home: Option<&str>, protected: &[String]) -> bool {
    let d = dir.trim_end_matches('/').to_ascii_lowercase();
    if d.is_empty() {
        return false;
    }
    let under = |p: &str| p.to_ascii_lowercase().starts_with(&format!("{d}/"));
    protected.iter().any(|p| under(p))
        || home.is_some_and(|h| {
            let h = h.trim_end_matches('/');
            SELF_HOME_PATHS.iter().any(|r| under(&format!("{h}/{r}")))
        })
}

/// Is this normalised path part of Airlock itself or of the wiring that puts it on the path?
pub fn is_protected(path: &str, home: Option<&str>, protected: &[String]) -> bool {
    let lower = path.to_ascii_lowercase();
    for p in protected {
        let pl = p.to_ascii_lowercase();
        if lower == pl
            || lower
                .strip_prefix(pl.as_str())
                .is_some_and(|r| r.starts_with('/'))
        {
            return true;
        }
    }
    if let Some(rel) = home_relative(path, home) {
        let rel_l = rel.to_ascii_lowercase();
        for pre in SELF_HOME_PATHS {
            let pre_l = pre.to_ascii_lowercase();
            if rel_l == pre_l
                || rel_l
                    .strip_prefix(pre_l.as_str())
                    .is_some_and(|r| r.starts_with('/'))
            {
                return true;
            }
        }
    }
    for f in SELF_PROJECT_FILES {
        if lower == *f
            || lower.ends_with(&format!("/{f}"))
            || lower.contains(&format!("/{f}/"))
            || lower.starts_with(&format!("{f}/"))
        {
            return true;
        }
    }
    let base = basename(&lower);
    let parent_is_bin = lower
        .trim_end_matches('/')
        .rsplit('/')
        .nth(1)
        .is_some_and(|d| d == "bin");
    let airlock_binary = base == "airlock"
        || base == "airlock.exe"
        || (base.starts_with("airlock-") && !base.contains('.'));
    (airlock_binary && parent_is_bin) || lower.contains("/airlock.app")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_table() {
        let home = Some("/home/dev");
        let cwd = Some("/home/dev/project");
        let cases = [
            ("~/.ssh/id_rsa", "/home/dev/.ssh/id_rsa"),
            ("~", "/home/dev"),
            (".env", "/home/dev/project/.env"),
            ("./src/../.env", "/home/dev/project/.env"),
            ("../../..", "/"),
            ("//etc///passwd", "/etc/passwd"),
            ("/a/./b/../c", "/a/c"),
            ("C:\\Users\\me\\.ssh\\id_rsa", "C:/Users/me/.ssh/id_rsa"),
            // Other names for the same places.
            ("~dev/.ssh/id_rsa", "/home/dev/.ssh/id_rsa"),
            ("~alice/.aws/credentials", "/home/alice/.aws/credentials"),
            ("~root/.bashrc", "/root/.bashrc"),
            (
                "/proc/self/cwd/../.git-credentials",
                "/home/dev/.git-credentials",
            ),
            ("/proc/self/root/etc/shadow", "/etc/shadow"),
            (
                "/System/Volumes/Data/Users/alex/.aws/credentials",
                "/Users/alex/.aws/credentials",
            ),
            ("/private/etc/sudoers", "/etc/sudoers"),
            ("/proc/self/cwdx/a", "/proc/self/cwdx/a"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input, cwd, home), want, "{input}");
        }
        assert_eq!(normalize("~/.aws", None, None), "~/.aws");
        assert_eq!(normalize("a/../../b", None, None), "../b");
    }

    #[test]
    fn secret_table() {
        let h = Some("/home/dev");
        let cases = [
            ("/home/dev/project/.env", Some(SecretKind::DotEnv)),
            (
                "/home/dev/project/.env.production",
                Some(SecretKind::DotEnv),
            ),
            ("/home/dev/project/.env.example", None),
            ("/home/dev/project/.env.sample", None),
            (
                "/home/dev/project/local.settings.json",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/.secrets/azure-sp.xml",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/.gradle/gradle.properties",
                Some(SecretKind::Credentials),
            ),
            ("/home/dev/project/gradle.properties", None),
            ("/home/dev/.ssh/id_rsa", Some(SecretKind::PrivateKey)),
            ("/home/dev/.ssh/id_rsa.pub", None),
            ("/home/dev/.ssh/known_hosts", None),
            ("/home/dev/.ssh", Some(SecretKind::PrivateKey)),
            (
                "/Users/alex/.aws/credentials",
                Some(SecretKind::Credentials),
            ),
            ("~/.kube/config", Some(SecretKind::Credentials)),
            (
                "/home/other/.docker/config.json",
                Some(SecretKind::Credentials),
            ),
            ("/etc/shadow", Some(SecretKind::System)),
            ("/etc/passwd", None),
            ("/etc/datadog-agent/datadog.yaml", Some(SecretKind::System)),
            ("/etc/datadog-agent/conf.d/nginx.d/conf.yaml", None),
            ("/home/dev/.android/adbkey", Some(SecretKind::PrivateKey)),
            ("/home/dev/.android/adbkey.pub", None),
            (
                "/home/dev/.kaggle/kaggle.json",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/.cache/huggingface/token",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/.cache/huggingface/hub/models--gpt2/config.json",
                None,
            ),
            (
                "/Users/alex/.fastlane/spaceship/alex@acme.example/cookie",
                Some(SecretKind::Credentials),
            ),
            ("/home/dev/.consul-token", Some(SecretKind::Credentials)),
            ("/home/dev/project/.consul-token", None),
            ("/home/dev/project/design-token", None),
            ("/home/dev/project/src/main.rs", None),
            ("/home/dev/project/server.key", Some(SecretKind::PrivateKey)),
            ("/home/dev/project/server.pem", Some(SecretKind::PrivateKey)),
            (
                "/home/dev/project/privkey.pem",
                Some(SecretKind::PrivateKey),
            ),
            (
                "/home/dev/project/rootCA-key.pem",
                Some(SecretKind::PrivateKey),
            ),
            (
                "/home/dev/project/cert-key.pem",
                Some(SecretKind::PrivateKey),
            ),
            // Certificates are public by design.
            ("/home/dev/project/certs/dev-ca.pem", None),
            ("/home/dev/project/fullchain.pem", None),
            ("/home/dev/project/rootCA.pem", None),
            ("/home/dev/project/cert.pem", None),
            ("/home/dev/project/README.md", None),
            ("/home/dev/.bashrc", None),
            // Apple's PKCS#8 keys; chat-app token stores; agents' MCP configurations.
            (
                "/Users/alex/Downloads/AuthKey_7XK2M9Q4PL.p8",
                Some(SecretKind::PrivateKey),
            ),
            (
                "/Users/alex/Library/Application Support/discord/Local Storage/leveldb",
                Some(SecretKind::Credentials),
            ),
            (
                "/Users/alex/Library/Application Support/Claude/claude_desktop_config.json",
                Some(SecretKind::Credentials),
            ),
            ("/home/dev/.cursor/mcp.json", Some(SecretKind::Credentials)),
            ("/home/dev/project/.cursor/mcp.json", None),
            ("/home/dev/project/.mcp.json", None),
            ("/home/dev/.claude/settings.json", None),
            // Service-account key files by their usual names; look-alikes that are not.
            (
                "/home/dev/project/config/gcp-sa.json",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/project/sa-key.json",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/project/firebase-adminsdk-x1y2.json",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/project/keyfile.json",
                Some(SecretKind::Credentials),
            ),
            ("/home/dev/project/keymap.json", None),
            ("/home/dev/project/sa-key.example.json", None),
            ("/home/dev/project/i18n/key-names.json", None),
            ("/home/dev/project/usa.json", None),
            // Every user's home at once.
            ("/home/*/.ssh/id_*", Some(SecretKind::PrivateKey)),
            ("/Users/*/.aws/credentials", Some(SecretKind::Credentials)),
            ("/home/*/.ssh/id_ed25519.pub", None),
            ("/home/*/project/README.md", None),
            // Login files by name, wherever they lie.
            ("/home/dev/project/.pgpass", Some(SecretKind::Credentials)),
            (
                "/home/dev/project/deploy/.netrc",
                Some(SecretKind::Credentials),
            ),
            ("/srv/app/.git-credentials", Some(SecretKind::Credentials)),
            ("/home/dev/project/.npmrc", None),
            ("/home/dev/project/docs/netrc.md", None),
            // A tool's saved login in its folder under the home; a project's same name is not.
            (
                "/home/dev/Library/Application Support/com.vercel.cli/auth.json",
                Some(SecretKind::Credentials),
            ),
            (
                "/home/dev/.config/composer/auth.json",
                Some(SecretKind::Credentials),
            ),
            ("/home/dev/project/src/auth.json", None),
            ("/home/dev/.config/tool/settings.json", None),
        ];
        for (p, want) in cases {
            assert_eq!(secret_kind(p, h), want, "{p}");
        }
    }

    #[test]
    fn critical_targets() {
        let home = Some("/home/dev");
        let cwd = Some("/home/dev/project");
        let cases = [
            ("/", true),
            ("/home/dev", true),
            ("/home/dev/project", true),
            ("/home", true),
            ("/etc", true),
            ("/usr/bin", true),
            ("/Users/alex", true),
            ("/home/dev/project/node_modules", false),
            ("/home/dev/project/target", false),
            ("/tmp/build", false),
            ("/home/dev/Documents", true),
        ];
        for (p, want) in cases {
            assert_eq!(is_critical_delete_target(p, cwd, home), want, "{p}");
        }
    }

    #[test]
    fn protected_table() {
        let home = Some("/home/dev");
        let extra = vec!["/opt/airlock-data".to_owned()];
        let cases = [
            ("/home/dev/.config/airlock/config.toml", true),
            ("/home/dev/.local/share/airlock/airlock.db", true),
            ("/home/dev/.claude/settings.json", true),
            ("/home/dev/project/.claude/settings.json", true),
            ("/home/dev/.cursor/hooks.json", true),
            ("/usr/local/bin/airlock", true),
            ("/home/dev/.cargo/bin/airlock", true),
            ("/opt/airlock-data/x", true),
            ("/home/dev/project/src/airlock.rs", false),
            ("/home/dev/project/docs/airlock.md", false),
            ("/home/dev/project/src/main.rs", false),
        ];
        for (p, want) in cases {
            assert_eq!(is_protected(p, home, &extra), want, "{p}");
        }
    }

    #[test]
    fn rc_persistence_hooks() {
        let h = Some("/home/dev");
        assert!(is_shell_rc("/home/dev/.bashrc", h));
        assert!(is_shell_rc("/Users/alex/.zshrc", None));
        assert!(!is_shell_rc("/home/dev/project/.bashrc.example", h));
        assert!(is_persistence("/home/dev/.ssh/authorized_keys", h));
        assert!(is_persistence("/etc/cron.d/job", h));
        assert!(is_git_hook("/home/dev/project/.git/hooks/pre-commit"));
        assert!(!is_git_hook("/home/dev/project/scripts/hooks/pre-commit"));
        assert!(is_system_path("/etc/hosts"));
        assert!(within("/home/dev/project/src/a.rs", "/home/dev/project/"));
        assert!(within("/home/dev/project", "/home/dev/project"));
        assert!(!within("/home/dev/project2/a", "/home/dev/project"));
        // WSL's view of a Windows home is a home, the rest of a mounted drive is not.
        assert_eq!(
            home_relative("/mnt/c/Users/raj/source/app/x.ts", None),
            Some("source/app/x.ts")
        );
        assert!(!is_system_path("/mnt/c/Users/raj/source/app/x.ts"));
        assert!(is_system_path("/mnt/c/Windows/System32/drivers/etc/hosts"));
        assert!(is_system_path("/mnt/data/backups"));
        assert!(!is_system_path("/tmp/x"));
        assert!(!is_system_path("/home/dev/x"));
    }
}
