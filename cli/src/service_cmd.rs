//! Commands that talk to the guard service, and the system protection level's installer.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use airlock_core::paths::{
    SYSTEM_CONFIG_DIR, SYSTEM_MARKER, SYSTEM_SOCKET, SYSTEM_STATE_DIR, SYSTEM_USER,
};
use airlock_core::{Level, Paths, factors};
use airlock_service::{Endpoint, Request, Response, ServiceConfig, client};

use anyhow::{Context, Result, bail};
use clap::Subcommand;

use crate::cmd::{self, FactorArgs};
use crate::log_cmd;

/// Where a root install puts the binaries (the packages use `/usr/bin`).
pub const SYSTEM_BIN_DIR: &str = "/usr/local/bin";
use airlock_wire::system::{CODEX_REQUIREMENTS, HOOK_FILES as SYSTEM_HOOK_FILES};

/// The systemd unit a root install writes.
pub const UNIT_PATH: &str = "/etc/systemd/system/airlock.service";

const ADMIN_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Subcommand)]
pub enum SystemCmd {
    /// Install the system level (root): the `airlock` service user, /var/lib/airlock,
    /// /etc/airlock, the systemd unit, the binaries under /usr/local/bin, and Claude Code's
    /// managed hooks. Idempotent.
    Install {
        /// Do not start the service through systemd (no systemd running, or done later).
        #[arg(long)]
        no_start: bool,
        /// Where the installed binaries go.
        #[arg(long, default_value = SYSTEM_BIN_DIR)]
        bin_dir: PathBuf,
    },
    /// Remove the system level (root): stop the service, remove the unit, the marker and the
    /// managed hooks. Users' stores under /var/lib/airlock are kept.
    Uninstall {
        #[arg(long, default_value = SYSTEM_BIN_DIR)]
        bin_dir: PathBuf,
    },
    /// Print the systemd unit the installer writes.
    Unit {
        #[arg(long, default_value = SYSTEM_BIN_DIR)]
        bin_dir: PathBuf,
    },
}

pub fn daemon(system: bool, idle_exit: Option<u64>) -> Result<ExitCode> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .try_init();
    let cfg = if system {
        if airlock_service::peer::uid_of(SYSTEM_USER) != Some(airlock_service::peer::my_uid()) {
            bail!(
                "the system service runs as the `{SYSTEM_USER}` user (run `airlock system install` as root, then start it with systemd)"
            );
        }
        ServiceConfig {
            level: Level::System,
            socket: PathBuf::from(SYSTEM_SOCKET),
            state_dir: PathBuf::from(SYSTEM_STATE_DIR),
            user_paths: None,
            idle_exit: idle_exit.map(Duration::from_secs),
        }
    } else {
        if airlock_core::paths::system_marker_present() {
            bail!(
                "the system level is installed on this machine: its service (systemd unit `airlock`) owns protection; a user-level service is not started"
            );
        }
        let paths = Paths::discover()?;
        ServiceConfig {
            level: Level::User,
            socket: paths.socket.clone(),
            state_dir: PathBuf::new(),
            user_paths: Some(paths),
            idle_exit: idle_exit.map(Duration::from_secs),
        }
    };
    match airlock_service::serve(cfg) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(airlock_service::ServiceError::AlreadyRunning) => {
            eprintln!("airlock: the guard service is already running");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(e).context("running the guard service"),
    }
}

fn endpoint() -> Result<Endpoint> {
    Ok(Endpoint::discover(std::env::current_exe().ok())?)
}

pub fn status(json: bool) -> Result<ExitCode> {
    let ep = endpoint()?;
    let r = client::call(&ep, &Request::Status, ADMIN_TIMEOUT)?;
    let Response::Status(s) = r else {
        bail!("the guard service answered something unexpected");
    };
    // Remote approval is the desktop app's (user level); read from the verified ledger here.
    let remote = (Level::installed() == Level::User)
        .then(|| {
            let store = Paths::discover().ok()?.open_store().ok()?;
            Some(airlock_core::remote::current(&store))
        })
        .flatten();
    if json {
        let mut v = serde_json::to_value(&s)?;
        if let (Some(obj), Some(Ok(cfg))) = (v.as_object_mut(), &remote) {
            obj.insert(
                "remote_approval".to_owned(),
                serde_json::json!(cfg.as_ref().map(|c| c.describe())),
            );
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("level:       {}", s.level_text);
        println!("mode:        {}", s.mode);
        println!("enforcement: {}", s.enforcement);
        println!(
            "factor:      {}",
            if s.factor.totp {
                "TOTP code"
            } else {
                "password"
            }
        );
        match &s.tampered {
            Some(t) => {
                println!("TAMPERED:    {t} — every call is denied until `airlock release --tamper`")
            }
            None => println!("tampering:   none seen"),
        }
        for b in &s.bypassed {
            println!(
                "BYPASSED:    {b} — a hook was killed before it answered; `airlock release --session …`"
            );
        }
        for x in &s.export {
            println!(
                "export:      {} — sent {}, dropped {}, failed {}{}",
                x.destination,
                x.sent,
                x.dropped,
                x.failed,
                x.last_error
                    .as_deref()
                    .map(|e| format!(" (last error: {e})"))
                    .unwrap_or_default()
            );
        }
        match &remote {
            Some(Ok(cfg)) => println!("remote:      {}", crate::remote_cmd::describe(cfg.as_ref())),
            Some(Err(e)) => println!("remote:      cannot read the setting ({e})"),
            None => {}
        }
        println!("service:     pid {} (v{})", s.pid, s.version);
    }
    Ok(if s.tampered.is_some() || !s.bypassed.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn factor_needs(ep: &Endpoint) -> Result<factors::FactorNeeds> {
    match client::call(ep, &Request::Status, ADMIN_TIMEOUT)? {
        Response::Status(s) => Ok(s.factor),
        _ => bail!("the guard service answered something unexpected"),
    }
}

pub fn release(
    session: Option<String>,
    host: &str,
    tamper: bool,
    f: &FactorArgs,
) -> Result<ExitCode> {
    let ep = endpoint()?;
    let (host, session_id) = match (tamper, session) {
        (true, _) => ("tamper".to_owned(), String::new()),
        (false, Some(s)) => (host.to_owned(), s),
        (false, None) => bail!("name the session to release (--session ID) or pass --tamper"),
    };
    let proof = factors::gather_proof(factor_needs(&ep)?, f.password_stdin, f.code.clone())?;
    client::call(
        &ep,
        &Request::Release {
            host,
            session_id,
            proof: Some(proof),
        },
        ADMIN_TIMEOUT,
    )?;
    println!("released");
    Ok(ExitCode::SUCCESS)
}

/// `airlock mode` / `airlock enforcement`: at system level the change is made (and the
/// factor verified) inside the service; at user level directly through `airlock-core`.
pub fn dial(paths: &Paths, dial: &str, value: Option<String>, f: &FactorArgs) -> Result<ExitCode> {
    if Level::installed() == Level::User {
        return match dial {
            "mode" => cmd::mode(paths, value, f),
            "enforcement" => cmd::enforcement(paths, value, f),
            "turn_gate" => cmd::turn_gate(paths, value, f),
            other => match other.strip_prefix("screening.") {
                Some(src) => cmd::screening(paths, src, value, f),
                None => bail!("unknown dial {other:?}"),
            },
        };
    }
    let which: airlock_core::dials::Dial = dial.parse()?;
    let ep = endpoint()?;
    let Response::Status(s) = client::call(&ep, &Request::Status, ADMIN_TIMEOUT)? else {
        bail!("the guard service answered something unexpected");
    };
    let current = match dial {
        "mode" => s.mode.clone(),
        "enforcement" => s.enforcement.clone(),
        other => s.dials.get(which.kind()).cloned().ok_or_else(|| {
            anyhow::anyhow!("the guard service does not know the dial {other:?}: update it")
        })?,
    };
    let Some(to) = value else {
        println!("{current}");
        return Ok(ExitCode::SUCCESS);
    };
    let lowering = which.lowers(&current, &to)?;
    let proof = if lowering {
        Some(factors::gather_proof(
            s.factor,
            f.password_stdin,
            f.code.clone(),
        )?)
    } else {
        None
    };
    match client::call(
        &ep,
        &Request::Dial {
            dial: dial.to_owned(),
            to,
            proof,
        },
        ADMIN_TIMEOUT,
    )? {
        Response::Changed(c) if c.applied => println!("{}: {} -> {}", c.kind, c.from, c.to),
        Response::Changed(c) => println!("already {}", c.to),
        _ => bail!("the guard service answered something unexpected"),
    }
    Ok(ExitCode::SUCCESS)
}

/// At system level the service owns the store: the commands it serves go to it; the others
/// say so plainly instead of working on a user-level store that protects nothing.
pub fn system_level_command(
    _paths: &Paths,
    name: &str,
    run: impl FnOnce() -> Result<ExitCode>,
) -> Result<ExitCode> {
    if name.is_empty() {
        bail!(
            "this command is not available at the system level yet: the guard service owns the store (available: status, mode, enforcement, turn-gate, screening, allow, log, policy-history, agent, password set, password change, totp enroll, totp remove, setup, release, wire, doctor, scan, init)"
        );
    }
    run()
}

/// The audit log at the system level, read through the guard service (each user sees only
/// their own decisions: the service answers for the peer's uid).
struct ServiceLog(Endpoint);

impl ServiceLog {
    fn query(
        &self,
        q: airlock_service::protocol::DecisionQuery,
    ) -> Result<Vec<airlock_store::DecisionRow>> {
        match client::call(&self.0, &Request::Decisions { query: q }, ADMIN_TIMEOUT)? {
            Response::Decisions { rows } => Ok(rows),
            _ => bail!("the guard service answered something unexpected"),
        }
    }
}

impl log_cmd::LogSource for ServiceLog {
    fn recent(&self, f: &airlock_store::DecisionFilter) -> Result<Vec<airlock_store::DecisionRow>> {
        self.query(airlock_service::protocol::DecisionQuery {
            limit: if f.limit == 0 {
                airlock_service::protocol::MAX_DECISIONS
            } else {
                f.limit
            },
            host: f.host.clone(),
            session_id: f.session_id.clone(),
            verdict: f.verdict.clone(),
            outcome: f.outcome,
        })
    }

    fn after(&self, last: i64, n: usize) -> Result<Vec<airlock_store::DecisionRow>> {
        let mut rows = self.query(airlock_service::protocol::DecisionQuery {
            limit: n,
            ..Default::default()
        })?;
        rows.retain(|r| r.id > last);
        rows.reverse();
        Ok(rows)
    }
}

/// `airlock log` at the system level.
pub fn log(a: &log_cmd::LogArgs) -> Result<ExitCode> {
    log_cmd::log_from(&ServiceLog(endpoint()?), a)
}

/// `airlock policy-history` at the system level: this user's ledger, kept by the service.
pub fn policy_history(verify: bool, json: bool) -> Result<ExitCode> {
    match client::call(&endpoint()?, &Request::Ledger, ADMIN_TIMEOUT)? {
        Response::Ledger { rows, status } => log_cmd::print_history(&rows, &status, verify, json),
        _ => bail!("the guard service answered something unexpected"),
    }
}

/// `airlock password set` at system level: the service sets it in the user's store.
pub fn password_set(from_stdin: bool) -> Result<ExitCode> {
    let ep = endpoint()?;
    let password = cmd::read_new_password(from_stdin)?;
    client::call(&ep, &Request::SetPassword { password }, ADMIN_TIMEOUT)?;
    println!("password set");
    Ok(ExitCode::SUCCESS)
}

/// `airlock totp enroll` at system level: the service makes and keeps the secret (sealed
/// under the password: a system user has no keyring), this command shows the URI (and writes
/// the QR code when asked); `--verify CODE` finishes it.
pub fn totp_enroll(
    verify: Option<String>,
    qr: Option<PathBuf>,
    from_stdin: bool,
) -> Result<ExitCode> {
    let ep = endpoint()?;
    let password = if from_stdin {
        cmd::read_line_stdin()?
    } else {
        cmd::prompt_secret("Airlock password: ")?
    };
    match verify {
        None => {
            let Response::TotpOffer { uri } =
                client::call(&ep, &Request::TotpBegin { password }, ADMIN_TIMEOUT)?
            else {
                bail!("the guard service answered something unexpected");
            };
            println!(
                "Add this to your authenticator app, then run `airlock totp enroll --verify CODE`:"
            );
            println!("{uri}");
            if let Some(path) = qr {
                let png =
                    airlock_core::factors::qr_png(&uri).map_err(|e| anyhow::anyhow!("{e}"))?;
                std::fs::write(&path, png)
                    .with_context(|| format!("writing {}", path.display()))?;
                println!("QR code written to {}", path.display());
            }
        }
        Some(code) => {
            client::call(&ep, &Request::TotpFinish { password, code }, ADMIN_TIMEOUT)?;
            println!(
                "TOTP enrolled. The guard service keeps the secret sealed under your password, so weakening will ask for both."
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `airlock password change` at system level: verified and applied in the service.
pub fn password_change(from_stdin: bool, code: Option<String>) -> Result<ExitCode> {
    let ep = endpoint()?;
    // With --password-stdin: first line current, second line new.
    let (current, new) = if from_stdin {
        (cmd::read_line_stdin()?, cmd::read_line_stdin()?)
    } else {
        (
            cmd::prompt_secret("Current Airlock password: ")?,
            cmd::read_new_password(false)?,
        )
    };
    let proof = factors::Proof {
        password: Some(current),
        code,
    };
    client::call(&ep, &Request::PasswordChange { proof, new }, ADMIN_TIMEOUT)?;
    println!("password changed");
    Ok(ExitCode::SUCCESS)
}

/// `airlock totp remove` at system level: a weakening, verified in the service.
pub fn totp_remove(f: &FactorArgs) -> Result<ExitCode> {
    let ep = endpoint()?;
    let Response::Status(s) = client::call(&ep, &Request::Status, ADMIN_TIMEOUT)? else {
        bail!("the guard service answered something unexpected");
    };
    let proof = factors::gather_proof(s.factor, f.password_stdin, f.code.clone())?;
    client::call(
        &ep,
        &Request::TotpRemove { proof: Some(proof) },
        ADMIN_TIMEOUT,
    )?;
    println!("TOTP removed; the password is the factor again");
    Ok(ExitCode::SUCCESS)
}

/// `airlock setup` at system level: the password (if none yet) and a raised mode through the
/// service; the hooks are already wired by the system install (managed settings), other
/// agents are wired in the user's files as at user level.
pub fn setup(
    paths: &Paths,
    from_stdin: bool,
    mode: Option<String>,
    wire: Vec<String>,
) -> Result<ExitCode> {
    let ep = endpoint()?;
    let Response::Status(s) = client::call(&ep, &Request::Status, ADMIN_TIMEOUT)? else {
        bail!("the guard service answered something unexpected");
    };
    if s.password_set {
        println!("password already set");
    } else {
        password_set(from_stdin)?;
    }
    if let Some(m) = mode {
        if m.parse::<airlock_engine::Mode>()? < s.mode.parse::<airlock_engine::Mode>()? {
            bail!(
                "setup only raises the mode; lowering it needs `airlock mode {m}` with your factor"
            );
        }
        dial(paths, "mode", Some(m), &FactorArgs::default())?;
    }
    for a in wire {
        cmd::wire(paths, &a)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The hardened systemd unit of the system level.
pub fn unit_text(bin_dir: &Path) -> String {
    format!(
        "[Unit]
Description=Airlock guard service (judges AI coding agents' tool calls)
Documentation=man:airlock(1)
After=local-fs.target

[Service]
Type=simple
User={SYSTEM_USER}
Group={SYSTEM_USER}
ExecStart={bin}/airlock daemon --system
Restart=always
RestartSec=1
RuntimeDirectory=airlock
RuntimeDirectoryMode=0755
StateDirectory=airlock
StateDirectoryMode=0700
UMask=0077
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=read-only
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectControlGroups=yes
RestrictAddressFamilies=AF_UNIX
RestrictNamespaces=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
CapabilityBoundingSet=

[Install]
WantedBy=multi-user.target
",
        bin = bin_dir.display()
    )
}

pub fn system(action: SystemCmd) -> Result<ExitCode> {
    match action {
        SystemCmd::Unit { bin_dir } => {
            print!("{}", unit_text(&bin_dir));
            Ok(ExitCode::SUCCESS)
        }
        SystemCmd::Install { no_start, bin_dir } => install(&bin_dir, no_start),
        SystemCmd::Uninstall { bin_dir } => uninstall(&bin_dir),
    }
}

fn run(cmd: &mut std::process::Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("running {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{:?} failed ({status})", cmd.get_program());
    }
    Ok(())
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("chmod {}", path.display()))
}

fn chown(path: &Path, uid: u32, gid: u32) -> Result<()> {
    std::os::unix::fs::chown(path, Some(uid), Some(gid))
        .with_context(|| format!("chown {}", path.display()))
}

/// Installs the system level. Every step is idempotent.
fn install(bin_dir: &Path, no_start: bool) -> Result<ExitCode> {
    if airlock_service::peer::my_uid() != 0 {
        bail!("the system level is installed by root: run `sudo airlock system install`");
    }
    // 1. The service's own user.
    if airlock_service::peer::uid_of(SYSTEM_USER).is_none() {
        run(std::process::Command::new("useradd")
            .args(["--system", "--user-group", "--no-create-home"])
            .args([
                "--home-dir",
                SYSTEM_STATE_DIR,
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(SYSTEM_USER))?;
    }
    let uid =
        airlock_service::peer::uid_of(SYSTEM_USER).context("the airlock user was not created")?;
    let gid = nix::unistd::Group::from_name(SYSTEM_USER)
        .ok()
        .flatten()
        .map(|g| g.gid.as_raw())
        .unwrap_or(uid);
    // 2. Root-owned binaries (the agent must not be able to replace what the hooks run).
    std::fs::create_dir_all(bin_dir)?;
    let me = std::env::current_exe().context("finding this binary")?;
    for name in ["airlock", "airlock-hook", "airlock-sh", "airlock-proxy"] {
        let src = me.with_file_name(name);
        let dst = bin_dir.join(name);
        let fresh = match (std::fs::metadata(&src), std::fs::metadata(&dst)) {
            (Ok(s), Ok(d)) => {
                s.len() == d.len()
                    && matches!((s.modified(), d.modified()), (Ok(a), Ok(b)) if a <= b)
            }
            _ => false,
        };
        if src.is_file() && src != dst && !fresh {
            let tmp = bin_dir.join(format!(".{name}.new"));
            std::fs::copy(&src, &tmp).with_context(|| format!("copying {}", src.display()))?;
            chown(&tmp, 0, 0)?;
            set_mode(&tmp, 0o755)?;
            std::fs::rename(&tmp, &dst)?;
        }
    }
    // 3. State (service-only) and configuration (root-only) directories, and the marker.
    let state = Path::new(SYSTEM_STATE_DIR);
    std::fs::create_dir_all(state.join("users"))?;
    for d in [state.to_path_buf(), state.join("users")] {
        chown(&d, uid, gid)?;
        set_mode(&d, 0o700)?;
    }
    let etc = Path::new(SYSTEM_CONFIG_DIR);
    std::fs::create_dir_all(etc)?;
    chown(etc, 0, 0)?;
    set_mode(etc, 0o755)?;
    std::fs::write(
        SYSTEM_MARKER,
        format!(
            "# Airlock system protection level: the guard service (user `{SYSTEM_USER}`) owns\n# protection on this machine. Written by `airlock system install`.\nlevel = \"system\"\nbin_dir = \"{}\"\n",
            bin_dir.display()
        ),
    )?;
    chown(Path::new(SYSTEM_MARKER), 0, 0)?;
    set_mode(Path::new(SYSTEM_MARKER), 0o644)?;
    // 4. The runtime directory (systemd makes it too, with RuntimeDirectory=).
    let run_dir = Path::new(SYSTEM_SOCKET)
        .parent()
        .context("socket path without a directory")?;
    std::fs::create_dir_all(run_dir)?;
    chown(run_dir, uid, gid)?;
    set_mode(run_dir, 0o755)?;
    // 5. Each host's system-level hook file: hooks a user-level edit cannot remove.
    for (agent, file) in SYSTEM_HOOK_FILES {
        let report = airlock_wire::wire_file(
            *agent,
            PathBuf::from(file),
            &airlock_wire::WireOptions {
                airlock_bin: bin_dir.join("airlock"),
                timeout_secs: 150,
                stamp: airlock_core::clock::now_ms().to_string(),
            },
        )
        .with_context(|| format!("wiring {file}"))?;
        chown(Path::new(file), 0, 0)?;
        set_mode(Path::new(file), 0o644)?;
        println!(
            "{} system hooks: {} ({})",
            agent.as_str(),
            report.path.display(),
            if report.changed {
                "written"
            } else {
                "already there"
            }
        );
    }
    // Codex: a marked block in its requirements (the admin's other requirements stay).
    let report = airlock_wire::codex_requirements::wire(
        PathBuf::from(CODEX_REQUIREMENTS),
        &airlock_wire::WireOptions {
            airlock_bin: bin_dir.join("airlock"),
            timeout_secs: 150,
            stamp: airlock_core::clock::now_ms().to_string(),
        },
    )
    .with_context(|| format!("wiring {CODEX_REQUIREMENTS}"))?;
    chown(Path::new(CODEX_REQUIREMENTS), 0, 0)?;
    set_mode(Path::new(CODEX_REQUIREMENTS), 0o644)?;
    println!(
        "codex system hooks: {} ({})",
        report.path.display(),
        if report.changed {
            "written"
        } else {
            "already there"
        }
    );
    // 6. The unit.
    std::fs::write(UNIT_PATH, unit_text(bin_dir))?;
    set_mode(Path::new(UNIT_PATH), 0o644)?;
    let systemd = Path::new("/run/systemd/system").is_dir();
    if !no_start && systemd {
        run(std::process::Command::new("systemctl").arg("daemon-reload"))?;
        run(std::process::Command::new("systemctl").args(["enable", "--now", "airlock.service"]))?;
        println!("service started: systemctl status airlock");
    } else if !systemd {
        println!(
            "systemd is not running here: start the service as its user, e.g. `runuser -u {SYSTEM_USER} -- {}/airlock daemon --system`",
            bin_dir.display()
        );
    }
    println!("system level installed: {}", Level::System.describe());
    Ok(ExitCode::SUCCESS)
}

/// Removes the system level (keeps users' stores).
fn uninstall(bin_dir: &Path) -> Result<ExitCode> {
    if airlock_service::peer::my_uid() != 0 {
        bail!("the system level is removed by root: run `sudo airlock system uninstall`");
    }
    if Path::new("/run/systemd/system").is_dir() && Path::new(UNIT_PATH).exists() {
        let _ = std::process::Command::new("systemctl")
            .args(["disable", "--now", "airlock.service"])
            .status();
    }
    for (agent, file) in SYSTEM_HOOK_FILES {
        let path = PathBuf::from(file);
        if !path.exists() {
            continue;
        }
        match airlock_wire::unwire_file(
            *agent,
            path,
            &airlock_wire::WireOptions {
                airlock_bin: bin_dir.join("airlock"),
                timeout_secs: 150,
                stamp: airlock_core::clock::now_ms().to_string(),
            },
        ) {
            Ok(_) | Err(airlock_wire::WireError::NotWired { .. }) => {}
            Err(e) => return Err(e).with_context(|| format!("removing the hooks from {file}")),
        }
    }
    if Path::new(CODEX_REQUIREMENTS).exists() {
        match airlock_wire::codex_requirements::unwire(
            PathBuf::from(CODEX_REQUIREMENTS),
            &airlock_wire::WireOptions {
                airlock_bin: bin_dir.join("airlock"),
                timeout_secs: 150,
                stamp: airlock_core::clock::now_ms().to_string(),
            },
        ) {
            Ok(_) | Err(airlock_wire::WireError::NotWired { .. }) => {}
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("removing the hooks from {CODEX_REQUIREMENTS}"));
            }
        }
    }
    for f in [UNIT_PATH, SYSTEM_MARKER] {
        match std::fs::remove_file(f) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {f}")),
        }
    }
    println!("system level removed (users' stores under {SYSTEM_STATE_DIR} are kept)");
    Ok(ExitCode::SUCCESS)
}

/// `airlock transcript-check FILE`: reads a Claude Code transcript (JSONL), sends its tool
/// calls to the service, and lists the ones that never reached Airlock (tool name and position
/// only; never the input). Exit 1 when any is missing.
pub fn transcript_check(file: &Path, session: Option<String>, json: bool) -> Result<ExitCode> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading the transcript {}", file.display()))?;
    let mut sessions: std::collections::BTreeMap<String, usize> = Default::default();
    let mut calls = Vec::new();
    let mut cwd = None;
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not JSON", file.display(), n + 1))?;
        let sid = v.get("sessionId").and_then(|s| s.as_str()).unwrap_or("");
        if let Some(want) = &session
            && sid != want
        {
            continue;
        }
        if v.get("type").and_then(|t| t.as_str()) != Some("assistant") {
            continue;
        }
        if cwd.is_none() {
            cwd = v.get("cwd").and_then(|c| c.as_str()).map(str::to_owned);
        }
        let content = v
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(|c| c.as_array());
        for item in content.into_iter().flatten() {
            if item.get("type").and_then(|t| t.as_str()) == Some("tool_use") {
                *sessions.entry(sid.to_owned()).or_default() += 1;
                calls.push(airlock_service::TranscriptCall {
                    tool_name: item
                        .get("name")
                        .and_then(|n| n.as_str())
                        .unwrap_or("")
                        .to_owned(),
                    tool_input: item
                        .get("input")
                        .cloned()
                        .unwrap_or(serde_json::Value::Null),
                });
            }
        }
    }
    let session_id = match session {
        Some(s) => s,
        None if sessions.len() <= 1 => sessions.keys().next().cloned().unwrap_or_default(),
        None => bail!("the transcript holds several sessions: name one with --session"),
    };
    let ep = endpoint()?;
    let r = client::call(
        &ep,
        &Request::TranscriptAudit {
            host: "claude-code".into(),
            session_id: session_id.clone(),
            cwd,
            calls: calls.clone(),
        },
        ADMIN_TIMEOUT,
    )?;
    let Response::Audit { matched, missing } = r else {
        bail!("the guard service answered something unexpected");
    };
    if json {
        let list: Vec<serde_json::Value> = missing
            .iter()
            .filter_map(|i| {
                calls
                    .get(*i)
                    .map(|c| serde_json::json!({"index": i, "tool": c.tool_name}))
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "session_id": session_id, "calls": calls.len(), "matched": matched, "missing": list
            }))?
        );
    } else {
        println!(
            "session {session_id}: {} tool calls in the transcript, {matched} judged by Airlock, {} never reached it",
            calls.len(),
            missing.len()
        );
        for i in &missing {
            if let Some(c) = calls.get(*i) {
                println!("  #{i} {} — no Airlock decision for this call", c.tool_name);
            }
        }
    }
    Ok(if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
