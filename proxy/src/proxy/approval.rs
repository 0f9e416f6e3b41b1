//! Asking a human about a `tools/call`: the desktop app's popup (through the approval
//! broker, redeemed single use) or the client's own form elicitation, and what the answer does.

use super::*;

impl Core {
    /// AUTH: ask the user through the client (MCP elicitation) when it can prompt and the call
    /// is not high risk; else through the desktop app (whose popup asks for the factor on
    /// high-risk calls); else deny.
    pub(super) async fn ask(self: &Arc<Self>, id: Value, key: String, raw: Value, j: Judgement) {
        let can_elicit = self.st().elicitation && !j.decision.high_risk;
        if !can_elicit {
            self.ask_desktop(id, key, raw, j).await;
            return;
        }
        let (cancel_tx, cancel_rx) = oneshot::channel();
        let (ans_tx, ans_rx) = oneshot::channel();
        let eid = self.new_id();
        {
            let mut st = self.st();
            st.held.insert(key.clone(), cancel_tx);
            st.ours.insert(id_key(&eid), Ours::Elicit(ans_tx));
        }
        let tool = match &j.action.op {
            airlock_engine::Operation::McpCall { tool, .. } => prompt_safe(tool),
            _ => prompt_safe(&j.action.tool),
        };
        let reasons: Vec<String> = j
            .decision
            .reasons
            .iter()
            .map(|r| format!("- {}", r.message))
            .collect();
        let secs = self.opts.approval_timeout.as_secs();
        let message = format!(
            "Airlock: the agent wants to call the tool `{tool}` on the MCP server `{}`. It needs your approval because:\n{}\nApprove this call? (Denied automatically after {secs} s.)",
            self.guard.server(),
            reasons.join("\n")
        );
        let req = codec::request(
            &eid,
            "elicitation/create",
            json!({
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "approve": {
                            "type": "boolean",
                            "title": "Approve this call",
                            "description": "Allow this one tool call to run.",
                            "default": false
                        }
                    },
                    "required": ["approve"]
                }
            }),
        );
        self.send_client(&req).await;
        let core = Arc::clone(self);
        tokio::spawn(async move {
            core.await_approval(id, key, raw, j, eid, ans_rx, cancel_rx)
                .await;
        });
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn await_approval(
        self: Arc<Self>,
        id: Value,
        key: String,
        raw: Value,
        j: Judgement,
        eid: Value,
        ans_rx: oneshot::Receiver<Value>,
        cancel_rx: oneshot::Receiver<CancelWhy>,
    ) {
        let answer = tokio::select! {
            a = ans_rx => match a {
                Ok(resp) if approves(&resp) => Answer::Approved,
                _ => Answer::Declined,
            },
            c = cancel_rx => Answer::Cancelled(c.unwrap_or(CancelWhy::Client)),
            () = tokio::time::sleep(self.opts.approval_timeout) => Answer::Timeout,
        };
        {
            let mut st = self.st();
            st.held.remove(&key);
            st.ours.remove(&id_key(&eid));
        }
        if matches!(answer, Answer::Timeout | Answer::Cancelled(_)) {
            self.send_client(&codec::notification(
                "notifications/cancelled",
                json!({"requestId": eid, "reason": "The approval is no longer needed."}),
            ))
            .await;
        }
        self.finish_approval(id, key, raw, j, answer).await;
    }

    /// AUTH through the desktop app's approval service (`airlock-broker`): a popup, and the
    /// approval redeemed once in the store. A client cancellation hangs up, which closes the
    /// popup.
    pub(super) async fn ask_desktop(
        self: &Arc<Self>,
        id: Value,
        key: String,
        raw: Value,
        mut j: Judgement,
    ) {
        j.approved_via = "approved_in_app";
        let Some(sock) = self.opts.broker_socket.clone() else {
            self.finish_approval(id, key, raw, j, Answer::Unavailable)
                .await;
            return;
        };
        let (cancel_tx, cancel_rx) = oneshot::channel();
        {
            let mut st = self.st();
            st.held.insert(key.clone(), cancel_tx);
        }
        let wait = self.opts.approval_timeout;
        let req = airlock_broker::ApprovalRequest {
            host: crate::guard::HOST.to_owned(),
            session_id: self.guard.session_id().to_owned(),
            cwd: j.action.cwd.clone().unwrap_or_default(),
            tool: j.action.tool.clone(),
            summary: self.guard.summary(&j.action),
            reasons: j
                .decision
                .reasons
                .iter()
                .map(|r| airlock_broker::Reason {
                    code: r.code.clone(),
                    message: r.message.clone(),
                })
                .chain(
                    j.decision
                        .provenance()
                        .map(|message| airlock_broker::Reason {
                            code: "untrusted_source".to_owned(),
                            message,
                        }),
                )
                .collect(),
            high_risk: j.decision.high_risk,
            deadline_ms: airlock_broker::now_ms()
                .saturating_add(i64::try_from(wait.as_millis()).unwrap_or(55_000)),
            consequences: j
                .consequences
                .iter()
                .map(|c| airlock_broker::Consequence {
                    kind: c.kind.as_str().to_owned(),
                    text: c.text.clone(),
                    detail: c.detail.clone(),
                })
                .collect(),
            rule_choices: j
                .rule_choices
                .iter()
                .filter_map(|p| p.wire())
                .map(|(label, rule)| airlock_broker::RuleChoice { label, rule })
                .collect(),
        };
        let core = Arc::clone(self);
        tokio::spawn(async move {
            let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let (f2, req2) = (Arc::clone(&flag), req.clone());
            let mut asking = tokio::task::spawn_blocking(move || {
                airlock_broker::request_approval_cancellable(&sock, &req2, wait, &f2)
            });
            let answer = tokio::select! {
                r = &mut asking => match r {
                    Ok(airlock_broker::ApprovalResult::Approved { id: aid, nonce, .. }) => {
                        if core.redeem(aid, nonce, req).await {
                            Answer::Approved
                        } else {
                            Answer::Unavailable
                        }
                    }
                    Ok(airlock_broker::ApprovalResult::Denied { .. }) => Answer::Declined,
                    Ok(airlock_broker::ApprovalResult::Timeout { .. }) => Answer::Timeout,
                    Ok(airlock_broker::ApprovalResult::Unavailable { reason }) => {
                        tracing::info!(%reason, "desktop approval service unavailable");
                        Answer::Unavailable
                    }
                    // The user quit the app while it waited: as with no app (a denial).
                    Ok(airlock_broker::ApprovalResult::Withdrawn { .. }) => {
                        tracing::info!("desktop approval withdrawn: the app quit");
                        Answer::Unavailable
                    }
                    Err(_) => Answer::Unavailable,
                },
                c = cancel_rx => {
                    // Hang up: the broker ends the request and closes the popup.
                    flag.store(true, std::sync::atomic::Ordering::SeqCst);
                    let _ = asking.await;
                    Answer::Cancelled(c.unwrap_or(CancelWhy::Client))
                }
            };
            core.st().held.remove(&key);
            core.finish_approval(id, key, raw, j, answer).await;
        });
    }

    /// Use up a desktop approval in the store (single use, bound to this session and nonce).
    pub(super) async fn redeem(
        &self,
        aid: i64,
        nonce: String,
        req: airlock_broker::ApprovalRequest,
    ) -> bool {
        let guard = Arc::clone(&self.guard);
        matches!(
            tokio::task::spawn_blocking(move || guard.redeem(aid, &nonce, &req)).await,
            Ok(Ok(true))
        )
    }

    /// How an approval ended: forward (recorded first) or answer the denial.
    pub(super) async fn finish_approval(
        &self,
        id: Value,
        key: String,
        raw: Value,
        j: Judgement,
        answer: Answer,
    ) {
        let msg = j.first_message();
        match answer {
            Answer::Approved => {
                tracing::info!(tool = %j.action.tool, via = j.approved_via, "approved");
                if self.record(&j, Outcome::Approved).await {
                    self.forward(&id, key, Inflight::Call(Box::new(j.action)), &raw)
                        .await;
                } else {
                    self.reply_denied(
                        &id,
                        &j,
                        "Airlock could not record this call, so it is denied.",
                    )
                    .await;
                }
            }
            Answer::Unavailable => {
                self.record(&j, Outcome::Denied).await;
                let why = if j.decision.high_risk {
                    "This call is high risk: approving it needs your password or TOTP code in the Airlock app, which is not running."
                } else {
                    "This client cannot show approval prompts and the Airlock app is not running: open Airlock to approve calls like this."
                };
                self.reply_denied(&id, &j, &format!("{msg} {why}")).await;
            }
            Answer::Declined => {
                tracing::info!(tool = %j.action.tool, "declined");
                self.record(&j, Outcome::Denied).await;
                self.reply_denied(&id, &j, &format!("{msg} You did not approve it."))
                    .await;
            }
            Answer::Timeout => {
                tracing::warn!(tool = %j.action.tool, "approval timed out; denied");
                self.record(&j, Outcome::Timeout).await;
                self.reply_denied(
                    &id,
                    &j,
                    &format!("{msg} No approval arrived before the deadline, so it is denied."),
                )
                .await;
            }
            Answer::Cancelled(CancelWhy::Client) => {
                tracing::info!(tool = %j.action.tool, "cancelled by the client while awaiting approval");
                self.record(&j, Outcome::Denied).await;
            }
            Answer::Cancelled(CancelWhy::Upstream) => {
                // `upstream_gone` already answered the client.
                self.record(&j, Outcome::Denied).await;
            }
        }
    }
}
