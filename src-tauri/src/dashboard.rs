//! The dashboard and the dials: overview, decisions, ledger, pins and rules, and mode /
//! enforcement changes (raising applies; lowering opens the factor prompt).

use crate::policy::{self, Kind, Status};
use crate::shell::{Res, Shared, proof};
use crate::tray::refresh_tray;
use crate::{rules, views};
use airlock_broker::PendingRequest;
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, State, WebviewUrl, WebviewWindowBuilder};

#[tauri::command]
pub(crate) async fn dash_rules(shared: State<'_, Shared>) -> Res<Vec<rules::ListedView>> {
    rules::list(&shared.paths)
        .map(rules::listed_views)
        .map_err(|e| format!("{e:#}"))
}

/// Revoking a rule is a tightening: no factor, ledgered.
#[tauri::command]
pub(crate) async fn dash_rule_revoke(
    app: AppHandle,
    shared: State<'_, Shared>,
    id: String,
) -> Res<String> {
    let r = rules::revoke(&shared.paths, &id).map_err(|e| format!("{e:#}"))?;
    let _ = app.emit("policy-changed", ());
    Ok(format!("Removed: {}", r.describe()))
}

#[derive(Serialize)]
pub(crate) struct Overview {
    status: Status,
    pending: Vec<PendingRequest>,
    socket: String,
}

#[tauri::command]
pub(crate) async fn overview(shared: State<'_, Shared>) -> Res<Overview> {
    Ok(Overview {
        status: policy::status_at(&shared.paths, shared.system).map_err(|e| format!("{e:#}"))?,
        pending: shared.broker.pending(),
        socket: shared.broker.socket_path().display().to_string(),
    })
}

/// Tray or dashboard asks for a change: raising applies now, lowering opens the prompt.
#[tauri::command]
pub(crate) async fn policy_request(app: AppHandle, kind: String, to: String) -> Res<String> {
    request_change(&app, &kind, &to).map_err(|e| e.to_string())
}

/// The prompt window submits the factor for a lowering.
#[tauri::command]
pub(crate) async fn policy_change(
    app: AppHandle,
    shared: State<'_, Shared>,
    kind: String,
    to: String,
    password: Option<String>,
    code: Option<String>,
) -> Res<String> {
    let kind = Kind::parse(&kind).map_err(|e| e.to_string())?;
    let p = proof(password, code);
    let result = policy::change_at(&shared.paths, shared.system, kind, &to, Some(&p));
    refresh_tray(&app);
    let _ = app.emit("policy-changed", ());
    match result {
        Ok(msg) => {
            if let Some(w) = app.get_webview_window("prompt") {
                let _ = w.destroy();
            }
            Ok(msg)
        }
        Err(e) => Err(e.to_string()),
    }
}

#[tauri::command]
pub(crate) async fn dash_decisions(
    shared: State<'_, Shared>,
    query: views::DecisionQuery,
) -> Res<Vec<views::DecisionView>> {
    if shared.system {
        return views::decisions_at_system(&query).map_err(|e| format!("{e:#}"));
    }
    let store = shared.paths.open_store().map_err(|e| e.to_string())?;
    views::decisions(&store, &query).map_err(|e| e.to_string())
}

#[tauri::command]
pub(crate) async fn dash_ledger(shared: State<'_, Shared>) -> Res<views::LedgerView> {
    if shared.system {
        return views::ledger_at_system().map_err(|e| format!("{e:#}"));
    }
    let store = shared.paths.open_store().map_err(|e| e.to_string())?;
    views::ledger(&store).map_err(|e| e.to_string())
}

#[tauri::command]
pub(crate) async fn dash_pins(shared: State<'_, Shared>) -> Res<Vec<airlock_core::pins::PinRow>> {
    let store = shared.paths.open_store().map_err(|e| e.to_string())?;
    views::pins(&store).map_err(|e| e.to_string())
}

/// The dashboard page reports what it drew (for the log and the real-window test).
#[tauri::command]
pub(crate) fn dashboard_rendered(
    decisions: usize,
    ledger: usize,
    pins: usize,
    rules: usize,
    chain: String,
) {
    tracing::info!(decisions, ledger, pins, chain = %chain, rules, "dashboard rendered");
}

pub(crate) fn open_dashboard(app: &AppHandle) {
    if let Some(w) = app.get_webview_window("dashboard") {
        let _ = w.show();
        let _ = w.set_focus();
        return;
    }
    let built = WebviewWindowBuilder::new(app, "dashboard", WebviewUrl::App("index.html".into()))
        .title("Airlock")
        .inner_size(960.0, 720.0)
        .build();
    if let Err(e) = built {
        tracing::error!(error = %e, "cannot open the dashboard");
    }
}

pub(crate) fn open_prompt(app: &AppHandle, kind: Kind, from: &str, to: &str) {
    if let Some(w) = app.get_webview_window("prompt") {
        let _ = w.destroy();
    }
    let init = serde_json::json!({"kind": kind.as_str(), "from": from, "to": to});
    let built = WebviewWindowBuilder::new(app, "prompt", WebviewUrl::App("prompt.html".into()))
        .title(format!("Airlock: lower {} to {to}?", kind.as_str()))
        .initialization_script(format!("window.__AIRLOCK_PROMPT__ = {init};"))
        .inner_size(420.0, 380.0)
        .resizable(false)
        .always_on_top(true)
        .center()
        .focused(true)
        .build();
    if let Err(e) = built {
        tracing::error!(error = %e, "cannot open the prompt");
    }
}

pub(crate) fn request_change(app: &AppHandle, kind: &str, to: &str) -> anyhow::Result<String> {
    let shared = app.state::<Shared>();
    let kind = Kind::parse(kind)?;
    let (paths, system) = (&shared.paths, shared.system);
    let result = match policy::is_lowering_at(paths, system, kind, to)? {
        None => Ok("unchanged".to_owned()),
        Some(false) => policy::change_at(paths, system, kind, to, None),
        Some(true) => {
            let (mode, enforcement) = policy::current_at(paths, system)?;
            let from = match kind {
                Kind::Mode => mode.as_str(),
                Kind::Enforcement => enforcement.as_str(),
            };
            open_prompt(app, kind, from, to);
            Ok("prompt".to_owned())
        }
    };
    refresh_tray(app);
    let _ = app.emit("policy-changed", ());
    result
}
