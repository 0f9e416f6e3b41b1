//! Remote approval's channel setting (issue #14): where a pending request is announced when
//! the user is away, and where answers are read back from.
//!
//! Setting a channel is a **loosening** — it opens a second way to approve and sends
//! request summaries off the machine — so [`set`] needs the factor and is ledgered
//! (`remote_approval`, or `refused`); [`off`] is a raise (no factor), ledgered as
//! `remote_approval_off`. The channel in force is replayed from the verified ledger
//! ([`current`]); the `remote_approval` settings row is only a cache for display.
//!
//! Remote approval is refused entirely without TOTP: the only factor that may travel
//! through a chat channel is a single-use code, never the password. So [`set`] fails unless
//! TOTP is enrolled.
//!
//! The relay itself (publishing, polling, verifying answers) is `airlock-remote`.

use airlock_store::Store;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::CoreError;
use crate::dials::{entry, require_factor};
use crate::factors::{self, Proof};

/// Settings row (display cache) and ledger kind of the channel.
pub const REMOTE_KEY: &str = "remote_approval";
/// Ledger kind of switching it off.
pub const REMOTE_OFF_KIND: &str = "remote_approval_off";
/// Longest `after_secs`: a request ends at the broker's 2-minute deadline, so a later
/// announcement would leave no time to answer.
pub const MAX_AFTER_SECS: u64 = 90;
const MAX_URL: usize = 2048;

/// What the outgoing channel speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelKind {
    /// An ntfy topic: plain text body, `Title` / `Priority` / `Tags` headers.
    Ntfy,
    /// A generic webhook: a JSON object (id, summary, reason codes, high risk, deadline, how
    /// to answer).
    Webhook,
    /// A Slack-style chat webhook: `{"text": …}`.
    Slack,
}

impl ChannelKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelKind::Ntfy => "ntfy",
            ChannelKind::Webhook => "webhook",
            ChannelKind::Slack => "slack",
        }
    }
}

impl std::fmt::Display for ChannelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ChannelKind {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ntfy" => Ok(ChannelKind::Ntfy),
            "webhook" => Ok(ChannelKind::Webhook),
            "slack" | "chat" => Ok(ChannelKind::Slack),
            other => Err(CoreError::Invalid(format!(
                "unknown channel kind {other:?}: use ntfy, webhook or slack"
            ))),
        }
    }
}

/// The remote approval channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteConfig {
    /// What the outgoing channel speaks.
    pub kind: ChannelKind,
    /// Where a pending request is announced (POST).
    pub notify_url: String,
    /// The ntfy-style topic answers are read from (`GET <answer_url>/json?poll=1&since=…`).
    pub answer_url: String,
    /// Announce a request only after it waited this long unanswered at the desk (0: at once).
    #[serde(default)]
    pub after_secs: u64,
}

fn check_url(what: &str, raw: &str, allow_query: bool) -> Result<url::Url, CoreError> {
    let bad = |why: &str| CoreError::Invalid(format!("{what} {why}"));
    if raw.len() > MAX_URL {
        return Err(bad("is too long"));
    }
    let u = url::Url::parse(raw.trim()).map_err(|e| bad(&format!("is not a URL ({e})")))?;
    let host = u.host_str().ok_or_else(|| bad("has no host"))?;
    let loopback = matches!(
        u.host(),
        Some(url::Host::Ipv4(a)) if a.is_loopback()
    ) || matches!(u.host(), Some(url::Host::Ipv6(a)) if a.is_loopback())
        || host.eq_ignore_ascii_case("localhost");
    match u.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(bad(
                "must use https (plain http is accepted only for a server on this machine)",
            ));
        }
        other => return Err(bad(&format!("has an unsupported scheme {other:?}"))),
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err(bad("must not carry a user name or password"));
    }
    if u.fragment().is_some() || (!allow_query && u.query().is_some()) {
        return Err(bad("must not have a query or fragment"));
    }
    Ok(u)
}

impl RemoteConfig {
    /// Checks the URLs (https, or http to this machine; no credentials in them; the answer
    /// topic without a query, since the poll appends its own) and `after_secs`.
    pub fn validate(&self) -> Result<(), CoreError> {
        check_url("--notify-url", &self.notify_url, true)?;
        check_url("--answer-url", &self.answer_url, false)?;
        if self.after_secs > MAX_AFTER_SECS {
            return Err(CoreError::Invalid(format!(
                "--after is at most {MAX_AFTER_SECS} seconds (requests end at the 2-minute deadline)"
            )));
        }
        Ok(())
    }

    /// The channel in plain words, without the topic paths (an ntfy topic name works like a
    /// password): `ntfy via ntfy.sh, answers via ntfy.sh, after 60 s`.
    pub fn describe(&self) -> String {
        let host = |u: &str| {
            url::Url::parse(u)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| "?".to_owned())
        };
        let after = if self.after_secs == 0 {
            "at once".to_owned()
        } else {
            format!("after {} s unanswered", self.after_secs)
        };
        format!(
            "{} via {}, answers via {}, {after}",
            self.kind,
            host(&self.notify_url),
            host(&self.answer_url)
        )
    }
}

/// The channel the verified ledger has in force (`None`: remote approval is off).
pub fn current(store: &Store) -> Result<Option<RemoteConfig>, CoreError> {
    let status = store.verify_ledger()?;
    if !status.intact {
        return Err(CoreError::Tampered(format!(
            "the ledger's hash chain is broken at entry {}",
            status.first_bad_seq.unwrap_or(0)
        )));
    }
    let mut cfg = None;
    for row in store.ledger()? {
        let e = &row.entry;
        if e.outcome != "applied" {
            continue;
        }
        match e.kind.as_str() {
            REMOTE_KEY => {
                let to = e.detail.get("to").cloned().ok_or(CoreError::Damaged {
                    what: "a remote_approval entry of the ledger",
                })?;
                cfg = Some(serde_json::from_value::<RemoteConfig>(to).map_err(|_| {
                    CoreError::Damaged {
                        what: "a remote_approval entry of the ledger",
                    }
                })?);
            }
            REMOTE_OFF_KIND => cfg = None,
            _ => {}
        }
    }
    Ok(cfg)
}

/// Sets the channel: a loosening, so it needs `proof` (a TOTP code: TOTP must be enrolled)
/// and writes the setting with its ledger row in one transaction. A missing or wrong factor
/// is ledgered `refused` and changes nothing. Returns false when that channel was already set.
pub fn set(
    store: &Store,
    cfg: &RemoteConfig,
    proof: Option<&Proof>,
    actor: &str,
) -> Result<bool, CoreError> {
    cfg.validate()?;
    if !factors::totp_enrolled(store)? {
        return Err(CoreError::Invalid(
            "remote approval needs TOTP (a password must never travel through a chat channel): run `airlock totp enroll` first".to_owned(),
        ));
    }
    let from = current(store)?;
    if from.as_ref() == Some(cfg) {
        return Ok(false);
    }
    let detail = json!({"from": from, "to": cfg});
    let factor = require_factor(store, proof, REMOTE_KEY, &detail, actor)?;
    let cache = serde_json::to_string(cfg)
        .map_err(|_| CoreError::Invalid("the channel cannot be written".to_owned()))?;
    store.set_setting_ledgered(
        REMOTE_KEY,
        Some(&cache),
        &entry(REMOTE_KEY, detail, actor, factor, "applied"),
    )?;
    tracing::info!(kind = %cfg.kind, actor, factor, "remote approval channel set");
    Ok(true)
}

/// Switches remote approval off: a raise, so no factor; ledgered. False when it was off.
pub fn off(store: &Store, actor: &str) -> Result<bool, CoreError> {
    let Some(from) = current(store)? else {
        return Ok(false);
    };
    store.set_setting_ledgered(
        REMOTE_KEY,
        None,
        &entry(
            REMOTE_OFF_KIND,
            json!({"from": from}),
            actor,
            "none",
            "applied",
        ),
    )?;
    tracing::info!(actor, "remote approval switched off");
    Ok(true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // test code
    use super::*;

    fn cfg(notify: &str, answer: &str) -> RemoteConfig {
        RemoteConfig {
            kind: ChannelKind::Ntfy,
            notify_url: notify.to_owned(),
            answer_url: answer.to_owned(),
            after_secs: 0,
        }
    }

    #[test]
    fn urls_must_be_https_or_this_machine_and_carry_no_credentials() {
        for (n, a, ok) in [
            ("https://ntfy.sh/t1", "https://ntfy.sh/t2", true),
            ("http://127.0.0.1:8080/t", "http://localhost:8080/a", true),
            ("http://[::1]:80/t", "http://127.0.0.2/a", true),
            ("http://ntfy.example/t", "https://ntfy.sh/a", false),
            ("https://ntfy.sh/t", "http://192.168.1.5/a", false),
            ("https://u:p@ntfy.sh/t", "https://ntfy.sh/a", false),
            ("https://ntfy.sh/t", "https://ntfy.sh/a?x=1", false),
            ("https://hooks.example/x?token=1", "https://ntfy.sh/a", true),
            ("file:///etc/passwd", "https://ntfy.sh/a", false),
            ("ntfy.sh/t", "https://ntfy.sh/a", false),
        ] {
            assert_eq!(cfg(n, a).validate().is_ok(), ok, "{n} {a}");
        }
        let mut late = cfg("https://ntfy.sh/t", "https://ntfy.sh/a");
        late.after_secs = MAX_AFTER_SECS + 1;
        assert!(late.validate().is_err());
    }

    #[test]
    fn describe_names_hosts_not_topics() {
        let c = cfg(
            "https://ntfy.sh/secret-topic",
            "https://ntfy.sh/secret-answers",
        );
        let d = c.describe();
        assert!(d.contains("ntfy.sh"), "{d}");
        assert!(!d.contains("secret"), "{d}");
    }

    #[test]
    fn setting_needs_totp_then_the_factor_and_off_needs_none() {
        let s = Store::open_in_memory().unwrap();
        crate::factors::set_password(&s, "correct horse").unwrap();
        let c = cfg("https://ntfy.sh/t", "https://ntfy.sh/a");
        // Password only: refused before any factor is asked.
        let pw = Proof {
            password: Some("correct horse".into()),
            code: None,
        };
        let e = set(&s, &c, Some(&pw), "test").unwrap_err();
        assert!(e.to_string().contains("TOTP"), "{e}");
        assert_eq!(current(&s).unwrap(), None);

        let (uri, _) = crate::factors::begin_totp_enroll(&s, "correct horse").unwrap();
        let now = crate::clock::now_unix();
        let code = crate::factors::current_code_for_uri(&uri, now).unwrap();
        crate::factors::finish_totp_enroll(&s, "correct horse", &code, now, false).unwrap();

        // No factor: refused and ledgered as such.
        assert!(matches!(
            set(&s, &c, None, "test"),
            Err(CoreError::Refused(_))
        ));
        assert_eq!(current(&s).unwrap(), None);
        let rows = s.ledger().unwrap();
        let last = &rows.last().unwrap().entry;
        assert_eq!(
            (last.kind.as_str(), last.outcome.as_str()),
            (REMOTE_KEY, "refused")
        );

        // A fresh code (the enrolment used this step's): applied and ledgered.
        let later = now + 30;
        let proof = Proof {
            password: Some("correct horse".into()),
            code: Some(crate::factors::current_code_for_uri(&uri, later).unwrap()),
        };
        assert!(set(&s, &c, Some(&proof), "test").unwrap());
        assert_eq!(current(&s).unwrap(), Some(c.clone()));
        let last = s.ledger().unwrap().last().unwrap().entry.clone();
        assert_eq!(
            (last.kind.as_str(), last.factor.as_str()),
            (REMOTE_KEY, "totp")
        );
        assert!(s.setting(REMOTE_KEY).unwrap().is_some());

        // Off: no factor, ledgered, and the ledger says off.
        assert!(off(&s, "test").unwrap());
        assert!(!off(&s, "test").unwrap());
        assert_eq!(current(&s).unwrap(), None);
        assert!(s.setting(REMOTE_KEY).unwrap().is_none());
        let last = s.ledger().unwrap().last().unwrap().entry.clone();
        assert_eq!(
            (last.kind.as_str(), last.factor.as_str()),
            (REMOTE_OFF_KIND, "none")
        );
    }
}
