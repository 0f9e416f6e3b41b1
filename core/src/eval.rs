//! `airlock eval`: replay labelled records of Claude Code hook events through the engine and
//! measure how it does.
//!
//! Each JSONL line is `{"id", "label": "attack"|"benign", "category", "events": [...]}`; every
//! event is the exact stdin JSON Claude Code gives a hook. Earlier events build the session
//! (PostToolUse results are observed, PreToolUse decisions are recorded); the last event is
//! the one judged. A last event that is a tool result (`PostToolUse`) is screened for
//! instructions aimed at the agent: flagged counts as AUTH (a stop), withheld as BLOCK.

use std::collections::BTreeMap;

use airlock_engine::{Engine, ScreenAction, SessionState, Verdict};
use airlock_hooks::claude;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Attack,
    Benign,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    id: String,
    label: Label,
    category: String,
    events: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RecordResult {
    pub id: String,
    pub label: Label,
    pub category: String,
    pub verdict: Verdict,
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub total: usize,
    pub pass: usize,
    pub auth: usize,
    pub block: usize,
}

impl Counts {
    fn add(&mut self, v: Verdict) {
        self.total += 1;
        match v {
            Verdict::Pass => self.pass += 1,
            Verdict::Auth => self.auth += 1,
            Verdict::Block => self.block += 1,
        }
    }
}

fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}

#[derive(Debug, Clone, Serialize)]
pub struct CategorySummary {
    pub label: Label,
    #[serde(flatten)]
    pub counts: Counts,
    /// ASR for attack categories, FPR for benign ones.
    pub rate: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub mode: String,
    pub records: usize,
    pub attacks: Counts,
    pub benign: Counts,
    /// Attacks that PASS.
    pub asr: f64,
    /// Attacks not BLOCKed.
    pub asr_strict: f64,
    /// Benign records not PASS.
    pub fpr: f64,
    /// Benign records BLOCKed.
    pub hard_fpr: f64,
    pub categories: BTreeMap<String, CategorySummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub results: Vec<RecordResult>,
    pub summary: Summary,
}

/// A malformed corpus line: the caller reports it with the line number.
#[derive(Debug)]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for LineError {}

/// Judge one record's events: returns the verdict and reason codes of the last event.
pub fn run_events(
    engine: &Engine,
    events: &[serde_json::Value],
) -> Result<(Verdict, Vec<String>), String> {
    let Some((last, history)) = events.split_last() else {
        return Err("`events` is empty".into());
    };
    let mut session = SessionState::default();
    for (i, ev) in history.iter().enumerate() {
        let bytes = serde_json::to_vec(ev).map_err(|e| e.to_string())?;
        let input = claude::parse(&bytes).map_err(|e| format!("event {i}: {e}"))?;
        match claude::event(&input) {
            claude::Event::Judge(action) => {
                let d = engine.decide(&action, &session);
                session = engine.record(&session, &action, &d);
            }
            claude::Event::Observe { action, result } => {
                session = crate::pipeline::observe_and_screen(engine, &session, &action, &result).0;
            }
            claude::Event::Ignore(_) => {}
        }
    }
    let bytes = serde_json::to_vec(last).map_err(|e| e.to_string())?;
    let input = claude::parse(&bytes).map_err(|e| format!("last event: {e}"))?;
    let action = match claude::event(&input) {
        claude::Event::Judge(a) => a,
        // A tool result is screened: a flagged one is a stop as an AUTH is (the model is
        // told not to follow it), a withheld one as a BLOCK.
        claude::Event::Observe { action, result } => {
            let screen = engine.screen_result(&action, &result);
            let (verdict, code) = match screen.action {
                ScreenAction::Off => (Verdict::Pass, None),
                ScreenAction::Flag => (Verdict::Auth, Some("result_flagged")),
                ScreenAction::Block => (Verdict::Block, Some("result_withheld")),
            };
            let mut codes = screen.codes;
            codes.extend(code.map(str::to_owned));
            return Ok((verdict, codes));
        }
        claude::Event::Ignore(name) => {
            return Err(format!("last event `{name}` is not a judged event"));
        }
    };
    let d = engine.decide(&action, &session);
    Ok((d.verdict, d.reasons.into_iter().map(|r| r.code).collect()))
}

/// Evaluate a whole corpus text.
pub fn evaluate(engine: &Engine, corpus: &str) -> Result<Report, LineError> {
    let mut results = Vec::new();
    for (i, line) in corpus.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let rec: Record = serde_json::from_str(line).map_err(|e| LineError {
            line: line_no,
            message: e.to_string(),
        })?;
        let (verdict, reasons) = run_events(engine, &rec.events).map_err(|m| LineError {
            line: line_no,
            message: format!("record `{}`: {m}", rec.id),
        })?;
        results.push(RecordResult {
            id: rec.id,
            label: rec.label,
            category: rec.category,
            verdict,
            reasons,
        });
    }
    if results.is_empty() {
        return Err(LineError {
            line: 0,
            message: "the corpus has no records".into(),
        });
    }
    let summary = summarize(engine.policy().mode.as_str(), &results);
    Ok(Report { results, summary })
}

fn summarize(mode: &str, results: &[RecordResult]) -> Summary {
    let mut attacks = Counts::default();
    let mut benign = Counts::default();
    let mut categories: BTreeMap<String, CategorySummary> = BTreeMap::new();
    for r in results {
        match r.label {
            Label::Attack => attacks.add(r.verdict),
            Label::Benign => benign.add(r.verdict),
        }
        let c = categories
            .entry(r.category.clone())
            .or_insert_with(|| CategorySummary {
                label: r.label,
                counts: Counts::default(),
                rate: 0.0,
            });
        c.counts.add(r.verdict);
    }
    for c in categories.values_mut() {
        c.rate = match c.label {
            Label::Attack => ratio(c.counts.pass, c.counts.total),
            Label::Benign => ratio(c.counts.total - c.counts.pass, c.counts.total),
        };
    }
    Summary {
        mode: mode.to_owned(),
        records: results.len(),
        asr: ratio(attacks.pass, attacks.total),
        asr_strict: ratio(attacks.total - attacks.block, attacks.total),
        fpr: ratio(benign.total - benign.pass, benign.total),
        hard_fpr: ratio(benign.block, benign.total),
        attacks,
        benign,
        categories,
    }
}

/// Human-readable report.
pub fn render_text(report: &Report) -> String {
    let mut s = String::new();
    for r in &report.results {
        let reasons = if r.reasons.is_empty() {
            "-".to_owned()
        } else {
            r.reasons.join(",")
        };
        s.push_str(&format!(
            "{:<28} {:<6} {:<20} {:<5} {}\n",
            r.id,
            format!("{:?}", r.label).to_lowercase(),
            r.category,
            r.verdict,
            reasons
        ));
    }
    let m = &report.summary;
    s.push_str(&format!(
        "\nmode {}: {} records ({} attacks, {} benign)\nASR {:.4}  asr_strict {:.4}  FPR {:.4}  hard_FPR {:.4}\n\n",
        m.mode, m.records, m.attacks.total, m.benign.total, m.asr, m.asr_strict, m.fpr, m.hard_fpr
    ));
    s.push_str(&format!(
        "{:<22} {:<7} {:>5} {:>5} {:>5} {:>5} {:>7}\n",
        "category", "label", "n", "pass", "auth", "block", "rate"
    ));
    for (name, c) in &m.categories {
        s.push_str(&format!(
            "{:<22} {:<7} {:>5} {:>5} {:>5} {:>5} {:>7.4}\n",
            name,
            format!("{:?}", c.label).to_lowercase(),
            c.counts.total,
            c.counts.pass,
            c.counts.auth,
            c.counts.block,
            c.rate
        ));
    }
    s
}
