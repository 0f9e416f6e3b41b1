//! The app as the user's **approval agent** at the system level (issue #10; see
//! `airlock_service::agent`). The guard service runs as its own system user and cannot reach
//! this desktop session, so the app registers with it — with the user's factor, typed into the
//! unlock prompt and verified inside the service — and bridges each request the service
//! pushes to the app's own approval service, where it shows as the usual popup. The answer
//! goes back over the registered connection; a high-risk approval carries the factor typed
//! into the popup, which the service verifies (the app cannot read the system store).
//!
//! Nothing here approves on its own: an answer is sent only for a popup a human answered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_broker::{ApprovalRequest, ApprovalResult};
use airlock_core::factors::Proof;
use airlock_service::client::{AgentAnswerer, AgentSession};
use airlock_service::{AgentDecision, Endpoint, Response};

/// Most a bridged request waits for the popup (the broker's own hard deadline is shorter).
const MAX_WAIT: Duration = Duration::from_secs(180);

/// The agent's state in the app.
#[derive(Default)]
pub struct AgentState {
    /// Registered and connected.
    pub registered: AtomicBool,
    /// Factors typed into high-risk popups at the system level, by the local request id,
    /// until the bridge forwards them with the approval.
    proofs: Mutex<HashMap<i64, Proof>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AgentState {
    /// Keeps the factor a high-risk popup was approved with, for the service to verify.
    pub fn keep_proof(&self, local_id: i64, proof: Proof) {
        lock(&self.proofs).insert(local_id, proof);
    }

    fn take_proof(&self, local_id: i64) -> Option<Proof> {
        lock(&self.proofs).remove(&local_id)
    }
}

/// Registers with the system service and starts the bridge to `broker_socket` (the app's own
/// approval service). `on_end` runs when the service closes the connection.
pub fn unlock(
    state: Arc<AgentState>,
    proof: Proof,
    broker_socket: std::path::PathBuf,
    store_path: std::path::PathBuf,
    on_end: impl FnOnce() + Send + 'static,
) -> anyhow::Result<()> {
    let ep = Endpoint::discover(std::env::current_exe().ok())?;
    let (session, answerer) = AgentSession::register(&ep, proof)?;
    state.registered.store(true, Ordering::SeqCst);
    tracing::info!("approval agent registered with the system service");
    let answerer = Arc::new(Mutex::new(answerer));
    std::thread::Builder::new()
        .name("airlock-agent".into())
        .spawn(move || {
            bridge(&state, session, &answerer, &broker_socket, &store_path);
            state.registered.store(false, Ordering::SeqCst);
            tracing::warn!("the system service closed the approval agent's connection");
            on_end();
        })?;
    Ok(())
}

fn bridge(
    state: &Arc<AgentState>,
    mut session: AgentSession,
    answerer: &Arc<Mutex<AgentAnswerer>>,
    broker_socket: &std::path::Path,
    store_path: &std::path::Path,
) {
    let mut cancel: HashMap<u64, Arc<AtomicBool>> = HashMap::new();
    loop {
        match session.next_message() {
            Ok(Response::AgentAsk { id, request, .. }) => {
                let gone = Arc::new(AtomicBool::new(false));
                cancel.insert(id, Arc::clone(&gone));
                let (state, answerer) = (Arc::clone(state), Arc::clone(answerer));
                let (socket, store) = (broker_socket.to_owned(), store_path.to_owned());
                let spawned = std::thread::Builder::new()
                    .name("airlock-agent-ask".into())
                    .spawn(move || {
                        let d = ask_popup(&state, &request, &socket, &store, &gone);
                        if let Some((decision, proof)) = d
                            && let Err(e) = lock(&answerer).answer(id, decision, proof)
                        {
                            tracing::warn!(error = %e, "the approval could not be sent to the service");
                        }
                    });
                if spawned.is_err() {
                    tracing::error!("cannot start a thread for an approval request");
                }
            }
            Ok(Response::AgentClosed { id, .. }) => {
                if let Some(g) = cancel.remove(&id) {
                    g.store(true, Ordering::SeqCst);
                }
            }
            Ok(Response::Error { code, .. }) => {
                tracing::warn!(code = %code, "the service did not take an answer");
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    for g in cancel.values() {
        g.store(true, Ordering::SeqCst);
    }
}

/// Puts one request before the human in the app's own popup; the answer to send, if any.
fn ask_popup(
    state: &AgentState,
    request: &ApprovalRequest,
    socket: &std::path::Path,
    store: &std::path::Path,
    gone: &AtomicBool,
) -> Option<(AgentDecision, Option<Proof>)> {
    let wait = Duration::from_millis(
        u64::try_from(request.deadline_ms - airlock_core::clock::now_ms()).unwrap_or(0),
    )
    .min(MAX_WAIT);
    match airlock_broker::request_approval_cancellable(socket, request, wait, gone) {
        ApprovalResult::Approved {
            id,
            nonce,
            for_session,
        } => {
            // The local row is single use like any other: consume it.
            if let Ok(s) = airlock_store::Store::open(store) {
                let _ = airlock_broker::redeem(&s, id, &nonce, request);
            }
            let proof = state.take_proof(id);
            let decision = if for_session && !request.high_risk {
                AgentDecision::ApprovedForSession
            } else {
                AgentDecision::Approved
            };
            Some((decision, proof))
        }
        ApprovalResult::Denied { .. } => Some((AgentDecision::Denied, None)),
        // No answer at the desk: the service ends it at its own deadline.
        _ => None,
    }
}
