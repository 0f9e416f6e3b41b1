//! Tool listings and results from the server: re-listing on change, pinning and screening the
//! definitions a client sees, and screening what a tool returns.

use super::*;

impl Core {
    /// List tools on the proxy's own account (after `initialized`, on `list_changed`).
    pub(super) async fn relist(&self, cursor: Option<Value>, pages: u32) {
        if pages >= MAX_LIST_PAGES {
            tracing::warn!("tool listing has too many pages; stopped following");
            return;
        }
        let id = self.new_id();
        self.st()
            .ours
            .insert(id_key(&id), Ours::List { pages: pages + 1 });
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        self.send_server(&codec::request(&id, "tools/list", params))
            .await;
    }

    // ---- server → client ------------------------------------------------------------

    /// Pin-check a `tools/list` page: remember every tool, hide changed / poisoned / reserved
    /// ones, and (for the client, on the last page) append the built-in tools.
    pub(super) async fn check_list(
        &self,
        mut raw: Value,
        for_client: bool,
    ) -> (Value, Option<Value>) {
        let Some(tools) = raw
            .get("result")
            .and_then(|r| r.get("tools"))
            .and_then(Value::as_array)
            .cloned()
        else {
            return (raw, None);
        };
        let guard = Arc::clone(&self.guard);
        let checked = tokio::task::spawn_blocking(move || guard.pin(&tools)).await;
        let checked = match checked {
            Ok(Ok(c)) => c,
            other => {
                let e = match other {
                    Ok(Err(e)) => format!("{e:#}"),
                    _ => "task failed".to_owned(),
                };
                // Fail closed: without pins nothing is shown.
                tracing::error!(error = %e, "could not check tool pins; hiding every tool");
                Vec::new()
            }
        };
        let mut visible = std::collections::HashSet::new();
        {
            let mut st = self.st();
            for (def, status) in checked {
                if !status.visible(self.guard.pin_policy()) {
                    tracing::warn!(tool = %def.name, status = status.as_str(), poison = ?def.poison, "tool hidden from the client");
                } else if !builtin::is_reserved(&def.name) {
                    visible.insert(def.name.clone());
                }
                st.tools.insert(def.name.clone(), Known { def, status });
            }
        }
        let cursor = raw
            .get("result")
            .and_then(|r| r.get("nextCursor"))
            .filter(|c| !c.is_null())
            .cloned();
        if let Some(list) = raw
            .get_mut("result")
            .and_then(|r| r.get_mut("tools"))
            .and_then(Value::as_array_mut)
        {
            list.retain(|t| {
                t.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| visible.contains(n))
            });
            if for_client && cursor.is_none() {
                list.extend(builtin::definitions());
            }
        }
        (raw, cursor)
    }

    /// Redact a `tools/call` result and update the session with what the agent will read.
    pub(super) async fn on_result(&self, action: Action, mut raw: Value) -> Value {
        if let Some(Value::String(m)) = raw.get_mut("error").and_then(|e| e.get_mut("message")) {
            let (red, _) = crate::redact::redact_text(self.guard.redactor(), m);
            *m = red;
        }
        if raw.get("result").is_none_or(|r| !r.is_object()) {
            return raw;
        }
        let tool = action.tool.clone();
        let done = inline(move || {
            let mut raw = raw;
            let r = match raw.get_mut("result") {
                Some(result) => self.guard.observe(&action, result),
                // Checked above; were it missing there would be nothing to show anyway.
                None => Err(anyhow::anyhow!("a result without a result")),
            };
            (raw, r)
        });
        match done {
            Ok((raw, Ok((n, screen)))) => {
                if n > 0 {
                    tracing::info!(tool = %tool, secrets = n, "secrets redacted from a tool result");
                }
                if screen.action != airlock_engine::ScreenAction::Off {
                    tracing::info!(
                        tool = %tool,
                        source = screen.source.as_str(),
                        withheld = screen.action == airlock_engine::ScreenAction::Block,
                        codes = ?screen.codes,
                        "tool result carried instructions for the agent"
                    );
                }
                raw
            }
            Ok((mut raw, Err(e))) => {
                tracing::error!(error = %format!("{e:#}"), "could not record a tool result; withheld");
                if let Some(r) = raw.get_mut("result") {
                    *r = builtin::error_result(
                        "Airlock could not record what this tool returned, so the result is withheld.",
                    );
                }
                raw
            }
            Err(_) => {
                json!({"jsonrpc": "2.0", "id": Value::Null, "error": {"code": code::INTERNAL_ERROR, "message": "internal error"}})
            }
        }
    }
}
