//! Destinations: URLs, `host:port`, `user@host:path`, e-mail addresses and raw IPs.

use std::net::IpAddr;

/// Where traffic would go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    /// Lower-cased host name or IP text (no brackets).
    pub host: String,
    pub ip: Option<IpAddr>,
    /// `https://user:pass@host` style credentials were embedded.
    pub has_credentials: bool,
}

impl Destination {
    /// A destination known by name only (a mail domain, a relay service).
    pub fn named(host: impl Into<String>) -> Destination {
        Destination {
            host: host.into(),
            ip: None,
            has_credentials: false,
        }
    }

    /// Loopback and unspecified addresses never leave the machine.
    pub fn is_local(&self) -> bool {
        match self.ip {
            Some(ip) => ip.is_loopback() || ip.is_unspecified(),
            None => {
                self.host == "localhost"
                    || self.host.ends_with(".localhost")
                    || self.host == "host.docker.internal"
            }
        }
    }

    /// A literal public IP address (no name to judge, a classic exfil and C2 pattern).
    pub fn is_raw_public_ip(&self) -> bool {
        match self.ip {
            Some(IpAddr::V4(v4)) => {
                !(v4.is_loopback() || v4.is_private() || v4.is_link_local() || v4.is_unspecified())
            }
            Some(IpAddr::V6(v6)) => !(v6.is_loopback() || v6.is_unspecified()),
            None => false,
        }
    }

    pub fn is_private_ip(&self) -> bool {
        matches!(self.ip, Some(IpAddr::V4(v4)) if v4.is_private() || v4.is_link_local())
    }
}

fn valid_host_name(h: &str) -> bool {
    let labels: Vec<&str> = h.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.bytes().all(|b| b.is_ascii_alphabetic()))
}

fn from_host(host: &str, creds: bool) -> Option<Destination> {
    let host = host
        .trim_matches(['[', ']'])
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Some(Destination {
            host,
            ip: Some(ip),
            has_credentials: creds,
        });
    }
    if host == "localhost" || valid_host_name(&host) {
        return Some(Destination {
            host,
            ip: None,
            has_credentials: creds,
        });
    }
    None
}

/// Parse a URL with a scheme (`https://…`, `ftp://…`, `s3://…`).
pub fn parse_url(s: &str) -> Option<Destination> {
    let s = s.trim().trim_matches(['"', '\'', '<', '>', '(', ')']);
    if !s.contains("://") {
        return None;
    }
    let u = url::Url::parse(s).ok()?;
    let host = u.host_str()?;
    let creds = !u.username().is_empty() && u.password().is_some();
    if u.scheme() == "s3" || u.scheme() == "gs" {
        return Some(Destination {
            host: format!(
                "{}.{}",
                host.to_ascii_lowercase(),
                if u.scheme() == "s3" {
                    "s3.amazonaws.com"
                } else {
                    "storage.googleapis.com"
                }
            ),
            ip: None,
            has_credentials: false,
        });
    }
    from_host(host, creds)
}

/// Could this web address carry data out in its own text? No: an `http(s)` address with no
/// query, fragment or credentials whose host labels and path segments are all made of words
/// (`https://pestphp.com/docs/plugins`, `https://docs.rs/tokio/1.40.0/tokio/`). Yes for
/// anything else: a query string, a random-looking label or segment (`/a8f3k29xq1`,
/// `x7f2.collector.example`), a long address. Used to tell reading documentation from a
/// request that could smuggle a value.
pub fn url_carries_data(s: &str) -> bool {
    let Ok(u) = url::Url::parse(s.trim()) else {
        return true;
    };
    if !matches!(u.scheme(), "http" | "https")
        || s.len() > 200
        || u.query().is_some_and(|q| !q.is_empty())
        || u.fragment().is_some_and(|f| !f.is_empty())
        || !u.username().is_empty()
        || u.password().is_some()
    {
        return true;
    }
    // A word: letters only (up to 24), a number (up to 6 digits, versions and ids), or a short
    // mix (`v2`, `es2020`, `h1`).
    let word = |p: &str| {
        p.is_empty()
            || (p.len() <= 24 && p.chars().all(|c| c.is_ascii_alphabetic()))
            || (p.len() <= 6 && p.chars().all(|c| c.is_ascii_digit()))
            || (p.len() <= 6 && p.chars().all(|c| c.is_ascii_alphanumeric()))
    };
    let wordy = |seg: &str| seg.split(['-', '_', '.', '~']).all(word);
    let host_ok = u.host_str().is_some_and(|h| h.split('.').all(wordy));
    let path_ok = u
        .path_segments()
        .is_some_and(|mut segs| segs.all(|seg| !seg.contains('%') && wordy(seg)));
    !(host_ok && path_ok)
}

/// Parse anything that names a destination: URL, `user@host:path`, `host:port`, bare host, IP.
pub fn parse_destination(s: &str) -> Option<Destination> {
    let s = s.trim();
    if s.is_empty() || s.len() > 2048 || s.starts_with('-') {
        return None;
    }
    if s.contains("://") {
        return parse_url(s);
    }
    // user@host[:path] (scp/ssh/rsync) or an e-mail address.
    let after_at = s.rsplit_once('@').map_or(s, |(_, h)| h);
    let host_part = after_at.split([':', '/']).next().unwrap_or("");
    if host_part.parse::<IpAddr>().is_ok() {
        return from_host(host_part, false);
    }
    // IPv6 in brackets.
    if let Some(inner) = after_at.strip_prefix('[').and_then(|r| r.split_once(']')) {
        return from_host(inner.0, false);
    }
    if after_at.parse::<IpAddr>().is_ok() {
        return from_host(after_at, false);
    }
    // Bare file names like `main.rs` or `archive.tar.gz` look like hosts: require either an
    // `@`/`:` context or a TLD that is not a common file extension.
    let has_context = s.contains('@') || s.contains(':');
    if !has_context && looks_like_file(host_part) {
        return None;
    }
    from_host(host_part, false)
}

fn looks_like_file(h: &str) -> bool {
    const EXT: &[&str] = &[
        "rs",
        "py",
        "js",
        "ts",
        "tsx",
        "jsx",
        "md",
        "txt",
        "json",
        "toml",
        "yaml",
        "yml",
        "lock",
        "sh",
        "gz",
        "tgz",
        "zip",
        "tar",
        "xz",
        "bz2",
        "log",
        "html",
        "css",
        "c",
        "h",
        "cpp",
        "go",
        "java",
        "kt",
        "rb",
        "php",
        "env",
        "cfg",
        "ini",
        "conf",
        "xml",
        "csv",
        "sql",
        "db",
        "pem",
        "key",
        "pub",
        "so",
        "dylib",
        "dll",
        "exe",
        "bin",
        "o",
        "a",
        "jar",
        "whl",
        "deb",
        "rpm",
        "png",
        "jpg",
        "svg",
        "pdf",
        "wasm",
        "mjs",
        "cjs",
        "vue",
        "svelte",
        "lua",
        "pl",
        "swift",
        "tf",
        "tfstate",
        "example",
        "sample",
        "local",
        "bak",
        "orig",
        "tmp",
        "cache",
        "d",
        "git",
        "gitignore",
        "dockerignore",
        "npmrc",
        "pyc",
        "class",
        "map",
        "snap",
        "dev",
        "prod",
        "test",
        "spec",
        "config",
        "min",
        "old",
        "new",
        "out",
        "err",
        "pid",
        "sock",
        "ron",
        "proto",
    ];
    h.rsplit('.')
        .next()
        .is_some_and(|ext| EXT.contains(&ext.to_ascii_lowercase().as_str()))
}

/// Destinations mentioned anywhere in free text (MCP arguments, request bodies): URLs,
/// e-mail addresses and raw IPs.
/// Hosts a person names in prose: what [`destinations_in_text`] finds, and bare host names
/// (`deploy to staging.acme.example`). Lower-cased.
pub fn hosts_named_in_text(text: &str) -> Vec<String> {
    let mut out: Vec<String> = destinations_in_text(text)
        .into_iter()
        .map(|d| d.host)
        .collect();
    for token in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '<' | '>' | ',' | ';' | '(' | ')' | '[' | ']' | '`'
            )
    }) {
        if out.len() >= 64 {
            break;
        }
        let t = token
            .trim_end_matches(['.', ':', '!', '?'])
            .to_ascii_lowercase();
        let t = t.rsplit_once('@').map_or(t.as_str(), |(_, h)| h);
        let t = t.split(':').next().unwrap_or(t);
        let tld_ok = t
            .rsplit('.')
            .next()
            .is_some_and(|l| l.len() >= 2 && l.chars().all(|c| c.is_ascii_alphabetic()));
        if t.contains('.') && tld_ok && valid_host_name(t) && !out.iter().any(|h| h == t) {
            out.push(t.to_owned());
        }
    }
    out
}

pub fn destinations_in_text(text: &str) -> Vec<Destination> {
    let mut out = Vec::new();
    for token in text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '<' | '>' | ',' | ';' | '(' | ')' | '[' | ']'
            )
    }) {
        if out.len() >= 64 {
            break;
        }
        let t = token.trim_end_matches(['.', ':']);
        if t.contains("://") {
            if let Some(d) = parse_url(t) {
                out.push(d);
            }
        } else if let Some((local, domain)) = t.split_once('@') {
            if !local.is_empty()
                && !domain.contains('@')
                && valid_host_name(&domain.to_ascii_lowercase())
                && let Some(d) = from_host(domain, false)
            {
                out.push(d);
            }
        } else if let Some(d) = t.parse::<IpAddr>().ok().and_then(|_| from_host(t, false)) {
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn urls_that_can_carry_data() {
        use super::url_carries_data;
        for plain in [
            "https://express-rate-limit.mintlify.app/overview",
            "https://pestphp.com/docs/plugins",
            "https://www.python-httpx.org/",
            "https://docs.rs/tokio/1.40.0/tokio/",
            "https://nextjs.org/docs/app/building-your-application/routing",
            "https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Cache-Control",
        ] {
            assert!(!url_carries_data(plain), "{plain}");
        }
        for data in [
            "https://collector.example/?k=abc",
            "https://collector.example/a8f3k29xq1",
            "https://x7f2k9q3.collector.example/",
            "https://collector.example/sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "https://collector.example/QVBJX1RPS0VO",
            "https://collector.example/%41%50%49",
            "https://user:pw@collector.example/",
            "https://collector.example/docs#token=abc",
            "ftp://collector.example/docs",
            "not a url",
        ] {
            assert!(url_carries_data(data), "{data}");
        }
    }

    use super::*;

    #[test]
    fn destination_table() {
        let cases: &[(&str, Option<&str>)] = &[
            ("https://evil.example/x?y=1", Some("evil.example")),
            ("http://203.0.113.5:8080/", Some("203.0.113.5")),
            ("attacker@203.0.113.5:", Some("203.0.113.5")),
            ("git@github.com:org/repo.git", Some("github.com")),
            ("evil.example:/loot", Some("evil.example")),
            ("api.github.com", Some("api.github.com")),
            ("main.rs", None),
            ("archive.tar.gz", None),
            ("./src", None),
            ("-d", None),
            ("s3://bucket/key", Some("bucket.s3.amazonaws.com")),
            ("localhost:3000", Some("localhost")),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_destination(input).map(|d| d.host),
                want.map(str::to_owned),
                "{input}"
            );
        }
        let d = parse_url("https://user:hunter2@evil.example/").unwrap();
        assert!(d.has_credentials);
        assert!(parse_destination("203.0.113.9").unwrap().is_raw_public_ip());
        assert!(!parse_destination("10.0.0.2").unwrap().is_raw_public_ip());
        assert!(parse_destination("127.0.0.1").unwrap().is_local());
    }

    #[test]
    fn text_destinations() {
        let d = destinations_in_text(
            "send to attacker@evil.example and http://198.51.100.7/x, also 203.0.113.2",
        );
        let hosts: Vec<&str> = d.iter().map(|d| d.host.as_str()).collect();
        assert_eq!(hosts, vec!["evil.example", "198.51.100.7", "203.0.113.2"]);
        assert!(destinations_in_text("version 1.2.3 of main.rs").is_empty());
    }
}
