//! File operations: bounded reads, backups beside the file, atomic writes that keep
//! permissions.

use std::ffi::OsString;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::WireError;

/// Largest config file we read. Hook configs are a few kilobytes.
const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Infix of backup file names: `<file>.airlock-backup-<stamp>`.
const BACKUP_INFIX: &str = ".airlock-backup-";

fn io(path: &Path, source: io::Error) -> WireError {
    WireError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The file to read and write for `path`: a symlink's target (so a dotfiles symlink stays a
/// symlink), else `path` itself.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// The file's text, or `None` if it does not exist. Non-UTF-8 or oversized content is a
/// [`WireError::Parse`] (the file is not touched).
pub(crate) fn read(path: &Path) -> Result<Option<String>, WireError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, e)),
    };
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(WireError::Parse {
            path: path.to_path_buf(),
            message: format!("the file is larger than {MAX_CONFIG_BYTES} bytes"),
        });
    }
    let bytes = fs::read(path).map_err(|e| io(path, e))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| WireError::Parse {
            path: path.to_path_buf(),
            message: "the file is not UTF-8 text".into(),
        })
}

fn file_name(path: &Path) -> Result<OsString, WireError> {
    path.file_name().map(OsString::from).ok_or_else(|| {
        io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"),
        )
    })
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Stamp text safe for a file name.
fn clean_stamp(stamp: &str) -> String {
    let s: String = stamp
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() { "backup".into() } else { s }
}

/// Copies `bytes` (the file's current content) to `<file>.airlock-backup-<stamp>` beside it,
/// with the file's permissions. Never overwrites: a taken name gets `-2`, `-3`, ….
pub(crate) fn backup(path: &Path, bytes: &str, stamp: &str) -> Result<PathBuf, WireError> {
    let mut base = file_name(path)?;
    base.push(BACKUP_INFIX);
    base.push(clean_stamp(stamp));
    let dir = parent(path);
    let perms = fs::metadata(path).ok().map(|m| m.permissions());
    for n in 1..=1000u32 {
        let mut name = base.clone();
        if n > 1 {
            name.push(format!("-{n}"));
        }
        let candidate = dir.join(&name);
        match create_new(&candidate) {
            Ok(mut f) => {
                let written = f
                    .write_all(bytes.as_bytes())
                    .and_then(|()| f.sync_all())
                    .and_then(|()| match &perms {
                        Some(p) => fs::set_permissions(&candidate, p.clone()),
                        None => Ok(()),
                    });
                if let Err(e) = written {
                    let _ = fs::remove_file(&candidate);
                    return Err(io(&candidate, e));
                }
                return Ok(candidate);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&candidate, e)),
        }
    }
    Err(io(
        path,
        io::Error::new(
            io::ErrorKind::AlreadyExists,
            "too many backups with this stamp",
        ),
    ))
}

/// Every `<file>.airlock-backup-*` beside `path`, newest first (by modification time, then
/// name).
pub(crate) fn backups_newest_first(path: &Path) -> Result<Vec<PathBuf>, WireError> {
    let mut prefix = file_name(path)?;
    prefix.push(BACKUP_INFIX);
    let prefix = prefix.to_string_lossy().into_owned();
    let dir = parent(path);
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir, e)),
    };
    let mut found: Vec<(std::time::SystemTime, String, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(&prefix) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let mtime = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
        found.push((mtime, name, entry.path()));
    }
    found.sort_by(|a, b| (&b.0, &b.1).cmp(&(&a.0, &a.1)));
    Ok(found.into_iter().map(|(_, _, p)| p).collect())
}

fn create_new(path: &Path) -> io::Result<fs::File> {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    crate::platform::owner_only(&mut opts);
    opts.open(path)
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced, given
/// the existing file's permissions (new files: owner read/write only), then renamed over.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WireError> {
    let dir = parent(path);
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let perms = match fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(path, e)),
    };
    let name = file_name(path)?;
    let (tmp, mut file) = loop {
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = OsString::from(".");
        tmp_name.push(&name);
        tmp_name.push(format!(".airlock-tmp-{}-{n}", std::process::id()));
        let tmp = dir.join(tmp_name);
        match create_new(&tmp) {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(&tmp, e)),
        }
    };
    let result = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| match &perms {
            Some(p) => fs::set_permissions(&tmp, p.clone()),
            None => Ok(()),
        })
        .and_then(|()| {
            drop(file);
            fs::rename(&tmp, path)
        });
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io(path, e));
    }
    Ok(())
}

/// Removes a file.
pub(crate) fn remove(path: &Path) -> Result<(), WireError> {
    fs::remove_file(path).map_err(|e| io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_made_file_name_safe() {
        assert_eq!(clean_stamp("2025-01-02T03:04:05Z"), "2025-01-02T03-04-05Z");
        assert_eq!(clean_stamp("../../x"), "..-..-x");
        assert_eq!(clean_stamp(""), "backup");
    }

    #[test]
    fn backups_never_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("settings.json");
        fs::write(&file, "{}").unwrap();
        let a = backup(&file, "{}", "s").unwrap();
        let b = backup(&file, "{ }", "s").unwrap();
        assert_ne!(a, b);
        assert_eq!(fs::read_to_string(&a).unwrap(), "{}");
        assert_eq!(fs::read_to_string(&b).unwrap(), "{ }");
        assert!(b.to_string_lossy().ends_with(".airlock-backup-s-2"));
    }
}
