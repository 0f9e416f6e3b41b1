//! One user's state inside the guard service: the store (the service is its one writer on
//! the hook path), the compiled policy, sessions in memory, and what it has seen of
//! out-of-band changes.
//!
//! Tamper evidence (user level, where the agent could write the store): before each call the
//! service checks that the store file is the one it opened (same device and inode, still
//! present) and, when SQLite's `data_version` says another connection wrote, re-reads the
//! verified ledger: a broken chain, a ledger that got shorter, or a settings row that
//! disagrees with the ledger marks the state *tampered*, records a `tamper` ledger row when
//! it still can, and every later call is denied until the user clears it with the factor
//! (`airlock release --tamper`). At system level nobody but the service can write the store,
//! so the same checks only ever fire on disk damage.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use airlock_core::baselines::{Baselines, Observation};
use airlock_core::custom::CustomRules;
use airlock_core::settings::{self, AllowRule};
use airlock_core::{CoreError, Level, Paths, clock, pipeline};
use airlock_engine::{Engine, SessionState};
use airlock_store::{LedgerEntry, Store};

/// Sessions kept in memory per user before the least recently used is dropped (it is
/// re-read from the store when it comes back).
const MAX_SESSIONS: usize = 4096;
/// Checkpoint the WAL after this many writes.
const CHECKPOINT_EVERY: u32 = 256;
/// Settings key prefix of a bypassed session.
pub const BYPASSED_PREFIX: &str = "bypassed:";

pub(crate) struct Compiled {
    pub engine: Arc<Engine>,
    /// The custom rules (Cedar), compiled with the policy and cached under the same stamp.
    pub custom: Arc<CustomRules>,
    pub rules: Arc<Vec<AllowRule>>,
    stamp: String,
}

pub(crate) struct UserState {
    pub paths: Paths,
    store: Option<Store>,
    ident: Option<(u64, u64)>,
    data_version: i64,
    ledger_rows: usize,
    compiled: Option<Compiled>,
    sessions: HashMap<(String, String), (u64, SessionState)>,
    tick: u64,
    pub tampered: Option<String>,
    pub bypassed: BTreeSet<String>,
    writes: u32,
    baselines: Baselines,
    /// Approvals a human gave "for this session": (host, session, the call's exact effect).
    /// In memory only: a restart asks again.
    session_grants: HashSet<(String, String, String)>,
    /// This user's approval agent (system level), while its connection lives.
    pub agent: Option<Arc<crate::agent::AgentLink>>,
}

/// Most session approvals kept per user (the oldest are not tracked: past this, calls ask).
const MAX_SESSION_GRANTS: usize = 1024;

/// Why a call cannot be judged: a message for the user (never a payload).
#[derive(Debug, Clone)]
pub(crate) struct NotReady(pub String);

fn file_ident(path: &std::path::Path) -> Option<(u64, u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.len()))
}

pub(crate) fn bypass_key(host: &str, session: &str) -> String {
    format!("{host}/{session}")
}

impl UserState {
    /// Whether a human approved exactly this call for the rest of this session.
    pub(crate) fn granted_for_session(&self, host: &str, sid: &str, effect: &str) -> bool {
        self.session_grants
            .contains(&(host.to_owned(), sid.to_owned(), effect.to_owned()))
    }

    /// Remember a "for this session" approval (bounded).
    pub(crate) fn grant_for_session(&mut self, host: &str, sid: &str, effect: String) {
        if self.session_grants.len() < MAX_SESSION_GRANTS {
            self.session_grants
                .insert((host.to_owned(), sid.to_owned(), effect));
        }
    }

    pub fn new(paths: Paths) -> UserState {
        UserState {
            paths,
            store: None,
            ident: None,
            data_version: 0,
            ledger_rows: 0,
            compiled: None,
            sessions: HashMap::new(),
            tick: 0,
            tampered: None,
            bypassed: BTreeSet::new(),
            writes: 0,
            baselines: Baselines::new(),
            session_grants: HashSet::new(),
            agent: None,
        }
    }

    /// Opens the store on first use. User level: a missing or empty store is never recreated
    /// (the user runs `airlock setup`). System level: the service creates a user's store (no
    /// one else can write there, so a missing one is simply new).
    fn open(&mut self) -> Result<(), NotReady> {
        if self.store.is_some() {
            return Ok(());
        }
        let db = &self.paths.db;
        if self.paths.level == Level::User {
            match file_ident(db) {
                None => {
                    return Err(NotReady(
                        "Airlock is not set up on this machine (its store is missing): run `airlock setup`."
                            .to_owned(),
                    ));
                }
                Some((_, _, 0)) => {
                    self.mark_tampered("the store file was emptied");
                    return Err(NotReady(self.tamper_message()));
                }
                Some(_) => {}
            }
        } else if let Some(dir) = db.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                tracing::error!(error = %e, "cannot create a user's state directory");
                NotReady("Airlock's service cannot create this user's store.".to_owned())
            })?;
        }
        let store = Store::open(db).map_err(|e| {
            tracing::error!(code = e.code(), "store unavailable");
            NotReady(
                "Airlock's store is unavailable (locked, damaged or read-only), so nothing can be judged safely."
                    .to_owned(),
            )
        })?;
        self.ident = file_ident(db).map(|(d, i, _)| (d, i));
        self.data_version = store.data_version().unwrap_or(0);
        self.store = Some(store);
        self.revalidate(true)?;
        Ok(())
    }

    pub fn tamper_message(&self) -> String {
        format!(
            "Airlock's own state was changed outside Airlock ({}), so every call is denied until you check it: run `airlock doctor`, then `airlock release --tamper`.",
            self.tampered.as_deref().unwrap_or("unknown change")
        )
    }

    fn mark_tampered(&mut self, what: &str) {
        if self.tampered.is_none() {
            tracing::error!(what, "out-of-band change to Airlock's state detected");
            self.tampered = Some(what.to_owned());
            if let Some(store) = &self.store {
                let _ = store.append_ledger(&LedgerEntry {
                    ts_ms: clock::now_ms(),
                    kind: "tamper".into(),
                    detail: serde_json::json!({ "what": what }),
                    actor: "service".into(),
                    factor: "none".into(),
                    outcome: "detected".into(),
                });
            }
            // The tamper row goes to the team's collector too (with the policy last compiled).
            self.export_ledger();
        }
    }

    /// Copy new ledger rows to the configured export destinations (nothing when none is).
    fn export_ledger(&self) {
        if let (Some(store), Some(c)) = (&self.store, &self.compiled) {
            airlock_core::export::ledger_catch_up(&c.engine, store);
        }
    }

    /// The engine last compiled (for records made outside a judged call).
    pub fn engine(&self) -> Option<Arc<Engine>> {
        self.compiled.as_ref().map(|c| c.engine.clone())
    }

    /// Re-reads the ledger (when `force` or when another connection wrote) and recompiles the
    /// policy when its stamp changed.
    fn revalidate(&mut self, force: bool) -> Result<(), NotReady> {
        let Some(store) = &self.store else {
            return Err(NotReady("Airlock's store is not open.".to_owned()));
        };
        let dv = store.data_version().unwrap_or(-1);
        if force || dv != self.data_version || self.compiled.is_none() {
            self.data_version = dv;
            let dials = settings::dials(store);
            let open = open_tamper(store);
            let marked = store.settings_with_prefix(BYPASSED_PREFIX);
            let mut found: Option<String> = None;
            match dials {
                Err(CoreError::Tampered(what)) => found = Some(what),
                Err(e) => {
                    tracing::error!(error = %e, "the ledger could not be read");
                    return Err(NotReady(
                        "Airlock's ledger could not be read, so nothing can be judged safely."
                            .to_owned(),
                    ));
                }
                Ok(d) => {
                    if d.ledger_rows < self.ledger_rows {
                        found = Some("ledger entries were removed".to_owned());
                    } else if let Some(key) = d.drift.first() {
                        found = Some(format!("the `{key}` setting was written directly"));
                    }
                    self.ledger_rows = d.ledger_rows;
                }
            }
            match found {
                Some(what) => self.mark_tampered(&what),
                // A tamper row, once written, stays in force until the user clears it through
                // the service (`airlock release --tamper`: factor, ledgered).
                None => {
                    if self.tampered.is_none() {
                        self.tampered = open;
                    }
                }
            }
            match marked {
                Ok(rows) => {
                    // Raise-only: a session marked in memory stays marked until released
                    // through the service.
                    self.bypassed.extend(
                        rows.into_iter()
                            .map(|(k, _)| k.trim_start_matches(BYPASSED_PREFIX).to_owned()),
                    );
                }
                Err(e) => tracing::warn!(code = e.code(), "bypassed sessions unreadable"),
            }
        }
        let Some(store) = &self.store else {
            return Err(NotReady("Airlock's store is not open.".to_owned()));
        };
        let stamp = settings::policy_stamp(store, &self.paths).map_err(|e| {
            tracing::error!(error = %e, "policy stamp unavailable");
            NotReady("Airlock's policy could not be loaded.".to_owned())
        })?;
        if self.compiled.as_ref().is_none_or(|c| c.stamp != stamp) {
            let engine = settings::engine(store, &self.paths).map_err(|e| {
                tracing::error!(error = %e, "policy could not be compiled");
                NotReady("Airlock's policy could not be loaded.".to_owned())
            })?;
            let rules = settings::allow_rules(store).unwrap_or_default();
            let custom = settings::custom_rules(&self.paths);
            for p in custom.problems() {
                tracing::warn!(problem = %p, "custom rule file problem");
            }
            self.compiled = Some(Compiled {
                engine: Arc::new(engine),
                custom: Arc::new(custom),
                rules: Arc::new(rules),
                stamp,
            });
            tracing::debug!("policy compiled");
        }
        Ok(())
    }

    /// The store and the compiled policy, after the tamper checks.
    pub fn ready(&mut self) -> Result<(&Store, &Compiled), NotReady> {
        if self.tampered.is_some() {
            return Err(NotReady(self.tamper_message()));
        }
        self.open()?;
        if let Some((dev, ino)) = self.ident {
            match file_ident(&self.paths.db) {
                None => self.mark_tampered("the store file was removed"),
                Some((d, i, _)) if (d, i) != (dev, ino) => {
                    self.mark_tampered("the store file was replaced")
                }
                Some((_, _, 0)) => self.mark_tampered("the store file was emptied"),
                Some(_) => {}
            }
        }
        if self.tampered.is_none() {
            self.revalidate(false)?;
        }
        if self.tampered.is_some() {
            return Err(NotReady(self.tamper_message()));
        }
        self.export_ledger();
        match (&self.store, &self.compiled) {
            (Some(s), Some(c)) => Ok((s, c)),
            _ => Err(NotReady("Airlock's store is not open.".to_owned())),
        }
    }

    /// The session as the service knows it: from memory, else from the store (once).
    pub fn session(&mut self, host: &str, sid: &str) -> SessionState {
        self.tick += 1;
        let key = (host.to_owned(), sid.to_owned());
        if let Some((t, s)) = self.sessions.get_mut(&key) {
            *t = self.tick;
            return s.clone();
        }
        let s = match &self.store {
            Some(store) => match pipeline::load_session(store, host, sid) {
                Ok(s) => s,
                Err(e) => {
                    tracing::error!(error = %e, "session unreadable; assuming the worst");
                    pipeline::decode_session(Some("damaged"))
                }
            },
            None => pipeline::decode_session(Some("damaged")),
        };
        self.remember(key, s.clone());
        s
    }

    /// Keeps `s` as the session's state in memory (raise-only with respect to what the store
    /// says is the engine's business; memory is authoritative while the service runs).
    pub fn remember(&mut self, key: (String, String), s: SessionState) {
        self.tick += 1;
        if self.sessions.len() >= MAX_SESSIONS
            && !self.sessions.contains_key(&key)
            && let Some(oldest) = self
                .sessions
                .iter()
                .min_by_key(|(_, (t, _))| *t)
                .map(|(k, _)| k.clone())
        {
            self.sessions.remove(&oldest);
        }
        self.sessions.insert(key, (self.tick, s));
    }

    /// Counts a write; checkpoints the WAL every so often so it never grows without bound.
    pub fn wrote(&mut self) {
        self.writes += 1;
        if self.writes >= CHECKPOINT_EVERY {
            self.writes = 0;
            if let Some(store) = &self.store {
                match store.checkpoint() {
                    Ok(done) => tracing::debug!(done, "WAL checkpoint"),
                    Err(e) => tracing::warn!(code = e.code(), "WAL checkpoint failed"),
                }
            }
        }
        // Our own writes must not look like somebody else's.
        if let Some(store) = &self.store {
            self.data_version = store.data_version().unwrap_or(self.data_version);
        }
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// Opens the store if it can (for status and dial requests, which also work while the
    /// state is tampered, so the user can look and clear it).
    pub fn store_for_admin(&mut self) -> Result<&Store, NotReady> {
        if self.store.is_none() {
            let was = self.tampered.take();
            let r = self.open();
            if self.tampered.is_none() {
                self.tampered = was;
            }
            r?;
        }
        self.store
            .as_ref()
            .ok_or_else(|| NotReady("Airlock's store is not open.".to_owned()))
    }

    /// The user cleared the tamper state (factor verified, ledgered by the caller): the
    /// settings cache is rewritten from the ledger and the policy recompiled.
    pub fn clear_tamper(&mut self) -> Result<(), NotReady> {
        self.tampered = None;
        if let Some(store) = &self.store {
            airlock_core::settings::repair_cache(store).map_err(|e| NotReady(e.to_string()))?;
            self.ledger_rows = store
                .ledger_head()
                .map(|(n, _)| usize::try_from(n).unwrap_or(0))
                .unwrap_or(0);
        }
        self.compiled = None;
        self.revalidate(true)
    }

    pub fn mark_bypassed(&mut self, host: &str, sid: &str) {
        let key = bypass_key(host, sid);
        if let Some(store) = &self.store {
            let _ = store.set_setting(
                &format!("{BYPASSED_PREFIX}{key}"),
                &clock::now_ms().to_string(),
            );
        }
        self.bypassed.insert(key);
        self.wrote();
    }

    /// Fills the learned baselines' p-values into `facts` (nothing while a baseline is
    /// immature or the store is closed: the baselines only ever add a step-up).
    pub fn score_baseline(&mut self, obs: &Observation, facts: &mut airlock_engine::CallFacts) {
        if let Some(store) = &self.store {
            self.baselines.score(store, obs, facts);
        }
    }

    /// Teaches the baselines a released call.
    pub fn learn_baseline(&mut self, obs: &Observation) {
        if let Some(store) = &self.store {
            match self.baselines.learn(store, obs) {
                Ok(()) => {}
                Err(e) => tracing::warn!(error = %e, "a learned baseline could not be saved"),
            }
        }
    }

    /// Saves what the baselines learned since the last save.
    pub fn flush_baselines(&mut self) {
        if let Some(store) = &self.store
            && let Err(e) = self.baselines.flush(store)
        {
            tracing::warn!(error = %e, "learned baselines could not be saved");
        }
    }

    pub fn is_bypassed(&self, host: &str, sid: &str) -> bool {
        self.bypassed.contains(&bypass_key(host, sid))
    }
}

/// The newest `tamper` ledger row that no later `tamper_cleared` row answers.
fn open_tamper(store: &Store) -> Option<String> {
    let rows = store.ledger().ok()?;
    let mut open = None;
    for r in rows {
        match r.entry.kind.as_str() {
            "tamper" => {
                open = Some(
                    r.entry
                        .detail
                        .get("what")
                        .and_then(|v| v.as_str())
                        .unwrap_or("out-of-band change")
                        .to_owned(),
                )
            }
            "tamper_cleared" if r.entry.outcome == "applied" => open = None,
            _ => {}
        }
    }
    open
}
