//! The policy file is trusted only as far as the ledger approved it.
//!
//! `config.toml` may always *raise* (a stricter mode, an `ask` or `never` rule, screening set
//! to block). What would *lower* a verdict — an allow-list entry, a `pass` rule, `rules_default
//! = "pass"` — and removing a rule that raised, take effect only once the user ran `airlock
//! policy approve` with the factor: that writes a `policy_approve` ledger row holding the
//! snapshot (the loosening entries, the raising rules) of the file they reviewed. On every
//! load the file is compared with the newest snapshot: unapproved loosening entries are left
//! out, and approved raising rules that vanished from the file are kept in force (before all
//! others), until the next approval. `airlock policy review` lists both.

use std::collections::BTreeSet;

use airlock_engine::{PolicyConfig, RuleAction, RuleConfig};
use airlock_store::Store;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::dials::{ledger_applied, require_factor};
use crate::factors::Proof;
use crate::{CoreError, Paths, settings};

/// Ledger kind of an approval of the policy file.
pub const APPROVE_KIND: &str = "policy_approve";

/// What the newest approval of the policy file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub digest: String,
    pub loosening: BTreeSet<String>,
    /// The raising (`ask` / `never`) rules, in file order.
    pub rules: Vec<RuleConfig>,
}

/// How the file on disk compares with what the ledger approved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Review {
    /// What `airlock policy approve` would approve (binds the approval to what was shown).
    pub digest: String,
    /// Loosening entries in the file that are not approved (left out of the policy).
    pub pending: Vec<String>,
    /// Approved raising rules no longer in the file (still in force), by canonical line.
    pub kept: Vec<String>,
}

impl Review {
    pub fn is_clean(&self) -> bool {
        self.pending.is_empty() && self.kept.is_empty()
    }
}

fn raising(cfg: &PolicyConfig) -> Vec<RuleConfig> {
    cfg.rules
        .iter()
        .filter(|r| r.action != RuleAction::Pass)
        .cloned()
        .collect()
}

/// The digest of a file's approvable content: its loosening entries and raising rules.
pub fn digest(cfg: &PolicyConfig) -> String {
    let mut h = Sha256::new();
    for e in cfg.loosening_entries() {
        h.update(b"L");
        h.update(e.as_bytes());
        h.update(b"\n");
    }
    for r in raising(cfg) {
        h.update(b"R");
        h.update(r.canonical().as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// The newest approval in the verified ledger (`None` before the first).
pub fn snapshot(store: &Store) -> Result<Option<Snapshot>, CoreError> {
    let mut last = None;
    for row in store.ledger()? {
        let e = &row.entry;
        if e.kind == APPROVE_KIND && e.outcome == "applied" {
            let s: Snapshot =
                serde_json::from_value(e.detail.clone()).map_err(|_| CoreError::Damaged {
                    what: "a policy approval of the ledger",
                })?;
            last = Some(s);
        }
    }
    Ok(last)
}

/// The configuration the policy is compiled from: `cfg` without its unapproved loosening
/// parts, with approved raising rules that left the file put back in front. Also says what
/// was left out or kept.
pub fn effective(mut cfg: PolicyConfig, snap: Option<&Snapshot>) -> (PolicyConfig, Review) {
    let digest = digest(&cfg);
    let empty = BTreeSet::new();
    let approved = snap.map_or(&empty, |s| &s.loosening);
    let pending = cfg.keep_approved(approved);
    let present: BTreeSet<String> = cfg.rules.iter().map(RuleConfig::canonical).collect();
    let kept_rules: Vec<RuleConfig> = snap
        .map(|s| {
            s.rules
                .iter()
                .filter(|r| !present.contains(&r.canonical()))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let kept = kept_rules.iter().map(RuleConfig::canonical).collect();
    if !kept_rules.is_empty() {
        let mut rules = kept_rules;
        rules.append(&mut cfg.rules);
        cfg.rules = rules;
    }
    (
        cfg,
        Review {
            digest,
            pending,
            kept,
        },
    )
}

/// Compare the policy file with the ledger's newest approval.
pub fn review(store: &Store, paths: &Paths) -> Result<Review, CoreError> {
    let (cfg, _) = settings::read_config(paths)?;
    Ok(effective(cfg, snapshot(store)?.as_ref()).1)
}

/// Approve the policy file as it is now (the one whose review showed `digest`): a weakening
/// when it approves any loosening entry or drops a raising rule (the factor is needed), a
/// plain record otherwise. Ledgered either way.
pub fn approve(
    store: &Store,
    paths: &Paths,
    expected_digest: &str,
    proof: Option<&Proof>,
    actor: &str,
) -> Result<Review, CoreError> {
    let (cfg, _) = settings::read_config(paths)?;
    let before = effective(cfg.clone(), snapshot(store)?.as_ref()).1;
    if before.digest != expected_digest {
        return Err(CoreError::Invalid(
            "the policy file changed since it was reviewed; review it again".to_owned(),
        ));
    }
    let snap = Snapshot {
        digest: before.digest.clone(),
        loosening: cfg.loosening_entries().into_iter().collect(),
        rules: raising(&cfg),
    };
    let detail = serde_json::to_value(&snap)
        .map_err(|_| CoreError::Invalid("the approval cannot be written".to_owned()))?;
    let factor = if before.is_clean() {
        "none"
    } else {
        require_factor(
            store,
            proof,
            APPROVE_KIND,
            &json!({"digest": snap.digest, "pending": before.pending.len(), "dropped_rules": before.kept.len()}),
            actor,
        )?
    };
    ledger_applied(store, APPROVE_KIND, detail, actor, factor)?;
    tracing::info!(
        actor,
        factor,
        pending = before.pending.len(),
        "policy file approved"
    );
    review(store, paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_engine::Policy;

    fn cfg(text: &str) -> PolicyConfig {
        Policy::parse_config(text, "t.toml").unwrap()
    }

    const FILE: &str = "allow_hosts = [\"api.example.net\"]\n[[rules]]\nname = \"r\"\ntool = \"read_*\"\naction = \"pass\"\n[[rules]]\nname = \"n\"\ntool = \"delete_*\"\naction = \"never\"\n";

    #[test]
    fn unapproved_loosening_is_left_out_and_removed_raises_are_kept() {
        let (c, r) = effective(cfg(FILE), None);
        assert_eq!(r.pending.len(), 2, "{r:?}");
        assert!(c.allow_hosts.is_empty());
        assert_eq!(c.rules.len(), 1);
        // Approved as it is: nothing pending.
        let snap = Snapshot {
            digest: digest(&cfg(FILE)),
            loosening: cfg(FILE).loosening_entries().into_iter().collect(),
            rules: raising(&cfg(FILE)),
        };
        let (c, r) = effective(cfg(FILE), Some(&snap));
        assert!(r.is_clean(), "{r:?}");
        assert_eq!(c.rules.len(), 2);
        // The never rule removed from the file: still in force, in front.
        let (c, r) = effective(cfg("allow_hosts = [\"api.example.net\"]\n"), Some(&snap));
        assert_eq!(r.kept.len(), 1);
        assert_eq!(c.rules[0].action, RuleAction::Never);
        assert_eq!(c.allow_hosts, vec!["api.example.net".to_owned()]);
        // A new loosening entry added later: pending again.
        let (_, r) = effective(
            cfg(
                "allow_hosts = [\"api.example.net\", \"evil.example\"]\n[[rules]]\nname = \"n\"\ntool = \"delete_*\"\naction = \"never\"\n",
            ),
            Some(&snap),
        );
        assert_eq!(r.pending, vec!["allow_hosts=evil.example".to_owned()]);
    }
}
