//! The OTLP destination: OpenTelemetry logs over HTTP with protobuf bodies, built with the
//! `opentelemetry` SDK and `opentelemetry-otlp`'s exporter on a background std thread. No
//! async runtime: the HTTP client is `ureq` (blocking, rustls) behind the SDK's
//! `HttpClient` trait, and the SDK's simple processor exports each record on this thread.
//!
//! Only the policy file configures it: the request this client sends carries the configured
//! endpoint, the body's content type and the configured headers, and nothing the SDK took
//! from `OTEL_*` variables of the environment the service was started in; no proxy variable
//! is honoured, no redirect followed.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use airlock_engine::OtlpConfig;
use bytes::Bytes;
use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::{Key, KeyValue};
use opentelemetry_otlp::{Protocol, RetryPolicy, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::logs::{LogBatch, LogExporter, SdkLoggerProvider};

use super::{AttrValue, Counters, Event, Msg, attributes, host_name, protection_level, summary};

/// Default time one export may take.
const DEFAULT_TIMEOUT_MS: u64 = 3000;
/// Most response bytes read.
const MAX_RESPONSE: u64 = 64 * 1024;

pub(crate) fn start(
    cfg: OtlpConfig,
    rx: Receiver<Msg>,
    counters: Arc<Counters>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("airlock-export-otlp".into())
        .spawn(move || run(&cfg, &rx, counters))
        .map(|_| ())
}

fn run(cfg: &OtlpConfig, rx: &Receiver<Msg>, counters: Arc<Counters>) {
    let timeout = Duration::from_millis(cfg.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
    let client = Client::new(cfg, timeout);
    let built = opentelemetry_otlp::LogExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_endpoint(cfg.endpoint.clone())
        .with_protocol(Protocol::HttpBinary)
        .with_timeout(timeout)
        .with_retry_policy(RetryPolicy::disabled())
        .build();
    let exporter = match built {
        Ok(e) => e,
        Err(e) => {
            tracing::error!(error = %e, "the OTLP exporter could not be built");
            counters.failed(0, &format!("the OTLP exporter could not be built: {e}"));
            // Drain so the queue reports drops rather than filling silently.
            while let Ok(m) = rx.recv() {
                match m {
                    Msg::Event(_) => counters.failed(1, "the OTLP exporter could not be built"),
                    Msg::Flush(done) => {
                        let _ = done.try_send(());
                    }
                }
            }
            return;
        }
    };
    // `builder_empty`: no resource detectors, so nothing comes from `OTEL_RESOURCE_ATTRIBUTES`.
    let resource = Resource::builder_empty()
        .with_service_name("airlock")
        .with_attributes([
            KeyValue::new("service.version", env!("CARGO_PKG_VERSION")),
            KeyValue::new("host.name", host_name()),
            KeyValue::new("airlock.protection_level", protection_level()),
        ])
        .build();
    let provider = SdkLoggerProvider::builder()
        .with_resource(resource)
        .with_simple_exporter(Counting {
            inner: exporter,
            counters: counters.clone(),
        })
        .build();
    let logger = provider.logger("airlock");
    while let Ok(m) = rx.recv() {
        let e = match m {
            Msg::Event(e) => *e,
            Msg::Flush(done) => {
                let _ = done.try_send(());
                continue;
            }
        };
        let mut r = logger.create_log_record();
        let (ts_ms, event_name, sev) = match &e {
            Event::Decision(d) => (
                d.ts_ms,
                "airlock.decision",
                match d.verdict.as_str() {
                    "BLOCK" => Severity::Warn,
                    "AUTH" => Severity::Info2,
                    _ => Severity::Info,
                },
            ),
            Event::Ledger(l) => (
                l.ts_ms,
                "airlock.ledger",
                if l.kind.starts_with("tamper") {
                    Severity::Error
                } else {
                    Severity::Info
                },
            ),
        };
        let at = UNIX_EPOCH + Duration::from_millis(u64::try_from(ts_ms).unwrap_or(0));
        r.set_timestamp(at);
        r.set_observed_timestamp(SystemTime::now());
        r.set_event_name(event_name);
        r.set_severity_number(sev);
        r.set_severity_text(match sev {
            Severity::Warn => "WARN",
            Severity::Error => "ERROR",
            _ => "INFO",
        });
        r.set_body(AnyValue::from(summary(&e)));
        for (k, v) in attributes(&e) {
            let v = match v {
                AttrValue::Str(s) => AnyValue::from(s),
                AttrValue::Int(i) => AnyValue::Int(i),
                AttrValue::List(l) => {
                    AnyValue::ListAny(Box::new(l.into_iter().map(AnyValue::from).collect()))
                }
            };
            r.add_attribute(Key::from_static_str(k), v);
        }
        logger.emit(r);
    }
    let _ = provider.shutdown();
}

/// The OTLP exporter, counting what it sent and what failed.
#[derive(Debug)]
struct Counting<E> {
    inner: E,
    counters: Arc<Counters>,
}

impl<E: LogExporter> LogExporter for Counting<E> {
    async fn export(&self, batch: LogBatch<'_>) -> OTelSdkResult {
        let n = u64::try_from(batch.iter().count()).unwrap_or(u64::MAX);
        let r = self.inner.export(batch).await;
        match &r {
            Ok(()) => self.counters.sent(n),
            Err(e) => {
                tracing::debug!(error = %e, "an OTLP export failed");
                self.counters.failed(n, &e.to_string());
            }
        }
        r
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// A blocking HTTP client for the SDK (runs on the export thread).
struct Client {
    agent: ureq::Agent,
    endpoint: String,
    headers: BTreeMap<String, String>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values may be credentials: never printed.
        f.debug_struct("Client")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl Client {
    fn new(cfg: &OtlpConfig, timeout: Duration) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .proxy(None)
            .max_redirects(0)
            .build();
        Client {
            agent: config.into(),
            endpoint: cfg.endpoint.clone(),
            headers: cfg.headers.clone(),
        }
    }

    fn send(&self, request: http::Request<Bytes>) -> Result<http::Response<Bytes>, BoxError> {
        if request.uri().to_string() != self.endpoint {
            return Err("the request is not for the configured endpoint".into());
        }
        if request
            .headers()
            .contains_key(http::header::CONTENT_ENCODING)
        {
            return Err("compression set through the environment is not supported".into());
        }
        let mut out = http::Request::builder()
            .method(http::Method::POST)
            .uri(self.endpoint.as_str());
        if let Some(ct) = request.headers().get(http::header::CONTENT_TYPE) {
            out = out.header(http::header::CONTENT_TYPE, ct);
        }
        for (k, v) in &self.headers {
            out = out.header(k.as_str(), v.as_str());
        }
        let out = out.body(request.into_body().to_vec())?;
        let mut resp = self.agent.run(out)?;
        let status = resp.status();
        let body = resp
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE)
            .read_to_vec()
            .unwrap_or_default();
        Ok(http::Response::builder()
            .status(status)
            .body(Bytes::from(body))?)
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for Client {
    async fn send_bytes(
        &self,
        request: http::Request<Bytes>,
    ) -> Result<http::Response<Bytes>, opentelemetry_http::HttpError> {
        self.send(request)
    }
}
