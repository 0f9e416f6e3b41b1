//! Possession factors: the local password (argon2id) and TOTP (totp-rs).
//!
//! Every weakening needs a factor: the TOTP code when TOTP is enrolled, else the password.
//! The TOTP secret lives in the OS keyring (`keyring`). Where no keyring exists (headless
//! Linux without a Secret Service), the fallback keeps it in the store encrypted with
//! ChaCha20-Poly1305 under a key derived from the password by argon2id: verifying a code then
//! needs the password *and* the code, so the fallback is never weaker than the password.

use airlock_store::Store;
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use totp_rs::{Algorithm, Secret, TOTP};

const PASSWORD_KEY: &str = "password_hash";
const TOTP_KEY: &str = "totp";
const TOTP_PENDING_KEY: &str = "totp_pending";
/// The last TOTP time step a code was accepted for (codes are single-use).
const TOTP_LAST_STEP_KEY: &str = "totp_last_step";
/// TOTP time step, seconds.
const TOTP_STEP: u64 = 30;
const KEYRING_SERVICE: &str = "dev.airlock.totp";
const KEYRING_USER: &str = "airlock";
pub const MIN_PASSWORD_LEN: usize = 8;

#[derive(Debug, Error)]
pub enum FactorError {
    #[error("no password is set: run `airlock password set` first")]
    NoPassword,
    #[error("a password is already set: use `airlock password change`")]
    PasswordExists,
    #[error("the password must be at least {MIN_PASSWORD_LEN} characters")]
    WeakPassword,
    #[error("wrong password")]
    WrongPassword,
    #[error("TOTP is enrolled: a current TOTP code is required")]
    TotpRequired,
    #[error("wrong or expired TOTP code")]
    WrongCode,
    #[error("that TOTP code was already used: wait for the next one")]
    CodeReused,
    #[error("TOTP is not enrolled")]
    NotEnrolled,
    #[error("no TOTP enrolment is in progress: run `airlock totp enroll` first")]
    NoPendingEnrolment,
    #[error("the TOTP secret could not be read (keyring or encrypted store): {0}")]
    SecretUnavailable(String),
    #[error("store: {0}")]
    Store(#[from] airlock_store::StoreError),
    #[error("{0}")]
    Crypto(String),
    #[error(
        "no terminal to ask for the factor: pass --password-stdin (and --code CODE once TOTP is enrolled)"
    )]
    NoTerminal,
    #[error("too many wrong passwords or codes: try again in {secs} s")]
    Throttled { secs: u64 },
}

/// Wrong factors in a row before each further attempt waits ([`verify`]).
pub const FREE_FAILURES: u64 = 5;
/// The first wait after [`FREE_FAILURES`] wrong factors, doubled for each one after, up to
/// [`MAX_WAIT_SECS`].
pub const FIRST_WAIT_SECS: u64 = 30;
pub const MAX_WAIT_SECS: u64 = 3600;
const FAILURES_KEY: &str = "factor_failures";
const LOCKED_UNTIL_KEY: &str = "factor_locked_until";

/// The wait after `failures` wrong factors in a row (0 while under [`FREE_FAILURES`]).
pub fn wait_after(failures: u64) -> u64 {
    if failures < FREE_FAILURES {
        return 0;
    }
    let doublings = u32::try_from(failures - FREE_FAILURES)
        .unwrap_or(u32::MAX)
        .min(16);
    FIRST_WAIT_SECS
        .saturating_mul(1u64 << doublings)
        .min(MAX_WAIT_SECS)
}

fn setting_u64(store: &Store, key: &str) -> Result<u64, FactorError> {
    Ok(store
        .setting(key)?
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0))
}

/// Where the TOTP secret is kept.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case", tag = "storage")]
enum TotpState {
    Keyring,
    Encrypted { blob: Sealed },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Sealed {
    salt: String,
    nonce: String,
    ct: String,
}

/// What the user proved.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Proof {
    pub password: Option<String>,
    pub code: Option<String>,
}

fn random<const N: usize>() -> Result<[u8; N], FactorError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| FactorError::Crypto(e.to_string()))?;
    Ok(b)
}

fn derive_key(password: &str, salt: &[u8]) -> Result<[u8; 32], FactorError> {
    let mut key = [0u8; 32];
    Argon2::default()
        .hash_password_into(password.as_bytes(), salt, &mut key)
        .map_err(|e| FactorError::Crypto(e.to_string()))?;
    Ok(key)
}

fn seal(password: &str, plaintext: &[u8]) -> Result<Sealed, FactorError> {
    let salt = random::<16>()?;
    let nonce = random::<12>()?;
    let key = derive_key(password, &salt)?;
    let cipher = ChaCha20Poly1305::new(Key::from_slice(&key));
    let ct = cipher
        .encrypt(Nonce::from_slice(&nonce), plaintext)
        .map_err(|e| FactorError::Crypto(e.to_string()))?;
    Ok(Sealed {
        salt: hex::encode(salt),
        nonce: hex::encode(nonce),
        ct: hex::encode(ct),
    })
}

fn open_sealed(password: &str, s: &Sealed) -> Result<Vec<u8>, FactorError> {
    let bad = |_| FactorError::SecretUnavailable("damaged encrypted secret".into());
    let salt = hex::decode(&s.salt).map_err(bad)?;
    let nonce = hex::decode(&s.nonce).map_err(bad)?;
    let ct = hex::decode(&s.ct).map_err(bad)?;
    if nonce.len() != 12 {
        return Err(FactorError::SecretUnavailable(
            "damaged encrypted secret".into(),
        ));
    }
    let key = derive_key(password, &salt)?;
    let cipher = ChaCha20Poly1305::new(Key::from_slice(&key));
    cipher
        .decrypt(Nonce::from_slice(&nonce), ct.as_slice())
        .map_err(|_| FactorError::WrongPassword)
}

pub fn password_is_set(store: &Store) -> Result<bool, FactorError> {
    Ok(store.setting(PASSWORD_KEY)?.is_some())
}

fn hash_password(password: &str) -> Result<String, FactorError> {
    if password.chars().count() < MIN_PASSWORD_LEN {
        return Err(FactorError::WeakPassword);
    }
    let salt =
        SaltString::encode_b64(&random::<16>()?).map_err(|e| FactorError::Crypto(e.to_string()))?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|e| FactorError::Crypto(e.to_string()))?
        .to_string())
}

/// Set the first password. Refused if one exists.
pub fn set_password(store: &Store, password: &str) -> Result<(), FactorError> {
    if password_is_set(store)? {
        return Err(FactorError::PasswordExists);
    }
    store.set_setting(PASSWORD_KEY, &hash_password(password)?)?;
    Ok(())
}

pub fn verify_password(store: &Store, password: &str) -> Result<(), FactorError> {
    let Some(stored) = store.setting(PASSWORD_KEY)? else {
        return Err(FactorError::NoPassword);
    };
    let parsed = PasswordHash::new(&stored).map_err(|e| FactorError::Crypto(e.to_string()))?;
    Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .map_err(|_| FactorError::WrongPassword)
}

/// Change the password (needs the current one). An encrypted TOTP secret is re-sealed.
pub fn change_password(store: &Store, current: &str, new: &str) -> Result<(), FactorError> {
    verify_password(store, current)?;
    let hash = hash_password(new)?;
    if let Some(TotpState::Encrypted { blob }) = totp_state(store)? {
        let secret = open_sealed(current, &blob)?;
        let state = TotpState::Encrypted {
            blob: seal(new, &secret)?,
        };
        store.set_setting(
            TOTP_KEY,
            &serde_json::to_string(&state).map_err(|e| FactorError::Crypto(e.to_string()))?,
        )?;
    }
    store.set_setting(PASSWORD_KEY, &hash)?;
    Ok(())
}

fn totp_state(store: &Store) -> Result<Option<TotpState>, FactorError> {
    match store.setting(TOTP_KEY)? {
        None => Ok(None),
        Some(s) => serde_json::from_str(&s)
            .map(Some)
            .map_err(|_| FactorError::SecretUnavailable("damaged TOTP settings".into())),
    }
}

pub fn totp_enrolled(store: &Store) -> Result<bool, FactorError> {
    Ok(totp_state(store)?.is_some())
}

fn totp_from(secret: Vec<u8>) -> Result<TOTP, FactorError> {
    TOTP::new(
        Algorithm::SHA1,
        6,
        1,
        30,
        secret,
        Some("Airlock".into()),
        "airlock".into(),
    )
    .map_err(|e| FactorError::Crypto(e.to_string()))
}

/// Start enrolment: make a secret, keep it pending (sealed under the password), return the
/// `otpauth://` URI and a QR code PNG for an authenticator app.
pub fn begin_totp_enroll(store: &Store, password: &str) -> Result<(String, Vec<u8>), FactorError> {
    verify_password(store, password)?;
    let secret = Secret::generate_secret()
        .to_bytes()
        .map_err(|e| FactorError::Crypto(e.to_string()))?;
    let totp = totp_from(secret.clone())?;
    let sealed = seal(password, &secret)?;
    store.set_setting(
        TOTP_PENDING_KEY,
        &serde_json::to_string(&sealed).map_err(|e| FactorError::Crypto(e.to_string()))?,
    )?;
    let png = totp.get_qr_png().map_err(FactorError::Crypto)?;
    Ok((totp.get_url(), png))
}

/// A QR code (PNG) of an `otpauth://` URI, for a client to show what the service offered.
pub fn qr_png(uri: &str) -> Result<Vec<u8>, FactorError> {
    TOTP::from_url(uri)
        .map_err(|e| FactorError::Crypto(e.to_string()))?
        .get_qr_png()
        .map_err(FactorError::Crypto)
}

/// Finish enrolment: the code proves the authenticator has the secret. Only then does TOTP
/// take effect. Returns where the secret is kept ("keyring" or "encrypted").
pub fn finish_totp_enroll(
    store: &Store,
    password: &str,
    code: &str,
    now_unix: u64,
    use_keyring: bool,
) -> Result<&'static str, FactorError> {
    verify_password(store, password)?;
    let Some(p) = store.setting(TOTP_PENDING_KEY)? else {
        return Err(FactorError::NoPendingEnrolment);
    };
    let sealed: Sealed = serde_json::from_str(&p).map_err(|_| FactorError::NoPendingEnrolment)?;
    let secret = open_sealed(password, &sealed)?;
    if !totp_from(secret.clone())?.check(code.trim(), now_unix) {
        return Err(FactorError::WrongCode);
    }
    let (state, where_) = match use_keyring.then(|| keyring_store(&secret)) {
        Some(Ok(())) => (TotpState::Keyring, "keyring"),
        _ => (
            TotpState::Encrypted {
                blob: seal(password, &secret)?,
            },
            "encrypted",
        ),
    };
    store.set_setting(
        TOTP_KEY,
        &serde_json::to_string(&state).map_err(|e| FactorError::Crypto(e.to_string()))?,
    )?;
    store.delete_setting(TOTP_PENDING_KEY)?;
    // A new secret: no code of it has been used yet. (The step a code of an earlier secret
    // was last accepted for would otherwise refuse this one's codes for up to a minute.)
    store.delete_setting(TOTP_LAST_STEP_KEY)?;
    Ok(where_)
}

fn keyring_entry() -> Result<keyring::Entry, FactorError> {
    keyring::Entry::new(KEYRING_SERVICE, KEYRING_USER)
        .map_err(|e| FactorError::SecretUnavailable(e.to_string()))
}

fn keyring_store(secret: &[u8]) -> Result<(), FactorError> {
    let entry = keyring_entry()?;
    entry
        .set_secret(secret)
        .map_err(|e| FactorError::SecretUnavailable(e.to_string()))?;
    // Read back: a keyring that accepts but does not keep is no keyring.
    match entry.get_secret() {
        Ok(back) if back == secret => Ok(()),
        Ok(_) => Err(FactorError::SecretUnavailable(
            "keyring returned a different secret".into(),
        )),
        Err(e) => Err(FactorError::SecretUnavailable(e.to_string())),
    }
}

fn totp_secret(store: &Store, password: Option<&str>) -> Result<Vec<u8>, FactorError> {
    match totp_state(store)? {
        None => Err(FactorError::NotEnrolled),
        Some(TotpState::Keyring) => keyring_entry()?
            .get_secret()
            .map_err(|e| FactorError::SecretUnavailable(e.to_string())),
        Some(TotpState::Encrypted { blob }) => match password {
            Some(p) => open_sealed(p, &blob),
            None => Err(FactorError::SecretUnavailable(
                "the TOTP secret is sealed under the password: give the password too".into(),
            )),
        },
    }
}

/// Is this secret kept in the keyring (so a code alone suffices)?
pub fn totp_needs_password(store: &Store) -> Result<bool, FactorError> {
    Ok(matches!(
        totp_state(store)?,
        Some(TotpState::Encrypted { .. })
    ))
}

/// Remove TOTP (a weakening: needs a valid code, and the password).
pub fn remove_totp(store: &Store, proof: &Proof, now_unix: u64) -> Result<(), FactorError> {
    let pw = proof.password.as_deref().ok_or(FactorError::NoPassword)?;
    verify_password(store, pw)?;
    verify(store, proof, now_unix)?;
    if matches!(totp_state(store)?, Some(TotpState::Keyring))
        && let Ok(e) = keyring_entry()
    {
        let _ = e.delete_credential();
    }
    store.delete_setting(TOTP_KEY)?;
    Ok(())
}

/// Check the factor a weakening needs. Returns the factor's name for the ledger.
///
/// Guessing is throttled: after [`FREE_FAILURES`] wrong passwords or codes in a row, each
/// further attempt waits ([`wait_after`]: 30 s, doubling, at most an hour) and is refused
/// unchecked until then; a right factor resets the count. Six-digit codes could otherwise be
/// tried through every door that takes one, as fast as a script can call.
pub fn verify(store: &Store, proof: &Proof, now_unix: u64) -> Result<&'static str, FactorError> {
    let locked_until = setting_u64(store, LOCKED_UNTIL_KEY)?;
    if now_unix < locked_until {
        return Err(FactorError::Throttled {
            secs: locked_until - now_unix,
        });
    }
    let r = verify_unthrottled(store, proof, now_unix);
    match &r {
        Ok(_) => {
            if setting_u64(store, FAILURES_KEY)? != 0 {
                store.set_setting(FAILURES_KEY, "0")?;
            }
        }
        Err(FactorError::WrongPassword | FactorError::WrongCode) => {
            let failures = setting_u64(store, FAILURES_KEY)?.saturating_add(1);
            store.set_setting(FAILURES_KEY, &failures.to_string())?;
            let wait = wait_after(failures);
            if wait > 0 {
                tracing::warn!(
                    failures,
                    wait,
                    "wrong factors in a row: further attempts wait"
                );
                store.set_setting(LOCKED_UNTIL_KEY, &now_unix.saturating_add(wait).to_string())?;
            }
        }
        Err(_) => {}
    }
    r
}

/// [`verify`] without the shared guessing throttle, for a caller that enforces stricter
/// limits of its own: the remote approval relay (3 wrong codes per request, 10 per hour). A
/// code from a chat channel anyone may post to must not be able to lock the person at the
/// desk out of their own factor.
pub fn verify_with_own_limits(
    store: &Store,
    proof: &Proof,
    now_unix: u64,
) -> Result<&'static str, FactorError> {
    verify_unthrottled(store, proof, now_unix)
}

fn verify_unthrottled(
    store: &Store,
    proof: &Proof,
    now_unix: u64,
) -> Result<&'static str, FactorError> {
    if totp_enrolled(store)? {
        let code = proof.code.as_deref().ok_or(FactorError::TotpRequired)?;
        let secret = totp_secret(store, proof.password.as_deref())?;
        let totp = totp_from(secret)?;
        // Single use: the time step a code belongs to (the current one or one either side)
        // must be newer than the last step a code was accepted for, so a code seen once
        // (over a shoulder, in a log, by an agent) cannot be replayed within its window.
        let step = now_unix / TOTP_STEP;
        let last: Option<u64> = store
            .setting(TOTP_LAST_STEP_KEY)?
            .and_then(|s| s.trim().parse().ok());
        let matched = [step.saturating_sub(1), step, step.saturating_add(1)]
            .into_iter()
            .find(|s| totp.generate(s.saturating_mul(TOTP_STEP)) == code.trim());
        return match matched {
            Some(s) if last.is_some_and(|l| s <= l) => Err(FactorError::CodeReused),
            Some(s) => {
                store.set_setting(TOTP_LAST_STEP_KEY, &s.to_string())?;
                Ok("totp")
            }
            None => Err(FactorError::WrongCode),
        };
    }
    match proof.password.as_deref() {
        Some(p) => verify_password(store, p).map(|_| "password"),
        None if password_is_set(store)? => Err(FactorError::WrongPassword),
        None => Err(FactorError::NoPassword),
    }
}

/// What a weakening needs from the person at the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FactorNeeds {
    pub totp: bool,
    pub password: bool,
}

/// What this store's weakenings need: the TOTP code once enrolled (plus the password when the
/// secret is sealed in the store), else the password.
pub fn needs(store: &Store) -> Result<FactorNeeds, FactorError> {
    let totp = totp_enrolled(store)?;
    Ok(FactorNeeds {
        totp,
        password: !totp || totp_needs_password(store)?,
    })
}

/// Collects a proof from flags, standard input or a terminal prompt. With no terminal and no
/// `--password-stdin`, says so instead of failing later as a wrong password.
pub fn gather_proof(
    needs: FactorNeeds,
    password_stdin: bool,
    code: Option<String>,
) -> Result<Proof, FactorError> {
    use std::io::{BufRead, IsTerminal};
    let tty = std::io::stdin().is_terminal();
    let password = if password_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| FactorError::Crypto(format!("reading the password from stdin: {e}")))?;
        Some(line.trim_end_matches(['\n', '\r']).to_owned())
    } else if needs.password && tty {
        Some(
            rpassword::prompt_password("Airlock password: ")
                .map_err(|e| FactorError::Crypto(format!("reading the password: {e}")))?,
        )
    } else if needs.password && code.is_none() {
        return Err(FactorError::NoTerminal);
    } else {
        None
    };
    let code = match (code, needs.totp) {
        (Some(c), _) => Some(c),
        (None, true) if tty => Some(
            rpassword::prompt_password("TOTP code: ")
                .map_err(|e| FactorError::Crypto(format!("reading the code: {e}")))?,
        ),
        (None, true) => return Err(FactorError::NoTerminal),
        _ => None,
    };
    Ok(Proof { password, code })
}

/// The current code for a secret (tests and the self-test only).
pub fn current_code_for_uri(uri: &str, now_unix: u64) -> Result<String, FactorError> {
    let t = TOTP::from_url(uri).map_err(|e| FactorError::Crypto(e.to_string()))?;
    Ok(t.generate(now_unix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guessing_is_throttled_and_a_right_factor_resets_the_count() {
        let s = Store::open_in_memory().unwrap();
        set_password(&s, "correct horse").unwrap();
        let pw = |p: &str| Proof {
            password: Some(p.into()),
            code: None,
        };
        let t0 = 1_000_000;
        for i in 0..FREE_FAILURES - 1 {
            assert!(matches!(
                verify(&s, &pw("guess"), t0 + i),
                Err(FactorError::WrongPassword)
            ));
        }
        // Under the limit a right password still works, and resets the count.
        verify(&s, &pw("correct horse"), t0 + 10).unwrap();
        for i in 0..FREE_FAILURES {
            assert!(matches!(
                verify(&s, &pw("guess"), t0 + 20 + i),
                Err(FactorError::WrongPassword)
            ));
        }
        // Now even the right password waits, unchecked, until the wait is over.
        let at = t0 + 20 + FREE_FAILURES;
        assert!(matches!(
            verify(&s, &pw("correct horse"), at),
            Err(FactorError::Throttled { .. })
        ));
        assert!(matches!(
            verify(&s, &pw("guess"), at + FIRST_WAIT_SECS),
            Err(FactorError::WrongPassword)
        ));
        // The next wrong one doubles the wait.
        let at = at + FIRST_WAIT_SECS;
        assert!(matches!(
            verify(&s, &pw("correct horse"), at + FIRST_WAIT_SECS),
            Err(FactorError::Throttled { .. })
        ));
        verify(&s, &pw("correct horse"), at + 2 * FIRST_WAIT_SECS).unwrap();
        verify(&s, &pw("guess"), at + 2 * FIRST_WAIT_SECS + 1).unwrap_err();
        verify(&s, &pw("correct horse"), at + 2 * FIRST_WAIT_SECS + 2).unwrap();
    }

    #[test]
    fn a_re_enrolled_secret_accepts_its_codes_at_once() {
        let s = Store::open_in_memory().unwrap();
        set_password(&s, "correct horse").unwrap();
        let now = 1_800_000_000;
        let enrol = |now: u64| {
            let (uri, _) = begin_totp_enroll(&s, "correct horse").unwrap();
            let code = current_code_for_uri(&uri, now).unwrap();
            finish_totp_enroll(&s, "correct horse", &code, now, false).unwrap();
            uri
        };
        let proof = |uri: &str, at: u64| Proof {
            password: Some("correct horse".into()),
            code: Some(current_code_for_uri(uri, at).unwrap()),
        };
        let uri = enrol(now);
        // A code is used up: the same step is refused, the next one is not.
        verify(&s, &proof(&uri, now), now).unwrap();
        assert!(matches!(
            verify(&s, &proof(&uri, now), now),
            Err(FactorError::CodeReused)
        ));
        remove_totp(&s, &proof(&uri, now + 30), now).unwrap();
        // Enrolled again within the same minute: the new secret's current code counts.
        let uri = enrol(now + 5);
        verify(&s, &proof(&uri, now + 5), now + 5).unwrap();
    }

    #[test]
    fn the_wait_doubles_up_to_an_hour() {
        assert_eq!(wait_after(FREE_FAILURES - 1), 0);
        assert_eq!(wait_after(FREE_FAILURES), FIRST_WAIT_SECS);
        assert_eq!(wait_after(FREE_FAILURES + 1), 2 * FIRST_WAIT_SECS);
        assert_eq!(wait_after(FREE_FAILURES + 40), MAX_WAIT_SECS);
        assert_eq!(wait_after(u64::MAX), MAX_WAIT_SECS);
    }

    #[test]
    fn password_then_totp_fallback() {
        let s = Store::open_in_memory().unwrap();
        assert!(matches!(
            verify(&s, &Proof::default(), 0),
            Err(FactorError::NoPassword)
        ));
        assert!(matches!(
            set_password(&s, "short"),
            Err(FactorError::WeakPassword)
        ));
        set_password(&s, "correct horse").unwrap();
        assert!(matches!(
            set_password(&s, "another one"),
            Err(FactorError::PasswordExists)
        ));
        let good = Proof {
            password: Some("correct horse".into()),
            code: None,
        };
        let bad = Proof {
            password: Some("wrong horse!".into()),
            code: None,
        };
        assert_eq!(verify(&s, &good, 0).unwrap(), "password");
        assert!(matches!(
            verify(&s, &bad, 0),
            Err(FactorError::WrongPassword)
        ));

        let (uri, png) = begin_totp_enroll(&s, "correct horse").unwrap();
        assert!(uri.starts_with("otpauth://totp/"));
        assert_eq!(png.get(1..4), Some(&b"PNG"[..]));
        let now = 1_800_000_000;
        assert!(matches!(
            finish_totp_enroll(&s, "correct horse", "000000", now, false),
            Err(FactorError::WrongCode) | Ok(_)
        ));
        let code = current_code_for_uri(&uri, now).unwrap();
        if !totp_enrolled(&s).unwrap() {
            assert_eq!(
                finish_totp_enroll(&s, "correct horse", &code, now, false).unwrap(),
                "encrypted"
            );
        }
        // Password alone no longer suffices.
        assert!(matches!(
            verify(&s, &good, now),
            Err(FactorError::TotpRequired)
        ));
        let with_code = Proof {
            password: Some("correct horse".into()),
            code: Some(code.clone()),
        };
        assert_eq!(verify(&s, &with_code, now).unwrap(), "totp");
        // Issue #13: a code is single-use, even within its 30-second window.
        assert!(matches!(
            verify(&s, &with_code, now),
            Err(FactorError::CodeReused)
        ));
        assert!(matches!(
            verify(&s, &with_code, now + 10),
            Err(FactorError::CodeReused)
        ));
        let stale = Proof {
            password: Some("correct horse".into()),
            code: Some(code),
        };
        assert!(matches!(
            verify(&s, &stale, now + 3600),
            Err(FactorError::WrongCode)
        ));
        // Changing the password keeps TOTP working under the new one.
        change_password(&s, "correct horse", "battery staple").unwrap();
        let code = current_code_for_uri(&uri, now + 60).unwrap();
        let new_proof = Proof {
            password: Some("battery staple".into()),
            code: Some(code),
        };
        assert_eq!(verify(&s, &new_proof, now + 60).unwrap(), "totp");
    }
}
