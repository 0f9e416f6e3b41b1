//! Golden files pin, per host and per wired event, exactly what the hook prints (stdout,
//! stderr) and its exit code for NoOpinion / Deny / Ask / a screened result (flag, withhold), plus each host's parse-failure denial.
//! Regenerate after an intended change with `AIRLOCK_BLESS=1 cargo test -p airlock-hooks
//! --test golden`, then review the diff: these bytes are what the hosts read.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::path::{Path, PathBuf};

use airlock_hooks::{
    HookAnswer, HookError, HookOutcome, Host, render, render_parse_failure, supports_ask,
};

const DENY_REASON: &str = "Airlock blocked this: test reason.";
const ASK_REASON: &str = "Airlock wants your approval: test reason.";
const NOTE: &str = "Airlock warning: test note.";

/// Every host with the events its adapter wires.
const TABLE: &[(Host, &[&str])] = &[
    (
        Host::ClaudeCode,
        &[
            "PreToolUse",
            "PermissionRequest",
            "UserPromptSubmit",
            "PostToolUse",
        ],
    ),
    (
        Host::Codex,
        &[
            "PreToolUse",
            "PermissionRequest",
            "UserPromptSubmit",
            "PostToolUse",
        ],
    ),
    (
        Host::VsCode,
        &["PreToolUse", "UserPromptSubmit", "PostToolUse"],
    ),
    (
        Host::Cursor,
        &[
            "beforeShellExecution",
            "beforeMCPExecution",
            "beforeReadFile",
            "beforeSubmitPrompt",
            "preToolUse",
            "afterShellExecution",
        ],
    ),
    (Host::Gemini, &["BeforeTool", "BeforeAgent", "AfterTool"]),
    (
        Host::Copilot,
        &[
            "preToolUse",
            "permissionRequest",
            "userPromptSubmitted",
            "postToolUse",
        ],
    ),
    (
        Host::Windsurf,
        &[
            "pre_run_command",
            "pre_read_code",
            "pre_write_code",
            "pre_mcp_tool_use",
            "pre_user_prompt",
            "post_mcp_tool_use",
        ],
    ),
    (
        Host::Cline,
        &["PreToolUse", "UserPromptSubmit", "PostToolUse"],
    ),
    (
        Host::OpenCode,
        &["tool.execute.before", "tool.execute.after"],
    ),
    (
        Host::Kiro,
        &["preToolUse", "userPromptSubmit", "postToolUse"],
    ),
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn show(a: &HookAnswer) -> String {
    format!(
        "exit_code: {}\n--- stdout\n{}--- stderr\n{}",
        a.exit_code, a.stdout, a.stderr
    )
}

fn check(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if std::env::var_os("AIRLOCK_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return;
    }
    match std::fs::read_to_string(path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{}\n  expected:\n{expected}\n  actual:\n{actual}",
            path.display()
        )),
        Err(_) => failures.push(format!("{} is missing:\n{actual}", path.display())),
    }
}

#[test]
fn every_host_event_and_outcome_matches_its_golden_file() {
    let mut failures = Vec::new();
    let mut seen = Vec::new();
    for (host, events) in TABLE {
        for event in *events {
            for (name, outcome) in [
                ("no_opinion", HookOutcome::NoOpinion),
                (
                    "deny",
                    HookOutcome::Deny {
                        reason: DENY_REASON.into(),
                    },
                ),
                (
                    "ask",
                    HookOutcome::Ask {
                        reason: ASK_REASON.into(),
                    },
                ),
                (
                    "flag",
                    HookOutcome::Screened {
                        note: NOTE.into(),
                        withhold: false,
                    },
                ),
                (
                    "withhold",
                    HookOutcome::Screened {
                        note: NOTE.into(),
                        withhold: true,
                    },
                ),
            ] {
                let answer = render(*host, event, &outcome);
                let rel = format!("{}/{event}.{name}.txt", host.as_str());
                check(&golden_dir().join(&rel), &show(&answer), &mut failures);
                seen.push(rel);
            }
        }
        let answer = render_parse_failure(*host, &HookError::Missing("hook_event_name"));
        let rel = format!("{}/parse_failure.txt", host.as_str());
        check(&golden_dir().join(&rel), &show(&answer), &mut failures);
        seen.push(rel);
    }
    // No stale golden file lingers unchecked.
    for (host, _) in TABLE {
        let dir = golden_dir().join(host.as_str());
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let rel = format!("{}/{name}", host.as_str());
            if !seen.contains(&rel) {
                failures.push(format!("{rel} is not produced by any case"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Properties every answer must have, whatever the golden bytes say.
#[test]
fn answers_are_one_json_object_and_denials_stop_the_action() {
    for (host, events) in TABLE {
        for event in *events {
            for outcome in [
                HookOutcome::NoOpinion,
                HookOutcome::Deny {
                    reason: DENY_REASON.into(),
                },
                HookOutcome::Ask {
                    reason: ASK_REASON.into(),
                },
            ] {
                let a = render(*host, event, &outcome);
                let v: serde_json::Value = serde_json::from_str(&a.stdout)
                    .unwrap_or_else(|e| panic!("{host:?} {event}: stdout not JSON: {e}"));
                assert!(v.is_object(), "{host:?} {event}");
                assert!(a.stdout.ends_with('\n') && a.stdout.lines().count() == 1);
                // Never an explicit allow: the user's own permission rules must still apply.
                assert!(!a.stdout.contains("\"allow\""), "{host:?} {event}");
                assert!(
                    a.exit_code == 0 || a.exit_code == 2,
                    "{host:?} {event}: exit {}",
                    a.exit_code
                );
                if matches!(outcome, HookOutcome::NoOpinion) {
                    assert_eq!(a.stdout, "{}\n");
                    assert_eq!(a.exit_code, 0);
                    assert!(a.stderr.is_empty());
                }
                if a.exit_code == 2 {
                    assert!(
                        !a.stderr.trim().is_empty(),
                        "{host:?} {event}: exit 2 needs stderr"
                    );
                }
                if matches!(outcome, HookOutcome::Ask { .. }) && !supports_ask(*host, event) {
                    assert!(!a.stdout.contains("\"ask\""), "{host:?} {event}");
                }
            }
        }
        let a = render_parse_failure(*host, &HookError::Empty);
        // A denial each host obeys: a deny decision in the JSON, Cline's `cancel`, or (Windsurf,
        // which reads only the exit code) exit 2.
        assert!(
            a.stdout.contains("deny") || a.stdout.contains("\"cancel\":true") || a.exit_code == 2,
            "{host:?}"
        );
        assert!(a.stdout.contains("empty_input") || a.stderr.contains("empty_input"));
    }
}
