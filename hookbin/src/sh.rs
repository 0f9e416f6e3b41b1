//! `airlock-sh`: the wrapper shell, for an agent with no hook API (set as its `SHELL`, or run
//! as `airlock-sh -c COMMAND`). Each command is judged by the guard service before it runs;
//! only a released one runs, in bash, with the same arguments
//! (`airlock_service::shell_client`). A command not run exits 126 with the reason on stderr.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let daemon = std::env::current_exe()
        .ok()
        .and_then(|me| me.parent().map(|dir| dir.join("airlock")))
        .filter(|bin| bin.is_file());
    airlock_service::shell_client::run(args, daemon)
}
