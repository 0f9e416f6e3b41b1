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
];

/// A history file in a home directory.
fn is_history_file(path: &str, home: Option<&str>) -> bool {
    paths::home_relative(path, home).is_some_and(|rel| {
        let base = paths::basename(rel);
        base.ends_with("_history") || base == ".zhistory" || base == ".history"
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
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
