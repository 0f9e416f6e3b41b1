//! `airlock eval` and `airlock check` as a user runs them: the real binary, real files.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::io::Write as _;
use std::process::Command;

use airlock_e2e::{airlock_bin, root};

#[test]
fn eval_prints_json_summary() {
    let bin = airlock_bin().unwrap();
    let out = Command::new(&bin)
        .args(["eval", "--corpus"])
        .arg(root().join("tests/corpus/corpus.jsonl"))
        .args(["--mode", "strict", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["mode"], "strict");
    for key in ["asr", "asr_strict", "fpr", "hard_fpr"] {
        assert!(v["summary"][key].is_f64(), "{key}");
    }
    assert!(v["results"].as_array().unwrap().len() >= 400);
}

#[test]
fn malformed_corpus_names_the_line() {
    let bin = airlock_bin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, r#"{{"id":"a","label":"benign","category":"x","events":[{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls"}}}}]}}"#).unwrap();
    writeln!(
        f,
        r#"{{"id":"b","label":"benign","category":"x","events":[{{"hook_event_name":"#
    )
    .unwrap();
    drop(f);
    let out = Command::new(&bin)
        .args(["eval", "--corpus"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2"), "{err}");

    let bad_label = dir.path().join("label.jsonl");
    std::fs::write(
        &bad_label,
        r#"{"id":"a","label":"maybe","category":"x","events":[]}"#,
    )
    .unwrap();
    let out = Command::new(&bin)
        .args(["eval", "--corpus"])
        .arg(&bad_label)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));

    let missing = Command::new(&bin)
        .args(["eval", "--corpus", "/nonexistent/x.jsonl"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
}

#[test]
fn check_explains_verdicts() {
    let bin = airlock_bin().unwrap();
    let cases = [
        ("rm -rf ~", "BLOCK", "destructive_rm"),
        ("cat .env", "AUTH", "secret_read_dotenv"),
        ("cargo test", "PASS", ""),
    ];
    for (cmd, verdict, code) in cases {
        let out = Command::new(&bin)
            .args(["check", "--cwd", "/home/dev/project", "--", cmd])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with(verdict), "{cmd}: {text}");
        assert!(text.contains(code), "{cmd}: {text}");
    }
    let bad = Command::new(&bin)
        .args(["check", "--mode", "sideways", "--", "ls"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown strictness mode"));
}
