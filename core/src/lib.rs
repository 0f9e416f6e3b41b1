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
//! - [`policy_file`]: the policy file trusted only as far as the ledger approved it;
//! - [`custom`]: custom rules in Cedar (`forbid` only: they raise, never lower);
//! - [`eval`]: the labelled-corpus harness behind `airlock eval`;
//! - [`baselines`]: the learned behaviour and style baselines, kept in the store;
//! - [`pins`]: MCP tool-definition pins (rug-pull and poisoning checks), shared by the proxy
//!   and the dashboard; `pin_all` for `airlock pins pin --all`;
//! - [`agent_configs`]: the MCP servers and settings in the coding agents' own config files
//!   (read-only; secrets located, never shown);
//! - [`gateway_init`]: a starter `airlock gateway` config from those servers (`airlock init`);
//! - [`scan`]: the read-only setup report behind `airlock scan` (stable codes, severities).
//! - [`remote`]: remote approval's channel setting (a loosening: TOTP and the factor,
//!   ledgered; replayed from the ledger).
//!
//! **Architecture invariant:** this is the only crate that writes settings, ledger rows or
//! sessions (through `airlock-store`); binaries call it and add context to its typed errors.

pub mod agent_configs;
pub mod always;
pub mod audit_jsonl;
pub mod baselines;
pub mod clock;
pub mod custom;
pub mod dials;
pub mod error;
pub mod eval;
pub mod export;
pub mod factors;
pub mod gateway_init;
pub mod paths;
pub mod pins;
pub mod pipeline;
mod platform;
pub mod policy_file;
pub mod remote;
pub mod scan;
pub mod settings;
pub mod words;

pub use error::CoreError;
pub use paths::{Level, Paths};
