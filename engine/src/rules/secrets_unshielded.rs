//! Secret files let into what is built, published or uploaded.
//!
//! **What it does:** an edit that takes secret files out of an ignore file
//! (`.dockerignore`, `.npmignore`, `.gitignore`, `.gcloudignore`, `.vercelignore`, …: the
//! lines naming `.env`, `*.pem`, `*.key`, `secrets/`, credentials go); a new `.npmignore`
//! that excludes no `.env` (npm then stops reading `.gitignore`) in a session that read a
//! secret; a CI step that uploads the whole workspace as an artifact (`path: .`, hidden files
//! included); and remote-access actions added to CI (`action-tmate`, `action-upterm`: a shell
//! on the runner, with its secrets, for whoever connects) are `secrets_unshielded`, AUTH.
//! **Why:** nothing leaves when the edit is made: the secret goes out with the next image
//! build, `npm publish`, deploy or CI run, far from the call that let it.
//! **Example:** an Edit of `.dockerignore` removing `.env` and `*.pem` → `secrets_unshielded`.

use crate::action::Operation;
use crate::paths;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const SECRETS_UNSHIELDED: Reason = Reason::new(
    "secrets_unshielded",
    "Lets secret files into what is later built, published or uploaded (an ignore file loosened, the whole workspace uploaded, a shell opened on CI).",
);

/// Ignore files that keep files out of an image, a package, a deploy or a commit.
const IGNORE_FILES: &[&str] = &[
    ".dockerignore",
    ".npmignore",
    ".gitignore",
    ".gcloudignore",
    ".vercelignore",
    ".helmignore",
    ".slugignore",
    ".vscodeignore",
    ".ebignore",
    ".cfignore",
    ".funcignore",
];

/// Does an ignore-file line name secret files (`.env`, `.env.*`, `*.pem`, `secrets/`)?
fn names_secrets(line: &str) -> bool {
    let l = line.trim().to_ascii_lowercase();
    if l.is_empty() || l.starts_with('#') || l.starts_with('!') {
        return false;
    }
    let l = l.trim_start_matches(['*', '/']);
    l.starts_with(".env")
        || l.ends_with(".pem")
        || l.ends_with(".key")
        || l.ends_with(".p12")
        || l.ends_with(".pfx")
        || l.contains("secret")
        || l.contains("credential")
        || l.starts_with("id_rsa")
        || l.starts_with("id_ed25519")
        || l == ".npmrc"
        || l == ".pypirc"
        || l.ends_with(".tfvars")
        || l.ends_with(".tfstate")
}

/// Remote-access actions: a shell on the CI runner for whoever connects.
const REMOTE_ACCESS_ACTIONS: &[&str] = &[
    "mxschmitt/action-tmate",
    "lhotari/action-upterm",
    "owenthereal/action-upterm",
    "csexton/debugger-action",
    "fawazahmed0/action-debug",
];

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Operation::FileWrite { path, content } = &cx.action.op else {
        return;
    };
    let abs = paths::normalize(path, cx.cwd(), cx.home());
    let lower = abs.to_ascii_lowercase();
    let base = paths::basename(&lower);
    if IGNORE_FILES.contains(&base) {
        // Lines naming secrets that an edit takes away (and does not put back).
        let removed = cx.facts.edits.iter().any(|e| {
            let kept: Vec<&str> = e.new.lines().map(str::trim).collect();
            e.old
                .lines()
                .any(|l| names_secrets(l) && !kept.contains(&l.trim()))
        });
        // A new `.npmignore` replaces `.gitignore` for `npm publish`: without `.env` in it,
        // a `.env` the session knows of goes out with the package.
        let npm_shadow = base == ".npmignore"
            && cx.facts.edits.is_empty()
            && !content.lines().any(names_secrets)
            && (cx.session.secret_read || !cx.session.secret_files.is_empty());
        if removed || npm_shadow {
            out.push(Finding::new(SECRETS_UNSHIELDED, Verdict::Auth));
            return;
        }
    }
    if crate::autorun::is_ci_file(&lower) {
        let added: Vec<String> = super::verification_bypass::added_lines(cx, content)
            .iter()
            .map(|l| l.to_ascii_lowercase())
            .collect();
        let uploads_artifact = added.iter().any(|l| l.contains("upload-artifact"))
            || content.to_ascii_lowercase().contains("upload-artifact");
        let whole_workspace = added.iter().any(|l| {
            let t: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            matches!(
                t.as_str(),
                "path:." | "path:./" | "path:'.'" | "path:\".\"" | "path:${{github.workspace}}"
            )
        });
        let remote_shell = added.iter().any(|l| {
            l.trim_start().trim_start_matches("- ").starts_with("uses:")
                && REMOTE_ACCESS_ACTIONS.iter().any(|a| l.contains(a))
        });
        if (uploads_artifact && whole_workspace) || remote_shell {
            out.push(Finding::new(SECRETS_UNSHIELDED, Verdict::Auth));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::rules::testutil::judge_edit;

    #[test]
    fn secret_files_let_into_builds_packages_and_uploads() {
        for (path, old, new, want) in [
            (".dockerignore", ".env\n.env.*\n*.pem\nsecrets/\n", "", Auth),
            (
                ".dockerignore",
                "node_modules\n.env\n",
                "node_modules\n.env\ncoverage\n",
                Pass,
            ),
            (
                ".dockerignore",
                "node_modules\n.git\n",
                "node_modules\n",
                Pass,
            ),
            (".gitignore", "dist/\n.env\n", "dist/\n", Auth),
            (".gitignore", "dist/\n.env\n", "dist/\nbuild/\n.env\n", Pass),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test\n      - uses: actions/upload-artifact@v4\n        with:\n          name: workspace\n          path: .\n          include-hidden-files: true\n",
                Auth,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: npm test\n",
                "      - run: npm test\n      - uses: actions/upload-artifact@v4\n        with:\n          name: coverage\n          path: coverage/\n",
                Pass,
            ),
            (
                ".github/workflows/ci.yml",
                "      - run: make test\n",
                "      - run: make test\n      - uses: mxschmitt/action-tmate@v3\n        if: always()\n",
                Auth,
            ),
        ] {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, want, "{path}: {new:?}: {reasons:?}");
        }
    }
}
