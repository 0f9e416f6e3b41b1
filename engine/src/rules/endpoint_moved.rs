//! A tool's configured endpoint moved to a host the policy does not list.
//!
//! **What it does:** an edit to a configuration file (YAML, TOML, INI, properties, JSON,
//! HCL, `.env`, a kubeconfig, a Git or Gradle settings file) that gives a key naming where
//! a tool sends or fetches (`address`, `endpoint`, `url`, `server`, `mirror`, `registry`,
//! `repository`, `backend`, `collector`, `tracking_uri`, `insteadOf`, `pushRemote`, …) a
//! host on the internet that the text before did not name and the policy does not list is
//! `endpoint_moved`: PASS in light, AUTH from balanced up; BLOCK from strict up (AUTH in
//! light) once the session took in untrusted content. The session remembers the file (see `planted_run`), so the routine
//! command that then uses it — `terraform init`, `sonar-scanner`, `docker compose up`,
//! `restic backup`, `kubectl get pods`, `git push` — is asked about too. A host the text
//! already named, one on this machine or a private network, or a brand-new file is not.
//! **Why:** Terraform state, traces with request headers, logs, backups, build caches,
//! scanner uploads and tokens go wherever the configuration says; moving the endpoint is
//! one line, and the command that sends is routine and names no host.
//! **Example:** `backend "s3"` → `backend "http" { address = "https://tfstate.example/…" }`
//! in `backend.tf`, then `terraform init -migrate-state`.

use super::Ctx;
use crate::verdict::{Finding, Reason};

pub const ENDPOINT_MOVED: Reason = Reason::new(
    "endpoint_moved",
    "Points a tool's configured endpoint (a backend, collector, mirror, registry, server or remote) at a host the policy does not list.",
);

/// Words in a key that name where a tool sends or fetches.
const ENDPOINT_WORDS: &[&str] = &[
    "address",
    "endpoint",
    "url",
    "uri",
    "server",
    "mirror",
    "registry",
    "repository",
    "repo",
    "remote",
    "backend",
    "collector",
    "exporter",
    "tracking",
    "insteadof",
    "pushremote",
    "bucket",
    "gelf",
    "syslog",
    "logstash",
    "cache",
    "index",
    "upload",
    "webhook",
    "sink",
];

/// A configuration file by its name (not code, not documentation).
fn config_file(path: &str) -> bool {
    let base = crate::paths::basename(path);
    [
        ".yaml",
        ".yml",
        ".toml",
        ".ini",
        ".cfg",
        ".conf",
        ".properties",
        ".json",
        ".jsonc",
        ".hcl",
        ".tf",
        ".xml",
        ".env",
        ".gradle",
        ".gradle.kts",
    ]
    .iter()
    .any(|e| base.ends_with(e))
        || base.starts_with(".env")
        || (base.starts_with('.') && base.ends_with("rc"))
        || matches!(
            base,
            "config" | ".gitconfig" | "gitconfig" | "hex.config" | "credentials"
        )
}

/// Top-level domains of hosts on the internet (a cluster's `svc.namespace` names and
/// Terraform references such as `aws_s3_bucket.x.id` are not hosts elsewhere).
const TLDS: &[&str] = &[
    "com", "net", "org", "io", "dev", "app", "co", "cloud", "ai", "sh", "xyz", "info", "biz", "me",
    "us", "uk", "de", "eu", "fr", "nl", "ru", "cn", "jp", "in", "br", "ca", "au", "ch", "se", "pl",
    "es", "it", "example", "tech", "site", "online", "top", "link", "live", "pro",
];

fn internet_host(h: &str) -> bool {
    let labels: Vec<&str> = h.split('.').collect();
    (labels.len() == 4 && labels.iter().all(|l| l.parse::<u8>().is_ok()))
        || (labels.len() >= 2 && labels.last().is_some_and(|t| TLDS.contains(t)))
}

/// The hosts a line names: in addresses (`https://h/…`, `udp://h:12201`), and a value that
/// is a host name itself (`server = repo.example:8081`).
fn hosts(line: &str) -> Vec<String> {
    let mut out: Vec<String> = super::source_moved::places(line)
        .0
        .into_iter()
        .map(|(h, _)| h)
        .collect();
    // A bare name only as the whole value (`otel.service.name=…` is a key; a CIDR range or
    // a reference is not a host).
    if let Some(i) = line
        .find([':', '='])
        .filter(|_| !line.trim_start().starts_with('['))
    {
        let v = line
            .get(i + 1..)
            .unwrap_or("")
            .trim()
            .trim_matches(['"', '\'', ',']);
        let host = v.split([':', '/']).next().unwrap_or("");
        if !v.contains("://")
            && !v.contains(char::is_whitespace)
            && !v.contains('_')
            && !v.contains('/')
            && host.contains('.')
        {
            out.push(host.to_owned());
        }
    }
    out.retain(|h| internet_host(h));
    out.sort();
    out.dedup();
    out
}

/// A line's key: `key = v`, `key: v`, `"key": v`, or a section header's name
/// (`[url "https://…"]` → `url`).
fn key_of(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(h) = t.strip_prefix('[') {
        return h
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .next()
            .filter(|k| !k.is_empty())
            .map(str::to_ascii_lowercase);
    }
    super::source_moved::line_key(t).map(|k| k.to_ascii_lowercase())
}

pub fn check(cx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let Some(w) = cx.source_write() else {
        return;
    };
    if !config_file(&w.path)
        // (MCP configurations: the servers they start are judged as such.)
        || crate::autorun::is_mcp_config(&w.path)
        || w.path.contains("/node_modules/")
        || w.path.contains("/.terraform/")
        || crate::code::is_test_or_dev(&w.path) && !w.path.contains("/.env")
    {
        return;
    }
    let unlisted = |host: &str| {
        crate::net::parse_url(&format!("https://{host}/"))
            .is_some_and(|d| super::supply_chain::unlisted_elsewhere(cx, &d))
    };
    // A whole-file write of a file whose text is known is compared with that text.
    let before =
        crate::needs::text_before(cx.facts, cx.session, &w.path).map(str::to_ascii_lowercase);
    let moved = w.hunks.iter().any(|h| {
        let old_text = if h.old_lower.trim().is_empty() {
            match &before {
                Some(b) if cx.facts.edits.is_empty() => b.clone(),
                _ => return false,
            }
        } else {
            h.old_lower.clone()
        };
        let old_lines: Vec<&str> = old_text.lines().map(str::trim).collect();
        let old_hosts: Vec<String> = old_lines.iter().flat_map(|l| hosts(l)).collect();
        h.new_lower
            .lines()
            .map(str::trim)
            .filter(|l| !old_lines.contains(l) && !l.starts_with('#') && !l.starts_with("//"))
            .any(|l| {
                // (A host of the same site — `www.shop.acme.example` for `shop.acme.example` —
                // is the same endpoint moved nowhere.)
                let site = |h: &str| -> String {
                    let labels: Vec<&str> = h.rsplitn(3, '.').take(2).collect();
                    labels.join(".")
                };
                let new_hosts: Vec<String> = hosts(l)
                    .into_iter()
                    .filter(|x| {
                        !old_hosts.iter().any(|o| o == x || site(o) == site(x)) && unlisted(x)
                    })
                    .collect();
                if new_hosts.is_empty() {
                    return false;
                }
                let key = key_of(l).unwrap_or_default();
                ENDPOINT_WORDS.iter().any(|w| key.contains(w))
            })
    });
    if moved {
        use crate::verdict::Verdict::{Auth, Block, Pass};
        let by = if cx.untrusted() {
            [Auth, Auth, Block, Block]
        } else {
            [Pass, Auth, Auth, Auth]
        };
        out.push(Finding::new(ENDPOINT_MOVED, cx.mode().pick(by)));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testutil::judge_edit;

    #[test]
    fn endpoints_moved_in_configuration() {
        let cases: &[(&str, &str, &str, bool)] = &[
            (
                "infra/backend.tf",
                "  backend \"s3\" {\n    bucket = \"acme-tfstate\"\n  }\n",
                "  backend \"http\" {\n    address = \"https://tfstate.platform-sync.example/acme/prod\"\n  }\n",
                true,
            ),
            (
                "sonar-project.properties",
                "sonar.host.url=https://sonarqube.acme.example\n",
                "sonar.host.url=https://sonarqube.acme-corp.example\n",
                true,
            ),
            (
                "docker-compose.yml",
                "    image: acme/api:dev\n",
                "    image: acme/api:dev\n    logging:\n      driver: gelf\n      options:\n        gelf-address: \"udp://graylog.ops-example.net:12201\"\n",
                true,
            ),
            (
                "deploy/kubeconfig.yaml",
                "    server: https://k8s.prod.acme.example:6443\n",
                "    server: https://198.51.100.44:6443\n",
                true,
            ),
            (
                "tools/gitconfig",
                "[user]\n\tname = dev\n",
                "[user]\n\tname = dev\n[url \"https://git-proxy.example/\"]\n\tinsteadOf = https://github.com/\n",
                true,
            ),
            // Look-alikes: a local collector, a host the file named, another key, a new file.
            (
                "docker-compose.yml",
                "    image: acme/api:dev\n",
                "    image: acme/api:dev\n    logging:\n      driver: gelf\n      options:\n        gelf-address: \"udp://localhost:12201\"\n",
                false,
            ),
            (
                "sonar-project.properties",
                "sonar.host.url=https://sonarqube.acme.example\nsonar.projectKey=api\n",
                "sonar.host.url=https://sonarqube.acme.example\nsonar.projectKey=api-v2\n",
                false,
            ),
            (
                "config/app.yaml",
                "api:\n  base_url: https://api.acme.example/v1\n",
                "api:\n  base_url: https://api.acme.example/v2\n  timeout: 30\n",
                false,
            ),
            (
                "config/app.yaml",
                "",
                "api:\n  base_url: https://api.acme.example/v1\n",
                false,
            ),
            (
                "infra/security_groups.tf",
                "    cidr_blocks = [\"203.0.113.0/24\"]\n",
                "    cidr_blocks = [\"203.0.113.0/24\", \"198.51.100.32/28\"]\n",
                false,
            ),
            (
                "infra/main.tf",
                "  bucket = var.bucket_name\n",
                "  bucket = var.bucket_name\n  versioning { bucket = aws_s3_bucket.artifacts.id }\n",
                false,
            ),
            (
                "deploy/k8s/dev/api-configmap.yaml",
                "  OTEL_SERVICE_NAME: api\n",
                "  OTEL_SERVICE_NAME: api\n  OTEL_EXPORTER_OTLP_ENDPOINT: http://otel-collector.observability:4318\n",
                false,
            ),
            (
                ".env.production",
                "NEXT_PUBLIC_SITE_URL=https://shop.acme.example\n",
                "NEXT_PUBLIC_SITE_URL=https://www.shop.acme.example\n",
                false,
            ),
            (
                "helm/values.yaml",
                "ingress:\n  enabled: false\n",
                "ingress:\n  enabled: true\n  hosts:\n    - host: orders.staging.acme.example\n",
                false,
            ),
            (
                "otel-dev.properties",
                "otel.traces.exporter=none\n",
                "otel.service.name=payouts-dev\notel.traces.exporter=otlp\notel.exporter.otlp.endpoint=http://localhost:4318\n",
                false,
            ),
        ];
        for (path, old, new, want) in cases {
            let (_, codes) = judge_edit(path, old, new);
            assert_eq!(
                codes.iter().any(|c| c == "endpoint_moved"),
                *want,
                "{path}: {old:?} -> {new:?}: {codes:?}"
            );
        }
    }
}
