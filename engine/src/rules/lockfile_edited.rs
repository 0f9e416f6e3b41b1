//! Lockfiles edited by hand.
//!
//! **What it does:** an edit (the Edit and MultiEdit tools, `sed -i`/`perl -pi`, an MCP
//! filesystem edit) that changes where a lockfile says a package comes from or what it hashes
//! to — `resolved`/`integrity` in `package-lock.json` and `yarn.lock`, `h1:` hashes in
//! `go.sum`, `source`/`checksum` in `Cargo.lock`, `url`/`reference`/`shasum` in
//! `composer.lock`, `hash`/`url` in `poetry.lock` and `uv.lock` — is `lockfile_hand_edited`:
//! AUTH (PASS in light). An edit that touches only versions or other lines, and a whole-file
//! rewrite (the package manager's own output, or the agent regenerating it), are not judged
//! here.
//! **Why:** package managers write lockfiles; a person (or an agent) changing a tarball URL or
//! a checksum by hand is how a swapped package passes review — the diff is a hash nobody
//! reads, and every later install trusts it.
//! **Example:** `sed -i 's#https://registry.yarnpkg.com/minimist/-/minimist-1.2.8.tgz#https://203.0.113.44/npm/minimist-1.2.8.tgz#' yarn.lock`
//! → `lockfile_hand_edited`.

use crate::action::Operation;
use crate::paths;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const LOCKFILE_HAND_EDITED: Reason = Reason::new(
    "lockfile_hand_edited",
    "Changes a package's source or checksum in a lockfile by hand (package managers write these).",
);

/// Lockfiles by name.
fn is_lockfile(base: &str) -> bool {
    matches!(
        base,
        "package-lock.json"
            | "npm-shrinkwrap.json"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "bun.lock"
            | "go.sum"
            | "cargo.lock"
            | "composer.lock"
            | "poetry.lock"
            | "uv.lock"
            | "pipfile.lock"
            | "pdm.lock"
            | "gemfile.lock"
            | "packages.lock.json"
            | "gradle.lockfile"
            | "package.resolved"
            | "podfile.lock"
            | "mix.lock"
            | "flake.lock"
    )
}

/// Does a lockfile line say where a package comes from or what it hashes to? (A `sed`
/// edit's text is the replaced fragment alone: an address or a long hash counts by itself.)
fn names_source_or_hash(line: &str) -> bool {
    let l = line.trim().to_ascii_lowercase();
    let long_hash = l
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ':' | '#'))
        .any(|t| {
            t.len() >= 32
                && t.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_')
                })
        });
    l.contains("://")
        || long_hash
        || [
            "resolved",
            "integrity",
            "checksum",
            " h1:",
            "/go.mod h1:",
            "\"url\"",
            "url =",
            "url:",
            "source =",
            "\"reference\"",
            "\"shasum\"",
            "tarball",
            "hash =",
            "\"hash\"",
            "sha256",
            "sha512-",
            "narhash",
            "\"revision\"",
        ]
        .iter()
        .any(|m| l.contains(m))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Operation::FileWrite { path, .. } = &cx.action.op else {
        return;
    };
    let lower = path.to_ascii_lowercase();
    if !is_lockfile(paths::basename(&lower)) || lower.contains("/node_modules/") {
        return;
    }
    let hand_edited = cx.facts.edits.iter().any(|e| {
        let old: std::collections::HashSet<&str> = e.old.lines().map(str::trim).collect();
        let new: std::collections::HashSet<&str> = e.new.lines().map(str::trim).collect();
        // A source or hash line the edit takes away and one it puts in its place.
        e.old
            .lines()
            .any(|l| names_source_or_hash(l) && !new.contains(l.trim()))
            && e.new
                .lines()
                .any(|l| names_source_or_hash(l) && !old.contains(l.trim()))
    });
    if hand_edited {
        out.push(Finding::new(
            LOCKFILE_HAND_EDITED,
            cx.mode()
                .pick([Verdict::Pass, Verdict::Auth, Verdict::Auth, Verdict::Auth]),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::rules::testutil::{edit_table, table};

    #[test]
    fn lockfile_sources_and_hashes_edited_by_hand() {
        edit_table(&[
            (
                "yarn.lock",
                "minimist@^1.2.8:\n  version \"1.2.8\"\n  resolved \"https://registry.yarnpkg.com/minimist/-/minimist-1.2.8.tgz#abc\"\n",
                "minimist@^1.2.8:\n  version \"1.2.8\"\n  resolved \"https://203.0.113.44/npm/minimist-1.2.8.tgz#abc\"\n",
                Auth,
            ),
            (
                "go.sum",
                "golang.org/x/crypto v0.21.0 h1:X31++rzVUdKhX5sWmSOFZxx8UW/ldWx55cbf08iNAMA=",
                "golang.org/x/crypto v0.21.0 h1:q7Jd3kPzWv0mN8bXcR2fT5yLhG4sAeUo9iVbQ1ZtKcE=",
                Auth,
            ),
            (
                "Cargo.lock",
                "name = \"ring\"\nversion = \"0.17.8\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"c17fa4cb\"\n",
                "name = \"ring\"\nversion = \"0.17.8\"\nsource = \"git+https://github.com/ring-fork/ring?rev=1\"\nchecksum = \"c17fa4cb\"\n",
                Auth,
            ),
            // Look-alikes: a version line, a lockfile's own comment, an address in a document.
            (
                "yarn.lock",
                "# yarn lockfile v1\n",
                "# yarn lockfile v1\n# THIS IS AN AUTOGENERATED FILE.\n",
                Pass,
            ),
            (
                "package-lock.json",
                "  \"name\": \"webapp\",\n  \"version\": \"1.4.0\",\n",
                "  \"name\": \"webapp\",\n  \"version\": \"1.5.0\",\n",
                Pass,
            ),
            (
                "docs/links.md",
                "- registry: https://registry.yarnpkg.com/\n",
                "- registry: https://npm.internal.acme.example/\n",
                Pass,
            ),
        ]);
        table(
            crate::policy::Mode::Balanced,
            &[
                (
                    "sed -i 's#https://registry.yarnpkg.com/minimist/-/minimist-1.2.8.tgz#https://203.0.113.44/npm/minimist-1.2.8.tgz#' yarn.lock",
                    Auth,
                    "lockfile_hand_edited",
                ),
                ("npm install --package-lock-only", Pass, ""),
            ],
        );
    }
}
