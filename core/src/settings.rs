//! Typed settings and the compiled policy.
//!
//! **Mode, enforcement and allow rules come from the verified ledger**, not from free-standing
//! settings rows: [`dials`] replays the hash-chained ledger's `applied` entries. A settings row
//! written out of band changes nothing (and [`Dials::drift`] reports it); a ledger whose chain
//! is broken is [`CoreError::Tampered`], which every caller turns into a denial. The policy file
//! (`config.toml`) may only *raise* mode and enforcement: what it says is combined with the
//! ledger's value by `max`, so writing `enforcement = "off"` into it lowers nothing.

use airlock_engine::{
    Enforcement, Engine, FingerprintKey, HostFacts, Mode, Policy, PolicyConfig, ResultSource,
    ScreenAction, ScreeningConfig, TurnGate,
};
use airlock_store::Store;

use crate::{CoreError, Paths};

pub const MODE_KEY: &str = "mode";
pub const ENFORCEMENT_KEY: &str = "enforcement";
pub const FINGERPRINT_KEY: &str = "fingerprint_key";
pub const ALLOW_RULES_KEY: &str = "allow_rules";
pub const TURN_GATE_KEY: &str = "turn_gate";

/// The settings key (and ledger kind) of one source's screening dial: `screening.web`, ….
pub fn screening_key(source: ResultSource) -> &'static str {
    match source {
        ResultSource::Web => "screening.web",
        ResultSource::File => "screening.file",
        ResultSource::Shell => "screening.shell",
        ResultSource::Mcp => "screening.mcp",
    }
}

/// An allow rule (never releases a hard block or a BLOCK). Either the older global kind — a
/// reason code that passes wherever it is raised, and/or a host treated as listed — or a
/// rule with a [`Scope`](crate::always::Scope) ("always, as a rule" from the popup): those
/// reasons, only for calls inside the scope, until it expires.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllowRule {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub host: Option<String>,
    /// Absent on the global kind (so its JSON, and its identifier, are as they always were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<crate::always::Scope>,
}

impl AllowRule {
    /// A short identifier that stays the same as long as the rule exists (and after it is
    /// removed and added again): the first 8 hex digits of the SHA-256 of the rule's JSON.
    /// `airlock allow list` shows it and `airlock allow remove ID` takes it, so removing one
    /// rule never shifts another's identifier (as list positions would).
    pub fn id(&self) -> String {
        use sha2::{Digest, Sha256};
        let text = serde_json::to_string(self).unwrap_or_default();
        hex::encode(Sha256::digest(text.as_bytes()))
            .chars()
            .take(8)
            .collect()
    }

    /// A rule of the scoped kind.
    pub fn scoped(scope: crate::always::Scope) -> AllowRule {
        AllowRule {
            code: None,
            host: None,
            scope: Some(scope),
        }
    }

    /// The rule in words: `reason unlisted_destination`, `host *.example.com`, or a scoped
    /// rule's [`describe`](crate::always::Scope::describe).
    pub fn describe(&self) -> String {
        if let Some(s) = &self.scope {
            return s.describe(crate::clock::now_unix());
        }
        let mut parts = Vec::new();
        if let Some(c) = &self.code {
            parts.push(format!("reason {c}"));
        }
        if let Some(h) = &self.host {
            parts.push(format!("host {h}"));
        }
        parts.join(", ")
    }
}

/// An allow rule with its identifier, as listings show it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ListedAllowRule {
    pub id: String,
    #[serde(flatten)]
    pub rule: AllowRule,
}

impl From<AllowRule> for ListedAllowRule {
    fn from(rule: AllowRule) -> ListedAllowRule {
        ListedAllowRule {
            id: rule.id(),
            rule,
        }
    }
}

/// The allow rules the verified ledger approved, with their identifiers.
pub fn listed_allow_rules(store: &Store) -> Result<Vec<ListedAllowRule>, CoreError> {
    Ok(allow_rules(store)?
        .into_iter()
        .map(ListedAllowRule::from)
        .collect())
}

/// The dials as the verified ledger has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dials {
    pub mode: Mode,
    pub enforcement: Enforcement,
    pub allow_rules: Vec<AllowRule>,
    pub turn_gate: TurnGate,
    pub screening: ScreeningConfig,
    /// Ledger rows replayed (the ledger's length when read).
    pub ledger_rows: usize,
    /// Settings rows that disagree with the ledger (written out of band): their keys.
    pub drift: Vec<&'static str>,
}

/// Replays the verified ledger into the dials. A broken chain is [`CoreError::Tampered`].
pub fn dials(store: &Store) -> Result<Dials, CoreError> {
    let status = store.verify_ledger()?;
    if !status.intact {
        return Err(CoreError::Tampered(format!(
            "the ledger's hash chain is broken at entry {}",
            status.first_bad_seq.unwrap_or(0)
        )));
    }
    let rows = store.ledger()?;
    let mut d = Dials {
        mode: Mode::default(),
        enforcement: Enforcement::default(),
        allow_rules: Vec::new(),
        turn_gate: TurnGate::default(),
        screening: ScreeningConfig::default(),
        ledger_rows: rows.len(),
        drift: Vec::new(),
    };
    for row in &rows {
        let e = &row.entry;
        if e.outcome != "applied" {
            continue;
        }
        let to = e.detail.get("to").and_then(|v| v.as_str());
        match (e.kind.as_str(), to) {
            ("mode", Some(to)) => {
                d.mode = to.parse().map_err(|_| CoreError::Damaged {
                    what: "a mode entry of the ledger",
                })?;
            }
            ("enforcement", Some(to)) => {
                d.enforcement = to.parse().map_err(|_| CoreError::Damaged {
                    what: "an enforcement entry of the ledger",
                })?;
            }
            (TURN_GATE_KEY, Some(to)) => {
                d.turn_gate = to.parse().map_err(|_| CoreError::Damaged {
                    what: "a turn_gate entry of the ledger",
                })?;
            }
            (kind, Some(to)) if kind.starts_with("screening.") => {
                let source: ResultSource =
                    kind["screening.".len()..]
                        .parse()
                        .map_err(|_| CoreError::Damaged {
                            what: "a screening entry of the ledger",
                        })?;
                let to: ScreenAction = to.parse().map_err(|_| CoreError::Damaged {
                    what: "a screening entry of the ledger",
                })?;
                d.screening.set(source, to);
            }
            ("allow", _) => {
                let rule: AllowRule =
                    serde_json::from_value(e.detail.clone()).map_err(|_| CoreError::Damaged {
                        what: "an allow entry of the ledger",
                    })?;
                if !d.allow_rules.contains(&rule) {
                    d.allow_rules.push(rule);
                }
            }
            ("allow_remove", _) => {
                let rule: AllowRule =
                    serde_json::from_value(e.detail.clone()).map_err(|_| CoreError::Damaged {
                        what: "an allow_remove entry of the ledger",
                    })?;
                d.allow_rules.retain(|r| r != &rule);
            }
            _ => {}
        }
    }
    // The settings rows are a cache the CLI shows; any disagreement is an out-of-band write.
    if let Some(m) = store.setting(MODE_KEY)?
        && m != d.mode.as_str()
    {
        d.drift.push(MODE_KEY);
    }
    if let Some(e) = store.setting(ENFORCEMENT_KEY)?
        && e != d.enforcement.as_str()
    {
        d.drift.push(ENFORCEMENT_KEY);
    }
    if let Some(t) = store.setting(TURN_GATE_KEY)?
        && t != d.turn_gate.as_str()
    {
        d.drift.push(TURN_GATE_KEY);
    }
    for src in ResultSource::ALL {
        if let Some(v) = store.setting(screening_key(src))?
            && v != d.screening.get(src).as_str()
        {
            d.drift.push(screening_key(src));
        }
    }
    if let Some(r) = store.setting(ALLOW_RULES_KEY)? {
        let cached: Option<Vec<AllowRule>> = serde_json::from_str(&r).ok();
        if cached.as_ref() != Some(&d.allow_rules) {
            d.drift.push(ALLOW_RULES_KEY);
        }
    }
    Ok(d)
}

/// Rewrites the settings rows the CLI shows (mode, enforcement, allow rules) from the verified
/// ledger, undoing any out-of-band edit of them.
pub fn repair_cache(store: &Store) -> Result<(), CoreError> {
    let d = dials(store)?;
    store.set_setting(MODE_KEY, d.mode.as_str())?;
    store.set_setting(ENFORCEMENT_KEY, d.enforcement.as_str())?;
    store.set_setting(TURN_GATE_KEY, d.turn_gate.as_str())?;
    for src in ResultSource::ALL {
        store.set_setting(screening_key(src), d.screening.get(src).as_str())?;
    }
    let rules = serde_json::to_string(&d.allow_rules)
        .map_err(|_| CoreError::Invalid("the allow rules cannot be written".to_owned()))?;
    store.set_setting(ALLOW_RULES_KEY, &rules)?;
    Ok(())
}

/// The allow rules the verified ledger approved.
pub fn allow_rules(store: &Store) -> Result<Vec<AllowRule>, CoreError> {
    Ok(dials(store)?.allow_rules)
}

/// What [`load_policy`] and [`custom_rules`] depend on, read cheaply: `config.toml`'s length
/// and modification time, the ledger's head, and each rule file's name, length and
/// modification time. Equal stamps give equal policies, so a long-running process
/// can keep its compiled policy until the stamp changes.
pub fn policy_stamp(store: &Store, paths: &Paths) -> Result<String, CoreError> {
    let file = paths.config_file();
    let meta = match std::fs::metadata(&file) {
        Ok(m) => format!("{}:{:?}", m.len(), m.modified().ok()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "none".to_owned(),
        Err(e) => return Err(CoreError::io(file, e)),
    };
    let (rows, head) = store.ledger_head()?;
    let rules = crate::custom::stamp(paths);
    Ok(format!("{meta}|{rows}|{head}|{rules}"))
}

/// The parsed `config.toml` (optional: absent means the embedded defaults), and which dials
/// it names itself (`mode`, `enforcement`, `turn_gate`, `screening.web`, …): only those may
/// raise the ledger's values.
pub fn read_config(paths: &Paths) -> Result<(PolicyConfig, Vec<String>), CoreError> {
    let file = paths.config_file();
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            let cfg = Policy::parse_config(&text, &file.to_string_lossy())?;
            let mut named = Vec::new();
            if let Ok(t) = text.parse::<toml::Table>() {
                for (k, v) in &t {
                    match v.as_table() {
                        Some(sub) => named.extend(sub.keys().map(|s| format!("{k}.{s}"))),
                        None => named.push(k.clone()),
                    }
                }
            }
            Ok((cfg, named))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok((PolicyConfig::default(), Vec::new()))
        }
        Err(e) => Err(CoreError::io(file, e)),
    }
}

/// The compiled policy: the ledger's dials, raised by `config.toml` where it names stricter
/// ones (the file can raise, never lower), its rules and allow lists as far as the ledger
/// approved them ([`crate::policy_file`]), plus the ledger's allow-listed hosts.
/// The policy file as far as it is in force: at user level without its unapproved loosening
/// parts and with approved raising rules kept ([`crate::policy_file`]); at system level (a
/// root-owned file) as written. The MCP proxy reads its `[mcp]` options from this.
pub fn effective_config(store: &Store, paths: &Paths) -> Result<PolicyConfig, CoreError> {
    let (cfg, _) = read_config(paths)?;
    Ok(match paths.level {
        crate::Level::User => {
            crate::policy_file::effective(cfg, crate::policy_file::snapshot(store)?.as_ref()).0
        }
        crate::Level::System => cfg,
    })
}

pub fn load_policy(store: &Store, paths: &Paths) -> Result<Policy, CoreError> {
    let (cfg, named) = read_config(paths)?;
    // User level (a file the agent can write): loosening parts count only once approved, and
    // approved raising rules stay in force. System level: the file is root-owned, so the OS
    // already keeps the agent out of it and it is trusted as written.
    let (mut cfg, review) = match paths.level {
        crate::Level::User => {
            crate::policy_file::effective(cfg, crate::policy_file::snapshot(store)?.as_ref())
        }
        crate::Level::System => (cfg, crate::policy_file::Review::default()),
    };
    if !review.is_clean() {
        tracing::warn!(
            pending = review.pending.len(),
            kept = review.kept.len(),
            "the policy file differs from what was approved (`airlock policy review`)"
        );
    }
    let names = |k: &str| named.iter().any(|n| n == k);
    let d = dials(store)?;
    cfg.mode = if names(MODE_KEY) {
        cfg.mode.max(d.mode)
    } else {
        d.mode
    };
    cfg.enforcement = if names(ENFORCEMENT_KEY) {
        cfg.enforcement.max(d.enforcement)
    } else {
        d.enforcement
    };
    cfg.turn_gate = if names(TURN_GATE_KEY) {
        cfg.turn_gate.max(d.turn_gate)
    } else {
        d.turn_gate
    };
    for src in ResultSource::ALL {
        let v = if names(screening_key(src)) {
            cfg.screening.get(src).max(d.screening.get(src))
        } else {
            d.screening.get(src)
        };
        cfg.screening.set(src, v);
    }
    for r in d.allow_rules {
        if r.scope.is_some() {
            continue;
        }
        if let Some(h) = r.host {
            cfg.allow_hosts.push(h);
        }
    }
    let facts = HostFacts {
        home: paths
            .home
            .as_ref()
            .map(|h| h.to_string_lossy().into_owned()),
        protected_paths: paths.protected(),
    };
    // Name the real file in a field error (the engine only knows "config").
    Policy::compile(&cfg, &facts).map_err(|e| match e {
        airlock_engine::PolicyError::Field { field, message, .. } => {
            CoreError::Policy(airlock_engine::PolicyError::Field {
                file: paths.config_file().to_string_lossy().into_owned(),
                field,
                message,
            })
        }
        other => CoreError::Policy(other),
    })
}

/// The per-install fingerprint key (random, made on first use, kept in the store).
pub fn fingerprint_key(store: &Store) -> Result<FingerprintKey, CoreError> {
    if let Some(h) = store.setting(FINGERPRINT_KEY)?
        && let Ok(bytes) = hex::decode(h.trim())
        && let Ok(arr) = <[u8; 32]>::try_from(bytes.as_slice())
    {
        return Ok(FingerprintKey::new(arr));
    }
    let mut k = [0u8; 32];
    getrandom::fill(&mut k).map_err(|e| CoreError::Random(e.to_string()))?;
    store.set_setting(FINGERPRINT_KEY, &hex::encode(k))?;
    Ok(FingerprintKey::new(k))
}

/// The custom rules in force for these paths (`<config dir>/rules/*.cedar` and installed
/// packs), compiled; a file that cannot be used is a problem inside, never an error here.
pub fn custom_rules(paths: &Paths) -> crate::custom::CustomRules {
    crate::custom::CustomRules::load(paths)
}

/// The engine for this store and these paths.
pub fn engine(store: &Store, paths: &Paths) -> Result<Engine, CoreError> {
    let policy = load_policy(store, paths)?;
    Ok(Engine::new(policy, fingerprint_key(store)?)?)
}
