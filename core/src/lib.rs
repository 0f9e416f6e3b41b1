//! Airlock's shared services, in one library crate that every binary uses (the `airlock`
//! CLI, the guard service, the MCP proxy, the tray app):
//!
//! - [`paths`]: where Airlock's files live (user level and system level);
//! - [`settings`]: typed settings, the compiled policy, the fingerprint key;
//! - [`pipeline`]: the one judge → allow rules → record → observe pipeline, with the one
//!   session codec;
//! - [`factors`]: the possession factors (argon2id password, TOTP);
//! - [`dials`]: raise applies, lowering takes a proof and an actor, and the setting and its
//!   ledger row commit in one transaction;
//! - [`custom`]: custom rules in Cedar (`forbid` only: they raise, never lower);
//! - [`eval`]: the labelled-corpus harness behind `airlock eval`;
//! - [`baselines`]: the learned behaviour and style baselines, kept in the store;
//! - [`pins`]: MCP tool-definition pins (rug-pull and poisoning checks), shared by the proxy
//!   and the dashboard.
//!
//! **Architecture invariant:** this is the only crate that writes settings, ledger rows or
//! sessions (through `airlock-store`); binaries call it and add context to its typed errors.

pub mod baselines;
pub mod clock;
pub mod custom;
pub mod dials;
pub mod error;
pub mod eval;
pub mod factors;
pub mod paths;
pub mod pins;
pub mod pipeline;
pub mod settings;

pub use error::CoreError;
pub use paths::{Level, Paths};
