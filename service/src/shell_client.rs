//! The wrapper shell (`airlock sh -c …`, and `airlock-sh`, usable as an agent's `SHELL`): for
//! agents with no hook API. Each command is judged by the guard service exactly like a hooked
//! agent's shell call, before it runs; only a PASS (or an AUTH a human approved in the popup)
//! runs it, in the real shell, with the same arguments. Everything else — a BLOCK, an AUTH
//! nobody approved, an unreachable service, arguments this wrapper does not understand, an
//! interactive start — runs nothing and exits [`DENIED_EXIT`] with the reason on stderr.
//!
//! What it cannot do: see the agent's file reads and writes (only the commands it runs), or
//! screen a command's output (it streams to the agent untouched).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{ClientError, Endpoint, HookExchange};

/// Exit status when the command is not run (the shell's own "cannot execute").
pub const DENIED_EXIT: i32 = 126;
/// How long the first answer may take (a human being asked extends it).
const BUDGET: Duration = Duration::from_secs(20);
/// How long a human may take once the service says one is being asked.
const APPROVAL_BUDGET: Duration = Duration::from_secs(118);
/// The host name the service knows the wrapper by.
const HOST: &str = "shell";

/// What the arguments ask the shell to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// `-c COMMAND [NAME [ARGS…]]`: the command string is what is judged.
    Command(String),
    /// `SCRIPT [ARGS…]`: judged as running that script (the service reads the file).
    Script(String),
}

/// Why the arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    #[error(
        "the Airlock wrapper shell runs commands (`-c COMMAND`) and scripts, not an interactive shell"
    )]
    Interactive,
    #[error("the Airlock wrapper shell does not know the option {0}, so nothing was run")]
    UnknownOption(String),
    #[error("`-c` needs a command")]
    MissingCommand,
    #[error("the command is not UTF-8 text, so nothing was run")]
    NotUtf8,
}

/// Single-letter options passed through to the real shell (`-l` login, `-e` errexit, `-x`
/// xtrace, `-u` nounset, `-v` verbose, `-f` noglob, `-h`, `-B`, `-C`…); `-c` is the command.
const PASSED_LETTERS: &str = "lexuvfhBCEHPT";
/// Long options passed through.
const PASSED_LONG: &[&str] = &["--login", "--noprofile", "--norc", "--posix"];

/// Reads a shell's argument list (without the program name).
pub fn parse_args(args: &[OsString]) -> Result<Invocation, ArgsError> {
    let mut command_flag = false;
    let mut rest = args.iter();
    let first_operand = loop {
        let Some(arg) = rest.next() else {
            break None;
        };
        let Some(text) = arg.to_str() else {
            break Some(arg);
        };
        if text == "--" {
            break rest.next();
        }
        if text == "-" && !command_flag {
            // `sh -` reads commands from standard input: nothing to judge beforehand.
            return Err(ArgsError::Interactive);
        }
        if PASSED_LONG.contains(&text) {
            continue;
        }
        if text.starts_with("--") || text.starts_with('+') {
            return Err(ArgsError::UnknownOption(text.to_owned()));
        }
        if let Some(letters) = text.strip_prefix('-').filter(|l| !l.is_empty()) {
            for c in letters.chars() {
                match c {
                    'c' => command_flag = true,
                    'i' | 's' => return Err(ArgsError::Interactive),
                    c if PASSED_LETTERS.contains(c) => {}
                    _ => return Err(ArgsError::UnknownOption(format!("-{c}"))),
                }
            }
            continue;
        }
        break Some(arg);
    };
    match (command_flag, first_operand) {
        (true, None) => Err(ArgsError::MissingCommand),
        (true, Some(cmd)) => cmd
            .to_str()
            .map(|c| Invocation::Command(c.to_owned()))
            .ok_or(ArgsError::NotUtf8),
        (false, None) => Err(ArgsError::Interactive),
        (false, Some(script)) => {
            let mut words = vec![script];
            words.extend(rest);
            let mut line = String::from("bash");
            for w in words {
                let w = w.to_str().ok_or(ArgsError::NotUtf8)?;
                line.push(' ');
                line.push_str(&quote(w));
            }
            Ok(Invocation::Script(line))
        }
    }
}

/// Quotes a word for a POSIX shell.
fn quote(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

impl Invocation {
    /// The command line the service judges.
    pub fn judged(&self) -> &str {
        match self {
            Invocation::Command(c) | Invocation::Script(c) => c,
        }
    }
}

/// The session this command belongs to: `AIRLOCK_SESSION_ID` when the agent sets one, else the
/// process that started the shell (the agent), by pid and start time so a reused pid is a new
/// session.
pub fn session_id(env_session: Option<&OsStr>) -> String {
    if let Some(s) = env_session
        .and_then(OsStr::to_str)
        .filter(|s| !s.is_empty())
    {
        return s.chars().take(128).collect();
    }
    let ppid = std::os::unix::process::parent_id();
    match start_time(ppid) {
        Some(t) => format!("sh-{ppid}-{t}"),
        None => format!("sh-{ppid}"),
    }
}

/// Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot), Linux only.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields after its last ')'.
    let after = stat.get(stat.rfind(')')? + 1..)?;
    after.split_whitespace().nth(19)?.parse().ok()
}

/// The Claude-shaped `PreToolUse` event the service judges for this command.
pub fn payload(session: &str, cwd: &Path, command: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": "",
        "cwd": cwd.to_string_lossy(),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
}

/// The shell that runs a released command: bash where installed (agents write bash, and the
/// engine parses bash), else `/bin/sh`. Not configurable from the environment, which the
/// agent controls.
pub fn real_shell() -> PathBuf {
    let bash = Path::new("/bin/bash");
    if bash.is_file() {
        bash.to_path_buf()
    } else {
        PathBuf::from("/bin/sh")
    }
}

/// Asks the service about `command`; `Ok(())` only for a released call. The exchange is
/// acknowledged before returning, so the service records the answer as delivered.
pub fn judge(ep: &Endpoint, session: &str, cwd: &Path, command: &str) -> Result<(), String> {
    let fail = |e: ClientError| match e {
        ClientError::Service { message, .. } => message,
        other => format!("{other}."),
    };
    let mut ex =
        HookExchange::start(ep, HOST, payload(session, cwd, command), BUDGET).map_err(fail)?;
    let reply = ex
        .answer(
            |_| {},
            |paths| crate::client::read_files(&paths),
            APPROVAL_BUDGET,
        )
        .map_err(fail)?;
    // A release is exactly "no opinion" with exit 0; anything else (a denial, an ask the
    // wrapper cannot show, an answer it does not know) runs nothing.
    let released = reply.exit_code == 0 && reply.stdout.trim() == "{}";
    ex.ack();
    if released {
        Ok(())
    } else {
        let reason = reply.stderr.trim();
        Err(if reason.is_empty() {
            "Blocked by Airlock.".to_owned()
        } else {
            reason.to_owned()
        })
    }
}

/// Runs the wrapper shell with `args` (without the program name). `autostart` as for the hook
/// client. Never returns: execs the real shell or exits [`DENIED_EXIT`].
pub fn run(args: Vec<OsString>, autostart: Option<PathBuf>) -> ! {
    let deny = |why: &str| -> ! {
        let _ = writeln!(std::io::stderr(), "airlock: {why}");
        std::process::exit(DENIED_EXIT)
    };
    let invocation = match parse_args(&args) {
        Ok(i) => i,
        Err(e) => deny(&format!("{e}.")),
    };
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(_) => deny("the working directory is unreadable, so nothing was run."),
    };
    let session = session_id(std::env::var_os("AIRLOCK_SESSION_ID").as_deref());
    let ep = match Endpoint::discover(autostart) {
        Ok(ep) => ep,
        Err(e) => deny(&format!("{e}.")),
    };
    let verdict = std::panic::catch_unwind(|| judge(&ep, &session, &cwd, invocation.judged()));
    match verdict {
        Ok(Ok(())) => {}
        Ok(Err(reason)) => deny(&reason),
        Err(_) => deny("Airlock hit an internal error, so nothing was run."),
    }
    let err = std::os::unix::process::CommandExt::exec(
        std::process::Command::new(real_shell()).args(&args),
    );
    deny(&format!("could not start the shell: {err}."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn agents_argument_shapes_parse() {
        let cmd = |s: &str| Ok(Invocation::Command(s.into()));
        for (a, want) in [
            (vec!["-c", "ls -la"], cmd("ls -la")),
            (vec!["-lc", "git status"], cmd("git status")),
            (vec!["-c", "-l", "echo hi"], cmd("echo hi")),
            (vec!["--login", "-c", "make"], cmd("make")),
            (vec!["-e", "-c", "npm test", "name", "a1"], cmd("npm test")),
            (vec!["-c", "--", "x"], cmd("x")),
            (
                vec!["build.sh", "--fast"],
                Ok(Invocation::Script("bash build.sh --fast".into())),
            ),
            (
                vec!["my script.sh"],
                Ok(Invocation::Script("bash 'my script.sh'".into())),
            ),
            (vec![], Err(ArgsError::Interactive)),
            (vec!["-i"], Err(ArgsError::Interactive)),
            (vec!["-s"], Err(ArgsError::Interactive)),
            (vec!["-"], Err(ArgsError::Interactive)),
            (vec!["-l", "-"], Err(ArgsError::Interactive)),
            (vec!["-l"], Err(ArgsError::Interactive)),
            (vec!["-c"], Err(ArgsError::MissingCommand)),
            (
                vec!["-q", "-c", "x"],
                Err(ArgsError::UnknownOption("-q".into())),
            ),
            (
                vec!["--rcfile", "x", "-c", "y"],
                Err(ArgsError::UnknownOption("--rcfile".into())),
            ),
            (
                vec!["+e", "-c", "y"],
                Err(ArgsError::UnknownOption("+e".into())),
            ),
        ] {
            assert_eq!(parse_args(&args(&a)), want, "{a:?}");
        }
    }

    #[test]
    fn the_judged_payload_is_a_claude_shaped_pre_tool_use() {
        let p = payload("s1", Path::new("/w"), "rm -rf ~");
        let v: serde_json::Value = serde_json::from_str(&p).unwrap();
        assert_eq!(v["hook_event_name"], "PreToolUse");
        assert_eq!(v["tool_name"], "Bash");
        assert_eq!(v["tool_input"]["command"], "rm -rf ~");
        assert_eq!(v["cwd"], "/w");
        let call = airlock_hooks::parse_call(airlock_engine::Host::Shell, p.as_bytes()).unwrap();
        assert_eq!(call.host, airlock_engine::Host::Shell);
        match call.event {
            airlock_hooks::Event::Judge(a) => assert_eq!(a.host, airlock_engine::Host::Shell),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sessions_follow_the_agent_process() {
        assert_eq!(session_id(Some(OsStr::new("abc"))), "abc");
        let mine = session_id(None);
        assert!(mine.starts_with(&format!("sh-{}", std::os::unix::process::parent_id())));
        assert_eq!(mine, session_id(Some(OsStr::new(""))));
    }
}
