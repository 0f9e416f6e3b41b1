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

/// The file name of a project's own rules, under the project folder.
pub const PROJECT_FILE: &str = ".airlock/policy.toml";
/// Folders walked up from the working directory looking for a project file.
const MAX_PROJECT_DEPTH: usize = 32;

/// A project's own rules, as the engine takes them ([`airlock_engine::CallFacts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectRules {
    /// The file found (nearest `.airlock/policy.toml` from the working directory up, below
    /// the home folder).
    pub file: Option<std::path::PathBuf>,
    /// Its `ask` / `never` rules (a `rules_default` of ask or never becomes a last catch-all
    /// rule); everything that would loosen is ignored.
    pub rules: Vec<RuleConfig>,
    /// The file exists but cannot be read or parsed.
    pub invalid: bool,
}

/// Find and read the project's own rules for a call made in `cwd`. A project file can only
/// tighten: its `pass` rules, allow lists, mode and dials are ignored whatever they say. It is
/// as protected as the repository it lives in (the agent can edit it), so rules that must
/// hold belong in the user's own policy file.
///
/// `strict`: a file that exists but cannot be read counts as invalid (user level, where the
/// reader is the user). The system service reads as its own user, which may simply not be
/// let into a home folder: there an unreadable file is skipped (and logged).
pub fn project_rules(cwd: &str, home: Option<&std::path::Path>, strict: bool) -> ProjectRules {
    let start = std::path::Path::new(cwd);
    if !start.is_absolute() {
        return ProjectRules::default();
    }
    for dir in start.ancestors().take(MAX_PROJECT_DEPTH) {
        if home.is_some_and(|h| dir == h) || dir.parent().is_none() {
            break;
        }
        let file = dir.join(PROJECT_FILE);
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) if !strict && e.kind() == std::io::ErrorKind::PermissionDenied => {
                tracing::warn!("a project policy file is not readable by the service; skipped");
                return ProjectRules::default();
            }
            Err(_) => {
                return ProjectRules {
                    file: Some(file),
                    rules: Vec::new(),
                    invalid: true,
                };
            }
        };
        return match airlock_engine::Policy::parse_config(&text, &file.to_string_lossy()) {
            Ok(cfg) => {
                let mut rules: Vec<RuleConfig> = cfg
                    .rules
                    .into_iter()
                    .filter(|r| r.action != RuleAction::Pass)
                    .collect();
                let catch_all = match cfg.rules_default {
                    airlock_engine::DefaultAction::Ask => Some(RuleAction::Ask),
                    airlock_engine::DefaultAction::Never => Some(RuleAction::Never),
                    _ => None,
                };
                if let Some(action) = catch_all {
                    rules.push(RuleConfig {
                        name: Some("default".to_owned()),
                        kind: None,
                        tool: None,
                        server: None,
                        paths: Vec::new(),
                        programs: Vec::new(),
                        hosts: Vec::new(),
                        args: std::collections::BTreeMap::new(),
                        action,
                    });
                }
                ProjectRules {
                    file: Some(file),
                    rules,
                    invalid: false,
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "a project policy file does not parse");
                ProjectRules {
                    file: Some(file),
                    rules: Vec::new(),
                    invalid: true,
                }
            }
        };
    }
    ProjectRules::default()
}

/// Put the project's own rules for `action` (found from its working directory) into `facts`.
pub fn add_project_rules(
    facts: &mut airlock_engine::CallFacts,
    action: &airlock_engine::Action,
    home: Option<&std::path::Path>,
    strict: bool,
) {
    if let Some(cwd) = action.cwd.as_deref() {
        let pr = project_rules(cwd, home, strict);
        facts.project_rules = pr.rules;
        facts.project_policy_invalid = pr.invalid;
    }
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

    #[test]
    fn project_files_are_found_upwards_and_only_tighten() {
        let home = tempfile::tempdir().unwrap();
        let proj = home.path().join("src/app");
        std::fs::create_dir_all(proj.join(".airlock")).unwrap();
        std::fs::create_dir_all(proj.join("deep/er")).unwrap();
        std::fs::write(
            proj.join(PROJECT_FILE),
            "mode = \"light\"\nallow_hosts = [\"evil.example\"]\nrules_default = \"ask\"\n[[rules]]\ntool = \"*\"\naction = \"pass\"\n[[rules]]\nname = \"no-infra\"\npaths = [\"infra/**\"]\naction = \"never\"\n",
        )
        .unwrap();
        let p = project_rules(
            &proj.join("deep/er").to_string_lossy(),
            Some(home.path()),
            true,
        );
        assert!(!p.invalid);
        assert_eq!(p.rules.len(), 2, "{p:?}");
        assert!(p.rules.iter().all(|r| r.action != RuleAction::Pass));
        // Outside the project, and at home itself: nothing.
        let none = project_rules(
            &home.path().join("src").to_string_lossy(),
            Some(home.path()),
            true,
        );
        assert_eq!(none, ProjectRules::default());
        std::fs::write(proj.join(PROJECT_FILE), "[[rules]]\naction = \"maybe\"\n").unwrap();
        assert!(project_rules(&proj.to_string_lossy(), Some(home.path()), true).invalid);
    }
}
