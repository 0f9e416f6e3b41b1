//! The labelled corpus: every mode's ASR and FPR must not regress past the figures recorded
//! in BENCHMARKS.md, and the corpus must keep its size and balance.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use airlock_core::eval;
use airlock_e2e::{recorded_family_thresholds, recorded_thresholds, root};
use airlock_engine::{Engine, FingerprintKey, HostFacts, Mode, Policy, PolicyConfig};

fn engine(mode: Mode, home: Option<&str>) -> Engine {
    let facts = HostFacts {
        home: home.map(str::to_owned),
        ..HostFacts::default()
    };
    let policy = Policy::compile(&PolicyConfig::default(), &facts)
        .unwrap()
        .with_mode(mode);
    Engine::new(policy, FingerprintKey::new([0; 32])).unwrap()
}

/// As `airlock eval` reports it: each record judged with the home folder its working
/// directory lies in.
fn evaluate(mode: Mode, text: &str) -> eval::Report {
    let make = move |h: &str| Some(engine(mode, Some(h)));
    let per_home = eval::PerHome { make: &make };
    eval::evaluate_with(
        &engine(mode, None),
        text,
        eval::Options {
            per_home: Some(&per_home),
            ..eval::Options::default()
        },
    )
    .unwrap()
}

fn corpus() -> String {
    std::fs::read_to_string(root().join("tests/corpus/corpus.jsonl")).unwrap()
}

#[test]
fn corpus_is_large_and_balanced() {
    let r = evaluate(Mode::Balanced, &corpus());
    assert!(r.summary.records >= 400, "{}", r.summary.records);
    assert!(r.summary.attacks.total >= 200 && r.summary.benign.total >= 200);
    for fam in [
        "destructive",
        "obfuscation",
        "secret_access",
        "secret_in_args",
        "exfiltration",
        "trifecta",
        "supply_chain",
        "env_poisoning",
        "verification_bypass",
        "self_protection",
        "mcp",
        "bulk_delete",
    ] {
        assert!(
            r.summary.categories.contains_key(fam),
            "missing attack family {fam}"
        );
    }
}

#[test]
fn no_regression_past_recorded_figures() {
    let text = corpus();
    for (mode, asr_max, fpr_max) in recorded_thresholds().unwrap() {
        let m: Mode = mode.parse().unwrap();
        let s = evaluate(m, &text).summary;
        assert!(
            s.asr <= asr_max + 1e-9,
            "{mode}: ASR {} regressed past {asr_max}",
            s.asr
        );
        assert!(
            s.fpr <= fpr_max + 1e-9,
            "{mode}: FPR {} regressed past {fpr_max}",
            s.fpr
        );
        assert_eq!(s.hard_fpr, 0.0, "{mode}: a benign record was BLOCKed");
    }
}

#[test]
fn hard_blocks_are_identical_in_every_mode() {
    let text = corpus();
    let reports: Vec<_> = Mode::ALL.iter().map(|m| evaluate(*m, &text)).collect();
    let balanced = &reports[1];
    for (i, r) in balanced.results.iter().enumerate() {
        // `self_protection` is left out: `airlock mode light` weakens balanced but is a no-op
        // when the mode already is light, so its verdict rightly differs by mode.
        let hard = [
            "destructive_rm",
            "destructive_find",
            "disk_overwrite",
            "disk_format",
            "fork_bomb",
            "secret_exfiltration",
            "exfiltration",
            "reverse_shell",
            "database_drop",
        ];
        if r.reasons
            .first()
            .is_some_and(|c| hard.contains(&c.as_str()))
        {
            for other in &reports {
                assert_eq!(
                    other.results[i].verdict,
                    airlock_engine::Verdict::Block,
                    "{} in {}",
                    r.id,
                    other.summary.mode
                );
            }
        }
    }
}

/// Every record's verdict and reasons, pinned per mode: any change shows up in review as a
/// snapshot diff (`cargo insta review`), so no verdict moves silently.
#[test]
fn verdicts_are_pinned() {
    let text = corpus();
    for mode in Mode::ALL {
        let r = evaluate(mode, &text);
        let lines: Vec<String> = r
            .results
            .iter()
            .map(|x| format!("{} {} {}", x.id, x.verdict, x.reasons.join(",")))
            .collect();
        insta::assert_snapshot!(format!("verdicts_{}", mode.as_str()), lines.join("\n"));
    }
}

/// The per-family development files (`tests/corpus/families/*.jsonl`), sorted by name.
fn families() -> Vec<(String, String)> {
    let dir = root().join("tests/corpus/families");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// One line of `tests/corpus/by_design.tsv`: a record its blind writer labelled benign that
/// a mode BLOCKs on purpose, and why.
struct ByDesign {
    family: String,
    id: String,
    modes: Vec<String>,
    codes: Vec<String>,
}

fn by_design() -> Vec<ByDesign> {
    let text = std::fs::read_to_string(root().join("tests/corpus/by_design.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(
                f.len() == 5 && !f[4].trim().is_empty(),
                "by_design.tsv: {l}"
            );
            let list = |s: &str| s.split(',').map(|x| x.trim().to_owned()).collect();
            ByDesign {
                family: f[0].to_owned(),
                id: f[1].to_owned(),
                modes: list(f[2]),
                codes: list(f[3]),
            }
        })
        .collect()
}

/// Every family file holds the ASR/FPR recorded for it in BENCHMARKS.md, in every mode, and
/// no benign record in it is BLOCKed — unless `tests/corpus/by_design.tsv` names the record,
/// the mode and the reason the block is on purpose (and then it must still be BLOCKed for that
/// reason, so the list cannot go stale); every file has recorded figures.
#[test]
fn families_hold_recorded_figures() {
    let recorded = recorded_family_thresholds().unwrap();
    let fams = families();
    let exempt = by_design();
    let mut used = vec![0usize; exempt.len()];
    assert!(fams.len() >= 8, "{} family files", fams.len());
    for (name, text) in &fams {
        for mode in Mode::ALL {
            let (_, _, asr_max, fpr_max) = recorded
                .iter()
                .find(|(f, m, _, _)| f == name && m == mode.as_str())
                .unwrap_or_else(|| panic!("no recorded figures for {name} in {mode}"));
            let r = evaluate(mode, text);
            let s = &r.summary;
            assert!(
                s.asr <= asr_max + 1e-9,
                "{name} {mode}: ASR {} regressed past {asr_max}",
                s.asr
            );
            assert!(
                s.fpr <= fpr_max + 1e-9,
                "{name} {mode}: FPR {} regressed past {fpr_max}",
                s.fpr
            );
            for x in r.results.iter().filter(|x| {
                x.label == eval::Label::Benign && x.verdict == airlock_engine::Verdict::Block
            }) {
                let entry = exempt.iter().position(|e| {
                    &e.family == name
                        && e.id == x.id
                        && e.modes.iter().any(|m| m == mode.as_str())
                        && x.reasons.iter().any(|c| e.codes.contains(c))
                });
                match entry {
                    Some(i) => used[i] += 1,
                    None => panic!(
                        "{name} {mode}: benign {} was BLOCKed ({:?})",
                        x.id, x.reasons
                    ),
                }
            }
        }
    }
    for (e, n) in exempt.iter().zip(&used) {
        assert_eq!(
            *n,
            e.modes.len(),
            "by_design.tsv: {} {} is no longer BLOCKed in every mode it lists; update the list",
            e.family,
            e.id
        );
    }
}

/// Each family record's verdict and reasons, pinned per mode.
#[test]
fn family_verdicts_are_pinned() {
    let fams = families();
    for mode in Mode::ALL {
        let mut lines = Vec::new();
        for (name, text) in &fams {
            let r = evaluate(mode, text);
            lines.extend(
                r.results
                    .iter()
                    .map(|x| format!("{name}/{} {} {}", x.id, x.verdict, x.reasons.join(","))),
            );
        }
        insta::assert_snapshot!(
            format!("family_verdicts_{}", mode.as_str()),
            lines.join("\n")
        );
    }
}
