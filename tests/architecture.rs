//! ARCHITECTURE.md's dependency table, made executable: `cargo metadata` lists every
//! workspace crate's dependencies, and any edge between workspace crates that the table does
//! not allow fails; so does depending on a crate that has a binary (`main.rs`), and so does
//! tokio, rusqlite or tauri anywhere in the engine's dependency tree.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::collections::{BTreeMap, BTreeSet};

use airlock_e2e::root;
use serde_json::Value;

fn metadata() -> Value {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The table between `<!-- deps:begin -->` and `<!-- deps:end -->`.
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let start = text.find("<!-- deps:begin -->").expect("deps table start");
    let end = text.find("<!-- deps:end -->").expect("deps table end");
    let mut map = BTreeMap::new();
    for line in text[start..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 3 || !cells[1].starts_with("airlock-") {
            continue;
        }
        let deps = cells[2]
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .collect();
        map.insert(cells[1].to_owned(), deps);
    }
    map
}

#[test]
fn workspace_edges_are_the_ones_architecture_md_allows() {
    let meta = metadata();
    let allowed = allowed();
    let members: BTreeSet<String> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| {
            meta["packages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == *id)
                .unwrap()["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut has_bin = BTreeSet::new();
    let mut problems = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        if !members.contains(name) {
            continue;
        }
        if p["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        {
            has_bin.insert(name.to_owned());
        }
    }
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        if !members.contains(name) {
            continue;
        }
        let Some(ok) = allowed.get(name) else {
            problems.push(format!("{name} is not in ARCHITECTURE.md's table"));
            continue;
        };
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap();
            if !members.contains(dep) {
                continue;
            }
            if !ok.contains(dep) {
                problems.push(format!("{name} -> {dep} is not allowed by ARCHITECTURE.md"));
            }
            if has_bin.contains(dep) {
                problems.push(format!("{name} depends on {dep}, which has a main.rs"));
            }
        }
    }
    for name in allowed.keys() {
        if !members.contains(name) {
            problems.push(format!(
                "ARCHITECTURE.md lists {name}, which is not a member"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_engine_tree_has_no_tokio_rusqlite_or_tauri() {
    let meta = metadata();
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let name_of = |id: &str| -> String {
        meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .map(|p| p["name"].as_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let engine = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "airlock-engine")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut seen = BTreeSet::new();
    let mut todo = vec![engine];
    while let Some(id) = todo.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        let node = nodes.iter().find(|n| n["id"] == id.as_str()).unwrap();
        for d in node["deps"].as_array().unwrap() {
            // Normal (non-dev) dependencies only.
            let normal = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal {
                todo.push(d["pkg"].as_str().unwrap().to_owned());
            }
        }
    }
    let names: BTreeSet<String> = seen.iter().map(|id| name_of(id)).collect();
    for banned in ["tokio", "rusqlite", "tauri", "hyper", "reqwest"] {
        assert!(
            !names.contains(banned),
            "the engine's tree contains {banned}"
        );
    }
    assert!(
        names.contains("brush-parser"),
        "sanity: the walk found the parser"
    );
}

/// Library crates (the folders of every workspace crate without a `main.rs`) keep their
/// Unix-only calls in platform modules: a file whose name starts with `platform`, `sys` or
/// `unix`, or any file under a `platform/` or `sys/` folder. The binaries and the service's
/// socket files, which are Unix-only today, are listed below with the reason.
const LIBRARY_CRATES: &[&str] = &[
    "engine", "hooks", "store", "wire", "core", "broker", "service",
];

/// Files allowed to call Unix-only APIs outside a platform module, each with why.
const UNIX_ONLY_ALLOWED: &[(&str, &str)] = &[
    // The guard service runs on Unix sockets with SO_PEERCRED peers, flock and signals; the
    // whole crate is `#![cfg(unix)]` (README "Platforms": no service on Windows yet).
    (
        "service/src/client.rs",
        "Unix socket client, detached daemon spawn",
    ),
    (
        "service/src/server.rs",
        "Unix socket server, flock, signals",
    ),
    (
        "service/src/peer.rs",
        "SO_PEERCRED / getpeereid, users by name",
    ),
    ("service/src/state.rs", "device/inode of the store file"),
    (
        "service/src/agent.rs",
        "the approval agent's Unix socket connection",
    ),
    ("service/src/shell_client.rs", "parent pid, exec of bash"),
];

/// What marks a Unix-only call.
const UNIX_ONLY_MARKERS: &[&str] = &[
    "std::os::unix",
    "std::os::fd",
    "libc::",
    "nix::",
    "use nix",
    "tokio::net::unix",
    "tokio::signal::unix",
];

fn is_platform_file(rel: &std::path::Path) -> bool {
    let in_platform_dir = rel
        .components()
        .any(|c| matches!(c.as_os_str().to_str(), Some("platform" | "sys")));
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    in_platform_dir
        || name.starts_with("platform")
        || name.starts_with("sys")
        || name.starts_with("unix")
}

/// Whether `code` contains `marker` as a path of its own (`unix::` is not `nix::`).
fn mentions(code: &str, marker: &str) -> bool {
    code.match_indices(marker).any(|(at, _)| {
        !code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn unix_only_calls_stay_in_platform_modules() {
    let root = root();
    let mut problems = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for krate in LIBRARY_CRATES {
        assert!(
            !root.join(krate).join("src/main.rs").exists(),
            "{krate} has a main.rs: it is not a library crate"
        );
        let mut files = Vec::new();
        rust_files(&root.join(krate).join("src"), &mut files);
        assert!(!files.is_empty(), "sanity: {krate} has sources");
        for file in files {
            let rel = file.strip_prefix(&root).unwrap().to_path_buf();
            let rel_str = rel.to_string_lossy().replace('\\', "/");
            if is_platform_file(rel.strip_prefix(krate).unwrap()) {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                let Some(marker) = UNIX_ONLY_MARKERS.iter().find(|m| mentions(code, m)) else {
                    continue;
                };
                if UNIX_ONLY_ALLOWED.iter().any(|(f, _)| *f == rel_str) {
                    allowed_seen.insert(rel_str.clone());
                    continue;
                }
                problems.push(format!(
                    "{rel_str}:{}: `{marker}` outside a platform module (move it to a \
                     platform.rs / sys.rs / unix.rs or under platform/)",
                    n + 1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    // An allow-list entry that no longer needs it must go, so the list only shrinks.
    let stale: Vec<&str> = UNIX_ONLY_ALLOWED
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| !allowed_seen.contains(*f))
        .collect();
    assert!(stale.is_empty(), "stale allow-list entries: {stale:?}");
}

#[test]
fn the_platform_lint_recognises_platform_files() {
    use std::path::Path;
    assert!(is_platform_file(Path::new("src/platform.rs")));
    assert!(is_platform_file(Path::new("src/transport/unix.rs")));
    assert!(is_platform_file(Path::new("src/platform/windows.rs")));
    assert!(is_platform_file(Path::new("src/sys.rs")));
    assert!(!is_platform_file(Path::new("src/server.rs")));
    assert!(!is_platform_file(Path::new("src/transport/mod.rs")));
    assert!(mentions("use nix::unistd;", "nix::"));
    assert!(mentions("let x = libc::getuid();", "libc::"));
    assert!(!mentions("pub use unix::{A as B};", "nix::"));
}
