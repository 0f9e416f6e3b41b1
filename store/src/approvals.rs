//! Pending human approvals for AUTH verdicts.
//!
//! Life cycle: `pending` → `approved` | `denied` | `timeout` (once, by
//! [`Store::resolve_approval`] or [`Store::expire_approvals`]). An approved row can be
//! consumed exactly once ([`Store::consume_approval`]), so one approval lets one tool call
//! through. A pending row whose deadline has passed counts as timed out: it cannot be resolved
//! any more, and `expire_approvals` marks it `timeout`. Every transition is a single guarded
//! `UPDATE`, atomic across processes.

use std::str::FromStr;

use rusqlite::{OptionalExtension, params};

use crate::decisions::ParseEnumError;
use crate::{Store, StoreError};

/// Where an approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalStatus {
    /// Waiting for a human.
    Pending,
    /// A human said yes.
    Approved,
    /// A human said no.
    Denied,
    /// Nobody answered before the deadline.
    Timeout,
}

impl ApprovalStatus {
    /// Every status, in declaration order.
    pub const ALL: [ApprovalStatus; 4] = [
        ApprovalStatus::Pending,
        ApprovalStatus::Approved,
        ApprovalStatus::Denied,
        ApprovalStatus::Timeout,
    ];

    /// The stored (and serialised) name.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Denied => "denied",
            ApprovalStatus::Timeout => "timeout",
        }
    }
}

impl std::fmt::Display for ApprovalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ApprovalStatus {
    type Err = ParseEnumError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ApprovalStatus::ALL
            .into_iter()
            .find(|o| o.as_str() == s)
            .ok_or_else(|| ParseEnumError {
                what: "approval status",
                value: s.to_owned(),
            })
    }
}

/// A request for approval, as the hook creates it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewApproval {
    /// Caller clock, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// After this instant (`now_ms >= deadline_ms`) the request has timed out.
    pub deadline_ms: i64,
    /// Host agent.
    pub host: String,
    /// The host's session id.
    pub session_id: String,
    /// What to show the human (redacted by the caller; never secrets).
    pub summary: serde_json::Value,
    /// Needs the stronger factor.
    pub high_risk: bool,
}

/// A stored approval.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ApprovalRow {
    /// Row id.
    pub id: i64,
    /// As created.
    pub created_ms: i64,
    /// As created.
    pub deadline_ms: i64,
    /// As created.
    pub host: String,
    /// As created.
    pub session_id: String,
    /// As created.
    pub summary: serde_json::Value,
    /// As created.
    pub high_risk: bool,
    /// Current status.
    pub status: ApprovalStatus,
    /// When it left `pending`.
    pub decided_ms: Option<i64>,
    /// Whether the approval has been used.
    pub consumed: bool,
}

const COLUMNS: &str = "id, created_ms, deadline_ms, host, session_id, summary, high_risk, \
                       status, decided_ms, consumed";

struct RawApproval {
    id: i64,
    created_ms: i64,
    deadline_ms: i64,
    host: String,
    session_id: String,
    summary: String,
    high_risk: bool,
    status: String,
    decided_ms: Option<i64>,
    consumed: bool,
}

fn raw_approval(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawApproval> {
    Ok(RawApproval {
        id: r.get(0)?,
        created_ms: r.get(1)?,
        deadline_ms: r.get(2)?,
        host: r.get(3)?,
        session_id: r.get(4)?,
        summary: r.get(5)?,
        high_risk: r.get(6)?,
        status: r.get(7)?,
        decided_ms: r.get(8)?,
        consumed: r.get(9)?,
    })
}

impl TryFrom<RawApproval> for ApprovalRow {
    type Error = StoreError;

    fn try_from(raw: RawApproval) -> Result<Self, StoreError> {
        let summary = serde_json::from_str(&raw.summary).map_err(|e| {
            StoreError::Corrupt(format!("approval {}: summary is not JSON ({e})", raw.id))
        })?;
        let status = raw
            .status
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("approval {}: unknown status", raw.id)))?;
        Ok(ApprovalRow {
            id: raw.id,
            created_ms: raw.created_ms,
            deadline_ms: raw.deadline_ms,
            host: raw.host,
            session_id: raw.session_id,
            summary,
            high_risk: raw.high_risk,
            status,
            decided_ms: raw.decided_ms,
            consumed: raw.consumed,
        })
    }
}

impl Store {
    /// Creates a `pending` approval; returns its id.
    pub fn create_approval(&self, a: &NewApproval) -> Result<i64, StoreError> {
        let summary = serde_json::to_string(&a.summary)?;
        let id = self
            .conn
            .prepare_cached(
                "INSERT INTO approvals (created_ms, deadline_ms, host, session_id, summary, \
                 high_risk) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )?
            .query_row(
                params![
                    a.created_ms,
                    a.deadline_ms,
                    a.host,
                    a.session_id,
                    summary,
                    a.high_risk
                ],
                |r| r.get(0),
            )?;
        Ok(id)
    }

    /// One approval by id.
    pub fn approval(&self, id: i64) -> Result<Option<ApprovalRow>, StoreError> {
        let raw = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM approvals WHERE id = ?1"))?
            .query_row(params![id], raw_approval)
            .optional()?;
        raw.map(ApprovalRow::try_from).transpose()
    }

    /// Pending approvals whose deadline is still ahead of `now_ms`, oldest first.
    pub fn pending_approvals(&self, now_ms: i64) -> Result<Vec<ApprovalRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM approvals WHERE status = 'pending' AND deadline_ms > ?1 \
             ORDER BY id ASC"
        ))?;
        let raw = stmt
            .query_map(params![now_ms], raw_approval)?
            .collect::<Result<Vec<_>, _>>()?;
        raw.into_iter().map(ApprovalRow::try_from).collect()
    }

    /// Moves a pending approval (deadline not yet reached) to `status`, stamping `now_ms`.
    /// Returns false if it is unknown, no longer pending or past its deadline.
    /// `status` must not be `Pending` (`Invalid`).
    pub fn resolve_approval(
        &self,
        id: i64,
        status: ApprovalStatus,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        if status == ApprovalStatus::Pending {
            return Err(StoreError::Invalid(
                "an approval cannot be resolved to pending".to_owned(),
            ));
        }
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE approvals SET status = ?2, decided_ms = ?3 \
                 WHERE id = ?1 AND status = 'pending' AND deadline_ms > ?3",
            )?
            .execute(params![id, status.as_str(), now_ms])?;
        if changed == 1 {
            tracing::debug!(id, status = status.as_str(), "approval resolved");
        }
        Ok(changed == 1)
    }

    /// Uses an approved approval. True exactly once, and only if it is `approved`.
    pub fn consume_approval(&self, id: i64) -> Result<bool, StoreError> {
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE approvals SET consumed = 1 \
                 WHERE id = ?1 AND status = 'approved' AND consumed = 0",
            )?
            .execute(params![id])?;
        Ok(changed == 1)
    }

    /// Marks every pending approval whose deadline is at or before `now_ms` as `timeout`;
    /// returns how many.
    pub fn expire_approvals(&self, now_ms: i64) -> Result<usize, StoreError> {
        let n = self
            .conn
            .prepare_cached(
                "UPDATE approvals SET status = 'timeout', decided_ms = ?1 \
                 WHERE status = 'pending' AND deadline_ms <= ?1",
            )?
            .execute(params![now_ms])?;
        if n > 0 {
            tracing::debug!(count = n, "approvals expired");
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn new(created: i64, deadline: i64) -> NewApproval {
        NewApproval {
            created_ms: created,
            deadline_ms: deadline,
            host: "claude".to_owned(),
            session_id: "s1".to_owned(),
            summary: json!({"tool": "Bash", "reasons": ["destructive"]}),
            high_risk: true,
        }
    }

    #[test]
    fn status_round_trips() {
        for s in ApprovalStatus::ALL {
            assert_eq!(s.as_str().parse::<ApprovalStatus>().unwrap(), s);
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
        assert!("Pending".parse::<ApprovalStatus>().is_err());
    }

    #[test]
    fn create_and_read() {
        let store = Store::open_in_memory().unwrap();
        let id = store.create_approval(&new(100, 200)).unwrap();
        let row = store.approval(id).unwrap().unwrap();
        assert_eq!(row.status, ApprovalStatus::Pending);
        assert_eq!(
            row.summary,
            json!({"tool": "Bash", "reasons": ["destructive"]})
        );
        assert!(row.high_risk);
        assert!(!row.consumed);
        assert_eq!(row.decided_ms, None);
        assert_eq!(store.approval(id + 1000).unwrap(), None);
    }

    #[test]
    fn approve_then_consume_once() {
        let store = Store::open_in_memory().unwrap();
        let id = store.create_approval(&new(100, 200)).unwrap();
        assert!(
            !store.consume_approval(id).unwrap(),
            "pending cannot be consumed"
        );
        assert!(
            store
                .resolve_approval(id, ApprovalStatus::Approved, 150)
                .unwrap()
        );
        assert!(
            !store
                .resolve_approval(id, ApprovalStatus::Denied, 151)
                .unwrap()
        );
        let row = store.approval(id).unwrap().unwrap();
        assert_eq!(row.status, ApprovalStatus::Approved);
        assert_eq!(row.decided_ms, Some(150));
        assert!(store.consume_approval(id).unwrap());
        assert!(!store.consume_approval(id).unwrap());
        assert!(store.approval(id).unwrap().unwrap().consumed);
    }

    #[test]
    fn denied_cannot_be_consumed() {
        let store = Store::open_in_memory().unwrap();
        let id = store.create_approval(&new(100, 200)).unwrap();
        assert!(
            store
                .resolve_approval(id, ApprovalStatus::Denied, 150)
                .unwrap()
        );
        assert!(!store.consume_approval(id).unwrap());
    }

    #[test]
    fn resolving_to_pending_is_refused_and_unknown_ids_are_false() {
        let store = Store::open_in_memory().unwrap();
        let id = store.create_approval(&new(100, 200)).unwrap();
        assert_eq!(
            store
                .resolve_approval(id, ApprovalStatus::Pending, 150)
                .unwrap_err()
                .code(),
            "store_invalid_argument"
        );
        assert!(
            !store
                .resolve_approval(9999, ApprovalStatus::Approved, 150)
                .unwrap()
        );
        assert!(!store.consume_approval(9999).unwrap());
    }

    #[test]
    fn deadlines() {
        let store = Store::open_in_memory().unwrap();
        let early = store.create_approval(&new(100, 200)).unwrap();
        let late = store.create_approval(&new(100, 500)).unwrap();
        let pending: Vec<i64> = store
            .pending_approvals(150)
            .unwrap()
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(pending, vec![early, late]);
        // At the deadline the early one no longer counts as pending and cannot be approved.
        let pending: Vec<i64> = store
            .pending_approvals(200)
            .unwrap()
            .iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(pending, vec![late]);
        assert!(
            !store
                .resolve_approval(early, ApprovalStatus::Approved, 200)
                .unwrap()
        );

        assert_eq!(store.expire_approvals(200).unwrap(), 1);
        assert_eq!(store.expire_approvals(200).unwrap(), 0);
        let row = store.approval(early).unwrap().unwrap();
        assert_eq!(row.status, ApprovalStatus::Timeout);
        assert_eq!(row.decided_ms, Some(200));
        assert_eq!(
            store.approval(late).unwrap().unwrap().status,
            ApprovalStatus::Pending
        );
    }
}
