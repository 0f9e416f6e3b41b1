//! `airlock-proxy serve --listen ADDR -- <server command…>`: the streamable-HTTP front
//! ([`crate::http_front`]) on a loopback address; every MCP session gets its own upstream child
//! and its own proxy session, judged under the MCP session id (so session memory is per HTTP
//! session).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use tokio::io::DuplexStream;

use crate::guard::Guard;
use crate::http_front::{self, FrontOptions, SessionFactory};
use crate::names::{ServeArgs, default_server_name, valid_server_name};
use crate::proxy::{self, Ended, Options};

/// Parse a `--listen` value; only loopback addresses are accepted (`localhost:PORT` means
/// `127.0.0.1:PORT`).
pub fn parse_listen(s: &str) -> Result<SocketAddr> {
    let s = s.trim();
    let addr = match s.strip_prefix("localhost:") {
        Some(port) => {
            let port: u16 = port
                .parse()
                .with_context(|| format!("`{s}`: the port must be a number"))?;
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)
        }
        None => s.parse::<SocketAddr>().with_context(|| {
            format!("`{s}` is not an address: use 127.0.0.1:PORT or [::1]:PORT")
        })?,
    };
    if !addr.ip().is_loopback() {
        bail!(
            "refusing to listen on {addr}: --listen must be a loopback address (127.0.0.1:PORT, \
             [::1]:PORT or localhost:PORT); serving on another interface would expose the MCP \
             server to the network"
        );
    }
    Ok(addr)
}

struct SessionConfig {
    server: String,
    program: String,
    args: Vec<String>,
    opts: Options,
}

/// Serve the HTTP front until the process is interrupted; returns the exit code.
pub async fn serve_http(a: ServeArgs, listen: &str, allow_origin: Vec<String>) -> Result<i32> {
    let addr = parse_listen(listen)?;
    let Some((program, args)) = a.command.split_first() else {
        bail!("no server command given: airlock-proxy serve --listen ADDR -- <command> [args…]");
    };
    let server = a.name.unwrap_or_else(|| default_server_name(program));
    if !valid_server_name(&server) {
        bail!("server name `{server}` must be 1–64 characters of A–Z, a–z, 0–9, `-`, `_` or `.`");
    }
    check_origins(&allow_origin)?;
    // Fail closed: without the store and policy nothing could be judged, so refuse to start
    // (each session opens its own handle later).
    drop(Guard::open(&server, "startup-check")?);
    let cfg = Arc::new(SessionConfig {
        server: server.clone(),
        program: program.clone(),
        args: args.to_vec(),
        opts: Options {
            approval_timeout: a.approval_timeout.min(proxy::MAX_APPROVAL),
            ..Options::default()
        },
    });
    let factory: SessionFactory = Arc::new(move |sid: String, duplex: DuplexStream| {
        let cfg = Arc::clone(&cfg);
        Box::pin(async move {
            if let Err(e) = run_session(&cfg, &sid, duplex).await {
                tracing::error!(session = sid.get(..8).unwrap_or(""), error = %format!("{e:#}"), "MCP session failed");
            }
        })
    });
    front(addr, allow_origin, factory, &server).await
}

/// Check `--allow-origin` values (exact origins only).
pub fn check_origins(allow_origin: &[String]) -> Result<()> {
    for o in allow_origin {
        if !(o.starts_with("http://") || o.starts_with("https://")) || o.contains(['*', ' ']) {
            bail!("--allow-origin `{o}` must be an exact origin such as https://app.example");
        }
    }
    Ok(())
}

/// Bind `addr`, say where on stderr, and serve the HTTP front with `factory` until the
/// process is interrupted; returns the exit code.
pub async fn front(
    addr: SocketAddr,
    allow_origin: Vec<String>,
    factory: SessionFactory,
    what: &str,
) -> Result<i32> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr()?;
    eprintln!("airlock-proxy: listening on http://{bound}/mcp");
    tracing::info!(server = %what, %bound, "HTTP front started");
    let opts = FrontOptions {
        allowed_origins: allow_origin,
        ..FrontOptions::default()
    };
    tokio::select! {
        r = http_front::serve(listener, opts, factory) => {
            r.context("serving HTTP")?;
            Ok(0)
        }
        () = shutdown() => {
            tracing::info!("shutting down");
            Ok(0)
        }
    }
}

async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// One MCP session: its own guard (session id = the MCP session id), its own upstream child.
async fn run_session(cfg: &SessionConfig, sid: &str, duplex: DuplexStream) -> Result<()> {
    let server = cfg.server.clone();
    let session = sid.to_owned();
    let guard =
        tokio::task::spawn_blocking(move || -> Result<Guard> { Guard::open(&server, &session) })
            .await
            .context("opening the store")??;
    let guard = Arc::new(guard);
    let mut child = tokio::process::Command::new(&cfg.program)
        .args(&cfg.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting the MCP server `{}`", cfg.program))?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        bail!("the MCP server's stdio could not be connected");
    };
    tracing::info!(server = %cfg.server, session = sid.get(..8).unwrap_or(""), "proxy session started");
    let (client_in, client_out) = tokio::io::split(duplex);
    let ended = proxy::run(
        client_in,
        client_out,
        child_out,
        child_in,
        guard,
        cfg.opts.clone(),
    )
    .await;
    let wait = match ended {
        Ended::ClientClosed => Duration::from_secs(5),
        Ended::ServerClosed => Duration::from_secs(2),
    };
    if tokio::time::timeout(wait, child.wait()).await.is_err() {
        tracing::warn!("the MCP server did not exit after its session ended; killing it");
        let _ = child.kill().await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_listen_addresses() {
        assert_eq!(
            parse_listen("127.0.0.1:0").unwrap().to_string(),
            "127.0.0.1:0"
        );
        assert_eq!(parse_listen("[::1]:8080").unwrap().port(), 8080);
        assert_eq!(
            parse_listen("localhost:9").unwrap().to_string(),
            "127.0.0.1:9"
        );
        for bad in [
            "0.0.0.0:0",
            "[::]:1",
            "192.168.1.2:80",
            "example.com:80",
            "8080",
            "localhost:x",
        ] {
            assert!(parse_listen(bad).is_err(), "{bad}");
        }
        let e = format!("{:#}", parse_listen("0.0.0.0:0").unwrap_err());
        assert!(e.contains("loopback"), "{e}");
    }
}
