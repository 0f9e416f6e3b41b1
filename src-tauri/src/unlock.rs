//! The system level's *Unlock approvals*: the prompt and the commands that register the app
//! with the guard service as the user's approval agent (see [`crate::agent`]).

use crate::agent;
use crate::shell::{Res, Shared, proof};
use crate::tray::{notify_integrity, refresh_tray};
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tauri::{AppHandle, Manager, State, WebviewUrl, WebviewWindowBuilder};

/// What the system service wants as the factor (its store, not the app's).
pub(crate) fn system_needs() -> anyhow::Result<airlock_core::factors::FactorNeeds> {
    let ep = airlock_service::Endpoint::discover(std::env::current_exe().ok())?;
    match airlock_service::client::call(
        &ep,
        &airlock_service::Request::Status,
        Duration::from_secs(10),
    )? {
        airlock_service::Response::Status(s) => Ok(s.factor),
        _ => anyhow::bail!("the guard service answered something unexpected"),
    }
}

#[derive(Serialize)]
pub(crate) struct AgentNeeds {
    password: bool,
    totp: bool,
    registered: bool,
}

/// The unlock prompt asks what the system service needs.
#[tauri::command]
pub(crate) async fn agent_needs(shared: State<'_, Shared>) -> Res<AgentNeeds> {
    let n = system_needs().map_err(|e| format!("{e:#}"))?;
    Ok(AgentNeeds {
        password: n.password,
        totp: n.totp,
        registered: shared
            .agent
            .registered
            .load(std::sync::atomic::Ordering::SeqCst),
    })
}

/// Unlock approvals at the system level: register as this user's approval agent with the
/// factor (verified in the service).
#[tauri::command]
pub(crate) async fn agent_unlock(
    app: AppHandle,
    shared: State<'_, Shared>,
    password: Option<String>,
    code: Option<String>,
) -> Res<String> {
    if !shared.system {
        return Err("Only the system level needs this: the app already shows approvals.".into());
    }
    unlock_approvals(&app, &shared, proof(password, code))
        .map_err(|e| format!("Not unlocked: {e:#}"))?;
    Ok("Approvals unlocked.".into())
}

/// Registers the app as this user's approval agent with `proof` (verified in the service),
/// closes the unlock prompt and refreshes the tray. The unlock prompt and the wizard's
/// password step (system level) both come here.
pub(crate) fn unlock_approvals(
    app: &AppHandle,
    shared: &Shared,
    proof: airlock_core::factors::Proof,
) -> anyhow::Result<()> {
    let handle = app.clone();
    agent::unlock(
        Arc::clone(&shared.agent),
        proof,
        shared.broker.socket_path().to_owned(),
        shared.paths.db.clone(),
        move || {
            notify_integrity(
                "Airlock approvals are locked",
                "The guard service closed the connection: unlock approvals from the tray to be asked again.".to_owned(),
            );
            refresh_tray(&handle);
        },
    )?;
    if let Some(w) = app.get_webview_window("prompt") {
        let _ = w.destroy();
    }
    refresh_tray(app);
    Ok(())
}

/// The unlock prompt (system level): the factor registers the app as the approval agent.
pub(crate) fn open_unlock(app: &AppHandle) {
    if let Some(w) = app.get_webview_window("prompt") {
        let _ = w.destroy();
    }
    let built = WebviewWindowBuilder::new(app, "prompt", WebviewUrl::App("prompt.html".into()))
        .title("Airlock: unlock approvals")
        .initialization_script("window.__AIRLOCK_PROMPT__ = {\"kind\": \"unlock\"};")
        .inner_size(420.0, 380.0)
        .resizable(false)
        .always_on_top(true)
        .center()
        .focused(true)
        .build();
    if let Err(e) = built {
        tracing::error!(error = %e, "cannot open the unlock prompt");
    }
}
