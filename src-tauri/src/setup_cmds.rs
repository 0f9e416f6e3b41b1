//! The first-run wizard's commands (the logic is in [`crate::wizard`]).

use crate::policy::{self, Status};
use crate::shell::{Res, Shared, proof};
use crate::tray::refresh_tray;
use crate::wizard;
use anyhow::Context as _;
use serde::Serialize;
use std::sync::atomic::Ordering;
use tauri::{AppHandle, Emitter, Manager, State, WebviewUrl, WebviewWindowBuilder};

/// Logs a wizard step's result (never the secrets involved) and turns errors into text.
pub(crate) fn step<T>(name: &str, r: anyhow::Result<T>) -> Res<T> {
    match r {
        Ok(v) => {
            tracing::info!(step = name, "wizard step done");
            Ok(v)
        }
        Err(e) => {
            tracing::warn!(step = name, error = %e, "wizard step failed");
            Err(format!("{e:#}"))
        }
    }
}

#[derive(Serialize)]
pub(crate) struct WizardState {
    status: Status,
    /// The `airlock` command the hooks will run, or why there is none.
    airlock_bin: Result<String, String>,
}

#[tauri::command]
pub(crate) async fn wizard_state(shared: State<'_, Shared>) -> Res<WizardState> {
    Ok(WizardState {
        status: policy::status_at(&shared.paths, shared.system).map_err(|e| e.to_string())?,
        airlock_bin: wizard::airlock_binary()
            .map(|p| p.display().to_string())
            .map_err(|e| e.to_string()),
    })
}

#[tauri::command]
pub(crate) async fn wizard_password(
    app: AppHandle,
    shared: State<'_, Shared>,
    password: String,
    repeat: String,
) -> Res<()> {
    // At the system level the password is the guard service's (it verifies every factor).
    let r = if shared.system {
        if password == repeat {
            // The password just set also unlocks approvals: the service reaches this desktop
            // only through the app as the approval agent, and the self-test's AUTH needs it.
            policy::service_set_password(&password).and_then(|()| {
                if shared.agent.registered.load(Ordering::SeqCst) {
                    return Ok(());
                }
                crate::unlock::unlock_approvals(&app, &shared, proof(Some(password), None))
                    .context("the password is set, but approvals could not be unlocked")
            })
        } else {
            Err(anyhow::anyhow!("the two passwords differ"))
        }
    } else {
        shared
            .paths
            .open_store()
            .map_err(anyhow::Error::from)
            .and_then(|store| wizard::set_password(&store, &password, &repeat))
    };
    let _ = app.emit("policy-changed", ());
    step("password", r)
}

#[tauri::command]
pub(crate) async fn wizard_totp_begin(
    shared: State<'_, Shared>,
    password: String,
) -> Res<wizard::TotpOffer> {
    if shared.system {
        // The service makes and keeps the secret; the QR code is drawn here.
        let r = policy::service_totp_begin(&password).and_then(|uri| {
            let png = airlock_core::factors::qr_png(&uri).map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(wizard::totp_offer(&uri, &png))
        });
        return step("totp-begin", r);
    }
    let r = shared
        .paths
        .open_store()
        .map_err(anyhow::Error::from)
        .and_then(|store| wizard::totp_begin(&store, &password));
    step("totp-begin", r)
}

#[tauri::command]
pub(crate) async fn wizard_totp_finish(
    shared: State<'_, Shared>,
    password: String,
    code: String,
) -> Res<String> {
    if shared.system {
        // A system user has no keyring: the secret stays sealed under the password.
        let r = policy::service_totp_finish(&password, &code).map(|()| "encrypted".to_owned());
        return step("totp-finish", r);
    }
    let r = shared
        .paths
        .open_store()
        .map_err(anyhow::Error::from)
        .and_then(|store| wizard::totp_finish(&store, &password, &code))
        .map(str::to_owned);
    step("totp-finish", r)
}

#[tauri::command]
pub(crate) async fn wizard_mode(
    app: AppHandle,
    shared: State<'_, Shared>,
    mode: String,
    password: Option<String>,
    code: Option<String>,
) -> Res<String> {
    let r = if shared.system {
        policy::change_at(
            &shared.paths,
            true,
            policy::Kind::Mode,
            &mode,
            Some(&proof(password, code)),
        )
    } else {
        shared
            .paths
            .open_store()
            .map_err(anyhow::Error::from)
            .and_then(|store| {
                wizard::set_mode(&store, &shared.paths, &mode, &proof(password, code))
            })
    };
    refresh_tray(&app);
    let _ = app.emit("policy-changed", ());
    step("mode", r)
}

/// Start at login (an XDG autostart entry on Linux, a launch agent on macOS, the Run key on
/// Windows), or not. Starting at login is what keeps popups coming after a reboot: with no
/// app, AUTH calls are denied (or left to the agent's own prompt).
#[tauri::command]
pub(crate) async fn wizard_autostart(app: AppHandle, enable: bool) -> Res<bool> {
    use tauri_plugin_autostart::ManagerExt as _;
    // The plugin writes `~/.config/autostart/<name>.desktop` but does not make the folder,
    // which a fresh account does not have.
    #[cfg(target_os = "linux")]
    if enable && let Ok(config) = app.path().config_dir() {
        let _ = std::fs::create_dir_all(config.join("autostart"));
    }
    let auto = app.autolaunch();
    let r = if enable {
        auto.enable()
    } else {
        auto.disable()
    }
    .and_then(|()| auto.is_enabled())
    .map_err(|e| anyhow::anyhow!("cannot change starting at login: {e}"));
    step("autostart", r)
}

#[tauri::command]
pub(crate) async fn wizard_agents(shared: State<'_, Shared>) -> Res<Vec<wizard::AgentInfo>> {
    let r = (|| -> anyhow::Result<Vec<wizard::AgentInfo>> {
        let home = shared.paths.home.clone().context("no home directory")?;
        let bin = wizard::airlock_binary()?;
        Ok(wizard::agents(&home, &bin, shared.system))
    })();
    step("agents", r)
}

#[tauri::command]
pub(crate) async fn wizard_wire(shared: State<'_, Shared>, agent: String) -> Res<String> {
    let r = (|| -> anyhow::Result<String> {
        let home = shared.paths.home.clone().context("no home directory")?;
        let bin = wizard::airlock_binary()?;
        let store = shared.paths.open_store()?;
        wizard::wire(&store, &home, &agent, &bin, shared.system)
    })();
    step("wire", r)
}

#[tauri::command]
pub(crate) async fn wizard_self_test(
    shared: State<'_, Shared>,
    case: String,
    session: String,
) -> Res<wizard::SelfTestResult> {
    let paths = shared.paths.clone();
    let system = shared.system;
    let r = tauri::async_runtime::spawn_blocking(move || {
        let bin = wizard::airlock_binary()?;
        wizard::self_test(&paths, system, &bin, &case, &session)
    })
    .await
    .map_err(|e| anyhow::anyhow!("the self-test thread failed: {e}"))
    .and_then(|r| r);
    if let Ok(t) = &r {
        tracing::info!(
            case = %t.case,
            verdict = %t.verdict,
            outcome = %t.outcome,
            ok = t.ok,
            "self-test decision"
        );
    }
    step("self-test", r)
}

pub(crate) fn open_wizard(app: &AppHandle) {
    if let Some(w) = app.get_webview_window("wizard") {
        let _ = w.show();
        let _ = w.set_focus();
        return;
    }
    let built = WebviewWindowBuilder::new(app, "wizard", WebviewUrl::App("wizard.html".into()))
        .title("Airlock setup")
        .inner_size(620.0, 700.0)
        .center()
        .focused(true)
        .build();
    if let Err(e) = built {
        tracing::error!(error = %e, "cannot open the setup wizard");
    }
}
