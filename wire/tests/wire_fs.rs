//! Wiring and unwiring real files in temporary home directories, for every supported agent.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::fs;
use std::path::{Path, PathBuf};

use airlock_wire::{
    Agent, WireError, WireOptions, config_path, is_installed, is_wired, unwire, unwire_text, wire,
    wire_text,
};

/// Every agent Airlock wires through a settings document (VS Code is refused, see
/// `vscode_is_refused`; Cline's hooks are files, see `cline_*`).
const SUPPORTED: [Agent; 7] = [
    Agent::ClaudeCode,
    Agent::Cursor,
    Agent::Codex,
    Agent::Gemini,
    Agent::Copilot,
    Agent::Windsurf,
    Agent::Kiro,
];

/// A binary path with a space in it, so every test also covers quoting.
const BIN: &str = "/opt/Airlock Tools/bin/airlock";

fn opts(stamp: &str) -> WireOptions {
    WireOptions {
        airlock_bin: PathBuf::from(BIN),
        timeout_secs: 30,
        stamp: stamp.to_owned(),
    }
}

fn fixture(agent: Agent) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{}.json", agent.as_str()));
    fs::read_to_string(p).unwrap()
}

fn backups(path: &Path) -> Vec<PathBuf> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut v: Vec<PathBuf> = fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&format!("{name}.airlock-backup-"))
        })
        .collect();
    v.sort();
    v
}

fn value(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// The events each host gets an Airlock entry for, as documented by the host.
fn events(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::ClaudeCode | Agent::Codex => &[
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "PermissionRequest",
        ],
        Agent::Gemini => &["BeforeTool", "AfterTool", "BeforeAgent"],
        Agent::Cursor => &[
            "beforeShellExecution",
            "beforeMCPExecution",
            "beforeReadFile",
            "beforeSubmitPrompt",
            "preToolUse",
        ],
        Agent::Copilot => &[
            "preToolUse",
            "postToolUse",
            "userPromptSubmitted",
            "permissionRequest",
        ],
        Agent::Windsurf => &[
            "pre_run_command",
            "pre_read_code",
            "pre_write_code",
            "pre_mcp_tool_use",
            "pre_user_prompt",
            "post_mcp_tool_use",
        ],
        Agent::Kiro => &["preToolUse", "postToolUse", "userPromptSubmit"],
        Agent::VsCode | Agent::Cline | Agent::OpenCode => &[],
    }
}

fn quoted_command(agent: Agent) -> String {
    format!("'{BIN}' hook {}", agent.as_str())
}

fn write_file(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn wire_into_no_file_then_unwire_removes_it() {
    for agent in SUPPORTED {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        assert!(!is_wired(agent, home.path(), Path::new(BIN)).unwrap());

        let r = wire(agent, home.path(), &opts("t1")).unwrap();
        assert!(r.changed, "{agent}");
        assert_eq!(
            r.backup, None,
            "{agent}: no backup of a file that did not exist"
        );
        assert_eq!(r.path, path);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("}\n"), "{agent}");
        assert!(text.contains(&quoted_command(agent)), "{agent}: {text}");
        assert!(is_wired(agent, home.path(), Path::new(BIN)).unwrap());
        assert!(
            !is_wired(agent, home.path(), Path::new("/usr/bin/airlock")).unwrap(),
            "{agent}: another binary is not ours"
        );

        let again = wire(agent, home.path(), &opts("t2")).unwrap();
        assert!(!again.changed, "{agent}");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert!(backups(&path).is_empty(), "{agent}");

        let u = unwire(agent, home.path(), &opts("t3")).unwrap();
        assert!(u.changed);
        assert!(!path.exists(), "{agent}: the file we created is gone");
        assert!(matches!(
            unwire(agent, home.path(), &opts("t4")),
            Err(WireError::NotWired { .. })
        ));
    }
}

#[test]
fn wire_keeps_other_entries_and_unwire_restores_bytes_exactly() {
    for agent in SUPPORTED {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        let original = fixture(agent);
        write_file(&path, &original);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        }

        let r = wire(agent, home.path(), &opts("20250101T000000Z")).unwrap();
        assert!(r.changed);
        let backup = r.backup.clone().unwrap();
        assert_eq!(backups(&path), vec![backup.clone()]);
        assert_eq!(fs::read_to_string(&backup).unwrap(), original);
        assert!(
            backup
                .to_string_lossy()
                .ends_with(".airlock-backup-20250101T000000Z")
        );

        // Every value of the original is still there.
        let wired = fs::read_to_string(&path).unwrap();
        let (before, after) = (value(&original), value(&wired));
        for (k, v) in before.as_object().unwrap() {
            if k != "hooks" {
                assert_eq!(&after[k], v, "{agent}: {k}");
            }
        }
        for (event, list) in before["hooks"].as_object().unwrap() {
            for item in list.as_array().unwrap() {
                assert!(
                    after["hooks"][event].as_array().unwrap().contains(item),
                    "{agent}: lost {item} under {event}"
                );
            }
        }
        assert!(wired.contains(&quoted_command(agent)));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o640, "{agent}: permissions kept");
            assert_eq!(
                mode(&backup),
                0o640,
                "{agent}: backup has the same permissions"
            );
        }

        // Idempotent: no change, no second backup.
        let again = wire(agent, home.path(), &opts("20250101T000001Z")).unwrap();
        assert!(!again.changed);
        assert_eq!(again.backup, None);
        assert_eq!(backups(&path).len(), 1);
        assert_eq!(fs::read_to_string(&path).unwrap(), wired);

        let u = unwire(agent, home.path(), &opts("x")).unwrap();
        assert!(u.changed);
        assert_eq!(u.backup, Some(backup));
        assert_eq!(fs::read_to_string(&path).unwrap(), original, "{agent}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o640);
        }
        assert!(!is_wired(agent, home.path(), Path::new(BIN)).unwrap());
    }
}

#[test]
fn already_wired_file_is_left_alone() {
    for agent in SUPPORTED {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        // Wired by an earlier run whose backups are gone, and reformatted by the host.
        let wired = wire_text(agent, Some(&fixture(agent)), &opts("s")).unwrap();
        let compact = serde_json::to_string(&value(&wired)).unwrap();
        write_file(&path, &compact);

        let r = wire(agent, home.path(), &opts("s2")).unwrap();
        assert!(!r.changed, "{agent}");
        assert_eq!(r.backup, None);
        assert_eq!(fs::read_to_string(&path).unwrap(), compact);
        assert!(backups(&path).is_empty());
        assert!(is_wired(agent, home.path(), Path::new(BIN)).unwrap());
    }
}

#[test]
fn malformed_file_is_refused_and_untouched() {
    for agent in SUPPORTED {
        for bad in [
            "{ \"hooks\": { ",
            "{\"a\": 1} trailing",
            "[1, 2]",
            "{\"hooks\": []}",
        ] {
            let home = tempfile::tempdir().unwrap();
            let path = config_path(agent, home.path());
            write_file(&path, bad);
            let e = wire(agent, home.path(), &opts("s")).unwrap_err();
            assert!(matches!(e, WireError::Parse { .. }), "{agent} {bad}: {e}");
            assert!(e.to_string().contains("left untouched"));
            assert!(matches!(
                unwire(agent, home.path(), &opts("s")),
                Err(WireError::Parse { .. })
            ));
            assert!(matches!(
                is_wired(agent, home.path(), Path::new(BIN)),
                Err(WireError::Parse { .. })
            ));
            assert_eq!(fs::read_to_string(&path).unwrap(), bad);
            assert!(backups(&path).is_empty());
        }
    }
}

#[test]
fn unwire_after_user_edits_keeps_their_changes() {
    for agent in SUPPORTED {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        let original = fixture(agent);
        write_file(&path, &original);
        wire(agent, home.path(), &opts("a")).unwrap();

        // The user (or the agent's settings UI) adds a key and rewrites the file compactly.
        let mut v = value(&fs::read_to_string(&path).unwrap());
        v.as_object_mut()
            .unwrap()
            .insert("addedLater".into(), serde_json::json!({"x": [1, 2]}));
        fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();

        let u = unwire(agent, home.path(), &opts("b")).unwrap();
        assert!(u.changed);
        assert_eq!(u.backup, None, "{agent}: not restored from the backup");
        let mut expected = value(&original);
        expected
            .as_object_mut()
            .unwrap()
            .insert("addedLater".into(), serde_json::json!({"x": [1, 2]}));
        let got = fs::read_to_string(&path).unwrap();
        assert_eq!(value(&got), expected, "{agent}");
        assert!(got.ends_with("}\n"));
        assert!(!got.contains("airlock"), "{agent}: {got}");
    }
}

#[test]
fn unwire_without_airlock_entries_is_not_wired() {
    for agent in SUPPORTED {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        assert!(matches!(
            unwire(agent, home.path(), &opts("s")),
            Err(WireError::NotWired { .. })
        ));
        write_file(&path, &fixture(agent));
        assert!(matches!(
            unwire(agent, home.path(), &opts("s")),
            Err(WireError::NotWired { .. })
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), fixture(agent));
    }
}

#[test]
fn rewiring_with_a_new_timeout_updates_the_entry() {
    // Windsurf's hook entries have no timeout field.
    for agent in SUPPORTED.into_iter().filter(|a| *a != Agent::Windsurf) {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        write_file(&path, &fixture(agent));
        let first = wire(agent, home.path(), &opts("1")).unwrap();
        let mut o = opts("2");
        o.timeout_secs = 7;
        let second = wire(agent, home.path(), &o).unwrap();
        assert!(second.changed);
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.matches(&quoted_command(agent)).count(),
            events(agent).len(),
            "{agent}: replaced, not added"
        );
        let unit = if matches!(agent, Agent::Gemini | Agent::Kiro) {
            7000
        } else {
            7
        };
        assert!(text.contains(&format!(": {unit}")), "{agent}: {text}");
        assert!(
            !text.contains(": 30\n") && !text.contains(": 30000\n"),
            "{agent}"
        );
        // Unwire still restores the original bytes from the first backup's content.
        unwire(agent, home.path(), &o).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), fixture(agent));
        assert!(first.backup.is_some());
    }
}

#[test]
fn one_airlock_entry_per_wired_event() {
    for agent in SUPPORTED {
        let once = wire_text(agent, Some(&fixture(agent)), &opts("s")).unwrap();
        let twice = wire_text(agent, Some(&once), &opts("s")).unwrap();
        assert_eq!(once, twice, "{agent}: wire_text is idempotent");
        let v = value(&once);
        let hooks = v["hooks"].as_object().unwrap();
        for event in events(agent) {
            let list = hooks[*event].to_string();
            assert_eq!(
                list.matches(&format!("hook {}", agent.as_str())).count(),
                1,
                "{agent}: {event}"
            );
        }
        for (event, list) in hooks {
            if !events(agent).contains(&event.as_str()) {
                assert!(!list.to_string().contains("airlock"), "{agent}: {event}");
            }
        }
    }
}

#[test]
fn symlinked_config_stays_a_symlink() {
    #[cfg(unix)]
    {
        let home = tempfile::tempdir().unwrap();
        let dotfiles = home.path().join("dotfiles");
        fs::create_dir_all(&dotfiles).unwrap();
        let target = dotfiles.join("claude-settings.json");
        fs::write(&target, fixture(Agent::ClaudeCode)).unwrap();
        let path = config_path(Agent::ClaudeCode, home.path());
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();

        wire(Agent::ClaudeCode, home.path(), &opts("s")).unwrap();
        assert!(
            fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            fs::read_to_string(&target)
                .unwrap()
                .contains(&quoted_command(Agent::ClaudeCode))
        );
        unwire(Agent::ClaudeCode, home.path(), &opts("s")).unwrap();
        assert!(
            fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(&target).unwrap(),
            fixture(Agent::ClaudeCode)
        );
    }
}

#[test]
fn copilot_uses_a_file_of_its_own() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".copilot/hooks");
    fs::create_dir_all(&dir).unwrap();
    let other = dir.join("team.json");
    fs::write(&other, fixture(Agent::Copilot)).unwrap();

    wire(Agent::Copilot, home.path(), &opts("s")).unwrap();
    assert_eq!(fs::read_to_string(&other).unwrap(), fixture(Agent::Copilot));
    let ours = fs::read_to_string(dir.join("airlock.json")).unwrap();
    assert!(ours.contains("\"bash\": \"'/opt/Airlock Tools/bin/airlock' hook copilot\""));
    unwire(Agent::Copilot, home.path(), &opts("s")).unwrap();
    assert!(!dir.join("airlock.json").exists());
    assert_eq!(fs::read_to_string(&other).unwrap(), fixture(Agent::Copilot));
}

#[test]
fn empty_existing_file_is_wired_and_restored() {
    let home = tempfile::tempdir().unwrap();
    let path = config_path(Agent::Cursor, home.path());
    write_file(&path, "");
    let r = wire(Agent::Cursor, home.path(), &opts("s")).unwrap();
    assert!(r.backup.is_some());
    unwire(Agent::Cursor, home.path(), &opts("s")).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "");
}

#[test]
fn original_with_empty_hooks_object_is_restored_exactly() {
    for agent in SUPPORTED {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        let original = "{\"hooks\":{}, \"keep\": true}";
        write_file(&path, original);
        wire(agent, home.path(), &opts("s")).unwrap();
        unwire(agent, home.path(), &opts("s")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), original, "{agent}");
    }
}

#[test]
fn unknown_version_is_unsupported_and_untouched() {
    for agent in [Agent::Cursor, Agent::Copilot] {
        let home = tempfile::tempdir().unwrap();
        let path = config_path(agent, home.path());
        write_file(&path, "{\"version\": 2, \"hooks\": {}}");
        assert!(matches!(
            wire(agent, home.path(), &opts("s")),
            Err(WireError::Unsupported { .. })
        ));
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\"version\": 2, \"hooks\": {}}"
        );
    }
}

#[test]
fn vscode_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let o = opts("s");
    for e in [
        wire(Agent::VsCode, home.path(), &o).unwrap_err(),
        unwire(Agent::VsCode, home.path(), &o).unwrap_err(),
        wire_text(Agent::VsCode, None, &o).unwrap_err(),
        unwire_text(Agent::VsCode, "{}", Path::new(BIN)).unwrap_err(),
    ] {
        match e {
            WireError::Unsupported { agent, why } => {
                assert_eq!(agent, "vscode");
                assert!(why.contains("~/.copilot/hooks"));
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!(fs::read_dir(home.path()).unwrap().count(), 0);
}

#[test]
fn vscode_counts_as_wired_through_the_files_it_shares() {
    let bin = Path::new(BIN);
    for via in [Agent::Copilot, Agent::ClaudeCode] {
        let home = tempfile::tempdir().unwrap();
        assert!(!is_wired(Agent::VsCode, home.path(), bin).unwrap());
        wire(via, home.path(), &opts("s")).unwrap();
        assert!(is_wired(Agent::VsCode, home.path(), bin).unwrap(), "{via}");
        unwire(via, home.path(), &opts("s")).unwrap();
        assert!(!is_wired(Agent::VsCode, home.path(), bin).unwrap());
    }
    // A malformed shared file is reported, not read as "not wired".
    let home = tempfile::tempdir().unwrap();
    write_file(&config_path(Agent::ClaudeCode, home.path()), "{oops");
    assert!(matches!(
        is_wired(Agent::VsCode, home.path(), bin),
        Err(WireError::Parse { .. })
    ));
}

#[test]
fn relative_binary_path_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let o = WireOptions {
        airlock_bin: PathBuf::from("bin/airlock"),
        timeout_secs: 30,
        stamp: "s".into(),
    };
    assert!(matches!(
        wire(Agent::ClaudeCode, home.path(), &o),
        Err(WireError::Unsupported { .. })
    ));
    assert!(!config_path(Agent::ClaudeCode, home.path()).exists());
}

#[test]
fn plain_binary_path_is_not_quoted() {
    let o = WireOptions {
        airlock_bin: PathBuf::from("/usr/local/bin/airlock"),
        timeout_secs: 30,
        stamp: "s".into(),
    };
    let text = wire_text(Agent::ClaudeCode, None, &o).unwrap();
    assert!(text.contains("\"command\": \"/usr/local/bin/airlock hook claude-code\""));
}

#[test]
fn unwire_text_pure_layer() {
    for agent in SUPPORTED {
        let bin = Path::new(BIN);
        let fresh = wire_text(agent, None, &opts("s")).unwrap();
        assert_eq!(unwire_text(agent, &fresh, bin).unwrap(), None, "{agent}");
        let wired = wire_text(agent, Some(&fixture(agent)), &opts("s")).unwrap();
        let stripped = unwire_text(agent, &wired, bin).unwrap().unwrap();
        assert_eq!(value(&stripped), value(&fixture(agent)), "{agent}");
        // Nothing of ours: returned as is.
        assert_eq!(
            unwire_text(agent, &fixture(agent), bin).unwrap(),
            Some(fixture(agent))
        );
        assert!(matches!(
            unwire_text(agent, "{oops", bin),
            Err(WireError::Parse { .. })
        ));
    }
}

#[test]
fn installed_detection() {
    let home = tempfile::tempdir().unwrap();
    for a in Agent::ALL {
        assert!(!is_installed(a, home.path()), "{a}");
    }
    for d in [
        ".claude",
        ".cursor",
        ".codex",
        ".gemini",
        ".copilot",
        ".vscode",
        ".codeium/windsurf",
        "Documents/Cline",
        ".config/opencode",
        ".kiro",
    ] {
        fs::create_dir_all(home.path().join(d)).unwrap();
    }
    for a in Agent::ALL {
        assert!(is_installed(a, home.path()), "{a}");
    }
}

#[test]
fn windsurf_entries_are_flat_and_keep_the_users_hooks() {
    let home = tempfile::tempdir().unwrap();
    let path = config_path(Agent::Windsurf, home.path());
    assert_eq!(path, home.path().join(".codeium/windsurf/hooks.json"));
    write_file(&path, &fixture(Agent::Windsurf));
    wire(Agent::Windsurf, home.path(), &opts("s")).unwrap();
    let v = value(&fs::read_to_string(&path).unwrap());
    for event in events(Agent::Windsurf) {
        let list = v["hooks"][*event].as_array().unwrap();
        let ours: Vec<_> = list
            .iter()
            .filter(|h| h["command"] == quoted_command(Agent::Windsurf))
            .collect();
        assert_eq!(ours.len(), 1, "{event}");
        assert_eq!(ours[0]["show_output"], false);
        assert!(ours[0].get("matcher").is_none() && ours[0].get("timeout").is_none());
    }
    // The user's own pre_run_command hook runs before Airlock's, as it did.
    let pre = v["hooks"]["pre_run_command"].as_array().unwrap();
    assert_eq!(pre[0]["command"], "python3 /home/u/.windsurf/log.py");
    unwire(Agent::Windsurf, home.path(), &opts("s")).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), fixture(Agent::Windsurf));
}

fn cline_dir(home: &Path) -> PathBuf {
    home.join("Documents/Cline/Hooks")
}

const CLINE_EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "UserPromptSubmit"];

#[test]
fn cline_hook_files_are_written_marked_executable_and_removed() {
    let home = tempfile::tempdir().unwrap();
    let bin = Path::new(BIN);
    assert_eq!(
        config_path(Agent::Cline, home.path()),
        cline_dir(home.path())
    );
    assert!(!is_installed(Agent::Cline, home.path()));
    assert!(!is_wired(Agent::Cline, home.path(), bin).unwrap());
    // A hook of the user's own for another event is left alone.
    let theirs = cline_dir(home.path()).join("TaskStart");
    write_file(&theirs, "#!/bin/sh\necho '{}'\n");
    assert!(is_installed(Agent::Cline, home.path()));

    let r = wire(Agent::Cline, home.path(), &opts("s")).unwrap();
    assert!(r.changed && r.backup.is_none());
    let script = airlock_wire::hook_script(Agent::Cline, bin)
        .unwrap()
        .unwrap();
    for e in CLINE_EVENTS {
        let p = cline_dir(home.path()).join(e);
        assert_eq!(fs::read_to_string(&p).unwrap(), script, "{e}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o755
            );
        }
    }
    assert!(is_wired(Agent::Cline, home.path(), bin).unwrap());
    assert!(!is_wired(Agent::Cline, home.path(), Path::new("/usr/bin/airlock")).unwrap());
    // Idempotent.
    assert!(
        !wire(Agent::Cline, home.path(), &opts("s2"))
            .unwrap()
            .changed
    );

    unwire(Agent::Cline, home.path(), &opts("s")).unwrap();
    for e in CLINE_EVENTS {
        assert!(!cline_dir(home.path()).join(e).exists(), "{e}");
    }
    assert_eq!(
        fs::read_to_string(&theirs).unwrap(),
        "#!/bin/sh\necho '{}'\n"
    );
    assert!(matches!(
        unwire(Agent::Cline, home.path(), &opts("s")),
        Err(WireError::NotWired { .. })
    ));
}

#[test]
fn cline_never_replaces_a_users_hook_and_writes_nothing_then() {
    let home = tempfile::tempdir().unwrap();
    let mine = cline_dir(home.path()).join("PostToolUse");
    write_file(&mine, "#!/bin/sh\n./lint.sh\necho '{\"cancel\": false}'\n");
    let e = wire(Agent::Cline, home.path(), &opts("s")).unwrap_err();
    assert!(matches!(e, WireError::Parse { .. }), "{e}");
    assert!(e.to_string().contains("left untouched"), "{e}");
    assert_eq!(
        fs::read_to_string(&mine).unwrap(),
        "#!/bin/sh\n./lint.sh\necho '{\"cancel\": false}'\n"
    );
    // Not even the free slots were written.
    assert!(!cline_dir(home.path()).join("PreToolUse").exists());
    assert!(!cline_dir(home.path()).join("UserPromptSubmit").exists());
}

#[test]
fn cline_rewire_for_another_binary_keeps_a_backup() {
    let home = tempfile::tempdir().unwrap();
    let old = WireOptions {
        airlock_bin: PathBuf::from("/usr/local/bin/airlock"),
        timeout_secs: 30,
        stamp: "old".into(),
    };
    wire(Agent::Cline, home.path(), &old).unwrap();
    let r = wire(Agent::Cline, home.path(), &opts("new")).unwrap();
    assert!(r.changed);
    let pre = cline_dir(home.path()).join("PreToolUse");
    assert_eq!(backups(&pre).len(), 1);
    assert!(
        fs::read_to_string(&backups(&pre)[0])
            .unwrap()
            .contains("/usr/local/bin/airlock hook cline")
    );
    assert!(is_wired(Agent::Cline, home.path(), Path::new(BIN)).unwrap());
    // The old binary's unwire finds nothing of its own left.
    assert!(matches!(
        unwire(Agent::Cline, home.path(), &old),
        Err(WireError::NotWired { .. })
    ));
}

#[test]
fn opencode_plugin_file_is_written_kept_and_removed_exactly() {
    let home = tempfile::tempdir().unwrap();
    let path = config_path(Agent::OpenCode, home.path());
    assert!(path.ends_with(".config/opencode/plugins/airlock.js"));
    let first = wire(Agent::OpenCode, home.path(), &opts("1")).unwrap();
    assert!(first.changed);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"tool.execute.before\""), "{text}");
    assert!(
        text.contains(&format!("[ \"{BIN}\", \"hook\", \"opencode\" ]")),
        "{text}"
    );
    assert!(is_wired(Agent::OpenCode, home.path(), Path::new(BIN)).unwrap());
    // Idempotent.
    assert!(
        !wire(Agent::OpenCode, home.path(), &opts("2"))
            .unwrap()
            .changed
    );
    unwire(Agent::OpenCode, home.path(), &opts("3")).unwrap();
    assert!(!path.exists());
    assert!(matches!(
        unwire(Agent::OpenCode, home.path(), &opts("4")),
        Err(WireError::NotWired { .. })
    ));
    // A plugin of the user's own with that name is never replaced, nor removed.
    write_file(&path, "export default async () => ({})\n");
    assert!(matches!(
        wire(Agent::OpenCode, home.path(), &opts("5")),
        Err(WireError::Parse { .. })
    ));
    assert!(unwire(Agent::OpenCode, home.path(), &opts("6")).is_err());
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "export default async () => ({})\n"
    );
}
