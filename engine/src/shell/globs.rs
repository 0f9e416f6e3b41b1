//! Unquoted globs matched against the paths that matter.
//!
//! The engine has no disk, so `cat ~/.s?h/id_e*` or `/???/r? -rf ~/src` cannot be expanded
//! the way the shell will. Instead a glob is matched against a fixed list of paths whose
//! touch matters — private keys, cloud credentials, agent and guard settings, shell start-up
//! files, system account files — and against the programs in the usual system folders: a
//! pattern that could name one of them is judged as naming it (as well as itself).

/// Paths a glob in an argument is tried against (`~` is the home folder).
const SENSITIVE: &[&str] = &[
    "~/.ssh/id_rsa",
    "~/.ssh/id_ed25519",
    "~/.ssh/id_ecdsa",
    "~/.ssh/id_dsa",
    "~/.ssh/authorized_keys",
    "~/.ssh/config",
    "~/.aws/credentials",
    "~/.aws/config",
    "~/.kube/config",
    "~/.docker/config.json",
    "~/.npmrc",
    "~/.pypirc",
    "~/.netrc",
    "~/.git-credentials",
    "~/.vault-token",
    "~/.config/gh/hosts.yml",
    "~/.config/gcloud/application_default_credentials.json",
    "~/.config/gcloud/credentials.db",
    "~/.azure/accessTokens.json",
    "~/.azure/msal_token_cache.json",
    "~/.gnupg/private-keys-v1.d",
    "~/.password-store",
    "~/.bash_history",
    "~/.zsh_history",
    "~/.bashrc",
    "~/.zshrc",
    "~/.profile",
    "~/.bash_profile",
    "~/.claude/settings.json",
    "~/.claude/settings.local.json",
    "~/.claude.json",
    "~/.cursor/hooks.json",
    "~/.codex/config.toml",
    "~/.gemini/settings.json",
    "~/.config/airlock",
    "~/.local/share/airlock",
    "~/.cargo/bin/airlock-hook",
    "~/.cargo/bin/airlock",
    "~/.local/bin/airlock-hook",
    "~/.local/bin/airlock",
    "~/Library/Keychains/login.keychain-db",
    "~/Library/Application Support/Google/Chrome/Default/Login Data",
    "~/.mozilla/firefox",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/passwd",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_rsa_key",
    ".env",
    ".env.local",
    ".env.production",
    ".git/config",
    ".git/hooks",
];

/// Folders a glob command word is tried in, and the programs tried there.
const PROGRAM_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/bin/",
];
const PROGRAMS: &[&str] = &[
    "rm",
    "rmdir",
    "shred",
    "dd",
    "mkfs",
    "wipefs",
    "truncate",
    "mv",
    "cp",
    "chmod",
    "chown",
    "chattr",
    "cat",
    "less",
    "head",
    "tail",
    "base64",
    "xxd",
    "tar",
    "zip",
    "curl",
    "wget",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "ssh",
    "scp",
    "rsync",
    "sftp",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "python",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "lua",
    "awk",
    "gawk",
    "sed",
    "find",
    "xargs",
    "env",
    "kill",
    "pkill",
    "killall",
    "crontab",
    "sudo",
    "su",
    "systemctl",
    "git",
    "openssl",
    "gpg",
    "sqlite3",
    "dig",
    "nslookup",
    "ping",
    "tee",
];

/// Does the shell pattern `glob` match the whole of `name`, component by component (`*` and
/// `?` never cross `/`, a leading `.` is matched only by a literal `.`, `[…]` classes with
/// ranges and `!`/`^` negation)?
pub(crate) fn matches(glob: &str, name: &str) -> bool {
    let g: Vec<&str> = glob.split('/').collect();
    let n: Vec<&str> = name.split('/').collect();
    g.len() == n.len()
        && g.len() <= 32
        && g.iter().zip(&n).all(|(gc, nc)| {
            (!nc.starts_with('.') || gc.starts_with('.'))
                && component(
                    &gc.chars().collect::<Vec<_>>(),
                    &nc.chars().collect::<Vec<_>>(),
                    0,
                )
        })
}

fn component(g: &[char], n: &[char], depth: u16) -> bool {
    if depth > 256 {
        return false;
    }
    match g.split_first() {
        None => n.is_empty(),
        Some(('*', rest)) => {
            (0..=n.len()).any(|i| n.get(i..).is_some_and(|t| component(rest, t, depth + 1)))
        }
        Some(('?', rest)) => n
            .split_first()
            .is_some_and(|(_, t)| component(rest, t, depth + 1)),
        Some(('[', rest)) => {
            let Some(close) = rest.iter().skip(1).position(|c| *c == ']').map(|p| p + 1) else {
                return n.first() == Some(&'[')
                    && component(rest, n.get(1..).unwrap_or(&[]), depth + 1);
            };
            let class = rest.get(..close).unwrap_or(&[]);
            let after = rest.get(close + 1..).unwrap_or(&[]);
            let (negate, class) = match class.split_first() {
                Some(('!' | '^', c)) => (true, c),
                _ => (false, class),
            };
            let Some((c, t)) = n.split_first() else {
                return false;
            };
            let mut hit = false;
            let mut i = 0;
            while let Some(&lo) = class.get(i) {
                if class.get(i + 1) == Some(&'-')
                    && let Some(&hi) = class.get(i + 2)
                {
                    hit |= lo <= *c && *c <= hi;
                    i += 3;
                } else {
                    hit |= lo == *c;
                    i += 1;
                }
            }
            hit != negate && component(after, t, depth + 1)
        }
        Some((c, rest)) => n
            .split_first()
            .is_some_and(|(d, t)| c == d && component(rest, t, depth + 1)),
    }
}

/// Is there a glob character in `text`?
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// The sensitive paths (as listed, `~` for the home folder) an argument glob could name.
/// A pattern with no literal letter of its own (`*`, `*/*`) names nothing in particular.
pub(crate) fn sensitive_matches(text: &str, home: Option<&str>) -> Vec<&'static str> {
    if !is_glob(text) || text.len() > 256 || !text.chars().any(|c| c.is_ascii_alphabetic()) {
        return Vec::new();
    }
    let mut pattern = text.to_owned();
    for h in ["$HOME", "${HOME}"].into_iter().chain(home) {
        if let Some(rest) = pattern.strip_prefix(h)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            pattern = format!("~{rest}");
        }
    }
    let pattern = pattern.trim_start_matches("./");
    SENSITIVE
        .iter()
        .copied()
        .filter(|p| matches(pattern, p))
        .take(8)
        .collect()
}

/// The program a glob command word could be (`/???/r?` → `/bin/rm`): the first listed
/// program it matches, tried as a bare name and in each usual system folder.
pub(crate) fn program_match(text: &str) -> Option<String> {
    if !is_glob(text) || text.len() > 128 {
        return None;
    }
    PROGRAMS.iter().find_map(|p| {
        if matches(text, p) {
            return Some((*p).to_owned());
        }
        PROGRAM_DIRS
            .iter()
            .map(|d| format!("{d}{p}"))
            .find(|full| matches(text, full))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_name_what_they_could_match() {
        let home = Some("/home/dev");
        for (glob, want) in [
            ("~/.s?h/id_e*", vec!["~/.ssh/id_ed25519", "~/.ssh/id_ecdsa"]),
            ("/home/dev/.a*/cred*", vec!["~/.aws/credentials"]),
            (
                "$HOME/.c?aude/settings.json",
                vec!["~/.claude/settings.json"],
            ),
            ("/etc/sha[d]ow", vec!["/etc/shadow"]),
            (".e[n]v", vec![".env"]),
            // Look-alikes: build output, sources, every file (no name of its own), dotfiles
            // not matched by a bare `*`.
            ("dist/*.js", vec![]),
            ("src/**/*.ts", vec![]),
            ("*", vec![]),
            ("~/*", vec![]),
            ("~/projects/*/node_modules", vec![]),
            ("~/.ssh/*.pub", vec![]),
        ] {
            assert_eq!(sensitive_matches(glob, home), want, "{glob}");
        }
        for (glob, want) in [
            ("/???/r?", Some("/bin/rm")),
            ("/usr/bin/cu?l", Some("/usr/bin/curl")),
            ("/bin/[r]m", Some("/bin/rm")),
            ("./scripts/*.sh", None),
            ("ls", None),
        ] {
            assert_eq!(program_match(glob).as_deref(), want, "{glob}");
        }
    }
}
