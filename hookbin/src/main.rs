//! `airlock-hook <host>`: what agents run on every tool call.
//!
//! The same client as `airlock hook <host>` (`airlock_service::hook_client`), in a binary that
//! links only that client: a hook call's cost is mostly starting the process, and the full
//! `airlock` binary (CLI, factors, keyring, SQLite, the proxy launcher) takes twice as long to
//! start as this one. Exit codes and output are `airlock hook`'s.
//!
//! At user level, when no guard service is listening, the `airlock` binary installed next to
//! this one is started as `airlock daemon`; without one the call is denied with a message that
//! says how to start the service.

fn main() {
    let host = std::env::args().nth(1).unwrap_or_default();
    let daemon = std::env::current_exe()
        .ok()
        .and_then(|me| me.parent().map(|dir| dir.join("airlock")))
        .filter(|bin| bin.is_file());
    airlock_service::hook_client::run(&host, daemon)
}
