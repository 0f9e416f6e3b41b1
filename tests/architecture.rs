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
