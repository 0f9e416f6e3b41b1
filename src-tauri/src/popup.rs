//! Approval popups: what a popup reads (`approval_get`), its answers (once, for this session,
//! "always, as a rule"), and the windows themselves (one preloaded spare, one per request).

use crate::policy::{self, Status};
use crate::rules;
use crate::shell::{POPUP_H, POPUP_PREFIX, POPUP_W, Res, Shared, lock, proof};
use airlock_broker::{BrokerError, Decision, PendingRequest};
use serde::Serialize;
use std::time::Duration;
use tauri::{AppHandle, Emitter, Manager, State, WebviewUrl, WebviewWindowBuilder, Wry};

#[derive(Serialize)]
pub(crate) struct PopupInfo {
    request: PendingRequest,
    status: Status,
    /// The agent's name in words (`Claude Code`).
    agent: String,
    /// The scopes "always, as a rule" can write, in the app's words (empty: not offered).
    rules: Vec<rules::RuleView>,
    /// The expiries offered, in days (0: never).
    expiry_days: Vec<u64>,
}

const NOT_PENDING: &str = "This request is no longer pending.";

/// The pending request `id`, or why there is none.
fn pending(shared: &Shared, id: i64) -> Res<PendingRequest> {
    shared.broker.get(id).ok_or_else(|| NOT_PENDING.to_owned())
}

fn too_quick(wait_ms: f64) -> String {
    format!(
        "Too quick: the request can be approved in {:.1} s.",
        wait_ms / 1000.0
    )
}

#[tauri::command]
pub(crate) async fn approval_get(shared: State<'_, Shared>, id: i64) -> Res<PopupInfo> {
    let request = pending(&shared, id)?;
    // At the system level the factor is the system store's, which only the service reads.
    let status = policy::status_at(&shared.paths, shared.system).map_err(|e| format!("{e:#}"))?;
    Ok(PopupInfo {
        agent: airlock_core::words::agent_name(&request.host),
        rules: rules::views(&request),
        expiry_days: rules::EXPIRY_DAYS.to_vec(),
        request,
        status,
    })
}

/// The popup's "Always…" panel: the chosen scope in words and what it would let through of
/// the labelled corpus (run before the factor is asked).
#[tauri::command]
pub(crate) async fn rule_replay(
    shared: State<'_, Shared>,
    id: i64,
    choice: usize,
    days: u64,
) -> Res<rules::ReplayView> {
    let request = pending(&shared, id)?;
    let rule = rules::chosen(&request, choice, days).map_err(|e| e.to_string())?;
    rules::replay(&shared.paths, &rule).map_err(|e| format!("{e:#}"))
}

/// "Always, as a rule": save the chosen scope with the factor (a weakening, ledgered), then
/// approve this request once. Nothing is saved before the request is armed.
#[tauri::command]
pub(crate) async fn approval_always(
    app: AppHandle,
    shared: State<'_, Shared>,
    id: i64,
    choice: usize,
    days: u64,
    password: Option<String>,
    code: Option<String>,
) -> Res<()> {
    let request = pending(&shared, id)?;
    let wait_ms = request.armed_ms - airlock_core::clock::now_ms();
    if wait_ms > 0 {
        return Err(too_quick(wait_ms as f64));
    }
    let rule = rules::chosen(&request, choice, days).map_err(|e| e.to_string())?;
    rules::save(&shared.paths, rule, &proof(password, code))
        .map_err(|e| format!("Not saved: {e:#}"))?;
    tracing::info!(id, "rule saved from the popup");
    let _ = app.emit("policy-changed", ());
    let resolved = shared.broker.resolve(id, Decision::Approved);
    close_popup(&app, id);
    resolved.map_err(|e| format!("The rule was saved, but this request could not be approved: {e}"))
}

/// The rule panel drew a replay (for the log and the real-window test; no rule text).
#[tauri::command]
pub(crate) fn rule_panel_ready(id: i64, attacks: usize) {
    tracing::info!(id, attacks, "rule panel ready");
}

#[tauri::command]
pub(crate) async fn approval_decide(
    app: AppHandle,
    shared: State<'_, Shared>,
    id: i64,
    decision: Decision,
    password: Option<String>,
    code: Option<String>,
) -> Res<()> {
    let request = pending(&shared, id)?;
    if decision.approves() && request.high_risk {
        if shared.system {
            // The service verifies it against the system store when the agent forwards the
            // approval; a wrong factor is refused there and the call stays denied.
            shared.agent.keep_proof(id, proof(password, code));
        } else {
            let store = shared.paths.open_store().map_err(|e| e.to_string())?;
            policy::verify_factor(&store, &proof(password, code))
                .map_err(|e| format!("Not approved: {e}"))?;
        }
    }
    match shared.broker.resolve(id, decision) {
        Ok(()) => {
            close_popup(&app, id);
            Ok(())
        }
        Err(BrokerError::NotArmed { wait_ms, .. }) => Err(too_quick(wait_ms as f64)),
        Err(BrokerError::NotPending(_)) => {
            close_popup(&app, id);
            Err(NOT_PENDING.to_owned())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// A page closes its own window (Cancel in the prompt, a popup after its answer or deadline).
/// Closing a popup this way decides nothing: an open request still ends at its deadline.
#[tauri::command]
pub(crate) fn close_self(window: tauri::WebviewWindow) {
    let _ = window.destroy();
}

/// A preloaded popup page is listening for its request.
#[tauri::command]
pub(crate) fn popup_standby(window: tauri::WebviewWindow, shared: State<'_, Shared>) {
    let mut g = lock(&shared.popups);
    if g.loading.as_deref() == Some(window.label()) {
        g.loading = None;
        g.spare = Some(window.label().to_owned());
    }
}

/// The popup has rendered request `id`: show its window (a spare is hidden until then) and
/// log the time since the request arrived.
#[tauri::command]
pub(crate) fn popup_shown(
    app: AppHandle,
    window: tauri::WebviewWindow,
    shared: State<'_, Shared>,
    id: i64,
    kinds: Option<Vec<String>>,
) {
    let _ = window.show();
    let _ = window.set_focus();
    // Now that this one is up, load the next one.
    replenish(&app);
    if let Some(p) = shared.broker.get(id) {
        let ms = airlock_broker::now_ms() - p.created_ms;
        // The kinds of consequence line the page drew (known names only, never their text).
        let consequences = kinds
            .unwrap_or_default()
            .iter()
            .take(64)
            .map(|k| match k.as_str() {
                "runs" | "deletes" | "writes" | "reads" | "sends" | "secret" | "reason"
                | "untrusted" => k.as_str(),
                _ => "other",
            })
            .collect::<Vec<_>>()
            .join(",");
        tracing::info!(id, ms, consequences = %consequences, "popup shown");
    }
}

pub(crate) fn popup_builder<'a>(
    app: &'a AppHandle,
    label: &str,
    title: &str,
    id: Option<i64>,
) -> WebviewWindowBuilder<'a, Wry, AppHandle> {
    let id_js = id.map_or_else(|| "null".to_owned(), |i| i.to_string());
    WebviewWindowBuilder::new(app, label, WebviewUrl::App("popup.html".into()))
        .title(title)
        .initialization_script(format!("window.__AIRLOCK_ID__ = {id_js};"))
        .inner_size(POPUP_W, POPUP_H)
        .resizable(false)
        .always_on_top(true)
        .visible_on_all_workspaces(true)
        .center()
}

pub(crate) fn next_label(app: &AppHandle) -> String {
    let shared = app.state::<Shared>();
    let mut g = lock(&shared.popups);
    g.next += 1;
    format!("{POPUP_PREFIX}{}", g.next)
}

/// Loads a hidden popup page to take the next request.
pub(crate) fn make_spare(app: &AppHandle) {
    let label = next_label(app);
    match popup_builder(app, &label, "Airlock (standby)", None)
        .visible(false)
        .build()
    {
        Ok(_) => lock(&app.state::<Shared>().popups).loading = Some(label),
        Err(e) => tracing::warn!(error = %e, "cannot preload a popup"),
    }
}

/// Preloads the next popup unless one is ready or loading (or preloading is off).
pub(crate) fn replenish(app: &AppHandle) {
    let shared = app.state::<Shared>();
    if !shared.preload {
        return;
    }
    let has_spare = {
        let g = lock(&shared.popups);
        g.spare.is_some() || g.loading.is_some()
    };
    if !has_spare {
        make_spare(app);
    }
}

pub(crate) fn open_popup(app: &AppHandle, p: &PendingRequest) {
    let shared = app.state::<Shared>();
    if lock(&shared.popups).by_id.contains_key(&p.id) {
        return;
    }
    let title = format!(
        "Airlock approval #{}: {} wants to run {}",
        p.id, p.host, p.tool
    );
    let spare = lock(&shared.popups).spare.take();
    if let Some((label, w)) = spare.and_then(|l| app.get_webview_window(&l).map(|w| (l, w))) {
        lock(&shared.popups).by_id.insert(p.id, label.clone());
        let _ = w.set_title(&title);
        // The page renders the request, then `popup_shown` shows the window.
        let _ = app.emit_to(label.as_str(), "airlock-show", p.id);
        // Should the page not answer, show it anyway.
        let w2 = w.clone();
        let _ = std::thread::Builder::new()
            .name("airlock-ui-show".into())
            .spawn(move || {
                std::thread::sleep(Duration::from_millis(1000));
                if !w2.is_visible().unwrap_or(true) {
                    tracing::warn!("popup page did not report; showing it anyway");
                    let _ = w2.show();
                }
            });
        tracing::info!(id = p.id, "popup opened (preloaded)");
        return;
    }
    let label = next_label(app);
    lock(&shared.popups).by_id.insert(p.id, label.clone());
    match popup_builder(app, &label, &title, Some(p.id))
        .focused(true)
        .build()
    {
        Ok(_) => tracing::info!(id = p.id, "popup opened"),
        Err(e) => tracing::error!(id = p.id, error = %e, "cannot open the approval popup"),
    }
}

pub(crate) fn close_popup(app: &AppHandle, id: i64) {
    let label = lock(&app.state::<Shared>().popups).by_id.remove(&id);
    if let Some(w) = label.and_then(|l| app.get_webview_window(&l)) {
        let _ = w.destroy();
    }
}

/// The request a popup window shows, if any.
pub(crate) fn popup_request(app: &AppHandle, label: &str) -> Option<i64> {
    lock(&app.state::<Shared>().popups)
        .by_id
        .iter()
        .find_map(|(id, l)| (l == label).then_some(*id))
}
