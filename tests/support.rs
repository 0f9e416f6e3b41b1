//! Helpers shared by the end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Path of the real `airlock` binary, built in this profile if it is not there yet.
pub fn airlock_bin() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // target/<profile>/deps/<test> → target/<profile>/airlock
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("cannot locate the target directory")?;
    let bin = dir.join(if cfg!(windows) {
        "airlock.exe"
    } else {
        "airlock"
    });
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "airlock-cli", "--bin", "airlock"]);
    if dir.file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd
        .current_dir(root())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() || !bin.exists() {
        return Err(format!("could not build {}", bin.display()));
    }
    Ok(bin)
}

/// Thresholds recorded in BENCHMARKS.md: `| mode | ASR | FPR |` rows inside the
/// `<!-- eval-thresholds -->` block.
pub fn recorded_thresholds() -> Result<Vec<(String, f64, f64)>, String> {
    let text = std::fs::read_to_string(root().join("BENCHMARKS.md")).map_err(|e| e.to_string())?;
    let start = text
        .find("<!-- eval-thresholds -->")
        .ok_or("no eval-thresholds block")?;
    let end = text
        .find("<!-- /eval-thresholds -->")
        .ok_or("unterminated eval-thresholds block")?;
    let block = text.get(start..end).ok_or("bad block")?;
    let mut out = Vec::new();
    for line in block.lines() {
        let cells: Vec<&str> = line
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        if let [mode, asr, fpr, ..] = cells.as_slice()
            && let (Ok(a), Ok(f)) = (asr.parse::<f64>(), fpr.parse::<f64>())
        {
            out.push(((*mode).to_owned(), a, f));
        }
    }
    if out.is_empty() {
        return Err("no threshold rows".into());
    }
    Ok(out)
}
