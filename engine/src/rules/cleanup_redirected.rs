//! A tool's own clean-up pointed at the home folder or the system.
//!
//! **What it does:** a clean-up subcommand (`cargo clean`, `bazel clean --expunge`, `go
//! clean -cache`, `npm cache clean`, `pip cache purge`, `ccache -C`, `dotnet clean`) whose
//! build, cache or output folder is set — by an environment variable on the line or an
//! option — to the home folder, a folder above it, or a system folder is
//! `cleanup_redirected`: BLOCK (AUTH in light).
//! **Why:** the tool deletes the folder it was told is its own: `CARGO_TARGET_DIR=$HOME
//! cargo clean` is `rm -rf ~` without `rm` on the line.
//! **Example:** `bazel --output_base="$HOME" clean --expunge` → `cleanup_redirected`.

use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const CLEANUP_REDIRECTED: Reason = Reason::new(
    "cleanup_redirected",
    "Points a tool's clean-up at the home folder or a system folder, which it then deletes.",
);

/// Words that make a line a clean-up.
const CLEAN_VERBS: &[&str] = &[
    "clean",
    "purge",
    "prune",
    "--expunge",
    "-C",
    "--clear",
    "clear",
];

/// Option and variable name parts that name the folder a tool owns.
const FOLDER_PARTS: &[&str] = &[
    "dir", "base", "root", "cache", "folder", "output", "home", "path",
];

/// Folders whose deletion is the home folder's or the system's.
const SYSTEM: &[&str] = &[
    "/", "/home", "/Users", "/usr", "/etc", "/var", "/opt", "/bin", "/lib", "/root", "/srv",
];

fn is_precious(value: &str, home: Option<&str>) -> bool {
    let mut v = value.trim().trim_matches(['"', '\'']).to_owned();
    if let Some(h) = home {
        for var in ["${HOME}", "$HOME", "~"] {
            if v == var || v.starts_with(&format!("{var}/")) {
                v = v.replacen(var, h, 1);
            }
        }
    }
    let v = v.trim_end_matches('/');
    let v = if v.is_empty() { "/" } else { v };
    SYSTEM.contains(&v)
        || home.is_some_and(|h| {
            let h = h.trim_end_matches('/');
            v == h || h.starts_with(&format!("{v}/"))
        })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    let home = cx.home();
    let hit = sa.invocations.iter().any(|inv| {
        if !inv
            .args
            .iter()
            .any(|a| CLEAN_VERBS.contains(&a.text.as_str()))
        {
            return false;
        }
        let named = |name: &str| {
            let n = name.to_ascii_lowercase();
            FOLDER_PARTS.iter().any(|p| n.contains(p))
        };
        let by_env = inv
            .assignments
            .iter()
            .any(|(name, value)| named(name) && is_precious(&value.text, home));
        let by_option = inv.args.iter().enumerate().any(|(i, a)| {
            let t = a.text.as_str();
            if !t.starts_with('-') {
                return false;
            }
            match t.split_once('=') {
                Some((flag, value)) => named(flag) && is_precious(value, home),
                None => {
                    named(t)
                        && inv
                            .args
                            .get(i + 1)
                            .is_some_and(|v| is_precious(&v.text, home))
                }
            }
        });
        by_env || by_option
    });
    if hit {
        out.push(Finding::new(
            CLEANUP_REDIRECTED,
            cx.mode().pick([
                Verdict::Auth,
                Verdict::Block,
                Verdict::Block,
                Verdict::Block,
            ]),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::Mode;
    use crate::rules::testutil::table;
    use crate::verdict::Verdict::{Block, Pass};

    #[test]
    fn clean_ups_aimed_at_home_and_their_look_alikes() {
        table(
            Mode::Balanced,
            &[
                (
                    "CARGO_TARGET_DIR=$HOME cargo clean",
                    Block,
                    "cleanup_redirected",
                ),
                (
                    "bazel --output_base=\"$HOME\" clean --expunge",
                    Block,
                    "cleanup_redirected",
                ),
                ("cargo clean --target-dir ~", Block, "cleanup_redirected"),
                (
                    "GOCACHE=/home/dev go clean -cache",
                    Block,
                    "cleanup_redirected",
                ),
                (
                    "npm cache clean --force --cache=/",
                    Block,
                    "cleanup_redirected",
                ),
                ("CCACHE_DIR=/home ccache -C", Block, "cleanup_redirected"),
                // Their own folders, or the home folder only named for something else.
                ("cargo clean", Pass, ""),
                (
                    "CARGO_TARGET_DIR=$HOME/.cache/cargo-target cargo clean",
                    Pass,
                    "",
                ),
                (
                    "bazel --output_base=/tmp/bazel-out clean --expunge",
                    Pass,
                    "",
                ),
                ("go clean -cache", Pass, ""),
                ("npm cache clean --force", Pass, ""),
                ("HOME=/home/dev cargo build", Pass, ""),
            ],
        );
    }
}
