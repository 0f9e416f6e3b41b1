//! A real ntfy-style topic server on 127.0.0.1 for tests (feature `test-receiver`): it keeps
//! what the relay published and serves the answer topic in ntfy's `json?poll=1` format, so the
//! relay runs against a real HTTP peer. Not compiled into the product.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test support

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_core::remote::{ChannelKind, RemoteConfig};

#[derive(Debug, Clone)]
pub struct Published {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

#[derive(Default)]
pub struct Topic {
    pub published: Vec<Published>,
    /// (id, unix time, text) in order.
    pub answers: Vec<(String, u64, String)>,
    /// For each poll served: how many answers had been delivered after it (cumulative max).
    pub polls: Vec<usize>,
}

pub struct Receiver {
    pub base: String,
    pub topic: Arc<Mutex<Topic>>,
}

pub fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn serve(mut s: TcpStream, topic: &Mutex<Topic>) {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    if r.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let target = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            let (k, v) = (k.trim().to_owned(), v.trim().to_owned());
            if k.eq_ignore_ascii_case("content-length") {
                len = v.parse().unwrap_or(0);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).unwrap();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let reply = if method == "POST" && path == "/notify" {
        topic.lock().unwrap().published.push(Published {
            path: path.to_owned(),
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        });
        r#"{"id":"pub","event":"message"}"#.to_owned()
    } else if method == "GET" && path == "/answers/json" {
        assert!(query.contains("poll=1"), "{query}");
        let since = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("since="))
            .unwrap_or("all")
            .to_owned();
        let mut t = topic.lock().unwrap();
        let start = match t.answers.iter().position(|(id, _, _)| *id == since) {
            Some(i) => i + 1,
            None => match since.parse::<u64>() {
                Ok(secs) => t
                    .answers
                    .iter()
                    .position(|(_, time, _)| *time >= secs)
                    .unwrap_or(t.answers.len()),
                Err(_) => 0,
            },
        };
        let out: String = t.answers[start..]
            .iter()
            .map(|(id, time, msg)| {
                serde_json::json!({"id": id, "time": time, "event": "message",
                    "topic": "answers", "message": msg})
                .to_string()
                    + "\n"
            })
            .collect();
        let delivered = t.answers.len().max(t.polls.last().copied().unwrap_or(0));
        t.polls.push(delivered);
        out
    } else {
        let _ = s
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    let _ = write!(
        s,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
        reply.len()
    );
}

impl Receiver {
    pub fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let topic = Arc::new(Mutex::new(Topic::default()));
        let t = Arc::clone(&topic);
        std::thread::spawn(move || {
            for s in listener.incoming().flatten() {
                let t = Arc::clone(&t);
                std::thread::spawn(move || serve(s, &t));
            }
        });
        Receiver { base, topic }
    }

    pub fn config(&self, kind: ChannelKind, after_secs: u64) -> RemoteConfig {
        RemoteConfig {
            kind,
            notify_url: format!("{}/notify", self.base),
            answer_url: format!("{}/answers", self.base),
            after_secs,
        }
    }

    /// Posts an answer on the topic; returns its index.
    pub fn answer(&self, text: &str) -> usize {
        let mut t = self.topic.lock().unwrap();
        let i = t.answers.len();
        t.answers
            .push((format!("m{i}"), now_unix(), text.to_owned()));
        i
    }

    /// Waits until answer `i` was delivered by a poll and the relay has polled again (it
    /// handles a poll's answers before its next poll).
    pub fn wait_handled(&self, i: usize) {
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            {
                let t = self.topic.lock().unwrap();
                if let Some(first) = t.polls.iter().position(|d| *d > i)
                    && t.polls.len() > first + 1
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("answer {i} was not handled in time");
    }

    pub fn wait_published(&self, n: usize) -> Vec<Published> {
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            let p = self.topic.lock().unwrap().published.clone();
            if p.len() >= n {
                return p;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("fewer than {n} announcements were published");
    }
}
