//! The README's strictness-mode table is a promise: each cell is checked against the engine
//! with a probe call, so the table and the behaviour cannot drift apart (issue #13: the light
//! row once said "pass" where light mode asks for file uploads).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use airlock_e2e::root;
use airlock_engine::{
    Action, Engine, FingerprintKey, Host, HostFacts, Mode, Policy, PolicyConfig, SessionState,
    Verdict,
};

const CWD: &str = "/home/dev/project";

fn engine(mode: Mode) -> Engine {
    let facts = HostFacts {
        home: Some("/home/dev".into()),
        ..HostFacts::default()
    };
    let policy = Policy::compile(&PolicyConfig::default(), &facts)
        .unwrap()
        .with_mode(mode);
    Engine::new(policy, FingerprintKey::new([5; 32])).unwrap()
}

fn verdict(e: &Engine, s: &SessionState, cmd: &str) -> Verdict {
    e.decide(&Action::shell(Host::ClaudeCode, cmd, Some(CWD)), s)
        .verdict
}

/// The table's rows: (first cell, [light, balanced, strict, paranoid]).
fn table() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("### Strictness modes")
        .expect("README has the modes table");
    let section = &readme[start..];
    let end = section[4..].find("\n### ").map_or(section.len(), |i| i + 4);
    section[..end]
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| |"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect();
            (cells[0].clone(), cells[1..].to_vec())
        })
        .collect()
}

fn parse_verdict(cell: &str) -> Verdict {
    let w = cell.split_whitespace().next().unwrap_or("");
    match w.to_ascii_lowercase().as_str() {
        "pass" => Verdict::Pass,
        "auth" => Verdict::Auth,
        "block" => Verdict::Block,
        other => panic!("unknown verdict word {other:?} in {cell:?}"),
    }
}

#[test]
fn the_readme_mode_table_matches_the_engine() {
    let rows = table();
    assert!(rows.len() >= 4, "{rows:?}");
    let mut checked = 0;
    for (what, cells) in &rows {
        assert_eq!(cells.len(), 4, "{what}: {cells:?}");
        for (mode, cell) in Mode::ALL.iter().zip(cells) {
            let e = engine(*mode);
            let fresh = SessionState::default();
            let ctx = format!("README row {what:?}, {mode}: {cell:?}");
            if what.starts_with("bulk-delete threshold") {
                let n: usize = cell.parse().unwrap();
                let files = |k: usize| {
                    let names: Vec<String> = (0..k).map(|i| format!("src/f{i}.rs")).collect();
                    format!("rm {}", names.join(" "))
                };
                assert_eq!(verdict(&e, &fresh, &files(n)), Verdict::Pass, "{ctx}");
                assert_eq!(verdict(&e, &fresh, &files(n + 1)), Verdict::Auth, "{ctx}");
            } else if what.starts_with("unlisted destinations") {
                let fetch = verdict(&e, &fresh, "curl -s https://status.unlisted-example.net/v1");
                assert_eq!(fetch, parse_verdict(cell), "{ctx} (a plain request)");
                let upload = verdict(
                    &e,
                    &fresh,
                    "curl -T notes.txt https://files.unlisted-example.net/u",
                );
                let want = if cell.contains("AUTH for file uploads") {
                    Verdict::Auth
                } else {
                    parse_verdict(cell)
                };
                assert_eq!(upload, want, "{ctx} (a file upload)");
            } else if what.starts_with("lethal trifecta") {
                let s = SessionState {
                    secret_read: true,
                    tainted: true,
                    ..SessionState::default()
                };
                let v = verdict(&e, &s, "curl -s https://status.unlisted-example.net/v1");
                assert_eq!(v, parse_verdict(cell), "{ctx}");
            } else if what.starts_with("hard blocks") {
                for cmd in ["rm -rf ~", "dd if=/dev/zero of=/dev/sda"] {
                    assert_eq!(
                        verdict(&e, &fresh, cmd),
                        parse_verdict(cell),
                        "{ctx}: {cmd}"
                    );
                }
            } else if what.starts_with("writes and deploys to production") {
                for cmd in [
                    "psql -h db-prod.internal.example -c \"UPDATE plans SET price_cents = 0 WHERE id = 3\"",
                    "terraform -chdir=envs/prod apply -auto-approve",
                    "kubectl -n prod set image deploy/api api=ghcr.io/acme/api:2",
                    "npx vercel deploy --prod --yes",
                ] {
                    assert_eq!(
                        verdict(&e, &fresh, cmd),
                        parse_verdict(cell),
                        "{ctx}: {cmd}"
                    );
                }
            } else if what.starts_with("security settings switched off") {
                for cmd in [
                    "curl -X PATCH https://api.vendor.example/v1/settings -d '{\"signature_verification\": \"disabled\"}'",
                    "auth0 api patch connections/con_1 --data '{\"options\":{\"mfa\":{\"active\":false}}}'",
                ] {
                    assert_eq!(
                        verdict(&e, &fresh, cmd),
                        parse_verdict(cell),
                        "{ctx}: {cmd}"
                    );
                }
            } else {
                panic!("README row {what:?} has no probe here: add one");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, rows.len() * 4);
}
