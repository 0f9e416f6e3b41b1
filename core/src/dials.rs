//! The dials — mode, enforcement, allow rules — changed in one place.
//!
//! A raise applies at once. A lowering takes a [`Proof`] (the factor) and an actor; a wrong or
//! missing factor is ledgered as `refused` and changes nothing. The setting and its ledger row
//! commit in one transaction ([`airlock_store::Store::set_setting_ledgered`]), so no setting
//! changes without its ledger entry, and since the values are read back from the verified
//! ledger ([`crate::settings::dials`]) a settings row written any other way has no effect.

use airlock_engine::{Enforcement, Mode, ResultSource, ScreenAction, TurnGate};
use airlock_store::{LedgerEntry, Store};
use serde_json::{Value, json};

use crate::CoreError;
use crate::clock;
use crate::factors::{self, Proof};
use crate::settings::{
    self, ALLOW_RULES_KEY, AllowRule, ENFORCEMENT_KEY, MODE_KEY, TURN_GATE_KEY, screening_key,
};

/// Which ordered dial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dial {
    Mode,
    Enforcement,
    /// The turn gate on user prompts (`on` / `off`).
    TurnGate,
    /// What one source's injected tool results get (`off` / `flag` / `block`).
    Screening(ResultSource),
}

impl Dial {
    pub fn kind(self) -> &'static str {
        self.key()
    }

    fn key(self) -> &'static str {
        match self {
            Dial::Mode => MODE_KEY,
            Dial::Enforcement => ENFORCEMENT_KEY,
            Dial::TurnGate => TURN_GATE_KEY,
            Dial::Screening(s) => screening_key(s),
        }
    }

    /// The dial's current value as the verified ledger has it.
    pub fn current(self, d: &settings::Dials) -> String {
        match self {
            Dial::Mode => d.mode.to_string(),
            Dial::Enforcement => d.enforcement.to_string(),
            Dial::TurnGate => d.turn_gate.to_string(),
            Dial::Screening(s) => d.screening.get(s).to_string(),
        }
    }

    /// Whether moving from the ledger's value to `to` lowers protection (an unknown value is
    /// an error naming what is expected).
    pub fn is_lowering(self, d: &settings::Dials, to: &str) -> Result<bool, CoreError> {
        self.lowers(&self.current(d), to)
    }

    /// Whether moving this dial from `from` to `to` (their text forms) lowers protection.
    pub fn lowers(self, from: &str, to: &str) -> Result<bool, CoreError> {
        Ok(match self {
            Dial::Mode => to.parse::<Mode>()? < from.parse::<Mode>()?,
            Dial::Enforcement => to.parse::<Enforcement>()? < from.parse::<Enforcement>()?,
            Dial::TurnGate => to.parse::<TurnGate>()? < from.parse::<TurnGate>()?,
            Dial::Screening(_) => to.parse::<ScreenAction>()? < from.parse::<ScreenAction>()?,
        })
    }

    /// Every dial, for listings.
    pub fn all() -> Vec<Dial> {
        let mut v = vec![Dial::Mode, Dial::Enforcement, Dial::TurnGate];
        v.extend(ResultSource::ALL.into_iter().map(Dial::Screening));
        v
    }

    /// The value's canonical text (`"OFF"` → `"off"`), or an error.
    fn canonical(self, to: &str) -> Result<String, CoreError> {
        Ok(match self {
            Dial::Mode => to.parse::<Mode>()?.to_string(),
            Dial::Enforcement => to.parse::<Enforcement>()?.to_string(),
            Dial::TurnGate => to.parse::<TurnGate>()?.to_string(),
            Dial::Screening(_) => to.parse::<ScreenAction>()?.to_string(),
        })
    }
}

impl std::str::FromStr for Dial {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "mode" => Ok(Dial::Mode),
            "enforcement" => Ok(Dial::Enforcement),
            "turn_gate" | "turn-gate" => Ok(Dial::TurnGate),
            other => match other.strip_prefix("screening.") {
                Some(src) => Ok(Dial::Screening(src.parse()?)),
                None => Err(CoreError::Invalid(format!("unknown dial {other:?}"))),
            },
        }
    }
}

/// What a change did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Changed {
    pub kind: String,
    pub from: String,
    pub to: String,
    /// `"none"` for a raise, else the factor that proved the lowering.
    pub factor: String,
    /// False when the dial already had that value (nothing was written).
    pub applied: bool,
}

pub(crate) fn entry(
    kind: &str,
    detail: Value,
    actor: &str,
    factor: &str,
    outcome: &str,
) -> LedgerEntry {
    LedgerEntry {
        ts_ms: clock::now_ms(),
        kind: kind.to_owned(),
        detail,
        actor: actor.to_owned(),
        factor: factor.to_owned(),
        outcome: outcome.to_owned(),
    }
}

/// Checks the factor for a weakening of `kind`; a refusal is ledgered before it is returned.
pub fn require_factor(
    store: &Store,
    proof: Option<&Proof>,
    kind: &str,
    detail: &Value,
    actor: &str,
) -> Result<&'static str, CoreError> {
    let empty = Proof::default();
    match factors::verify(store, proof.unwrap_or(&empty), clock::now_unix()) {
        Ok(name) => Ok(name),
        Err(e) => {
            store.append_ledger(&entry(kind, detail.clone(), actor, "none", "refused"))?;
            tracing::warn!(kind, actor, "weakening refused: factor missing or wrong");
            Err(CoreError::Refused(e))
        }
    }
}

/// Records an applied change that needs no setting (a wiring change, a password change) in
/// the ledger.
pub fn ledger_applied(
    store: &Store,
    kind: &str,
    detail: Value,
    actor: &str,
    factor: &str,
) -> Result<(), CoreError> {
    store.append_ledger(&entry(kind, detail, actor, factor, "applied"))?;
    Ok(())
}

/// Records a refused change (a wrong factor, a wrong code) in the ledger.
pub fn ledger_refused(
    store: &Store,
    kind: &str,
    detail: Value,
    actor: &str,
) -> Result<(), CoreError> {
    store.append_ledger(&entry(kind, detail, actor, "none", "refused"))?;
    Ok(())
}

/// Moves a dial to `to` (its text form). Raising applies; lowering needs `proof`.
pub fn change(
    store: &Store,
    dial: Dial,
    to: &str,
    proof: Option<&Proof>,
    actor: &str,
) -> Result<Changed, CoreError> {
    let current = settings::dials(store)?;
    let from = dial.current(&current);
    let lowering = dial.is_lowering(&current, to)?;
    let to = dial.canonical(to)?;
    if from == to {
        return Ok(Changed {
            kind: dial.kind().to_owned(),
            from,
            to,
            factor: "none".to_owned(),
            applied: false,
        });
    }
    let detail = json!({"from": from, "to": to});
    let factor = if lowering {
        require_factor(store, proof, dial.kind(), &detail, actor)?
    } else {
        "none"
    };
    store.set_setting_ledgered(
        dial.key(),
        Some(&to),
        &entry(dial.kind(), detail, actor, factor, "applied"),
    )?;
    tracing::info!(kind = dial.kind(), %from, %to, actor, factor, "dial changed");
    Ok(Changed {
        kind: dial.kind().to_owned(),
        from,
        to,
        factor: factor.to_owned(),
        applied: true,
    })
}

/// Adds an allow rule (a weakening: needs the factor). Hard blocks are never allowed by any
/// rule (see [`crate::pipeline::apply_allow_rules`]).
pub fn add_allow_rule(
    store: &Store,
    rule: AllowRule,
    proof: Option<&Proof>,
    actor: &str,
) -> Result<bool, CoreError> {
    if let Some(h) = &rule.host {
        // Validated with the engine's own parser, so a bad rule never lands.
        let cfg = airlock_engine::PolicyConfig {
            allow_hosts: vec![h.clone()],
            ..Default::default()
        };
        airlock_engine::Policy::compile(&cfg, &airlock_engine::HostFacts::default())?;
    }
    if let Some(scope) = &rule.scope {
        if rule.code.is_some() || rule.host.is_some() {
            return Err(CoreError::Invalid(
                "a scoped allow rule carries its reasons and hosts in its scope".to_owned(),
            ));
        }
        scope.validate()?;
    } else if rule.code.is_none() && rule.host.is_none() {
        return Err(CoreError::Invalid(
            "an allow rule needs a reason code or a host".to_owned(),
        ));
    }
    let mut rules = settings::allow_rules(store)?;
    if rules.contains(&rule) {
        return Ok(false);
    }
    let detail = serde_json::to_value(&rule)
        .map_err(|_| CoreError::Invalid("the allow rule cannot be written".to_owned()))?;
    let factor = require_factor(store, proof, "allow", &detail, actor)?;
    rules.push(rule);
    let cache = serde_json::to_string(&rules)
        .map_err(|_| CoreError::Invalid("the allow rules cannot be written".to_owned()))?;
    store.set_setting_ledgered(
        ALLOW_RULES_KEY,
        Some(&cache),
        &entry("allow", detail, actor, factor, "applied"),
    )?;
    Ok(true)
}

/// Removes an allow rule: a tightening, so no factor; ledgered.
pub fn remove_allow_rule(store: &Store, rule: &AllowRule, actor: &str) -> Result<bool, CoreError> {
    let mut rules = settings::allow_rules(store)?;
    let before = rules.len();
    rules.retain(|r| r != rule);
    if rules.len() == before {
        return Ok(false);
    }
    let detail = serde_json::to_value(rule)
        .map_err(|_| CoreError::Invalid("the allow rule cannot be written".to_owned()))?;
    let cache = serde_json::to_string(&rules)
        .map_err(|_| CoreError::Invalid("the allow rules cannot be written".to_owned()))?;
    store.set_setting_ledgered(
        ALLOW_RULES_KEY,
        Some(&cache),
        &entry("allow_remove", detail, actor, "none", "applied"),
    )?;
    Ok(true)
}

/// The rule an identifier from `airlock allow list` names: the full identifier or a prefix
/// of at least 4 characters that names exactly one rule.
pub fn find_allow_rule(rules: &[AllowRule], id: &str) -> Result<AllowRule, CoreError> {
    let id = id.trim().to_ascii_lowercase();
    if id.len() < 4 || !id.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(CoreError::Invalid(
            "an allow rule's identifier is the hexadecimal ID `airlock allow list` shows (at least 4 digits)".to_owned(),
        ));
    }
    let mut hits = rules.iter().filter(|r| r.id().starts_with(&id));
    match (hits.next(), hits.next()) {
        (Some(r), None) => Ok(r.clone()),
        (None, _) => Err(CoreError::Invalid(format!(
            "no allow rule has the ID {id} (see `airlock allow list`)"
        ))),
        (Some(_), Some(_)) => Err(CoreError::Invalid(format!(
            "{id} names more than one allow rule: give more digits"
        ))),
    }
}

/// Removes the allow rule `id` names (see [`find_allow_rule`]): a tightening, so no factor;
/// ledgered as `allow_remove`. Returns the rule removed.
pub fn remove_allow_rule_by_id(
    store: &Store,
    id: &str,
    actor: &str,
) -> Result<AllowRule, CoreError> {
    let rule = find_allow_rule(&settings::allow_rules(store)?, id)?;
    remove_allow_rule(store, &rule, actor)?;
    tracing::info!(actor, "allow rule removed");
    Ok(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_with_password() -> Store {
        let s = Store::open_in_memory().unwrap_or_else(|e| unreachable!("{e}"));
        factors::set_password(&s, "correct horse battery").unwrap_or_else(|e| unreachable!("{e}"));
        s
    }

    fn pw(p: &str) -> Proof {
        Proof {
            password: Some(p.to_owned()),
            code: None,
        }
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn raise_applies_lowering_needs_the_factor_and_both_are_ledgered() {
        let s = store_with_password();
        let c = change(&s, Dial::Mode, "strict", None, "test").unwrap();
        assert!(c.applied && c.factor == "none");
        assert!(matches!(
            change(&s, Dial::Mode, "light", None, "test"),
            Err(CoreError::Refused(_))
        ));
        assert!(matches!(
            change(
                &s,
                Dial::Mode,
                "light",
                Some(&pw("wrong password!")),
                "test"
            ),
            Err(CoreError::Refused(_))
        ));
        assert_eq!(settings::dials(&s).unwrap().mode, Mode::Strict);
        let c = change(
            &s,
            Dial::Mode,
            "light",
            Some(&pw("correct horse battery")),
            "test",
        )
        .unwrap();
        assert_eq!(c.factor, "password");
        assert_eq!(settings::dials(&s).unwrap().mode, Mode::Light);
        let outcomes: Vec<String> = s
            .ledger()
            .unwrap()
            .into_iter()
            .filter(|r| r.entry.kind == "mode")
            .map(|r| r.entry.outcome)
            .collect();
        assert_eq!(outcomes, ["applied", "refused", "refused", "applied"]);
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn a_settings_row_written_out_of_band_changes_nothing_and_is_reported() {
        let s = store_with_password();
        s.set_setting(ENFORCEMENT_KEY, "off").unwrap();
        s.set_setting(MODE_KEY, "light").unwrap();
        let d = settings::dials(&s).unwrap();
        assert_eq!(d.enforcement, Enforcement::Enforce);
        assert_eq!(d.mode, Mode::Balanced);
        assert_eq!(d.drift, [MODE_KEY, ENFORCEMENT_KEY]);
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn allow_rules_need_the_factor_to_add_and_none_to_remove() {
        let s = store_with_password();
        let rule = AllowRule {
            scope: None,
            code: Some("unlisted_destination".into()),
            host: None,
        };
        assert!(add_allow_rule(&s, rule.clone(), None, "test").is_err());
        assert!(settings::allow_rules(&s).unwrap().is_empty());
        assert!(
            add_allow_rule(&s, rule.clone(), Some(&pw("correct horse battery")), "test").unwrap()
        );
        assert_eq!(
            settings::allow_rules(&s).unwrap(),
            std::slice::from_ref(&rule)
        );
        assert!(remove_allow_rule(&s, &rule, "test").unwrap());
        assert!(settings::allow_rules(&s).unwrap().is_empty());
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn allow_rules_are_removed_by_id_and_the_replay_honours_the_order() {
        let s = store_with_password();
        let proof = pw("correct horse battery");
        let a = AllowRule {
            scope: None,
            code: Some("git_destructive".into()),
            host: None,
        };
        let b = AllowRule {
            scope: None,
            code: None,
            host: Some("*.example.com".into()),
        };
        assert!(add_allow_rule(&s, a.clone(), Some(&proof), "test").unwrap());
        assert!(add_allow_rule(&s, b.clone(), Some(&proof), "test").unwrap());
        // Identifiers are stable and distinct; too short, unknown or non-hex ones are refused.
        assert_eq!(a.id().len(), 8);
        assert_ne!(a.id(), b.id());
        assert_eq!(a.id(), a.clone().id());
        for bad in ["", "ab", "zzzz", "0000000000"] {
            assert!(matches!(
                find_allow_rule(&[a.clone(), b.clone()], bad),
                Err(CoreError::Invalid(_))
            ));
        }
        let removed = remove_allow_rule_by_id(&s, &a.id().to_uppercase(), "test").unwrap();
        assert_eq!(removed, a);
        assert_eq!(settings::allow_rules(&s).unwrap(), std::slice::from_ref(&b));
        assert!(remove_allow_rule_by_id(&s, &a.id(), "test").is_err());
        // Added again after its removal: the replay follows the ledger's order.
        assert!(add_allow_rule(&s, a.clone(), Some(&proof), "test").unwrap());
        let d = settings::dials(&s).unwrap();
        assert_eq!(d.allow_rules, vec![b.clone(), a.clone()]);
        assert!(d.drift.is_empty(), "{:?}", d.drift);
        let kinds: Vec<(String, String)> = s
            .ledger()
            .unwrap()
            .into_iter()
            .filter(|r| r.entry.kind.starts_with("allow"))
            .map(|r| (r.entry.kind, r.entry.factor))
            .collect();
        assert_eq!(
            kinds,
            [
                ("allow".to_owned(), "password".to_owned()),
                ("allow".to_owned(), "password".to_owned()),
                ("allow_remove".to_owned(), "none".to_owned()),
                ("allow".to_owned(), "password".to_owned()),
            ]
        );
        assert!(s.verify_ledger().unwrap().intact);
    }
}
