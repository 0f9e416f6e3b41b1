//! Taking the machine itself down: every process killed, core services stopped, the disk
//! filled.
//!
//! **What it does:** AUTH (BLOCK in strict and paranoid, and after untrusted content from
//! balanced up) for
//! - `kill_everything`: a signal sent to every process (`kill -9 -1`, `kill -s KILL -1`,
//!   `killall5`), or `pkill`/`killall -u USER` with no name to narrow it;
//! - `system_service_stopped`: the machine shut down or rebooted (`shutdown`, `reboot`,
//!   `poweroff`, `halt`, `systemctl poweroff`, `init 0`), a core service stopped, disabled or
//!   masked (`ssh`, `NetworkManager`, `systemd-resolved`, `dbus`, `cron`, a display manager…),
//!   any system service disabled or masked, a macOS system daemon booted out or unloaded
//!   (`launchctl bootout system/…`, `launchctl unload /Library/LaunchDaemons/…`);
//! - `system_package_removed`: a package the system runs on removed (`python3`, `libc6`,
//!   `systemd`, `sudo`, `apt`, a kernel…), or every package a wildcard matches
//!   (`apt-get purge 'python3*'`);
//! - `disk_fill`: a file as large as the free space (`fallocate -l $(df …)`), or an endless
//!   stream written to a file (`dd if=/dev/zero of=F` with no `count`, `cat /dev/zero > F`,
//!   `yes > F`).
//!
//! **Why:** none of these is a coding step; each leaves the user with a machine that does not
//! answer, cannot reach the network, or has no room to write.
//! **Look-alikes that pass:** `kill 4242`, `pkill -f "vite dev"`, `pkill -u dev node`, `sudo
//! systemctl restart nginx`, `sudo systemctl stop postgresql` (an application's own database,
//! often in the way of a container), `systemctl --user stop app`, `launchctl bootout
//! gui/501/…` (the user's own agent), `dd if=/dev/zero of=disk.img bs=1M count=64`,
//! `fallocate -l 2G swapfile`.
//! **Example:** `sudo kill -9 -1` → `kill_everything`.

use crate::shell::Invocation;
use crate::verdict::{Finding, Reason, Verdict};

use super::Ctx;

pub const KILL_EVERYTHING: Reason = Reason::new(
    "kill_everything",
    "Sends a signal to every process of the user or the system.",
);
pub const SERVICE_STOPPED: Reason = Reason::new(
    "system_service_stopped",
    "Shuts the machine down, or stops, disables or masks a system service.",
);
pub const SYSTEM_PACKAGE_REMOVED: Reason = Reason::new(
    "system_package_removed",
    "Removes packages the system itself runs on, or every package a wildcard matches.",
);
pub const DISK_FILL: Reason = Reason::new(
    "disk_fill",
    "Writes a file as large as the free space, or an endless stream, filling the disk.",
);

/// Services the machine needs to be reachable and usable.
const CORE_SERVICES: &[&str] = &[
    "ssh",
    "sshd",
    "openssh-server",
    "networkmanager",
    "network-manager",
    "networking",
    "network",
    "systemd-networkd",
    "systemd-resolved",
    "systemd-timesyncd",
    "systemd-journald",
    "systemd-logind",
    "systemd-udevd",
    "dbus",
    "dbus-broker",
    "cron",
    "crond",
    "rsyslog",
    "syslog",
    "polkit",
    "gdm",
    "gdm3",
    "lightdm",
    "sddm",
    "display-manager",
    "wpa_supplicant",
    "bluetooth",
    "avahi-daemon",
    "chronyd",
    "ntpd",
    "unattended-upgrades",
    "snapd",
];

fn args(inv: &Invocation) -> Vec<&str> {
    inv.argv().collect()
}

/// `kill -9 -1`, `kill -s KILL -1`, `kill -- -1`, `killall5`, `pkill -u dev`.
fn kills_everything(inv: &Invocation) -> bool {
    let a = args(inv);
    match inv.program.as_str() {
        "kill" => {
            // The pid list is what follows the options; `-1` there is "every process".
            let mut i = 0;
            let mut operands = Vec::new();
            while let Some(w) = a.get(i) {
                match *w {
                    "-s" | "-n" | "--signal" => i += 2,
                    "--" => {
                        operands.extend(a.get(i + 1..).unwrap_or(&[]).iter().copied());
                        break;
                    }
                    _ if operands.is_empty() && w.starts_with('-') && w != &"-1" => i += 1,
                    // `kill -1 PID` sends SIGHUP to PID: `-1` is a signal when more follows.
                    "-1" if operands.is_empty() && a.len() > i + 1 => i += 1,
                    _ => {
                        operands.push(w);
                        i += 1;
                    }
                }
            }
            operands.contains(&"-1")
        }
        "killall5" => true,
        "pkill" | "killall" => {
            let mut user = false;
            let mut names = 0;
            let mut i = 0;
            while let Some(w) = a.get(i) {
                match *w {
                    "-u" | "-U" | "--user" | "--uid" | "--euid" => {
                        user = true;
                        i += 2;
                        continue;
                    }
                    "-s" | "--signal" | "-g" | "-G" | "-P" | "-t" | "--session" | "--ns" => {
                        i += 2;
                        continue;
                    }
                    _ if w.starts_with('-') => {}
                    _ => names += 1,
                }
                i += 1;
            }
            user && names == 0
        }
        _ => false,
    }
}

fn core_service(name: &str) -> bool {
    let n = name
        .trim_end_matches(".service")
        .trim_end_matches(".socket")
        .to_ascii_lowercase();
    CORE_SERVICES.contains(&n.as_str())
}

/// The machine shut down, a core service stopped, any system service disabled or masked.
fn stops_system(inv: &Invocation) -> bool {
    let a = args(inv);
    match inv.program.as_str() {
        "shutdown" | "poweroff" | "halt" | "reboot" => !a
            .iter()
            .any(|w| matches!(*w, "-c" | "--help" | "--version")),
        "init" | "telinit" => matches!(a.first(), Some(&("0" | "6"))),
        "systemctl" => {
            if a.contains(&"--user") {
                return false;
            }
            let ops: Vec<&str> = a.iter().copied().filter(|w| !w.starts_with('-')).collect();
            match ops.split_first() {
                Some((&("poweroff" | "reboot" | "halt" | "kexec" | "rescue" | "emergency"), _)) => {
                    true
                }
                Some((&("disable" | "mask"), units)) => !units.is_empty(),
                Some((&("stop" | "kill"), units)) => units.iter().any(|u| core_service(u)),
                Some((&"isolate", units)) => units
                    .iter()
                    .any(|u| matches!(*u, "rescue.target" | "emergency.target" | "halt.target")),
                _ => false,
            }
        }
        // `pkill -f 'postgres|nginx|sshd'`, `killall sshd`: a core service's processes
        // killed by name (an alternation names several).
        "pkill" | "killall" => a
            .iter()
            .filter(|w| !w.starts_with('-'))
            .flat_map(|w| w.split('|'))
            .any(|n| core_service(n.trim_matches(['^', '$', '(', ')']))),
        // `service NAME stop`
        "service" => {
            matches!(a.get(1), Some(&"stop")) && a.first().is_some_and(|n| core_service(n))
        }
        "launchctl" => {
            let system = a.iter().any(|w| {
                *w == "system"
                    || w.starts_with("system/")
                    || w.starts_with("/Library/LaunchDaemons/")
                    || w.starts_with("/System/Library/LaunchDaemons/")
            });
            system
                && a.first().is_some_and(|op| {
                    matches!(
                        *op,
                        "bootout" | "unload" | "disable" | "remove" | "kill" | "stop"
                    )
                })
        }
        _ => false,
    }
}

/// A size that is the free space (`$(df …)`, `$(stat -f …)`).
fn free_space_size(w: &str) -> bool {
    w.contains("$(df") || w.contains("`df") || w.contains("$(stat -f")
}

fn fills_disk(inv: &Invocation) -> bool {
    let a = args(inv);
    let raw: Vec<&str> = inv.args.iter().map(|w| w.text.as_str()).collect();
    match inv.program.as_str() {
        "fallocate" | "truncate" | "mkfile" => raw.iter().any(|w| free_space_size(w)),
        "dd" => {
            let endless_source = a
                .iter()
                .any(|w| matches!(*w, "if=/dev/zero" | "if=/dev/urandom" | "if=/dev/random"));
            let to_file = a.iter().any(|w| {
                w.strip_prefix("of=")
                    .is_some_and(|p| !p.starts_with("/dev/"))
            });
            let bounded = a.iter().any(|w| w.starts_with("count="))
                || a.iter().any(|w| w.starts_with("iflag=count_bytes"));
            endless_source && to_file && !bounded
        }
        _ => false,
    }
}

/// `cat /dev/zero > F`, `yes > F`: an endless stream redirected into a file.
fn endless_into_file(cx: &Ctx<'_>) -> bool {
    let Some(sa) = cx.shell else {
        return false;
    };
    sa.invocations.iter().any(|inv| {
        let a = args(inv);
        let endless = match inv.program.as_str() {
            "yes" => true,
            "cat" => a
                .iter()
                .any(|w| matches!(*w, "/dev/zero" | "/dev/urandom" | "/dev/random")),
            _ => false,
        };
        endless
            && inv.redirects.iter().any(|r| {
                matches!(
                    r.kind,
                    crate::shell::RedirectKind::Write | crate::shell::RedirectKind::Append
                ) && !r.target.text.starts_with("/dev/")
            })
    })
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(sa) = cx.shell else {
        return;
    };
    let by = if cx.untrusted() {
        [
            Verdict::Auth,
            Verdict::Block,
            Verdict::Block,
            Verdict::Block,
        ]
    } else {
        [Verdict::Auth, Verdict::Auth, Verdict::Block, Verdict::Block]
    };
    if sa.invocations.iter().any(kills_everything) {
        out.push(Finding::new(KILL_EVERYTHING, cx.mode().pick(by)));
    }
    if sa.invocations.iter().any(stops_system) {
        out.push(Finding::new(SERVICE_STOPPED, cx.mode().pick(by)));
    }
    if sa.invocations.iter().any(removes_system_packages) {
        out.push(Finding::new(SYSTEM_PACKAGE_REMOVED, cx.mode().pick(by)));
    }
    if sa.invocations.iter().any(fills_disk) || endless_into_file(cx) {
        out.push(Finding::new(DISK_FILL, cx.mode().pick(by)));
    }
}

/// Packages the system itself (its package manager, login, shell, network, init, C and
/// Python runtimes its own tools use) cannot lose.
const SYSTEM_PACKAGES: &[&str] = &[
    "python3",
    "python3-minimal",
    "libpython3-stdlib",
    "python",
    "perl",
    "perl-base",
    "libc6",
    "libc-bin",
    "glibc",
    "systemd",
    "systemd-sysv",
    "init",
    "bash",
    "dash",
    "coreutils",
    "util-linux",
    "sudo",
    "apt",
    "dpkg",
    "rpm",
    "dnf",
    "yum",
    "pacman",
    "openssh-server",
    "openssh",
    "network-manager",
    "networkmanager",
    "netplan.io",
    "grub-pc",
    "grub2",
    "linux-image-generic",
    "kernel",
    "login",
    "passwd",
    "base-files",
    "ca-certificates",
];

/// `apt-get purge -y 'python3*'`, `dnf remove python3`, `pacman -R systemd`: a system package,
/// a kernel, or a wildcard removed. A named application (`apt remove nodejs`) is not counted.
fn removes_system_packages(inv: &Invocation) -> bool {
    let args: Vec<&str> = inv.argv().collect();
    let first = args.iter().copied().find(|a| !a.starts_with('-'));
    let removing = match inv.program.as_str() {
        "apt" | "apt-get" | "aptitude" => matches!(first, Some("remove" | "purge" | "autoremove")),
        "dnf" | "yum" | "zypper" => matches!(first, Some("remove" | "erase" | "rm")),
        "pacman" => {
            args.iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('R'))
                || args.contains(&"--remove")
        }
        "dpkg" => args
            .iter()
            .any(|a| matches!(*a, "-r" | "-P" | "--remove" | "--purge")),
        "rpm" => args.iter().any(|a| matches!(*a, "-e" | "--erase")),
        _ => false,
    };
    // After the subcommand for the front ends; every operand for pacman, dpkg and rpm.
    let subcommand = usize::from(matches!(
        inv.program.as_str(),
        "apt" | "apt-get" | "aptitude" | "dnf" | "yum" | "zypper"
    ));
    removing
        && args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .skip(subcommand)
            .any(|p| {
                let p = p.to_ascii_lowercase();
                let name = p.split([':', '=']).next().unwrap_or(&p);
                SYSTEM_PACKAGES.contains(&name)
                    || name.starts_with("linux-image")
                    || name.contains(['*', '?'])
                    || (name.starts_with('^') || name.ends_with('$'))
            })
}

#[cfg(test)]
mod tests {
    use crate::Verdict::*;
    use crate::policy::Mode;
    use crate::rules::testutil::table;

    #[test]
    fn system_disruption_table() {
        table(
            Mode::Balanced,
            &[
                ("sudo kill -9 -1", Auth, "kill_everything"),
                (
                    "sudo apt-get purge -y 'python3*'",
                    Auth,
                    "system_package_removed",
                ),
                ("sudo apt remove -y python3", Auth, "system_package_removed"),
                ("sudo dnf remove -y systemd", Auth, "system_package_removed"),
                ("sudo pacman -Rns linux", Pass, ""),
                ("sudo pacman -Rns glibc", Auth, "system_package_removed"),
                ("sudo dpkg --purge libc6", Auth, "system_package_removed"),
                ("sudo apt-get remove -y nodejs", Pass, ""),
                ("sudo apt-get purge -y php8.1-fpm", Pass, ""),
                ("sudo apt-get autoremove -y", Pass, ""),
                ("sudo apt-get install -y python3-pip", Pass, ""),
                ("kill -KILL -1", Auth, "kill_everything"),
                ("kill -s KILL -1", Auth, "kill_everything"),
                ("kill -- -1", Auth, "kill_everything"),
                ("killall5 -9", Auth, "kill_everything"),
                ("pkill -9 -u dev", Auth, "kill_everything"),
                ("killall -u \"$USER\"", Auth, "kill_everything"),
                ("sudo shutdown -h now", Auth, "system_service_stopped"),
                (
                    "sudo pkill -9 -f 'postgres|nginx|sshd'",
                    Auth,
                    "system_service_stopped",
                ),
                (
                    "sudo killall NetworkManager",
                    Auth,
                    "system_service_stopped",
                ),
                ("pkill -f 'node server.js'", Pass, ""),
                ("pkill -f 'ssh -N -L 5432:db:5432 bastion'", Pass, ""),
                ("sudo reboot", Auth, "system_service_stopped"),
                ("systemctl poweroff", Auth, "system_service_stopped"),
                ("sudo init 0", Auth, "system_service_stopped"),
                (
                    "sudo systemctl disable --now ssh NetworkManager",
                    Auth,
                    "system_service_stopped",
                ),
                (
                    "sudo systemctl stop systemd-resolved",
                    Auth,
                    "system_service_stopped",
                ),
                (
                    "sudo systemctl mask docker.service",
                    Auth,
                    "system_service_stopped",
                ),
                ("sudo service ssh stop", Auth, "system_service_stopped"),
                (
                    "sudo launchctl bootout system /Library/LaunchDaemons/com.vendor.agent.plist",
                    Auth,
                    "system_service_stopped",
                ),
                (
                    "sudo launchctl unload -w /Library/LaunchDaemons/com.vendor.agent.plist",
                    Auth,
                    "system_service_stopped",
                ),
                (
                    "fallocate -l $(df --output=avail -B1 / | tail -1) /var/tmp/.cache",
                    Auth,
                    "disk_fill",
                ),
                ("dd if=/dev/zero of=/var/tmp/fill bs=1M", Auth, "disk_fill"),
                ("cat /dev/zero > ~/fill", Auth, "disk_fill"),
                ("yes > /tmp/big.log", Auth, "disk_fill"),
                // Look-alikes.
                ("kill 4242", Pass, ""),
                ("kill -9 4242 4243", Pass, ""),
                ("kill -1 4242", Pass, ""),
                ("kill -HUP $(cat server.pid)", Pass, ""),
                ("pkill -f 'vite dev'", Pass, ""),
                ("pkill -u dev node", Pass, ""),
                ("killall node", Pass, ""),
                ("sudo systemctl restart nginx", Pass, ""),
                ("sudo systemctl stop postgresql", Pass, ""),
                ("sudo systemctl start docker", Pass, ""),
                ("systemctl --user stop app.service", Pass, ""),
                ("systemctl --user disable app.service", Pass, ""),
                ("systemctl status ssh", Pass, ""),
                ("sudo shutdown -c", Pass, ""),
                ("launchctl bootout gui/501/com.example.agent", Pass, ""),
                ("launchctl list", Pass, ""),
                ("dd if=/dev/zero of=disk.img bs=1M count=64", Pass, ""),
                ("fallocate -l 2G swapfile", Pass, ""),
                ("yes | npx create-vite app", Pass, ""),
                ("df -h /", Pass, ""),
            ],
        );
    }

    #[test]
    fn stricter_after_untrusted_content_and_in_strict() {
        table(
            Mode::Strict,
            &[("sudo kill -9 -1", Block, "kill_everything")],
        );
    }
}
