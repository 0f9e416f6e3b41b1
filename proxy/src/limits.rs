//! Per-tool rate limits: one token bucket per tool, per proxy session.
//!
//! A rate `N/period` is a bucket of `N` tokens refilled continuously at `N` per period: a
//! burst of `N` calls is fine, a runaway loop is not. A call that finds the bucket empty is
//! BLOCKed (`mcp_rate_limited`) before the server sees it. Time is passed in, so the buckets
//! are tested without sleeping.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A rate: `calls` per `per`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub calls: u32,
    pub per: Duration,
}

impl Rate {
    /// Parse `N/s`, `N/sec`, `N/min`, `N/h` (also `N/second`, `N/minute`, `N/hour`).
    pub fn parse(s: &str) -> Result<Rate, String> {
        let bad = || {
            format!("`{s}` is not a rate: write calls per period, e.g. `30/min`, `5/s`, `500/h`")
        };
        let (n, unit) = s.trim().split_once('/').ok_or_else(bad)?;
        let calls: u32 = n.trim().parse().map_err(|_| bad())?;
        if calls == 0 {
            return Err(format!("`{s}`: a rate needs at least one call per period"));
        }
        let per = match unit.trim().to_ascii_lowercase().as_str() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(bad()),
        };
        Ok(Rate { calls, per })
    }
}

#[derive(Debug, Clone)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// The buckets of one proxy session.
#[derive(Debug, Default)]
pub struct RateLimiter {
    buckets: HashMap<String, Bucket>,
}

/// Most tools tracked (a server cannot grow the map without bound by listing tool names).
const MAX_BUCKETS: usize = 4096;

impl RateLimiter {
    /// Take one token for `tool` at `now`; false when the bucket is empty.
    pub fn allow(&mut self, tool: &str, rate: Rate, now: Instant) -> bool {
        let cap = f64::from(rate.calls);
        let per_sec = cap / rate.per.as_secs_f64().max(f64::EPSILON);
        if !self.buckets.contains_key(tool) && self.buckets.len() >= MAX_BUCKETS {
            // Full: forget the fullest buckets (they would allow a call anyway).
            self.buckets.retain(|_, b| b.tokens < 1.0);
            if self.buckets.len() >= MAX_BUCKETS {
                return false;
            }
        }
        let b = self.buckets.entry(tool.to_owned()).or_insert(Bucket {
            tokens: cap,
            last: now,
        });
        let elapsed = now.saturating_duration_since(b.last).as_secs_f64();
        b.tokens = (b.tokens + elapsed * per_sec).min(cap);
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rates() {
        for (s, want) in [
            ("30/min", Some((30, 60))),
            (" 5 / s ", Some((5, 1))),
            ("500/hour", Some((500, 3600))),
            ("1/sec", Some((1, 1))),
            ("0/min", None),
            ("lots", None),
            ("5/day", None),
            ("-1/s", None),
        ] {
            let got = Rate::parse(s).ok().map(|r| (r.calls, r.per.as_secs()));
            assert_eq!(got, want, "{s}");
        }
    }

    #[test]
    fn bucket_allows_a_burst_then_refills() {
        let rate = Rate::parse("3/min").unwrap();
        let mut l = RateLimiter::default();
        let t0 = Instant::now();
        assert!(l.allow("send", rate, t0));
        assert!(l.allow("send", rate, t0));
        assert!(l.allow("send", rate, t0));
        assert!(!l.allow("send", rate, t0), "burst of 3 exhausted");
        // Another tool has its own bucket.
        assert!(l.allow("read", rate, t0));
        // One token back after 20 s, not two.
        let t1 = t0 + Duration::from_secs(20);
        assert!(l.allow("send", rate, t1));
        assert!(!l.allow("send", rate, t1));
        // Never more than the burst, however long the pause.
        let t2 = t1 + Duration::from_secs(3600);
        for _ in 0..3 {
            assert!(l.allow("send", rate, t2));
        }
        assert!(!l.allow("send", rate, t2));
    }
}
