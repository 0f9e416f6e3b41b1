#![allow(clippy::unwrap_used)]

use airlock_engine::{
    Action, Engine, FingerprintKey, Host, HostFacts, Operation, Policy, PolicyConfig, Provenance,
    SessionState, Verdict,
};

use super::*;
use crate::pipeline;

const HOME: &str = "/home/dev";
const PROJECT: &str = "/home/dev/shop";

fn engine() -> Engine {
    let facts = HostFacts {
        home: Some(HOME.into()),
        ..HostFacts::default()
    };
    let policy = Policy::compile(&PolicyConfig::default(), &facts).unwrap();
    Engine::new(policy, FingerprintKey::new([7; 32])).unwrap()
}

fn shell_in(cwd: &str, cmd: &str) -> Action {
    Action {
        host: Host::ClaudeCode,
        tool: "Bash".to_owned(),
        op: Operation::Shell {
            command: cmd.to_owned(),
        },
        cwd: Some(cwd.to_owned()),
        provenance: Provenance::User,
        session_id: Some("s".to_owned()),
    }
}

fn shell(cmd: &str) -> Action {
    shell_in(PROJECT, cmd)
}

/// The decision as the service makes it, with these allow rules, at `now`.
fn judged(e: &Engine, rules: &[AllowRule], a: &Action, now: u64) -> Decision {
    let s = SessionState::default();
    let mut d = e.decide(a, &s);
    pipeline::apply_allow_rules(rules, &mut d);
    pipeline::apply_scoped_rules(e, rules, a, &s, &Default::default(), &mut d, now);
    d
}

fn proposals_of(e: &Engine, a: &Action) -> Vec<Proposal> {
    let s = SessionState::default();
    let d = e.decide(a, &s);
    assert_eq!(d.effective, Verdict::Auth, "{a:?} should ask");
    proposals_for(e, a, &s, &Default::default(), &d)
}

#[test]
fn every_proposal_releases_the_call_it_was_made_for() {
    let e = engine();
    for cmd in [
        "git reset --hard HEAD~3",
        "curl -X DELETE https://api.example.com/v1/users/3",
        "kubectl delete pod web-1 -n prod",
    ] {
        let a = shell(cmd);
        let props = proposals_of(&e, &a);
        assert!(!props.is_empty(), "{cmd}: no proposal");
        for p in &props {
            let d = judged(&e, std::slice::from_ref(&p.rule), &a, 1_000);
            assert_eq!(
                d.effective,
                Verdict::Pass,
                "{cmd}: {} does not cover it",
                p.label
            );
            p.rule.scope.as_ref().unwrap().validate().unwrap();
        }
    }
}

#[test]
fn the_narrowest_proposal_is_bound_to_program_project_reasons_and_destination() {
    let e = engine();
    let a = shell("curl -X DELETE https://api.example.com/v1/users/3");
    let narrow = proposals_of(&e, &a).remove(0).rule;
    let s = narrow.scope.as_ref().unwrap();
    assert_eq!(s.project.as_deref(), Some(PROJECT));
    // `curl -X DELETE …`: the engine reads the method as curl's subcommand.
    assert_eq!(s.programs, ["curl DELETE"]);
    assert_eq!(s.hosts, ["api.example.com"]);
    assert_eq!(s.reasons, ["remote_http_delete"]);
    assert_eq!(s.expires_at, None);
    // Nearest look-alikes it must not release: another host, another project, another
    // program, a second program riding along.
    for other in [
        shell("curl -X DELETE https://api.other.example/v1/users/3"),
        shell_in(
            "/home/dev/bank",
            "curl -X DELETE https://api.example.com/v1/users/3",
        ),
        shell("wget --method=DELETE https://api.example.com/v1/users/3"),
        shell(
            "curl -X DELETE https://api.example.com/v1/users/3; curl -X DELETE https://evil.example/x",
        ),
    ] {
        let d = judged(&e, std::slice::from_ref(&narrow), &other, 1_000);
        assert_ne!(d.effective, Verdict::Pass, "{other:?} was released");
    }
}

#[test]
fn a_scoped_rule_never_releases_a_block_a_new_reason_or_after_it_expired() {
    let e = engine();
    let a = shell("git reset --hard HEAD~3");
    let mut rule = proposals_of(&e, &a).remove(0).rule;
    if let Some(s) = rule.scope.as_mut() {
        s.expires_at = Some(2_000);
    }
    assert_eq!(
        judged(&e, std::slice::from_ref(&rule), &a, 1_999).effective,
        Verdict::Pass
    );
    // Expired.
    assert_eq!(
        judged(&e, std::slice::from_ref(&rule), &a, 2_000).effective,
        Verdict::Auth
    );
    // Same program, a hard block on top: still BLOCK.
    let worse = shell("git reset --hard HEAD~3 && rm -rf ~");
    assert_eq!(
        judged(&e, std::slice::from_ref(&rule), &worse, 1_000).effective,
        Verdict::Block
    );
    // A reason the rule does not name asks again (the program is the same).
    let forced = shell("git push --force-with-lease origin main && git reset --hard HEAD~1");
    assert_ne!(
        judged(&e, std::slice::from_ref(&rule), &forced, 1_000).effective,
        Verdict::Pass
    );
}

fn summary_with(paths: &[&str], hosts: &[&str], programs: &[(&str, &str)]) -> CallSummary {
    use airlock_engine::{CallKind, DestinationUse, PathTouch, ProgramUse};
    CallSummary {
        agent: "claude-code".into(),
        kind: CallKind::Shell,
        tool: "Bash".into(),
        cwd: PROJECT.into(),
        programs: programs
            .iter()
            .map(|(n, s)| ProgramUse {
                name: (*n).into(),
                subcommand: (*s).into(),
                args: Vec::new(),
            })
            .collect(),
        reads: Vec::new(),
        writes: paths
            .iter()
            .map(|p| PathTouch {
                path: (*p).into(),
                recursive: false,
            })
            .collect(),
        deletes: Vec::new(),
        destinations: hosts
            .iter()
            .map(|h| DestinationUse {
                host: (*h).into(),
                local: false,
                allowed: false,
                uploads: false,
                raw_socket: false,
            })
            .collect(),
        env_dump: false,
        mcp: None,
        tainted: false,
        secret_read: false,
        mode: "balanced".into(),
        truncated: false,
    }
}

fn auth(codes: &[&str]) -> Decision {
    Decision {
        verdict: Verdict::Auth,
        effective: Verdict::Auth,
        reasons: codes
            .iter()
            .map(|c| airlock_engine::ReasonReport {
                code: (*c).into(),
                message: String::new(),
                verdict: Verdict::Auth,
                hard: false,
            })
            .collect(),
        high_risk: false,
        untrusted_sources: Vec::new(),
    }
}

#[test]
fn every_listed_dimension_must_cover_all_of_the_call_not_one_part() {
    let scope = Scope {
        reasons: vec!["r".into()],
        programs: vec!["make build".into(), "cp".into()],
        paths: vec!["dist/**".into(), "/tmp/out/*".into()],
        hosts: vec!["*.example.com".into()],
        project: Some(PROJECT.into()),
        ..Scope::default()
    };
    let ok_paths = ["/home/dev/shop/dist/a.js", "/tmp/out/x"];
    let ok_hosts = ["cdn.example.com"];
    let ok_progs = [("make", "build"), ("cp", "")];
    let d = auth(&["r"]);
    // (what, summary, covered)
    let table: Vec<(&str, CallSummary, bool)> = vec![
        (
            "all inside",
            summary_with(&ok_paths, &ok_hosts, &ok_progs),
            true,
        ),
        (
            "one path outside",
            summary_with(
                &["/home/dev/shop/dist/a.js", "/home/dev/.bashrc"],
                &ok_hosts,
                &ok_progs,
            ),
            false,
        ),
        (
            "a relative glob does not reach outside the project",
            summary_with(&["/home/dev/other/dist/a.js"], &ok_hosts, &ok_progs),
            false,
        ),
        (
            "no path at all",
            summary_with(&[], &ok_hosts, &ok_progs),
            false,
        ),
        (
            "one host outside",
            summary_with(&ok_paths, &["cdn.example.com", "evil.example"], &ok_progs),
            false,
        ),
        (
            "suffix look-alike host",
            summary_with(&ok_paths, &["example.com.evil.io"], &ok_progs),
            false,
        ),
        (
            "another subcommand",
            summary_with(&ok_paths, &ok_hosts, &[("make", "deploy")]),
            false,
        ),
        (
            "an extra program",
            summary_with(&ok_paths, &ok_hosts, &[("make", "build"), ("curl", "")]),
            false,
        ),
    ];
    for (what, s, want) in table {
        assert_eq!(scope.covers(&s, &d, 0), want, "{what}");
    }
    let s = summary_with(&ok_paths, &ok_hosts, &ok_progs);
    assert!(
        !scope.covers(&s, &auth(&["r", "other"]), 0),
        "an unnamed reason"
    );
    let mut hr = auth(&["r"]);
    hr.high_risk = true;
    assert!(!scope.covers(&s, &hr, 0), "high risk");
    let mut hard = auth(&["r"]);
    hard.reasons[0].hard = true;
    assert!(!scope.covers(&s, &hard, 0), "a hard finding");
    let mut cut = s.clone();
    cut.truncated = true;
    assert!(!scope.covers(&cut, &d, 0), "not fully understood");
    let mut elsewhere = s;
    elsewhere.cwd = "/home/dev/shop-evil".into();
    assert!(
        !scope.covers(&elsewhere, &d, 0),
        "a sibling folder is not the project"
    );
}

#[test]
fn rules_that_cannot_be_scoped_are_refused_before_the_factor_is_asked() {
    let bad = [
        Scope {
            programs: vec!["git".into()],
            ..Scope::default()
        },
        Scope {
            reasons: vec!["r".into()],
            ..Scope::default()
        },
        Scope {
            reasons: vec!["r".into()],
            paths: vec!["src/**".into()],
            ..Scope::default()
        },
        Scope {
            reasons: vec!["r".into()],
            project: Some("relative/dir".into()),
            ..Scope::default()
        },
        Scope {
            reasons: vec!["r".into()],
            hosts: vec!["[unclosed".into()],
            ..Scope::default()
        },
        Scope {
            reasons: vec!["r".into()],
            programs: vec!["git push extra".into()],
            ..Scope::default()
        },
    ];
    for s in bad {
        assert!(s.validate().is_err(), "{s:?}");
    }
}

#[test]
fn expiries_parse_as_people_write_them() {
    for (text, secs) in [
        ("90m", 5_400),
        ("12h", 43_200),
        ("30d", 2_592_000),
        ("2w", 1_209_600),
    ] {
        assert_eq!(parse_expiry(text).unwrap(), secs, "{text}");
    }
    for bad in ["", "d", "10", "5y", "-3d", "0d", "99999999999999999999d"] {
        assert!(parse_expiry(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_older_rules_keep_their_identifiers() {
    let old = AllowRule {
        code: Some("unlisted_destination".into()),
        host: None,
        scope: None,
    };
    assert_eq!(
        serde_json::to_string(&old).unwrap(),
        r#"{"code":"unlisted_destination","host":null}"#
    );
    let parsed: AllowRule = serde_json::from_str(r#"{"code":"x","host":null}"#).unwrap();
    assert_eq!(parsed.scope, None);
}

#[test]
fn replay_shows_the_attacks_a_wide_rule_would_let_through_and_none_for_a_narrow_one() {
    let e = engine();
    let custom = CustomRules::empty();
    let wide = Scope {
        reasons: vec!["remote_http_delete".into()],
        programs: vec!["curl".into()],
        hosts: vec!["*".into()],
        ..Scope::default()
    };
    let r = replay(&e, &custom, &wide);
    assert!(r.records > 500, "{}", r.records);
    assert!(
        !r.attacks_released.is_empty(),
        "a wide curl rule releases known attacks"
    );
    let narrow = Scope {
        reasons: vec!["remote_http_delete".into()],
        programs: vec!["curl".into()],
        hosts: vec!["staging-api.shop.internal".into()],
        project: Some(PROJECT.into()),
        ..Scope::default()
    };
    assert!(replay(&e, &custom, &narrow).attacks_released.is_empty());
    let words = replay_words(&r).join("\n");
    assert!(words.contains("known attack"), "{words}");
}

#[test]
fn the_built_in_corpus_is_every_family_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/families");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".jsonl").map(str::to_owned))
        .collect();
    files.push("corpus".to_owned());
    files.sort();
    let mut built: Vec<String> = CORPUS.iter().map(|(n, _)| (*n).to_owned()).collect();
    built.sort();
    assert_eq!(built, files, "add the new family file to always::CORPUS");
}
