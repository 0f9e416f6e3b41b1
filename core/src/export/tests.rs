use super::*;
use airlock_engine::{
    ExportConfig, FingerprintKey, HostFacts, Policy, PolicyConfig, SyslogTransport,
};
use airlock_store::Outcome;

fn decision_event() -> DecisionEvent {
    DecisionEvent {
        ts_ms: 1_767_323_045_678,
        host: "claude-code".into(),
        session_hash: "ab".repeat(16),
        kind: "shell".into(),
        tool: "Ba|sh=x\\y".into(),
        verdict: "BLOCK".into(),
        effective: "BLOCK".into(),
        outcome: "blocked".into(),
        reasons: vec!["secret_in_egress".into(), "exfiltration".into()],
        args_hash: "cd".repeat(16),
        mode: "balanced".into(),
    }
}

#[test]
fn cef_escapes_headers_and_values() {
    assert_eq!(cef::escape_header("a|b\\c\nd"), "a\\|b\\\\c d");
    assert_eq!(cef::escape_value("a=b\\c\nd\re|f"), "a\\=b\\\\c\\nd\\re|f");
    let line = cef::line(&Event::Decision(decision_event()));
    assert!(
        line.starts_with(&format!(
            "CEF:0|Airlock|Airlock|{}|decision:blocked|Ba\\|sh=x\\\\y blocked (BLOCK)|8|",
            env!("CARGO_PKG_VERSION")
        )),
        "{line}"
    );
    assert!(line.contains(" cs3=Ba|sh\\=x\\\\y "), "{line}");
    assert!(
        line.contains(" reason=secret_in_egress,exfiltration "),
        "{line}"
    );
    assert!(line.contains("rt=1767323045678 "), "{line}");
    assert!(!line.contains('\n'));
}

#[test]
fn syslog_messages_are_rfc5424() {
    let m = cef::syslog_message(&Event::Decision(decision_event()));
    // Facility 13 (log audit) * 8 + warning (4).
    assert!(m.starts_with("<108>1 2026-01-02T03:04:05.678Z "), "{m}");
    assert!(m.contains(" airlock "), "{m}");
    assert!(m.contains(" decision - CEF:0|Airlock|"), "{m}");
    let l = Event::Ledger(LedgerEvent {
        ts_ms: 0,
        seq: 3,
        kind: "tamper".into(),
        actor: "service".into(),
        factor: "none".into(),
        outcome: "detected".into(),
        hash: "h".into(),
        prev_hash: "p".into(),
    });
    let m = cef::syslog_message(&l);
    assert!(m.starts_with("<106>1 1970-01-01T00:00:00.000Z "), "{m}");
    assert!(
        m.contains("|ledger:tamper|ledger tamper detected|9|"),
        "{m}"
    );
    assert!(m.contains(" cn1=3 "), "{m}");
}

#[test]
fn rfc3339_dates() {
    assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
    assert_eq!(rfc3339_ms(1_767_323_045_678), "2026-01-02T03:04:05.678Z");
}

fn engine_with(export: ExportConfig) -> Engine {
    let cfg = PolicyConfig {
        export,
        ..PolicyConfig::default()
    };
    Engine::new(
        Policy::compile(&cfg, &HostFacts::default()).unwrap(),
        FingerprintKey::new([7; 32]),
    )
    .unwrap()
}

fn row() -> DecisionRow {
    DecisionRow {
        id: 0,
        ts_ms: 5,
        host: "claude-code".into(),
        session_id: "the-session".into(),
        action_kind: "shell".into(),
        tool: "Bash".into(),
        verdict: "PASS".into(),
        effective: "PASS".into(),
        reasons: vec![],
        outcome: Outcome::Passed,
        args_hash: "h".into(),
        mode: "balanced".into(),
    }
}

/// A real UDP and a real TCP receiver on loopback get one CEF message per event.
#[test]
fn syslog_reaches_udp_and_tcp_receivers() {
    use std::io::BufRead as _;
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let e = engine_with(ExportConfig {
        otlp: None,
        syslog: Some(airlock_engine::SyslogConfig {
            address: udp.local_addr().unwrap().to_string(),
            transport: SyslogTransport::Udp,
            ..Default::default()
        }),
    });
    decision(&e, &row(), None, None);
    let mut buf = [0u8; 4096];
    let n = udp.recv(&mut buf).unwrap();
    let got = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(got.contains("CEF:0|Airlock|Airlock|"), "{got}");
    assert!(got.contains("cs5="), "{got}");
    assert!(
        !got.contains("the-session"),
        "the session id is hashed: {got}"
    );

    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let e = engine_with(ExportConfig {
        otlp: None,
        syslog: Some(airlock_engine::SyslogConfig {
            address: tcp.local_addr().unwrap().to_string(),
            transport: SyslogTransport::Tcp,
            ..Default::default()
        }),
    });
    decision(&e, &row(), None, None);
    decision(&e, &row(), None, None);
    let (conn, _) = tcp.accept().unwrap();
    conn.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut lines = std::io::BufReader::new(conn).lines();
    for _ in 0..2 {
        let l = lines.next().unwrap().unwrap();
        assert!(l.starts_with("<110>1 "), "{l}");
        assert!(l.contains("|decision:passed|"), "{l}");
    }
    // The thread counts an event once its write returned: the receiver may be faster.
    let name = format!("syslog tcp://{}", tcp.local_addr().unwrap());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let s = stats();
        if s.iter().any(|d| d.destination == name && d.sent == 2) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{s:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A destination nobody listens on: the call returns at once, and what cannot be sent is
/// counted, never raised.
#[test]
fn a_dead_destination_never_blocks() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = engine_with(ExportConfig {
        otlp: Some(airlock_engine::OtlpConfig {
            endpoint: format!("http://127.0.0.1:{port}"),
            ..Default::default()
        }),
        syslog: Some(airlock_engine::SyslogConfig {
            address: format!("127.0.0.1:{port}"),
            transport: SyslogTransport::Tcp,
            ..Default::default()
        }),
    });
    let t = std::time::Instant::now();
    for _ in 0..(QUEUE + 200) {
        decision(&e, &row(), None, None);
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        t.elapsed()
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let s = stats();
        let mine: Vec<_> = s
            .iter()
            .filter(|d| d.destination.contains(&format!(":{port}")))
            .collect();
        assert_eq!(mine.len(), 2, "{s:?}");
        // Everything handed over is accounted for: refused (failed) or not queued (dropped).
        let total = u64::try_from(QUEUE + 200).unwrap();
        if mine
            .iter()
            .all(|d| d.failed > 0 && d.sent == 0 && d.failed + d.dropped == total)
        {
            assert!(mine.iter().all(|d| d.last_error.is_some()));
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{s:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A collector that accepts connections and never answers (the worst case: no refusal to
/// learn from): handing over never waits, the surplus is dropped and counted, each stalled
/// export ends at its timeout and counts as failed, and `flush` gives up at its deadline.
#[test]
fn a_collector_that_never_answers_blocks_nothing() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    // Accept and read, never write: every request hangs until the client gives up.
    std::thread::spawn(move || {
        for c in silent.incoming() {
            let Ok(mut c) = c else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while std::io::Read::read(&mut c, &mut buf).is_ok_and(|n| n > 0) {}
            });
        }
    });
    let e = engine_with(ExportConfig {
        otlp: Some(airlock_engine::OtlpConfig {
            endpoint: format!("http://127.0.0.1:{port}"),
            timeout_ms: Some(300),
            ..Default::default()
        }),
        syslog: None,
    });
    let t = std::time::Instant::now();
    for _ in 0..(QUEUE + 200) {
        decision(&e, &row(), None, None);
    }
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "handing over waited {:?}",
        t.elapsed()
    );
    let mine = || {
        stats()
            .into_iter()
            .find(|d| d.destination.contains(&format!(":{port}")))
    };
    // At most one event is being exported and QUEUE wait: the rest was dropped at once.
    let d = mine().unwrap();
    assert!(d.dropped >= 199, "{d:?}");
    assert_eq!(d.sent, 0, "{d:?}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let d = mine().unwrap();
        if d.failed >= 2 {
            assert!(d.last_error.is_some(), "{d:?}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no export timed out: {d:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The queue is still full of events the collector will never take: flush is bounded.
    let t = std::time::Instant::now();
    flush(std::time::Duration::from_millis(500));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "flush waited {:?}",
        t.elapsed()
    );
}

#[test]
fn export_config_is_checked_and_named() {
    let bad = |text: &str, field: &str| {
        let cfg = Policy::parse_config(text, "c.toml").unwrap();
        let e = Policy::compile(&cfg, &HostFacts::default()).unwrap_err();
        assert!(e.to_string().contains(field), "{e}");
    };
    bad(
        "[export.otlp]\nendpoint = \"ftp://x\"\n",
        "export.otlp.endpoint",
    );
    bad(
        "[export.otlp]\nendpoint = \"http://u:p@x:4318\"\n",
        "export.otlp.endpoint",
    );
    bad(
        "[export.otlp]\nendpoint = \"http://x:4318\"\nprotocol = \"grpc\"\n",
        "export.otlp.protocol",
    );
    bad(
        "[export.otlp]\nendpoint = \"http://x:4318\"\nheaders = { \"a b\" = \"1\" }\n",
        "export.otlp.headers.a b",
    );
    bad(
        "[export.syslog]\naddress = \"nohost\"\n",
        "export.syslog.address",
    );
    bad(
        "[export.syslog]\naddress = \"h:0\"\n",
        "export.syslog.address",
    );
    // Unknown fields and values are parse errors with a line.
    assert!(
        Policy::parse_config(
            "[export.syslog]\naddress = \"h:1\"\ntransport = \"quic\"\n",
            "c.toml"
        )
        .is_err()
    );
    assert!(
        Policy::parse_config(
            "[export.otlp]\nendpoint = \"http://h\"\nextra = 1\n",
            "c.toml"
        )
        .is_err()
    );
    // A bare base URL gets the logs path; a full one is kept.
    let ok = |text: &str| {
        let cfg = Policy::parse_config(text, "c.toml").unwrap();
        Policy::compile(&cfg, &HostFacts::default()).unwrap().export
    };
    assert_eq!(
        ok("[export.otlp]\nendpoint = \"http://127.0.0.1:4318\"\n")
            .otlp
            .unwrap()
            .endpoint,
        "http://127.0.0.1:4318/v1/logs"
    );
    assert_eq!(
        ok("[export.otlp]\nendpoint = \"https://c.example/otlp/v1/logs\"\n")
            .otlp
            .unwrap()
            .endpoint,
        "https://c.example/otlp/v1/logs"
    );
}

#[test]
fn a_destination_is_a_loosening_that_needs_approval() {
    let text = "[export.otlp]\nendpoint = \"http://127.0.0.1:4318\"\nheaders = { authorization = \"Bearer s3cr3t\" }\n[export.syslog]\naddress = \"10.0.0.5:514\"\ntransport = \"tcp\"\n";
    let cfg = Policy::parse_config(text, "c.toml").unwrap();
    let entries = cfg.loosening_entries();
    assert!(
        entries.contains(&"export.otlp=http://127.0.0.1:4318".to_owned()),
        "{entries:?}"
    );
    assert!(
        entries.contains(&"export.syslog=tcp://10.0.0.5:514".to_owned()),
        "{entries:?}"
    );
    assert!(
        !entries.iter().any(|e| e.contains("s3cr3t")),
        "header values never reach the ledger: {entries:?}"
    );
    let (eff, review) = crate::policy_file::effective(cfg.clone(), None);
    assert!(
        eff.export.is_empty(),
        "unapproved destinations are left out"
    );
    assert_eq!(review.pending.len(), 2);
    let snap = crate::policy_file::Snapshot {
        digest: crate::policy_file::digest(&cfg),
        loosening: entries.into_iter().collect(),
        rules: Vec::new(),
    };
    let (eff, review) = crate::policy_file::effective(cfg, Some(&snap));
    assert!(review.is_clean());
    assert!(eff.export.otlp.is_some() && eff.export.syslog.is_some());
}

/// A collector token in `headers` never shows in a debug print of the policy (a log line or
/// an error that formats the config).
#[test]
fn header_values_never_show_in_debug_output() {
    let cfg = Policy::parse_config(
        "[export.otlp]\nendpoint = \"https://c.example:4318\"\nheaders = { \"authorization\" = \"Bearer s3cr3t-token\" }\n",
        "c.toml",
    )
    .unwrap();
    let p = Policy::compile(&cfg, &HostFacts::default()).unwrap();
    for text in [format!("{cfg:?}"), format!("{p:?}")] {
        assert!(text.contains("authorization"), "{text}");
        assert!(!text.contains("s3cr3t-token"), "{text}");
    }
}
