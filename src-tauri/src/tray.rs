//! The tray icon and menu, recent BLOCK notifications, and the integrity watch.

use crate::dashboard::{open_dashboard, request_change};
use crate::policy::{self, ENFORCEMENTS};
use crate::setup_cmds::open_wizard;
use crate::shell::{Shared, TrayItems, lock, open_quit_confirm};
use crate::unlock::open_unlock;
use crate::wizard;
use airlock_engine::Mode;
use airlock_store::{DecisionFilter, DecisionRow, Outcome as DecisionOutcome};
use std::time::Duration;
use tauri::menu::{CheckMenuItem, IsMenuItem, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager, Wry};

pub(crate) fn build_tray(app: &AppHandle) -> tauri::Result<()> {
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
pub(crate) fn refresh_blocks(app: &AppHandle) {
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

pub(crate) const RECENT_BLOCKS: usize = 5;

pub(crate) fn block_label(d: &DecisionRow) -> String {
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
pub(crate) fn notify_block(d: &DecisionRow) {
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

/// Where the audit log is read: the user's store, or (system level) the guard service, which
/// keeps each user's decisions where the user cannot open them.
enum AuditSource {
    Store(airlock_store::Store),
    Service,
}

impl AuditSource {
    /// This user's newest decisions, newest first, narrowed by outcome.
    fn newest(
        &self,
        limit: usize,
        outcome: Option<DecisionOutcome>,
    ) -> anyhow::Result<Vec<airlock_store::DecisionRow>> {
        match self {
            AuditSource::Store(store) => Ok(store.recent_decisions(&DecisionFilter {
                limit,
                outcome,
                ..DecisionFilter::default()
            })?),
            AuditSource::Service => {
                crate::policy::service_decisions(airlock_service::protocol::DecisionQuery {
                    limit,
                    outcome,
                    ..Default::default()
                })
            }
        }
    }

    /// Decisions recorded after `last`, oldest first.
    fn after(&self, last: i64) -> anyhow::Result<Vec<airlock_store::DecisionRow>> {
        match self {
            AuditSource::Store(store) => Ok(store.decisions_after(last, 200)?),
            AuditSource::Service => {
                let mut rows = self.newest(200, None)?;
                rows.retain(|d| d.id > last);
                rows.reverse();
                Ok(rows)
            }
        }
    }
}

/// Follows the audit log for BLOCKs (recorded by the service, hooks and the proxy in other
/// processes): from the user's store, or through the guard service at the system level
/// (where no user store exists and none is made).
pub(crate) fn watch_blocks(app: AppHandle) {
    let shared = app.state::<Shared>();
    let source = if shared.system {
        AuditSource::Service
    } else {
        match shared.paths.open_existing_store() {
            Ok(s) => AuditSource::Store(s),
            Err(e) => {
                tracing::warn!(error = %e, "cannot follow the audit log for blocks");
                return;
            }
        }
    };
    // Until the first read works (the service may still be starting), nothing is shown as
    // new: every row already there counts as seen.
    let mut last: Option<i64> = None;
    loop {
        let Some(seen) = last else {
            match (
                source.newest(1, None),
                source.newest(RECENT_BLOCKS, Some(DecisionOutcome::Blocked)),
            ) {
                (Ok(newest), Ok(blocks)) => {
                    last = Some(newest.first().map_or(0, |d| d.id));
                    *lock(&shared.blocks) = blocks.iter().map(block_label).collect();
                    refresh_blocks(&app);
                    tracing::info!(system = shared.system, "following the audit log for blocks");
                }
                (Err(e), _) | (_, Err(e)) => {
                    tracing::debug!(error = %e, "audit log not readable yet");
                }
            }
            std::thread::sleep(Duration::from_secs(1));
            continue;
        };
        std::thread::sleep(Duration::from_secs(1));
        let rows = match source.after(seen) {
            Ok(rows) => rows,
            Err(e) => {
                tracing::debug!(error = %e, "audit log poll failed");
                continue;
            }
        };
        let mut changed = false;
        let mut newest = seen;
        for d in rows {
            newest = newest.max(d.id);
            if d.outcome == DecisionOutcome::Blocked {
                tracing::info!(id = d.id, host = %d.host, tool = %d.tool, "blocked call seen");
                let mut list = lock(&shared.blocks);
                list.insert(0, block_label(&d));
                list.truncate(RECENT_BLOCKS);
                changed = true;
                notify_block(&d);
            }
        }
        last = Some(newest);
        if changed {
            refresh_blocks(&app);
        }
    }
}

/// A desktop notification about Airlock's own integrity (tampering, a killed hook, removed
/// wiring), from its own thread like [`notify_block`].
pub(crate) fn notify_integrity(summary: &'static str, body: String) {
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
pub(crate) fn watch_integrity(app: AppHandle) {
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

pub(crate) fn on_menu(app: &AppHandle, id: &str) {
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

pub(crate) fn refresh_tray(app: &AppHandle) {
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
