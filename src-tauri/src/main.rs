//! Airlock's tray app: hosts the approval service ([`airlock_broker::Broker`]), opens one
//! always-on-top popup per pending AUTH request, and switches mode / enforcement from the tray.
//!
//! Thin shell (CONVENTIONS §10): every command here only calls the broker, the store and the
//! CLI's factor / policy plumbing.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[cfg(unix)]
mod agent;
#[cfg(unix)]
mod dashboard;
#[cfg(unix)]
mod policy;
#[cfg(unix)]
mod popup;
#[cfg(unix)]
mod rules;
#[cfg(unix)]
mod setup_cmds;
#[cfg(unix)]
mod shell;
#[cfg(unix)]
mod tray;
#[cfg(unix)]
mod unlock;
#[cfg(unix)]
mod views;
#[cfg(unix)]
mod wizard;

#[cfg(unix)]
fn main() -> std::process::ExitCode {
    shell::run()
}

/// Windows (named-pipe approval service) is a TODO: see `airlock_broker`.
#[cfg(not(unix))]
fn main() -> std::process::ExitCode {
    eprintln!("airlock-app: the approval service is not available on this platform yet");
    std::process::ExitCode::FAILURE
}
