//! The app's start (`run`), its shared state and the broker event pump. The commands and windows
//! live beside it: `popup`, `dashboard`, `tray`, `unlock`, `setup_cmds`.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_broker::{Broker, BrokerConfig, BrokerError, BrokerEvent, Decision};
use airlock_core::Paths;
use airlock_core::factors::Proof;
use airlock_engine::Mode;
use airlock_remote::{RelayOptions, RemoteRelay};
use tauri::menu::{CheckMenuItem, MenuItem, Submenu};
use tauri::{AppHandle, Emitter, Manager, RunEvent, State, WebviewUrl, WebviewWindowBuilder, Wry};

use crate::dashboard::open_dashboard;
use crate::popup::{close_popup, open_popup, popup_request, replenish};
use crate::setup_cmds::open_wizard;
use crate::tray::{build_tray, refresh_tray, watch_blocks, watch_integrity};
use crate::unlock::open_unlock;
use crate::{agent, dashboard, popup, setup_cmds, unlock, wizard};

pub(crate) const POPUP_PREFIX: &str = "approval-";
pub(crate) const POPUP_W: f64 = 460.0;
pub(crate) const POPUP_H: f64 = 560.0;

pub(crate) struct TrayItems {
    pub(crate) pending: MenuItem<Wry>,
    pub(crate) blocks: Submenu<Wry>,
    pub(crate) modes: Vec<(Mode, CheckMenuItem<Wry>)>,
    pub(crate) enforcement: Vec<(airlock_engine::Enforcement, CheckMenuItem<Wry>)>,
}

/// Popup windows. One hidden popup is kept loaded ("spare") so a request shows without
/// waiting for a page load; more at once get fresh windows.
#[derive(Default)]
pub(crate) struct Popups {
    /// Loaded and listening (it said so through `popup_standby`).
    pub(crate) spare: Option<String>,
    /// Built, page still loading.
    pub(crate) loading: Option<String>,
    pub(crate) by_id: HashMap<i64, String>,
    pub(crate) next: u64,
}

pub(crate) struct Shared {
    pub(crate) broker: Arc<Broker>,
    /// The system level is installed: approvals come from the guard service through the
    /// app's approval agent (`agent`), once unlocked with the factor.
    pub(crate) system: bool,
    pub(crate) agent: Arc<agent::AgentState>,
    /// Remote approval's relay, when `airlock remote set` chose a channel (issue #14).
    pub(crate) remote: Option<RemoteRelay>,
    /// Keep one hidden popup loaded (`--no-preload` turns it off: saves a web process's
    /// memory, costs a page load per popup).
    pub(crate) preload: bool,
    pub(crate) paths: Paths,
    pub(crate) tray: Mutex<Option<TrayItems>>,
    pub(crate) popups: Mutex<Popups>,
    /// Recent BLOCKs for the tray, newest first.
    pub(crate) blocks: Mutex<Vec<String>>,
}

pub(crate) type Res<T> = Result<T, String>;

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) fn proof(password: Option<String>, code: Option<String>) -> Proof {
    let nonempty = |s: Option<String>| s.filter(|v| !v.is_empty());
    Proof {
        password: nonempty(password),
        code: nonempty(code),
    }
}

// ---------------------------------------------------------------------------------------
// Commands

// ---------------------------------------------------------------------------------------
// Onboarding wizard

// ---------------------------------------------------------------------------------------
// Dashboard views (read-only)

// ---------------------------------------------------------------------------------------
// Windows

/// "Quit Airlock?" while approvals are pending; "Keep running" is the default.
pub(crate) fn open_quit_confirm(app: &AppHandle, pending: usize) {
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

// ---------------------------------------------------------------------------------------
// Tray

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
    let setup_asked = std::env::args().any(|a| a == "--setup");
    let mut show_wizard = setup_asked;
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
            popup::approval_get,
            popup::approval_decide,
            popup::popup_shown,
            popup::popup_standby,
            popup::close_self,
            dashboard::overview,
            dashboard::policy_request,
            dashboard::policy_change,
            setup_cmds::wizard_state,
            setup_cmds::wizard_password,
            setup_cmds::wizard_totp_begin,
            setup_cmds::wizard_totp_finish,
            setup_cmds::wizard_mode,
            setup_cmds::wizard_agents,
            setup_cmds::wizard_autostart,
            setup_cmds::wizard_wire,
            quit_confirmed,
            setup_cmds::wizard_self_test,
            dashboard::dash_decisions,
            dashboard::dash_ledger,
            dashboard::dash_pins,
            dashboard::dash_rules,
            dashboard::dash_rule_revoke,
            popup::rule_replay,
            popup::rule_panel_ready,
            popup::approval_always,
            unlock::agent_needs,
            unlock::agent_unlock,
            dashboard::dashboard_rendered
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
                // agent, which the factor unlocks. With no password in the service yet there
                // is nothing to unlock with: the wizard sets it (and unlocks with it). An
                // unanswered status counts as set: the unlock prompt then says what is wrong.
                let first_run = matches!(
                    crate::policy::status_at(&handle.state::<Shared>().paths, true),
                    Ok(s) if !s.password_set
                );
                if first_run || setup_asked {
                    tracing::info!(first_run, "system level: opening the setup wizard");
                    open_wizard(&handle);
                }
                if !first_run {
                    tracing::info!("system level: asking to unlock approvals");
                    open_unlock(&handle);
                }
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
