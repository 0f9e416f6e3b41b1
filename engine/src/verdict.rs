//! Verdicts, reasons and the one combine that orders them.

use serde::{Deserialize, Serialize};

use crate::policy::Enforcement;

/// The three verdicts, ordered so that `max` is the combine: BLOCK > AUTH > PASS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// Routine work: straight through.
    Pass,
    /// Sensitive: a human must approve before it runs.
    Auth,
    /// Dangerous: it never runs.
    Block,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Auth => "AUTH",
            Verdict::Block => "BLOCK",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stable reason: machine code plus a one-line explanation that never echoes the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reason {
    pub code: &'static str,
    pub message: &'static str,
}

impl Reason {
    pub const fn new(code: &'static str, message: &'static str) -> Self {
        Reason { code, message }
    }
}

/// One rule's opinion about an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finding {
    pub reason: Reason,
    pub verdict: Verdict,
    /// A hard block stays a block in every strictness mode and under `monitor`.
    pub hard: bool,
}

impl Finding {
    pub const fn new(reason: Reason, verdict: Verdict) -> Self {
        Finding {
            reason,
            verdict,
            hard: false,
        }
    }

    pub const fn hard_block(reason: Reason) -> Self {
        Finding {
            reason,
            verdict: Verdict::Block,
            hard: true,
        }
    }
}

/// A finding as reported to callers (owned strings, serialisable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasonReport {
    pub code: String,
    pub message: String,
    pub verdict: Verdict,
    pub hard: bool,
}

/// The engine's answer for one action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// What the rules say, before the enforcement dial.
    pub verdict: Verdict,
    /// What the caller must do, after the enforcement dial (`monitor` / `off`).
    pub effective: Verdict,
    /// Every non-PASS finding, strongest first, deduplicated by code.
    pub reasons: Vec<ReasonReport>,
    /// True when the action is high risk (lethal trifecta, repeat after a block): an approval
    /// needs a possession factor, not just a click.
    pub high_risk: bool,
    /// Where the untrusted content this session took in came from (names, never content),
    /// when that content is part of why the call was raised: every question names it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted_sources: Vec<String>,
}

impl Decision {
    /// Both judgements of one call (an MCP call and the built-in call it equals): the
    /// stronger verdict, every reason once (its strongest report), strongest first.
    pub fn merge(self, other: Decision) -> Decision {
        let mut reasons = self.reasons;
        for r in other.reasons {
            match reasons.iter_mut().find(|x| x.code == r.code) {
                Some(x) if (r.verdict, r.hard) > (x.verdict, x.hard) => *x = r,
                Some(_) => {}
                None => reasons.push(r),
            }
        }
        reasons.sort_by_key(|r| std::cmp::Reverse((r.verdict, r.hard)));
        let mut untrusted_sources = self.untrusted_sources;
        for s in other.untrusted_sources {
            if !untrusted_sources.contains(&s) {
                untrusted_sources.push(s);
            }
        }
        Decision {
            verdict: self.verdict.max(other.verdict),
            effective: self.effective.max(other.effective),
            reasons,
            high_risk: self.high_risk || other.high_risk,
            untrusted_sources,
        }
    }

    /// Reason codes, strongest first.
    pub fn codes(&self) -> Vec<&str> {
        self.reasons.iter().map(|r| r.code.as_str()).collect()
    }

    /// The sentence every question and denial adds when untrusted content is part of why
    /// the call was raised: where that content came from (names, never content).
    pub fn provenance(&self) -> Option<String> {
        if self.untrusted_sources.is_empty() {
            return None;
        }
        Some(format!(
            "This session took in untrusted content from {}.",
            self.untrusted_sources.join(", ")
        ))
    }

    /// The first reason's message, followed by [`Decision::provenance`].
    pub fn explain(&self) -> String {
        let first = self
            .reasons
            .first()
            .map(|r| r.message.clone())
            .unwrap_or_default();
        match self.provenance() {
            Some(p) if first.is_empty() => p,
            Some(p) => format!("{first} {p}"),
            None => first,
        }
    }
}

/// The single, exhaustive combine: the verdict is the maximum over all findings (any BLOCK
/// wins, then any AUTH, else PASS). No finding can lower another's verdict.
pub fn combine(findings: &[Finding]) -> Verdict {
    findings
        .iter()
        .map(|f| f.verdict)
        .max()
        .unwrap_or(Verdict::Pass)
}

/// Apply the enforcement dial to a combined verdict.
///
/// - `enforce`: the verdict stands.
/// - `monitor`: everything is recorded, only hard blocks still block.
/// - `off`: nothing is enforced.
pub fn apply_enforcement(verdict: Verdict, hard_block: bool, enforcement: Enforcement) -> Verdict {
    match enforcement {
        Enforcement::Enforce => verdict,
        Enforcement::Monitor => {
            if hard_block {
                Verdict::Block
            } else {
                Verdict::Pass
            }
        }
        Enforcement::Off => Verdict::Pass,
    }
}

/// Build the reported reasons: non-PASS findings, strongest first, one per code.
pub(crate) fn report(findings: &[Finding]) -> Vec<ReasonReport> {
    let mut sorted: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.verdict > Verdict::Pass)
        .collect();
    sorted.sort_by(|a, b| b.verdict.cmp(&a.verdict).then(b.hard.cmp(&a.hard)));
    let mut out: Vec<ReasonReport> = Vec::new();
    for f in sorted {
        if out.iter().any(|r| r.code == f.reason.code) {
            continue;
        }
        out.push(ReasonReport {
            code: f.reason.code.to_owned(),
            message: f.reason.message.to_owned(),
            verdict: f.verdict,
            hard: f.hard,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Reason = Reason::new("r", "r");

    #[test]
    fn combine_is_max() {
        let cases: &[(&[Verdict], Verdict)] = &[
            (&[], Verdict::Pass),
            (&[Verdict::Pass], Verdict::Pass),
            (&[Verdict::Pass, Verdict::Auth], Verdict::Auth),
            (
                &[Verdict::Block, Verdict::Pass, Verdict::Auth],
                Verdict::Block,
            ),
            (&[Verdict::Auth, Verdict::Auth], Verdict::Auth),
        ];
        for (input, want) in cases {
            let fs: Vec<Finding> = input.iter().map(|v| Finding::new(R, *v)).collect();
            assert_eq!(combine(&fs), *want, "{input:?}");
        }
    }

    #[test]
    fn enforcement_dial() {
        use Enforcement::*;
        let cases = [
            (Verdict::Block, true, Enforce, Verdict::Block),
            (Verdict::Block, false, Enforce, Verdict::Block),
            (Verdict::Auth, false, Enforce, Verdict::Auth),
            (Verdict::Block, true, Monitor, Verdict::Block),
            (Verdict::Block, false, Monitor, Verdict::Pass),
            (Verdict::Auth, false, Monitor, Verdict::Pass),
            (Verdict::Block, true, Off, Verdict::Pass),
            (Verdict::Auth, false, Off, Verdict::Pass),
        ];
        for (v, hard, e, want) in cases {
            assert_eq!(apply_enforcement(v, hard, e), want, "{v:?} {hard} {e:?}");
        }
    }
}
