//! A dependency's source moved by an edit, in any ecosystem's manifest.
//!
//! **What it does:** an edit to a file that says where code is fetched from — a Terraform
//! module's `source`, a Helm chart's `repository`, a Conda `channels` list, a Nix flake's
//! `inputs`, a Deno import map, Gradle or Maven repositories, a Cargo `[patch]`, a Gemfile
//! `source`, a pre-commit `repo` — that brings in a source whose place (its host, and on a
//! code host its owner) the text before did not name is `dependency_source_changed`: AUTH
//! (PASS in light; BLOCK from strict up once the session took in untrusted content). A
//! version bump at the same place, or a place the policy lists, is not. The session
//! remembers the file (see `planted_run`), so the next build, install or dev server there —
//! whatever program does the fetching — is asked about too.
//! **Why:** `terraform init`, `helm dependency update`, `nix develop` or `deno task dev` then
//! run code from whoever holds the new place; a one-letter owner (`terraform-aws-module`) or
//! a "mirror" is all it takes, and the fetching command looks routine.
//! **Example:** `github:NixOS/nixpkgs` → `github:NixOS-community/nixpkgs` in `flake.nix`.

use std::collections::BTreeSet;

use super::Ctx;
use crate::verdict::Finding;

/// Hosts where the first path segment is an owner (a fork under another owner is another
/// source).
const CODE_HOSTS: &[&str] = &[
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "codeberg.org",
    "git.sr.ht",
];

/// Files whose text says where dependencies are fetched from.
fn names_sources(path: &str) -> bool {
    let base = crate::paths::basename(path);
    super::manifest_dependencies::names_dependencies(base)
        || base.ends_with(".tf")
        || base.ends_with(".tf.json")
        || base.ends_with(".hcl")
        || base.ends_with(".nix")
        || base.ends_with(".gradle")
        || base.ends_with(".gradle.kts")
        || matches!(
            base,
            "chart.yaml"
                | "requirements.yaml"
                | "environment.yml"
                | "environment.yaml"
                | ".condarc"
                | "deno.json"
                | "deno.jsonc"
                | "import_map.json"
                | "settings.xml"
                | "nuget.config"
                | "directory.packages.props"
                | ".pre-commit-config.yaml"
                | "brewfile"
                | "gemfile"
                | ".gemrc"
                | "mix.exs"
                | "rebar.config"
                | "pubspec.yaml"
                | "build.sbt"
                | "project.clj"
                | "deps.edn"
                | "renv.lock"
                | "description"
                | "kustomization.yaml"
                | "kustomization.yml"
                | "helmfile.yaml"
                | "devbox.json"
                | "go.mod"
                | "cargo.toml"
                | "pom.xml"
        )
        || path.contains("/.cargo/config")
}

/// The places a text names code comes from: `(host, owner)` for addresses (the owner only on
/// code hosts), `github:owner/repo` shorthands, `git@host:owner/repo`; and the owners of
/// bare `owner/name` registry shorthands (`terraform-aws-modules/vpc/aws`).
pub(crate) fn places(text: &str) -> (BTreeSet<(String, String)>, BTreeSet<String>) {
    let mut out = BTreeSet::new();
    let mut owners = BTreeSet::new();
    for word in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | ',' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '='
            )
    }) {
        let w = word.trim_end_matches(';');
        let (host, rest) = if let Some(i) = w.find("://") {
            let after = w.get(i + 3..).unwrap_or("");
            let after = after.rsplit_once('@').map_or(after, |(_, h)| h);
            let (h, r) = after.split_once('/').unwrap_or((after, ""));
            (h.split(':').next().unwrap_or(h).to_owned(), r.to_owned())
        } else if let Some(r) = ["github:", "gitlab:", "sourcehut:"]
            .iter()
            .find_map(|p| w.strip_prefix(p))
        {
            let host = match w.split(':').next() {
                Some("gitlab") => "gitlab.com",
                Some("sourcehut") => "git.sr.ht",
                _ => "github.com",
            };
            (host.to_owned(), r.to_owned())
        } else if let Some(r) = w.strip_prefix("git@") {
            match r.split_once(':') {
                Some((h, r)) => (h.to_owned(), r.to_owned()),
                None => continue,
            }
        } else {
            let segs: Vec<&str> = w.split('/').collect();
            if (2..=3).contains(&segs.len())
                && segs.iter().all(|s| {
                    !s.is_empty()
                        && s.chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                })
                && !w.contains("..")
                && segs.first().is_some_and(|s| !s.starts_with('.'))
            {
                owners.insert(
                    segs.first()
                        .map(|s| s.to_owned())
                        .unwrap_or_default()
                        .to_owned(),
                );
            }
            continue;
        };
        if host.is_empty() || !host.contains('.') && host.parse::<std::net::Ipv4Addr>().is_err() {
            continue;
        }
        let owner = if CODE_HOSTS.contains(&host.as_str()) {
            rest.split('/')
                .next()
                .unwrap_or("")
                .trim_start_matches('~')
                .to_owned()
        } else {
            String::new()
        };
        out.insert((host, owner));
    }
    (out, owners)
}

/// Lines that only describe the project (its own home page and repository), not a source.
fn descriptive(line: &str) -> bool {
    let k = line.trim().trim_start_matches("- ").trim_start_matches('"');
    [
        "homepage",
        "repository\":",
        "repository =",
        "url\":",
        "bugs",
        "documentation",
        "$schema",
        "description",
        "funding",
        "author",
        "license",
        "#",
        "//",
        "home:",
        "icon:",
        "sources:",
    ]
    .iter()
    .any(|p| k.starts_with(p))
}

/// A line's key (`source`, `repository`, `"@std/http"`, `url`) when it is `key = value` or
/// `key: value` with a plain key.
pub(crate) fn line_key(line: &str) -> Option<String> {
    let t = line.trim().trim_start_matches("- ");
    let i = t.find([':', '='])?;
    let key = t.get(..i)?.trim().trim_matches(['"', '\'']);
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | '/')))
    .then(|| key.to_owned())
}

/// A place that is an address of its own (an IP address) or fetched without TLS.
fn insecure(text: &str, host: &str) -> bool {
    host.parse::<std::net::IpAddr>().is_ok() || text.contains(&format!("http://{host}"))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(w) = cx.source_write() else {
        return;
    };
    if !names_sources(&w.path)
        || w.path.contains("/node_modules/")
        || w.path.contains("/vendor/")
        || w.path.contains("/.terraform/")
    {
        return;
    }
    let unlisted = |host: &str, owner: &str| {
        if CODE_HOSTS.contains(&host) {
            !owner.is_empty() && !cx.policy.host_allowed(&format!("{host}/{owner}"))
        } else {
            crate::net::parse_url(&format!("https://{host}/"))
                .is_some_and(|d| super::supply_chain::unlisted_elsewhere(cx, &d))
        }
    };
    let moved = w.hunks.iter().any(|h| {
        let old_lines: Vec<&str> = h
            .old_lower
            .lines()
            .filter(|l| !descriptive(l))
            .map(str::trim)
            .collect();
        let new_lines: Vec<&str> = h
            .new_lower
            .lines()
            .filter(|l| !descriptive(l))
            .map(str::trim)
            .collect();
        // A new file names its sources for the first time; only a Cargo patch or source
        // replacement stands in for code the project already had.
        if old_lines.is_empty() {
            let replaces = h.new_lower.contains("[patch") || h.new_lower.contains("replace-with");
            return replaces
                && places(&new_lines.join("\n"))
                    .0
                    .iter()
                    .any(|(host, owner)| unlisted(host, owner));
        }
        let (old, old_owners) = places(&old_lines.join("\n"));
        let (new, new_owners) = places(&new_lines.join("\n"));
        // A source the old text named and the new one does not.
        let removed = old.iter().any(|p| !new.contains(p))
            || old_owners.iter().any(|o| !new_owners.contains(o));
        // Keys whose old line is gone (`source = …` rewritten).
        let rewritten: Vec<String> = old_lines
            .iter()
            .filter(|l| !new_lines.contains(l))
            .filter_map(|l| line_key(l))
            .collect();
        new_lines
            .iter()
            .filter(|l| !old_lines.contains(l))
            // Prose that mentions an address is not a source.
            .filter(|l| l.split_whitespace().count() <= 4)
            .any(|l| {
                places(l).0.into_iter().any(|(host, owner)| {
                    if old.contains(&(host.clone(), owner.clone())) || !unlisted(&host, &owner) {
                        return false;
                    }
                    // The same owner at its code host (a registry shorthand turned into a git
                    // address) is the same source.
                    if CODE_HOSTS.contains(&host.as_str())
                        && (old_owners.contains(&owner) || old.iter().any(|(_, o)| *o == owner))
                    {
                        return false;
                    }
                    insecure(l, &host)
                        || removed
                        || line_key(l).is_some_and(|k| rewritten.contains(&k))
                })
            })
    });
    if moved {
        out.push(super::manifest_dependencies::source_changed(cx));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn sources_moved_in_any_manifest() {
        let cases: &[(&str, &str, &str, Verdict)] = &[
            // Attacks: the place changes.
            (
                "infra/main.tf",
                "  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.8.1\"\n",
                "  source = \"git::https://github.com/terraform-aws-module/terraform-aws-vpc.git?ref=v5.8.1\"\n",
                Auth,
            ),
            (
                "charts/api/Chart.yaml",
                "    repository: https://charts.bitnami.com/bitnami\n",
                "    repository: https://charts.bitnami-mirror.example/bitnami\n",
                Auth,
            ),
            (
                "environment.yml",
                "channels:\n  - conda-forge\n",
                "channels:\n  - http://203.0.113.8/conda-forge\n  - conda-forge\n",
                Auth,
            ),
            (
                "flake.nix",
                "\"github:NixOS/nixpkgs/nixos-24.05\"",
                "\"github:NixOS-community/nixpkgs/nixos-24.05\"",
                Auth,
            ),
            (
                "deno.json",
                "\"@std/http\": \"jsr:@std/http@^1.0.0\"",
                "\"@std/http\": \"https://deno-land.example/std@0.224.0/http/mod.ts\"",
                Auth,
            ),
            (
                ".pre-commit-config.yaml",
                "  - repo: https://github.com/psf/black\n    rev: 24.4.2\n",
                "  - repo: https://github.com/psf-black/black\n    rev: 24.4.2\n",
                Auth,
            ),
            // Look-alikes: the same place, or the project's own.
            (
                "infra/main.tf",
                "  source = \"git::https://github.com/acme/tf-vpc.git?ref=v1.2.0\"\n",
                "  source = \"git::https://github.com/acme/tf-vpc.git?ref=v1.3.0\"\n",
                Pass,
            ),
            (
                "infra/main.tf",
                "  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.8.1\"\n",
                "  source = \"git::https://github.com/terraform-aws-modules/terraform-aws-vpc.git?ref=v5.9.0\"\n",
                Pass,
            ),
            (
                "flake.nix",
                "\"github:NixOS/nixpkgs/nixos-24.05\"",
                "\"github:NixOS/nixpkgs/nixos-24.11\"",
                Pass,
            ),
            (
                "charts/api/Chart.yaml",
                "version: 1.0.0\n",
                "version: 1.0.0\nhome: https://acme.example/docs\n",
                Pass,
            ),
            (
                ".pre-commit-config.yaml",
                "      - id: end-of-file-fixer\n",
                "      - id: end-of-file-fixer\n  - repo: https://github.com/psf/black\n    rev: 24.4.2\n",
                Pass,
            ),
            (
                "NuGet.config",
                "    <add key=\"nuget.org\" value=\"https://api.nuget.org/v3/index.json\" />\n",
                "    <add key=\"nuget.org\" value=\"https://api.nuget.org/v3/index.json\" />\n    <add key=\"acme\" value=\"https://nuget.internal.acme.example/v3/index.json\" />\n",
                Pass,
            ),
            (
                "charts/api/Chart.yaml",
                "    version: 12.1.0\n    repository: https://charts.bitnami.com/bitnami\n",
                "    version: 12.2.0\n    repository: https://charts.bitnami.com/bitnami\n",
                Pass,
            ),
        ];
        for (path, old, new, want) in cases {
            let (verdict, codes) = judge_edit(path, old, new);
            let got = if codes.iter().any(|c| c == "dependency_source_changed") {
                verdict
            } else {
                Pass
            };
            assert_eq!(got, *want, "{path}: {old:?} -> {new:?}: {codes:?}");
        }
    }
}
