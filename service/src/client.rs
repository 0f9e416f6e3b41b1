//! The client half: plain blocking `std` I/O, what `airlock hook` and the CLI link. No store,
//! no policy, no async runtime.

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use airlock_core::Level;
use airlock_core::paths::{self, SYSTEM_SOCKET, SYSTEM_USER};

use crate::peer;
use crate::protocol::{MAX_RESPONSE_LINE, Request, Response};
use crate::server::read_line_bounded;

/// How long a client waits for a system service that is not (yet) listening: a restart.
const SYSTEM_RESTART_WAIT: Duration = Duration::from_secs(2);
/// How long a started service may take to open its socket.
const START_WAIT: Duration = Duration::from_secs(3);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "Airlock's guard service is not running: start it with `sudo systemctl start airlock` (system level) or `airlock daemon` (user level)"
    )]
    NotRunning,
    #[error("Airlock's guard service could not be started: {0}")]
    StartFailed(String),
    #[error("the socket at {0} is not served by Airlock's service user; refusing to talk to it")]
    Impostor(PathBuf),
    #[error("Airlock's guard service did not answer in time")]
    Timeout,
    #[error("talking to Airlock's guard service failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("Airlock's guard service answered something unreadable")]
    BadAnswer,
    #[error("{message}")]
    Service { code: String, message: String },
}

/// Where the service for this user is, and whether the client may start it.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub level: Level,
    pub socket: PathBuf,
    /// User level: the binary to run as `<bin> daemon` when nothing listens.
    pub autostart: Option<PathBuf>,
}

impl Endpoint {
    /// The installed level's endpoint: system when the root-owned marker exists (then never a
    /// user-level fallback), else this user's, started on demand from `self_bin`.
    pub fn discover(self_bin: Option<PathBuf>) -> Result<Endpoint, ClientError> {
        if paths::system_marker_present() {
            return Ok(Endpoint {
                level: Level::System,
                socket: PathBuf::from(SYSTEM_SOCKET),
                autostart: None,
            });
        }
        let socket =
            paths::user_socket_path().map_err(|e| ClientError::StartFailed(e.to_string()))?;
        Ok(Endpoint {
            level: Level::User,
            socket,
            autostart: self_bin,
        })
    }

    fn connect_once(&self) -> Result<UnixStream, ClientError> {
        let s = match UnixStream::connect(&self.socket) {
            Ok(s) => s,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
                ) =>
            {
                return Err(ClientError::NotRunning);
            }
            Err(e) => return Err(ClientError::Io(e)),
        };
        // The kernel says who serves the socket: our own user at user level, the service's
        // system user at system level. Anything else is an impostor.
        let server = peer::peer(&s)?;
        let expected = match self.level {
            Level::User => Some(peer::my_uid()),
            Level::System => peer::passwd_uid(SYSTEM_USER),
        };
        if expected != Some(server.uid) {
            return Err(ClientError::Impostor(self.socket.clone()));
        }
        Ok(s)
    }

    /// Connects, starting the user-level service first when it is not running.
    pub fn connect(&self) -> Result<UnixStream, ClientError> {
        match self.connect_once() {
            Err(ClientError::NotRunning) => {}
            other => return other,
        }
        let Some(bin) = &self.autostart else {
            if self.level == Level::System {
                // A system service being (re)started by systemd answers within moments: wait
                // for it briefly rather than deny a call over a restart. Still a denial after.
                let started = Instant::now();
                loop {
                    std::thread::sleep(Duration::from_millis(20));
                    match self.connect_once() {
                        Err(ClientError::NotRunning) if started.elapsed() < SYSTEM_RESTART_WAIT => {
                        }
                        other => return other,
                    }
                }
            }
            return Err(ClientError::NotRunning);
        };
        start_service(bin)?;
        let started = Instant::now();
        loop {
            match self.connect_once() {
                Err(ClientError::NotRunning) if started.elapsed() < START_WAIT => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                other => return other,
            }
        }
    }
}

/// Starts `<bin> daemon` detached from this process (its own process group, no inherited
/// stdio), so it outlives the hook that started it.
fn start_service(bin: &Path) -> Result<(), ClientError> {
    use std::os::unix::process::CommandExt;
    std::process::Command::new(bin)
        .arg("daemon")
        .arg("--idle-exit")
        .arg("1800")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| ClientError::StartFailed(format!("{}: {e}", bin.display())))?;
    Ok(())
}

fn send(s: &mut UnixStream, r: &Request) -> Result<(), ClientError> {
    let mut line = serde_json::to_string(r).map_err(|_| ClientError::BadAnswer)?;
    line.push('\n');
    s.write_all(line.as_bytes())?;
    s.flush()?;
    Ok(())
}

fn receive(reader: &mut BufReader<UnixStream>) -> Result<Response, ClientError> {
    match read_line_bounded(reader, MAX_RESPONSE_LINE) {
        Ok(Some(l)) => serde_json::from_str(&l).map_err(|_| ClientError::BadAnswer),
        Ok(None) => Err(ClientError::BadAnswer),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Err(ClientError::Timeout)
        }
        Err(e) => Err(ClientError::Io(e)),
    }
}

/// One request, one answer (everything but hooks).
pub fn call(ep: &Endpoint, req: &Request, timeout: Duration) -> Result<Response, ClientError> {
    let mut s = ep.connect()?;
    s.set_read_timeout(Some(timeout))?;
    send(&mut s, req)?;
    let mut reader = BufReader::new(s);
    match receive(&mut reader)? {
        Response::Error { code, message } => Err(ClientError::Service { code, message }),
        r => Ok(r),
    }
}

/// Sends one MCP message to the service ([`Request::Mcp`]) and waits for what to do with it:
/// the files it asks for are read as this process's user sees them; once it says a human is
/// being asked, the wait becomes `wait_budget`. `budget` bounds the connection and the first
/// answer.
pub fn mcp(
    ep: &Endpoint,
    action: &airlock_engine::Action,
    result: Option<String>,
    raises: Vec<airlock_engine::ReasonReport>,
    budget: Duration,
    wait_budget: Duration,
) -> Result<crate::protocol::McpOutcome, ClientError> {
    let mut s = ep.connect()?;
    s.set_read_timeout(Some(budget))?;
    s.set_write_timeout(Some(budget))?;
    send(
        &mut s,
        &Request::Mcp {
            action: Box::new(action.clone()),
            result,
            raises,
        },
    )?;
    let mut reader = BufReader::new(s);
    loop {
        match receive(&mut reader)? {
            Response::NeedFiles { paths } => {
                let facts = read_files(&paths);
                send(reader.get_mut(), &Request::Files { facts })?;
            }
            Response::Waiting { .. } => {
                reader.get_ref().set_read_timeout(Some(wait_budget))?;
            }
            Response::Mcp { outcome } => return Ok(outcome),
            Response::Error { code, message } => {
                return Err(ClientError::Service { code, message });
            }
            _ => return Err(ClientError::BadAnswer),
        }
    }
}

/// A registered approval agent's connection (system level; see [`crate::agent`]): requests
/// arrive through [`AgentSession::next`]; answers go through an [`AgentAnswerer`], which
/// another thread may hold.
pub struct AgentSession {
    reader: BufReader<UnixStream>,
}

/// The writing half of an [`AgentSession`].
pub struct AgentAnswerer {
    writer: UnixStream,
}

impl AgentSession {
    /// Registers as this user's approval agent with the factor (verified in the service).
    pub fn register(
        ep: &Endpoint,
        proof: airlock_core::factors::Proof,
    ) -> Result<(AgentSession, AgentAnswerer), ClientError> {
        let mut s = ep.connect()?;
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        send(&mut s, &Request::AgentRegister { proof: Some(proof) })?;
        let mut reader = BufReader::new(s.try_clone()?);
        match receive(&mut reader)? {
            Response::AgentRegistered => {}
            Response::Error { code, message } => {
                return Err(ClientError::Service { code, message });
            }
            _ => return Err(ClientError::BadAnswer),
        }
        reader.get_ref().set_read_timeout(None)?;
        Ok((AgentSession { reader }, AgentAnswerer { writer: s }))
    }

    /// The next line from the service (blocks): an `AgentAsk`, an `AgentClosed`, or an
    /// `Error` about an answer. `Err` when the service went away.
    pub fn next_message(&mut self) -> Result<Response, ClientError> {
        receive(&mut self.reader)
    }
}

impl AgentAnswerer {
    pub fn answer(
        &mut self,
        id: u64,
        decision: crate::AgentDecision,
        proof: Option<airlock_core::factors::Proof>,
    ) -> Result<(), ClientError> {
        send(
            &mut self.writer,
            &Request::AgentAnswer {
                id,
                decision,
                proof,
            },
        )
    }
}

/// A hook exchange in progress: the answer arrives through [`HookExchange::answer`]; the
/// caller prints it and then calls [`HookExchange::ack`].
pub struct HookExchange {
    reader: BufReader<UnixStream>,
}

/// The service's answer to a hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReply {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

impl HookExchange {
    /// Sends the hook event. `budget` bounds the connection and the wait for a first line.
    pub fn start(
        ep: &Endpoint,
        host: &str,
        payload: String,
        budget: Duration,
    ) -> Result<HookExchange, ClientError> {
        let mut s = ep.connect()?;
        s.set_read_timeout(Some(budget))?;
        s.set_write_timeout(Some(budget))?;
        send(
            &mut s,
            &Request::Hook {
                host: host.to_owned(),
                payload,
            },
        )?;
        Ok(HookExchange {
            reader: BufReader::new(s),
        })
    }

    /// Waits for the answer. `on_wait(deadline_ms)` is called when the service says a human is
    /// being asked (the caller extends its own watchdog); the read timeout then becomes
    /// `wait_budget`.
    pub fn answer(
        &mut self,
        mut on_wait: impl FnMut(i64),
        mut on_files: impl FnMut(Vec<String>) -> airlock_engine::CallFacts,
        wait_budget: Duration,
    ) -> Result<HookReply, ClientError> {
        loop {
            match receive(&mut self.reader)? {
                Response::NeedFiles { paths } => {
                    let facts = on_files(paths);
                    send(self.reader.get_mut(), &Request::Files { facts })?;
                }
                Response::Waiting { deadline_ms } => {
                    on_wait(deadline_ms);
                    self.reader.get_ref().set_read_timeout(Some(wait_budget))?;
                }
                Response::Hook {
                    stdout,
                    stderr,
                    exit_code,
                } => {
                    return Ok(HookReply {
                        stdout,
                        stderr,
                        exit_code,
                    });
                }
                Response::Error { code, message } => {
                    return Err(ClientError::Service { code, message });
                }
                _ => return Err(ClientError::BadAnswer),
            }
        }
    }

    /// Tells the service the answer was printed.
    pub fn ack(mut self) {
        let _ = send(self.reader.get_mut(), &Request::Ack);
    }
}

/// Reads the files the service asked for, as this process's user sees them: each path's
/// symbolic links resolved (recorded in `symlinks`), content bounded to
/// [`airlock_engine::needs::MAX_FILE_BYTES`] (larger is `TooLarge`), text decoded lossily;
/// what cannot be read is `Unreadable`, what is not there `Missing`.
pub fn read_files(paths: &[String]) -> airlock_engine::CallFacts {
    use airlock_engine::FileView;
    use std::io::Read;
    let max = airlock_engine::needs::MAX_FILE_BYTES;
    let mut facts = airlock_engine::CallFacts {
        inspected: true,
        ..Default::default()
    };
    for p in paths.iter().take(airlock_engine::needs::MAX_PATHS) {
        let path = Path::new(p);
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
                Ok(t) => {
                    facts
                        .symlinks
                        .insert(p.clone(), t.to_string_lossy().into_owned());
                    t
                }
                Err(_) => {
                    facts.files.insert(p.clone(), FileView::Missing);
                    continue;
                }
            },
            Ok(_) => path.to_path_buf(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                facts.files.insert(p.clone(), FileView::Missing);
                continue;
            }
            Err(_) => {
                facts.files.insert(p.clone(), FileView::Unreadable);
                continue;
            }
        };
        // Non-blocking open: a FIFO planted where a script was expected must not hang the hook
        // (a hook that runs past the host's limit lets the call through on some hosts).
        let opened = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
                .open(&target)
        };
        let view = match opened {
            Ok(f) if f.metadata().is_ok_and(|m| m.is_file()) => {
                let mut buf = Vec::new();
                match f
                    .take(u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1))
                    .read_to_end(&mut buf)
                {
                    // A compiled program has no text to judge (like any installed binary);
                    // saying `Unreadable` would make every `./target/debug/app` AUTH.
                    Ok(_) if is_binary(&buf) => FileView::Missing,
                    Ok(n) if n > max => FileView::TooLarge,
                    Ok(_) => FileView::Content(String::from_utf8_lossy(&buf).into_owned()),
                    Err(_) => FileView::Unreadable,
                }
            }
            Ok(_) => FileView::Unreadable,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileView::Missing,
            Err(_) => FileView::Unreadable,
        };
        // Keyed by the path asked for and, through a link, by its target too (the engine
        // resolves links first and then looks the target up).
        let t = target.to_string_lossy().into_owned();
        if t != *p {
            facts.files.insert(t, view.clone());
        }
        facts.files.insert(p.clone(), view);
    }
    facts
}

/// An executable format (ELF, Mach-O, PE, Wasm) or NUL bytes early on: not a script.
fn is_binary(buf: &[u8]) -> bool {
    const MAGIC: &[&[u8]] = &[
        b"\x7fELF",
        b"MZ",
        b"\xcf\xfa\xed\xfe",
        b"\xce\xfa\xed\xfe",
        b"\xca\xfe\xba\xbe",
        b"\0asm",
    ];
    MAGIC.iter().any(|m| buf.starts_with(m)) || buf.iter().take(8192).any(|b| *b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_engine::FileView;

    #[test]
    fn a_fifo_where_a_script_was_expected_is_unreadable_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("cleanup.sh");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let path = fifo.to_string_lossy().into_owned();
        let (tx, rx) = std::sync::mpsc::channel();
        let asked = vec![path.clone()];
        std::thread::spawn(move || {
            let _ = tx.send(read_files(&asked));
        });
        // A blocking open would wait for a writer forever.
        let facts = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("reading a FIFO hung");
        assert_eq!(facts.files.get(&path), Some(&FileView::Unreadable));
    }

    #[test]
    fn regular_files_and_missing_ones_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("x.sh");
        std::fs::write(&script, "echo hi\n").unwrap();
        let missing = dir.path().join("gone.sh");
        let asked = vec![
            script.to_string_lossy().into_owned(),
            missing.to_string_lossy().into_owned(),
        ];
        let facts = read_files(&asked);
        assert_eq!(
            facts.files.get(&asked[0]),
            Some(&FileView::Content("echo hi\n".into()))
        );
        assert_eq!(facts.files.get(&asked[1]), Some(&FileView::Missing));
    }
}
