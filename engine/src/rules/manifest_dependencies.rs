//! Dependencies an edit adds to a package manifest.
//!
//! **What it does:** a dependency added to `requirements*.txt`, `pyproject.toml`, `Pipfile`,
//! `setup.py`/`setup.cfg` or `package.json` whose name is one typo away from a well-known
//! package of that ecosystem (`reqeusts`, `crossenv`) is `typosquat_dependency`: AUTH. A
//! dependency pointed away from its registry — at a git repository or a URL (`git = "…"` in
//! `Cargo.toml`, `git:` in a `Gemfile`, `github:user/repo` in `package.json`,
//! `pkg @ git+https://…`) or, in `go.mod`, `replace`d by a module from another path — is
//! `dependency_source_changed`: AUTH (PASS in light; BLOCK from strict up once the session
//! took in untrusted content). A local path (`path = "../lib"`, `replace x => ../x`) is not.
//! **Why:** the next `npm install` / `pip install` / `cargo build` — the user's, CI's, every
//! colleague's — runs whatever that package's author wrote; a look-alike name or a fork
//! "with the fix" from a blog post is how that author becomes an attacker.
//! **Example:** adding `reqeusts==2.31.1` to `requirements.txt` → `typosquat_dependency`.

use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;
use super::supply_chain::{POPULAR_NPM, POPULAR_PYPI, typosquat};

pub const TYPOSQUAT_DEPENDENCY: Reason = Reason::new(
    "typosquat_dependency",
    "Adds a dependency whose name is one typo away from a well-known package.",
);
pub const DEPENDENCY_DOWNGRADED: Reason = Reason::new(
    "dependency_downgraded",
    "Moves a dependency back by a major version or several minor ones, to releases missing later fixes.",
);
pub const DEPENDENCY_SOURCE: Reason = Reason::new(
    "dependency_source_changed",
    "Points a dependency at a git repository, a URL or another module instead of its registry.",
);

use Verdict::{Auth, Block, Pass};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manifest {
    Python,
    Npm,
    Cargo,
    Gem,
    GoMod,
    /// A package manager's own settings (`pip.conf`, `.npmrc`, …): where it fetches from.
    Registry,
    /// A lockfile (`package-lock.json`, `yarn.lock`, `pnpm-lock.yaml`): the exact tarball each
    /// package is fetched from. Tools write these; an agent editing a `resolved` address by
    /// hand points an install at a file of its choosing.
    Lock,
    /// A container build file: the base image it starts `FROM`.
    Image,
    /// `composer.json`: its `repositories` (a VCS or a Composer repository elsewhere).
    Composer,
    /// CocoaPods' `Podfile`: `pod 'X', :git => …` / `:podspec => …`.
    Pod,
    /// SwiftPM's `Package.swift`: a package followed on a branch or at a bare revision.
    Swift,
    /// vcpkg's and Conan's registries (`vcpkg-configuration.json`, `conanfile` remotes).
    Vcpkg,
}

fn manifest(base: &str) -> Option<Manifest> {
    let python = (base.starts_with("requirements") || base.starts_with("constraints"))
        && (base.ends_with(".txt") || base.ends_with(".in"))
        || matches!(
            base,
            "pyproject.toml" | "pipfile" | "setup.py" | "setup.cfg"
        );
    if python {
        return Some(Manifest::Python);
    }
    match base {
        "pip.conf" | "pip.ini" | ".npmrc" | ".yarnrc" | ".yarnrc.yml" | "poetry.toml"
        | "uv.toml" | "bunfig.toml" | ".pydistutils.cfg"
        // Terraform's CLI settings: `provider_installation { network_mirror { url = … } }`.
        | ".terraformrc" | "terraform.rc" => Some(Manifest::Registry),
        "config.toml" | "config" => None,
        "package.json" => Some(Manifest::Npm),
        "package-lock.json" | "npm-shrinkwrap.json" | "yarn.lock" | "pnpm-lock.yaml" => {
            Some(Manifest::Lock)
        }
        "cargo.toml" => Some(Manifest::Cargo),
        "gemfile" => Some(Manifest::Gem),
        "go.mod" | "go.work" => Some(Manifest::GoMod),
        "composer.json" => Some(Manifest::Composer),
        "podfile" => Some(Manifest::Pod),
        "package.swift" => Some(Manifest::Swift),
        "vcpkg-configuration.json" | "vcpkg.json" => Some(Manifest::Vcpkg),
        _ if base.ends_with(".gemspec") => Some(Manifest::Gem),
        _ if base.starts_with("dockerfile")
            || base.starts_with("containerfile")
            || base.ends_with(".dockerfile") =>
        {
            Some(Manifest::Image)
        }
        _ => None,
    }
}

/// A file that names the packages an install fetches: a manifest or lockfile this module
/// reads, or another ecosystem's (`composer.json`, Conda's `environment.yml`, Gradle, Maven).
pub(crate) fn names_dependencies(base: &str) -> bool {
    manifest(base).is_some_and(|m| !matches!(m, Manifest::Registry | Manifest::Image))
        || matches!(
            base,
            "composer.json" | "environment.yml" | "build.gradle" | "build.gradle.kts" | "pom.xml"
        )
}

/// One dependency line: its name and whether it names a source other than the registry.
#[derive(Debug, PartialEq, Eq)]
struct Dep {
    name: String,
    remote_source: bool,
}

/// A source pointed elsewhere: AUTH (PASS in light; BLOCK from strict up once the session
/// took in untrusted content).
pub(crate) fn source_changed(cx: &Ctx<'_>) -> Finding {
    let by = if cx.untrusted() {
        [Auth, Auth, Block, Block]
    } else {
        [Pass, Auth, Auth, Auth]
    };
    Finding::new(DEPENDENCY_SOURCE, cx.mode().pick(by))
}

/// A CI building block (a workflow's `uses:`, a CircleCI orb, a Buildkite plugin) pulled
/// from somewhere else by an edit: a commit pin replaced by a moving reference, its owner
/// changed, or an address of its own.
fn ci_block_moved(w: &crate::code::SourceWrite) -> bool {
    /// (orb key, name, reference) of each block a text names.
    fn refs(text: &str) -> Vec<(String, String, String)> {
        text.lines()
            .filter_map(|l| {
                let t = l.trim().trim_start_matches("- ").trim();
                let (key, v) = match t.strip_prefix("uses:") {
                    Some(v) => ("", v.trim()),
                    None => t
                        .split_once(": ")
                        // `snyk: snyk/snyk@2.1.0`: an orb under its key.
                        .filter(|(k, v)| {
                            !k.contains(' ')
                                && !v.contains(' ')
                                && !v.contains("://")
                                && v.contains('/')
                                && v.contains('@')
                        })
                        // `docker-compose#v5.2.0:`: a Buildkite plugin.
                        .or_else(|| {
                            t.strip_suffix(':')
                                .filter(|p| p.contains('#'))
                                .map(|p| ("", p))
                        })?,
                };
                // (`uses: x@<sha> # 0.29.0`: the comment names the version.)
                let v = v
                    .split(" #")
                    .next()
                    .unwrap_or(v)
                    .trim()
                    .trim_matches(['"', '\'']);
                if v.contains(' ') {
                    return None;
                }
                let (name, r) = v.rsplit_once('@').or_else(|| v.rsplit_once('#'))?;
                Some((key.to_owned(), name.to_owned(), r.to_owned()))
            })
            .collect()
    }
    let pinned = |r: &str| r.len() == 40 && r.chars().all(|c| c.is_ascii_hexdigit());
    let moving = |r: &str| {
        matches!(
            r,
            "main" | "master" | "latest" | "volatile" | "head" | "dev"
        )
    };
    let owner = |n: &str| n.split('/').next().unwrap_or("").to_owned();
    w.hunks.iter().any(|h| {
        let old = refs(&h.old_lower);
        let new = refs(&h.new_lower);
        new.iter().any(|(k, n, r)| {
            let remote = n.contains("://") && !n.starts_with("https://github.com/");
            remote && !old.iter().any(|(_, o, _)| o == n)
                || old.iter().any(|(ok, o, or)| {
                    let same_tool =
                        (!k.is_empty() && k == ok) || o.rsplit('/').next() == n.rsplit('/').next();
                    same_tool && o != n && (owner(o) != owner(n) || (pinned(or) && moving(r)))
                })
        })
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // A build or install after the session pointed a dependency somewhere else in a manifest
    // of the project (`replace x => github.com/someone/x`, a `[patch]` from a fork, an npm
    // override renaming a package, a Composer VCS repository): the code it fetches is the
    // one the edit chose — asked again here, where it runs.
    if let Some(sa) = cx.shell
        && sa.invocations.iter().any(fetches_dependencies)
    {
        let cwd = cx.cwd().unwrap_or("");
        let redirected = cx.session.written_files.iter().any(|(path, f)| {
            let base = crate::paths::basename(path).to_ascii_lowercase();
            let inside = !cwd.is_empty() && crate::paths::within(path, cwd);
            inside
                && manifest(&base).is_some_and(|kind| {
                    !matches!(kind, Manifest::Registry | Manifest::Image | Manifest::Lock)
                        && f.content
                            .to_ascii_lowercase()
                            .lines()
                            .filter_map(|l| parse_line(kind, l))
                            .any(|d| d.remote_source)
                })
        });
        if redirected {
            out.push(source_changed(cx));
        }
    }
    let Some(w) = cx.source_write() else {
        return;
    };
    if w.path.contains("/node_modules/") || w.path.contains("/site-packages/") {
        return;
    }
    // A CI file that includes configuration from an address (GitLab's `include: remote:`):
    // whoever serves it writes the pipeline, with the pipeline's secrets.
    let remote_include = crate::autorun::is_ci_file(&w.path)
        && w.hunks.iter().any(|h| {
            h.new_lower.lines().any(|l| {
                let t = l.trim().trim_start_matches("- ").trim();
                let Some(v) = t.strip_prefix("remote:") else {
                    return false;
                };
                let v = v.trim().trim_matches(['"', '\'']);
                let host = v
                    .split("://")
                    .nth(1)
                    .and_then(|r| r.split(['/', ':']).next())
                    .unwrap_or("");
                !host.is_empty()
                    && !cx.policy.host_allowed(host)
                    && !h.old.contains(&crate::code::compact(v))
            })
        });
    if remote_include {
        out.push(source_changed(cx));
        return;
    }
    // Gradle's source dependencies: a module built from a git repository
    // (`sourceControl { gitRepository(uri("https://…")) { producesModule(…) } }`).
    let gradle_settings = matches!(w.basename(), "settings.gradle" | "settings.gradle.kts");
    let git_module = gradle_settings
        && w.hunks
            .iter()
            .any(|h| h.new.contains("gitrepository(") && !h.old.contains("gitrepository("));
    if downgraded(w) {
        out.push(Finding::new(
            DEPENDENCY_DOWNGRADED,
            cx.mode().pick([Pass, Auth, Auth, Auth]),
        ));
    }
    let cargo_config =
        w.path.ends_with("/.cargo/config.toml") || w.path.ends_with("/.cargo/config");
    if crate::autorun::is_ci_file(&w.path) && ci_block_moved(w) {
        out.push(source_changed(cx));
        return;
    }
    if git_module {
        out.push(source_changed(cx));
        return;
    }
    let Some(kind) = manifest(w.basename()).or(cargo_config.then_some(Manifest::Registry)) else {
        return;
    };
    let mut squat = false;
    let mut source = false;
    for h in &w.hunks {
        for line in h.new_lower.lines() {
            if h.old.contains(&crate::code::compact(line)) {
                continue;
            }
            let Some(dep) = parse_line(kind, line) else {
                continue;
            };
            let popular: &[&str] = match kind {
                Manifest::Python => POPULAR_PYPI,
                Manifest::Npm => POPULAR_NPM,
                _ => &[],
            };
            squat |= typosquat(&dep.name, popular);
            source |= dep.remote_source;
        }
    }
    if squat {
        out.push(Finding::new(TYPOSQUAT_DEPENDENCY, Auth));
    }
    if source {
        out.push(source_changed(cx));
    }
}

/// A version as numbers (`2.14.1` → [2, 14, 1]); `None` when it does not start with one.
fn version_numbers(v: &str) -> Option<Vec<u64>> {
    let v = v.trim().trim_start_matches(['v', '=', '^', '~', ' ']);
    let nums: Vec<u64> = v
        .split('.')
        .map_while(|p| {
            let d: String = p.chars().take_while(char::is_ascii_digit).collect();
            d.parse().ok()
        })
        .collect();
    (!nums.is_empty()).then_some(nums)
}

/// Is `new` older than `old` by a major version, or by three minor versions or more
/// (`6.0.1` → `5.3`, `2.23.1` → `2.14.1`)? A step back to the previous minor or a patch
/// (a documented pin after a regression) is not.
fn far_older(old: &[u64], new: &[u64]) -> bool {
    let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
    let (om, nm) = (at(old, 0), at(new, 0));
    if nm != om {
        return nm < om;
    }
    at(new, 1) + 3 <= at(old, 1)
}

/// The pinned version of each dependency a lower-case text names: `name==1.2.3` (pip), Maven's
/// `<artifactId>x</artifactId>` … `<version>1.2.3</version>`, `"name": "1.2.3"` (npm),
/// `name = "1.2.3"` (Cargo), `gem "x", "1.2"`, `name v1.2.3` (go.mod).
fn pinned_versions(text: &str) -> Vec<(String, Vec<u64>)> {
    let mut out = Vec::new();
    let mut artifact: Option<String> = None;
    for line in text.lines().take(4096) {
        let t = line.trim();
        if let Some(a) = t
            .strip_prefix("<artifactid>")
            .and_then(|r| r.split_once("</artifactid>"))
        {
            artifact = Some(a.0.to_owned());
            continue;
        }
        if let Some(v) = t
            .strip_prefix("<version>")
            .and_then(|r| r.split_once("</version>"))
            && let (Some(a), Some(n)) = (artifact.take(), version_numbers(v.0))
        {
            out.push((a, n));
            continue;
        }
        // A version property (`<log4j2.version>2.17.1</log4j2.version>`).
        if let Some(rest) = t.strip_prefix('<')
            && let Some((tag, after)) = rest.split_once('>')
            && tag.ends_with(".version")
            && let Some((v, _)) = after.split_once("</")
            && let Some(n) = version_numbers(v)
        {
            out.push((tag.to_owned(), n));
            continue;
        }
        let t = t.split('#').next().unwrap_or("").trim();
        for sep in ["==", "\": \"", " = \"", "\", \"", " v"] {
            if let Some((name, v)) = t.split_once(sep) {
                let name = name
                    .trim()
                    .trim_matches(['"', '\''])
                    .trim_start_matches("gem ")
                    .trim_matches(['"', '\'']);
                if !name.is_empty()
                    && name
                        .chars()
                        .all(|c| is_name_char(c) || c == '/' || c == '@')
                    && let Some(n) = version_numbers(v)
                {
                    out.push((name.to_ascii_lowercase(), n));
                }
                break;
            }
        }
    }
    out
}

/// A dependency moved far back (see [`far_older`]) by an edit: old releases keep the
/// vulnerabilities later ones fixed.
fn downgraded(w: &crate::code::SourceWrite) -> bool {
    let manifest_file =
        names_dependencies(w.basename()) && !matches!(manifest(w.basename()), Some(Manifest::Lock));
    manifest_file
        && w.hunks.iter().any(|h| {
            let old = pinned_versions(&h.old_lower);
            let new = pinned_versions(&h.new_lower);
            new.iter()
                .any(|(name, nv)| old.iter().any(|(on, ov)| on == name && far_older(ov, nv)))
        })
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// A remote source spelled in a dependency's value (not a local path).
fn remote(value: &str) -> bool {
    [
        "git+",
        "git://",
        "git@",
        "git=",
        "git =",
        "git:",
        "github:",
        "gitlab:",
        "bitbucket:",
        ":git=>",
        "http://",
        "https://",
    ]
    .iter()
    .any(|m| value.contains(m))
}

fn parse_line(kind: Manifest, line: &str) -> Option<Dep> {
    let l = line.trim().trim_end_matches(',');
    if l.is_empty() || l.starts_with('#') || l.starts_with("//") {
        return None;
    }
    match kind {
        Manifest::Python => python_line(l),
        Manifest::Npm => npm_line(l),
        Manifest::Cargo => cargo_line(l),
        Manifest::Gem => gem_line(l),
        Manifest::GoMod => go_line(l),
        Manifest::Registry => registry_line(l),
        Manifest::Lock => lock_line(l),
        Manifest::Image => image_line(l),
        Manifest::Composer => composer_line(l),
        Manifest::Pod => pod_line(l),
        Manifest::Swift => swift_line(l),
        Manifest::Vcpkg => vcpkg_line(l),
    }
}

/// `pod 'Alamofire', :git => 'https://…'` (or `:podspec => 'https://…'`, `:http => …`).
fn pod_line(l: &str) -> Option<Dep> {
    let rest = l.strip_prefix("pod ")?.trim_start();
    let q = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let (name, after) = rest.get(1..)?.split_once(q)?;
    Some(Dep {
        name: name.to_owned(),
        remote_source: [":git", ":podspec", ":http", "git:", "podspec:", "http:"]
            .iter()
            .any(|m| after.contains(m)),
    })
}

/// `.package(url: "https://github.com/o/r", branch: "main")` or `revision: "…"`: followed
/// wherever that branch or commit goes rather than a released version.
fn swift_line(l: &str) -> Option<Dep> {
    let rest = l.split_once(".package(")?.1;
    let url = rest
        .split_once("url:")?
        .1
        .trim_start()
        .trim_start_matches('"');
    let url = url.split('"').next()?;
    let name = url.trim_end_matches(".git").rsplit('/').next()?.to_owned();
    Some(Dep {
        name,
        remote_source: rest.contains("branch:") || rest.contains("revision:"),
    })
}

/// `"repository": "https://github.com/someone/registry"` in vcpkg's registries: ports from
/// somewhere other than Microsoft's registry.
fn vcpkg_line(l: &str) -> Option<Dep> {
    let rest = l
        .split_once("\"repository\"")?
        .1
        .trim_start()
        .strip_prefix(':')?;
    let v = rest.trim().trim_start_matches('"').split('"').next()?;
    Some(Dep {
        name: "registry".to_owned(),
        remote_source: v.contains("://") && !v.starts_with("https://github.com/microsoft/"),
    })
}

/// `"url": "https://github.com/someone/framework"` in `composer.json`'s `repositories`: a
/// package source other than Packagist (a local `path` repository is not).
fn composer_line(l: &str) -> Option<Dep> {
    let rest = l.split_once("\"url\"")?.1.trim_start().strip_prefix(':')?;
    let v = rest
        .trim()
        .trim_start_matches('"')
        .split('"')
        .next()
        .unwrap_or("");
    let host = v.split("://").nth(1)?.split(['/', ':']).next()?;
    Some(Dep {
        name: "repository".to_owned(),
        remote_source: !matches!(host, "repo.packagist.org" | "packagist.org"),
    })
}

/// The build or install that fetches what the session's manifests name: `go build`, `go mod
/// tidy`, `cargo build`, `npm install`, `composer update`, `pip install -r`, `bundle install`.
fn fetches_dependencies(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let first = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .copied()
        .unwrap_or("");
    match inv.program.as_str() {
        "go" => matches!(
            first,
            "build" | "mod" | "get" | "run" | "test" | "install" | "generate"
        ),
        "cargo" => matches!(
            first,
            "build" | "run" | "test" | "check" | "update" | "fetch" | "install" | "b" | "r" | "t"
        ),
        "npm" | "pnpm" | "yarn" | "bun" => {
            args.is_empty() || matches!(first, "install" | "i" | "ci" | "update" | "add")
        }
        "composer" => matches!(first, "install" | "update" | "require" | "i" | "u"),
        "pip" | "pip3" | "uv" => {
            args.contains(&"-r")
                || args.iter().any(|a| a.starts_with("--requirement"))
                || first == "sync"
        }
        "poetry" | "pipenv" => matches!(first, "install" | "update" | "sync" | "lock"),
        "bundle" => matches!(first, "install" | "update" | ""),
        "pod" => matches!(first, "install" | "update" | ""),
        "swift" => matches!(first, "build" | "run" | "test" | "package"),
        "vcpkg" => matches!(first, "install" | "update" | "upgrade"),
        "xcodebuild" => args.contains(&"-resolvePackageDependencies") || first == "build",
        _ => false,
    }
}

/// `FROM 203.0.113.50:5000/library/node:20`: a base image from a registry at a bare public
/// address (no name anyone vouches for). Names (`node:20`, `ghcr.io/acme/base`) and private
/// or local registries (`localhost:5000/…`, `10.0.0.5:5000/…`) are not flagged.
fn image_line(l: &str) -> Option<Dep> {
    let rest = l.strip_prefix("from ")?;
    let image = rest.split_whitespace().find(|w| !w.starts_with("--"))?;
    Some(Dep {
        name: String::new(),
        remote_source: super::supply_chain::image_at_public_ip(image),
    })
}

/// `"resolved": "https://host/…"`, `resolved "https://…"`, `tarball: https://…`: a package
/// fetched from somewhere other than a default registry.
fn lock_line(l: &str) -> Option<Dep> {
    if !(l.contains("resolved") || l.contains("tarball")) {
        return None;
    }
    let at = l.find("https://").or_else(|| l.find("http://"))?;
    let url = l.get(at..)?;
    let host = url
        .split("://")
        .nth(1)?
        .split(['/', '"', '\'', ':', '#', ' '])
        .next()?
        .to_ascii_lowercase();
    Some(Dep {
        name: String::new(),
        remote_source: !DEFAULT_REGISTRIES.contains(&host.as_str()) || url.starts_with("http://"),
    })
}

/// Registries everyone's package managers use by default (and this machine).
const DEFAULT_REGISTRIES: &[&str] = &[
    "pypi.org",
    "files.pythonhosted.org",
    "test.pypi.org",
    "pypi.python.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "npm.pkg.github.com",
    "crates.io",
    "index.crates.io",
    "static.crates.io",
    "rubygems.org",
    "proxy.golang.org",
    "localhost",
    "127.0.0.1",
];

/// `index-url = https://…`, `registry=https://…`, `npmRegistryServer: "https://…"`,
/// `replace-with = "mirror"`: the package manager told to fetch from somewhere else.
fn registry_line(l: &str) -> Option<Dep> {
    let (key, value) = l.split_once('=').or_else(|| l.split_once(':'))?;
    // Terraform's `dev_overrides { "hashicorp/aws" = "/home/dev/.cache/p" }`: a provider's
    // binary taken from a folder instead of the registry (it runs at every plan and apply).
    let quoted_provider = key.trim().starts_with('"')
        && key.trim().trim_matches('"').split('/').count() == 2
        && !key.contains("//");
    let v = value.trim().trim_matches(['"', '\'']);
    if quoted_provider && (v.starts_with('/') || v.starts_with('~') || v.starts_with('$')) {
        return Some(Dep {
            name: key.trim().trim_matches('"').to_ascii_lowercase(),
            remote_source: true,
        });
    }
    let key = key.trim().trim_matches('"').to_ascii_lowercase();
    let setting = key.ends_with("index-url")
        || key.ends_with("index_url")
        || key.ends_with("registry")
        || key == "npmregistryserver"
        || key == "url"
        || key == "index"
        || key == "replace-with"
        || key == "trusted-host";
    if !setting {
        return None;
    }
    let v = value.trim().trim_matches(['"', '\'']);
    let host: String = v
        .split("://")
        .nth(1)
        .unwrap_or(v)
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    let known = DEFAULT_REGISTRIES
        .iter()
        .any(|r| host == *r || host.ends_with(&format!(".{r}")));
    Some(Dep {
        name: key,
        remote_source: key_is_redirect(v) && !known,
    })
}

fn key_is_redirect(value: &str) -> bool {
    !value.is_empty() && !value.starts_with('$')
}

/// `name==1.0`, `"name>=1.0",`, `name @ git+https://…`, `-e git+https://…#egg=name`,
/// poetry/Pipfile `name = "^1.0"` / `name = { git = "…" }`.
fn python_line(l: &str) -> Option<Dep> {
    // pip options in a requirements file: where every package of it is fetched from.
    for opt in [
        "--index-url",
        "--extra-index-url",
        "-i",
        "--trusted-host",
        "--find-links",
        "-f",
    ] {
        if let Some(v) = l.strip_prefix(opt).filter(|v| v.starts_with([' ', '='])) {
            return registry_line(&format!("index-url={}", v.trim_start_matches(['=', ' '])));
        }
    }
    if let Some(rest) = l
        .strip_prefix("-e ")
        .or_else(|| l.strip_prefix("--editable "))
    {
        let name = rest.rsplit("#egg=").next().unwrap_or("").to_owned();
        return Some(Dep {
            remote_source: remote(rest),
            name,
        });
    }
    if l.starts_with('-') || l.starts_with('[') {
        return None;
    }
    // A TOML key (`name = …`): poetry and Pipfile.
    if let Some((key, value)) = l.split_once('=')
        && !key.contains(['"', '\'', '<', '>', '!', '~'])
        && !value.starts_with('=')
    {
        let key = key.trim();
        if key.chars().all(is_name_char) && !key.is_empty() {
            // Only an inline table names a source (`homepage = "https://…"` is metadata).
            return Some(Dep {
                name: key.to_owned(),
                remote_source: value.trim_start().starts_with('{') && remote(value),
            });
        }
        return None;
    }
    let spec = l.trim_matches(|c| matches!(c, '"' | '\'' | ',' | '[' | ']' | ' '));
    let name: String = spec.chars().take_while(|c| is_name_char(*c)).collect();
    let rest = &spec[name.len()..];
    let versioned =
        rest.is_empty() || rest.starts_with(['=', '<', '>', '!', '~', '[', ';', ' ', '@']);
    (!name.is_empty() && versioned && name.chars().any(|c| c.is_ascii_alphabetic())).then(|| Dep {
        remote_source: remote(rest),
        name,
    })
}

/// `"name": "^1.2.3"`, `"name": "github:user/repo"`, `"name": "user/repo#fix"`.
fn npm_line(l: &str) -> Option<Dep> {
    let l = l.strip_prefix('"')?;
    let (name, rest) = l.split_once('"')?;
    let value = rest
        .trim_start()
        .strip_prefix(':')?
        .trim()
        .trim_matches('"');
    let version_like = value.starts_with(['^', '~', '*', '>', '<', '='])
        || value.starts_with(|c: char| c.is_ascii_digit())
        || matches!(value, "latest" | "next")
        || value.starts_with("npm:")
        || value.starts_with("workspace:")
        || value.starts_with("file:")
        || value.starts_with("link:");
    let repo_shorthand = value.split_once('/').is_some_and(|(owner, repo)| {
        !owner.is_empty()
            && owner.chars().all(is_name_char)
            && !repo.is_empty()
            && !value.contains(' ')
            && !owner.starts_with('.')
    });
    // `"semver": "npm:semver-lite@7.6.2"`: another package installed under this name.
    let renamed = super::supply_chain::npm_alias_renames(&format!("{name}@{value}"));
    let source = remote(value) || (repo_shorthand && !value.starts_with("npm:")) || renamed;
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| is_name_char(c) || matches!(c, '@' | '/'));
    (valid && (version_like || source)).then(|| Dep {
        name: name.to_owned(),
        remote_source: source,
    })
}

/// `name = "1.0"`, `name = { version = "1", git = "https://…" }`.
fn cargo_line(l: &str) -> Option<Dep> {
    let (key, value) = l.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && key.chars().all(is_name_char) && !key.starts_with('[')).then(|| Dep {
        name: key.to_owned(),
        // Only an inline table names a source (`repository = "https://…"` is metadata).
        remote_source: value.trim_start().starts_with('{')
            && (value.contains("git =") || value.contains("git=") || remote(value)),
    })
}

/// `gem "name", "~> 1.0"`, `gem "name", git: "…"`, `spec.add_dependency "name"`.
fn gem_line(l: &str) -> Option<Dep> {
    // `source "https://gems.example"`: where every gem of the file is fetched from.
    if let Some(src) = l.strip_prefix("source ") {
        let url = src.trim().trim_matches(['"', '\'', '(', ')']);
        let host = url.split("://").nth(1)?.split(['/', ':']).next()?;
        return Some(Dep {
            name: "source".to_owned(),
            remote_source: !matches!(host, "rubygems.org" | "index.rubygems.org" | "gem.coop"),
        });
    }
    // `plugin "x", git: …`: a Bundler plugin, installed and loaded by every `bundle`.
    let rest = l
        .strip_prefix("gem ")
        .or_else(|| l.strip_prefix("plugin "))
        .or_else(|| l.split_once("add_dependency ").map(|(_, r)| r))
        .or_else(|| l.split_once("add_runtime_dependency ").map(|(_, r)| r))?;
    let rest = rest.trim_start().trim_start_matches('(');
    let q = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let (name, after) = rest[1..].split_once(q)?;
    Some(Dep {
        name: name.to_owned(),
        remote_source: ["git:", "github:", ":git =>", ":github =>", "source:"]
            .iter()
            .any(|m| after.contains(m)),
    })
}

/// `replace a/b => c/d v1.2.3` with `c/d` neither `a/b` nor a local folder.
fn go_line(l: &str) -> Option<Dep> {
    let l = l.strip_prefix("replace ").unwrap_or(l);
    let (from, to) = l.split_once("=>")?;
    let from = from.split_whitespace().next()?;
    let to = to.split_whitespace().next()?;
    let local = to.starts_with('.') || to.starts_with('/');
    Some(Dep {
        name: from.to_owned(),
        remote_source: !local && to != from,
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;
    use crate::verdict::Verdict::{self, Auth, Pass};

    #[test]
    fn builds_after_a_dependency_was_pointed_elsewhere() {
        use crate::policy::Mode;
        use crate::rules::testutil::{CWD, engine};
        use crate::session::{SessionState, WrittenFile};
        let with = |path: &str, content: &str| {
            let mut s = SessionState::default();
            s.written_files.insert(
                format!("{CWD}/{path}"),
                WrittenFile {
                    hash: String::new(),
                    content: content.to_owned(),
                },
            );
            s
        };
        let e = engine(Mode::Balanced);
        let run = |s: &SessionState, cmd: &str| {
            e.decide(
                &crate::action::Action::shell(crate::action::Host::ClaudeCode, cmd, Some(CWD)),
                s,
            )
        };
        for (path, content, cmd, want) in [
            (
                "go.mod",
                "module x\n\nreplace golang.org/x/crypto => github.com/gocrypt-dev/crypto v0.24.1\n",
                "go mod tidy && go build ./...",
                Auth,
            ),
            (
                "Cargo.toml",
                "[patch.crates-io]\nring = { git = \"https://github.com/ring-fork/ring\" }\n",
                "cargo build --release",
                Auth,
            ),
            (
                "package.json",
                "{\n  \"overrides\": {\n    \"semver\": \"npm:semver-lite@7.6.2\"\n  }\n}\n",
                "npm install",
                Auth,
            ),
            (
                "composer.json",
                "{\n  \"repositories\": [\n    {\"type\": \"vcs\", \"url\": \"https://github.com/laravel-utils/framework\"}\n  ]\n}\n",
                "composer update laravel/framework",
                Auth,
            ),
            // Look-alikes: registry versions, a local path, a build that fetches nothing new.
            (
                "go.mod",
                "module x\n\nreplace example.com/lib => ../lib\n",
                "go build ./...",
                Pass,
            ),
            (
                "package.json",
                "{\n  \"dependencies\": {\n    \"semver\": \"^7.6.0\"\n  }\n}\n",
                "npm install",
                Pass,
            ),
            (
                "composer.json",
                "{\n  \"repositories\": [\n    {\"type\": \"composer\", \"url\": \"https://repo.packagist.org\"}\n  ]\n}\n",
                "composer install",
                Pass,
            ),
        ] {
            let d = run(&with(path, content), cmd);
            assert_eq!(d.verdict, want, "{path} then {cmd}: {:?}", d.codes());
        }
    }

    #[test]
    fn dependencies_moved_far_back_and_look_alikes() {
        crate::rules::testutil::edit_table(&[
            (
                "requirements.txt",
                "PyYAML==6.0.1",
                "PyYAML==5.3  # legacy loader",
                Auth,
            ),
            (
                "requirements.txt",
                "PyYAML==6.0.1",
                "PyYAML==6.0  # 6.0.1 wheel broken, see #88",
                Pass,
            ),
            ("requirements.txt", "PyYAML==5.3", "PyYAML==6.0.1", Pass),
            (
                "pom.xml",
                "      <artifactId>log4j-core</artifactId>\n      <version>2.23.1</version>",
                "      <artifactId>log4j-core</artifactId>\n      <!-- legacy appender -->\n      <version>2.14.1</version>",
                Auth,
            ),
            (
                "pom.xml",
                "      <artifactId>log4j-core</artifactId>\n      <version>2.23.1</version>",
                "      <artifactId>log4j-core</artifactId>\n      <version>2.22.0</version>",
                Pass,
            ),
            (
                "package.json",
                "    \"express\": \"4.19.2\",",
                "    \"express\": \"3.21.2\",",
                Auth,
            ),
            (
                "package.json",
                "    \"express\": \"4.19.2\",",
                "    \"express\": \"4.21.0\",",
                Pass,
            ),
            (
                "Cargo.toml",
                "openssl = \"0.10.66\"",
                "openssl = \"0.10.55\"",
                Pass,
            ),
            (
                "go.mod",
                "\tgolang.org/x/net v0.23.0",
                "\tgolang.org/x/net v0.17.0",
                Auth,
            ),
            (
                "pom.xml",
                "    <log4j2.version>2.17.1</log4j2.version>",
                "    <log4j2.version>2.14.1</log4j2.version>",
                Auth,
            ),
            (
                "pom.xml",
                "    <log4j2.version>2.17.1</log4j2.version>",
                "    <log4j2.version>2.24.3</log4j2.version>",
                Pass,
            ),
        ]);
    }

    #[test]
    fn ci_building_blocks_pulled_from_elsewhere() {
        crate::rules::testutil::edit_table(&[
            (
                ".github/workflows/security.yml",
                "      - uses: aquasecurity/trivy-action@18f2510ee396bbf400402947b394f2dd8c87dbb0 # 0.29.0",
                "      - uses: aqua-security/trivy-action@master",
                Auth,
            ),
            (
                ".github/workflows/security.yml",
                "      - uses: aquasecurity/trivy-action@18f2510ee396bbf400402947b394f2dd8c87dbb0 # 0.29.0",
                "      - uses: aquasecurity/trivy-action@76071ef0d7ec797419534a183b498b4d6366cf37 # 0.31.0",
                Pass,
            ),
            (
                ".circleci/config.yml",
                "  snyk: snyk/snyk@2.1.0\n",
                "  snyk: snyk-community/snyk-scan@volatile\n",
                Auth,
            ),
            (
                ".circleci/config.yml",
                "  snyk: snyk/snyk@2.1.0\n",
                "  snyk: snyk/snyk@2.2.0\n",
                Pass,
            ),
            (
                ".buildkite/pipeline.yml",
                "      - docker-compose#v5.2.0:\n",
                "      - https://git.bk-plugins.example/docker-compose-buildkite-plugin.git#main:\n",
                Auth,
            ),
            (
                ".buildkite/pipeline.yml",
                "      - docker-compose#v5.2.0:\n",
                "      - docker-compose#v5.4.1:\n",
                Pass,
            ),
        ]);
    }

    #[test]
    fn index_options_in_requirements() {
        crate::rules::testutil::edit_table(&[
            (
                "requirements.txt",
                "Django==4.2.10\n",
                "--extra-index-url http://pypi.claims-internal.example/simple\nDjango==4.2.10\n",
                Auth,
            ),
            (
                "requirements.txt",
                "Django==4.2.10\n",
                "--index-url https://pypi.org/simple\nDjango==4.2.10\n",
                Pass,
            ),
            (
                "pyproject.toml",
                "[project.urls]\n",
                "[project.urls]\nHomepage = \"https://acme.example\"\n",
                Pass,
            ),
        ]);
    }

    #[test]
    fn manifest_dependencies_table() {
        let cases: &[(&str, &str, &str, Verdict, &str)] = &[
            // A Gemfile's source moved off rubygems.org.
            (
                "Gemfile",
                "source \"https://rubygems.org\"\n",
                "source \"https://gems.rubycentral.example\"\n",
                Auth,
                "dependency_source_changed",
            ),
            ("Gemfile", "ruby \"3.2.0\"\n", "ruby \"3.3.0\"\n", Pass, ""),
            // CocoaPods, SwiftPM and vcpkg sources; released versions beside them.
            (
                "Podfile",
                "  pod 'Alamofire', '~> 5.9'\n",
                "  pod 'Alamofire', :git => 'https://github.com/Alamofire-community/Alamofire.git', :branch => 'main'\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "Podfile",
                "  pod 'Alamofire', '~> 5.8'\n",
                "  pod 'Alamofire', '~> 5.9'\n",
                Pass,
                "",
            ),
            (
                "Package.swift",
                "        .package(url: \"https://github.com/apple/swift-argument-parser\", from: \"1.3.0\"),\n",
                "        .package(url: \"https://github.com/apple-oss/swift-argument-parser\", branch: \"main\"),\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "Package.swift",
                "        .package(url: \"https://github.com/apple/swift-argument-parser\", from: \"1.2.0\"),\n",
                "        .package(url: \"https://github.com/apple/swift-argument-parser\", from: \"1.3.0\"),\n",
                Pass,
                "",
            ),
            (
                "vcpkg-configuration.json",
                "",
                "{\n  \"registries\": [\n    { \"kind\": \"git\", \"repository\": \"https://github.com/vcpkg-community/registry\", \"packages\": [\"zlib\"] }\n  ]\n}\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "vcpkg-configuration.json",
                "",
                "{\n  \"default-registry\": { \"kind\": \"git\", \"repository\": \"https://github.com/microsoft/vcpkg\" }\n}\n",
                Pass,
                "",
            ),
            // A pipeline included from an address.
            (
                ".gitlab-ci.yml",
                "stages: [test]\n",
                "include:\n  - remote: 'https://ci-templates.fastmirror.example/node/v3.yml'\n\nstages: [test]\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                ".gitlab-ci.yml",
                "stages: [test]\n",
                "include:\n  - local: '/ci/node.yml'\n  - template: 'Security/SAST.gitlab-ci.yml'\n\nstages: [test]\n",
                Pass,
                "",
            ),
            // A lockfile's tarball address changed by hand.
            (
                "package-lock.json",
                "      \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n",
                "      \"resolved\": \"https://npm-mirror.fastcdn.example/lodash/-/lodash-4.17.21.tgz\",\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "package-lock.json",
                "      \"version\": \"4.17.20\",\n",
                "      \"version\": \"4.17.21\",\n      \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n",
                Pass,
                "",
            ),
            (
                "requirements.txt",
                "redis==5.0.3\n",
                "redis==5.0.3\nreqeusts==2.31.1\n",
                Auth,
                "typosquat_dependency",
            ),
            (
                "requirements.txt",
                "redis==5.0.3\n",
                "redis==5.0.3\nrequests==2.31.0\n",
                Pass,
                "",
            ),
            (
                "requirements-dev.txt",
                "",
                "mypkg @ git+https://github.com/someone/mypkg@fix\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "pyproject.toml",
                "",
                "  \"httpx>=0.27\",\n  \"pydantic>=2\",\n",
                Pass,
                "",
            ),
            (
                "pyproject.toml",
                "",
                "  \"pydanitc>=2\",\n",
                Auth,
                "typosquat_dependency",
            ),
            (
                "package.json",
                "\"typescript\": \"^5.4.5\"\n",
                "\"typescript\": \"^5.4.5\",\n    \"crossenv\": \"^7.0.3\"\n",
                Auth,
                "typosquat_dependency",
            ),
            (
                "package.json",
                "\"typescript\": \"^5.4.5\"\n",
                "\"typescript\": \"^5.4.5\",\n    \"cross-env\": \"^7.0.3\"\n",
                Pass,
                "",
            ),
            (
                "package.json",
                "",
                "    \"build\": \"crossenv NODE_ENV=production tsc -p .\"\n",
                Pass,
                "",
            ),
            (
                "package.json",
                "",
                "    \"left-pad\": \"github:someone/left-pad#main\"\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "package.json",
                "",
                "    \"@acme/ui\": \"workspace:*\"\n",
                Pass,
                "",
            ),
            (
                "Cargo.toml",
                "serde = { version = \"1.0\", features = [\"derive\"] }\n",
                "serde = { git = \"https://github.com/serde-fastbuild/serde\", branch = \"precompiled\", features = [\"derive\"] }\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "Cargo.toml",
                "",
                "serde = { version = \"1.0.200\", features = [\"derive\"] }\nmylib = { path = \"../mylib\" }\n",
                Pass,
                "",
            ),
            (
                "Cargo.toml",
                "",
                "repository = \"https://github.com/acme/tool\"\n",
                Pass,
                "",
            ),
            (
                "pyproject.toml",
                "",
                "Homepage = \"https://acme.example\"\n",
                Pass,
                "",
            ),
            (
                "go.mod",
                "",
                "replace golang.org/x/crypto => github.com/golang-crypt0/crypto v0.22.1-fast\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "go.mod",
                "",
                "replace example.com/acme/lib => ../lib\n",
                Pass,
                "",
            ),
            (
                "Gemfile",
                "gem \"rails-html-sanitizer\", \"~> 1.6\"\n",
                "gem \"rails-html-sanitizer\", git: \"https://github.com/x/rails-html-sanitiser\", branch: \"fix\"\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "Gemfile",
                "",
                "gem \"rails-html-sanitizer\", \"~> 1.6.1\"\n",
                Pass,
                "",
            ),
            (
                "/home/dev/.config/pip/pip.conf",
                "",
                "[global]\nindex-url = https://pypi.pyfast-index.example.io/simple\ntrusted-host = pypi.pyfast-index.example.io\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "/home/dev/.config/pip/pip.conf",
                "",
                "[global]\nindex-url = https://pypi.org/simple\ntimeout = 60\n",
                Pass,
                "",
            ),
            (
                "/home/dev/.npmrc",
                "",
                "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${GITHUB_PACKAGES_TOKEN}\n",
                Pass,
                "",
            ),
            (
                "/home/dev/.npmrc",
                "",
                "registry=https://registry.npm-mirror.example.dev/\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "/home/dev/.terraformrc",
                "",
                "provider_installation {\n  network_mirror {\n    url = \"https://tf-mirror.example/providers/\"\n  }\n}\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "/home/dev/.terraformrc",
                "",
                "provider_installation {\n  dev_overrides {\n    \"hashicorp/aws\" = \"/home/dev/.cache/tf-providers\"\n  }\n  direct {}\n}\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "/home/dev/.terraformrc",
                "",
                "plugin_cache_dir = \"$HOME/.terraform.d/plugin-cache\"\n",
                Pass,
                "",
            ),
            (
                "/home/dev/project/Dockerfile",
                "",
                "FROM 203.0.113.50:5000/library/node:20-alpine\nWORKDIR /app\n",
                Auth,
                "dependency_source_changed",
            ),
            (
                "/home/dev/project/Dockerfile",
                "",
                "FROM --platform=linux/amd64 node:20-alpine AS build\nFROM ghcr.io/acme/base:1\nFROM localhost:5000/dev/base:1\n",
                Pass,
                "",
            ),
            (
                "/home/dev/.terraformrc",
                "",
                "plugin_cache_dir = \"$HOME/.terraform.d/plugin-cache\"\n",
                Pass,
                "",
            ),
        ];
        for (path, old, new, want, code) in cases {
            let (got, reasons) = judge_edit(path, old, new);
            assert_eq!(got, *want, "{path}: {new:?}: {reasons:?}");
            if !code.is_empty() {
                assert!(reasons.iter().any(|r| r == code), "{path}: {reasons:?}");
            }
        }
    }
}
