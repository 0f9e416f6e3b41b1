//! The guard service: a local socket, one thread per connection, one state per user.
//!
//! - **User level**: the socket's directory is `0700`, the socket `0600`, and a peer that is
//!   not this user (`SO_PEERCRED`) is hung up on. One instance per user (an exclusive lock
//!   beside the socket); started on demand by the hook client, like `gpg-agent`.
//! - **System level**: runs as its own system user (systemd unit); the socket is `0666` so
//!   every local user may ask, and the kernel says who asked: each user gets their own store
//!   (`/var/lib/airlock/users/<uid>/`), sessions and decisions, and can change only their own
//!   dials, with the factor verified here, inside the service.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_core::dials::{self, Dial};
use airlock_core::{Level, Paths, clock, factors};
use airlock_store::{DecisionRow, Outcome};

use crate::hook::{self, Line};
use crate::peer::{self, Peer};
use crate::protocol::{MAX_REQUEST_LINE, Request, Response, Status};
use crate::state::{BYPASSED_PREFIX, UserState, bypass_key};

/// Connections served at once; past this a client is told the service is busy (a denial).
const MAX_CONNECTIONS: usize = 256;
/// How long a client may take to send its request line.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a hook client may take to acknowledge that it printed the answer.
const ACK_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("another Airlock service is already running for this user")]
    AlreadyRunning,
    #[error("{0}")]
    Setup(String),
}

fn io_err(path: &Path, source: std::io::Error) -> ServiceError {
    ServiceError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How to run.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    pub level: Level,
    pub socket: PathBuf,
    /// System level: where users' stores live ([`airlock_core::paths::SYSTEM_STATE_DIR`]).
    pub state_dir: PathBuf,
    /// User level: this user's paths.
    pub user_paths: Option<Paths>,
    /// Exit after this long without a connection (user level, started on demand).
    pub idle_exit: Option<Duration>,
}

struct Service {
    cfg: ServiceConfig,
    users: Mutex<HashMap<u32, Arc<Mutex<UserState>>>>,
    active: AtomicUsize,
    last_activity_ms: AtomicU64,
    /// Reused threads for the watchers of clients whose call a human is asked about.
    workers: crate::workers::Workers,
}

impl Service {
    fn user(&self, uid: u32) -> Option<Arc<Mutex<UserState>>> {
        let mut users = self.users.lock().ok()?;
        if let Some(u) = users.get(&uid) {
            return Some(Arc::clone(u));
        }
        let paths = match self.cfg.level {
            Level::User => self.cfg.user_paths.clone()?,
            Level::System => Paths::system_for_user(&self.cfg.state_dir, uid, peer::home_of(uid)),
        };
        let u = Arc::new(Mutex::new(UserState::new(paths)));
        users.insert(uid, Arc::clone(&u));
        Some(u)
    }

    /// Saves what every user's baselines learned since their last save (before exiting).
    fn flush_all(&self) {
        let users: Vec<_> = match self.users.lock() {
            Ok(u) => u.values().cloned().collect(),
            Err(_) => return,
        };
        for u in users {
            if let Ok(mut st) = u.lock() {
                st.flush_baselines();
            }
        }
        // Whatever is still queued for the team's collector gets a short chance to go.
        airlock_core::export::flush(Duration::from_secs(2));
    }

    fn touch(&self) {
        self.last_activity_ms.store(
            u64::try_from(clock::now_ms()).unwrap_or(0),
            Ordering::SeqCst,
        );
    }
}

/// Prepares the socket's directory: user level private (`0700`, ours), system level
/// world-searchable (`0755`).
fn prepare_dir(level: Level, dir: &Path) -> Result<(), ServiceError> {
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let meta = std::fs::symlink_metadata(dir).map_err(|e| io_err(dir, e))?;
    use std::os::unix::fs::MetadataExt;
    if !meta.is_dir() || meta.uid() != peer::my_uid() {
        return Err(ServiceError::Setup(format!(
            "{} is not a directory owned by the service's user",
            dir.display()
        )));
    }
    let mode = match level {
        Level::User => 0o700,
        Level::System => 0o755,
    };
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
        .map_err(|e| io_err(dir, e))?;
    Ok(())
}

/// Runs the service until it is told to stop (SIGTERM, SIGINT, a `shutdown` request from its
/// own user) or, when configured, until it has been idle long enough.
pub fn serve(cfg: ServiceConfig) -> Result<(), ServiceError> {
    airlock_core::export::set_protection_level(match cfg.level {
        Level::User => "user",
        Level::System => "system",
    });
    let dir = cfg
        .socket
        .parent()
        .ok_or_else(|| ServiceError::Setup("the socket path has no directory".to_owned()))?
        .to_path_buf();
    prepare_dir(cfg.level, &dir)?;
    let lock_path = dir.join("guard.lock");
    let lock_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| io_err(&lock_path, e))?;
    let _lock =
        match nix::fcntl::Flock::lock(lock_file, nix::fcntl::FlockArg::LockExclusiveNonblock) {
            Ok(l) => l,
            Err(_) => return Err(ServiceError::AlreadyRunning),
        };
    // We hold the lock: any socket file left is stale.
    match std::fs::remove_file(&cfg.socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(&cfg.socket, e)),
    }
    let listener = UnixListener::bind(&cfg.socket).map_err(|e| io_err(&cfg.socket, e))?;
    let mode = match cfg.level {
        Level::User => 0o600,
        Level::System => 0o666,
    };
    std::fs::set_permissions(&cfg.socket, std::fs::Permissions::from_mode(mode))
        .map_err(|e| io_err(&cfg.socket, e))?;

    // Signals are taken by one thread (blocked everywhere else), so a SIGTERM removes the
    // socket and exits cleanly.
    let mut sigs = nix::sys::signal::SigSet::empty();
    sigs.add(nix::sys::signal::Signal::SIGTERM);
    sigs.add(nix::sys::signal::Signal::SIGINT);
    sigs.add(nix::sys::signal::Signal::SIGHUP);
    sigs.thread_block()
        .map_err(|e| ServiceError::Setup(format!("cannot block signals: {e}")))?;
    let svc = Arc::new(Service {
        cfg: cfg.clone(),
        users: Mutex::new(HashMap::new()),
        active: AtomicUsize::new(0),
        last_activity_ms: AtomicU64::new(0),
        workers: crate::workers::Workers::default(),
    });
    {
        let svc = Arc::clone(&svc);
        std::thread::spawn(move || {
            if let Ok(sig) = sigs.wait() {
                tracing::info!(signal = ?sig, "stopping");
            }
            let _ = std::fs::remove_file(&svc.cfg.socket);
            svc.flush_all();
            std::process::exit(0);
        });
    }
    svc.touch();
    {
        // A service whose socket is gone or replaced (its directory removed, the file deleted
        // or rebound) can no longer be reached: it exits, and the next hook starts a fresh one
        // (a replaced socket served by another user is refused by the client).
        use std::os::unix::fs::MetadataExt;
        let socket = cfg.socket.clone();
        let ino = std::fs::symlink_metadata(&socket).map(|m| m.ino()).ok();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                if std::fs::symlink_metadata(&socket).map(|m| m.ino()).ok() != ino {
                    tracing::warn!("the service's socket is gone; exiting");
                    std::process::exit(0);
                }
            }
        });
    }
    if let Some(idle) = cfg.idle_exit {
        let svc = Arc::clone(&svc);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_secs(1).min(idle));
                let last = svc.last_activity_ms.load(Ordering::SeqCst);
                let now = u64::try_from(clock::now_ms()).unwrap_or(0);
                let idle_ms = u64::try_from(idle.as_millis()).unwrap_or(u64::MAX);
                if svc.active.load(Ordering::SeqCst) == 0 && now.saturating_sub(last) >= idle_ms {
                    tracing::info!("idle; exiting (the next hook starts the service again)");
                    let _ = std::fs::remove_file(&svc.cfg.socket);
                    svc.flush_all();
                    std::process::exit(0);
                }
            }
        });
    }
    tracing::info!(level = ?cfg.level, socket = %cfg.socket.display(), "guard service listening");

    let acceptors = Arc::new(Acceptors {
        listener,
        waiting: AtomicUsize::new(0),
    });
    // This thread is the first acceptor and never leaves.
    accept_loop(&svc, &acceptors, false);
    Ok(())
}

/// Threads that accept connections and serve them themselves (leader/follower): the thread
/// the kernel wakes for a new connection is the one that judges it, with no hand-off to
/// another thread. Whenever an acceptor takes a connection and none is left waiting, it
/// starts another first, so a call never waits behind a long one (an approval holds its
/// thread for up to two minutes); a thread that finds two others waiting when it is done
/// ends, so an idle service keeps few.
struct Acceptors {
    listener: UnixListener,
    /// Threads blocked in `accept` right now.
    waiting: AtomicUsize,
}

fn start_acceptor(svc: &Arc<Service>, acceptors: &Arc<Acceptors>) -> std::io::Result<()> {
    let svc = Arc::clone(svc);
    let acceptors = Arc::clone(acceptors);
    std::thread::Builder::new()
        .name("airlock-accept".into())
        .spawn(move || accept_loop(&svc, &acceptors, true))
        .map(|_| ())
}

fn accept_loop(svc: &Arc<Service>, acceptors: &Arc<Acceptors>, may_leave: bool) {
    loop {
        acceptors.waiting.fetch_add(1, Ordering::SeqCst);
        let conn = acceptors.listener.accept();
        let still_waiting = acceptors
            .waiting
            .fetch_sub(1, Ordering::SeqCst)
            .saturating_sub(1);
        let stream = match conn {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if still_waiting == 0
            && let Err(e) = start_acceptor(svc, acceptors)
        {
            // This thread comes back to accepting when it is done: calls wait meanwhile.
            tracing::error!(error = %e, "no thread to accept the next connection");
        }
        serve_one(svc, stream);
        if may_leave && acceptors.waiting.load(Ordering::SeqCst) >= 2 {
            return;
        }
    }
}

/// One accepted connection, on the accepting thread.
fn serve_one(svc: &Service, stream: UnixStream) {
    svc.touch();
    if svc.active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
        let mut s = stream;
        let _ = write_response(
            &mut s,
            &Response::Error {
                code: "busy".into(),
                message: "Airlock's service is overloaded.".into(),
            },
        );
        return;
    }
    svc.active.fetch_add(1, Ordering::SeqCst);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        connection(svc, stream);
    }));
    if r.is_err() {
        tracing::error!("a connection handler panicked; its client denies");
    }
    svc.active.fetch_sub(1, Ordering::SeqCst);
    svc.touch();
}

fn write_response(s: &mut UnixStream, r: &Response) -> std::io::Result<()> {
    let mut line = serde_json::to_string(r).map_err(std::io::Error::other)?;
    line.push('\n');
    s.write_all(line.as_bytes())?;
    s.flush()
}

/// Reads one `\n`-terminated line of at most `max` bytes.
pub(crate) fn read_line_bounded<R: BufRead>(
    r: &mut R,
    max: usize,
) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    let n = r
        .take(u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1))
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() != Some(&b'\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "line too long or unterminated",
        ));
    }
    buf.pop();
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8"))
}

/// What the client may send after its hook request.
enum FromClient {
    Files(airlock_engine::CallFacts),
    Ack,
    /// EOF, an error, or anything else: the client is gone (or misbehaving).
    Gone,
}

/// How long a hook client may take to read and send the files it was asked for.
const FILES_TIMEOUT: Duration = Duration::from_secs(5);

/// The hook client's side of the socket, read line by line. A line cut by a timeout is kept,
/// so a slow client loses nothing.
struct ClientLines {
    reader: BufReader<UnixStream>,
    partial: Vec<u8>,
}

enum Next {
    Msg(FromClient),
    TimedOut,
}

impl ClientLines {
    /// The next message, waiting at most `wait` (`None`: as long as it takes).
    fn next(&mut self, wait: Option<Duration>) -> Next {
        // A zero timeout means "none" to the socket: wait at least a millisecond.
        let wait = wait.map(|w| w.max(Duration::from_millis(1)));
        if self.reader.get_ref().set_read_timeout(wait).is_err() {
            return Next::Msg(FromClient::Gone);
        }
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Next::TimedOut;
                }
                Err(_) => return Next::Msg(FromClient::Gone),
            };
            if avail.is_empty() {
                return Next::Msg(FromClient::Gone);
            }
            let (take, done) = match avail.iter().position(|b| *b == b'\n') {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            self.partial
                .extend_from_slice(avail.get(..take).unwrap_or_default());
            self.reader.consume(if done { take + 1 } else { take });
            if self.partial.len() > MAX_REQUEST_LINE {
                return Next::Msg(FromClient::Gone);
            }
            if done {
                let line = std::mem::take(&mut self.partial);
                let msg = match serde_json::from_slice::<Request>(&line) {
                    Ok(Request::Files { facts }) => FromClient::Files(facts),
                    Ok(Request::Ack) => FromClient::Ack,
                    _ => FromClient::Gone,
                };
                return Next::Msg(msg);
            }
        }
    }
}

/// Who reads the client: this thread (the routine case: files asked for, then the Ack, with
/// no other thread woken), or, once a human is being asked, a worker that reports at once
/// when the client hangs up (`gone`), so that a pending approval is dropped.
enum Reading {
    Here(ClientLines),
    Watched(mpsc::Receiver<FromClient>),
    /// The watcher could not be started, or the client already hung up or garbled.
    Over,
}

struct ConnLine {
    writer: UnixStream,
    gone: Arc<AtomicBool>,
    reading: Reading,
    workers: crate::workers::Workers,
    level: Level,
}

impl ConnLine {
    /// The client's next message within `wait`; `None` when the wait ran out.
    fn next(&mut self, wait: Duration) -> Option<FromClient> {
        let msg = match &mut self.reading {
            Reading::Here(lines) => match lines.next(Some(wait)) {
                Next::Msg(m) => m,
                Next::TimedOut => return None,
            },
            Reading::Watched(rx) => match rx.recv_timeout(wait) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => return None,
                Err(mpsc::RecvTimeoutError::Disconnected) => FromClient::Gone,
            },
            Reading::Over => FromClient::Gone,
        };
        match msg {
            FromClient::Files(_) => {}
            FromClient::Ack => self.reading = Reading::Over,
            FromClient::Gone => {
                self.gone.store(true, Ordering::SeqCst);
                self.reading = Reading::Over;
            }
        }
        Some(msg)
    }

    /// Hand the reading to a worker that sets `gone` the moment the client hangs up.
    fn watch(&mut self) {
        let mut lines = match std::mem::replace(&mut self.reading, Reading::Over) {
            Reading::Here(lines) => lines,
            other => {
                self.reading = other;
                return;
            }
        };
        let (tx, rx) = mpsc::channel::<FromClient>();
        let gone = Arc::clone(&self.gone);
        let started = self.workers.spawn(move || {
            loop {
                let msg = match lines.next(None) {
                    Next::Msg(m) => m,
                    Next::TimedOut => FromClient::Gone,
                };
                let last = !matches!(msg, FromClient::Files(_));
                if matches!(msg, FromClient::Gone) {
                    gone.store(true, Ordering::SeqCst);
                }
                if tx.send(msg).is_err() || last {
                    break;
                }
            }
        });
        match started {
            Ok(()) => self.reading = Reading::Watched(rx),
            Err(_) => {
                // Nobody can watch the client: treat it as gone, so no approval is held for
                // a client that may already have let the call through.
                tracing::error!("no thread to watch a hook client; its approval is dropped");
                self.gone.store(true, Ordering::SeqCst);
            }
        }
    }
}

impl Line for ConnLine {
    fn waiting(&mut self, deadline_ms: i64) {
        let _ = write_response(&mut self.writer, &Response::Waiting { deadline_ms });
    }
    fn gone(&mut self) -> Arc<AtomicBool> {
        self.watch();
        Arc::clone(&self.gone)
    }
    fn files(&mut self, paths: Vec<String>) -> Option<airlock_engine::CallFacts> {
        // At user level the service is the hook's user (the socket refuses anyone else): it
        // reads the files as the hook would, without a round trip. At system level it runs
        // as its own user and cannot see the user's files: the hook reads them.
        if self.level == Level::User {
            return Some(crate::client::read_files(&paths));
        }
        write_response(&mut self.writer, &Response::NeedFiles { paths }).ok()?;
        match self.next(FILES_TIMEOUT) {
            Some(FromClient::Files(mut f)) => {
                // The client read every path it was asked for: a path it left out is unseen.
                f.inspected = true;
                Some(f)
            }
            _ => None,
        }
    }
}

fn connection(svc: &Service, mut stream: UnixStream) {
    let Ok(who) = peer::peer(&stream) else {
        tracing::warn!("peer credentials unavailable; hanging up");
        return;
    };
    if svc.cfg.level == Level::User && who.uid != peer::my_uid() {
        tracing::warn!(uid = who.uid, "a peer of another user was refused");
        return;
    }
    let _ = stream.set_read_timeout(Some(REQUEST_TIMEOUT));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let req: Request = match read_line_bounded(&mut reader, MAX_REQUEST_LINE) {
        Ok(Some(line)) => match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(_) => {
                let _ = write_response(
                    &mut stream,
                    &Response::Error {
                        code: "bad_request".into(),
                        message: "the request could not be read".into(),
                    },
                );
                return;
            }
        },
        _ => return,
    };
    let Some(user) = svc.user(who.uid) else {
        let _ = write_response(
            &mut stream,
            &Response::Error {
                code: "internal".into(),
                message: "Airlock's service hit an internal error.".into(),
            },
        );
        return;
    };
    match req {
        Request::Hook { host, payload } => hook_exchange(
            svc,
            &user,
            stream,
            reader,
            Exchange::Hook {
                host: &host,
                payload: &payload,
            },
        ),
        Request::Mcp {
            action,
            result,
            raises,
        } => hook_exchange(
            svc,
            &user,
            stream,
            reader,
            Exchange::Mcp {
                action,
                result,
                raises,
            },
        ),
        Request::AgentRegister { proof } => agent_session(svc, &user, stream, reader, proof),
        other => {
            let r = admin(svc, &user, who, other);
            let _ = write_response(&mut stream, &r);
        }
    }
}

/// Verifies `proof` against this user's factor inside the service.
fn verify_factor(user: &Mutex<UserState>, proof: Option<&factors::Proof>) -> Result<(), String> {
    let Ok(mut st) = user.lock() else {
        return Err("internal error".into());
    };
    let store = st.ready().map_err(|e| e.0)?.0;
    let empty = factors::Proof::default();
    factors::verify(store, proof.unwrap_or(&empty), clock::now_unix())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// An approval agent's connection (system level; see [`crate::agent`]): registered with the
/// user's factor, then it receives this user's AUTH requests and answers them until it hangs
/// up.
fn agent_session(
    svc: &Service,
    user: &Mutex<UserState>,
    mut stream: UnixStream,
    mut reader: BufReader<UnixStream>,
    proof: Option<factors::Proof>,
) {
    if svc.cfg.level != Level::System {
        let _ = write_response(
            &mut stream,
            &error(
                "not_needed",
                "At the user level the desktop app hosts the approvals itself; an approval agent is for the system level.",
            ),
        );
        return;
    }
    if let Err(e) = verify_factor(user, proof.as_ref()) {
        tracing::warn!("an approval agent's registration was refused: no valid factor");
        let _ = write_response(&mut stream, &error("refused", e));
        return;
    }
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let link = crate::agent::AgentLink::new(writer);
    {
        let Ok(mut st) = user.lock() else {
            return;
        };
        if let Some(old) = st.agent.replace(Arc::clone(&link)) {
            old.close();
        }
    }
    tracing::info!("an approval agent registered");
    link.send(&Response::AgentRegistered);
    let _ = reader.get_ref().set_read_timeout(None);
    while let Ok(Some(l)) = read_line_bounded(&mut reader, MAX_REQUEST_LINE) {
        let req = serde_json::from_str::<Request>(&l);
        let Ok(Request::AgentAnswer {
            id,
            decision,
            proof,
        }) = req
        else {
            link.send(&error(
                "bad_request",
                "an approval agent only sends answers",
            ));
            break;
        };
        if decision != crate::AgentDecision::Denied
            && link.needs_factor(id) == Some(true)
            && let Err(e) = verify_factor(user, proof.as_ref())
        {
            tracing::warn!(
                id,
                "a high-risk approval from the agent was refused: no valid factor"
            );
            link.send(&error("refused", format!("Not approved: {e}")));
            continue;
        }
        if let Err(e) = link.answer(id, decision) {
            link.send(&error("not_taken", e.to_string()));
        }
    }
    link.close();
    if let Ok(mut st) = user.lock()
        && st.agent.as_ref().is_some_and(|a| Arc::ptr_eq(a, &link))
    {
        st.agent = None;
    }
    tracing::info!("an approval agent went away");
}

/// What a judging connection carries: a host's hook event, or the MCP proxy's message.
enum Exchange<'a> {
    Hook {
        host: &'a str,
        payload: &'a str,
    },
    Mcp {
        action: Box<airlock_engine::Action>,
        result: Option<String>,
        raises: Vec<airlock_engine::ReasonReport>,
    },
}

/// The MCP proxy's message, judged (or, with `result`, observed) through the same pipeline
/// as a hook. The service sets what is its to set: the host is the proxy, and a call without
/// a session id is refused.
fn mcp_message(
    level: Level,
    user: &Mutex<UserState>,
    mut action: airlock_engine::Action,
    result: Option<String>,
    raises: &[airlock_engine::ReasonReport],
    line: &mut dyn hook::Line,
) -> crate::protocol::McpOutcome {
    use crate::protocol::McpOutcome;
    use airlock_hooks::{Event, HookCall, HookOutcome};
    if action.session_id.as_deref().is_none_or(str::is_empty) {
        return McpOutcome::Deny {
            reason: hook::deny_text("the MCP message named no session, so it is denied."),
        };
    }
    action.host = airlock_engine::Host::McpProxy;
    let (event_name, event) = match result {
        None => ("PreToolUse", Event::Judge(action)),
        Some(result) => ("PostToolUse", Event::Observe { action, result }),
    };
    let call = HookCall {
        host: airlock_engine::Host::McpProxy,
        event_name: event_name.to_owned(),
        event,
        bypass_permissions: false,
    };
    let judged = hook::handle_call(level, user, &call, "", raises, line);
    match (judged.outcome, judged.screen) {
        (HookOutcome::Deny { reason } | HookOutcome::Ask { reason }, _) => {
            McpOutcome::Deny { reason }
        }
        (_, Some(screen)) => McpOutcome::Screened { screen },
        (HookOutcome::NoOpinion, None) => McpOutcome::Forward,
        (HookOutcome::Screened { .. }, None) => McpOutcome::Deny {
            reason: hook::deny_text("Airlock's service hit an internal error."),
        },
    }
}

/// One hook exchange: judge, answer, then wait for the client's acknowledgement. A client
/// that dies before acknowledging may have let the call through without Airlock's answer:
/// its session is marked bypassed.
fn hook_exchange(
    svc: &Service,
    user: &Mutex<UserState>,
    stream: UnixStream,
    reader: BufReader<UnixStream>,
    input: Exchange<'_>,
) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let mut line = ConnLine {
        writer,
        gone: Arc::new(AtomicBool::new(false)),
        reading: Reading::Here(ClientLines {
            reader,
            partial: Vec::new(),
        }),
        workers: svc.workers.clone(),
        level: svc.cfg.level,
    };
    let (host, payload) = match input {
        Exchange::Hook { host, payload } => (host, payload),
        Exchange::Mcp {
            action,
            result,
            raises,
        } => {
            let outcome = mcp_message(svc.cfg.level, user, *action, result, &raises, &mut line);
            let mut out = stream;
            let _ = write_response(&mut out, &Response::Mcp { outcome });
            // Nothing to acknowledge: the proxy forwards only what it was told to. Shut the
            // socket so the reader thread ends.
            let _ = out.shutdown(std::net::Shutdown::Both);
            return;
        }
    };
    let judged = hook::handle(svc.cfg.level, user, host, payload, &mut line);
    let mut out = stream;
    let sent = write_response(
        &mut out,
        &Response::Hook {
            stdout: judged.answer.stdout.clone(),
            stderr: judged.answer.stderr.clone(),
            exit_code: judged.answer.exit_code,
        },
    )
    .is_ok();
    let acked = sent && {
        let deadline = std::time::Instant::now() + ACK_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break false;
            }
            match line.next(left) {
                Some(FromClient::Ack) => break true,
                // Files sent late (after the service gave up waiting) are ignored.
                Some(FromClient::Files(_)) => continue,
                _ => break false,
            }
        }
    };
    if !acked {
        // Shut the socket so the watcher thread ends.
        let _ = out.shutdown(std::net::Shutdown::Both);
        match judged.session {
            Some((h, sid)) => {
                tracing::error!(host = %h, "a hook process died before printing Airlock's answer; holding its session");
                if let Ok(mut st) = user.lock() {
                    st.mark_bypassed(&h, &sid);
                    if let Some(store) = st.store() {
                        let row = DecisionRow {
                            id: 0,
                            ts_ms: clock::now_ms(),
                            host: h.clone(),
                            session_id: sid.clone(),
                            action_kind: "hook".into(),
                            tool: String::new(),
                            verdict: "BLOCK".into(),
                            effective: "BLOCK".into(),
                            reasons: vec!["hook_killed".into()],
                            outcome: Outcome::Bypassed,
                            args_hash: String::new(),
                            mode: String::new(),
                        };
                        if store.record_decision(&row).is_ok()
                            && let Some(engine) = st.engine()
                        {
                            airlock_core::export::decision(&engine, &row, None, None);
                        }
                    }
                }
            }
            None => tracing::warn!("a hook process died before printing Airlock's answer"),
        }
    }
}

fn error(code: &str, message: impl Into<String>) -> Response {
    Response::Error {
        code: code.to_owned(),
        message: message.into(),
    }
}

fn status(svc: &Service, st: &mut UserState) -> Response {
    let tampered = st.tampered.clone();
    let store = match st.store_for_admin() {
        Ok(s) => s,
        Err(e) => return error("not_ready", e.0),
    };
    let d = airlock_core::settings::dials(store);
    let (mode, enforcement, tamper, all) = match d {
        Ok(d) => (
            d.mode.to_string(),
            d.enforcement.to_string(),
            tampered,
            Dial::all()
                .into_iter()
                .map(|k| (k.kind().to_owned(), k.current(&d)))
                .collect(),
        ),
        Err(e) => (
            "unknown".to_owned(),
            "unknown".to_owned(),
            Some(tampered.unwrap_or_else(|| e.to_string())),
            std::collections::BTreeMap::new(),
        ),
    };
    let needs = factors::needs(store).unwrap_or(factors::FactorNeeds {
        totp: false,
        password: true,
    });
    let password_set = factors::password_is_set(store).unwrap_or(false);
    Response::Status(Status {
        level: svc.cfg.level,
        level_text: svc.cfg.level.describe().to_owned(),
        mode,
        enforcement,
        dials: all,
        factor: needs,
        password_set,
        tampered: tamper,
        bypassed: st.bypassed.iter().cloned().collect(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        pid: std::process::id(),
        export: airlock_core::export::stats(),
    })
}

/// The password checked through the throttled factor check (a guess here counts like any
/// other): the refusal to answer when it does not check out.
fn password_refusal(store: &airlock_store::Store, password: &str) -> Option<Response> {
    let proof = factors::Proof {
        password: Some(password.to_owned()),
        code: None,
    };
    factors::verify(store, &proof, clock::now_unix())
        .err()
        .map(|e| error("refused", e.to_string()))
}

/// Ledgers a factor change the service applied or refused and answers; `true` when the store
/// was written.
fn ledgered(
    store: &airlock_store::Store,
    kind: &str,
    detail: serde_json::Value,
    actor: &str,
    factor: &str,
    result: Result<(), factors::FactorError>,
) -> (Response, bool) {
    match result {
        Ok(()) => {
            if let Err(e) = dials::ledger_applied(store, kind, detail, actor, factor) {
                tracing::error!(kind, error = %e, "an applied factor change could not be ledgered");
            }
            (Response::Done, true)
        }
        Err(e) => {
            if let Err(le) = dials::ledger_refused(store, kind, detail, actor) {
                tracing::error!(kind, error = %le, "a refused factor change could not be ledgered");
            }
            (error("refused", e.to_string()), false)
        }
    }
}

fn admin(svc: &Service, user: &Mutex<UserState>, who: Peer, req: Request) -> Response {
    let Ok(mut st) = user.lock() else {
        return error("internal", "Airlock's service hit an internal error.");
    };
    let actor = format!("uid:{}", who.uid);
    match req {
        Request::Status => status(svc, &mut st),
        Request::Dial { dial, to, proof } => {
            let dial: Dial = match dial.parse() {
                Ok(d) => d,
                Err(e) => return error("bad_request", e.to_string()),
            };
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            match dials::change(store, dial, &to, proof.as_ref(), &actor) {
                Ok(c) => {
                    st.wrote();
                    Response::Changed(c)
                }
                Err(e) => error("refused", e.to_string()),
            }
        }
        Request::AllowList | Request::AllowAdd { .. } | Request::AllowRemove { .. } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            let changed = match req {
                Request::AllowAdd { rule, proof } => {
                    match dials::add_allow_rule(store, rule.clone(), proof.as_ref(), &actor) {
                        Ok(true) => Some(rule),
                        Ok(false) => None,
                        Err(e) => return error("refused", e.to_string()),
                    }
                }
                Request::AllowRemove { id } => {
                    match dials::remove_allow_rule_by_id(store, &id, &actor) {
                        Ok(rule) => Some(rule),
                        Err(e) => return error("bad_request", e.to_string()),
                    }
                }
                _ => None,
            };
            let rules = match airlock_core::settings::listed_allow_rules(store) {
                Ok(r) => r,
                Err(e) => return error("not_ready", e.to_string()),
            };
            if changed.is_some() {
                st.wrote();
            }
            Response::AllowRules {
                rules,
                changed: changed.map(Into::into),
            }
        }
        Request::TotpBegin { password } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            if factors::totp_enrolled(store).unwrap_or(true) {
                return error(
                    "refused",
                    "TOTP is already enrolled: remove it first (`airlock totp remove`).",
                );
            }
            // Through the throttled check: a password guess here counts like any other.
            if let Some(refused) = password_refusal(store, &password) {
                return refused;
            }
            match factors::begin_totp_enroll(store, &password) {
                Ok((uri, _png)) => {
                    st.wrote();
                    Response::TotpOffer { uri }
                }
                Err(e) => error("refused", e.to_string()),
            }
        }
        Request::TotpFinish { password, code } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            if let Some(refused) = password_refusal(store, &password) {
                return refused;
            }
            let detail = serde_json::json!({"action": "enroll"});
            // No keyring for a system user: the secret stays sealed under the password, so a
            // weakening then needs both.
            let enrolled =
                factors::finish_totp_enroll(store, &password, &code, clock::now_unix(), false)
                    .map(|_| ());
            let (r, wrote) = ledgered(store, "totp", detail, &actor, "password+totp", enrolled);
            if wrote {
                st.wrote();
            }
            r
        }
        Request::PasswordChange { proof, new } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            let detail = serde_json::json!({"action": "change"});
            let checked =
                factors::verify(store, &proof, clock::now_unix()).and_then(|_| {
                    match proof.password.as_deref() {
                        Some(current) => factors::change_password(store, current, &new),
                        None => Err(factors::FactorError::WrongPassword),
                    }
                });
            let (r, wrote) = ledgered(store, "password", detail, &actor, "password", checked);
            if wrote {
                st.wrote();
            }
            r
        }
        Request::TotpRemove { proof } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            let detail = serde_json::json!({"action": "remove"});
            let empty = factors::Proof::default();
            let removed =
                factors::remove_totp(store, proof.as_ref().unwrap_or(&empty), clock::now_unix());
            let (r, wrote) = ledgered(store, "totp", detail, &actor, "password+totp", removed);
            if wrote {
                st.wrote();
            }
            r
        }
        Request::SetPassword { password } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            match factors::set_password(store, &password) {
                Ok(()) => {
                    let _ = dials::ledger_applied(
                        store,
                        "password",
                        serde_json::json!({"action": "set"}),
                        &actor,
                        "none",
                    );
                    st.wrote();
                    Response::Done
                }
                Err(e) => error("refused", e.to_string()),
            }
        }
        Request::Release {
            host,
            session_id,
            proof,
        } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("not_ready", e.0),
            };
            let tamper = host == "tamper";
            let kind = if tamper { "tamper_cleared" } else { "release" };
            let detail = serde_json::json!({"host": host});
            let factor = match dials::require_factor(store, proof.as_ref(), kind, &detail, &actor) {
                Ok(f) => f,
                Err(e) => return error("refused", e.to_string()),
            };
            if tamper {
                let _ = dials::ledger_applied(store, kind, detail, &actor, factor);
                if let Err(e) = st.clear_tamper() {
                    return error("not_ready", e.0);
                }
            } else {
                let key = bypass_key(&host, &session_id);
                let _ = store.delete_setting(&format!("{BYPASSED_PREFIX}{key}"));
                let _ = dials::ledger_applied(store, kind, detail, &actor, factor);
                st.bypassed.remove(&key);
            }
            st.wrote();
            Response::Done
        }
        Request::Shutdown => {
            if who.uid == peer::my_uid() || who.uid == 0 {
                let _ = std::fs::remove_file(&svc.cfg.socket);
                tracing::info!("shutdown requested");
                // This user's lock is held here: save theirs, release it, then everyone's.
                st.flush_baselines();
                drop(st);
                svc.flush_all();
                std::process::exit(0);
            }
            error("refused", "only the service's own user or root may stop it")
        }
        Request::TranscriptAudit {
            host,
            session_id,
            cwd,
            calls,
        } => {
            let engine = match st.ready() {
                Ok((_, c)) => Arc::clone(&c.engine),
                Err(e) => return error("not_ready", e.0),
            };
            let Some(store) = st.store() else {
                return error("not_ready", "Airlock's store is not open.");
            };
            match crate::audit::transcript(
                store,
                &engine,
                &host,
                &session_id,
                cwd.as_deref(),
                &calls,
            ) {
                Ok((matched, missing)) => Response::Audit { matched, missing },
                Err(e) => error("internal", e),
            }
        }
        Request::Decisions { query } => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("unavailable", e.0),
            };
            let filter = airlock_store::DecisionFilter {
                limit: query.limit.clamp(1, crate::protocol::MAX_DECISIONS),
                host: query.host,
                session_id: query.session_id,
                verdict: query.verdict.map(|v| v.to_ascii_uppercase()),
                outcome: query.outcome,
                since_ms: None,
            };
            match store.recent_decisions(&filter) {
                Ok(rows) => Response::Decisions { rows },
                Err(e) => {
                    tracing::error!(error = %e, "the audit log could not be read");
                    error("store", "The audit log could not be read.")
                }
            }
        }
        Request::Ledger => {
            let store = match st.store_for_admin() {
                Ok(s) => s,
                Err(e) => return error("unavailable", e.0),
            };
            match (store.ledger(), store.verify_ledger()) {
                (Ok(mut rows), Ok(status)) => {
                    let cut = rows.len().saturating_sub(crate::protocol::MAX_LEDGER_ROWS);
                    rows.drain(..cut);
                    Response::Ledger { rows, status }
                }
                _ => error("store", "The ledger could not be read."),
            }
        }
        Request::Hook { .. }
        | Request::Mcp { .. }
        | Request::Ack
        | Request::Files { .. }
        | Request::AgentRegister { .. }
        | Request::AgentAnswer { .. } => error("bad_request", "unexpected request"),
    }
}
