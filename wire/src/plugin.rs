//! OpenCode: its hook API is an in-process JS/TS plugin, not a command (see `airlock-hooks`
//! `hosts/opencode.rs` for the contract, <https://opencode.ai/docs/plugins>). Airlock writes
//! one plugin file of its own, `~/.config/opencode/plugins/airlock.js` (OpenCode loads every
//! `*.js`/`*.ts` in `{plugin,plugins}/` of its config directory at startup), whose
//! `tool.execute.before` runs `airlock-hook opencode` (or `airlock hook opencode`) with the
//! call on stdin and **throws** — which stops the call — unless the hook exits 0 with a JSON
//! object that is not a block. It fails closed: a hook that cannot start, dies, or prints
//! anything else throws too.
//!
//! The module's only export is its default: the plugin function, carrying `id` and `server`
//! (itself), so it loads as OpenCode 1.x's `{id, server}` plugin module, as a legacy plugin
//! function, and under the older loaders that call every export.
//!
//! Like Cline's hook files (`scripts`), a file of that name that is not Airlock's is never
//! replaced, an Airlock file for another binary is replaced (old bytes kept as a backup), and
//! unwire removes only Airlock's file for this binary.

use std::path::{Path, PathBuf};

use crate::hosts::{HOOK_BIN, Ours};
use crate::json::{Json, render};
use crate::{WireError, WireOptions, WireReport, fsops};

/// The line that marks the plugin file as Airlock's.
pub(crate) const MARKER: &str = "// airlock-managed plugin: `airlock unwire opencode` removes it.";

/// `~/.config/opencode/plugins/airlock.js`.
pub(crate) fn path(home: &Path) -> PathBuf {
    home.join(".config")
        .join("opencode")
        .join("plugins")
        .join("airlock.js")
}

/// The argv the plugin spawns: the small hook binary when it is installed next to `airlock`.
fn argv(airlock_bin: &str, use_hook_bin: bool) -> Vec<String> {
    match (use_hook_bin, airlock_bin.rsplit_once('/')) {
        (true, Some((dir, _))) => vec![format!("{dir}/{HOOK_BIN}"), "opencode".into()],
        _ => vec![airlock_bin.to_owned(), "hook".into(), "opencode".into()],
    }
}

/// The plugin's text for this binary.
pub(crate) fn text(airlock_bin: &str, use_hook_bin: bool, ours: &Ours) -> String {
    let argv = Json::Array(
        argv(airlock_bin, use_hook_bin)
            .iter()
            .map(|a| Json::str(a))
            .collect(),
    );
    // A JSON array of strings is a valid JS array literal; on one line.
    let argv = render(&argv)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let argv = argv.trim_end_matches('\n');
    format!(
        "{MARKER}\n// runs: {command}\n{BODY_HEAD}const HOOK = {argv};\n{BODY}",
        command = ours.command,
    )
}

const BODY_HEAD: &str = "\
// Airlock judges every tool call before it runs. OpenCode stops a call when a plugin's
// tool.execute.before throws (https://opencode.ai/docs/plugins): this one throws unless the
// hook answers a plain pass, and also when it cannot get an answer at all (fail closed).
import { spawn } from \"node:child_process\";

";

const BODY: &str = r#"const LIMIT_MS = 600000;
const pending = new Map();

function ask(payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(HOOK[0], HOOK.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({ ok: false, reason: "Blocked by Airlock: its hook could not be started." });
      return;
    }
    let out = "";
    let err = "";
    let done = false;
    const finish = (r) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ ok: false, reason: "Blocked by Airlock: its hook did not answer in time." });
    }, LIMIT_MS);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { if (err.length < 4096) err += d; });
    child.on("error", () => finish({ ok: false, reason: "Blocked by Airlock: its hook could not be started." }));
    child.on("close", (code) => {
      let answer = null;
      try { answer = JSON.parse(out); } catch (e) { answer = null; }
      if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
        finish({ ok: false, reason: err.trim() || "Blocked by Airlock: its hook gave no answer." });
        return;
      }
      const reason = typeof answer.reason === "string" ? answer.reason : err.trim();
      finish({ ok: code === 0 && answer.block !== true, answer, reason: reason || "Blocked by Airlock." });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

async function AirlockPlugin(ctx) {
  const cwd = ctx && typeof ctx.directory === "string" ? ctx.directory : process.cwd();
  return {
    "tool.execute.before": async (input, output) => {
      const args = output && output.args !== undefined ? output.args : {};
      const r = await ask({
        airlock_opencode: 1,
        hook_event_name: "tool.execute.before",
        tool: input && input.tool,
        sessionID: input && input.sessionID,
        callID: input && input.callID,
        args,
        cwd,
      });
      if (!r.ok) throw new Error(r.reason);
      if (input && input.callID !== undefined) {
        if (pending.size > 256) pending.clear();
        pending.set(input.callID, args);
      }
    },
    "tool.execute.after": async (input, output) => {
      const id = input && input.callID;
      const args = input && input.args !== undefined ? input.args : pending.get(id);
      pending.delete(id);
      const r = await ask({
        airlock_opencode: 1,
        hook_event_name: "tool.execute.after",
        tool: input && input.tool,
        sessionID: input && input.sessionID,
        callID: id,
        args: args === undefined ? {} : args,
        cwd,
        output: output && typeof output.output === "string" ? output.output : "",
      });
      if (r.ok && r.answer && typeof r.answer.note === "string" && output) {
        output.output = r.answer.replace === true
          ? r.answer.note
          : `${typeof output.output === "string" ? output.output : ""}\n\n${r.answer.note}`;
      }
    },
  };
}

AirlockPlugin.id = "airlock";
AirlockPlugin.server = AirlockPlugin;

export default AirlockPlugin;
"#;

fn is_ours_any(text: &str) -> bool {
    text.lines().any(|l| l == MARKER)
}

fn is_ours(text: &str, ours: &Ours) -> bool {
    is_ours_any(text)
        && text
            .lines()
            .filter_map(|l| l.strip_prefix("// runs: "))
            .any(|l| ours.matches(l))
}

pub(crate) fn wire(
    home: &Path,
    airlock_bin: &str,
    use_hook_bin: bool,
    ours: &Ours,
    opts: &WireOptions,
) -> Result<WireReport, WireError> {
    let file = path(home);
    let desired = text(airlock_bin, use_hook_bin, ours);
    let backup = match fsops::read(&file)? {
        Some(current) if current == desired => {
            return Ok(WireReport {
                path: file,
                changed: false,
                backup: None,
            });
        }
        Some(current) if is_ours_any(&current) => Some(current),
        Some(_) => {
            return Err(WireError::Parse {
                path: file,
                message: "it is an OpenCode plugin of your own; Airlock does not replace it \
                          (move it away and wire again)"
                    .into(),
            });
        }
        None => None,
    };
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| WireError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    let backup = match backup {
        Some(old) => Some(fsops::backup(&file, &old, &opts.stamp)?),
        None => None,
    };
    fsops::write_atomic(&file, desired.as_bytes())?;
    Ok(WireReport {
        path: file,
        changed: true,
        backup,
    })
}

pub(crate) fn is_wired(home: &Path, ours: &Ours) -> Result<bool, WireError> {
    Ok(fsops::read(&path(home))?.is_some_and(|t| is_ours(&t, ours)))
}

pub(crate) fn unwire(home: &Path, ours: &Ours) -> Result<WireReport, WireError> {
    let file = path(home);
    match fsops::read(&file)? {
        Some(t) if is_ours(&t, ours) => {
            fsops::remove(&file)?;
            Ok(WireReport {
                path: file,
                changed: true,
                backup: None,
            })
        }
        _ => Err(WireError::NotWired { path: file }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_is_marked_and_spawns_the_binary_without_a_shell() {
        let ours = Ours::new("/opt/My Tools/airlock", "opencode", false);
        let t = text("/opt/My Tools/airlock", false, &ours);
        assert!(is_ours(&t, &ours));
        assert!(t.contains(r#"const HOOK = [ "/opt/My Tools/airlock", "hook", "opencode" ];"#));
        assert!(!is_ours(
            &t,
            &Ours::new("/usr/bin/airlock", "opencode", false)
        ));
        let short = Ours::new("/usr/bin/airlock", "opencode", true);
        let t = text("/usr/bin/airlock", true, &short);
        assert!(t.contains(r#"const HOOK = [ "/usr/bin/airlock-hook", "opencode" ];"#));
        assert!(is_ours(&t, &short));
        assert!(!is_ours_any("export default async () => ({})\n"));
    }
}
