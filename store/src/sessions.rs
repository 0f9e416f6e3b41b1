//! Per-session memory (opaque JSON owned by the caller) and key/value settings.

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use crate::{Store, StoreError};

fn upsert(
    conn: &rusqlite::Connection,
    host: &str,
    session_id: &str,
    state: &str,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO sessions (host, session_id, state) VALUES (?1, ?2, ?3) \
         ON CONFLICT (host, session_id) \
         DO UPDATE SET state = excluded.state, revision = revision + 1",
    )?
    .execute(params![host, session_id, state])?;
    Ok(())
}

impl Store {
    /// The stored JSON text for `(host, session_id)`, if any.
    pub fn load_session(&self, host: &str, session_id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT state FROM sessions WHERE host = ?1 AND session_id = ?2")?
            .query_row(params![host, session_id], |r| r.get(0))
            .optional()?)
    }

    /// Atomic read-modify-write of one session: inside `BEGIN IMMEDIATE`, reads the current
    /// text (`None` for a new session), stores what `f` returns and returns it. Parallel
    /// callers on the same session are serialised, so no update is lost. If `f` panics the
    /// transaction is rolled back. `f` must be a pure function of the text: it is first tried
    /// on a plain read, and when it returns the text unchanged nothing is written (no write
    /// lock taken); otherwise it runs again inside the transaction.
    pub fn update_session<F>(
        &self,
        host: &str,
        session_id: &str,
        f: F,
    ) -> Result<String, StoreError>
    where
        F: Fn(Option<&str>) -> String,
    {
        // Fast path, no write lock: when `f` learns nothing from the current state (the common
        // case for a tool result), there is nothing to write and no update can be lost.
        let seen = self.load_session(host, session_id)?;
        if let Some(cur) = &seen {
            let next = f(Some(cur));
            if next == *cur {
                return Ok(next);
            }
        }
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let current: Option<String> = tx
            .prepare_cached("SELECT state FROM sessions WHERE host = ?1 AND session_id = ?2")?
            .query_row(params![host, session_id], |r| r.get(0))
            .optional()?;
        let next = f(current.as_deref());
        if current.as_deref() != Some(next.as_str()) {
            upsert(&tx, host, session_id, &next)?;
        }
        tx.commit()?;
        Ok(next)
    }

    /// [`Store::update_session`] and [`Store::record_decision`] in one `BEGIN IMMEDIATE`
    /// transaction: both land or neither does (one commit instead of two on the hot path).
    /// Returns the decision's id.
    pub fn record_decision_and_session<F>(
        &self,
        d: &crate::DecisionRow,
        f: F,
    ) -> Result<i64, StoreError>
    where
        F: FnOnce(Option<&str>) -> String,
    {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let current: Option<String> = tx
            .prepare_cached("SELECT state FROM sessions WHERE host = ?1 AND session_id = ?2")?
            .query_row(params![d.host, d.session_id], |r| r.get(0))
            .optional()?;
        let next = f(current.as_deref());
        if current.as_deref() != Some(next.as_str()) {
            upsert(&tx, &d.host, &d.session_id, &next)?;
        }
        let id = crate::decisions::insert_decision(&tx, d)?;
        tx.commit()?;
        Ok(id)
    }

    /// A setting's value, if set.
    pub fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT value FROM settings WHERE key = ?1")?
            .query_row(params![key], |r| r.get(0))
            .optional()?)
    }

    /// Sets (inserts or replaces) a setting.
    pub fn set_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn
            .prepare_cached(
                "INSERT INTO settings (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![key, value])?;
        Ok(())
    }

    /// Every setting whose key starts with `prefix`, as `(key, value)`, sorted by key.
    pub fn settings_with_prefix(&self, prefix: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT key, value FROM settings WHERE substr(key, 1, length(?1)) = ?1 ORDER BY key",
        )?;
        let rows = stmt
            .query_map(params![prefix], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Removes a setting; removing an absent key is not an error.
    pub fn delete_setting(&self, key: &str) -> Result<(), StoreError> {
        self.conn
            .prepare_cached("DELETE FROM settings WHERE key = ?1")?
            .execute(params![key])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: &str) -> crate::DecisionRow {
        crate::DecisionRow {
            id: 0,
            ts_ms: 1,
            host: "mcp-proxy".into(),
            session_id: "s1".into(),
            action_kind: "mcp_tool_call".into(),
            tool: "t".into(),
            verdict: verdict.into(),
            effective: verdict.into(),
            reasons: vec![],
            outcome: crate::Outcome::Passed,
            args_hash: "h".into(),
            mode: "balanced".into(),
        }
    }

    #[test]
    fn decision_and_session_land_together_or_not_at_all() {
        let store = Store::open_in_memory().unwrap();
        let id = store
            .record_decision_and_session(&row("PASS"), |_| r#"{"n":1}"#.to_owned())
            .unwrap();
        assert!(id > 0);
        assert_eq!(
            store.load_session("mcp-proxy", "s1").unwrap().as_deref(),
            Some(r#"{"n":1}"#)
        );
        // A refused decision rolls the session update back.
        let err = store.record_decision_and_session(&row("MAYBE"), |_| r#"{"n":2}"#.to_owned());
        assert!(err.is_err());
        assert_eq!(
            store.load_session("mcp-proxy", "s1").unwrap().as_deref(),
            Some(r#"{"n":1}"#)
        );
        let rows = store
            .recent_decisions(&crate::DecisionFilter::default())
            .unwrap();
        assert_eq!(rows.len(), 1);
    }

    #[test]
    fn session_read_modify_write() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.load_session("claude", "s1").unwrap(), None);
        let first = store
            .update_session("claude", "s1", |old| {
                assert!(old.is_none());
                r#"{"n":1}"#.to_owned()
            })
            .unwrap();
        assert_eq!(first, r#"{"n":1}"#);
        let second = store
            .update_session("claude", "s1", |old| {
                assert_eq!(old, Some(r#"{"n":1}"#));
                r#"{"n":2}"#.to_owned()
            })
            .unwrap();
        assert_eq!(second, r#"{"n":2}"#);
        assert_eq!(
            store.load_session("claude", "s1").unwrap().as_deref(),
            Some(r#"{"n":2}"#)
        );
        // Keyed by host and session id together.
        assert_eq!(store.load_session("cursor", "s1").unwrap(), None);
        assert_eq!(store.load_session("claude", "s2").unwrap(), None);
    }

    #[test]
    fn a_panicking_update_rolls_back_and_the_store_stays_usable() {
        let store = Store::open_in_memory().unwrap();
        store
            .update_session("claude", "s1", |_| "1".to_owned())
            .unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = store.update_session("claude", "s1", |_| panic!("caller bug"));
        }));
        assert!(result.is_err());
        assert_eq!(
            store.load_session("claude", "s1").unwrap().as_deref(),
            Some("1")
        );
        store
            .update_session("claude", "s1", |_| "2".to_owned())
            .unwrap();
        assert_eq!(
            store.load_session("claude", "s1").unwrap().as_deref(),
            Some("2")
        );
    }

    #[test]
    fn settings_crud() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.setting("mode").unwrap(), None);
        store.set_setting("mode", "balanced").unwrap();
        store.set_setting("mode", "strict").unwrap();
        assert_eq!(store.setting("mode").unwrap().as_deref(), Some("strict"));
        store.delete_setting("mode").unwrap();
        store.delete_setting("mode").unwrap();
        assert_eq!(store.setting("mode").unwrap(), None);
    }
}
