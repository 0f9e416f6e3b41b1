//! Codex CLI's managed hooks: `/etc/codex/requirements.toml` (admin-enforced requirements;
//! Codex reads inline `[[hooks.<Event>]]` tables there since the hooks-in-requirements change,
//! and managed hooks need no per-user trust).
//!
//! The file is TOML and may hold an admin's other requirements, so Airlock owns exactly one
//! marked block and leaves every other byte alone: wiring replaces the block (or appends it),
//! unwiring removes it. The result must still parse as TOML, else the file is left untouched.

use std::path::{Path, PathBuf};

use crate::{Agent, WireError, WireOptions, WireReport, fsops};

const BEGIN: &str = "# >>> airlock managed hooks (written by `airlock system install`; removed by `airlock system uninstall`)";
const END: &str = "# <<< airlock managed hooks";

/// (event, matcher) pairs, as in the user-level `~/.codex/hooks.json`.
const EVENTS: &[(&str, Option<&str>)] = &[
    ("PreToolUse", Some("*")),
    ("PostToolUse", Some("*")),
    ("UserPromptSubmit", None),
    ("PermissionRequest", Some("*")),
];

fn toml_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn block(bin: &str, hook_bin: bool, timeout_secs: u32) -> String {
    let command = crate::hosts::Ours::new(bin, "codex", hook_bin).command;
    let mut out = format!("{BEGIN}\n");
    for (event, matcher) in EVENTS {
        out.push_str(&format!("[[hooks.{event}]]\n"));
        if let Some(m) = matcher {
            out.push_str(&format!("matcher = {}\n", toml_str(m)));
        }
        out.push_str(&format!(
            "[[hooks.{event}.hooks]]\ntype = \"command\"\ncommand = {}\ntimeout = {timeout_secs}\n",
            toml_str(&command)
        ));
    }
    out.push_str(END);
    out.push('\n');
    out
}

/// `text` without Airlock's block (and whether there was one).
fn without_block(text: &str) -> (String, bool) {
    let Some(start) = text.find(BEGIN) else {
        return (text.to_owned(), false);
    };
    let end = text
        .get(start..)
        .and_then(|t| t.find(END))
        .map(|i| start + i + END.len())
        .unwrap_or(text.len());
    let end = if text.get(end..).is_some_and(|t| t.starts_with('\n')) {
        end + 1
    } else {
        end
    };
    (
        format!(
            "{}{}",
            text.get(..start).unwrap_or(""),
            text.get(end..).unwrap_or("")
        ),
        true,
    )
}

fn checked(path: &Path, text: &str) -> Result<(), WireError> {
    text.parse::<toml::Table>()
        .map(|_| ())
        .map_err(|e| WireError::Parse {
            path: path.to_path_buf(),
            message: format!(
                "with Airlock's hooks it would not be valid TOML ({e}); add them by hand"
            ),
        })
}

/// Whether Airlock's block in the requirements at `path` runs `airlock_bin` (or the
/// `airlock-hook` beside it). A missing file or block is not wired.
pub fn is_wired(path: &Path, airlock_bin: &Path) -> Result<bool, WireError> {
    let Some(text) = fsops::read(&fsops::resolve(path))? else {
        return Ok(false);
    };
    let Some(start) = text.find(BEGIN) else {
        return Ok(false);
    };
    let ours = text.get(start..).unwrap_or("");
    let ours = ours
        .get(..ours.find(END).unwrap_or(ours.len()))
        .unwrap_or("");
    let Some(bin) = airlock_bin.to_str() else {
        return Ok(false);
    };
    let command = crate::hosts::Ours::new(bin, "codex", crate::has_hook_bin(airlock_bin)).command;
    let want = format!("command = {}", toml_str(&command));
    Ok(EVENTS
        .iter()
        .all(|(event, _)| ours.contains(&format!("[[hooks.{event}]]")))
        && ours.matches(&want).count() == EVENTS.len())
}

/// Write (or refresh) Airlock's managed hooks in Codex's `requirements.toml` at `path`.
pub fn wire(path: PathBuf, opts: &WireOptions) -> Result<WireReport, WireError> {
    let bin = opts
        .airlock_bin
        .to_str()
        .filter(|_| opts.airlock_bin.is_absolute())
        .ok_or_else(|| WireError::Unsupported {
            agent: Agent::Codex.as_str(),
            why: format!(
                "the airlock binary path {} is not absolute UTF-8",
                opts.airlock_bin.display()
            ),
        })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| WireError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    let real = fsops::resolve(&path);
    let current = fsops::read(&real)?;
    let text = current.clone().unwrap_or_default();
    if !text.trim().is_empty() {
        checked(&path, &text)?;
    }
    let (rest, _) = without_block(&text);
    let mut next = rest.trim_end().to_owned();
    if !next.is_empty() {
        next.push_str("\n\n");
    }
    next.push_str(&block(
        bin,
        crate::has_hook_bin(&opts.airlock_bin),
        opts.timeout_secs,
    ));
    checked(&path, &next)?;
    if current.as_deref() == Some(next.as_str()) {
        return Ok(WireReport {
            path,
            changed: false,
            backup: None,
        });
    }
    let backup = match &current {
        Some(bytes) => Some(fsops::backup(&real, bytes, &opts.stamp)?),
        None => None,
    };
    fsops::write_atomic(&real, next.as_bytes())?;
    Ok(WireReport {
        path,
        changed: true,
        backup,
    })
}

/// Remove Airlock's block, leaving the rest of the file as it was.
pub fn unwire(path: PathBuf, opts: &WireOptions) -> Result<WireReport, WireError> {
    let real = fsops::resolve(&path);
    let Some(text) = fsops::read(&real)? else {
        return Err(WireError::NotWired { path });
    };
    let (rest, had) = without_block(&text);
    if !had {
        return Err(WireError::NotWired { path });
    }
    let backup = Some(fsops::backup(&real, &text, &opts.stamp)?);
    let rest = rest.trim_end();
    if rest.is_empty() {
        // Only Airlock's block was there: the file goes (the backup keeps it).
        fsops::remove(&real)?;
    } else {
        fsops::write_atomic(&real, format!("{rest}\n").as_bytes())?;
    }
    Ok(WireReport {
        path,
        changed: true,
        backup,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // test code
mod tests {
    use super::*;

    fn opts() -> WireOptions {
        WireOptions {
            airlock_bin: PathBuf::from("/usr/local/bin/airlock"),
            timeout_secs: 150,
            stamp: "t".into(),
        }
    }

    /// The admin's own requirements stay byte for byte; the block is idempotent and removed
    /// exactly; the hooks parse as Codex's schema expects.
    #[test]
    fn wires_a_block_and_removes_it_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("requirements.toml");
        let admin = "# corp policy\nallowed_approval_policies = [\"untrusted\", \"on-request\"]\n\n[features]\nhooks = true\n";
        std::fs::write(&f, admin).unwrap();
        assert!(wire(f.clone(), &opts()).unwrap().changed);
        assert!(!wire(f.clone(), &opts()).unwrap().changed, "idempotent");
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.starts_with(admin.trim_end()), "{text}");
        let t: toml::Table = text.parse().unwrap();
        let pre = &t["hooks"]["PreToolUse"][0];
        assert_eq!(pre["matcher"].as_str(), Some("*"));
        assert_eq!(
            pre["hooks"][0]["command"].as_str(),
            Some("/usr/local/bin/airlock hook codex")
        );
        assert_eq!(pre["hooks"][0]["timeout"].as_integer(), Some(150));
        assert!(t["hooks"]["UserPromptSubmit"][0].get("matcher").is_none());
        let bin = opts().airlock_bin;
        assert!(is_wired(&f, &bin).unwrap());
        assert!(!is_wired(&f, Path::new("/opt/other/airlock")).unwrap());
        unwire(f.clone(), &opts()).unwrap();
        assert!(!is_wired(&f, &bin).unwrap());
        assert!(!is_wired(&dir.path().join("none.toml"), &bin).unwrap());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), admin);
        assert!(matches!(
            unwire(f.clone(), &opts()),
            Err(WireError::NotWired { .. })
        ));
        // A file that held only Airlock's block is removed.
        let g = dir.path().join("fresh.toml");
        wire(g.clone(), &opts()).unwrap();
        unwire(g.clone(), &opts()).unwrap();
        assert!(!g.exists());
        // A file that is not TOML is left untouched.
        std::fs::write(&f, "this is = = not toml").unwrap();
        assert!(matches!(
            wire(f.clone(), &opts()),
            Err(WireError::Parse { .. })
        ));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "this is = = not toml");
        // A file whose own `hooks` would clash is left untouched too.
        std::fs::write(&f, "hooks = \"x\"\n").unwrap();
        assert!(matches!(
            wire(f.clone(), &opts()),
            Err(WireError::Parse { .. })
        ));
    }
}
