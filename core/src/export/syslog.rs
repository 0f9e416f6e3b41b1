//! The syslog destination: one RFC 5424 message per event carrying a CEF line, over UDP (one
//! datagram each) or TCP (newline-delimited, RFC 6587 non-transparent framing; the CEF
//! escaping leaves no line break inside a message). A background thread owns the socket.

use std::io::Write as _;
use std::net::{TcpStream, ToSocketAddrs, UdpSocket};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use airlock_engine::{SyslogConfig, SyslogTransport};

use super::{Counters, Msg, cef};

/// Longest a connect or a write may take before the event counts as failed.
const IO_TIMEOUT: Duration = Duration::from_secs(2);

pub(crate) fn start(
    cfg: SyslogConfig,
    rx: Receiver<Msg>,
    counters: Arc<Counters>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("airlock-export-syslog".into())
        .spawn(move || run(&cfg, &rx, &counters))
        .map(|_| ())
}

fn run(cfg: &SyslogConfig, rx: &Receiver<Msg>, counters: &Counters) {
    let mut tcp: Option<TcpStream> = None;
    let mut udp: Option<UdpSocket> = None;
    while let Ok(m) = rx.recv() {
        let e = match m {
            Msg::Event(e) => *e,
            Msg::Flush(done) => {
                let _ = done.try_send(());
                continue;
            }
        };
        let msg = cef::syslog_message(&e);
        let sent = match cfg.transport {
            SyslogTransport::Udp => send_udp(&cfg.address, &mut udp, msg.as_bytes()),
            SyslogTransport::Tcp => send_tcp(&cfg.address, &mut tcp, &msg),
        };
        match sent {
            Ok(()) => counters.sent(1),
            Err(err) => {
                tracing::debug!(error = %err, "a syslog export failed");
                counters.failed(1, &err.to_string());
            }
        }
    }
}

fn resolve(address: &str) -> std::io::Result<std::net::SocketAddr> {
    address.to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the syslog address resolves to nothing",
        )
    })
}

fn send_udp(address: &str, sock: &mut Option<UdpSocket>, msg: &[u8]) -> std::io::Result<()> {
    if sock.is_none() {
        let to = resolve(address)?;
        let bind = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
        let s = UdpSocket::bind(bind)?;
        s.set_write_timeout(Some(IO_TIMEOUT))?;
        s.connect(to)?;
        *sock = Some(s);
    }
    let r = match sock.as_ref() {
        Some(s) => s.send(msg).map(|_| ()),
        None => Ok(()),
    };
    if r.is_err() {
        *sock = None;
    }
    r
}

fn send_tcp(address: &str, conn: &mut Option<TcpStream>, msg: &str) -> std::io::Result<()> {
    let mut framed = String::with_capacity(msg.len() + 1);
    framed.push_str(msg);
    framed.push('\n');
    // One reconnect per event: a receiver that restarted gets the event on a new connection.
    for _ in 0..2 {
        if conn.is_none() {
            let s = TcpStream::connect_timeout(&resolve(address)?, IO_TIMEOUT)?;
            s.set_write_timeout(Some(IO_TIMEOUT))?;
            s.set_nodelay(true)?;
            *conn = Some(s);
        }
        if let Some(s) = conn.as_mut() {
            match s.write_all(framed.as_bytes()).and_then(|()| s.flush()) {
                Ok(()) => return Ok(()),
                Err(_) => *conn = None,
            }
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::BrokenPipe,
        "the syslog connection was closed",
    ))
}
