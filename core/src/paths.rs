//! Where Airlock's files live, at each protection level.
//!
//! - **User level** (`cargo install`, no root): everything under the user's home
//!   (`~/.local/share/airlock/airlock.db`, `~/.config/airlock/`), the guard service's socket in
//!   `$XDG_RUNTIME_DIR/airlock/guard.sock` (else `<data dir>/run/guard.sock`). The agent runs
//!   as the same user, so this level is *tamper-evident*, not tamper-proof.
//! - **System level** (the `.deb` / `.rpm`, or `airlock system install` as root): the guard
//!   service runs as its own system user; its state is under [`SYSTEM_STATE_DIR`] (one store
//!   per user: `users/<uid>/airlock.db`), its configuration under [`SYSTEM_CONFIG_DIR`]
//!   (root-owned), its socket at [`SYSTEM_SOCKET`]. A user's processes cannot read or write
//!   any of it; the OS enforces this.
//!
//! No environment variable relocates any of these, so an agent cannot point Airlock at a store
//! or a service of its own.

use std::path::{Path, PathBuf};

use airlock_store::Store;

use crate::CoreError;

/// The system level's marker: a root-owned file whose presence means "the system service
/// owns protection on this machine"; clients then never fall back to the user level.
pub const SYSTEM_MARKER: &str = "/etc/airlock/system.toml";
/// Root-owned configuration of the system level (policy `config.toml`).
pub const SYSTEM_CONFIG_DIR: &str = "/etc/airlock";
/// The service's own state (mode 0700, owned by [`SYSTEM_USER`]).
pub const SYSTEM_STATE_DIR: &str = "/var/lib/airlock";
/// The service's socket (its directory 0755, the socket 0666: every local user may ask; the
/// kernel tells the service who asked).
pub const SYSTEM_SOCKET: &str = "/run/airlock/guard.sock";
/// The system user the service runs as.
pub const SYSTEM_USER: &str = "airlock";
/// The guard service's socket file name at user level.
pub const USER_SOCKET_NAME: &str = "guard.sock";

/// Which protection level is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Everything runs as the user: tamper-evident only.
    User,
    /// A system service under its own user owns state and decisions: enforced by the OS.
    System,
}

impl Level {
    /// What the level guarantees, in the words `doctor`, the tray and the dashboard show.
    pub fn describe(self) -> &'static str {
        match self {
            Level::User => "user: tamper-evident only",
            Level::System => "system: enforced by the OS",
        }
    }

    /// The level installed on this machine: system when the root-owned marker exists.
    pub fn installed() -> Level {
        if system_marker_present() {
            Level::System
        } else {
            Level::User
        }
    }
}

/// True when the system level's marker exists and is owned by root (a marker the user could
/// have written would let an agent redirect clients).
pub fn system_marker_present() -> bool {
    crate::platform::is_root_owned_file(std::path::Path::new(SYSTEM_MARKER))
}

/// The folder of the system level's root-owned binaries, as `airlock system install` recorded
/// it in the marker (the hooks in every system-level hook file run `<bin_dir>/airlock` or the
/// `airlock-hook` beside it). `None` at user level, or when the marker names no absolute
/// folder.
pub fn system_bin_dir() -> Option<PathBuf> {
    if !system_marker_present() {
        return None;
    }
    bin_dir_of_marker(&std::fs::read_to_string(SYSTEM_MARKER).ok()?)
}

fn bin_dir_of_marker(text: &str) -> Option<PathBuf> {
    let t: toml::Table = text.parse().ok()?;
    t.get("bin_dir")?
        .as_str()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// Where one user's Airlock files are.
#[derive(Debug, Clone)]
pub struct Paths {
    pub level: Level,
    /// The store.
    pub db: PathBuf,
    /// The policy configuration directory (`config.toml`).
    pub config_dir: PathBuf,
    /// The user's home (for `~` in rules), if known.
    pub home: Option<PathBuf>,
    /// The guard service's socket.
    pub socket: PathBuf,
}

impl Paths {
    /// The current user's user-level paths.
    pub fn discover() -> Result<Paths, CoreError> {
        let db = airlock_store::default_db_path().ok_or(CoreError::NoHome)?;
        let config_dir = airlock_store::default_config_dir().ok_or(CoreError::NoHome)?;
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from);
        let socket = user_socket_path()?;
        Ok(Paths {
            level: Level::User,
            db,
            config_dir,
            home,
            socket,
        })
    }

    /// What a client running as the user sees at system level (the MCP proxy): the root-owned
    /// policy file and the system socket. `db` names the service's state, which such a client
    /// cannot open (the service judges and records for it).
    pub fn system_client() -> Result<Paths, CoreError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Ok(Paths {
            level: Level::System,
            db: PathBuf::from(SYSTEM_STATE_DIR).join(airlock_store::DB_FILE_NAME),
            config_dir: PathBuf::from(SYSTEM_CONFIG_DIR),
            home,
            socket: PathBuf::from(SYSTEM_SOCKET),
        })
    }

    /// One user's paths at system level, as the service sees them: the store under
    /// `<state>/users/<uid>/`, the root-owned config, the system socket.
    pub fn system_for_user(state_dir: &Path, uid: u32, home: Option<PathBuf>) -> Paths {
        Paths {
            level: Level::System,
            db: state_dir
                .join("users")
                .join(uid.to_string())
                .join(airlock_store::DB_FILE_NAME),
            config_dir: PathBuf::from(SYSTEM_CONFIG_DIR),
            home,
            socket: PathBuf::from(SYSTEM_SOCKET),
        }
    }

    pub fn config_file(&self) -> PathBuf {
        self.config_dir.join("config.toml")
    }

    /// Airlock's own files: config, store, socket and the running binary (the engine's
    /// self-protection rule guards them).
    pub fn protected(&self) -> Vec<String> {
        let mut v = vec![self.config_dir.to_string_lossy().into_owned()];
        if let Some(dir) = self.db.parent() {
            v.push(dir.to_string_lossy().into_owned());
        }
        if let Some(dir) = self.socket.parent() {
            v.push(dir.to_string_lossy().into_owned());
        }
        if let Ok(exe) = std::env::current_exe() {
            v.push(exe.to_string_lossy().into_owned());
        }
        // The hook wiring kept elsewhere and linked in (`~/.claude/settings.json` →
        // `~/dotfiles/claude/settings.json`): the real file is as protected as the link, or
        // editing it through its other name would unwire the agent.
        if let Some(home) = &self.home {
            for rel in airlock_engine::paths::self_home_paths() {
                let p = home.join(rel);
                if let Ok(real) = std::fs::canonicalize(&p)
                    && real != p
                {
                    v.push(real.to_string_lossy().into_owned());
                }
            }
        }
        v
    }

    /// Opens the store (creating it only if the caller decided it may exist: see
    /// [`Paths::open_existing_store`] for every path that must not recreate it).
    pub fn open_store(&self) -> Result<Store, CoreError> {
        Ok(Store::open(&self.db)?)
    }

    /// Opens the store only if it exists: a missing store is never silently recreated (a
    /// fresh one would forget the mode, the ledger and the password).
    pub fn open_existing_store(&self) -> Result<Store, CoreError> {
        if !self.db.exists() {
            return Err(CoreError::Invalid(
                "Airlock is not set up on this machine (its store is missing): run `airlock setup`"
                    .to_owned(),
            ));
        }
        self.open_store()
    }
}

/// The user-level guard socket: `$XDG_RUNTIME_DIR/airlock/guard.sock` when `XDG_RUNTIME_DIR`
/// is absolute, else `<data dir>/run/guard.sock`.
pub fn user_socket_path() -> Result<PathBuf, CoreError> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    match runtime {
        Some(dir) => Ok(dir.join("airlock").join(USER_SOCKET_NAME)),
        None => airlock_store::default_data_dir()
            .map(|d| d.join("run").join(USER_SOCKET_NAME))
            .ok_or(CoreError::NoHome),
    }
}

/// Path of this binary, for wiring hooks.
pub fn self_binary() -> Result<PathBuf, CoreError> {
    std::env::current_exe().map_err(|e| CoreError::io("the running binary", e))
}

pub fn display(p: &Path) -> String {
    p.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_names_the_system_binaries() {
        let written =
            "# Airlock system protection level\nlevel = \"system\"\nbin_dir = \"/usr/bin\"\n";
        assert_eq!(bin_dir_of_marker(written), Some(PathBuf::from("/usr/bin")));
        for bad in [
            "level = \"system\"\n",
            "bin_dir = \"bin\"\n",
            "bin_dir = 3\n",
            "not toml = =",
        ] {
            assert_eq!(bin_dir_of_marker(bad), None, "{bad}");
        }
    }
}
