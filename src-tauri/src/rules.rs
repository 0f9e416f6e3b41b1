//! "Always, as a rule" in the app (issue #14): the popup's scopes, their replay against the
//! labelled corpus, saving one with the factor, and the dashboard's list with revoke.
//!
//! A request's scopes come from its client (the guard service). The app never shows the
//! client's words for them: each is parsed with core's `AllowRule` type, validated, and
//! stated by the app from the rule itself, so a forged request cannot describe a wide rule
//! as a narrow one. High-risk requests offer none. Saving is a weakening: the factor, the
//! ledger (`allow`, actor `tray`); revoking is a tightening (no factor; `allow_remove`).

use airlock_broker::PendingRequest;
use airlock_core::always::{self, Replay};
use airlock_core::factors::Proof;
use airlock_core::settings::{self, AllowRule, ListedAllowRule};
use airlock_core::{Level, Paths, clock, dials};
use airlock_service::{Endpoint, Request, Response, client};
use anyhow::{Context as _, Result, anyhow, bail};
use serde::Serialize;

const ADMIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Expiries the popup offers (days); 0 is "never".
pub const EXPIRY_DAYS: [u64; 5] = [1, 7, 30, 90, 0];

/// One scope as the popup shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RuleView {
    pub label: String,
    /// The rule in the app's words.
    pub description: String,
}

/// The request's scopes the app accepts (parsed, validated), in order, with their labels.
pub fn choices(req: &PendingRequest) -> Vec<(String, AllowRule)> {
    if req.high_risk {
        return Vec::new();
    }
    req.rule_choices
        .iter()
        .filter_map(|c| {
            let r = serde_json::from_value::<AllowRule>(c.rule.clone()).ok()?;
            let usable = r.code.is_none()
                && r.host.is_none()
                && r.scope.as_ref().is_some_and(|s| s.validate().is_ok());
            usable.then(|| (c.label.clone(), r))
        })
        .collect()
}

/// The scopes as the popup lists them.
pub fn views(req: &PendingRequest) -> Vec<RuleView> {
    choices(req)
        .into_iter()
        .map(|(label, rule)| RuleView {
            label,
            description: rule.describe(),
        })
        .collect()
}

/// Choice `index` of the request with the expiry set (`days` 0: never).
pub fn chosen(req: &PendingRequest, index: usize, days: u64) -> Result<AllowRule> {
    if req.high_risk {
        bail!("A high-risk call is approved once, each time: it cannot become a rule.");
    }
    if days != 0 && !EXPIRY_DAYS.contains(&days) {
        bail!("Choose one of the offered expiries.");
    }
    let (_, mut rule) = choices(req)
        .into_iter()
        .nth(index)
        .ok_or_else(|| anyhow!("This request offers no such rule."))?;
    if let Some(s) = rule.scope.as_mut() {
        s.expires_at = (days != 0).then(|| clock::now_unix().saturating_add(days * 86_400));
    }
    Ok(rule)
}

/// What the popup shows of a replay.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayView {
    pub description: String,
    /// The replay in a few sentences.
    pub lines: Vec<String>,
    /// The first corpus records it would let through (ids), for the curious.
    pub examples: Vec<String>,
    pub attacks: usize,
}

/// Replays `rule` against the built-in labelled corpus with this install's engine (the
/// store's policy at the user level; the built-in policy in the service's mode at the
/// system level, where the app cannot read the store).
pub fn replay(paths: &Paths, rule: &AllowRule) -> Result<ReplayView> {
    let scope = rule
        .scope
        .as_ref()
        .ok_or_else(|| anyhow!("not a scoped rule"))?;
    let (engine, custom) = if paths.level == Level::User {
        let store = paths.open_store()?;
        (
            settings::engine(&store, paths)?,
            settings::custom_rules(paths),
        )
    } else {
        let Response::Status(s) = client::call(&endpoint()?, &Request::Status, ADMIN_TIMEOUT)?
        else {
            bail!("the guard service answered something unexpected");
        };
        (
            always::replay_engine(s.mode.parse()?)?,
            airlock_core::custom::CustomRules::empty(),
        )
    };
    let r: Replay = always::replay(&engine, &custom, scope);
    tracing::info!(
        records = r.records,
        attacks = r.attacks_released.len(),
        benign = r.benign_released,
        "rule replayed"
    );
    Ok(ReplayView {
        description: rule.describe(),
        lines: always::replay_words(&r),
        examples: r
            .attacks_released
            .iter()
            .take(5)
            .map(|h| h.id.clone())
            .collect(),
        attacks: r.attacks_released.len(),
    })
}

fn endpoint() -> Result<Endpoint> {
    Endpoint::discover(std::env::current_exe().ok()).context("the guard service")
}

/// Saves `rule` with the factor (a weakening, ledgered); at the system level the guard
/// service verifies the factor and writes it.
pub fn save(paths: &Paths, rule: AllowRule, proof: &Proof) -> Result<()> {
    if paths.level == Level::User {
        let store = paths.open_store()?;
        dials::add_allow_rule(&store, rule, Some(proof), "tray")?;
        return Ok(());
    }
    match client::call(
        &endpoint()?,
        &Request::AllowAdd {
            rule,
            proof: Some(proof.clone()),
        },
        ADMIN_TIMEOUT,
    )? {
        Response::AllowRules { .. } => Ok(()),
        Response::Error { message, .. } => bail!("{message}"),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// The allow rules in force, for the dashboard.
pub fn list(paths: &Paths) -> Result<Vec<ListedAllowRule>> {
    if paths.level == Level::User {
        return Ok(settings::listed_allow_rules(&paths.open_store()?)?);
    }
    match client::call(&endpoint()?, &Request::AllowList, ADMIN_TIMEOUT)? {
        Response::AllowRules { rules, .. } => Ok(rules),
        Response::Error { message, .. } => bail!("{message}"),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// Revokes a rule by its identifier (a tightening: no factor; ledgered).
pub fn revoke(paths: &Paths, id: &str) -> Result<AllowRule> {
    if paths.level == Level::User {
        let store = paths.open_store()?;
        return Ok(dials::remove_allow_rule_by_id(&store, id, "tray")?);
    }
    match client::call(
        &endpoint()?,
        &Request::AllowRemove { id: id.to_owned() },
        ADMIN_TIMEOUT,
    )? {
        Response::AllowRules {
            changed: Some(r), ..
        } => Ok(r.rule),
        Response::AllowRules { changed: None, .. } => bail!("no such rule"),
        Response::Error { message, .. } => bail!("{message}"),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// A rule as the dashboard lists it.
#[derive(Debug, Clone, Serialize)]
pub struct ListedView {
    pub id: String,
    pub description: String,
    pub scoped: bool,
    pub expired: bool,
}

pub fn listed_views(rules: Vec<ListedAllowRule>) -> Vec<ListedView> {
    let now = clock::now_unix();
    rules
        .into_iter()
        .map(|r| ListedView {
            description: r.rule.describe(),
            scoped: r.rule.scope.is_some(),
            expired: r.rule.scope.as_ref().is_some_and(|s| s.expired(now)),
            id: r.id,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use airlock_core::always::Scope;

    fn request(rules: Vec<serde_json::Value>, high_risk: bool) -> PendingRequest {
        PendingRequest {
            id: 1,
            host: "claude-code".into(),
            session_id: "s".into(),
            cwd: "/home/dev/p".into(),
            tool: "Bash".into(),
            summary: "git reset --hard".into(),
            reasons: Vec::new(),
            consequences: Vec::new(),
            rule_choices: rules
                .into_iter()
                .map(|rule| airlock_broker::RuleChoice {
                    label: "Exactly this".into(),
                    rule,
                })
                .collect(),
            high_risk,
            created_ms: 0,
            deadline_ms: 1,
            armed_ms: 0,
        }
    }

    fn scoped() -> serde_json::Value {
        serde_json::to_value(AllowRule::scoped(Scope {
            reasons: vec!["git_discard_work".into()],
            programs: vec!["git reset".into()],
            project: Some("/home/dev/p".into()),
            ..Scope::default()
        }))
        .unwrap()
    }

    #[test]
    fn the_app_states_the_rule_itself_and_drops_what_it_cannot_use() {
        let req = request(
            vec![
                scoped(),
                // A global rule smuggled in as a "scope": not offered.
                serde_json::json!({"code": "secret_access", "host": null}),
                // Unbound: not offered.
                serde_json::json!({"code": null, "host": null, "scope": {"reasons": ["x"]}}),
                serde_json::json!("nonsense"),
            ],
            false,
        );
        let v = views(&req);
        assert_eq!(v.len(), 1);
        // Each rule keeps its own label when others before it are dropped.
        let mixed = PendingRequest {
            rule_choices: vec![
                airlock_broker::RuleChoice {
                    label: "Dropped".into(),
                    rule: serde_json::json!("nonsense"),
                },
                airlock_broker::RuleChoice {
                    label: "Kept".into(),
                    rule: scoped(),
                },
            ],
            ..request(Vec::new(), false)
        };
        assert_eq!(views(&mixed)[0].label, "Kept");
        assert!(
            v[0].description
                .contains("running git reset in /home/dev/p"),
            "{}",
            v[0].description
        );
        assert!(views(&request(vec![scoped()], true)).is_empty());
        assert!(chosen(&request(vec![scoped()], true), 0, 0).is_err());
    }

    #[test]
    fn the_expiry_is_one_of_the_offered_and_set_from_now() {
        let req = request(vec![scoped()], false);
        let r = chosen(&req, 0, 30).unwrap();
        let at = r.scope.unwrap().expires_at.unwrap();
        let now = clock::now_unix();
        assert!(at > now + 29 * 86_400 && at <= now + 30 * 86_400, "{at}");
        assert!(
            chosen(&req, 0, 0)
                .unwrap()
                .scope
                .unwrap()
                .expires_at
                .is_none()
        );
        assert!(chosen(&req, 0, 3).is_err());
        assert!(chosen(&req, 1, 30).is_err());
    }

    #[test]
    fn saving_needs_the_factor_and_revoking_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            db: dir.path().join("airlock.db"),
            config_dir: dir.path().join("config"),
            home: Some(dir.path().to_path_buf()),
            level: Level::User,
            socket: dir.path().join("run/guard.sock"),
        };
        let store = paths.open_store().unwrap();
        airlock_core::factors::set_password(&store, "correct horse").unwrap();
        let rule = chosen(&request(vec![scoped()], false), 0, 7).unwrap();
        let wrong = Proof {
            password: Some("nope nope".into()),
            code: None,
        };
        assert!(save(&paths, rule.clone(), &wrong).is_err());
        assert!(list(&paths).unwrap().is_empty());
        let right = Proof {
            password: Some("correct horse".into()),
            code: None,
        };
        save(&paths, rule.clone(), &right).unwrap();
        let listed = listed_views(list(&paths).unwrap());
        assert_eq!(listed.len(), 1);
        assert!(listed[0].scoped && !listed[0].expired);
        let r = replay(&paths, &rule).unwrap();
        assert!(r.lines[0].starts_with("Replayed against"), "{:?}", r.lines);
        revoke(&paths, &listed[0].id).unwrap();
        assert!(list(&paths).unwrap().is_empty());
        let kinds: Vec<(String, String, String)> = store
            .ledger()
            .unwrap()
            .into_iter()
            .map(|r| (r.entry.kind, r.entry.outcome, r.entry.actor))
            .collect();
        assert!(kinds.contains(&("allow".into(), "refused".into(), "tray".into())));
        assert!(kinds.contains(&("allow".into(), "applied".into(), "tray".into())));
        assert!(kinds.contains(&("allow_remove".into(), "applied".into(), "tray".into())));
    }
}
