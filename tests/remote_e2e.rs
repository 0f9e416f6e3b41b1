//! Remote approval end to end (issue #14): the real hook binary asks the real broker; the
//! relay (`airlock-remote`) announces the request to a real HTTP receiver on loopback (a
//! small std server in this file that keeps what was published and serves the answer topic
//! in ntfy's `json?poll=1` format: `airlock_remote::test_receiver`), reads answers back from it, and checks each TOTP code
//! against the real store with `factors::verify`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code

use std::process::Child;
use std::sync::Arc;
use std::time::Duration;

use airlock_broker::{Broker, BrokerConfig, BrokerEvent, PendingRequest};
use airlock_core::factors;
use airlock_core::remote::{ChannelKind, RemoteConfig};
use airlock_e2e::{Sandbox, claude_bash};
use airlock_remote::test_receiver::{Receiver, now_unix};
use airlock_remote::{RelayOptions, RemoteError, RemoteRelay};
use airlock_store::Store;

const PW: &str = "correct horse battery";
const SECRET_TOKEN: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

// ---------------------------------------------------------------------------------------
// The rest of the machine: a user with TOTP, the broker, the hook.

/// A user with a password and TOTP enrolled (secret sealed under the password: no keyring in
/// tests). Returns the sandbox and the `otpauth://` URI (the authenticator's copy).
fn user_with_totp() -> (Sandbox, String) {
    let sb = Sandbox::new().unwrap();
    let store = Store::open(&sb.db_path()).unwrap();
    factors::set_password(&store, PW).unwrap();
    let (uri, _) = factors::begin_totp_enroll(&store, PW).unwrap();
    let code = factors::current_code_for_uri(&uri, now_unix()).unwrap();
    factors::finish_totp_enroll(&store, PW, &code, now_unix(), false).unwrap();
    (sb, uri)
}

fn code_now(uri: &str) -> String {
    factors::current_code_for_uri(uri, now_unix()).unwrap()
}

/// Sleeps into the next 30-second TOTP step (codes are single use per step).
fn next_step() {
    let now = now_unix();
    let next = (now / 30 + 1) * 30;
    std::thread::sleep(Duration::from_secs(next - now + 1));
}

/// Six digits that are not the code of the current step or either neighbour.
fn wrong_codes(uri: &str, n: usize) -> Vec<String> {
    let now = now_unix();
    let valid: Vec<String> = [now - 30, now, now + 30, now + 60]
        .iter()
        .map(|t| factors::current_code_for_uri(uri, *t).unwrap())
        .collect();
    (0..)
        .map(|i: u32| format!("{:06}", (i * 104_729 + 13) % 1_000_000))
        .filter(|c| !valid.contains(c))
        .take(n)
        .collect()
}

fn start_broker(
    sb: &Sandbox,
    deadline: Duration,
) -> (Arc<Broker>, std::sync::mpsc::Receiver<BrokerEvent>) {
    let mut cfg = BrokerConfig::new(sb.broker_socket());
    cfg.hard_deadline = deadline;
    let (b, events) = Broker::start(cfg, Store::open(&sb.db_path()).unwrap()).unwrap();
    (Arc::new(b), events)
}

fn fast() -> RelayOptions {
    RelayOptions {
        poll_every: Duration::from_millis(200),
        http_timeout: Duration::from_secs(5),
    }
}

fn start_relay(sb: &Sandbox, broker: &Arc<Broker>, cfg: RemoteConfig) -> RemoteRelay {
    RemoteRelay::start(
        cfg,
        Arc::clone(broker),
        Store::open(&sb.db_path()).unwrap(),
        Some(PW.to_owned()),
        fast(),
    )
    .unwrap()
}

fn next_pending(events: &std::sync::mpsc::Receiver<BrokerEvent>) -> PendingRequest {
    loop {
        match events.recv_timeout(Duration::from_secs(30)).unwrap() {
            BrokerEvent::Pending(p) => break p,
            BrokerEvent::Closed { .. } => continue,
        }
    }
}

fn outcomes(sb: &Sandbox) -> Vec<String> {
    sb.log_rows()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_owned())
        .collect()
}

/// The hook's exit code and stdout.
fn finish(child: Child) -> (Option<i32>, String) {
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

// ---------------------------------------------------------------------------------------

#[test]
fn an_approval_counts_only_bound_to_its_request_with_a_fresh_code() {
    let (sb, uri) = user_with_totp();
    let recv = Receiver::start();
    let (broker, events) = start_broker(&sb, Duration::from_secs(110));
    let relay = start_relay(&sb, &broker, recv.config(ChannelKind::Ntfy, 0));

    // 1. A request whose command carries a token: announced once, naming the request and how
    //    to answer, and nothing secret.
    let child = sb
        .spawn_hook(&claude_bash(
            "sess-r1-private",
            &format!("git reset --hard HEAD~1 && echo {SECRET_TOKEN}"),
        ))
        .unwrap();
    let a = next_pending(&events);
    let published = recv.wait_published(1);
    let msg = &published[0];
    assert_eq!(msg.path, "/notify");
    assert!(
        msg.body.contains(&format!("Request {}", a.id)),
        "{}",
        msg.body
    );
    assert!(
        msg.body
            .contains(&format!("approve {} <6-digit code", a.id)),
        "{}",
        msg.body
    );
    assert!(msg.body.contains(&format!("deny {}", a.id)), "{}", msg.body);
    assert!(msg.body.contains("git_discard_work"), "{}", msg.body);
    let secret_param = uri
        .split(['?', '&'])
        .find_map(|kv| kv.strip_prefix("secret="))
        .unwrap();
    for (what, s) in [
        ("the token", &SECRET_TOKEN[..12]),
        ("the password", PW),
        ("the TOTP secret", secret_param),
        ("the session id", "sess-r1-private"),
    ] {
        assert!(!msg.body.contains(s), "{what} was published: {}", msg.body);
        for (_, v) in &msg.headers {
            assert!(!v.contains(s), "{what} in a header");
        }
    }
    assert!(
        msg.headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("title") && v.contains(&a.id.to_string())),
        "{:?}",
        msg.headers
    );

    // 2. A right code naming another id approves nothing — and is used up.
    let c1 = code_now(&uri);
    recv.wait_handled(recv.answer(&format!("approve {} {c1}", a.id + 1000)));
    assert!(
        broker.get(a.id).is_some(),
        "an answer for another id approved this one"
    );

    // 3. That code, seen on the channel, replayed for this request: refused.
    recv.wait_handled(recv.answer(&format!("approve {} {c1}", a.id)));
    assert!(
        broker.get(a.id).is_some(),
        "a replayed code approved the request"
    );

    // 4. A fresh code, bound to this request: approved once; the call runs.
    next_step();
    let c2 = code_now(&uri);
    recv.answer(&format!("approve {} {c2}", a.id));
    let (code, out) = finish(child);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.trim(), "{}");

    // 5. A second request: the code used for the first, replayed from the channel, is refused;
    //    `deny` (no factor) denies it.
    let child = sb
        .spawn_hook(&claude_bash("r2", "git reset --hard HEAD~2"))
        .unwrap();
    let b = next_pending(&events);
    assert_ne!(a.id, b.id);
    recv.wait_published(2);
    recv.wait_handled(recv.answer(&format!("approve {} {c2}", b.id)));
    assert!(
        broker.get(b.id).is_some(),
        "a code used once approved a second request"
    );
    recv.answer(&format!("deny {}", b.id));
    let (code, out) = finish(child);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("deny"), "{out}");

    assert_eq!(outcomes(&sb), vec!["approved", "denied"]);
    // Exactly one announcement per request.
    assert_eq!(recv.topic.lock().unwrap().published.len(), 2);
    relay.stop();
    broker.shutdown();
}

#[test]
fn three_wrong_codes_lock_remote_answers_for_that_request() {
    let (sb, uri) = user_with_totp();
    let recv = Receiver::start();
    let (broker, events) = start_broker(&sb, Duration::from_secs(110));
    let relay = start_relay(&sb, &broker, recv.config(ChannelKind::Webhook, 0));

    let child = sb
        .spawn_hook(&claude_bash("w1", "git reset --hard HEAD~3"))
        .unwrap();
    let a = next_pending(&events);
    let published = recv.wait_published(1);
    // The webhook gets JSON naming the request.
    let v: serde_json::Value = serde_json::from_str(&published[0].body).unwrap();
    assert_eq!(v["id"], a.id);
    assert_eq!(v["answer"]["deny"], format!("deny {}", a.id));
    assert!(
        v["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "git_discard_work")
    );

    // Two wrong codes: still pending, still answerable.
    let wrong = wrong_codes(&uri, 3);
    for c in &wrong[..2] {
        recv.wait_handled(recv.answer(&format!("approve {} {c}", a.id)));
        assert!(broker.get(a.id).is_some());
    }
    // A look-alike with unicode digits is not an answer at all.
    recv.wait_handled(recv.answer(&format!("approve {} １２３４５６", a.id)));
    // The third wrong code locks the request's remote answers ...
    recv.wait_handled(recv.answer(&format!("approve {} {}", a.id, wrong[2])));
    // ... so even the right, fresh code is ignored now.
    let right = code_now(&uri);
    recv.wait_handled(recv.answer(&format!("approve {} {right}", a.id)));
    assert!(
        broker.get(a.id).is_some(),
        "a locked request was approved remotely"
    );
    // And a deny from the channel is ignored too: the desk decides.
    recv.wait_handled(recv.answer(&format!("deny {}", a.id)));
    assert!(
        broker.get(a.id).is_some(),
        "a locked request was answered remotely"
    );
    broker
        .resolve(a.id, airlock_broker::Decision::Denied)
        .unwrap();
    let (code, _) = finish(child);
    assert_eq!(code, Some(2));
    assert_eq!(outcomes(&sb), vec!["denied"]);
    relay.stop();
    broker.shutdown();
}

#[test]
fn the_deadline_still_holds_and_after_delays_the_announcement() {
    let (sb, uri) = user_with_totp();
    let recv = Receiver::start();
    let (broker, events) = start_broker(&sb, Duration::from_secs(5));
    let relay = start_relay(&sb, &broker, recv.config(ChannelKind::Slack, 2));

    let child = sb
        .spawn_hook(&claude_bash("d1", "git reset --hard HEAD~3"))
        .unwrap();
    let a = next_pending(&events);
    // Not announced while the desk has its first 2 seconds.
    std::thread::sleep(Duration::from_millis(1200));
    assert!(
        recv.topic.lock().unwrap().published.is_empty(),
        "announced before --after"
    );
    let published = recv.wait_published(1);
    let v: serde_json::Value = serde_json::from_str(&published[0].body).unwrap();
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .contains(&format!("deny {}", a.id))
    );
    // Nobody answers in time: a timeout, as at the desk.
    let (code, _) = finish(child);
    assert_eq!(code, Some(2));
    // A right code after the deadline approves nothing.
    recv.answer(&format!("approve {} {}", a.id, code_now(&uri)));
    std::thread::sleep(Duration::from_millis(600));
    assert!(broker.get(a.id).is_none());
    assert_eq!(outcomes(&sb), vec!["timeout"]);
    relay.stop();
    broker.shutdown();
}

#[test]
fn the_relay_refuses_to_start_without_totp_or_without_the_unlock() {
    let sb = Sandbox::new().unwrap();
    let store = Store::open(&sb.db_path()).unwrap();
    factors::set_password(&store, PW).unwrap();
    let recv = Receiver::start();
    let (broker, _events) = start_broker(&sb, Duration::from_secs(5));
    let err = RemoteRelay::start(
        recv.config(ChannelKind::Ntfy, 0),
        Arc::clone(&broker),
        Store::open(&sb.db_path()).unwrap(),
        Some(PW.to_owned()),
        fast(),
    )
    .unwrap_err();
    assert!(matches!(err, RemoteError::NoTotp), "{err}");
    assert!(err.to_string().contains("TOTP"), "{err}");

    // With TOTP sealed under the password: refused without it, and with a wrong one.
    let (uri, _) = factors::begin_totp_enroll(&store, PW).unwrap();
    factors::finish_totp_enroll(&store, PW, &code_now(&uri), now_unix(), false).unwrap();
    let start = |unlock: Option<&str>| {
        RemoteRelay::start(
            recv.config(ChannelKind::Ntfy, 0),
            Arc::clone(&broker),
            Store::open(&sb.db_path()).unwrap(),
            unlock.map(str::to_owned),
            fast(),
        )
    };
    assert!(matches!(start(None), Err(RemoteError::SealedSecret)));
    assert!(start(Some("wrong password")).is_err());
    // A channel that is not https (nor this machine) is refused too.
    let mut cfg = recv.config(ChannelKind::Ntfy, 0);
    cfg.notify_url = "http://ntfy.example/topic".into();
    assert!(matches!(
        RemoteRelay::start(
            cfg,
            Arc::clone(&broker),
            Store::open(&sb.db_path()).unwrap(),
            Some(PW.to_owned()),
            fast()
        ),
        Err(RemoteError::Config(_))
    ));
    start(Some(PW)).unwrap().stop();
    broker.shutdown();
}

fn ledger(sb: &Sandbox) -> Vec<serde_json::Value> {
    let (code, out, err) = sb.run(&["policy-history", "--json"], "");
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn setting_the_channel_needs_totp_and_the_factor_and_is_ledgered() {
    let sb = Sandbox::new().unwrap();
    let pw = format!("{PW}\n");
    assert_eq!(sb.run(&["password", "set", "--password-stdin"], &pw).0, 0);
    let set = [
        "remote",
        "set",
        "--kind",
        "ntfy",
        "--notify-url",
        "https://ntfy.sh/airlock-test-out",
        "--answer-url",
        "https://ntfy.sh/airlock-test-in",
        "--after",
        "60",
        "--password-stdin",
    ];
    // No TOTP: refused outright (a password never goes through a channel).
    let (c, _, err) = sb.run(&set, &pw);
    assert_eq!(c, 1);
    assert!(err.contains("TOTP"), "{err}");

    let store = Store::open(&sb.db_path()).unwrap();
    let (uri, _) = factors::begin_totp_enroll(&store, PW).unwrap();
    factors::finish_totp_enroll(&store, PW, &code_now(&uri), now_unix(), false).unwrap();

    // Without a code: refused, ledgered `refused`, nothing set.
    let (c, _, err) = sb.run(&set, &pw);
    assert_eq!(c, 1, "{err}");
    let rows = ledger(&sb);
    assert!(
        rows.iter()
            .any(|r| r["kind"] == "remote_approval" && r["outcome"] == "refused"),
        "{rows:?}"
    );
    assert!(sb.run(&["remote"], "").1.contains("remote approval: off"));

    // With the password and a current code: applied and ledgered with the factor.
    let mut with_code = set.to_vec();
    let code = code_now(&uri);
    with_code.extend(["--code", &code]);
    let (c, out, err) = sb.run(&with_code, &pw);
    assert_eq!(c, 0, "{err}");
    assert!(out.contains("remote approval on"), "{out}");
    let rows = ledger(&sb);
    assert!(
        rows.iter().any(|r| r["kind"] == "remote_approval"
            && r["outcome"] == "applied"
            && r["factor"] == "totp"),
        "{rows:?}"
    );
    let (_, out, _) = sb.run(&["remote"], "");
    assert!(out.contains("on (ntfy via ntfy.sh"), "{out}");
    assert!(out.contains("after 60 s"), "{out}");
    assert!(
        !out.contains("airlock-test-in"),
        "the topic is not shown: {out}"
    );
    let (_, out, err) = sb.run(&["status"], "");
    assert!(
        out.contains("remote:      on (ntfy via ntfy.sh"),
        "{out}{err}"
    );
    assert_eq!(
        airlock_core::remote::current(&store)
            .unwrap()
            .unwrap()
            .after_secs,
        60
    );

    // Off: no factor, ledgered.
    let (c, out, err) = sb.run(&["remote", "off"], "");
    assert_eq!(c, 0, "{err}");
    assert!(out.contains("remote approval off"), "{out}");
    assert!(
        ledger(&sb)
            .iter()
            .any(|r| r["kind"] == "remote_approval_off" && r["factor"] == "none")
    );
    assert_eq!(airlock_core::remote::current(&store).unwrap(), None);
}
