//! Releases known to have shipped malware.
//!
//! **What it does:** installing a package version that was published by an attacker (a
//! maintainer's account taken over, a hijacked release pipeline) — `chalk@5.6.1`,
//! `@solana/web3.js@1.95.6`, `ultralytics==8.3.41` — or a package whose name was only ever
//! malware (`torchtriton`, `requests-darwin-lite`) is BLOCK. Ranges and other versions of the
//! same packages pass.
//! **Why:** a pin to a bad release looks like routine maintenance, and no rule about what the
//! command does can tell; the release itself is the tell.
//! **Example:** `npm install chalk@5.6.1 debug@4.4.2` → `known_malicious_release`.

use crate::verdict::{Finding, Reason};

use super::Ctx;

pub const KNOWN_MALICIOUS: Reason = Reason::new(
    "known_malicious_release",
    "Installs a package release known to have been published with malware.",
);

/// npm releases published with malware: (package, versions).
const NPM: &[(&str, &[&str])] = &[
    // September 2025: a maintainer's account phished; crypto-stealing code in the builds.
    ("chalk", &["5.6.1"]),
    ("debug", &["4.4.2"]),
    ("ansi-styles", &["6.2.2"]),
    ("ansi-regex", &["6.2.1"]),
    ("strip-ansi", &["7.1.1"]),
    ("supports-color", &["10.2.1"]),
    ("supports-hyperlinks", &["4.1.1"]),
    ("wrap-ansi", &["9.0.1"]),
    ("slice-ansi", &["7.1.1"]),
    ("color-convert", &["3.1.1"]),
    ("color-name", &["2.0.1"]),
    ("color-string", &["2.1.1"]),
    ("color", &["5.0.1"]),
    ("simple-swizzle", &["0.2.3"]),
    ("is-arrayish", &["0.3.3"]),
    ("error-ex", &["1.3.3"]),
    ("has-ansi", &["6.0.1"]),
    ("chalk-template", &["1.1.1"]),
    ("backslash", &["0.2.1"]),
    ("duckdb", &["1.3.3"]),
    ("@duckdb/node-api", &["1.3.3"]),
    ("@ctrl/tinycolor", &["4.1.1", "4.1.2"]),
    // August 2025: a release workflow abused to publish credential-hunting builds.
    (
        "nx",
        &[
            "20.9.0", "20.10.0", "20.11.0", "20.12.0", "21.5.0", "21.6.0", "21.7.0", "21.8.0",
        ],
    ),
    // July 2025: a phished maintainer token.
    (
        "eslint-config-prettier",
        &["8.10.1", "9.1.1", "10.1.6", "10.1.7"],
    ),
    ("eslint-plugin-prettier", &["4.2.2", "4.2.3"]),
    ("synckit", &["0.11.9"]),
    ("@pkgr/core", &["0.2.8"]),
    ("napi-postinstall", &["0.3.1"]),
    ("is", &["3.3.1", "5.0.0"]),
    // Earlier: hijacked publishing tokens and releases.
    ("@solana/web3.js", &["1.95.6", "1.95.7"]),
    ("@rspack/core", &["1.1.7"]),
    ("@rspack/cli", &["1.1.7"]),
    ("xrpl", &["4.2.1", "4.2.2", "4.2.3", "4.2.4", "2.14.2"]),
    ("@lottiefiles/lottie-player", &["2.0.5", "2.0.6", "2.0.7"]),
    ("event-stream", &["3.3.6"]),
    ("flatmap-stream", &["0.1.1"]),
    ("ua-parser-js", &["0.7.29", "0.8.0", "1.0.0"]),
    (
        "coa",
        &["2.0.3", "2.0.4", "2.1.1", "2.1.3", "3.0.1", "3.1.3"],
    ),
    ("rc", &["1.2.9", "1.3.9", "2.3.9"]),
    ("node-ipc", &["10.1.1", "10.1.2", "10.1.3"]),
];

/// PyPI releases published with malware.
const PYPI: &[(&str, &[&str])] = &[
    // December 2024: the release pipeline poisoned; a coin miner in the wheels.
    ("ultralytics", &["8.3.41", "8.3.42", "8.3.45", "8.3.46"]),
    ("num2words", &["0.5.15"]),
];

/// Package names that were only ever malware (dependency confusion, typosquats taken down).
const MALWARE_NAMES: &[&str] = &[
    "torchtriton",
    "requests-darwin-lite",
    "colourama",
    "python3-dateutil",
    "jeilyfish",
    "discordpydebug",
    "noblesse",
    "crossenv",
    "flatmap-stream",
];

/// `name@version` / `@scope/name@version` (npm), `name==version` (pip, uv), `name@version`
/// (poetry, pdm): the name and the exact version, when one is pinned.
fn name_version(spec: &str, npm: bool) -> (String, Option<String>) {
    let spec = spec.trim_matches(['"', '\'']);
    if npm {
        let (scope, rest) = match spec.strip_prefix('@') {
            Some(r) => ("@", r),
            None => ("", spec),
        };
        match rest.split_once('@') {
            Some((n, v)) => (
                format!("{scope}{n}").to_ascii_lowercase(),
                Some(v.trim_start_matches(['=', 'v']).to_owned()),
            ),
            None => (spec.to_ascii_lowercase(), None),
        }
    } else {
        let (n, v) = spec
            .split_once("==")
            .or_else(|| spec.split_once('@'))
            .map_or((spec, None), |(n, v)| (n, Some(v.trim().to_owned())));
        let n = n.split('[').next().unwrap_or(n).trim();
        (n.to_ascii_lowercase().replace('_', "-"), v)
    }
}

fn bad(list: &[(&str, &[&str])], name: &str, version: Option<&str>) -> bool {
    MALWARE_NAMES.contains(&name)
        || version.is_some_and(|v| list.iter().any(|(n, vs)| *n == name && vs.contains(&v)))
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    for inv in &sa.invocations {
        let args: Vec<&str> = inv.argv().collect();
        let (npm, specs): (bool, Vec<&str>) = match inv.program.as_str() {
            "npm" | "pnpm" | "yarn" | "bun" => match args.first() {
                Some(&("install" | "i" | "add" | "update" | "up")) => (
                    true,
                    args.iter()
                        .skip(1)
                        .filter(|a| !a.starts_with('-'))
                        .copied()
                        .collect(),
                ),
                _ => continue,
            },
            "npx" | "pnpx" | "bunx" => (
                true,
                args.iter()
                    .find(|a| !a.starts_with('-'))
                    .into_iter()
                    .copied()
                    .collect(),
            ),
            "pip" | "pip3" | "pipx" | "uvx" => {
                let skip = usize::from(inv.program != "uvx");
                (
                    false,
                    args.iter()
                        .skip(skip)
                        .filter(|a| !a.starts_with('-'))
                        .copied()
                        .collect(),
                )
            }
            "uv" | "poetry" | "pdm" => {
                let from = args
                    .iter()
                    .position(|a| matches!(*a, "add" | "install"))
                    .map(|i| i + 1);
                match from {
                    Some(i) => (
                        false,
                        args.iter()
                            .skip(i)
                            .filter(|a| !a.starts_with('-'))
                            .copied()
                            .collect(),
                    ),
                    None => continue,
                }
            }
            _ => continue,
        };
        let hit = specs.iter().any(|s| {
            let (name, version) = name_version(s, npm);
            if npm {
                bad(NPM, &name, version.as_deref())
            } else {
                bad(PYPI, &name, version.as_deref())
            }
        });
        if hit {
            out.push(Finding::hard_block(KNOWN_MALICIOUS));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn known_bad_releases_and_their_neighbours() {
        table(
            Mode::Balanced,
            &[
                (
                    "npm install chalk@5.6.1 debug@4.4.2",
                    Block,
                    "known_malicious_release",
                ),
                (
                    "npm install @solana/web3.js@1.95.6",
                    Block,
                    "known_malicious_release",
                ),
                (
                    "pnpm add -D @rspack/core@1.1.7",
                    Block,
                    "known_malicious_release",
                ),
                (
                    "pip install ultralytics==8.3.41",
                    Block,
                    "known_malicious_release",
                ),
                (
                    "uv add 'ultralytics==8.3.46'",
                    Block,
                    "known_malicious_release",
                ),
                (
                    "pip install requests-darwin-lite",
                    Block,
                    "known_malicious_release",
                ),
                ("pip install torchtriton", Block, "known_malicious_release"),
                // Other versions, ranges, look-alike names.
                ("npm install chalk@5.6.2", Pass, ""),
                ("npm install chalk@^5.3.0 debug", Pass, ""),
                ("npm install @solana/web3.js@1.95.8", Pass, ""),
                ("pip install ultralytics==8.3.40", Pass, ""),
                ("pip install 'ultralytics>=8.3'", Pass, ""),
                ("pip install requests", Pass, ""),
                ("npm ls chalk@5.6.1", Pass, ""),
            ],
        );
    }
}
