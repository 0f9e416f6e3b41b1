//! Airlock's resident guard service and its thin client.
//!
//! The service is the one place that loads the policy, keeps sessions in memory, decides
//! (through `airlock-core`'s pipeline and the pure engine), records (one writer, the WAL
//! checkpointed) and brokers approvals. `airlock hook` is a client: it reads stdin, sends one
//! request over a local socket, prints the answer, and acknowledges it — no SQLite, no policy
//! parsing in that process.
//!
//! See [`server`] for the two protection levels and [`protocol`] for the wire format.

#![cfg(unix)]

pub mod agent;
pub mod audit;
pub mod client;
pub mod hook;
pub mod hook_client;
pub mod peer;
pub mod protocol;
pub mod server;
pub mod shell_client;
mod state;
mod unix_deadline;
mod workers;

pub use client::{ClientError, Endpoint, HookExchange, HookReply};
pub use protocol::{AgentDecision, McpOutcome, Request, Response, Status, TranscriptCall};
pub use server::{ServiceConfig, ServiceError, serve};
