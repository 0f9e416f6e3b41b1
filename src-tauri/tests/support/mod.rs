//! Helpers shared by the real-window tests: start the real `airlock-app` in a temp HOME,
//! find and click windows with xdotool, screenshots, the real `airlock` CLI binary.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use airlock_store::Store;

pub struct Session {
    /// `XDG_RUNTIME_DIR` of the app (and of hooks run against it).
    pub runtime: PathBuf,
    pub home: tempfile::TempDir,
    pub app: Child,
    pub trayer: Option<Child>,
    pub dunst: Option<Child>,
    pub sock: PathBuf,
    pub db: PathBuf,
    pub shots: Option<PathBuf>,
    pub log: PathBuf,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.app.kill();
        let _ = self.app.wait();
        for c in [self.trayer.as_mut(), self.dunst.as_mut()]
            .into_iter()
            .flatten()
        {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn tool(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .stdout(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

pub fn xdotool(args: &[&str]) -> String {
    let out = Command::new("xdotool").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Visible windows whose title matches `pattern` (a regex, as xdotool takes it).
pub fn windows(pattern: &str) -> Vec<String> {
    xdotool(&["search", "--onlyvisible", "--name", pattern])
        .lines()
        .map(str::to_owned)
        .collect()
}

pub fn wait_window(pattern: &str, within: Duration) -> Option<String> {
    let t0 = Instant::now();
    while t0.elapsed() < within {
        if let Some(w) = windows(pattern).into_iter().next() {
            return Some(w);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

pub fn wait_gone(pattern: &str, within: Duration) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < within {
        if windows(pattern).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Waits until the app logged `popup shown` for request `n` popups in total (the page has
/// rendered and its buttons are wired).
pub fn wait_rendered(s: &Session, n: usize) {
    let t0 = Instant::now();
    loop {
        let log = std::fs::read_to_string(&s.log).unwrap_or_default();
        if log.matches("popup shown").count() >= n {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "popup never rendered; log:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// (x, y, width, height) of a window.
pub fn geometry(win: &str) -> (i64, i64, i64, i64) {
    let out = xdotool(&["getwindowgeometry", "--shell", win]);
    let get = |k: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or_else(|| panic!("no {k} in {out}"))
    };
    (get("X"), get("Y"), get("WIDTH"), get("HEIGHT"))
}

/// Geometry once the window has stopped moving (a new window is centred after it maps).
pub fn settled_geometry(win: &str) -> (i64, i64, i64, i64) {
    let mut last = geometry(win);
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(60));
        let now = geometry(win);
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

/// Gives `win` the keyboard focus (what a window manager does on click; Xvfb has none).
pub fn focus(win: &str) {
    xdotool(&["windowfocus", win]);
    std::thread::sleep(Duration::from_millis(100));
}

pub fn click(x: i64, y: i64) {
    // No --sync: it waits (15 s) for a motion event when the pointer is already there.
    xdotool(&["mousemove", &x.to_string(), &y.to_string()]);
    std::thread::sleep(Duration::from_millis(80));
    xdotool(&["click", "1"]);
}

pub fn shot(s: &Session, name: &str) {
    if let Some(dir) = &s.shots {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        let ok = Command::new("import")
            .args(["-window", "root", path.to_str().unwrap()])
            .status()
            .map(|st| st.success())
            .unwrap_or(false);
        eprintln!(
            "screenshot {} ({})",
            path.display(),
            if ok { "ok" } else { "failed" }
        );
    }
}

/// How to start the app.
#[derive(Default)]
pub struct Start<'a> {
    /// Open the dashboard at start (`--dashboard`).
    pub dashboard: bool,
    /// More arguments.
    pub args: &'a [&'a str],
    /// More environment variables for the app.
    pub env: &'a [(&'a str, &'a str)],
    /// Set this password in the store before the app starts (no wizard then).
    pub password: Option<&'a str>,
    /// Do not create the store at all (first run: the wizard opens).
    pub no_store: bool,
}

pub fn start(dashboard: bool) -> Session {
    start_with(
        tempfile::tempdir().unwrap(),
        Start {
            dashboard,
            password: Some(PASSWORD),
            ..Start::default()
        },
    )
}

/// The password the tests set.
pub const PASSWORD: &str = "correct horse battery";

fn check_display() {
    assert!(
        std::env::var_os("DISPLAY").is_some(),
        "no DISPLAY: run this test under `dbus-run-session -- xvfb-run -a ...` (see src-tauri/README.md)"
    );
    for t in ["xdotool", "import"] {
        assert!(tool(t), "`{t}` is needed (apt: xdotool imagemagick)");
    }
}

/// Starts the real app with `HOME` = `home` and `XDG_RUNTIME_DIR` inside it, a tray host
/// (`trayer`) and a notification daemon (`dunst`) when installed.
pub fn start_with(home: tempfile::TempDir, o: Start<'_>) -> Session {
    check_display();
    let runtime = home.path().join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let sock = runtime.join("airlock").join("broker.sock");
    let db = home.path().join(".local/share/airlock/airlock.db");
    if !o.no_store {
        let store = Store::open(&db).unwrap();
        if let Some(pw) = o.password {
            airlock_core::factors::set_password(&store, pw).unwrap();
        }
    }
    let trayer = tool("trayer")
        .then(|| {
            Command::new("trayer")
                .args([
                    "--edge",
                    "top",
                    "--align",
                    "right",
                    "--widthtype",
                    "pixel",
                    "--width",
                    "120",
                    "--height",
                    "28",
                    "--SetDockType",
                    "true",
                    "--transparent",
                    "false",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok()
        })
        .flatten();
    // A notification daemon, so BLOCK notifications have somewhere to go.
    let dunst = tool("dunst")
        .then(|| {
            Command::new("dunst")
                .env("HOME", home.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok()
        })
        .flatten();
    std::thread::sleep(Duration::from_millis(300));
    let log = home.path().join("app.log");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_airlock-app"));
    if o.dashboard {
        cmd.arg("--dashboard");
    }
    cmd.args(o.args);
    for (k, v) in o.env {
        cmd.env(k, v);
    }
    let app = cmd
        .env("HOME", home.path())
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_STATE_HOME")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let s = Session {
        runtime,
        home,
        app,
        trayer,
        dunst,
        sock,
        db,
        shots: std::env::var_os("AIRLOCK_SHOTS").map(PathBuf::from),
        log,
    };
    let t0 = Instant::now();
    while !s.sock.exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the app did not open its socket; log:\n{}",
            s.log_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    s
}

impl Session {
    /// Whether the app process is still alive.
    pub fn app_running(&mut self) -> bool {
        matches!(self.app.try_wait(), Ok(None))
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the app's log holds `needle` at least `n` times.
    pub fn wait_log(&self, needle: &str, n: usize, within: Duration) -> bool {
        let t0 = Instant::now();
        while t0.elapsed() < within {
            if self.log_text().matches(needle).count() >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// `airlock <args>` as this session's user (same HOME and runtime dir as the app).
    pub fn airlock(&self, args: &[&str]) -> Command {
        airlock_in(self.home.path(), args)
    }

    /// Runs `airlock <args>` with `stdin`; (exit code, stdout, stderr).
    pub fn run_airlock(&self, args: &[&str], stdin: &str) -> (i32, String, String) {
        run_airlock_in(self.home.path(), args, stdin)
    }

    /// Starts the real hook (`airlock hook claude-code`) with `payload` on stdin.
    pub fn spawn_hook(&self, payload: &str) -> Child {
        let mut child = self
            .airlock(&["hook", "claude-code"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        child
    }
}

/// `airlock <args>` as the user whose HOME is `home` (runtime dir `<home>/run`, as the app
/// started by [`start_with`] uses).
pub fn airlock_in(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(airlock_bin());
    c.args(args)
        .env("HOME", home)
        .env("XDG_RUNTIME_DIR", home.join("run"))
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_STATE_HOME");
    c
}

/// Runs `airlock <args>` as that user with `stdin`; (exit code, stdout, stderr).
pub fn run_airlock_in(home: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = airlock_in(home, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The repository root (this crate lives in `src-tauri/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The real `airlock` CLI binary: `AIRLOCK_TEST_CLI_BIN` when set (tests/run.sh builds it),
/// else built here from the workspace into its own `target/` (not the app's).
pub fn airlock_bin() -> PathBuf {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os("AIRLOCK_TEST_CLI_BIN") {
            let p = PathBuf::from(p);
            assert!(
                p.is_file(),
                "AIRLOCK_TEST_CLI_BIN={} is not a file",
                p.display()
            );
            return p;
        }
        let root = repo_root();
        let target = root.join("target");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", "airlock-cli", "--bin", "airlock"])
            .arg("--target-dir")
            .arg(&target)
            .env_remove("CARGO_TARGET_DIR")
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(status.success(), "building the airlock CLI failed");
        let bin = target.join("debug").join("airlock");
        assert!(bin.is_file(), "no {}", bin.display());
        bin
    })
    .clone()
}

/// A Claude Code PreToolUse payload for a Bash command (as tests/support.rs at the root).
pub fn claude_bash(session: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command}
    })
    .to_string()
}

/// Popup layout (ui/www/style.css): the footer buttons sit 14 px above the bottom, 44 px
/// high; Deny on the left half, Approve on the right half.
pub fn popup_buttons(win: &str) -> ((i64, i64), (i64, i64)) {
    let (x, y, w, h) = settled_geometry(win);
    let by = y + h - 14 - 22;
    ((x + w / 4, by), (x + 3 * w / 4, by))
}

/// Clicks "Approve once" of popup `win` until the popup closes (at most `within`). Under
/// load the page's arming tick can run late, so a click right after the arm time may meet a
/// button that is still disabled; a user clicks again, and so does this. A second click
/// cannot approve twice: the decision is single use. Returns whether the popup closed.
pub fn approve_until_gone(win: &str, within: Duration) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < within {
        let (_, approve) = popup_buttons(win);
        click(approve.0, approve.1);
        if wait_gone("^Airlock approval #", Duration::from_secs(2)) {
            return true;
        }
    }
    false
}

// ---- the setup wizard (tests/wizard.rs, tests/system_wizard.rs)

/// Lines of the app log that report wizard step `step` as `done` or `failed`.
pub fn step_count(s: &Session, result: &str, step: &str) -> usize {
    s.log_text()
        .lines()
        .filter(|l| {
            l.contains(&format!("wizard step {result}")) && l.contains(&format!("\"{step}\""))
        })
        .count()
}

pub fn wait_step(s: &Session, result: &str, step: &str, n: usize) {
    let t0 = std::time::Instant::now();
    while step_count(s, result, step) < n {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "wizard step {step} never {result}; log:\n{}",
            s.log_text()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub fn keys(win: &str, ks: &[&str]) {
    focus(win);
    for k in ks {
        xdotool(&["key", "--clearmodifiers", k]);
        std::thread::sleep(Duration::from_millis(120));
    }
}

pub fn type_text(win: &str, text: &str) {
    focus(win);
    xdotool(&["type", "--delay", "15", text]);
}

/// Reads the QR code shown in window `win` off the screen.
pub fn scan_qr(s: &Session, win: &str) -> String {
    let path = s.home.path().join("qr-screen.png");
    let ok = Command::new("import")
        .args(["-window", win, path.to_str().unwrap()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "screenshot failed");
    let img = image::open(&path).unwrap().to_luma8();
    let (w, h) = img.dimensions();
    let mut prepared =
        rqrr::PreparedImage::prepare_from_greyscale(w as usize, h as usize, |x, y| {
            img.get_pixel(x as u32, y as u32)[0]
        });
    let grids = prepared.detect_grids();
    assert!(
        !grids.is_empty(),
        "no QR code on screen ({})",
        path.display()
    );
    grids[0].decode().unwrap().1
}

/// Starts the app on a first run (no store) with `bin_dir` first on `PATH` and no Secret
/// Service (`DBUS_SESSION_BUS_ADDRESS` pointing nowhere, so a TOTP secret takes the
/// no-keyring path instead of waiting on an unlock prompt nobody can answer); waits for the
/// setup wizard's window and its page.
pub fn start_wizard(home: tempfile::TempDir, bin_dir: &str) -> (Session, String) {
    let path = format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default());
    let s = start_with(
        home,
        Start {
            no_store: true,
            env: &[
                ("PATH", &path),
                (
                    "DBUS_SESSION_BUS_ADDRESS",
                    "unix:path=/nonexistent/airlock-test",
                ),
            ],
            ..Start::default()
        },
    );
    let win = wait_window("^Airlock setup$", Duration::from_secs(30))
        .unwrap_or_else(|| panic!("no setup wizard on a first run; log:\n{}", s.log_text()));
    std::thread::sleep(Duration::from_millis(1000)); // page load
    (s, win)
}

/// The wizard's password step, keyboard only: a mismatched repeat is refused and sets
/// nothing (`is_set` stays false), then the password is set. Screenshot `<shots>-password-refused.png`.
pub fn wizard_password_step(s: &Session, win: &str, shots: &str, is_set: impl Fn() -> bool) {
    type_text(win, PASSWORD);
    keys(win, &["Tab"]);
    type_text(win, "correct horse batterx");
    keys(win, &["Return"]);
    wait_step(s, "failed", "password", 1);
    shot(s, &format!("{shots}-password-refused.png"));
    assert!(!is_set(), "a mismatched repeat set the password");
    keys(win, &["ctrl+a", "BackSpace"]);
    type_text(win, PASSWORD);
    keys(win, &["Return"]);
    wait_step(s, "done", "password", 1);
    assert!(is_set(), "the password step set no password");
}

/// The wizard's TOTP step: the QR code scanned off the screen like a phone would; a wrong
/// code is refused and enrols nothing (`enrolled` stays false), the right one enrols.
/// Screenshot `<shots>-totp.png`.
pub fn wizard_totp_step(s: &Session, win: &str, shots: &str, enrolled: impl Fn() -> bool) {
    std::thread::sleep(Duration::from_millis(400));
    keys(win, &["Return"]); // "Set up TOTP" has the focus
    wait_step(s, "done", "totp-begin", 1);
    std::thread::sleep(Duration::from_millis(600));
    let uri = scan_qr(s, win);
    assert!(uri.starts_with("otpauth://totp/"), "{uri}");
    let totp = totp_rs::TOTP::from_url(&uri).unwrap();
    let code = totp.generate_current().unwrap();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    type_text(win, wrong);
    keys(win, &["Return"]);
    wait_step(s, "failed", "totp-finish", 1);
    assert!(!enrolled(), "a wrong code enrolled TOTP");
    keys(win, &["ctrl+a", "BackSpace"]);
    shot(s, &format!("{shots}-totp.png"));
    type_text(win, &totp.generate_current().unwrap());
    keys(win, &["Return"]);
    wait_step(s, "done", "totp-finish", 1);
    assert!(enrolled(), "the right code did not enrol TOTP");
}

/// The wizard's self-test: "Run self-test", the AUTH case approved in the real popup once
/// it is armed, then the three decisions logged.
pub fn wizard_self_test_step(s: &Session, win: &str) {
    std::thread::sleep(Duration::from_millis(500));
    keys(win, &["Return"]); // "Run self-test"
    let popup = wait_window("^Airlock approval #", Duration::from_secs(30))
        .unwrap_or_else(|| panic!("the AUTH self-test raised no popup; log:\n{}", s.log_text()));
    wait_rendered(s, 1);
    let (_, approve) = popup_buttons(&popup);
    std::thread::sleep(Duration::from_millis(1700)); // armed 1.5 s after arrival
    click(approve.0, approve.1);
    assert!(
        s.wait_log("self-test decision", 3, Duration::from_secs(30)),
        "self-test did not finish; log:\n{}",
        s.log_text()
    );
    std::thread::sleep(Duration::from_millis(500));
}

// ---- the system level (tests/system_app.rs, tests/system_wizard.rs)

/// Where these tests install the system level's binaries.
pub const BIN_DIR: &str = "/opt/airlock-app-test/bin";

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Stops the service and uninstalls however the test ends.
pub struct Installed {
    pub service: Option<Child>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        if let Some(mut c) = self.service.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = Command::new(airlock_bin())
            .args(["system", "uninstall", "--bin-dir", BIN_DIR])
            .status();
        let _ = std::fs::remove_dir_all("/opt/airlock-app-test");
    }
}

pub fn start_service() -> Child {
    let mut child = Command::new("setpriv")
        .args([
            "--reuid=airlock",
            "--regid=airlock",
            "--clear-groups",
            "--",
            &format!("{BIN_DIR}/airlock"),
            "daemon",
            "--system",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if std::os::unix::net::UnixStream::connect("/run/airlock/guard.sock").is_ok() {
            return child;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the system service did not open its socket");
}
