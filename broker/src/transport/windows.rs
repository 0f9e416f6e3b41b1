//! The Windows transport: a named pipe, peers named by the kernel.
//!
//! - **Name**: `\\.\pipe\airlock-<user SID>-broker`. The SID comes from our own process token,
//!   so nothing in the environment can point us at another pipe.
//! - **Server**: every instance is created with `PIPE_REJECT_REMOTE_CLIENTS` (no SMB clients)
//!   and the default security descriptor (full control for the creating user, LocalSystem
//!   and administrators; read-only for Everyone, who therefore cannot write a request nor
//!   create instances of their own). The first instance also carries
//!   `FILE_FLAG_FIRST_PIPE_INSTANCE`: when the name is already taken (a running broker, or a
//!   squatter) [`bind`] fails with [`BrokerError::AlreadyRunning`]. One spare instance is
//!   always waiting, so the name is never free while the broker runs.
//! - **Peers**: [`Connection::peer`] asks the kernel for the process on the other end
//!   (`GetNamedPipeClientProcessId` on the server, `GetNamedPipeServerProcessId` on the
//!   client), opens that process's token and compares its user SID with ours (`EqualSid`).
//!   A process we cannot open (another user's, usually) is an error, which both ends treat as
//!   a refusal. **Missing**: the check reads the peer by process id, so a peer that exits and
//!   whose id is reused at once by one of our own processes would pass; impersonating the
//!   client (`ImpersonateNamedPipeClient`) would close that gap. The client opens the pipe
//!   with `SECURITY_IDENTIFICATION`, so a fake server cannot act as the user.
//! - **I/O**: handles are overlapped, each read, write and connect waits on its own event, so
//!   one thread can read while another writes (the broker's watcher) and timeouts are honest:
//!   past one the operation is cancelled (`CancelIoEx`) and waited for before its buffer is
//!   released. [`Connection::shutdown`] cancels whatever is pending on the handle.
//!
//! It has been compiled and linted for `x86_64-pc-windows-gnu` only: not run on Windows yet.
#![allow(unsafe_code)]

use std::ffi::OsStr;
use std::io::{self, ErrorKind, Read, Write};
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use windows_sys::Win32::Foundation::{
    ERROR_BROKEN_PIPE, ERROR_IO_PENDING, ERROR_NO_DATA, ERROR_OPERATION_ABORTED, ERROR_PIPE_BUSY,
    ERROR_PIPE_CONNECTED, ERROR_PIPE_NOT_CONNECTED, FALSE, GENERIC_READ, GENERIC_WRITE, HANDLE,
    HLOCAL, INVALID_HANDLE_VALUE, LocalFree, TRUE, WAIT_OBJECT_0,
};
use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
use windows_sys::Win32::Security::{
    EqualSid, GetTokenInformation, PSID, TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, FILE_FLAG_FIRST_PIPE_INSTANCE, FILE_FLAG_OVERLAPPED, OPEN_EXISTING,
    PIPE_ACCESS_DUPLEX, ReadFile, SECURITY_IDENTIFICATION, SECURITY_SQOS_PRESENT, WriteFile,
};
use windows_sys::Win32::System::IO::{CancelIoEx, GetOverlappedResult, OVERLAPPED};
use windows_sys::Win32::System::Pipes::{
    ConnectNamedPipe, CreateNamedPipeW, GetNamedPipeClientProcessId, GetNamedPipeServerProcessId,
    PIPE_READMODE_BYTE, PIPE_REJECT_REMOTE_CLIENTS, PIPE_TYPE_BYTE, PIPE_UNLIMITED_INSTANCES,
    PIPE_WAIT, WaitNamedPipeW,
};
use windows_sys::Win32::System::Threading::{
    CreateEventW, GetCurrentProcess, INFINITE, OpenProcess, OpenProcessToken,
    PROCESS_QUERY_LIMITED_INFORMATION, WaitForSingleObject,
};

use super::{Connection, Listener, PeerIdentity};
use crate::BrokerError;

/// Pipe buffer sizes (a request line is at most `MAX_LINE`; the OS grows buffers as needed).
const BUFFER: u32 = 64 * 1024;
/// How long a client waits for a free instance when all are busy.
const BUSY_WAIT_MS: u32 = 2_000;

/// The listening end: the pipe's name and the spare instance the next client connects to.
#[derive(Debug)]
pub struct PipeListener {
    name: Vec<u16>,
    display: PathBuf,
    spare: Mutex<Option<OwnedHandle>>,
}

/// One end of a named-pipe connection. Clones share the handle.
#[derive(Debug, Clone)]
pub struct PipeConnection {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    handle: OwnedHandle,
    /// The server end (the peer is the client) or the client end.
    server: bool,
    read_timeout: Mutex<Option<Duration>>,
    write_timeout: Mutex<Option<Duration>>,
    closed: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn wide(s: &OsStr) -> Vec<u16> {
    s.encode_wide().chain(std::iter::once(0)).collect()
}

fn is(e: &io::Error, code: u32) -> bool {
    e.raw_os_error()
        .is_some_and(|raw| u32::try_from(raw).is_ok_and(|r| r == code))
}

/// Takes ownership of a handle a Win32 call just returned, or the call's error.
fn owned(h: HANDLE) -> io::Result<OwnedHandle> {
    if h.is_null() || h == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `h` was just returned to us by a Win32 call that creates a handle, is not one
    // of its failure values (checked above), and nothing else owns or closes it.
    Ok(unsafe { OwnedHandle::from_raw_handle(h) })
}

fn millis(timeout: Option<Duration>) -> u32 {
    match timeout {
        None => INFINITE,
        Some(d) => u32::try_from(d.as_millis())
            .unwrap_or(INFINITE - 1)
            .min(INFINITE - 1),
    }
}

/// Runs one overlapped operation on `handle` (`start` issues it with the given `OVERLAPPED`)
/// and waits for it at most `timeout`. Past the timeout the operation is cancelled and waited
/// for, so the caller's buffer is never written after we return, and `TimedOut` is returned.
fn overlapped(
    handle: HANDLE,
    timeout: Option<Duration>,
    start: impl FnOnce(*mut OVERLAPPED) -> i32,
) -> io::Result<u32> {
    // SAFETY: plain call; no security attributes, no name. Failure is a null handle.
    let event = owned(unsafe { CreateEventW(std::ptr::null(), TRUE, FALSE, std::ptr::null()) })?;
    let mut ov = OVERLAPPED {
        hEvent: event.as_raw_handle(),
        ..Default::default()
    };
    let ov_ptr: *mut OVERLAPPED = &mut ov;
    if start(ov_ptr) == 0 {
        let err = io::Error::last_os_error();
        if !is(&err, ERROR_IO_PENDING) {
            return Err(err);
        }
        // SAFETY: `event` is a live event handle owned by this function.
        let waited = unsafe { WaitForSingleObject(event.as_raw_handle(), millis(timeout)) };
        if waited != WAIT_OBJECT_0 {
            // SAFETY: `handle` is live for the duration of this call (the caller borrows its
            // owner); `ov` is the OVERLAPPED of the operation issued above.
            unsafe { CancelIoEx(handle, ov_ptr) };
            let mut n = 0u32;
            // SAFETY: waits (bWait = TRUE) until the cancelled operation has completed, so
            // `ov` and the caller's buffer are no longer in use afterwards.
            let done = unsafe { GetOverlappedResult(handle, ov_ptr, &mut n, TRUE) };
            if done != 0 {
                // It finished just before the cancel took effect.
                return Ok(n);
            }
            return Err(io::Error::new(
                ErrorKind::TimedOut,
                "pipe operation timed out",
            ));
        }
    }
    let mut n = 0u32;
    // SAFETY: the operation has completed (or completed synchronously); `ov` is its OVERLAPPED.
    if unsafe { GetOverlappedResult(handle, ov_ptr, &mut n, TRUE) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(n)
}

fn create_instance(name: &[u16], first: bool) -> io::Result<OwnedHandle> {
    let mut open_mode = PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED;
    if first {
        open_mode |= FILE_FLAG_FIRST_PIPE_INSTANCE;
    }
    // SAFETY: `name` is a NUL-terminated UTF-16 string that outlives the call; a null
    // security-attributes pointer means the default security descriptor.
    let h = unsafe {
        CreateNamedPipeW(
            name.as_ptr(),
            open_mode,
            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
            PIPE_UNLIMITED_INSTANCES,
            BUFFER,
            BUFFER,
            0,
            std::ptr::null(),
        )
    };
    owned(h)
}

impl Listener for PipeListener {
    type Conn = PipeConnection;

    fn accept(&self) -> io::Result<PipeConnection> {
        let mut spare = lock(&self.spare);
        let instance = match spare.take() {
            Some(h) => h,
            None => create_instance(&self.name, false)?,
        };
        let raw = instance.as_raw_handle();
        // SAFETY: `raw` belongs to `instance`, alive until after `overlapped` returns, and the
        // OVERLAPPED pointer comes from `overlapped`, which waits for the operation to end.
        match overlapped(raw, None, |ov| unsafe { ConnectNamedPipe(raw, ov) }) {
            Ok(_) => {}
            Err(e) if is(&e, ERROR_PIPE_CONNECTED) => {}
            Err(e) => {
                // This instance is spent; keep the name held by a fresh one.
                *spare = create_instance(&self.name, false).ok();
                return Err(e);
            }
        }
        // Hold the name for the next client before handing this one out.
        match create_instance(&self.name, false) {
            Ok(h) => *spare = Some(h),
            Err(e) => {
                tracing::warn!(pipe = %self.display.display(), error = %e, "cannot create the next pipe instance");
            }
        }
        Ok(PipeConnection::new(instance, true))
    }
}

impl PipeConnection {
    fn new(handle: OwnedHandle, server: bool) -> PipeConnection {
        PipeConnection {
            shared: Arc::new(Shared {
                handle,
                server,
                read_timeout: Mutex::new(None),
                write_timeout: Mutex::new(None),
                closed: AtomicBool::new(false),
            }),
        }
    }

    fn raw(&self) -> HANDLE {
        self.shared.handle.as_raw_handle()
    }
}

/// The other end closed: end of stream.
fn is_eof(e: &io::Error) -> bool {
    is(e, ERROR_BROKEN_PIPE) || is(e, ERROR_PIPE_NOT_CONNECTED) || is(e, ERROR_NO_DATA)
}

impl Read for PipeConnection {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.shared.closed.load(Ordering::SeqCst) {
            return Ok(0);
        }
        let timeout = *lock(&self.shared.read_timeout);
        let len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
        let raw = self.raw();
        let ptr = buf.as_mut_ptr();
        // SAFETY: `ptr` and `len` describe `buf`, which stays borrowed until `overlapped`
        // returns, and `overlapped` waits until the read has completed or been cancelled.
        let res = overlapped(raw, timeout, |ov| unsafe {
            ReadFile(raw, ptr, len, std::ptr::null_mut(), ov)
        });
        match res {
            Ok(n) => Ok(usize::try_from(n).unwrap_or(0)),
            Err(e) if is_eof(&e) => Ok(0),
            Err(e)
                if is(&e, ERROR_OPERATION_ABORTED) && self.shared.closed.load(Ordering::SeqCst) =>
            {
                Ok(0)
            }
            Err(e) => Err(e),
        }
    }
}

impl Write for PipeConnection {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.shared.closed.load(Ordering::SeqCst) {
            return Err(io::Error::new(ErrorKind::BrokenPipe, "pipe shut down"));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let timeout = *lock(&self.shared.write_timeout);
        let len = u32::try_from(buf.len()).unwrap_or(u32::MAX);
        let raw = self.raw();
        let ptr = buf.as_ptr();
        // SAFETY: as for `read`: `buf` outlives the operation, which `overlapped` waits for.
        let n = overlapped(raw, timeout, |ov| unsafe {
            WriteFile(raw, ptr, len, std::ptr::null_mut(), ov)
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn flush(&mut self) -> io::Result<()> {
        // Bytes written are in the pipe; nothing is buffered on our side.
        Ok(())
    }
}

impl Connection for PipeConnection {
    fn peer(&self) -> io::Result<PeerIdentity> {
        let mut pid = 0u32;
        let raw = self.raw();
        let ok = if self.shared.server {
            // SAFETY: `raw` is our live pipe handle; `pid` is a valid out pointer.
            unsafe { GetNamedPipeClientProcessId(raw, &mut pid) }
        } else {
            // SAFETY: as above.
            unsafe { GetNamedPipeServerProcessId(raw, &mut pid) }
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        let theirs = TokenUserBuf::of_process(pid)?;
        let ours = TokenUserBuf::of_current_process()?;
        Ok(PeerIdentity {
            user: theirs.sid_string()?,
            same_user: theirs.same_sid(&ours),
        })
    }

    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        *lock(&self.shared.read_timeout) = timeout;
        Ok(())
    }

    fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        *lock(&self.shared.write_timeout) = timeout;
        Ok(())
    }

    fn try_clone(&self) -> io::Result<PipeConnection> {
        Ok(self.clone())
    }

    fn shutdown(&self) -> io::Result<()> {
        self.shared.closed.store(true, Ordering::SeqCst);
        // SAFETY: `raw` is our live pipe handle; a null OVERLAPPED cancels every pending
        // operation on it, from any thread (each then completes with ERROR_OPERATION_ABORTED).
        // Data already written stays readable by the peer until the handle is closed.
        unsafe { CancelIoEx(self.raw(), std::ptr::null()) };
        Ok(())
    }
}

/// A `TOKEN_USER` as `GetTokenInformation` fills it (the SID lives inside the buffer). `u64`
/// storage keeps the structure's pointer field aligned.
struct TokenUserBuf(Vec<u64>);

impl TokenUserBuf {
    fn of_current_process() -> io::Result<TokenUserBuf> {
        // SAFETY: a pseudo-handle that needs no closing.
        let process = unsafe { GetCurrentProcess() };
        TokenUserBuf::of_process_handle(process)
    }

    fn of_process(pid: u32) -> io::Result<TokenUserBuf> {
        // SAFETY: plain call; failure is a null handle, which `owned` turns into an error.
        let process = owned(unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid) })?;
        TokenUserBuf::of_process_handle(process.as_raw_handle())
    }

    fn of_process_handle(process: HANDLE) -> io::Result<TokenUserBuf> {
        let mut token: HANDLE = std::ptr::null_mut();
        // SAFETY: `process` is a live process handle (or the current-process pseudo-handle);
        // `token` is a valid out pointer.
        if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let token = owned(token)?;
        let mut needed = 0u32;
        // SAFETY: asks only for the size (null buffer, zero length); the call fails with
        // ERROR_INSUFFICIENT_BUFFER and sets `needed`.
        unsafe {
            GetTokenInformation(
                token.as_raw_handle(),
                TokenUser,
                std::ptr::null_mut(),
                0,
                &mut needed,
            )
        };
        let needed_usize = usize::try_from(needed).unwrap_or(0);
        if needed_usize < std::mem::size_of::<TOKEN_USER>() {
            return Err(io::Error::last_os_error());
        }
        let mut buf = vec![0u64; needed_usize.div_ceil(8)];
        let len = u32::try_from(buf.len().saturating_mul(8)).unwrap_or(u32::MAX);
        // SAFETY: `buf` is writable for `len` bytes (at least `needed`), 8-byte aligned.
        let ok = unsafe {
            GetTokenInformation(
                token.as_raw_handle(),
                TokenUser,
                buf.as_mut_ptr().cast(),
                len,
                &mut needed,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(TokenUserBuf(buf))
    }

    fn sid(&self) -> PSID {
        let tu = self.0.as_ptr().cast::<TOKEN_USER>();
        // SAFETY: the buffer holds a TOKEN_USER written by GetTokenInformation (checked to be
        // at least that large, aligned for it); its SID points into the same buffer, which
        // lives as long as `self`.
        unsafe { (*tu).User.Sid }
    }

    fn same_sid(&self, other: &TokenUserBuf) -> bool {
        // SAFETY: both SIDs are valid for the lifetime of their buffers, borrowed here.
        unsafe { EqualSid(self.sid(), other.sid()) != 0 }
    }

    fn sid_string(&self) -> io::Result<String> {
        let mut out: *mut u16 = std::ptr::null_mut();
        // SAFETY: the SID is valid (see `sid`); `out` receives a LocalAlloc'd string.
        if unsafe { ConvertSidToStringSidW(self.sid(), &mut out) } == 0 || out.is_null() {
            return Err(io::Error::last_os_error());
        }
        let mut len = 0usize;
        // SAFETY: `out` is NUL-terminated (the API's contract); we stop at the NUL.
        while unsafe { *out.add(len) } != 0 {
            len += 1;
        }
        // SAFETY: `out` is valid for `len` u16s (just measured).
        let s = String::from_utf16_lossy(unsafe { std::slice::from_raw_parts(out, len) });
        // SAFETY: `out` was allocated by ConvertSidToStringSidW with LocalAlloc and is freed once.
        unsafe { LocalFree(out as HLOCAL) };
        Ok(s)
    }
}

/// Creates the pipe's first instance. A name already taken is [`BrokerError::AlreadyRunning`].
pub(super) fn bind(endpoint: &Path) -> Result<PipeListener, BrokerError> {
    let name = wide(endpoint.as_os_str());
    let first = create_instance(&name, true).map_err(|e| {
        if e.kind() == ErrorKind::PermissionDenied {
            BrokerError::AlreadyRunning(endpoint.to_path_buf())
        } else {
            BrokerError::Io {
                path: endpoint.to_path_buf(),
                source: e,
            }
        }
    })?;
    Ok(PipeListener {
        name,
        display: endpoint.to_path_buf(),
        spare: Mutex::new(Some(first)),
    })
}

pub(super) fn connect(endpoint: &Path) -> io::Result<PipeConnection> {
    let name = wide(endpoint.as_os_str());
    let mut waited = false;
    loop {
        // SAFETY: `name` is NUL-terminated UTF-16 that outlives the call; no security
        // attributes, no template. SECURITY_IDENTIFICATION: the server may identify us but
        // never act as us.
        let h = unsafe {
            CreateFileW(
                name.as_ptr(),
                GENERIC_READ | GENERIC_WRITE,
                0,
                std::ptr::null(),
                OPEN_EXISTING,
                FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION,
                std::ptr::null_mut(),
            )
        };
        match owned(h) {
            Ok(h) => return Ok(PipeConnection::new(h, false)),
            Err(e) if is(&e, ERROR_PIPE_BUSY) && !waited => {
                waited = true;
                // SAFETY: as above; waits for a free instance at most BUSY_WAIT_MS.
                unsafe { WaitNamedPipeW(name.as_ptr(), BUSY_WAIT_MS) };
            }
            Err(e) => return Err(e),
        }
    }
}

/// A pipe disappears with its last handle: nothing to remove.
pub(super) fn remove_endpoint(_endpoint: &Path) {}

/// `\\.\pipe\airlock-<user SID>-broker`; `None` when our SID cannot be read.
pub(super) fn default_endpoint() -> Option<PathBuf> {
    let sid = TokenUserBuf::of_current_process()
        .and_then(|t| t.sid_string())
        .ok()?;
    Some(PathBuf::from(format!(r"\\.\pipe\airlock-{sid}-broker")))
}
