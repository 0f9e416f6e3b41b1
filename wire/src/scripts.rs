//! Hosts whose hooks are executable files named after the event, one per event and directory
//! (Cline: `~/Documents/Cline/Hooks/PreToolUse`, …), rather than entries in a JSON document.
//!
//! Airlock's file is a two-line `sh` script marked as Airlock's ([`MARKER`]) that `exec`s
//! `<airlock> hook <host>`. A file of the same name that is not Airlock's is never replaced
//! (one file per event: Airlock cannot share the slot with the user's own hook), and nothing is
//! written unless every event's slot is free or already Airlock's. An Airlock file written for
//! another binary path is replaced, its old bytes kept as a backup beside it. Unwire removes
//! only files that are Airlock's and run this binary.

use std::path::{Path, PathBuf};

use crate::hosts::Ours;
use crate::{WireError, WireOptions, WireReport, fsops};

/// The line that marks a hook file as Airlock's.
pub(crate) const MARKER: &str = "# airlock-managed hook: `airlock unwire";

/// A script-file host.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScriptHost {
    /// The hook directory under the home directory.
    pub(crate) rel_dir: &'static [&'static str],
    /// The host's name in `airlock hook <host>` / `airlock wire <host>`.
    pub(crate) name: &'static str,
    /// One file per event, named exactly as the event.
    pub(crate) events: &'static [&'static str],
}

/// Cline: global hooks in `~/Documents/Cline/Hooks/` (`cline/cline`
/// `src/core/storage/disk.ts` `ensureHooksDirectoryExists`; on Linux Cline asks
/// `xdg-user-dir DOCUMENTS` first, and falls back to `~/Documents`). Hooks must be enabled in
/// Cline's settings.
pub(crate) const CLINE: ScriptHost = ScriptHost {
    rel_dir: &["Documents", "Cline", "Hooks"],
    name: "cline",
    events: &["PreToolUse", "PostToolUse", "UserPromptSubmit"],
};

/// The script text for `host`, running `ours.command`.
pub(crate) fn script(host: &ScriptHost, ours: &Ours) -> String {
    format!(
        "#!/bin/sh\n{MARKER} {name}` removes it.\nexec {command}\n",
        name = host.name,
        command = ours.command,
    )
}

pub(crate) fn dir(host: &ScriptHost, home: &Path) -> PathBuf {
    host.rel_dir
        .iter()
        .fold(home.to_path_buf(), |p, c| p.join(c))
}

fn is_ours_any(text: &str) -> bool {
    text.lines().any(|l| l.starts_with(MARKER))
}

fn is_ours(text: &str, ours: &Ours) -> bool {
    is_ours_any(text) && text.lines().any(|l| ours.matches(l))
}

/// What wiring would do to one event's file.
enum Plan {
    Keep,
    Write { backup_of: Option<String> },
}

pub(crate) fn wire(
    host: &ScriptHost,
    home: &Path,
    ours: &Ours,
    opts: &WireOptions,
) -> Result<WireReport, WireError> {
    let dir = dir(host, home);
    let desired = script(host, ours);
    // Look at every slot before writing anything.
    let mut plans = Vec::new();
    for event in host.events {
        let path = dir.join(event);
        let plan = match fsops::read(&path)? {
            None => Plan::Write { backup_of: None },
            Some(text) if text == desired && executable(&path) => Plan::Keep,
            Some(text) if is_ours_any(&text) => Plan::Write {
                backup_of: (text != desired).then_some(text),
            },
            Some(_) => {
                return Err(WireError::Parse {
                    path,
                    message: format!(
                        "it is a {} hook of your own; Airlock does not replace it (one file per \
                         event: merge it into Airlock's by hand, or move it away and wire again)",
                        host.name
                    ),
                });
            }
        };
        plans.push((path, plan));
    }
    let mut changed = false;
    let mut backup = None;
    for (path, plan) in plans {
        if let Plan::Write { backup_of } = plan {
            if let Some(old) = backup_of {
                backup = Some(fsops::backup(&path, &old, &opts.stamp)?);
            }
            fsops::write_atomic(&path, desired.as_bytes())?;
            make_executable(&path)?;
            changed = true;
        }
    }
    Ok(WireReport {
        path: dir,
        changed,
        backup,
    })
}

pub(crate) fn is_wired(host: &ScriptHost, home: &Path, ours: &Ours) -> Result<bool, WireError> {
    let dir = dir(host, home);
    for event in host.events {
        let path = dir.join(event);
        match fsops::read(&path)? {
            Some(text) if is_ours(&text, ours) && executable(&path) => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

pub(crate) fn unwire(host: &ScriptHost, home: &Path, ours: &Ours) -> Result<WireReport, WireError> {
    let dir = dir(host, home);
    let mut removed = false;
    for event in host.events {
        let path = dir.join(event);
        if let Some(text) = fsops::read(&path)?
            && is_ours(&text, ours)
        {
            fsops::remove(&path)?;
            removed = true;
        }
    }
    if !removed {
        return Err(WireError::NotWired { path: dir });
    }
    Ok(WireReport {
        path: dir,
        changed: true,
        backup: None,
    })
}

fn executable(path: &Path) -> bool {
    crate::platform::is_executable(path)
}

fn make_executable(path: &Path) -> Result<(), WireError> {
    crate::platform::make_executable(path).map_err(|e| WireError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_is_marked_and_runs_the_quoted_binary() {
        let ours = Ours::new("/opt/My Tools/airlock", "cline", false);
        let s = script(&CLINE, &ours);
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(is_ours(&s, &ours));
        assert!(s.contains("exec '/opt/My Tools/airlock' hook cline\n"));
        assert!(!is_ours(&s, &Ours::new("/usr/bin/airlock", "cline", false)));
        assert!(!is_ours_any("#!/bin/sh\nexec lint\n"));
    }
}
