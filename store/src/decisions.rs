//! The audit log: one row per judged tool call.
//!
//! A row holds reason *codes* and a keyed hash of the arguments — never the command, file
//! contents, URL or any other payload text, and never a secret.

use std::str::FromStr;

use rusqlite::types::Value as SqlValue;
use rusqlite::{params, params_from_iter};

use crate::{Store, StoreError};

/// What finally happened to a judged tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Allowed straight through.
    Passed,
    /// Refused without asking anyone.
    Blocked,
    /// A human approved it.
    Approved,
    /// A human refused it.
    Denied,
    /// Nobody answered before the deadline.
    Timeout,
    /// The hook process died (was killed) before it printed the answer: the host may have run
    /// the call without Airlock's verdict.
    Bypassed,
    /// Handed to the host's own permission prompt (no Airlock app to ask): the human answered
    /// there, and Airlock does not learn what they said.
    HostAsk,
    /// A tool result was screened and carried an injection signal: it reached the model with
    /// a warning note attached (or the host could not change it).
    Flagged,
    /// A tool result was screened and replaced by a note: the model never saw it.
    Withheld,
}

impl Outcome {
    /// Every outcome, in declaration order.
    pub const ALL: [Outcome; 9] = [
        Outcome::Passed,
        Outcome::Blocked,
        Outcome::Approved,
        Outcome::Denied,
        Outcome::Timeout,
        Outcome::Bypassed,
        Outcome::HostAsk,
        Outcome::Flagged,
        Outcome::Withheld,
    ];

    /// The stored (and serialised) name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Blocked => "blocked",
            Outcome::Approved => "approved",
            Outcome::Denied => "denied",
            Outcome::Timeout => "timeout",
            Outcome::Bypassed => "bypassed",
            Outcome::HostAsk => "host_ask",
            Outcome::Flagged => "flagged",
            Outcome::Withheld => "withheld",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no known variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {value:?}")]
pub struct ParseEnumError {
    /// Which enum was being parsed.
    pub what: &'static str,
    /// The rejected text.
    pub value: String,
}

impl FromStr for Outcome {
    type Err = ParseEnumError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Outcome::ALL
            .into_iter()
            .find(|o| o.as_str() == s)
            .ok_or_else(|| ParseEnumError {
                what: "outcome",
                value: s.to_owned(),
            })
    }
}

/// One audit-log row. Payload-free by construction: only codes, names and a hash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DecisionRow {
    /// Row id; ignored (pass 0) when inserting.
    pub id: i64,
    /// Caller clock, milliseconds since the Unix epoch.
    pub ts_ms: i64,
    /// Host agent, e.g. `"claude"`.
    pub host: String,
    /// The host's session id.
    pub session_id: String,
    /// The action kind (`"shell"`, `"file_write"`, ...).
    pub action_kind: String,
    /// The host's tool name.
    pub tool: String,
    /// The engine's verdict: `PASS`, `AUTH` or `BLOCK`.
    pub verdict: String,
    /// The verdict after the enforcement dial: `PASS`, `AUTH` or `BLOCK`.
    pub effective: String,
    /// Reason codes (never messages with payload text).
    pub reasons: Vec<String>,
    /// What finally happened.
    pub outcome: Outcome,
    /// Hex keyed hash of the tool arguments — never the arguments.
    pub args_hash: String,
    /// Strictness mode in force.
    pub mode: String,
}

/// Which decisions [`Store::recent_decisions`] returns. `limit == 0` means no limit.
#[derive(Debug, Clone, Default)]
pub struct DecisionFilter {
    /// At most this many rows; 0 = all.
    pub limit: usize,
    /// Only this host.
    pub host: Option<String>,
    /// Only this session id.
    pub session_id: Option<String>,
    /// Only this engine verdict (`PASS`, `AUTH`, `BLOCK`).
    pub verdict: Option<String>,
    /// Only this outcome.
    pub outcome: Option<Outcome>,
    /// Only rows with `ts_ms >= since_ms`.
    pub since_ms: Option<i64>,
}

const VERDICTS: [&str; 3] = ["PASS", "AUTH", "BLOCK"];

const COLUMNS: &str = "id, ts_ms, host, session_id, action_kind, tool, verdict, effective, \
                       reasons, outcome, args_hash, mode";

/// A decisions row as stored, before its JSON and enum columns are parsed.
struct RawDecision {
    id: i64,
    ts_ms: i64,
    host: String,
    session_id: String,
    action_kind: String,
    tool: String,
    verdict: String,
    effective: String,
    reasons: String,
    outcome: String,
    args_hash: String,
    mode: String,
}

fn raw_decision(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawDecision> {
    Ok(RawDecision {
        id: r.get(0)?,
        ts_ms: r.get(1)?,
        host: r.get(2)?,
        session_id: r.get(3)?,
        action_kind: r.get(4)?,
        tool: r.get(5)?,
        verdict: r.get(6)?,
        effective: r.get(7)?,
        reasons: r.get(8)?,
        outcome: r.get(9)?,
        args_hash: r.get(10)?,
        mode: r.get(11)?,
    })
}

impl TryFrom<RawDecision> for DecisionRow {
    type Error = StoreError;

    fn try_from(raw: RawDecision) -> Result<Self, StoreError> {
        let reasons = serde_json::from_str(&raw.reasons).map_err(|e| {
            StoreError::Corrupt(format!(
                "decision {}: reasons are not a JSON list ({e})",
                raw.id
            ))
        })?;
        let outcome = raw
            .outcome
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("decision {}: unknown outcome", raw.id)))?;
        Ok(DecisionRow {
            id: raw.id,
            ts_ms: raw.ts_ms,
            host: raw.host,
            session_id: raw.session_id,
            action_kind: raw.action_kind,
            tool: raw.tool,
            verdict: raw.verdict,
            effective: raw.effective,
            reasons,
            outcome,
            args_hash: raw.args_hash,
            mode: raw.mode,
        })
    }
}

fn limit_value(limit: usize) -> i64 {
    if limit == 0 {
        -1 // SQLite: a negative LIMIT means none.
    } else {
        i64::try_from(limit).unwrap_or(i64::MAX)
    }
}

impl Store {
    /// Records one decision; returns its id. `d.id` is ignored.
    ///
    /// Refuses (`Invalid`) a `verdict` or `effective` other than `PASS`, `AUTH`, `BLOCK`.
    pub fn record_decision(&self, d: &DecisionRow) -> Result<i64, StoreError> {
        insert_decision(&self.conn, d)
    }
    /// Decisions matching `filter`, newest (highest id) first.
    pub fn recent_decisions(
        &self,
        filter: &DecisionFilter,
    ) -> Result<Vec<DecisionRow>, StoreError> {
        let mut sql = format!("SELECT {COLUMNS} FROM decisions WHERE 1 = 1");
        let mut args: Vec<SqlValue> = Vec::new();
        if let Some(host) = &filter.host {
            sql.push_str(" AND host = ?");
            args.push(SqlValue::Text(host.clone()));
        }
        if let Some(session_id) = &filter.session_id {
            sql.push_str(" AND session_id = ?");
            args.push(SqlValue::Text(session_id.clone()));
        }
        if let Some(verdict) = &filter.verdict {
            sql.push_str(" AND verdict = ?");
            args.push(SqlValue::Text(verdict.clone()));
        }
        if let Some(outcome) = filter.outcome {
            sql.push_str(" AND outcome = ?");
            args.push(SqlValue::Text(outcome.as_str().to_owned()));
        }
        if let Some(since) = filter.since_ms {
            sql.push_str(" AND ts_ms >= ?");
            args.push(SqlValue::Integer(since));
        }
        sql.push_str(" ORDER BY id DESC LIMIT ?");
        args.push(SqlValue::Integer(limit_value(filter.limit)));

        let mut stmt = self.conn.prepare_cached(&sql)?;
        let raw = stmt
            .query_map(params_from_iter(args), raw_decision)?
            .collect::<Result<Vec<_>, _>>()?;
        raw.into_iter().map(DecisionRow::try_from).collect()
    }

    /// Decisions with an id greater than `id`, oldest first, at most `limit` (0 = all).
    /// Ids grow in commit order, so polling with the last id seen misses nothing.
    pub fn decisions_after(&self, id: i64, limit: usize) -> Result<Vec<DecisionRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM decisions WHERE id > ?1 ORDER BY id ASC LIMIT ?2"
        ))?;
        let raw = stmt
            .query_map(params![id, limit_value(limit)], raw_decision)?
            .collect::<Result<Vec<_>, _>>()?;
        raw.into_iter().map(DecisionRow::try_from).collect()
    }
}

/// The insert behind [`Store::record_decision`], on a connection or inside a transaction.
pub(crate) fn insert_decision(
    conn: &rusqlite::Connection,
    d: &DecisionRow,
) -> Result<i64, StoreError> {
    for (field, value) in [("verdict", &d.verdict), ("effective", &d.effective)] {
        if !VERDICTS.contains(&value.as_str()) {
            return Err(StoreError::Invalid(format!(
                "decision {field} must be PASS, AUTH or BLOCK"
            )));
        }
    }
    let reasons = serde_json::to_string(&d.reasons)?;
    let id = conn
        .prepare_cached(
            "INSERT INTO decisions (ts_ms, host, session_id, action_kind, tool, verdict, \
             effective, reasons, outcome, args_hash, mode) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING id",
        )?
        .query_row(
            params![
                d.ts_ms,
                d.host,
                d.session_id,
                d.action_kind,
                d.tool,
                d.verdict,
                d.effective,
                reasons,
                d.outcome.as_str(),
                d.args_hash,
                d.mode
            ],
            |r| r.get(0),
        )?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(i: i64, verdict: &str, outcome: Outcome) -> DecisionRow {
        DecisionRow {
            id: 0,
            ts_ms: 1_000 + i,
            host: "claude".to_owned(),
            session_id: if i % 2 == 0 { "s-even" } else { "s-odd" }.to_owned(),
            action_kind: "shell".to_owned(),
            tool: "Bash".to_owned(),
            verdict: verdict.to_owned(),
            effective: verdict.to_owned(),
            reasons: vec!["destructive".to_owned(), "bulk_delete".to_owned()],
            outcome,
            args_hash: "ab".repeat(32),
            mode: "balanced".to_owned(),
        }
    }

    #[test]
    fn outcome_round_trips() {
        for o in Outcome::ALL {
            assert_eq!(o.as_str().parse::<Outcome>().unwrap(), o);
            assert_eq!(
                serde_json::to_string(&o).unwrap(),
                format!("\"{}\"", o.as_str())
            );
        }
        assert!("PASSED".parse::<Outcome>().is_err());
    }

    #[test]
    fn record_and_read_back() {
        let store = Store::open_in_memory().unwrap();
        let d = decision(1, "BLOCK", Outcome::Blocked);
        let id = store.record_decision(&d).unwrap();
        assert!(id > 0);
        let rows = store.recent_decisions(&DecisionFilter::default()).unwrap();
        assert_eq!(rows, vec![DecisionRow { id, ..d }]);
    }

    #[test]
    fn bad_verdicts_are_refused() {
        let store = Store::open_in_memory().unwrap();
        let mut d = decision(1, "MAYBE", Outcome::Passed);
        assert_eq!(
            store.record_decision(&d).unwrap_err().code(),
            "store_invalid_argument"
        );
        d.verdict = "PASS".to_owned();
        d.effective = "pass".to_owned();
        assert!(store.record_decision(&d).is_err());
    }

    #[test]
    fn filters_and_order() {
        let store = Store::open_in_memory().unwrap();
        for i in 0..10 {
            let (v, o) = match i % 3 {
                0 => ("PASS", Outcome::Passed),
                1 => ("AUTH", Outcome::Approved),
                _ => ("BLOCK", Outcome::Blocked),
            };
            store.record_decision(&decision(i, v, o)).unwrap();
        }
        let all = store.recent_decisions(&DecisionFilter::default()).unwrap();
        assert_eq!(all.len(), 10);
        assert!(all.windows(2).all(|w| w[0].id > w[1].id), "newest first");

        let limited = store
            .recent_decisions(&DecisionFilter {
                limit: 3,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(limited.len(), 3);
        assert_eq!(limited[0].id, all[0].id);

        let blocks = store
            .recent_decisions(&DecisionFilter {
                verdict: Some("BLOCK".to_owned()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(blocks.len(), 3);
        assert!(blocks.iter().all(|d| d.verdict == "BLOCK"));

        let approved_odd = store
            .recent_decisions(&DecisionFilter {
                outcome: Some(Outcome::Approved),
                session_id: Some("s-odd".to_owned()),
                host: Some("claude".to_owned()),
                ..Default::default()
            })
            .unwrap();
        // i in {1, 4, 7} are AUTH; odd ones: 1, 7.
        assert_eq!(approved_odd.len(), 2);

        let since = store
            .recent_decisions(&DecisionFilter {
                since_ms: Some(1_007),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(since.len(), 3);

        let other_host = store
            .recent_decisions(&DecisionFilter {
                host: Some("cursor".to_owned()),
                ..Default::default()
            })
            .unwrap();
        assert!(other_host.is_empty());
    }

    #[test]
    fn decisions_after_pages_oldest_first() {
        let store = Store::open_in_memory().unwrap();
        let ids: Vec<i64> = (0..5)
            .map(|i| {
                store
                    .record_decision(&decision(i, "PASS", Outcome::Passed))
                    .unwrap()
            })
            .collect();
        let page = store.decisions_after(0, 2).unwrap();
        assert_eq!(page.iter().map(|d| d.id).collect::<Vec<_>>(), ids[..2]);
        let rest = store.decisions_after(ids[1], 0).unwrap();
        assert_eq!(rest.iter().map(|d| d.id).collect::<Vec<_>>(), ids[2..]);
        assert!(store.decisions_after(ids[4], 10).unwrap().is_empty());
    }

    #[test]
    fn a_garbled_row_reads_as_corrupt() {
        let store = Store::open_in_memory().unwrap();
        store
            .record_decision(&decision(1, "PASS", Outcome::Passed))
            .unwrap();
        store
            .conn
            .execute("UPDATE decisions SET outcome = 'exploded'", [])
            .unwrap();
        let err = store
            .recent_decisions(&DecisionFilter::default())
            .unwrap_err();
        assert_eq!(err.code(), "store_corrupt");
    }
}
