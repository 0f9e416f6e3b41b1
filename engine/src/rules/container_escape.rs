//! Containers that are given the host.
//!
//! **What it does:** `docker`/`podman`/`nerdctl` `run`, `create` and `exec` are judged by what
//! they hand the container from this machine. Mounting the host's root folder, or combining
//! full privileges with the host's process namespace (the `nsenter -t 1` escape), is
//! `container_host_root`: `[AUTH, BLOCK, BLOCK, BLOCK]` by mode `[light, balanced, strict,
//! paranoid]`. Handing over part of the host is `container_host_access`, AUTH: `--privileged`,
//! `--pid=host`, `--userns=host`, `--cap-add` of `SYS_ADMIN`/`ALL`/`SYS_PTRACE`/`SYS_MODULE`,
//! a disabled seccomp/AppArmor profile, the Docker socket, and bind mounts of system folders
//! (`/etc`, `/root`, `/proc`, `/sys`, `/dev`, `/boot`, `/var/run`, `/var/lib/docker`, `/home`),
//! the home folder itself or a secret place in it (`~/.ssh`, `~/.aws`, `~/.kube`, …).
//! Mounting the project (`-v "$PWD":/src`), a cache folder or a named volume is not flagged.
//! **Why:** the container runs as root; whatever host path it gets, it can read and rewrite
//! (`chroot /host`, `/etc/shadow`, `authorized_keys`), and the Docker socket or privileged mode
//! give it the whole machine — a sandbox escape the shell rules cannot see through.
//! **Example:** `docker run --rm -v /:/host alpine chroot /host sh` → `container_host_root`.

use crate::paths;
use crate::shell::Invocation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;
use super::secret_access::secret_of_read;

pub const CONTAINER_HOST_ROOT: Reason = Reason::new(
    "container_host_root",
    "Runs a container that gets this machine's root folder or its processes with full privileges.",
);
pub const CONTAINER_HOST_ACCESS: Reason = Reason::new(
    "container_host_access",
    "Runs a container with privileges, the Docker socket or sensitive folders of this machine.",
);

/// Host folders whose mount hands the container part of the system.
const SYSTEM_DIRS: &[&str] = &[
    "/etc",
    "/root",
    "/proc",
    "/sys",
    "/dev",
    "/boot",
    "/var/run",
    "/run",
    "/var/lib/docker",
    "/var/lib/kubelet",
    "/home",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
];

/// Options of `docker run` that take a separate value (so the value is not the image).
const VALUE_OPTS: &[&str] = &[
    "-v",
    "--volume",
    "--mount",
    "--pid",
    "--userns",
    "--cap-add",
    "--security-opt",
    "--ipc",
    "--uts",
    "--cgroupns",
    "--volumes-from",
    "--device",
    // Options that take a value and grant nothing: skipped with it, so the value is not read
    // as the image (`--name x --privileged …` still reaches `--privileged`).
    "--name",
    "-e",
    "--env",
    "--env-file",
    "-p",
    "--publish",
    "--network",
    "--net",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--entrypoint",
    "-l",
    "--label",
    "--hostname",
    "-h",
    "--restart",
    "--platform",
    "-m",
    "--memory",
    "--cpus",
    "--log-driver",
    "--log-opt",
    "--add-host",
    "--dns",
    "--pull",
    "--gpus",
    "--shm-size",
    "--ulimit",
    "--tmpfs",
    "--cap-drop",
    "--group-add",
    "--runtime",
    "--stop-signal",
    "--health-cmd",
];

#[derive(Debug, Default, PartialEq, Eq)]
struct Grant {
    root: bool,
    access: bool,
}

/// The host side of a `-v` / `--volume` value (`HOST:CONTAINER[:opts]`), when it is a path.
fn volume_host(v: &str) -> Option<&str> {
    let host = v.split(':').next().unwrap_or("");
    host.starts_with(['/', '~', '.']).then_some(host)
}

/// The host side of a `--mount type=bind,source=…` value.
fn mount_host(v: &str) -> Option<&str> {
    let mut bind = false;
    let mut src = None;
    for kv in v.split(',') {
        match kv.split_once('=') {
            Some(("type", t)) => bind = t == "bind",
            Some(("source" | "src", s)) => src = Some(s),
            _ => {}
        }
    }
    src.filter(|s| bind || s.starts_with('/'))
}

fn judge_path(host: &str, cx: &Ctx<'_>, inv: &Invocation, g: &mut Grant) {
    judge_host_path(host, inv.cwd.as_deref().or(cx.cwd()), cx, g, true);
}

/// `system`: system folders count (a command line); a spec file's `/etc/localtime` and
/// Docker socket mounts are judged by `weakens_security` instead.
fn judge_host_path(host: &str, cwd: Option<&str>, cx: &Ctx<'_>, g: &mut Grant, system: bool) {
    let abs = paths::normalize(host, cwd, cx.home());
    let abs = abs.trim_end_matches('/');
    if abs.is_empty() {
        g.root = true;
        return;
    }
    let system_counts = system;
    let system = SYSTEM_DIRS
        .iter()
        .any(|d| abs == *d || abs.starts_with(&format!("{d}/")));
    let docker_sock = abs.ends_with("/docker.sock") || abs.ends_with("/containerd.sock");
    // Any home folder (this user's, or the conventional `/home/<u>`, `/Users/<u>`), so the
    // rule does not depend on which user judges the call.
    let rel = paths::home_relative(abs, cx.home());
    let home_itself = rel == Some("");
    let in_home = rel.is_some_and(|r| !r.is_empty());
    let secret = secret_of_read(abs, true, cx.home()).is_some();
    // A project or cache folder inside the home folder is ordinary; `/home` itself is not.
    let system = system && (!in_home || secret) && system_counts;
    let docker_sock = docker_sock && system_counts;
    if system || docker_sock || home_itself || secret {
        g.access = true;
    }
}

/// `kubectl run … --overrides='{"spec":{"hostPID":true,…"privileged":true…}}'`: a pod given
/// the node.
fn kubectl_overrides(inv: &Invocation) -> Option<Grant> {
    if !matches!(inv.program.as_str(), "kubectl" | "oc") || !inv.argv().any(|a| a == "run") {
        return None;
    }
    let args: Vec<&str> = inv.argv().collect();
    let json = args
        .windows(2)
        .find(|w| w.first() == Some(&"--overrides"))
        .and_then(|w| w.get(1).copied())
        .or_else(|| args.iter().find_map(|a| a.strip_prefix("--overrides=")))?;
    let compact: String = json.chars().filter(|c| !c.is_whitespace()).collect();
    let privileged = compact.contains("\"privileged\":true");
    let host_ns = [
        "\"hostPID\":true",
        "\"hostNetwork\":true",
        "\"hostIPC\":true",
    ]
    .iter()
    .any(|k| compact.contains(k));
    let host_path = compact.contains("\"hostPath\"");
    Some(Grant {
        root: privileged && (host_ns || host_path),
        access: privileged || host_ns || host_path,
    })
}

fn grants(cx: &Ctx<'_>, inv: &Invocation) -> Option<Grant> {
    if let Some(g) = kubectl_overrides(inv) {
        return Some(g);
    }
    if !matches!(inv.program.as_str(), "docker" | "podman" | "nerdctl") {
        return None;
    }
    let args: Vec<&str> = inv.argv().collect();
    // `docker run`, `docker container run`, `docker create`, `docker exec`.
    let mut sub_at = None;
    let mut j = 0;
    while let Some(a) = args.get(j).copied() {
        if matches!(
            a,
            "-H" | "--host" | "--context" | "-c" | "--config" | "-l" | "--log-level"
        ) {
            j += 2;
            continue;
        }
        if a.starts_with('-') || a == "container" {
            j += 1;
            continue;
        }
        if matches!(a, "run" | "create" | "exec") {
            sub_at = Some(j);
        }
        break;
    }
    let sub_at = sub_at?;
    let mut g = Grant::default();
    let mut privileged = false;
    let mut host_pid = false;
    let mut i = sub_at + 1;
    while let Some(a) = args.get(i).copied() {
        if !a.starts_with('-') {
            // The image: everything after it belongs to the container's command.
            break;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if a.starts_with("--") => (f, Some(v)),
            _ => (a, None),
        };
        let value = if VALUE_OPTS.contains(&flag) && inline.is_none() {
            i += 1;
            args.get(i).copied()
        } else {
            inline
        };
        let v = value.unwrap_or("");
        match flag {
            "-v" | "--volume" => {
                if let Some(h) = volume_host(v) {
                    judge_path(h, cx, inv, &mut g);
                }
            }
            "--mount" => {
                if let Some(h) = mount_host(v) {
                    judge_path(h, cx, inv, &mut g);
                }
            }
            "--privileged" if !matches!(v, "false" | "0") => {
                privileged = true;
                g.access = true;
            }
            "--pid" if v == "host" => {
                host_pid = true;
                g.access = true;
            }
            "--userns" | "--uts" | "--ipc" | "--cgroupns" if v == "host" => g.access = true,
            "--cap-add" => {
                let c = v.to_ascii_uppercase();
                let c = c.trim_start_matches("CAP_");
                if matches!(
                    c,
                    "ALL"
                        | "SYS_ADMIN"
                        | "SYS_PTRACE"
                        | "SYS_MODULE"
                        | "DAC_READ_SEARCH"
                        | "SYS_RAWIO"
                ) {
                    g.access = true;
                }
            }
            "--security-opt" => {
                let l = v.to_ascii_lowercase();
                if l.ends_with("=unconfined") || l.ends_with(":unconfined") {
                    g.access = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if privileged && host_pid {
        g.root = true;
    }
    (g.root || g.access).then_some(g)
}

/// Compose files and Kubernetes manifests: where the same mounts are written down.
fn is_container_spec(lower_path: &str) -> bool {
    let base = paths::basename(lower_path);
    let yaml = base.ends_with(".yml") || base.ends_with(".yaml");
    yaml && (base.starts_with("docker-compose")
        || base.starts_with("compose.")
        || base.starts_with("compose-")
        || [
            "/k8s/",
            "/kubernetes/",
            "/manifests/",
            "/deploy/",
            "/charts/",
            "/helm/",
            "/kustomize/",
            "/overlays/",
            "/base/",
        ]
        .iter()
        .any(|d| lower_path.contains(d)))
}

/// The host folders a write adds as container mounts: a Compose volume (`-
/// ${HOME}/.ssh:/root/.ssh:ro`, `source: ~/.aws`) or a Kubernetes `hostPath` (`path:` on
/// the line after `hostPath:`). `${HOME}` and `$HOME` are the home folder.
fn spec_mounts(cx: &Ctx<'_>, content: &str) -> Vec<String> {
    let added = super::verification_bypass::added_lines(cx, content);
    let mut out = Vec::new();
    let home_var = |p: &str| {
        p.replace("${HOME}", "~")
            .replace("$HOME", "~")
            .replace("${USERPROFILE}", "~")
    };
    let mut after_host_path = false;
    for line in &added {
        let t = line.trim().trim_start_matches("- ").trim();
        let unq = |v: &str| v.trim().trim_matches(['"', '\'']).to_owned();
        if let Some(v) = t.strip_prefix("path:") {
            if after_host_path {
                out.push(home_var(&unq(v)));
            }
        } else if let Some(v) = t.strip_prefix("source:") {
            out.push(home_var(&unq(v)));
        } else if let Some(v) = t.strip_prefix("hostPath:") {
            // `hostPath: {path: /x}` on one line.
            if let Some(i) = v.find("path:") {
                out.push(home_var(&unq(v[i + 5..].trim_end_matches('}'))));
            }
        } else {
            let v = unq(t);
            if v.contains(':') && v.starts_with(['/', '~', '$']) {
                out.push(home_var(v.split(':').next().unwrap_or("")));
            }
        }
        after_host_path = t.starts_with("hostPath:") || (after_host_path && !t.contains(':'));
    }
    out.retain(|p| p.starts_with(['/', '~']));
    out
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if let crate::action::Operation::FileWrite { path, content } = &cx.action.op {
        let lower = paths::normalize(path, cx.cwd(), cx.home()).to_ascii_lowercase();
        if is_container_spec(&lower) && !crate::code::is_test_or_dev(&lower) {
            let mut g = Grant::default();
            for host in spec_mounts(cx, content) {
                judge_host_path(&host, cx.cwd(), cx, &mut g, false);
            }
            if g.access || g.root {
                out.push(Finding::new(CONTAINER_HOST_ACCESS, Verdict::Auth));
            }
        }
    }
    let Some(sa) = cx.shell else {
        return;
    };
    for inv in &sa.invocations {
        let Some(g) = grants(cx, inv) else {
            continue;
        };
        if g.root {
            out.push(Finding::new(
                CONTAINER_HOST_ROOT,
                cx.mode().pick([
                    Verdict::Auth,
                    Verdict::Block,
                    Verdict::Block,
                    Verdict::Block,
                ]),
            ));
        } else {
            out.push(Finding::new(CONTAINER_HOST_ACCESS, Verdict::Auth));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn compose_and_manifest_mounts_of_home_secrets() {
        crate::rules::testutil::edit_table(&[
            (
                "docker-compose.yml",
                "  sync:\n    image: x\n",
                "  sync:\n    image: x\n    volumes:\n      - ${HOME}/.ssh:/root/.ssh:ro\n",
                Auth,
            ),
            (
                "docker-compose.yml",
                "  web:\n    image: x\n",
                "  web:\n    image: x\n    volumes:\n      - ./src:/app/src\n      - /etc/localtime:/etc/localtime:ro\n",
                Pass,
            ),
            (
                "k8s/dev/toolbox.yaml",
                "      volumes:\n",
                "      volumes:\n        - name: kube\n          hostPath:\n            path: /home/dev/.kube\n",
                Auth,
            ),
            (
                "k8s/dev/toolbox.yaml",
                "      volumes:\n",
                "      volumes:\n        - name: logs\n          hostPath:\n            path: /var/log/app\n",
                Pass,
            ),
        ]);
    }

    #[test]
    fn options_with_values_do_not_hide_the_grants_after_them() {
        crate::rules::testutil::table(
            crate::policy::Mode::Balanced,
            &[
                (
                    "docker run -d --restart=always --name node-exporter --privileged --pid=host -v /:/host registry.tools-helper.example/monitoring/node-exporter:latest",
                    crate::Verdict::Block,
                    "container_host_root",
                ),
                (
                    "docker run --rm -e MODE=x -p 8080:80 --name web -v /var/run/docker.sock:/var/run/docker.sock alpine",
                    crate::Verdict::Auth,
                    "container_host_access",
                ),
                (
                    "docker run --rm --name web -p 8080:80 -e NODE_ENV=dev -v $(pwd):/app node:20 npm start",
                    crate::Verdict::Pass,
                    "",
                ),
            ],
        );
    }

    #[test]
    fn container_table() {
        table(
            Mode::Balanced,
            &[
                (
                    "docker run --rm -v /:/host alpine chroot /host sh",
                    Block,
                    "container_host_root",
                ),
                (
                    "podman run -it --volume=/:/mnt:ro fedora bash",
                    Block,
                    "container_host_root",
                ),
                (
                    "docker run --mount type=bind,source=/,target=/h busybox ls /h",
                    Block,
                    "container_host_root",
                ),
                (
                    "docker run --privileged --pid=host -it alpine nsenter -t 1 -m -u -n -i sh",
                    Block,
                    "container_host_root",
                ),
                (
                    "docker run -v /var/run/docker.sock:/var/run/docker.sock docker:cli ps",
                    Auth,
                    "container_host_access",
                ),
                (
                    "docker run --privileged -d docker:dind",
                    Auth,
                    "container_host_access",
                ),
                (
                    "docker run -v /etc:/host-etc alpine cat /host-etc/passwd",
                    Auth,
                    "container_host_access",
                ),
                (
                    "docker run -v ~/.ssh:/root/.ssh alpine ls /root/.ssh",
                    Auth,
                    "container_host_access",
                ),
                (
                    "docker run -v $HOME:/h alpine ls /h",
                    Auth,
                    "container_host_access",
                ),
                (
                    "docker run --cap-add=SYS_ADMIN --security-opt apparmor=unconfined ubuntu mount",
                    Auth,
                    "container_host_access",
                ),
                (
                    "nerdctl run --pid host alpine ps",
                    Auth,
                    "container_host_access",
                ),
                // Benign look-alikes.
                (
                    "docker run --rm -v \"$PWD\":/src -w /src golang:1.22 go test ./...",
                    Pass,
                    "",
                ),
                ("docker run --rm -v .:/app node:20 npm test", Pass, ""),
                (
                    "docker run --rm -v /home/dev/project:/app python:3.12 pytest",
                    Pass,
                    "",
                ),
                (
                    "docker run -v pgdata:/var/lib/postgresql/data -d postgres:16",
                    Pass,
                    "",
                ),
                (
                    "docker run --rm -v ~/.cache/pip:/root/.cache/pip python:3.12 pip --version",
                    Pass,
                    "",
                ),
                (
                    "docker run --rm --network host curlimages/curl -s http://localhost:8080",
                    Pass,
                    "",
                ),
                ("docker run --rm alpine ls /", Pass, ""),
                ("docker run --rm alpine sh -c 'echo -v /:/host'", Pass, ""),
                ("docker ps -a", Pass, ""),
                ("docker volume inspect pgdata", Pass, ""),
                ("docker exec -it web sh -c 'ls /app'", Pass, ""),
            ],
        );
    }
}
