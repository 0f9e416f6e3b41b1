//! The Tauri side: tray, windows, commands.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_broker::{Broker, BrokerConfig, BrokerError, BrokerEvent, Decision, PendingRequest};
use airlock_core::Paths;
use airlock_core::factors::Proof;
use airlock_engine::Mode;
use airlock_remote::{RelayOptions, RemoteRelay};
use airlock_store::{DecisionFilter, DecisionRow, Outcome as DecisionOutcome};
use anyhow::Context as _;
use serde::Serialize;
use tauri::menu::{CheckMenuItem, IsMenuItem, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, RunEvent, State, WebviewUrl, WebviewWindowBuilder, Wry};

use crate::policy::{self, ENFORCEMENTS, Kind, Status};
use crate::{agent, rules, views, wizard};

const POPUP_PREFIX: &str = "approval-";
const POPUP_W: f64 = 460.0;
const POPUP_H: f64 = 560.0;

struct TrayItems {
    pending: MenuItem<Wry>,
    blocks: Submenu<Wry>,
    modes: Vec<(Mode, CheckMenuItem<Wry>)>,
    enforcement: Vec<(airlock_engine::Enforcement, CheckMenuItem<Wry>)>,
}

/// Popup windows. One hidden popup is kept loaded ("spare") so a request shows without
/// waiting for a page load; more at once get fresh windows.
#[derive(Default)]
struct Popups {
    /// Loaded and listening (it said so through `popup_standby`).
    spare: Option<String>,
    /// Built, page still loading.
    loading: Option<String>,
    by_id: HashMap<i64, String>,
    next: u64,
}

struct Shared {
    broker: Arc<Broker>,
    /// The system level is installed: approvals come from the guard service through the
    /// app's approval agent (`agent`), once unlocked with the factor.
    system: bool,
    agent: Arc<agent::AgentState>,
    /// Remote approval's relay, when `airlock remote set` chose a channel (issue #14).
    remote: Option<RemoteRelay>,
    /// Keep one hidden popup loaded (`--no-preload` turns it off: saves a web process's
    /// memory, costs a page load per popup).
    preload: bool,
    paths: Paths,
    tray: Mutex<Option<TrayItems>>,
    popups: Mutex<Popups>,
    /// Recent BLOCKs for the tray, newest first.
    blocks: Mutex<Vec<String>>,
}

type Res<T> = Result<T, String>;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn proof(password: Option<String>, code: Option<String>) -> Proof {
    let nonempty = |s: Option<String>| s.filter(|v| !v.is_empty());
    Proof {
        password: nonempty(password),
        code: nonempty(code),
    }
}

// ---------------------------------------------------------------------------------------
// Commands

#[derive(Serialize)]
struct PopupInfo {
    request: PendingRequest,
    status: Status,
    /// The agent's name in words (`Claude Code`).
    agent: String,
    /// The scopes "always, as a rule" can write, in the app's words (empty: not offered).
    rules: Vec<rules::RuleView>,
    /// The expiries offered, in days (0: never).
    expiry_days: Vec<u64>,
}

#[tauri::command]
async fn approval_get(shared: State<'_, Shared>, id: i64) -> Res<PopupInfo> {
    let request = shared
        .broker
        .get(id)
        .ok_or_else(|| "This request is no longer pending.".to_owned())?;
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

/// What the system service wants as the factor (its store, not the app's).
fn system_needs() -> anyhow::Result<airlock_core::factors::FactorNeeds> {
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
struct AgentNeeds {
    password: bool,
    totp: bool,
    registered: bool,
}

/// The unlock prompt asks what the system service needs.
#[tauri::command]
async fn agent_needs(shared: State<'_, Shared>) -> Res<AgentNeeds> {
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
async fn agent_unlock(
    app: AppHandle,
    shared: State<'_, Shared>,
    password: Option<String>,
    code: Option<String>,
) -> Res<String> {
    if !shared.system {
        return Err("Only the system level needs this: the app already shows approvals.".into());
    }
    let handle = app.clone();
    agent::unlock(
        Arc::clone(&shared.agent),
        proof(password, code),
        shared.broker.socket_path().to_owned(),
        shared.paths.db.clone(),
        move || {
            notify_integrity(
                "Airlock approvals are locked",
                "The guard service closed the connection: unlock approvals from the tray to be asked again.".to_owned(),
            );
            refresh_tray(&handle);
        },
    )
    .map_err(|e| format!("Not unlocked: {e:#}"))?;
    if let Some(w) = app.get_webview_window("prompt") {
        let _ = w.destroy();
    }
    refresh_tray(&app);
    Ok("Approvals unlocked.".into())
}

/// The popup's "Always…" panel: the chosen scope in words and what it would let through of
/// the labelled corpus (run before the factor is asked).
#[tauri::command]
async fn rule_replay(
    shared: State<'_, Shared>,
    id: i64,
    choice: usize,
    days: u64,
) -> Res<rules::ReplayView> {
    let request = shared
        .broker
        .get(id)
        .ok_or_else(|| "This request is no longer pending.".to_owned())?;
    let rule = rules::chosen(&request, choice, days).map_err(|e| e.to_string())?;
    rules::replay(&shared.paths, &rule).map_err(|e| format!("{e:#}"))
}

/// "Always, as a rule": save the chosen scope with the factor (a weakening, ledgered), then
/// approve this request once. Nothing is saved before the request is armed.
#[tauri::command]
async fn approval_always(
    app: AppHandle,
    shared: State<'_, Shared>,
    id: i64,
    choice: usize,
    days: u64,
    password: Option<String>,
    code: Option<String>,
) -> Res<()> {
    let request = shared
        .broker
        .get(id)
        .ok_or_else(|| "This request is no longer pending.".to_owned())?;
    let wait_ms = request.armed_ms - airlock_core::clock::now_ms();
    if wait_ms > 0 {
        return Err(format!(
            "Too quick: the request can be approved in {:.1} s.",
            wait_ms as f64 / 1000.0
        ));
    }
    let rule = rules::chosen(&request, choice, days).map_err(|e| e.to_string())?;
    rules::save(&shared.paths, rule, &proof(password, code))
        .map_err(|e| format!("Not saved: {e:#}"))?;
    tracing::info!(id, "rule saved from the popup");
    let _ = app.emit("policy-changed", ());
    match shared.broker.resolve(id, Decision::Approved) {
        Ok(()) => {
            close_popup(&app, id);
            Ok(())
        }
        Err(e) => {
            close_popup(&app, id);
            Err(format!(
                "The rule was saved, but this request could not be approved: {e}"
            ))
        }
    }
}

/// The rule panel drew a replay (for the log and the real-window test; no rule text).
#[tauri::command]
fn rule_panel_ready(id: i64, attacks: usize) {
    tracing::info!(id, attacks, "rule panel ready");
}

#[tauri::command]
async fn dash_rules(shared: State<'_, Shared>) -> Res<Vec<rules::ListedView>> {
    rules::list(&shared.paths)
        .map(rules::listed_views)
        .map_err(|e| format!("{e:#}"))
}

/// Revoking a rule is a tightening: no factor, ledgered.
#[tauri::command]
async fn dash_rule_revoke(app: AppHandle, shared: State<'_, Shared>, id: String) -> Res<String> {
    let r = rules::revoke(&shared.paths, &id).map_err(|e| format!("{e:#}"))?;
    let _ = app.emit("policy-changed", ());
    Ok(format!("Removed: {}", r.describe()))
}

#[tauri::command]
async fn approval_decide(
    app: AppHandle,
    shared: State<'_, Shared>,
    id: i64,
    decision: Decision,
    password: Option<String>,
    code: Option<String>,
) -> Res<()> {
    let request = shared
        .broker
        .get(id)
        .ok_or_else(|| "This request is no longer pending.".to_owned())?;
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
        Err(BrokerError::NotArmed { wait_ms, .. }) => Err(format!(
            "Too quick: the request can be approved in {:.1} s.",
            wait_ms as f64 / 1000.0
        )),
        Err(BrokerError::NotPending(_)) => {
            close_popup(&app, id);
            Err("This request is no longer pending.".to_owned())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// A page closes its own window (Cancel in the prompt, a popup after its answer or deadline).
/// Closing a popup this way decides nothing: an open request still ends at its deadline.
#[tauri::command]
fn close_self(window: tauri::WebviewWindow) {
    let _ = window.destroy();
}

/// A preloaded popup page is listening for its request.
#[tauri::command]
fn popup_standby(window: tauri::WebviewWindow, shared: State<'_, Shared>) {
    let mut g = lock(&shared.popups);
    if g.loading.as_deref() == Some(window.label()) {
        g.loading = None;
        g.spare = Some(window.label().to_owned());
    }
}

/// The popup has rendered request `id`: show its window (a spare is hidden until then) and
/// log the time since the request arrived.
#[tauri::command]
fn popup_shown(
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

#[derive(Serialize)]
struct Overview {
    status: Status,
    pending: Vec<PendingRequest>,
    socket: String,
}

#[tauri::command]
async fn overview(shared: State<'_, Shared>) -> Res<Overview> {
    Ok(Overview {
        status: policy::status_at(&shared.paths, shared.system).map_err(|e| format!("{e:#}"))?,
        pending: shared.broker.pending(),
        socket: shared.broker.socket_path().display().to_string(),
    })
}

/// Tray or dashboard asks for a change: raising applies now, lowering opens the prompt.
#[tauri::command]
async fn policy_request(app: AppHandle, kind: String, to: String) -> Res<String> {
    request_change(&app, &kind, &to).map_err(|e| e.to_string())
}

/// The prompt window submits the factor for a lowering.
#[tauri::command]
async fn policy_change(
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

// ---------------------------------------------------------------------------------------
// Onboarding wizard

/// Logs a wizard step's result (never the secrets involved) and turns errors into text.
fn step<T>(name: &str, r: anyhow::Result<T>) -> Res<T> {
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
struct WizardState {
    status: Status,
    /// The `airlock` command the hooks will run, or why there is none.
    airlock_bin: Result<String, String>,
}

#[tauri::command]
async fn wizard_state(shared: State<'_, Shared>) -> Res<WizardState> {
    let store = shared.paths.open_store().map_err(|e| e.to_string())?;
    Ok(WizardState {
        status: policy::status(&store, &shared.paths).map_err(|e| e.to_string())?,
        airlock_bin: wizard::airlock_binary()
            .map(|p| p.display().to_string())
            .map_err(|e| e.to_string()),
    })
}

#[tauri::command]
async fn wizard_password(
    app: AppHandle,
    shared: State<'_, Shared>,
    password: String,
    repeat: String,
) -> Res<()> {
    let r = shared
        .paths
        .open_store()
        .map_err(anyhow::Error::from)
        .and_then(|store| wizard::set_password(&store, &password, &repeat));
    let _ = app.emit("policy-changed", ());
    step("password", r)
}

#[tauri::command]
async fn wizard_totp_begin(shared: State<'_, Shared>, password: String) -> Res<wizard::TotpOffer> {
    let r = shared
        .paths
        .open_store()
        .map_err(anyhow::Error::from)
        .and_then(|store| wizard::totp_begin(&store, &password));
    step("totp-begin", r)
}

#[tauri::command]
async fn wizard_totp_finish(
    shared: State<'_, Shared>,
    password: String,
    code: String,
) -> Res<String> {
    let r = shared
        .paths
        .open_store()
        .map_err(anyhow::Error::from)
        .and_then(|store| wizard::totp_finish(&store, &password, &code))
        .map(str::to_owned);
    step("totp-finish", r)
}

#[tauri::command]
async fn wizard_mode(
    app: AppHandle,
    shared: State<'_, Shared>,
    mode: String,
    password: Option<String>,
    code: Option<String>,
) -> Res<String> {
    let r = shared
        .paths
        .open_store()
        .map_err(anyhow::Error::from)
        .and_then(|store| wizard::set_mode(&store, &shared.paths, &mode, &proof(password, code)));
    refresh_tray(&app);
    let _ = app.emit("policy-changed", ());
    step("mode", r)
}

/// Start at login (an XDG autostart entry on Linux, a launch agent on macOS, the Run key on
/// Windows), or not. Starting at login is what keeps popups coming after a reboot: with no
/// app, AUTH calls are denied (or left to the agent's own prompt).
#[tauri::command]
async fn wizard_autostart(app: AppHandle, enable: bool) -> Res<bool> {
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
async fn wizard_agents(shared: State<'_, Shared>) -> Res<Vec<wizard::AgentInfo>> {
    let r = (|| -> anyhow::Result<Vec<wizard::AgentInfo>> {
        let home = shared.paths.home.clone().context("no home directory")?;
        let bin = wizard::airlock_binary()?;
        Ok(wizard::agents(&home, &bin))
    })();
    step("agents", r)
}

#[tauri::command]
async fn wizard_wire(shared: State<'_, Shared>, agent: String) -> Res<String> {
    let r = (|| -> anyhow::Result<String> {
        let home = shared.paths.home.clone().context("no home directory")?;
        let bin = wizard::airlock_binary()?;
        let store = shared.paths.open_store()?;
        wizard::wire(&store, &home, &agent, &bin)
    })();
    step("wire", r)
}

#[tauri::command]
async fn wizard_self_test(
    shared: State<'_, Shared>,
    case: String,
    session: String,
) -> Res<wizard::SelfTestResult> {
    let paths = shared.paths.clone();
    let r = tauri::async_runtime::spawn_blocking(move || {
        let bin = wizard::airlock_binary()?;
        wizard::self_test(&paths, &bin, &case, &session)
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

// ---------------------------------------------------------------------------------------
// Dashboard views (read-only)

#[tauri::command]
async fn dash_decisions(
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
async fn dash_ledger(shared: State<'_, Shared>) -> Res<views::LedgerView> {
    if shared.system {
        return views::ledger_at_system().map_err(|e| format!("{e:#}"));
    }
    let store = shared.paths.open_store().map_err(|e| e.to_string())?;
    views::ledger(&store).map_err(|e| e.to_string())
}

#[tauri::command]
async fn dash_pins(shared: State<'_, Shared>) -> Res<Vec<airlock_core::pins::PinRow>> {
    let store = shared.paths.open_store().map_err(|e| e.to_string())?;
    views::pins(&store).map_err(|e| e.to_string())
}

/// The dashboard page reports what it drew (for the log and the real-window test).
#[tauri::command]
fn dashboard_rendered(decisions: usize, ledger: usize, pins: usize, rules: usize, chain: String) {
    tracing::info!(decisions, ledger, pins, chain = %chain, rules, "dashboard rendered");
}

// ---------------------------------------------------------------------------------------
// Windows

fn popup_builder<'a>(
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

fn next_label(app: &AppHandle) -> String {
    let shared = app.state::<Shared>();
    let mut g = lock(&shared.popups);
    g.next += 1;
    format!("{POPUP_PREFIX}{}", g.next)
}

/// Loads a hidden popup page to take the next request.
fn make_spare(app: &AppHandle) {
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
fn replenish(app: &AppHandle) {
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

fn open_popup(app: &AppHandle, p: &PendingRequest) {
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

fn close_popup(app: &AppHandle, id: i64) {
    let label = lock(&app.state::<Shared>().popups).by_id.remove(&id);
    if let Some(w) = label.and_then(|l| app.get_webview_window(&l)) {
        let _ = w.destroy();
    }
}

/// The request a popup window shows, if any.
fn popup_request(app: &AppHandle, label: &str) -> Option<i64> {
    lock(&app.state::<Shared>().popups)
        .by_id
        .iter()
        .find_map(|(id, l)| (l == label).then_some(*id))
}

fn open_dashboard(app: &AppHandle) {
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

fn open_wizard(app: &AppHandle) {
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

fn open_prompt(app: &AppHandle, kind: Kind, from: &str, to: &str) {
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

/// The unlock prompt (system level): the factor registers the app as the approval agent.
fn open_unlock(app: &AppHandle) {
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

/// "Quit Airlock?" while approvals are pending; "Keep running" is the default.
fn open_quit_confirm(app: &AppHandle, pending: usize) {
    if let Some(w) = app.get_webview_window("quit") {
        let _ = w.show();
        let _ = w.set_focus();
        return;
    }
    let init = serde_json::json!({ "pending": pending });
    let built = WebviewWindowBuilder::new(app, "quit", WebviewUrl::App("quit.html".into()))
        .title("Airlock: quit?")
        .initialization_script(format!("window.__AIRLOCK_QUIT__ = {init};"))
        .inner_size(420.0, 300.0)
        .resizable(false)
        .always_on_top(true)
        .center()
        .focused(true)
        .build();
    if let Err(e) = built {
        tracing::error!(error = %e, "cannot ask before quitting; staying");
    }
}

/// The human confirmed quitting with approvals pending: they are withdrawn (each requester
/// then acts as with no app running, and the audit log says so), and the app ends.
#[tauri::command]
async fn quit_confirmed(app: AppHandle, shared: State<'_, Shared>) -> Res<()> {
    let pending = shared.broker.pending().len();
    tracing::info!(pending, "quit with approvals pending: withdrawn");
    shared.broker.quit();
    app.exit(0);
    Ok(())
}

fn request_change(app: &AppHandle, kind: &str, to: &str) -> anyhow::Result<String> {
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

// ---------------------------------------------------------------------------------------
// Tray

fn build_tray(app: &AppHandle) -> tauri::Result<()> {
    let pending = MenuItem::with_id(app, "pending", "No pending approvals", true, None::<&str>)?;
    let mut modes = Vec::new();
    for m in Mode::ALL {
        let item = CheckMenuItem::with_id(
            app,
            format!("mode:{}", m.as_str()),
            m.as_str(),
            true,
            false,
            None::<&str>,
        )?;
        modes.push((m, item));
    }
    let mut enforcement = Vec::new();
    for e in ENFORCEMENTS.into_iter().rev() {
        let item = CheckMenuItem::with_id(
            app,
            format!("enforcement:{}", e.as_str()),
            e.as_str(),
            true,
            false,
            None::<&str>,
        )?;
        enforcement.push((e, item));
    }
    let mode_items: Vec<&dyn IsMenuItem<Wry>> = modes
        .iter()
        .map(|(_, i)| i as &dyn IsMenuItem<Wry>)
        .collect();
    let enf_items: Vec<&dyn IsMenuItem<Wry>> = enforcement
        .iter()
        .map(|(_, i)| i as &dyn IsMenuItem<Wry>)
        .collect();
    let mode_menu = Submenu::with_id_and_items(app, "mode", "Strictness mode", true, &mode_items)?;
    let enf_menu = Submenu::with_id_and_items(app, "enforcement", "Enforcement", true, &enf_items)?;
    let blocks = Submenu::with_id(app, "blocks", "Recent blocks", true)?;
    let dashboard = MenuItem::with_id(app, "dashboard", "Open dashboard", true, None::<&str>)?;
    let setup = MenuItem::with_id(app, "setup", "Set up Airlock…", true, None::<&str>)?;
    let system = app.state::<Shared>().system;
    let unlock = MenuItem::with_id(app, "unlock", "Unlock approvals…", system, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit Airlock", true, None::<&str>)?;
    let (sep1, sep2) = (
        PredefinedMenuItem::separator(app)?,
        PredefinedMenuItem::separator(app)?,
    );
    let mut items: Vec<&dyn IsMenuItem<Wry>> = vec![
        &pending, &sep1, &mode_menu, &enf_menu, &blocks, &sep2, &dashboard, &setup,
    ];
    if system {
        items.push(&unlock);
    }
    items.push(&quit);
    let menu = Menu::with_items(app, &items)?;
    let mut tray = TrayIconBuilder::with_id("airlock")
        .tooltip("Airlock")
        .menu(&menu)
        .show_menu_on_left_click(true)
        .on_menu_event(|app, event| on_menu(app, event.id().as_ref()));
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    tray.build(app)?;
    let shared = app.state::<Shared>();
    *lock(&shared.tray) = Some(TrayItems {
        pending,
        blocks,
        modes,
        enforcement,
    });
    refresh_tray(app);
    refresh_blocks(app);
    Ok(())
}

/// Rewrites the "Recent blocks" submenu from `Shared::blocks`.
fn refresh_blocks(app: &AppHandle) {
    let shared = app.state::<Shared>();
    let labels = lock(&shared.blocks).clone();
    let guard = lock(&shared.tray);
    let Some(items) = guard.as_ref() else {
        return;
    };
    if let Ok(old) = items.blocks.items() {
        for item in old {
            let _ = items.blocks.remove(&item);
        }
    }
    let labels = if labels.is_empty() {
        vec!["No blocks yet".to_owned()]
    } else {
        labels
    };
    for label in labels {
        if let Ok(item) = MenuItem::new(app, label, false, None::<&str>) {
            let _ = items.blocks.append(&item);
        }
    }
}

const RECENT_BLOCKS: usize = 5;

fn block_label(d: &DecisionRow) -> String {
    let why = d
        .reasons
        .first()
        .map(|c| airlock_core::words::reason(c))
        .unwrap_or_default();
    format!(
        "{} · {} · {}",
        airlock_core::words::agent_name(&d.host),
        d.tool,
        why.trim_end_matches('.')
    )
}

/// A desktop notification for a BLOCK, from its own thread: a missing notification daemon
/// (or a slow one) never holds anything up.
fn notify_block(d: &DecisionRow) {
    let body = format!(
        "{} tried to use {}. Airlock blocked it: {}",
        airlock_core::words::agent_name(&d.host),
        d.tool,
        d.reasons
            .iter()
            .map(|c| airlock_core::words::reason(c))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let _ = std::thread::Builder::new()
        .name("airlock-ui-notify".into())
        .spawn(move || {
            match notify_rust::Notification::new()
                .appname("Airlock")
                .summary("Airlock blocked a tool call")
                .body(&body)
                .show()
            {
                Ok(_) => tracing::info!("block notification shown"),
                Err(e) => {
                    tracing::info!(error = %e, "no block notification (no notification daemon?)")
                }
            }
        });
}

/// Follows the audit log for BLOCKs (recorded by hooks and the proxy in other processes).
fn watch_blocks(app: AppHandle) {
    let shared = app.state::<Shared>();
    let store = match shared.paths.open_store() {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot follow the audit log for blocks");
            return;
        }
    };
    let newest = |filter: DecisionFilter| store.recent_decisions(&filter).unwrap_or_default();
    let mut last = newest(DecisionFilter {
        limit: 1,
        ..DecisionFilter::default()
    })
    .first()
    .map_or(0, |d| d.id);
    *lock(&shared.blocks) = newest(DecisionFilter {
        limit: RECENT_BLOCKS,
        outcome: Some(DecisionOutcome::Blocked),
        ..DecisionFilter::default()
    })
    .iter()
    .map(block_label)
    .collect();
    refresh_blocks(&app);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let rows = match store.decisions_after(last, 200) {
            Ok(rows) => rows,
            Err(e) => {
                tracing::debug!(error = %e, "audit log poll failed");
                continue;
            }
        };
        let mut changed = false;
        for d in rows {
            last = last.max(d.id);
            if d.outcome == DecisionOutcome::Blocked {
                tracing::info!(id = d.id, host = %d.host, tool = %d.tool, "blocked call seen");
                let mut list = lock(&shared.blocks);
                list.insert(0, block_label(&d));
                list.truncate(RECENT_BLOCKS);
                changed = true;
                notify_block(&d);
            }
        }
        if changed {
            refresh_blocks(&app);
        }
    }
}

/// A desktop notification about Airlock's own integrity (tampering, a killed hook, removed
/// wiring), from its own thread like [`notify_block`].
fn notify_integrity(summary: &'static str, body: String) {
    tracing::warn!(summary, "integrity alert");
    let _ = std::thread::Builder::new()
        .name("airlock-ui-notify".into())
        .spawn(move || {
            if let Err(e) = notify_rust::Notification::new()
                .appname("Airlock")
                .summary(summary)
                .body(&body)
                .urgency(notify_rust::Urgency::Critical)
                .show()
            {
                tracing::info!(error = %e, "no integrity notification (no notification daemon?)");
            }
        });
}

/// Watches what an agent could change behind Airlock's back while the app runs: the guard
/// service's view (tampering seen, sessions held after a killed hook) and each agent's hook
/// wiring that was in place when the app started. Each new finding is notified once.
fn watch_integrity(app: AppHandle) {
    let shared = app.state::<Shared>();
    let home = shared.paths.home.clone();
    let bin = wizard::airlock_binary().ok();
    let wired_at_start: Vec<airlock_wire::Agent> = match (&home, &bin) {
        (Some(h), Some(b)) => airlock_wire::Agent::ALL
            .into_iter()
            .filter(|a| airlock_wire::is_wired(*a, h, b).unwrap_or(false))
            .collect(),
        _ => Vec::new(),
    };
    let mut seen_tamper: Option<String> = None;
    let mut seen_bypassed: std::collections::BTreeSet<String> = Default::default();
    let mut seen_unwired: std::collections::BTreeSet<&'static str> = Default::default();
    loop {
        std::thread::sleep(Duration::from_secs(3));
        // The service is asked without starting it (a hook starts it when needed).
        if let Ok(ep) = airlock_service::Endpoint::discover(None)
            && let Ok(airlock_service::Response::Status(st)) = airlock_service::client::call(
                &ep,
                &airlock_service::Request::Status,
                Duration::from_secs(5),
            )
        {
            if st.tampered.is_some() && st.tampered != seen_tamper {
                notify_integrity(
                    "Airlock detected tampering",
                    format!(
                        "Airlock's own state was changed outside Airlock ({}). Every agent call is denied until you check it and run `airlock release --tamper`.",
                        st.tampered.clone().unwrap_or_default()
                    ),
                );
            }
            seen_tamper = st.tampered;
            for b in st.bypassed {
                if seen_bypassed.insert(b.clone()) {
                    notify_integrity(
                        "An Airlock hook was killed",
                        format!(
                            "A hook in session {b} was killed before it answered, so the agent may have run a call Airlock did not judge. The session is held until you release it."
                        ),
                    );
                }
            }
        }
        if let (Some(h), Some(b)) = (&home, &bin) {
            for a in &wired_at_start {
                let still = airlock_wire::is_wired(*a, h, b).unwrap_or(false);
                if !still && seen_unwired.insert(a.as_str()) {
                    notify_integrity(
                        "Airlock was removed from an agent",
                        format!(
                            "{}'s hook settings no longer run Airlock. If you did not do this, an agent may have: run `airlock wire {}`.",
                            a.as_str(),
                            a.as_str()
                        ),
                    );
                } else if still {
                    seen_unwired.remove(a.as_str());
                }
            }
        }
    }
}

fn on_menu(app: &AppHandle, id: &str) {
    match id {
        "pending" | "dashboard" => open_dashboard(app),
        "setup" => open_wizard(app),
        "unlock" => open_unlock(app),
        "quit" => {
            let pending = app.state::<Shared>().broker.pending().len();
            if pending == 0 {
                tracing::info!("quit from the tray");
                app.state::<Shared>().broker.shutdown();
                app.exit(0);
            } else {
                // Ask first: quitting withdraws what is waiting for the human.
                open_quit_confirm(app, pending);
            }
        }
        other => {
            let change = other
                .split_once(':')
                .map(|(kind, to)| request_change(app, kind, to));
            match change {
                Some(Ok(msg)) => tracing::info!(item = other, result = %msg, "tray change"),
                Some(Err(e)) => tracing::warn!(item = other, error = %e, "tray change failed"),
                None => {}
            }
            // A click toggles the check mark on its own: put back the real state.
            refresh_tray(app);
        }
    }
}

fn refresh_tray(app: &AppHandle) {
    let shared = app.state::<Shared>();
    let n = shared.broker.pending().len();
    let current = policy::current_at(&shared.paths, shared.system);
    let guard = lock(&shared.tray);
    let Some(items) = guard.as_ref() else {
        return;
    };
    let text = match n {
        0 => "No pending approvals".to_owned(),
        1 => "1 pending approval".to_owned(),
        n => format!("{n} pending approvals"),
    };
    let _ = items.pending.set_text(&text);
    if let Ok((mode, enforcement)) = current {
        for (m, item) in &items.modes {
            let _ = item.set_checked(*m == mode);
        }
        for (e, item) in &items.enforcement {
            let _ = item.set_checked(*e == enforcement);
        }
        if let Some(tray) = app.tray_by_id("airlock") {
            let _ = tray.set_tooltip(Some(format!(
                "Airlock: {mode}, {}; {}; {text}",
                enforcement.as_str(),
                airlock_core::Level::installed().describe()
            )));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Broker events → windows

fn pump(app: AppHandle, rx: Receiver<BrokerEvent>) {
    for ev in rx {
        match &ev {
            BrokerEvent::Pending(p) => open_popup(&app, p),
            BrokerEvent::Closed { id, outcome } => {
                tracing::info!(id, outcome = outcome.as_str(), "request ended");
                close_popup(&app, *id);
            }
        }
        refresh_tray(&app);
        let _ = app.emit("pending-changed", ());
    }
}

// ---------------------------------------------------------------------------------------

/// Test knob, read only by this app: a shorter popup deadline in seconds (1..=120), so a
/// test can watch a request run out without waiting two minutes. It can only *shorten* the
/// time a human has (the broker clamps every deadline to its 2-minute hard deadline), and an
/// unanswered request is a `timeout`, i.e. a deny: the knob can never approve anything.
/// Anything unparsable or out of range is ignored.
pub const DEADLINE_KNOB: &str = "AIRLOCK_APP_TEST_POPUP_DEADLINE_SECS";

fn test_deadline() -> Option<Duration> {
    std::env::var(DEADLINE_KNOB)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|s| (1..=120).contains(s))
        .map(Duration::from_secs)
}

/// Why the approval service did not start.
enum StartError {
    /// Another Airlock app already answers on the socket: this is a second launch.
    Running(std::path::PathBuf),
    Failed(String),
}

/// Whether a D-Bus session bus can be reached at all (the single-instance hand-over uses it;
/// without one the plugin is not loaded, and a second launch says where the first one is).
fn session_bus_present() -> bool {
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
        || std::env::var_os("XDG_RUNTIME_DIR")
            .is_some_and(|d| std::path::Path::new(&d).join("bus").exists())
}

/// A second launch while the app runs: the single-instance plugin hands the arguments to the
/// running app (which opens its dashboard, or the wizard for `--setup`) and ends this process
/// inside `build`. Reaching the end means no running app answered on the session bus: say so
/// calmly, since Airlock is running and nothing is wrong.
fn second_launch(context: tauri::Context<Wry>, socket: &std::path::Path) -> ExitCode {
    if session_bus_present() {
        let built = tauri::Builder::default()
            .plugin(tauri_plugin_single_instance::init(|_, _, _| {}))
            .build(context);
        if let Err(e) = built {
            tracing::debug!(error = %e, "no hand-over to the running app");
        }
    }
    println!(
        "Airlock is already running (its approval service answers at {}). Open it from its tray icon.",
        socket.display()
    );
    ExitCode::SUCCESS
}

pub fn run() -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    // Made once: the first launch runs with it, a second launch only hands over (below).
    let context = tauri::generate_context!();
    let show_dashboard = std::env::args().any(|a| a == "--dashboard");
    let preload = !std::env::args().any(|a| a == "--no-preload");

    let paths = match Paths::discover() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("airlock-app: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    // First run: no store yet (or no password in it) opens the setup wizard.
    let store_existed = paths.db.exists();
    let mut show_wizard = std::env::args().any(|a| a == "--setup");
    let started = paths
        .open_store()
        .map_err(|e| format!("{e:#}"))
        .map_err(StartError::Failed)
        .and_then(|store| {
            match wizard::needed(store_existed, &store) {
                Ok(needed) => show_wizard |= needed,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot tell whether setup is done; opening it");
                    show_wizard = true;
                }
            }
            let mut cfg = BrokerConfig::at_default_location().ok_or_else(|| {
                StartError::Failed("no home directory for the approval socket".to_owned())
            })?;
            if let Some(d) = test_deadline() {
                tracing::warn!(
                    secs = d.as_secs(),
                    "{DEADLINE_KNOB} set: popups time out sooner"
                );
                cfg.hard_deadline = d;
            }
            Broker::start(cfg, store).map_err(|e| match e {
                BrokerError::AlreadyRunning(path) => StartError::Running(path),
                other => StartError::Failed(other.to_string()),
            })
        });
    let (broker, rx) = match started {
        Ok(b) => b,
        Err(StartError::Running(socket)) => return second_launch(context, &socket),
        Err(StartError::Failed(e)) => {
            eprintln!("airlock-app: cannot start the approval service: {e}");
            return ExitCode::from(2);
        }
    };
    tracing::info!(socket = %broker.socket_path().display(), "Airlock app started");
    let broker = Arc::new(broker);
    let remote = start_remote(&paths, &broker);

    let system = airlock_core::Level::installed() == airlock_core::Level::System;
    let mut builder = tauri::Builder::default();
    if session_bus_present() {
        // First of all plugins: a second launch hands its arguments to this one over the
        // session bus and ends; this one shows what was asked for.
        builder = builder.plugin(tauri_plugin_single_instance::init(|app, argv, _cwd| {
            tracing::info!("second launch: showing the running app");
            if argv.iter().any(|a| a == "--setup") {
                open_wizard(app);
            } else {
                open_dashboard(app);
            }
        }));
    }
    let app = builder
        .plugin(tauri_plugin_autostart::init(
            tauri_plugin_autostart::MacosLauncher::LaunchAgent,
            None,
        ))
        .manage(Shared {
            broker,
            system,
            agent: Arc::default(),
            remote,
            preload,
            paths,
            tray: Mutex::new(None),
            popups: Mutex::new(Popups::default()),
            blocks: Mutex::new(Vec::new()),
        })
        .invoke_handler(tauri::generate_handler![
            approval_get,
            approval_decide,
            popup_shown,
            popup_standby,
            close_self,
            overview,
            policy_request,
            policy_change,
            wizard_state,
            wizard_password,
            wizard_totp_begin,
            wizard_totp_finish,
            wizard_mode,
            wizard_agents,
            wizard_autostart,
            wizard_wire,
            quit_confirmed,
            wizard_self_test,
            dash_decisions,
            dash_ledger,
            dash_pins,
            dash_rules,
            dash_rule_revoke,
            rule_replay,
            rule_panel_ready,
            approval_always,
            agent_needs,
            agent_unlock,
            dashboard_rendered
        ])
        .on_window_event(|window, event| {
            // Closing a popup with the window manager is a "no".
            if let tauri::WindowEvent::CloseRequested { .. } = event
                && let Some(id) = popup_request(window.app_handle(), window.label())
            {
                let _ = window
                    .state::<Shared>()
                    .broker
                    .resolve(id, Decision::Denied);
            }
        })
        .setup(move |app| {
            let handle = app.handle().clone();
            if let Err(e) = build_tray(&handle) {
                tracing::error!(error = %e, "no tray icon");
            }
            // Pull the broker's receiver into the event pump.
            let pump_handle = handle.clone();
            std::thread::Builder::new()
                .name("airlock-ui-pump".into())
                .spawn(move || pump(pump_handle, rx))?;
            let blocks_handle = handle.clone();
            std::thread::Builder::new()
                .name("airlock-ui-blocks".into())
                .spawn(move || watch_blocks(blocks_handle))?;
            let integrity_handle = handle.clone();
            std::thread::Builder::new()
                .name("airlock-ui-integrity".into())
                .spawn(move || watch_integrity(integrity_handle))?;
            replenish(&handle);
            if show_dashboard {
                open_dashboard(&handle);
            }
            if system {
                // The system service reaches this desktop only through the app's approval
                // agent, which the factor unlocks.
                tracing::info!("system level: asking to unlock approvals");
                open_unlock(&handle);
            } else if show_wizard {
                tracing::info!("first run: opening the setup wizard");
                open_wizard(&handle);
            }
            Ok(())
        })
        .build(context);
    let app = match app {
        Ok(a) => a,
        Err(e) => {
            eprintln!("airlock-app: {e}");
            return ExitCode::FAILURE;
        }
    };
    app.run(|app, event| match event {
        // The tray app keeps running with no window open.
        RunEvent::ExitRequested {
            api, code: None, ..
        } => api.prevent_exit(),
        RunEvent::Exit => {
            let shared = app.state::<Shared>();
            if let Some(r) = &shared.remote {
                r.stop();
            }
            shared.broker.shutdown();
        }
        _ => {}
    });
    ExitCode::SUCCESS
}

/// Remote approval (issue #14): relays pending requests to the channel `airlock remote set`
/// chose, beside the broker. Not configured, or not startable (no TOTP; the TOTP secret sealed
/// under the password because there is no OS keyring; a bad setting): logged, and approvals
/// stay at the desk.
fn start_remote(paths: &Paths, broker: &Arc<Broker>) -> Option<RemoteRelay> {
    let store = match paths.open_store() {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "remote approval: cannot open the store");
            return None;
        }
    };
    let cfg = match airlock_core::remote::current(&store) {
        Ok(Some(c)) => c,
        Ok(None) => return None,
        Err(e) => {
            tracing::warn!(error = %e, "remote approval: cannot read the setting");
            return None;
        }
    };
    let describe = cfg.describe();
    match RemoteRelay::start(
        cfg,
        Arc::clone(broker),
        store,
        None,
        RelayOptions::default(),
    ) {
        Ok(r) => {
            tracing::info!(channel = %describe, "remote approval on");
            Some(r)
        }
        Err(e) => {
            tracing::error!(error = %e, "remote approval is set but cannot start");
            None
        }
    }
}
