//! Learned baselines, as values: what an agent usually does (behaviour) and how a user
//! usually writes (style). The caller keeps them (in the store) and hands the engine a
//! p-value through [`crate::CallFacts`]; the engine only ever *raises* because of one.
//!
//! Both score a new observation by how surprising it is and turn the score into an
//! empirical-CDF p-value over the scores already seen: `p = (1 + #{past ≥ s}) / (1 + n)`.
//! Before a baseline is mature (enough history) there is no p-value at all, so nothing steps
//! up on a fresh install. Neither baseline keeps text: behaviour keeps counts of coarse
//! feature strings (operation, tool, program, path class, destination class), style keeps six
//! numbers per turn ([`crate::injection::style_figures`]).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

/// Events a behaviour baseline needs before it yields a p-value.
pub const BEHAVIOUR_MATURE: u64 = 200;
/// Turns a style baseline needs before it yields a p-value. An empirical p-value is never
/// below `1 / (n + 1)`, so maturity is set where the step-up threshold (0.01) is reachable.
pub const STYLE_MATURE: usize = 100;
/// Past scores a behaviour baseline needs (its step-up threshold is 0.005, reachable from
/// `1 / (200 + 1)`).
pub const BEHAVIOUR_MATURE_SCORES: usize = 200;
/// Most past scores kept for the empirical CDF.
pub const MAX_SCORES: usize = 1000;
/// Most distinct feature strings one behaviour baseline counts.
pub const MAX_FEATURES: usize = 4096;
/// Most style samples kept.
pub const MAX_STYLE_SAMPLES: usize = 500;
/// Scores are only kept once the baseline has seen this many events (early events are all
/// novel and would make later novelty look ordinary).
const WARMUP: u64 = 50;

/// Empirical-CDF p-value of `s` among `past` (higher score = more surprising).
fn ecdf_p(past: impl Iterator<Item = f64>, s: f64) -> f64 {
    let (mut n, mut ge) = (0u64, 0u64);
    for x in past {
        n += 1;
        if x >= s {
            ge += 1;
        }
    }
    (1 + ge) as f64 / (1 + n) as f64
}

/// What an agent usually does in one project: counts of coarse features.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BehaviourBaseline {
    /// Events learned.
    pub events: u64,
    /// Feature string → times seen.
    pub counts: BTreeMap<String, u64>,
    /// Surprise scores of past events (after the warm-up), most recent last.
    pub scores: VecDeque<f64>,
}

impl BehaviourBaseline {
    /// Surprise of a set of features: the sum of each feature's self-information under the
    /// counts so far (add-½ smoothing), so a never-seen program or destination class scores
    /// high and routine work scores near zero.
    pub fn surprise(&self, features: &[String]) -> f64 {
        let total = self.events as f64 + 1.0;
        features
            .iter()
            .map(|f| {
                let c = self.counts.get(f).copied().unwrap_or(0) as f64;
                -((c + 0.5) / total).min(1.0).ln()
            })
            .sum()
    }

    pub fn is_mature(&self) -> bool {
        self.events >= BEHAVIOUR_MATURE && self.scores.len() >= BEHAVIOUR_MATURE_SCORES
    }

    /// The p-value of these features, or `None` while the baseline is immature.
    pub fn p_value(&self, features: &[String]) -> Option<f64> {
        if !self.is_mature() {
            return None;
        }
        let s = self.surprise(features);
        Some(ecdf_p(self.scores.iter().copied(), s))
    }

    /// Learn one event. Bounded: past [`MAX_FEATURES`] new features are not counted (they
    /// stay surprising, which only ever raises).
    pub fn learn(&mut self, features: &[String]) {
        let s = self.surprise(features);
        if self.events >= WARMUP {
            self.scores.push_back(s);
            while self.scores.len() > MAX_SCORES {
                self.scores.pop_front();
            }
        }
        self.events = self.events.saturating_add(1);
        for f in features {
            if let Some(c) = self.counts.get_mut(f) {
                *c = c.saturating_add(1);
            } else if self.counts.len() < MAX_FEATURES {
                self.counts.insert(f.clone(), 1);
            }
        }
    }
}

/// How one user usually writes their turns: recent style figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StyleBaseline {
    pub samples: VecDeque<[f64; 6]>,
}

impl StyleBaseline {
    pub fn is_mature(&self) -> bool {
        self.samples.len() >= STYLE_MATURE
    }

    fn stats(&self) -> ([f64; 6], [f64; 6]) {
        let n = self.samples.len().max(1) as f64;
        let mut mean = [0.0; 6];
        for s in &self.samples {
            for (m, x) in mean.iter_mut().zip(s) {
                *m += x / n;
            }
        }
        let mut sd = [0.0; 6];
        for s in &self.samples {
            for ((v, x), m) in sd.iter_mut().zip(s).zip(&mean) {
                *v += (x - m) * (x - m) / n;
            }
        }
        // A floor keeps a dimension that never varied from making every change extreme.
        for v in &mut sd {
            *v = v.sqrt().max(0.05);
        }
        (mean, sd)
    }

    fn score(x: &[f64; 6], mean: &[f64; 6], sd: &[f64; 6]) -> f64 {
        x.iter()
            .zip(mean)
            .zip(sd)
            .map(|((x, m), s)| ((x - m) / s).abs())
            .fold(0.0, f64::max)
    }

    /// The p-value of a turn's figures (largest per-figure z-score against the user's own
    /// history), or `None` while the baseline is immature.
    pub fn p_value(&self, figures: &[f64; 6]) -> Option<f64> {
        if !self.is_mature() || figures.iter().any(|f| !f.is_finite()) {
            return None;
        }
        let (mean, sd) = self.stats();
        let s = Self::score(figures, &mean, &sd);
        Some(ecdf_p(
            self.samples.iter().map(|x| Self::score(x, &mean, &sd)),
            s,
        ))
    }

    pub fn learn(&mut self, figures: [f64; 6]) {
        if figures.iter().any(|f| !f.is_finite()) {
            return;
        }
        self.samples.push_back(figures);
        while self.samples.len() > MAX_STYLE_SAMPLES {
            self.samples.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn behaviour_is_silent_until_mature_then_flags_only_the_unusual() {
        let mut b = BehaviourBaseline::default();
        let routine = [
            feats(&["op:shell", "prog:cargo", "write:project"]),
            feats(&["op:shell", "prog:git", "dest:none"]),
            feats(&["op:file_read", "read:project"]),
            feats(&["op:file_write", "write:project"]),
        ];
        let odd = feats(&["op:shell", "prog:scp", "read:secret", "dest:unknown"]);
        for i in 0..(BEHAVIOUR_MATURE as usize - 1) {
            b.learn(&routine[i % routine.len()]);
            assert_eq!(b.p_value(&odd), None, "immature at {i}");
        }
        for i in 0..200 {
            b.learn(&routine[i % routine.len()]);
        }
        assert!(b.is_mature());
        let p_odd = b.p_value(&odd).unwrap_or(1.0);
        let p_routine = b.p_value(&routine[0]).unwrap_or(0.0);
        assert!(p_odd < 0.01, "odd p = {p_odd}");
        assert!(p_routine > 0.2, "routine p = {p_routine}");
    }

    #[test]
    fn behaviour_is_bounded() {
        let mut b = BehaviourBaseline::default();
        for i in 0..(MAX_FEATURES + 50) {
            b.learn(&[format!("prog:p{i}")]);
        }
        assert!(b.counts.len() <= MAX_FEATURES);
        assert!(b.scores.len() <= MAX_SCORES);
    }

    #[test]
    fn style_flags_an_extreme_outlier_only_when_mature() {
        let mut s = StyleBaseline::default();
        let usual = |i: usize| [3.5 + (i % 5) as f64 * 0.1, 4.5, 0.03, 0.02, 0.0, 0.0];
        let weird = [7.5, 9.0, 0.30, 0.6, 0.2, 0.3];
        for i in 0..(STYLE_MATURE - 1) {
            s.learn(usual(i));
            assert_eq!(s.p_value(&weird), None);
        }
        for i in 0..100 {
            s.learn(usual(i));
        }
        assert!(s.p_value(&weird).unwrap_or(1.0) < 0.02);
        assert!(s.p_value(&usual(3)).unwrap_or(0.0) > 0.1);
        assert_eq!(s.p_value(&[f64::NAN; 6]), None);
    }
}
