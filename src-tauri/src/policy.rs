//! Mode and enforcement changes from the tray, through `airlock_core::dials` (the one place
//! that changes them): raising applies at once, lowering needs the factor, and the setting and
//! its ledger row commit in one transaction (a refusal is ledgered too).

use airlock_core::dials::{self, Dial};
use airlock_core::factors::{self, Proof};
use airlock_core::{Paths, clock, settings};
use airlock_engine::{Enforcement, Mode};
use airlock_store::Store;
use anyhow::{Result, bail};
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
    /// The protection level in plain words ("user: tamper-evident only" / "system: enforced
    /// by the OS").
    pub level: String,
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

    fn dial(self) -> Dial {
        match self {
            Kind::Mode => Dial::Mode,
            Kind::Enforcement => Dial::Enforcement,
        }
    }
}

/// Current mode and enforcement, as the hook sees them (the verified ledger, raised by
/// `config.toml`).
pub fn current(store: &Store, paths: &Paths) -> Result<(Mode, Enforcement)> {
    let p = settings::load_policy(store, paths)?;
    Ok((p.mode, p.enforcement))
}

pub fn status(store: &Store, paths: &Paths) -> Result<Status> {
    let (mode, enforcement) = current(store, paths)?;
    Ok(Status {
        mode: mode.as_str().to_owned(),
        enforcement: enforcement.as_str().to_owned(),
        password_set: factors::password_is_set(store)?,
        totp_enrolled: factors::totp_enrolled(store)?,
        totp_needs_password: factors::totp_needs_password(store)?,
        level: airlock_core::Level::installed().describe().to_owned(),
    })
}

/// Would changing `kind` to `to` weaken protection? `None` when it is no change at all.
pub fn is_lowering(store: &Store, paths: &Paths, kind: Kind, to: &str) -> Result<Option<bool>> {
    lowering(current(store, paths)?, kind, to)
}

fn lowering(
    (mode, enforcement): (Mode, Enforcement),
    kind: Kind,
    to: &str,
) -> Result<Option<bool>> {
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

/// Applies a change. Raising needs nothing; lowering needs `proof`, else it is refused (and
/// the refusal ledgered). Returns a plain-words summary.
pub fn change(
    store: &Store,
    _paths: &Paths,
    kind: Kind,
    to: &str,
    proof: Option<&Proof>,
) -> Result<String> {
    let c = dials::change(store, kind.dial(), to, proof, "tray")?;
    if !c.applied {
        return Ok(format!("{} is already {}", kind.as_str(), c.to));
    }
    tracing::info!(kind = kind.as_str(), from = %c.from, to = %c.to, factor = %c.factor, "policy changed");
    Ok(format!("{}: {} → {}", kind.as_str(), c.from, c.to))
}

// ---------------------------------------------------------------------------------------
// The system level: the guard service owns the store, so the tray and the dashboard read
// and change the dials through it (the factor is verified there). The app's own store is not
// what the service judges by and is never shown at the system level.

fn service_call(req: &airlock_service::Request) -> Result<airlock_service::Response> {
    let ep = airlock_service::Endpoint::discover(std::env::current_exe().ok())?;
    match airlock_service::client::call(&ep, req, std::time::Duration::from_secs(30))? {
        airlock_service::Response::Error { message, .. } => bail!("{message}"),
        r => Ok(r),
    }
}

fn service_status() -> Result<airlock_service::Status> {
    match service_call(&airlock_service::Request::Status)? {
        airlock_service::Response::Status(s) => Ok(s),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// The dials where they are kept: the store at the user level, the service at the system
/// level.
pub fn current_at(paths: &Paths, system: bool) -> Result<(Mode, Enforcement)> {
    if system {
        let s = service_status()?;
        return Ok((s.mode.parse()?, s.enforcement.parse()?));
    }
    current(&paths.open_store()?, paths)
}

/// [`status`] wherever the dials are kept.
pub fn status_at(paths: &Paths, system: bool) -> Result<Status> {
    if !system {
        return status(&paths.open_store()?, paths);
    }
    let s = service_status()?;
    Ok(Status {
        mode: s.mode,
        enforcement: s.enforcement,
        password_set: s.password_set,
        totp_enrolled: s.factor.totp,
        totp_needs_password: s.factor.totp && s.factor.password,
        level: s.level_text,
    })
}

/// Would `to` weaken `kind`, wherever the dials are kept?
pub fn is_lowering_at(paths: &Paths, system: bool, kind: Kind, to: &str) -> Result<Option<bool>> {
    if !system {
        return is_lowering(&paths.open_store()?, paths, kind, to);
    }
    lowering(current_at(paths, system)?, kind, to)
}

/// [`change`] wherever the dials are kept (at the system level the service verifies the
/// factor and ledgers the change or the refusal).
pub fn change_at(
    paths: &Paths,
    system: bool,
    kind: Kind,
    to: &str,
    proof: Option<&Proof>,
) -> Result<String> {
    if !system {
        return change(&paths.open_store()?, paths, kind, to, proof);
    }
    let req = airlock_service::Request::Dial {
        dial: kind.as_str().to_owned(),
        to: to.to_owned(),
        proof: proof.cloned(),
    };
    match service_call(&req)? {
        airlock_service::Response::Changed(c) if !c.applied => {
            Ok(format!("{} is already {}", kind.as_str(), c.to))
        }
        airlock_service::Response::Changed(c) => {
            Ok(format!("{}: {} → {}", kind.as_str(), c.from, c.to))
        }
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// This user's decisions as the service keeps them (system level), newest first, narrowed by
/// `query` (at most [`airlock_service::protocol::MAX_DECISIONS`]).
pub fn service_decisions(
    mut query: airlock_service::protocol::DecisionQuery,
) -> Result<Vec<airlock_store::DecisionRow>> {
    query.limit = query.limit.min(airlock_service::protocol::MAX_DECISIONS);
    match service_call(&airlock_service::Request::Decisions { query })? {
        airlock_service::Response::Decisions { rows } => Ok(rows),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// Sets the first password in the guard service (system level: the user cannot write its
/// store; a password already set is changed only with the CLI and the old one).
pub fn service_set_password(password: &str) -> Result<()> {
    match service_call(&airlock_service::Request::SetPassword {
        password: password.to_owned(),
    })? {
        airlock_service::Response::Done => Ok(()),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// Starts TOTP enrolment in the guard service (system level); the `otpauth://` URI.
pub fn service_totp_begin(password: &str) -> Result<String> {
    match service_call(&airlock_service::Request::TotpBegin {
        password: password.to_owned(),
    })? {
        airlock_service::Response::TotpOffer { uri } => Ok(uri),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// Finishes TOTP enrolment in the guard service with a code from the authenticator.
pub fn service_totp_finish(password: &str, code: &str) -> Result<()> {
    match service_call(&airlock_service::Request::TotpFinish {
        password: password.to_owned(),
        code: code.to_owned(),
    })? {
        airlock_service::Response::Done => Ok(()),
        _ => bail!("the guard service answered something unexpected"),
    }
}

pub fn service_ledger() -> Result<(Vec<airlock_store::LedgerRow>, airlock_store::LedgerStatus)> {
    match service_call(&airlock_service::Request::Ledger)? {
        airlock_service::Response::Ledger { rows, status } => Ok((rows, status)),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// Checks the factor a high-risk approval needs.
pub fn verify_factor(store: &Store, proof: &Proof) -> Result<&'static str> {
    factors::verify(store, proof, clock::now_unix()).map_err(|e| anyhow::anyhow!("{e}"))
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
            level: airlock_core::Level::User,
            socket: dir.join("run/guard.sock"),
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
