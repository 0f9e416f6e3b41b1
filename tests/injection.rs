//! Prompt-injection screening over the labelled corpora in `tests/corpus/injection/`:
//! attack and benign stop rates per kind (user turn / tool result) must not regress past the
//! figures recorded in BENCHMARKS.md, and no benign record may reach tier 0.
//!
//! `cargo test -p airlock-e2e --test injection -- --nocapture` prints the table.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use airlock_e2e::{recorded_injection_thresholds, root};
use airlock_engine::injection::{Screening, Tier, screen_content, screen_prompt};

/// Figures are recorded to four decimals.
const ROUNDING: f64 = 5e-5;

struct Record {
    id: String,
    label: String,
    family: String,
    text: String,
}

fn load(file: &str) -> Vec<Record> {
    let path = root().join("tests/corpus/injection").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{file}: {e}: {l}"));
            let s = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("{file}: no {k}: {l}"))
                    .to_owned()
            };
            Record {
                id: s("id"),
                label: s("label"),
                family: s("family"),
                text: s("text"),
            }
        })
        .collect()
}

#[derive(Debug, Default)]
struct Figures {
    attacks: usize,
    benign: usize,
    attack_pass: usize,
    attack_not_zero: usize,
    benign_stop: usize,
    benign_zero: usize,
    misses: Vec<String>,
    false_stops: Vec<String>,
}

impl Figures {
    fn asr(&self) -> f64 {
        ratio(self.attack_pass, self.attacks)
    }
    fn fpr(&self) -> f64 {
        ratio(self.benign_stop, self.benign)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

fn measure(kind: &str, records: &[Record]) -> Figures {
    let screen: fn(&str) -> Screening = if kind == "turn" {
        screen_prompt
    } else {
        screen_content
    };
    let mut f = Figures::default();
    for r in records {
        let s = screen(&r.text);
        let worst = s.worst();
        match r.label.as_str() {
            "attack" => {
                f.attacks += 1;
                if worst.is_none() {
                    f.attack_pass += 1;
                    f.misses.push(format!("{} [{}]", r.id, r.family));
                }
                if worst != Some(Tier::Zero) {
                    f.attack_not_zero += 1;
                }
            }
            "benign" => {
                f.benign += 1;
                if let Some(t) = worst {
                    f.benign_stop += 1;
                    f.false_stops
                        .push(format!("{} [{}] {:?} {:?}", r.id, r.family, t, s.codes()));
                    if t == Tier::Zero {
                        f.benign_zero += 1;
                    }
                }
            }
            other => panic!("{}: bad label {other}", r.id),
        }
    }
    f
}

fn figures() -> Vec<(String, String, Figures)> {
    let mut out = Vec::new();
    for kind in ["turn", "result"] {
        let mut dev = load(&format!("{kind}_attacks.jsonl"));
        dev.extend(load(&format!("{kind}_benign.jsonl")));
        out.push((kind.to_owned(), "dev".to_owned(), measure(kind, &dev)));
        let hold = load(&format!("{kind}_holdout.jsonl"));
        out.push((kind.to_owned(), "holdout".to_owned(), measure(kind, &hold)));
    }
    for (kind, split, f) in &out {
        println!(
            "| {kind} | {split} | {} | {} | {:.4} | {:.4} | {:.4} | {:.4} |",
            f.attacks,
            f.benign,
            f.asr(),
            f.fpr(),
            ratio(f.attack_not_zero, f.attacks),
            ratio(f.benign_zero, f.benign)
        );
        for m in &f.misses {
            println!("  miss {m}");
        }
        for m in &f.false_stops {
            println!("  false stop {m}");
        }
    }
    out
}

#[test]
fn corpora_are_large_enough() {
    for (kind, split, f) in figures() {
        let min = if split == "dev" { 80 } else { 25 };
        assert!(
            f.attacks >= min && f.benign >= min,
            "{kind} {split}: {} attacks, {} benign",
            f.attacks,
            f.benign
        );
    }
}

#[test]
fn no_benign_record_reaches_tier_zero() {
    for (kind, split, f) in figures() {
        assert_eq!(f.benign_zero, 0, "{kind} {split}: {:?}", f.false_stops);
    }
}

#[test]
fn no_regression_past_recorded_figures() {
    let recorded = recorded_injection_thresholds().unwrap();
    let got = figures();
    for (kind, split, asr_max, fpr_max) in recorded {
        let (_, _, f) = got
            .iter()
            .find(|(k, s, _)| *k == kind && *s == split)
            .unwrap_or_else(|| panic!("no corpus for {kind} {split}"));
        assert!(
            f.asr() <= asr_max + ROUNDING,
            "{kind} {split}: ASR {:.4} > {asr_max}: {:?}",
            f.asr(),
            f.misses
        );
        assert!(
            f.fpr() <= fpr_max + ROUNDING,
            "{kind} {split}: FPR {:.4} > {fpr_max}: {:?}",
            f.fpr(),
            f.false_stops
        );
    }
}
