//! The hook's hard deadline, kept by the kernel rather than a thread: `SIGALRM`.
//!
//! A hook process that has not answered by its deadline prints a denial and exits, so a slow
//! or stuck service (or a stdin the host never closes) can never let a call through by
//! timing out at the host. This used to be a watchdog thread; starting it (a `clone`, a stack,
//! a malloc arena) was a fifth of a routine hook call's time. The alarm costs two syscalls.
//!
//! The handler does only what is async-signal-safe: an atomic swap (so the answer is printed
//! once, by the main path or by the alarm), two `write(2)`s of a denial rendered before the
//! alarm was armed, and `_exit(2)`. This is the one module of the crate that allows `unsafe`.
#![allow(unsafe_code)]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::libc;
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

/// Set by whoever prints the answer first: the main path or the alarm.
static ANSWERED: AtomicBool = AtomicBool::new(false);

/// The denial the alarm prints, rendered in advance (a handler may not allocate).
struct Rendered {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: i32,
}

static DENY: OnceLock<Rendered> = OnceLock::new();

/// Claims the right to print the answer; false when the alarm already did (the process is
/// exiting).
pub(crate) fn claim() -> bool {
    !ANSWERED.swap(true, Ordering::SeqCst)
}

/// Writes all of `bytes` to `fd` with `write(2)` only.
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a live slice for the duration of the call and `fd` is one of the
        // process's standard descriptors; `write` is async-signal-safe.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => bytes = bytes.get(n..).unwrap_or_default(),
            _ => {
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
        }
    }
}

extern "C" fn on_alarm(_signal: libc::c_int) {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        // The main path printed the answer and is finishing: let it.
        return;
    }
    let code = match DENY.get() {
        Some(d) => {
            write_all(1, &d.stdout);
            write_all(2, &d.stderr);
            d.code
        }
        None => 2,
    };
    // SAFETY: `_exit` is async-signal-safe and never returns; nothing else is touched.
    unsafe { libc::_exit(code) }
}

/// Arms the deadline: `after` from now, the process prints `stdout`/`stderr` and exits with
/// `code` unless [`claim`] was called first.
pub(crate) fn arm(stdout: &str, stderr: &str, code: i32, after: Duration) -> nix::Result<()> {
    let mut out = stdout.as_bytes().to_vec();
    if !stdout.ends_with('\n') {
        out.push(b'\n');
    }
    let mut err = stderr.as_bytes().to_vec();
    if !err.is_empty() {
        err.push(b'\n');
    }
    let _ = DENY.set(Rendered {
        stdout: out,
        stderr: err,
        code,
    });
    let action = SigAction::new(
        SigHandler::Handler(on_alarm),
        SaFlags::SA_RESTART,
        SigSet::empty(),
    );
    // SAFETY: the handler only uses async-signal-safe operations (an atomic swap, `write`,
    // `_exit`) and data initialised before this call (`DENY` is set above and never changed).
    unsafe { sigaction(Signal::SIGALRM, &action) }?;
    extend(after);
    Ok(())
}

/// Moves the deadline to `after` from now (whole seconds, at least one).
pub(crate) fn extend(after: Duration) {
    let secs = u32::try_from(after.as_secs().max(1)).unwrap_or(u32::MAX);
    let _ = nix::unistd::alarm::set(secs);
}
