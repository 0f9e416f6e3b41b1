//! The relay thread: announce pending requests, read answers, and let an answer count only
//! when it is bound to a pending, announced request and proven with a fresh TOTP code.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use airlock_broker::{Broker, BrokerError, Decision, now_ms};
use airlock_core::clock;
use airlock_core::factors::{self, FactorError, Proof};
use airlock_core::remote::RemoteConfig;
use airlock_store::Store;

use crate::RemoteError;
use crate::answer::{self, Answer};
use crate::channel::{Channel, announcement};

/// Wrong codes for one request after which remote answers for it are ignored.
pub const MAX_WRONG_PER_REQUEST: u8 = 3;
/// Wrong codes within [`WRONG_WINDOW`], over all requests, after which every remote approval
/// is ignored until the window has passed (guessing codes across many requests).
pub const MAX_WRONG_TOTAL: usize = 10;
/// The window of [`MAX_WRONG_TOTAL`].
pub const WRONG_WINDOW: Duration = Duration::from_secs(3600);
/// Publishing attempts per request.
const MAX_PUBLISH_ATTEMPTS: u8 = 3;
/// Answer-topic message ids remembered (so a message is never handled twice).
const SEEN_CAP: usize = 1024;
/// How often the relay looks at the broker's pending requests.
const TICK: Duration = Duration::from_millis(250);

/// How often and how patiently the relay talks to the channel.
#[derive(Debug, Clone)]
pub struct RelayOptions {
    /// How often the answer topic is polled while an announced request is pending (never
    /// otherwise). ntfy.sh allows a request every 5 s on average.
    pub poll_every: Duration,
    /// Bound on each HTTP request.
    pub http_timeout: Duration,
}

impl Default for RelayOptions {
    fn default() -> RelayOptions {
        RelayOptions {
            poll_every: Duration::from_secs(6),
            http_timeout: Duration::from_secs(10),
        }
    }
}

/// The running relay. Stop it with [`RemoteRelay::stop`] (also on drop).
pub struct RemoteRelay {
    stop: Mutex<Option<Sender<()>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for RemoteRelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteRelay").finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Tracked {
    announced: bool,
    attempts: u8,
    wrong: u8,
    locked: bool,
}

struct Relay {
    cfg: RemoteConfig,
    broker: Arc<Broker>,
    store: Store,
    /// The password, only when the TOTP secret is sealed under it (no keyring).
    unlock: Option<String>,
    channel: Channel,
    opts: RelayOptions,
    /// The answer topic's cursor: unix seconds at start, then the last message id.
    since: String,
    seen: HashSet<String>,
    seen_order: VecDeque<String>,
    tracked: HashMap<i64, Tracked>,
    wrong_times: VecDeque<Instant>,
    last_poll: Option<Instant>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl RemoteRelay {
    /// Starts relaying `broker`'s pending requests to the channel `cfg`.
    ///
    /// Refused ([`RemoteError::NoTotp`]) unless TOTP is enrolled in `store`: a password must
    /// never travel through a chat channel. When the TOTP secret is sealed under the password
    /// (no OS keyring), `unlock` must carry that password, which is checked here and kept in
    /// memory only to open the secret ([`RemoteError::SealedSecret`] without it).
    pub fn start(
        cfg: RemoteConfig,
        broker: Arc<Broker>,
        store: Store,
        unlock: Option<String>,
        opts: RelayOptions,
    ) -> Result<RemoteRelay, RemoteError> {
        cfg.validate()?;
        if !factors::totp_enrolled(&store)? {
            return Err(RemoteError::NoTotp);
        }
        if factors::totp_needs_password(&store)? {
            let Some(pw) = unlock.as_deref() else {
                return Err(RemoteError::SealedSecret);
            };
            factors::verify_password(&store, pw)?;
        }
        let channel = Channel::new(&cfg, opts.http_timeout);
        let mut relay = Relay {
            since: clock::now_unix().to_string(),
            cfg,
            broker,
            store,
            unlock,
            channel,
            opts,
            seen: HashSet::new(),
            seen_order: VecDeque::new(),
            tracked: HashMap::new(),
            wrong_times: VecDeque::new(),
            last_poll: None,
        };
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("airlock-remote-relay".into())
            .spawn(move || {
                tracing::info!(channel = %relay.cfg.kind, "remote approval relay started");
                while let Err(RecvTimeoutError::Timeout) = stop_rx.recv_timeout(TICK) {
                    relay.tick();
                }
                tracing::info!("remote approval relay stopped");
            })
            .map_err(RemoteError::Thread)?;
        Ok(RemoteRelay {
            stop: Mutex::new(Some(stop_tx)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Stops the relay (waits for an HTTP request in flight, at most its timeout).
    /// Idempotent. Pending requests are untouched: they end at the desk or the deadline.
    pub fn stop(&self) {
        drop(lock(&self.stop).take());
        if let Some(t) = lock(&self.thread).take() {
            let _ = t.join();
        }
    }
}

impl Drop for RemoteRelay {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Relay {
    fn tick(&mut self) {
        let pending = self.broker.pending();
        let live: HashSet<i64> = pending.iter().map(|p| p.id).collect();
        self.tracked.retain(|id, _| live.contains(id));
        let now = now_ms();
        let after_ms = i64::try_from(self.cfg.after_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        for p in &pending {
            let t = self.tracked.entry(p.id).or_default();
            if t.announced
                || t.attempts >= MAX_PUBLISH_ATTEMPTS
                || now < p.created_ms.saturating_add(after_ms)
                || now >= p.deadline_ms
            {
                continue;
            }
            t.attempts += 1;
            match self.channel.publish(&announcement(p, now)) {
                Ok(()) => {
                    t.announced = true;
                    tracing::info!(id = p.id, channel = %self.cfg.kind, high_risk = p.high_risk, "remote approval: request announced");
                }
                Err(e) => {
                    tracing::warn!(id = p.id, attempt = t.attempts, error = %e, "remote approval: could not announce the request");
                }
            }
        }
        let waiting = self.tracked.values().any(|t| t.announced);
        let due = self
            .last_poll
            .is_none_or(|at| at.elapsed() >= self.opts.poll_every);
        if waiting && due {
            self.last_poll = Some(Instant::now());
            match self.channel.poll(&self.since) {
                Ok(messages) => {
                    for m in messages {
                        if !self.remember(&m.id) {
                            continue;
                        }
                        self.since.clone_from(&m.id);
                        match answer::parse(&m.message) {
                            Some(a) => self.handle(a),
                            None => tracing::debug!(
                                "remote approval: a message that is not an answer, ignored"
                            ),
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "remote approval: could not read answers"),
            }
        }
    }

    /// True the first time a message id is seen.
    fn remember(&mut self, id: &str) -> bool {
        if !self.seen.insert(id.to_owned()) {
            return false;
        }
        self.seen_order.push_back(id.to_owned());
        if self.seen_order.len() > SEEN_CAP
            && let Some(old) = self.seen_order.pop_front()
        {
            self.seen.remove(&old);
        }
        true
    }

    fn wrong_recently(&mut self) -> usize {
        while self
            .wrong_times
            .front()
            .is_some_and(|t| t.elapsed() >= WRONG_WINDOW)
        {
            self.wrong_times.pop_front();
        }
        self.wrong_times.len()
    }

    /// Whether request `id` is pending, was announced, and is not locked out.
    fn answerable(&self, id: i64) -> bool {
        self.tracked
            .get(&id)
            .is_some_and(|t| t.announced && !t.locked)
            && self.broker.get(id).is_some()
    }

    fn handle(&mut self, a: Answer) {
        let kind = self.cfg.kind;
        match a {
            Answer::Deny { id } => {
                if !self.answerable(id) {
                    tracing::info!(id, channel = %kind, "remote answer: deny for a request that is not announced and pending, ignored");
                    return;
                }
                match self.broker.resolve(id, Decision::Denied) {
                    Ok(()) => {
                        tracing::info!(id, channel = %kind, outcome = "denied", "remote answer: request denied")
                    }
                    Err(e) => {
                        tracing::info!(id, channel = %kind, error = %e, "remote answer: deny not applied")
                    }
                }
            }
            Answer::Approve { id, code } => {
                let answerable = self.answerable(id);
                let suspended = self.wrong_recently() >= MAX_WRONG_TOTAL;
                // The code is checked (and so used up, when right) whatever the answer names:
                // a code that appeared on the channel can never approve anything later.
                let proof = Proof {
                    password: self.unlock.clone(),
                    code: Some(code),
                };
                match factors::verify_with_own_limits(&self.store, &proof, clock::now_unix()) {
                    Ok(_) if answerable && !suspended => self.approve(id),
                    Ok(_) => tracing::warn!(
                        id,
                        channel = %kind,
                        suspended,
                        "remote answer: right code, but the request it names is not announced and pending (or is locked out): nothing approved, the code is used up"
                    ),
                    Err(e @ (FactorError::WrongCode | FactorError::CodeReused)) => {
                        self.wrong_times.push_back(Instant::now());
                        let t = self.tracked.get_mut(&id);
                        let mut locked_now = false;
                        if let Some(t) = t {
                            t.wrong = t.wrong.saturating_add(1);
                            if t.wrong >= MAX_WRONG_PER_REQUEST && !t.locked {
                                t.locked = true;
                                locked_now = true;
                            }
                        }
                        tracing::warn!(id, channel = %kind, error = %e, "remote answer: approval refused");
                        if locked_now {
                            tracing::warn!(id, channel = %kind, "remote answer: {MAX_WRONG_PER_REQUEST} wrong codes for this request; its remote answers are ignored from now on (the desk can still answer)");
                        }
                        if self.wrong_recently() == MAX_WRONG_TOTAL {
                            tracing::warn!(channel = %kind, "remote answer: {MAX_WRONG_TOTAL} wrong codes within an hour; remote approvals are suspended until the hour has passed");
                        }
                    }
                    Err(e) => {
                        tracing::warn!(id, channel = %kind, error = %e, "remote answer: the code could not be checked; nothing approved");
                    }
                }
            }
        }
    }

    fn approve(&mut self, id: i64) {
        let kind = self.cfg.kind;
        let high_risk = self.broker.get(id).is_some_and(|p| p.high_risk);
        let mut result = self.broker.resolve(id, Decision::Approved);
        if let Err(BrokerError::NotArmed { wait_ms, .. }) = result {
            // Within the arm delay (a very quick answer): wait it out once.
            std::thread::sleep(Duration::from_millis(wait_ms.min(5_000)));
            result = self.broker.resolve(id, Decision::Approved);
        }
        match result {
            Ok(()) => {
                tracing::info!(id, channel = %kind, high_risk, outcome = "approved", actor = "remote", "remote answer: request approved once")
            }
            Err(BrokerError::NotPending(_)) => {
                tracing::info!(id, channel = %kind, "remote answer: the request ended before the approval (deadline or desk); nothing approved")
            }
            Err(e) => {
                tracing::warn!(id, channel = %kind, error = %e, "remote answer: approval not applied")
            }
        }
    }
}
