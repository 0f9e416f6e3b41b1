//! Shared plumbing for the commands: where things live, the store, the compiled policy.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use airlock_engine::{
    Decision, Enforcement, Engine, FingerprintKey, HostFacts, Mode, Policy, PolicyConfig,
    SessionState, Verdict,
};
use airlock_store::Store;
use anyhow::{Context, Result};

pub const MODE_KEY: &str = "mode";
pub const ENFORCEMENT_KEY: &str = "enforcement";
pub const FINGERPRINT_KEY: &str = "fingerprint_key";
pub const ALLOW_RULES_KEY: &str = "allow_rules";

/// Where Airlock keeps its files (all derived from the user's home; no override variable an
/// agent could set).
#[derive(Debug, Clone)]
pub struct Paths {
    pub db: PathBuf,
    pub config_dir: PathBuf,
    pub home: Option<PathBuf>,
}

impl Paths {
    pub fn discover() -> Result<Paths> {
        let db = airlock_store::default_db_path()
            .context("cannot find a home directory for Airlock's store")?;
        let config_dir = airlock_store::default_config_dir()
            .context("cannot find a home directory for Airlock's config")?;
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from);
        Ok(Paths {
            db,
            config_dir,
            home,
        })
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    /// Airlock's own files: config, store, and the running binary.
    pub fn protected(&self) -> Vec<String> {
        let mut v = vec![self.config_dir.to_string_lossy().into_owned()];
        if let Some(dir) = self.db.parent() {
            v.push(dir.to_string_lossy().into_owned());
        }
        if let Ok(exe) = std::env::current_exe() {
            v.push(exe.to_string_lossy().into_owned());
        }
        v
    }

    pub fn open_store(&self) -> Result<Store> {
        Store::open(&self.db).with_context(|| format!("opening the store at {}", self.db.display()))
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

pub fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A scoped allow rule: lets AUTH findings with this reason code pass (never a hard block).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllowRule {
    pub code: Option<String>,
    pub host: Option<String>,
}

pub fn allow_rules(store: &Store) -> Result<Vec<AllowRule>> {
    match store.setting(ALLOW_RULES_KEY)? {
        None => Ok(Vec::new()),
        Some(s) => serde_json::from_str(&s).context("the stored allow rules are damaged"),
    }
}

/// What [`load_policy`] depends on, read cheaply: `config.toml`'s length and modification
/// time, and the store's mode, enforcement and allow-rule settings. Equal stamps give equal
/// policies, so a long-running process (the MCP proxy) can keep its compiled policy until the
/// stamp changes.
pub fn policy_stamp(store: &Store, paths: &Paths) -> Result<String> {
    let file = paths.config_file();
    let meta = match std::fs::metadata(&file) {
        Ok(m) => format!("{}:{:?}", m.len(), m.modified().ok()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "none".to_owned(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
    };
    Ok(format!(
        "{meta}|{:?}|{:?}|{:?}",
        store.setting(MODE_KEY)?,
        store.setting(ENFORCEMENT_KEY)?,
        store.setting(ALLOW_RULES_KEY)?
    ))
}

/// Read `config.toml` (optional) and the store's mode / enforcement into a policy.
pub fn load_policy(store: &Store, paths: &Paths) -> Result<Policy> {
    let file = paths.config_file();
    let mut cfg = match std::fs::read_to_string(&file) {
        Ok(text) => Policy::parse_config(&text, &file.to_string_lossy())?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => PolicyConfig::default(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
    };
    if let Some(m) = store.setting(MODE_KEY)? {
        cfg.mode = m.parse::<Mode>()?;
    }
    if let Some(e) = store.setting(ENFORCEMENT_KEY)? {
        cfg.enforcement = e.parse::<Enforcement>()?;
    }
    for r in allow_rules(store)? {
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
    Ok(Policy::compile(&cfg, &facts)?)
}

/// The per-install fingerprint key (random, made on first use, kept in the store).
pub fn fingerprint_key(store: &Store) -> Result<FingerprintKey> {
    if let Some(h) = store.setting(FINGERPRINT_KEY)?
        && let Ok(bytes) = hex::decode(h.trim())
        && let Ok(arr) = <[u8; 32]>::try_from(bytes.as_slice())
    {
        return Ok(FingerprintKey::new(arr));
    }
    let mut k = [0u8; 32];
    getrandom::fill(&mut k)
        .map_err(|e| anyhow::anyhow!("no randomness for the fingerprint key: {e}"))?;
    store.set_setting(FINGERPRINT_KEY, &hex::encode(k))?;
    Ok(FingerprintKey::new(k))
}

pub fn engine(store: &Store, paths: &Paths) -> Result<Engine> {
    let policy = load_policy(store, paths)?;
    Ok(Engine::new(policy, fingerprint_key(store)?)?)
}

/// Path of this binary, for wiring hooks.
pub fn self_binary() -> Result<PathBuf> {
    std::env::current_exe().context("cannot find the airlock binary's own path")
}

pub fn display(p: &Path) -> String {
    p.display().to_string()
}

/// Read a stored session. A damaged record must not lower the floor: assume the worst.
pub fn load_session(state: Option<&str>) -> SessionState {
    match state {
        None => SessionState::default(),
        Some(s) => serde_json::from_str(s).unwrap_or(SessionState {
            tainted: true,
            secret_read: true,
            ..SessionState::default()
        }),
    }
}

/// A scoped allow rule turns AUTH into PASS when it covers every AUTH reason; hard blocks
/// and BLOCK verdicts are never touched. Used by the hook and the proxy alike.
pub fn apply_allow_rules(store: &Store, d: &mut Decision) -> Result<()> {
    if d.effective != Verdict::Auth {
        return Ok(());
    }
    let rules = allow_rules(store)?;
    let codes: Vec<&str> = rules.iter().filter_map(|r| r.code.as_deref()).collect();
    if !codes.is_empty()
        && d.reasons
            .iter()
            .all(|r| r.verdict == Verdict::Auth && !r.hard && codes.contains(&r.code.as_str()))
    {
        d.effective = Verdict::Pass;
    }
    Ok(())
}
