//! Serving a folder over the network.
//!
//! **What it does:** a one-line web server (`python3 -m http.server`, `ruby -run -e httpd`,
//! `php -S`, `npx http-server`/`serve`, `busybox httpd`, `twistd web`) whose root is the home
//! folder, the file-system root, or a folder of secrets is BLOCK (AUTH in light); any such
//! server listening on all interfaces is AUTH in strict and paranoid.
//! **Why:** anyone who can reach the port can then download `~/.ssh` and `.env` — an
//! exfiltration that needs no outbound connection.
//! **Example:** `cd ~ && python3 -m http.server 8000` → `serve_secrets`.

use crate::paths;
use crate::shell::Invocation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const SERVE_SECRETS: Reason = Reason::new(
    "serve_secrets",
    "Serves the home folder, the root or a folder of secrets over the network.",
);
pub const SERVE_FOLDER: Reason = Reason::new(
    "serve_folder",
    "Serves a folder to the network on all interfaces.",
);

/// (root folder as written, bound to loopback only) for a folder-serving invocation.
fn served(inv: &Invocation) -> Option<(String, bool)> {
    let args: Vec<&str> = inv.argv().collect();
    let value = |names: &[&str]| -> Option<String> {
        args.iter().enumerate().find_map(|(i, a)| {
            if names.contains(a) {
                args.get(i + 1).map(|v| (*v).to_owned())
            } else {
                names
                    .iter()
                    .find_map(|n| a.strip_prefix(&format!("{n}=")).map(str::to_owned))
            }
        })
    };
    let loopback = |b: Option<String>| {
        b.is_some_and(|b| b.starts_with("127.") || b == "localhost" || b == "::1")
    };
    let p = inv.program.as_str();
    let py = p.starts_with("python");
    if py
        && args
            .windows(2)
            .any(|w| matches!(w, ["-m", "http.server" | "SimpleHTTPServer"]))
    {
        let dir = value(&["--directory", "-d"]).unwrap_or_else(|| ".".into());
        return Some((dir, loopback(value(&["--bind", "-b"]))));
    }
    if p == "ruby" && args.iter().any(|a| *a == "-run" || *a == "-rrun") && args.contains(&"httpd")
    {
        let pos = args.iter().position(|a| *a == "httpd").unwrap_or(0);
        let dir = args
            .iter()
            .skip(pos + 1)
            .find(|a| !a.starts_with('-') && a.parse::<u16>().is_err())
            .map(|s| (*s).to_owned())
            .unwrap_or_else(|| ".".into());
        return Some((dir, loopback(value(&["--bind-address", "-b"]))));
    }
    if p == "php" && args.contains(&"-S") {
        let addr = value(&["-S"]);
        let dir = value(&["-t"]).unwrap_or_else(|| ".".into());
        return Some((
            dir,
            loopback(addr.map(|a| a.split(':').next().unwrap_or("").to_owned())),
        ));
    }
    if matches!(p, "http-server" | "serve") {
        let dir = inv
            .operands()
            .first()
            .map(|w| w.text.clone())
            .unwrap_or_else(|| ".".into());
        return Some((dir, loopback(value(&["-a", "--listen", "-l"]))));
    }
    if p == "busybox" && args.first() == Some(&"httpd") || p == "httpd" && args.contains(&"-h") {
        let dir = value(&["-h"]).unwrap_or_else(|| ".".into());
        return Some((dir, false));
    }
    if p == "twistd" && args.contains(&"web") {
        let dir = value(&["--path"]).unwrap_or_else(|| ".".into());
        return Some((dir, false));
    }
    // `git daemon --export-all --base-path=~ ~`: every repository under the base, to anyone
    // on the port.
    if p == "git" && args.first() == Some(&"daemon") {
        let dir = value(&["--base-path"])
            .or_else(|| inv.operands().get(1).map(|w| w.text.clone()))
            .unwrap_or_else(|| ".".into());
        return Some((dir, loopback(value(&["--listen"]))));
    }
    // `tailscale funnel PATH` / `tailscale serve PATH`: the folder on a public address.
    if p == "tailscale" && matches!(args.first(), Some(&("funnel" | "serve"))) {
        let dir = inv
            .operands()
            .iter()
            .skip(1)
            .map(|w| w.text.clone())
            .find(|t| t.starts_with(['/', '~', '.']))?;
        return Some((dir, false));
    }
    None
}

/// A Jupyter server listening beyond this machine with its token or password emptied: anyone
/// who reaches the port runs code as the user.
fn open_notebook_server(inv: &crate::shell::Invocation) -> bool {
    let args: Vec<String> = inv.argv().map(str::to_ascii_lowercase).collect();
    let jupyter = matches!(
        inv.program.as_str(),
        "jupyter" | "jupyter-lab" | "jupyter-notebook"
    ) || inv.program.starts_with("jupyter-");
    let public = args.windows(2).any(|w| {
        w.first().is_some_and(|f| f == "--ip")
            && w.get(1)
                .is_some_and(|v| matches!(v.as_str(), "0.0.0.0" | "*" | "::"))
    }) || args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--ip=0.0.0.0" | "--ip=*" | "--ip=::" | "--ip='*'"
        )
    });
    let no_auth = args.iter().any(|a| {
        let a = a.replace(['\'', '"'], "");
        a.ends_with(".token=")
            || a.ends_with(".password=")
            || a.ends_with("disable_check_xsrf=true")
    });
    jupyter && public && no_auth
}

/// Serving secrets (or code execution) to the network: BLOCK from balanced up.
fn serve_secrets_verdict(cx: &Ctx<'_>) -> Verdict {
    cx.mode().pick([
        Verdict::Auth,
        Verdict::Block,
        Verdict::Block,
        Verdict::Block,
    ])
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    // A cluster port (a database) forwarded to every interface of this machine.
    if sa.invocations.iter().any(|i| {
        let a: Vec<&str> = i.argv().collect();
        matches!(i.program.as_str(), "kubectl" | "oc")
            && a.contains(&"port-forward")
            && (a.windows(2).any(|w| {
                w.first() == Some(&"--address")
                    && w.get(1)
                        .is_some_and(|v| v.split(',').any(|x| x == "0.0.0.0" || x == "::"))
            }) || a
                .iter()
                .any(|x| *x == "--address=0.0.0.0" || *x == "--address=::"))
    }) {
        out.push(Finding::new(SERVE_FOLDER, Verdict::Auth));
    }
    if sa.invocations.iter().any(open_notebook_server) {
        out.push(Finding::new(SERVE_SECRETS, serve_secrets_verdict(cx)));
    }
    let home = cx.home();
    for inv in &sa.invocations {
        let Some((dir, loopback)) = served(inv) else {
            continue;
        };
        let cwd = inv.cwd.as_deref().or(cx.cwd());
        let root = paths::normalize(&dir, cwd, home);
        let is_home = paths::home_relative(&root, home).is_some_and(|r| r.is_empty());
        let above_home = matches!(root.as_str(), "/" | "/home" | "/Users" | "/root");
        let secret = paths::secret_kind(&root, home).is_some()
            || paths::home_relative(&root, home).is_some_and(|r| {
                [".ssh", ".aws", ".gnupg", ".config", ".kube", ".docker"]
                    .iter()
                    .any(|s| r == *s || r.starts_with(&format!("{s}/")))
            });
        // A link the session made inside the served folder to a key, a credentials file or
        // a folder of them (`ln -s ~/.ssh static/keys`): the server follows it.
        let inside = |p: &str| p.starts_with(&format!("{}/", root.trim_end_matches('/')));
        let linked_secret = cx
            .session
            .symlinks
            .iter()
            .chain(sa.links.iter().map(|(l, t)| (l, t)))
            .any(|(link, target)| {
                inside(link)
                    && (super::secret_access::secret_of_read(target, true, home).is_some()
                        || paths::home_relative(target, home).is_some_and(|r| r.is_empty()))
            })
            || cx.session.secret_files.iter().any(|f| inside(f));
        if is_home || above_home || secret || linked_secret {
            out.push(Finding::new(SERVE_SECRETS, serve_secrets_verdict(cx)));
        } else if !loopback {
            out.push(Finding::new(
                SERVE_FOLDER,
                cx.mode()
                    .pick([Verdict::Pass, Verdict::Pass, Verdict::Auth, Verdict::Auth]),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn notebook_servers_open_to_anyone() {
        table(
            Mode::Balanced,
            &[
                (
                    "jupyter lab --ip=0.0.0.0 --port=8888 --no-browser --ServerApp.token='' --ServerApp.password='' --allow-root &",
                    Block,
                    "",
                ),
                ("jupyter lab --no-browser", Pass, ""),
                (
                    "kubectl -n prod port-forward svc/postgres 5432:5432 --address 0.0.0.0",
                    Auth,
                    "serve_folder",
                ),
                (
                    "kubectl -n dev port-forward svc/postgres 5432:5432",
                    Pass,
                    "",
                ),
                ("jupyter lab --ip=0.0.0.0 --no-browser", Pass, ""),
                (
                    "jupyter notebook --ServerApp.token='' --port 8888",
                    Pass,
                    "",
                ),
            ],
        );
    }

    #[test]
    fn serve_table() {
        table(
            Mode::Balanced,
            &[
                (
                    "python3 -m http.server 8000 --bind 0.0.0.0 --directory ~",
                    Block,
                    "serve_secrets",
                ),
                ("cd ~ && python3 -m http.server", Block, "serve_secrets"),
                (
                    "cd ~ && ruby -run -e httpd . -p 9090",
                    Block,
                    "serve_secrets",
                ),
                ("php -S 0.0.0.0:8080 -t /home/dev", Block, "serve_secrets"),
                (
                    "python3 -m http.server -d ~/.ssh 9000",
                    Block,
                    "serve_secrets",
                ),
                (
                    "git daemon --reuseaddr --base-path=/home/dev --export-all --listen=0.0.0.0 --detach /home/dev",
                    Block,
                    "serve_secrets",
                ),
                ("tailscale funnel --bg /home/dev", Block, "serve_secrets"),
                // Benign look-alikes.
                ("tailscale funnel 3000", Pass, ""),
                ("tailscale status", Pass, ""),
                ("python3 -m http.server 8000", Pass, ""),
                ("python3 -m http.server --directory dist 5173", Pass, ""),
                ("php -S localhost:8000 -t public", Pass, ""),
                ("python3 -m pytest", Pass, ""),
            ],
        );
    }
}
