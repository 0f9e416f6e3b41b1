//! The policy-change ledger: append-only and hash-chained.
//!
//! Each row's `hash` is `hex(SHA-256(prev_hash || body))` where `prev_hash` is the previous
//! row's `hash` (64 ASCII zeros for row 1) and `body` is the JSON array
//! `[seq, ts_ms, kind, detail, actor, factor, outcome]` with `detail` in canonical form (object
//! keys sorted recursively, no whitespace). The canonical detail text is what is stored, so
//! verification hashes exactly the stored bytes and never depends on float re-parsing.
//!
//! Appends run inside `BEGIN IMMEDIATE`, so parallel appenders each read the true tail and
//! chain onto it. SQLite triggers abort any `UPDATE` or `DELETE` on the table; a tamperer who
//! bypasses them (drops the trigger, edits the file) is caught by [`Store::verify_ledger`].
//!
//! Limits, by design of an unkeyed chain: someone who rewrites every hash from the edit
//! onwards, or truncates the newest rows, is not detected. Anchoring the head hash elsewhere
//! (e.g. shown by the tray) closes that gap.

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::{Store, StoreError};

/// `prev_hash` of the first row.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One policy-relevant event, as the caller describes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LedgerEntry {
    /// Caller clock, milliseconds since the Unix epoch.
    pub ts_ms: i64,
    /// What changed: `"mode"`, `"enforcement"`, `"allow"`, `"password"`, `"totp"`, `"pins"`, ...
    pub kind: String,
    /// Structured detail, e.g. `{"from":"balanced","to":"light"}`. Never secrets.
    pub detail: Value,
    /// Who asked: `"cli"`, `"tray"`, `"agent"`.
    pub actor: String,
    /// How they proved it: `"totp"`, `"password"`, `"none"`.
    pub factor: String,
    /// `"applied"` or `"refused"`.
    pub outcome: String,
}

/// A stored ledger row.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LedgerRow {
    /// 1-based position in the chain.
    pub seq: i64,
    /// The entry as recorded (detail in canonical form).
    #[serde(flatten)]
    pub entry: LedgerEntry,
    /// Hash of the previous row ([`GENESIS_HASH`] for the first).
    pub prev_hash: String,
    /// `hex(SHA-256(prev_hash || body))`.
    pub hash: String,
}

/// Result of [`Store::verify_ledger`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LedgerStatus {
    /// Rows present in the table.
    pub rows: usize,
    /// True when every link and hash checks out.
    pub intact: bool,
    /// The first sequence number that is missing, out of place or fails its check.
    pub first_bad_seq: Option<i64>,
    /// What is wrong there (constant text plus numbers; never row contents).
    pub problem: Option<String>,
}

/// Lower-case hex of `bytes`.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            // A nibble is always < 16, so `from_digit` always succeeds.
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

/// `value` with every object's keys in sorted order (independent of serde_json's
/// `preserve_order` feature being switched on somewhere in the build).
pub(crate) fn canonicalize(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                if let Some(v) = map.get(key) {
                    out.insert(key.clone(), canonicalize(v));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonicalize).collect()),
        other => other.clone(),
    }
}

/// The fields that are hashed, with `detail` already in canonical text form.
struct Body<'a> {
    seq: i64,
    ts_ms: i64,
    kind: &'a str,
    detail: &'a str,
    actor: &'a str,
    factor: &'a str,
    outcome: &'a str,
}

fn chain_hash(prev_hash: &str, body: &Body<'_>) -> Result<String, StoreError> {
    let text = format!(
        "[{},{},{},{},{},{},{}]",
        body.seq,
        body.ts_ms,
        serde_json::to_string(body.kind)?,
        body.detail,
        serde_json::to_string(body.actor)?,
        serde_json::to_string(body.factor)?,
        serde_json::to_string(body.outcome)?,
    );
    let mut hasher = Sha256::new();
    hasher.update(prev_hash.as_bytes());
    hasher.update(text.as_bytes());
    Ok(to_hex(&hasher.finalize()))
}

/// A ledger row exactly as stored (detail as text).
struct RawRow {
    seq: i64,
    ts_ms: i64,
    kind: String,
    detail: String,
    actor: String,
    factor: String,
    outcome: String,
    prev_hash: String,
    hash: String,
}

const SELECT_ROWS: &str = "SELECT seq, ts_ms, kind, detail, actor, factor, outcome, prev_hash, \
                           hash FROM ledger ORDER BY seq";

fn raw_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    Ok(RawRow {
        seq: r.get(0)?,
        ts_ms: r.get(1)?,
        kind: r.get(2)?,
        detail: r.get(3)?,
        actor: r.get(4)?,
        factor: r.get(5)?,
        outcome: r.get(6)?,
        prev_hash: r.get(7)?,
        hash: r.get(8)?,
    })
}

impl RawRow {
    fn body(&self) -> Body<'_> {
        Body {
            seq: self.seq,
            ts_ms: self.ts_ms,
            kind: &self.kind,
            detail: &self.detail,
            actor: &self.actor,
            factor: &self.factor,
            outcome: &self.outcome,
        }
    }

    fn into_row(self) -> Result<LedgerRow, StoreError> {
        let detail = serde_json::from_str(&self.detail).map_err(|e| {
            StoreError::Corrupt(format!("ledger row {}: detail is not JSON ({e})", self.seq))
        })?;
        Ok(LedgerRow {
            seq: self.seq,
            entry: LedgerEntry {
                ts_ms: self.ts_ms,
                kind: self.kind,
                detail,
                actor: self.actor,
                factor: self.factor,
                outcome: self.outcome,
            },
            prev_hash: self.prev_hash,
            hash: self.hash,
        })
    }
}

impl Store {
    /// Appends `e` to the ledger, chained onto the current tail; returns the stored row.
    pub fn append_ledger(&self, e: &LedgerEntry) -> Result<LedgerRow, StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let row = append_in(&tx, e)?;
        tx.commit()?;
        tracing::debug!(seq = row.seq, kind = %e.kind, "ledger entry appended");
        Ok(row)
    }

    /// Sets (or, with `None`, removes) the setting `key` and appends `e` to the ledger in one
    /// `BEGIN IMMEDIATE` transaction: the change and its ledger row land together or not at
    /// all, so no setting can change without its ledger entry.
    pub fn set_setting_ledgered(
        &self,
        key: &str,
        value: Option<&str>,
        e: &LedgerEntry,
    ) -> Result<LedgerRow, StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        match value {
            Some(v) => {
                tx.prepare_cached(
                    "INSERT INTO settings (key, value) VALUES (?1, ?2) \
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                )?
                .execute(params![key, v])?;
            }
            None => {
                tx.prepare_cached("DELETE FROM settings WHERE key = ?1")?
                    .execute(params![key])?;
            }
        }
        let row = append_in(&tx, e)?;
        tx.commit()?;
        tracing::debug!(seq = row.seq, kind = %e.kind, "setting changed with its ledger entry");
        Ok(row)
    }

    /// The number of ledger rows and the newest row's hash (the genesis hash when empty).
    pub fn ledger_head(&self) -> Result<(i64, String), StoreError> {
        let tail: Option<(i64, String)> = self
            .conn
            .prepare_cached("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        Ok(tail.unwrap_or((0, GENESIS_HASH.to_owned())))
    }

    /// Every ledger row, oldest first.
    pub fn ledger(&self) -> Result<Vec<LedgerRow>, StoreError> {
        let mut stmt = self.conn.prepare_cached(SELECT_ROWS)?;
        let raw = stmt
            .query_map([], raw_row)?
            .collect::<Result<Vec<_>, _>>()?;
        raw.into_iter().map(RawRow::into_row).collect()
    }

    /// Recomputes every hash and checks the `prev_hash` links and that `seq` runs 1, 2, 3, ...
    /// without gaps. Reports the first sequence number where the chain breaks.
    pub fn verify_ledger(&self) -> Result<LedgerStatus, StoreError> {
        let mut stmt = self.conn.prepare_cached(SELECT_ROWS)?;
        let raw = stmt
            .query_map([], raw_row)?
            .collect::<Result<Vec<_>, _>>()?;

        let mut expected_seq: i64 = 1;
        let mut expected_prev = GENESIS_HASH.to_owned();
        let mut failure: Option<(i64, String)> = None;
        for row in &raw {
            if row.seq != expected_seq {
                failure = Some((
                    expected_seq,
                    format!(
                        "row {expected_seq} is missing or out of place (next row found is {})",
                        row.seq
                    ),
                ));
                break;
            }
            if row.prev_hash != expected_prev {
                failure = Some((
                    row.seq,
                    "prev_hash does not match the previous row's hash".to_owned(),
                ));
                break;
            }
            let recomputed = chain_hash(&row.prev_hash, &row.body())?;
            if recomputed != row.hash {
                failure = Some((
                    row.seq,
                    "hash does not match the row's contents (row was edited)".to_owned(),
                ));
                break;
            }
            expected_prev.clone_from(&row.hash);
            expected_seq = expected_seq.saturating_add(1);
        }

        if let Some((seq, problem)) = &failure {
            tracing::warn!(seq, problem = %problem, "ledger chain is broken");
        }
        let (first_bad_seq, problem) = match failure {
            Some((seq, problem)) => (Some(seq), Some(problem)),
            None => (None, None),
        };
        Ok(LedgerStatus {
            rows: raw.len(),
            intact: first_bad_seq.is_none(),
            first_bad_seq,
            problem,
        })
    }
}

fn append_in(tx: &Transaction<'_>, e: &LedgerEntry) -> Result<LedgerRow, StoreError> {
    let detail = canonicalize(&e.detail);
    let detail_text = serde_json::to_string(&detail)?;

    let tail: Option<(i64, String)> = tx
        .prepare_cached("SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (seq, prev_hash) = match tail {
        Some((last, hash)) => {
            let next = last
                .checked_add(1)
                .ok_or_else(|| StoreError::Corrupt("ledger sequence number overflow".to_owned()))?;
            (next, hash)
        }
        None => (1, GENESIS_HASH.to_owned()),
    };
    let body = Body {
        seq,
        ts_ms: e.ts_ms,
        kind: &e.kind,
        detail: &detail_text,
        actor: &e.actor,
        factor: &e.factor,
        outcome: &e.outcome,
    };
    let hash = chain_hash(&prev_hash, &body)?;
    tx.prepare_cached(
        "INSERT INTO ledger (seq, ts_ms, kind, detail, actor, factor, outcome, prev_hash, hash) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        seq,
        e.ts_ms,
        e.kind,
        detail_text,
        e.actor,
        e.factor,
        e.outcome,
        prev_hash,
        hash
    ])?;

    Ok(LedgerRow {
        seq,
        entry: LedgerEntry {
            detail,
            ..e.clone()
        },
        prev_hash,
        hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(kind: &str, detail: Value) -> LedgerEntry {
        LedgerEntry {
            ts_ms: 1_700_000_000_000,
            kind: kind.to_owned(),
            detail,
            actor: "cli".to_owned(),
            factor: "totp".to_owned(),
            outcome: "applied".to_owned(),
        }
    }

    #[test]
    fn hex_encodes_lower_case() {
        assert_eq!(to_hex(&[0x00, 0xab, 0x0f, 0xff]), "00ab0fff");
        assert_eq!(GENESIS_HASH.len(), 64);
    }

    #[test]
    fn canonical_form_sorts_keys_recursively() {
        let a = json!({"b": 1, "a": {"z": [ {"y": 1, "x": 2} ], "c": null}});
        let text = serde_json::to_string(&canonicalize(&a)).unwrap();
        assert_eq!(text, r#"{"a":{"c":null,"z":[{"x":2,"y":1}]},"b":1}"#);
    }

    #[test]
    fn chain_links_and_verifies() {
        let store = Store::open_in_memory().unwrap();
        let empty = store.verify_ledger().unwrap();
        assert_eq!(
            empty,
            LedgerStatus {
                rows: 0,
                intact: true,
                first_bad_seq: None,
                problem: None
            }
        );

        let r1 = store
            .append_ledger(&entry("mode", json!({"to": "light", "from": "balanced"})))
            .unwrap();
        let r2 = store
            .append_ledger(&entry(
                "enforcement",
                json!({"from": "enforce", "to": "monitor"}),
            ))
            .unwrap();
        assert_eq!(r1.seq, 1);
        assert_eq!(r1.prev_hash, GENESIS_HASH);
        assert_eq!(r2.seq, 2);
        assert_eq!(r2.prev_hash, r1.hash);
        assert_eq!(r1.hash.len(), 64);

        let rows = store.ledger().unwrap();
        assert_eq!(rows, vec![r1.clone(), r2]);
        assert_eq!(
            rows[0].entry.detail,
            json!({"from": "balanced", "to": "light"})
        );
        let status = store.verify_ledger().unwrap();
        assert!(status.intact);
        assert_eq!(status.rows, 2);
    }

    #[test]
    fn hash_is_pinned() {
        // Pins the exact serialisation: changing it would break every existing ledger.
        let body = Body {
            seq: 1,
            ts_ms: 5,
            kind: "mode",
            detail: r#"{"from":"balanced","to":"light"}"#,
            actor: "cli",
            factor: "none",
            outcome: "applied",
        };
        let expected = {
            let mut h = Sha256::new();
            h.update(GENESIS_HASH.as_bytes());
            h.update(br#"[1,5,"mode",{"from":"balanced","to":"light"},"cli","none","applied"]"#);
            to_hex(&h.finalize())
        };
        assert_eq!(chain_hash(GENESIS_HASH, &body).unwrap(), expected);
    }

    #[test]
    fn key_order_of_the_input_does_not_change_the_hash() {
        let a = Store::open_in_memory().unwrap();
        let b = Store::open_in_memory().unwrap();
        let ha = a
            .append_ledger(&entry("allow", json!({"x": 1, "a": [1, 2]})))
            .unwrap()
            .hash;
        let hb = b
            .append_ledger(&entry("allow", json!({"a": [1, 2], "x": 1})))
            .unwrap()
            .hash;
        assert_eq!(ha, hb);
    }

    #[test]
    fn triggers_refuse_update_and_delete() {
        let store = Store::open_in_memory().unwrap();
        store.append_ledger(&entry("mode", json!({}))).unwrap();
        let upd = store
            .conn
            .execute("UPDATE ledger SET kind = 'x' WHERE seq = 1", []);
        assert!(upd.is_err());
        let del = store.conn.execute("DELETE FROM ledger", []);
        assert!(del.is_err());
        assert!(store.verify_ledger().unwrap().intact);
        assert_eq!(store.ledger().unwrap().len(), 1);
    }

    #[test]
    fn a_string_field_edit_is_detected() {
        let store = Store::open_in_memory().unwrap();
        for i in 0..3 {
            store
                .append_ledger(&entry("mode", json!({"i": i})))
                .unwrap();
        }
        store
            .conn
            .execute_batch(
                "DROP TRIGGER ledger_no_update; UPDATE ledger SET outcome = 'refused' WHERE seq = 2;",
            )
            .unwrap();
        let status = store.verify_ledger().unwrap();
        assert!(!status.intact);
        assert_eq!(status.first_bad_seq, Some(2));
        assert_eq!(status.rows, 3);
    }

    #[test]
    fn a_relinked_row_is_detected_by_prev_hash() {
        let store = Store::open_in_memory().unwrap();
        for i in 0..3 {
            store
                .append_ledger(&entry("mode", json!({"i": i})))
                .unwrap();
        }
        store
            .conn
            .execute_batch(&format!(
                "DROP TRIGGER ledger_no_update; UPDATE ledger SET prev_hash = '{GENESIS_HASH}' WHERE seq = 3;"
            ))
            .unwrap();
        let status = store.verify_ledger().unwrap();
        assert_eq!(status.first_bad_seq, Some(3));
        assert!(status.problem.unwrap().contains("prev_hash"));
    }

    #[test]
    fn a_deleted_first_row_is_detected() {
        let store = Store::open_in_memory().unwrap();
        for i in 0..2 {
            store
                .append_ledger(&entry("mode", json!({"i": i})))
                .unwrap();
        }
        store
            .conn
            .execute_batch("DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE seq = 1;")
            .unwrap();
        let status = store.verify_ledger().unwrap();
        assert!(!status.intact);
        assert_eq!(status.first_bad_seq, Some(1));
        assert_eq!(status.rows, 1);
    }
}
