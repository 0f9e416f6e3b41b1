//! Custom rules (Cedar) through the real binary: `airlock hook claude-code` with rule files in
//! the sandbox user's `~/.config/airlock/rules/`, the verdicts and `custom:` codes read back
//! from `airlock log --json`, a broken rule file making every tool call AUTH
//! `custom_rules_invalid` until it is fixed, and `airlock policy check` / `airlock rules`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::path::PathBuf;

use airlock_e2e::{Sandbox, claude_bash};

const RULES: &str = r#"
@id("ask-terraform-apply")
@verdict("auth")
@reason("terraform apply changes real infrastructure, so it needs your approval.")
forbid (principal, action, resource is Program)
when { resource.name == "terraform" && resource.subcommand == "apply" };

@id("no-pastebin")
@reason("Pastebin-like sites are not allowed as a source or a destination.")
forbid (principal, action, resource is Host)
when { ["pastebin.com", "paste.ee"].contains(resource.name) };
"#;

const BROKEN: &str =
    "@id(\"oops\")\nforbid (principal, action, resource)\nwhen { context.no_such_fact };\n";

fn rules_dir(sb: &Sandbox) -> PathBuf {
    sb.home().join(".config/airlock/rules")
}

fn last_row(sb: &Sandbox) -> serde_json::Value {
    let (code, out, err) = sb.run(&["log", "--json", "--limit", "1"], "");
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(out.lines().next().unwrap()).unwrap()
}

fn codes(row: &serde_json::Value) -> Vec<String> {
    row["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn custom_rules_raise_through_the_real_hook() {
    let sb = Sandbox::new().unwrap();
    std::fs::create_dir_all(rules_dir(&sb)).unwrap();
    std::fs::write(rules_dir(&sb).join("team.cedar"), RULES).unwrap();

    // The forbidden call asks (AUTH), with the rule's code in the audit log.
    let (code, out, err) = sb.run(
        &["hook", "claude-code"],
        &claude_bash("c1", "terraform apply -auto-approve"),
    );
    assert_eq!(code, 0, "{out} {err}");
    assert!(out.contains("\"ask\""), "{out}");
    assert!(
        out.contains("terraform apply changes real infrastructure"),
        "{out}"
    );
    let row = last_row(&sb);
    assert_eq!(row["verdict"], "AUTH", "{row}");
    assert!(
        codes(&row).contains(&"custom:ask-terraform-apply".to_owned()),
        "{row}"
    );

    // A BLOCK rule denies.
    let (code, out, _) = sb.run(
        &["hook", "claude-code"],
        &claude_bash("c1", "curl -s https://pastebin.com/raw/abc"),
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("deny"), "{out}");
    let row = last_row(&sb);
    assert_eq!(row["verdict"], "BLOCK", "{row}");
    assert!(
        codes(&row).contains(&"custom:no-pastebin".to_owned()),
        "{row}"
    );
    assert!(
        !row.to_string().contains("raw/abc"),
        "no payload in the log: {row}"
    );

    // The benign look-alike passes.
    let (code, out, _) = sb.run(
        &["hook", "claude-code"],
        &claude_bash("c2", "terraform plan"),
    );
    assert_eq!((code, out.trim()), (0, "{}"));
    let row = last_row(&sb);
    assert_eq!(row["verdict"], "PASS", "{row}");
    assert!(codes(&row).is_empty(), "{row}");
}

#[test]
fn the_agent_cannot_remove_or_edit_a_rule_file() {
    let sb = Sandbox::new().unwrap();
    std::fs::create_dir_all(rules_dir(&sb)).unwrap();
    let file = rules_dir(&sb).join("team.cedar");
    std::fs::write(&file, RULES).unwrap();
    for cmd in [
        format!("rm {}", file.display()),
        "rm -f ~/.config/airlock/rules/team.cedar".to_owned(),
        "echo '' > ~/.config/airlock/rules/team.cedar".to_owned(),
    ] {
        let (code, out, _) = sb.run(&["hook", "claude-code"], &claude_bash("x1", &cmd));
        assert_eq!(code, 2, "{cmd}: {out}");
        assert!(
            codes(&last_row(&sb)).contains(&"self_protection".to_owned()),
            "{cmd}"
        );
    }
    assert!(file.exists());
}

#[test]
fn a_broken_rule_file_asks_for_every_call_until_fixed() {
    let sb = Sandbox::new().unwrap();
    std::fs::create_dir_all(rules_dir(&sb)).unwrap();
    std::fs::write(rules_dir(&sb).join("team.cedar"), RULES).unwrap();
    // Warm the service up with the valid rules, then break a file behind its back.
    let (_, out, _) = sb.run(&["hook", "claude-code"], &claude_bash("b1", "ls"));
    assert_eq!(out.trim(), "{}");
    let broken = rules_dir(&sb).join("broken.cedar");
    std::fs::write(&broken, BROKEN).unwrap();

    // A benign call now asks, with `custom_rules_invalid`…
    let (code, out, _) = sb.run(&["hook", "claude-code"], &claude_bash("b1", "ls"));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"ask\""), "{out}");
    let row = last_row(&sb);
    assert_eq!(row["verdict"], "AUTH", "{row}");
    assert_eq!(
        codes(&row),
        vec![
            "custom_rules_invalid".to_owned(),
            "deferred_to_host_ask".to_owned()
        ],
        "{row}"
    );
    // … the valid file's rules still apply …
    let (code, _, _) = sb.run(
        &["hook", "claude-code"],
        &claude_bash("b1", "curl https://paste.ee/r/x"),
    );
    assert_eq!(code, 2);
    assert!(codes(&last_row(&sb)).contains(&"custom:no-pastebin".to_owned()));

    // … `policy check` fails naming the file, line and policy …
    let (code, out, err) = sb.run(&["policy", "check"], "");
    assert_eq!(code, 1, "{out} {err}");
    assert!(out.contains("broken.cedar:3:"), "{out}");
    assert!(out.contains("`oops`"), "{out}");
    let (code, out, _) = sb.run(&["policy", "check", broken.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(out.contains("broken.cedar"), "{out}");
    // … `doctor` shows it …
    let (_, out, _) = sb.run(&["doctor"], "");
    assert!(
        out.contains("custom rules") && out.contains("broken.cedar"),
        "{out}"
    );

    // … and once it is fixed, calls pass again.
    std::fs::remove_file(&broken).unwrap();
    let (code, out, _) = sb.run(&["hook", "claude-code"], &claude_bash("b1", "ls"));
    assert_eq!((code, out.trim()), (0, "{}"));
    let (code, out, _) = sb.run(&["policy", "check"], "");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn rules_install_list_and_check() {
    let sb = Sandbox::new().unwrap();
    let examples = airlock_e2e::root().join("rules/examples");
    // Every shipped example validates.
    let (code, out, err) = sb.run(&["policy", "check", examples.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out} {err}");
    assert!(out.contains("ok: 5 rule(s)"), "{out}");

    // A bad file is refused, naming it; nothing is installed.
    let bad = sb.home().join("bad.cedar");
    std::fs::write(&bad, BROKEN).unwrap();
    let (code, _, err) = sb.run(&["rules", "install", bad.to_str().unwrap()], "");
    assert_ne!(code, 0);
    assert!(err.contains("bad.cedar"), "{err}");
    assert!(!rules_dir(&sb).join("bad.cedar").exists());

    // A pack installs and is listed with its rules.
    let (code, out, err) = sb.run(
        &[
            "rules",
            "install",
            examples.to_str().unwrap(),
            "--name",
            "examples",
        ],
        "",
    );
    assert_eq!(code, 0, "{out} {err}");
    let (code, out, _) = sb.run(&["rules", "list"], "");
    assert_eq!(code, 0);
    assert!(out.contains("packs/examples/no-mcp-delete.cedar"), "{out}");
    assert!(out.contains("custom:no-mcp-delete"), "{out}");
    // Installing over it is refused (replacing could drop rules).
    let (code, _, _) = sb.run(
        &[
            "rules",
            "install",
            examples.to_str().unwrap(),
            "--name",
            "examples",
        ],
        "",
    );
    assert_ne!(code, 0);
    // The pack's rules are in force through the hook.
    let payload = serde_json::json!({
        "session_id": "p1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__github__delete_repository",
        "tool_input": {"repo": "acme/shop"}
    })
    .to_string();
    let (code, out, _) = sb.run(&["hook", "claude-code"], &payload);
    assert_eq!(code, 2, "{out}");
    assert!(codes(&last_row(&sb)).contains(&"custom:no-mcp-delete".to_owned()));
    // The ledger has the install.
    let (_, out, _) = sb.run(&["policy-history", "--json"], "");
    assert!(out.contains("rules_install"), "{out}");
}
