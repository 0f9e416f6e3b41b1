//! Mode and enforcement changes from the tray: raising applies at once, lowering needs the
//! factor (the CLI's own `factors::verify`) and every change or refusal is ledgered.

use airlock_cli::app::{self, ENFORCEMENT_KEY, MODE_KEY, Paths};
use airlock_cli::factors::{self, Proof};
use airlock_engine::{Enforcement, Mode};
use airlock_store::{LedgerEntry, Store};
use anyhow::{Context, Result, bail};
use serde::Serialize;

/// Enforcement levels, weakest first.
pub const ENFORCEMENTS: [Enforcement; 3] =
    [Enforcement::Off, Enforcement::Monitor, Enforcement::Enforce];

/// What the tray and the pages show.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub mode: String,
    pub enforcement: String,
    pub password_set: bool,
    pub totp_enrolled: bool,
    /// TOTP is enrolled with the secret sealed under the password: both are needed.
    pub totp_needs_password: bool,
}

/// Which setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Mode,
    Enforcement,
}

impl Kind {
    pub fn parse(s: &str) -> Result<Kind> {
        match s {
            "mode" => Ok(Kind::Mode),
            "enforcement" => Ok(Kind::Enforcement),
            other => bail!("unknown setting `{other}`"),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Mode => "mode",
            Kind::Enforcement => "enforcement",
        }
    }
}

/// Current mode and enforcement (config file, then the store's settings, as the hook sees
/// them).
pub fn current(store: &Store, paths: &Paths) -> Result<(Mode, Enforcement)> {
    match app::load_policy(store, paths) {
        Ok(p) => Ok((p.mode, p.enforcement)),
        Err(e) => {
            tracing::warn!(error = %e, "policy did not load; reading the stored settings");
            let mode = match store.setting(MODE_KEY)? {
                Some(m) => m.parse::<Mode>()?,
                None => Mode::default(),
            };
            let enforcement = match store.setting(ENFORCEMENT_KEY)? {
                Some(e) => e.parse::<Enforcement>()?,
                None => Enforcement::default(),
            };
            Ok((mode, enforcement))
        }
    }
}

pub fn status(store: &Store, paths: &Paths) -> Result<Status> {
    let (mode, enforcement) = current(store, paths)?;
    Ok(Status {
        mode: mode.as_str().to_owned(),
        enforcement: enforcement.as_str().to_owned(),
        password_set: factors::password_is_set(store)?,
        totp_enrolled: factors::totp_enrolled(store)?,
        totp_needs_password: factors::totp_needs_password(store)?,
    })
}

/// Would changing `kind` to `to` weaken protection? `None` when it is no change at all.
pub fn is_lowering(store: &Store, paths: &Paths, kind: Kind, to: &str) -> Result<Option<bool>> {
    let (mode, enforcement) = current(store, paths)?;
    Ok(match kind {
        Kind::Mode => {
            let to: Mode = to.parse()?;
            (to != mode).then_some(to < mode)
        }
        Kind::Enforcement => {
            let to: Enforcement = to.parse()?;
            (to != enforcement).then_some(to < enforcement)
        }
    })
}

fn ledger(store: &Store, kind: Kind, detail: serde_json::Value, factor: &str, outcome: &str) {
    let entry = LedgerEntry {
        ts_ms: app::now_ms(),
        kind: kind.as_str().to_owned(),
        detail,
        actor: "tray".into(),
        factor: factor.to_owned(),
        outcome: outcome.to_owned(),
    };
    if let Err(e) = store.append_ledger(&entry) {
        tracing::error!(error = %e, "could not write the ledger");
    }
}

/// Applies a change. Raising needs nothing; lowering needs `proof` to pass
/// `factors::verify`, else it is refused (and the refusal ledgered). Returns a plain-words
/// summary.
pub fn change(
    store: &Store,
    paths: &Paths,
    kind: Kind,
    to: &str,
    proof: Option<&Proof>,
) -> Result<String> {
    let (mode, enforcement) = current(store, paths)?;
    let (from, to_s, lowering) = match kind {
        Kind::Mode => {
            let t: Mode = to.parse()?;
            (mode.as_str(), t.as_str(), t < mode)
        }
        Kind::Enforcement => {
            let t: Enforcement = to.parse()?;
            (enforcement.as_str(), t.as_str(), t < enforcement)
        }
    };
    if from == to_s {
        return Ok(format!("{} is already {to_s}", kind.as_str()));
    }
    let detail = serde_json::json!({"from": from, "to": to_s});
    let factor = if lowering {
        let empty = Proof::default();
        match factors::verify(store, proof.unwrap_or(&empty), app::now_unix()) {
            Ok(name) => name,
            Err(e) => {
                ledger(store, kind, detail, "none", "refused");
                bail!("refused: {e}");
            }
        }
    } else {
        "none"
    };
    let key = match kind {
        Kind::Mode => MODE_KEY,
        Kind::Enforcement => ENFORCEMENT_KEY,
    };
    store
        .set_setting(key, to_s)
        .context("saving the new setting")?;
    ledger(store, kind, detail, factor, "applied");
    tracing::info!(
        kind = kind.as_str(),
        from,
        to = to_s,
        factor,
        "policy changed"
    );
    Ok(format!("{}: {from} → {to_s}", kind.as_str()))
}

/// Checks the factor a high-risk approval needs.
pub fn verify_factor(store: &Store, proof: &Proof) -> Result<&'static str> {
    factors::verify(store, proof, app::now_unix()).map_err(|e| anyhow::anyhow!("{e}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn paths(dir: &std::path::Path) -> Paths {
        Paths {
            db: dir.join("airlock.db"),
            config_dir: dir.join("config"),
            home: Some(dir.to_path_buf()),
        }
    }

    #[test]
    fn raise_applies_lower_needs_the_password_and_both_are_ledgered() {
        let dir = tempfile::tempdir().unwrap();
        let p = paths(dir.path());
        let store = p.open_store().unwrap();
        factors::set_password(&store, "correct horse").unwrap();
        assert_eq!(current(&store, &p).unwrap().0, Mode::Balanced);
        change(&store, &p, Kind::Mode, "strict", None).unwrap();
        assert_eq!(current(&store, &p).unwrap().0, Mode::Strict);
        assert!(change(&store, &p, Kind::Mode, "light", None).is_err());
        let wrong = Proof {
            password: Some("nope nope".into()),
            code: None,
        };
        assert!(change(&store, &p, Kind::Mode, "light", Some(&wrong)).is_err());
        assert_eq!(current(&store, &p).unwrap().0, Mode::Strict);
        let right = Proof {
            password: Some("correct horse".into()),
            code: None,
        };
        change(&store, &p, Kind::Mode, "light", Some(&right)).unwrap();
        assert_eq!(current(&store, &p).unwrap().0, Mode::Light);
        let outcomes: Vec<(String, String)> = store
            .ledger()
            .unwrap()
            .into_iter()
            .map(|r| (r.entry.outcome, r.entry.factor))
            .collect();
        assert_eq!(
            outcomes,
            vec![
                ("applied".into(), "none".into()),
                ("refused".into(), "none".into()),
                ("refused".into(), "none".into()),
                ("applied".into(), "password".into()),
            ]
        );
        assert!(is_lowering(&store, &p, Kind::Enforcement, "off").unwrap() == Some(true));
        assert!(
            is_lowering(&store, &p, Kind::Mode, "light")
                .unwrap()
                .is_none()
        );
    }
}
