//! Golden files pin each host's exact output: `tests/golden/<agent>.json` is `wire_text` of
//! `tests/fixtures/<agent>.json`, and `tests/golden/<agent>.new.json` is `wire_text` with no
//! file. Regenerate with `AIRLOCK_BLESS=1 cargo test -p airlock-wire --test golden`, then
//! review the diff against the host's documentation.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::fs;
use std::path::{Path, PathBuf};

use airlock_wire::{Agent, WireOptions, wire_text};

const SUPPORTED: [Agent; 7] = [
    Agent::ClaudeCode,
    Agent::Cursor,
    Agent::Codex,
    Agent::Gemini,
    Agent::Copilot,
    Agent::Windsurf,
    Agent::Kiro,
];

fn opts() -> WireOptions {
    WireOptions {
        airlock_bin: PathBuf::from("/opt/Airlock Tools/bin/airlock"),
        timeout_secs: 30,
        stamp: "golden".into(),
    }
}

fn check(golden: &Path, actual: &str) {
    if std::env::var_os("AIRLOCK_BLESS").is_some() {
        fs::write(golden, actual).unwrap();
        return;
    }
    let expected = fs::read_to_string(golden)
        .unwrap_or_else(|e| panic!("{}: {e} (run with AIRLOCK_BLESS=1)", golden.display()));
    assert_eq!(
        actual,
        expected,
        "{} differs (run with AIRLOCK_BLESS=1 to update)",
        golden.display()
    );
}

#[test]
fn golden_outputs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for agent in SUPPORTED {
        let name = agent.as_str();
        let input = fs::read_to_string(dir.join(format!("fixtures/{name}.json"))).unwrap();
        let wired = wire_text(agent, Some(&input), &opts()).unwrap();
        check(&dir.join(format!("golden/{name}.json")), &wired);
        let fresh = wire_text(agent, None, &opts()).unwrap();
        check(&dir.join(format!("golden/{name}.new.json")), &fresh);
    }
}

/// Cline's hook file (the same text for each event), pinned byte for byte.
#[test]
fn golden_cline_script() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let script = airlock_wire::hook_script(Agent::Cline, &opts().airlock_bin)
        .unwrap()
        .unwrap();
    check(&dir.join("golden/cline.hook.sh"), &script);
    assert_eq!(
        airlock_wire::hook_script(Agent::Windsurf, &opts().airlock_bin).unwrap(),
        None
    );
}
