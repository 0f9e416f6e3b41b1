//! Custom rules: `airlock policy check`, `airlock rules list|install|remove`.
//!
//! Rule files live in `<config dir>/rules/*.cedar`, packs in `<config dir>/rules/packs/<name>/`
//! (`airlock_core::custom`). Installing only ever adds raises, so it needs no factor; it is
//! refused unless every file in force afterwards validates. Removing a file or a pack lowers
//! protection, so at user level it takes the factor and is ledgered; at system level the
//! directory is root's (`/etc/airlock/rules`), and the filesystem decides.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use airlock_core::custom::{self, CustomRules, Severity};
use airlock_core::{Level, Paths, clock};
use airlock_store::LedgerEntry;
use anyhow::{Context, Result, bail};

use crate::cmd::{self, FactorArgs};

/// The paths whose rules are in force: the system level's root-owned directory when the
/// system level is installed, else the user's.
pub fn rule_paths() -> Result<Paths> {
    let mut paths = Paths::discover()?;
    if Level::installed() == Level::System {
        paths.level = Level::System;
        paths.config_dir = PathBuf::from(airlock_core::paths::SYSTEM_CONFIG_DIR);
    }
    Ok(paths)
}

/// The rule files named on the command line (a directory stands for its `*.cedar` files),
/// or every file in force.
fn files_to_check(paths: &Paths, args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if args.is_empty() {
        return custom::rule_files(paths)
            .with_context(|| format!("listing {}", custom::rules_dir(paths).display()));
    }
    let mut out = Vec::new();
    for a in args {
        if a.is_dir() {
            out.extend(
                custom::cedar_files_in(a).with_context(|| format!("listing {}", a.display()))?,
            );
        } else {
            out.push(a.clone());
        }
    }
    Ok(out)
}

fn report(rules: &CustomRules, json: bool) -> Result<ExitCode> {
    let ok = !rules.invalid();
    if json {
        let v = serde_json::json!({
            "valid": ok,
            "files": rules.files(),
            "rules": rules.rules().collect::<Vec<_>>(),
            "problems": rules.problems(),
        });
        crate::emit(&(serde_json::to_string_pretty(&v)? + "\n"))?;
    } else {
        let mut s = String::new();
        for p in rules.problems() {
            s.push_str(&format!("{p}\n"));
        }
        let errors = rules
            .problems()
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count();
        s.push_str(&if ok {
            format!(
                "ok: {} rule(s) in {} file(s)\n",
                rules.rules().count(),
                rules.files().len()
            )
        } else {
            format!(
                "invalid: {errors} error(s); while an installed rule file is invalid, every tool call needs your approval (custom_rules_invalid)\n"
            )
        });
        crate::emit(&s)?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `airlock policy check [FILE…]`: validate rule files against Airlock's schema. Exit 1 when
/// any has an error.
pub fn policy_check(files: &[PathBuf], json: bool) -> Result<ExitCode> {
    let paths = rule_paths()?;
    let files = files_to_check(&paths, files)?;
    if files.is_empty() && !json {
        crate::emit(&format!(
            "no rule files (put *.cedar files in {})\n",
            custom::rules_dir(&paths).display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    report(&CustomRules::from_files(&files), json)
}

/// `airlock policy schema`: print the Cedar schema rules are checked against.
pub fn policy_schema() -> Result<ExitCode> {
    crate::emit(custom::SCHEMA)?;
    Ok(ExitCode::SUCCESS)
}

fn rel(paths: &Paths, p: &Path) -> String {
    p.strip_prefix(custom::rules_dir(paths))
        .unwrap_or(p)
        .display()
        .to_string()
}

/// `airlock rules list`: the rule files and packs in force, each rule's code and verdict.
pub fn list(json: bool) -> Result<ExitCode> {
    let paths = rule_paths()?;
    let loaded = CustomRules::load(&paths);
    if json {
        let packs: Vec<String> = custom::packs(&paths)?.into_iter().map(|(n, _)| n).collect();
        let v = serde_json::json!({
            "dir": custom::rules_dir(&paths),
            "valid": !loaded.invalid(),
            "files": loaded.files(),
            "packs": packs,
            "rules": loaded.rules().collect::<Vec<_>>(),
            "problems": loaded.problems(),
        });
        crate::emit(&(serde_json::to_string_pretty(&v)? + "\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut s = format!("rules directory: {}\n", custom::rules_dir(&paths).display());
    if loaded.files().is_empty() {
        s.push_str("no custom rules installed\n");
    }
    for f in loaded.files() {
        let pf = Path::new(f);
        s.push_str(&format!("{}\n", rel(&paths, pf)));
        for r in loaded.rules().filter(|r| &r.file == f) {
            s.push_str(&format!(
                "  {:<40} {:<5} {}\n",
                r.code, r.verdict, r.message
            ));
        }
        for p in loaded.problems().iter().filter(|p| &p.file == f) {
            s.push_str(&format!("  {p}\n"));
        }
    }
    if loaded.invalid() {
        s.push_str(
            "INVALID: every tool call needs your approval until fixed (`airlock policy check`)\n",
        );
    }
    crate::emit(&s)?;
    Ok(ExitCode::SUCCESS)
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && !n.starts_with('.')
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn ledger(paths: &Paths, kind: &str, detail: serde_json::Value, factor: &str) -> Result<()> {
    if paths.level == Level::System || !paths.db.exists() {
        return Ok(());
    }
    let store = paths.open_existing_store()?;
    store.append_ledger(&LedgerEntry {
        ts_ms: clock::now_ms(),
        kind: kind.to_owned(),
        detail,
        actor: "cli".into(),
        factor: factor.to_owned(),
        outcome: "applied".into(),
    })?;
    Ok(())
}

/// `airlock rules install PATH_OR_DIR [--name NAME]`: a file goes to `rules/`, a directory
/// becomes the pack `rules/packs/<name>/` (its `*.cedar` files). Refused when anything in
/// force afterwards would not validate, or when the name is taken (replacing could drop
/// rules: remove first).
pub fn install(src: &Path, name: Option<String>) -> Result<ExitCode> {
    let paths = rule_paths()?;
    let (files, dest_dir, name) = if src.is_dir() {
        let name = match name {
            Some(n) => n,
            None => src
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .context("the pack needs a name (--name)")?,
        };
        let files =
            custom::cedar_files_in(src).with_context(|| format!("listing {}", src.display()))?;
        if files.is_empty() {
            bail!("{} has no *.cedar files", src.display());
        }
        (files, custom::packs_dir(&paths).join(&name), name)
    } else {
        if src.extension().is_none_or(|e| e != custom::EXTENSION) {
            bail!("{} is not a .cedar file", src.display());
        }
        let file_name = src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .context("no file name")?;
        let name = name.unwrap_or(file_name);
        let name = if name.ends_with(".cedar") {
            name
        } else {
            format!("{name}.cedar")
        };
        (vec![src.to_path_buf()], custom::rules_dir(&paths), name)
    };
    if !valid_name(&name) {
        bail!("`{name}` is not a valid name (letters, digits, `_`, `-`, `.`)");
    }
    let target = if src.is_dir() {
        dest_dir.clone()
    } else {
        dest_dir.join(&name)
    };
    if target.exists() {
        bail!(
            "{} is already installed: remove it first (`airlock rules remove {}`)",
            target.display(),
            name.trim_end_matches(".cedar")
        );
    }
    // Validate what would be in force: the installed files plus the new ones.
    let mut all = custom::rule_files(&paths)?;
    all.extend(files.iter().cloned());
    let checked = CustomRules::from_files(&all);
    if checked.invalid() {
        for p in checked.problems() {
            eprintln!("{p}");
        }
        bail!("not installed: the rules do not validate");
    }
    std::fs::create_dir_all(&dest_dir)
        .with_context(|| format!("creating {}", dest_dir.display()))?;
    let mut copied = Vec::new();
    for f in &files {
        let to = if src.is_dir() {
            dest_dir.join(f.file_name().context("no file name")?)
        } else {
            target.clone()
        };
        std::fs::copy(f, &to)
            .with_context(|| format!("copying {} to {}", f.display(), to.display()))?;
        copied.push(to.display().to_string());
    }
    ledger(
        &paths,
        "rules_install",
        serde_json::json!({ "name": name, "files": copied }),
        "none",
    )?;
    crate::emit(&format!(
        "installed {} ({} file(s), {} rule(s) in force)\n",
        name,
        copied.len(),
        CustomRules::load(&paths).rules().count()
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `airlock rules remove NAME`: a pack (`rules/packs/NAME/`) or a rule file
/// (`rules/NAME.cedar`). A weakening: at user level it needs the factor and is ledgered.
pub fn remove(name: &str, f: &FactorArgs) -> Result<ExitCode> {
    let paths = rule_paths()?;
    let bare = name.trim_end_matches(".cedar");
    if !valid_name(bare) {
        bail!("`{name}` is not a valid name");
    }
    let pack = custom::packs_dir(&paths).join(bare);
    let file = custom::rules_dir(&paths).join(format!("{bare}.cedar"));
    let (target, is_pack) = if pack.is_dir() {
        (pack, true)
    } else if file.is_file() {
        (file, false)
    } else {
        bail!("no installed rule file or pack is called `{bare}` (see `airlock rules list`)");
    };
    let detail = serde_json::json!({ "name": bare, "path": target.display().to_string() });
    let factor = if paths.level == Level::User && paths.db.exists() {
        let store = paths.open_existing_store()?;
        cmd::require_factor(&store, f, "rules_remove", &detail)?
    } else {
        "none"
    };
    if is_pack {
        std::fs::remove_dir_all(&target)
    } else {
        std::fs::remove_file(&target)
    }
    .with_context(|| format!("removing {}", target.display()))?;
    ledger(&paths, "rules_remove", detail, factor)?;
    crate::emit(&format!("removed {}\n", target.display()))?;
    Ok(ExitCode::SUCCESS)
}
