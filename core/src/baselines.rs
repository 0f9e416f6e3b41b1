//! The learned baselines of one user, kept in the store: what each agent usually does in each
//! project (behaviour) and how the user usually writes turns to each agent (style).
//!
//! The engine only ever *raises* because of a baseline ([`airlock_engine::CallFacts`] carries
//! the p-values in): a fresh, lost or damaged baseline is immature and simply adds no step-up.
//! Only released calls teach it (passed, approved, or answered in the host's own prompt), so a
//! blocked or denied call never becomes "usual". Rows hold counts of coarse features and six
//! numbers per turn, never text; the project is named by a keyed fingerprint of its directory.
//!
//! Writes are batched: dirty baselines are saved every [`FLUSH_EVERY`] updates and when the
//! owner asks ([`Baselines::flush`]); a crash loses at most that many lessons, which only
//! keeps a baseline less mature.

use std::collections::{BTreeSet, HashMap};

use airlock_engine::{
    Action, BehaviourBaseline, CallFacts, Engine, Operation, SessionState, StyleBaseline, injection,
};
use airlock_store::Store;

use crate::CoreError;

/// Settings-key prefix of a behaviour baseline (`baseline:behaviour:<host>:<project>`).
pub const BEHAVIOUR_PREFIX: &str = "baseline:behaviour:";
/// Settings-key prefix of a style baseline (`baseline:style:<host>`).
pub const STYLE_PREFIX: &str = "baseline:style:";
/// Dirty baselines are written after this many lessons.
pub const FLUSH_EVERY: u32 = 32;
/// Most baselines kept in memory per user (the least recently loaded go first; they stay in
/// the store).
const MAX_ENTITIES: usize = 512;

/// What one call is measured by, computed before it is judged and learned after it is
/// released.
#[derive(Debug, Clone, PartialEq)]
pub enum Observation {
    /// A tool call: its behaviour features, under this baseline key.
    Behaviour { key: String, features: Vec<String> },
    /// A user turn: its style figures, under this baseline key.
    Style { key: String, figures: [f64; 6] },
}

/// One user's baselines, loaded lazily from the store.
#[derive(Debug, Default)]
pub struct Baselines {
    behaviour: HashMap<String, BehaviourBaseline>,
    style: HashMap<String, StyleBaseline>,
    dirty: BTreeSet<String>,
    pending: u32,
}

fn behaviour_key(engine: &Engine, action: &Action) -> String {
    let project = action.cwd.as_deref().unwrap_or("");
    let fp = engine.key().fingerprint(&format!("project:{project}"));
    let short: String = fp.chars().take(24).collect();
    format!("{BEHAVIOUR_PREFIX}{}:{short}", action.host.as_str())
}

fn style_key(action: &Action) -> String {
    format!("{STYLE_PREFIX}{}", action.host.as_str())
}

impl Baselines {
    pub fn new() -> Baselines {
        Baselines::default()
    }

    /// What `action` is measured by (`None` for calls no baseline covers).
    pub fn observe(
        engine: &Engine,
        action: &Action,
        session: &SessionState,
        facts: &CallFacts,
    ) -> Option<Observation> {
        match &action.op {
            Operation::Prompt { text } if action.tool == airlock_engine::PROMPT_TOOL => {
                Some(Observation::Style {
                    key: style_key(action),
                    figures: injection::style_figures(text),
                })
            }
            _ => {
                let features = engine.behaviour_features(action, session, facts);
                if features.is_empty() {
                    None
                } else {
                    Some(Observation::Behaviour {
                        key: behaviour_key(engine, action),
                        features,
                    })
                }
            }
        }
    }

    fn load<T: serde::de::DeserializeOwned + Default>(store: &Store, key: &str) -> T {
        match store.setting(key) {
            Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_else(|_| {
                // Damaged: start again (immature, so it adds no step-up until it has
                // relearned; it never lowers anything).
                tracing::warn!("a learned baseline in the store is unreadable; relearning it");
                T::default()
            }),
            Ok(None) => T::default(),
            Err(e) => {
                tracing::warn!(code = e.code(), "a learned baseline could not be read");
                T::default()
            }
        }
    }

    fn make_room(&mut self) {
        if self.behaviour.len() + self.style.len() < MAX_ENTITIES {
            return;
        }
        // Keep dirty ones (they are written at the next flush); drop the rest.
        let dirty = &self.dirty;
        self.behaviour.retain(|k, _| dirty.contains(k));
        self.style.retain(|k, _| dirty.contains(k));
    }

    /// Loads the baselines `obs` names (from the store, once).
    fn ensure(&mut self, store: &Store, obs: &Observation) {
        let loaded = match obs {
            Observation::Behaviour { key, .. } => self.behaviour.contains_key(key),
            Observation::Style { key, .. } => self.style.contains_key(key),
        };
        if loaded {
            return;
        }
        self.make_room();
        match obs {
            Observation::Behaviour { key, .. } => {
                let b = Self::load(store, key);
                self.behaviour.insert(key.clone(), b);
            }
            Observation::Style { key, .. } => {
                let b = Self::load(store, key);
                self.style.insert(key.clone(), b);
            }
        }
    }

    /// Fill the baseline p-values of `facts` for this observation.
    pub fn score(&mut self, store: &Store, obs: &Observation, facts: &mut CallFacts) {
        self.ensure(store, obs);
        match obs {
            Observation::Behaviour { key, features } => {
                facts.behaviour_p = self.behaviour.get(key).and_then(|b| b.p_value(features));
            }
            Observation::Style { key, figures } => {
                facts.style_p = self.style.get(key).and_then(|b| b.p_value(figures));
            }
        }
    }

    /// Learn a released call. Saves dirty baselines every [`FLUSH_EVERY`] lessons.
    pub fn learn(&mut self, store: &Store, obs: &Observation) -> Result<(), CoreError> {
        self.ensure(store, obs);
        let key = match obs {
            Observation::Behaviour { key, features } => {
                if let Some(b) = self.behaviour.get_mut(key) {
                    b.learn(features);
                }
                key
            }
            Observation::Style { key, figures } => {
                if let Some(b) = self.style.get_mut(key) {
                    b.learn(*figures);
                }
                key
            }
        };
        self.dirty.insert(key.clone());
        self.pending = self.pending.saturating_add(1);
        if self.pending >= FLUSH_EVERY {
            self.flush(store)?;
        }
        Ok(())
    }

    /// Write every dirty baseline to the store.
    pub fn flush(&mut self, store: &Store) -> Result<(), CoreError> {
        let dirty = std::mem::take(&mut self.dirty);
        for key in &dirty {
            let text = if let Some(b) = self.behaviour.get(key) {
                serde_json::to_string(b)
            } else if let Some(s) = self.style.get(key) {
                serde_json::to_string(s)
            } else {
                continue;
            };
            let text = text.map_err(|e| CoreError::Invalid(format!("baseline: {e}")))?;
            if let Err(e) = store.set_setting(key, &text) {
                // Keep it dirty so the next flush tries again.
                self.dirty.extend(dirty.iter().cloned());
                return Err(e.into());
            }
        }
        self.pending = 0;
        Ok(())
    }

    /// Forget what is in memory (the store was replaced or re-verified): the next call
    /// re-reads from the store.
    pub fn reset(&mut self) {
        self.behaviour.clear();
        self.style.clear();
        self.dirty.clear();
        self.pending = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_engine::{Host, HostFacts, Policy, PolicyConfig, SessionState};

    fn engine() -> Engine {
        let facts = HostFacts {
            home: Some("/home/u".into()),
            ..HostFacts::default()
        };
        let policy = Policy::compile(&PolicyConfig::default(), &facts).unwrap();
        Engine::new(policy, airlock_engine::FingerprintKey::new([3; 32])).unwrap()
    }

    fn shell(cmd: &str) -> Action {
        Action::shell(Host::ClaudeCode, cmd, Some("/home/u/proj"))
    }

    /// Lessons survive a restart through the store; the store row holds no command text.
    #[test]
    fn learned_baselines_persist_without_text() {
        let store = Store::open_in_memory().unwrap();
        let e = engine();
        let s = SessionState::default();
        let mut b = Baselines::new();
        for _ in 0..FLUSH_EVERY {
            let obs = Baselines::observe(
                &e,
                &shell("cargo test --workspace"),
                &s,
                &CallFacts::default(),
            )
            .unwrap();
            b.learn(&store, &obs).unwrap();
        }
        let rows = store.settings_with_prefix(BEHAVIOUR_PREFIX).unwrap();
        assert_eq!(rows.len(), 1);
        assert!(!rows[0].1.contains("--workspace"), "{}", rows[0].1);
        assert!(!rows[0].0.contains("proj"), "{}", rows[0].0);
        let saved: BehaviourBaseline = serde_json::from_str(&rows[0].1).unwrap();
        assert_eq!(saved.events, u64::from(FLUSH_EVERY));
    }

    /// A damaged row is relearned (immature: no p-value), never an error or a pass.
    #[test]
    fn damaged_rows_start_again() {
        let store = Store::open_in_memory().unwrap();
        let e = engine();
        let s = SessionState::default();
        let obs = Baselines::observe(&e, &shell("ls"), &s, &CallFacts::default()).unwrap();
        let Observation::Behaviour { key, .. } = &obs else {
            panic!("a shell call is measured by behaviour");
        };
        store.set_setting(key, "{not json").unwrap();
        let mut b = Baselines::new();
        let mut f = CallFacts::default();
        b.score(&store, &obs, &mut f);
        assert_eq!(f.behaviour_p, None);
    }
}
