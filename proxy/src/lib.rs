//! Airlock's MCP proxy: a transparent stdio chokepoint between an MCP client (the agent host)
//! and one MCP server.
//!
//! Layers, outermost first (rmcp's transport ↔ codec ↔ service split):
//!
//! | module | layer | owns |
//! |---|---|---|
//! | [`transport`] | transport | newline-delimited frames over any async stream, with a size cap |
//! | [`codec`] | codec | frame ↔ JSON-RPC message (`serde_json::Value`, unknown fields kept) |
//! | [`proxy`] | policy | which messages are judged, rewritten, answered or passed through |
//! | [`guard`] | backend | the engine and the store: verdicts, records, session memory |
//! | [`http_front`], [`http_remote`] | transport | streamable HTTP: serve HTTP clients (one duplex per MCP session), reach remote servers |
//! | [`pins`], [`redact`], [`builtin`] | helpers | rug-pull / poisoning checks, secret redaction, the proxy's own tools |
//!
//! Architecture invariant: no `tools/call` reaches the server without a verdict recorded in the
//! store; BLOCK and unapproved AUTH never reach it.

pub mod builtin;
pub mod cli;
pub mod codec;
pub mod config;
pub mod gateway;
pub mod guard;
pub mod http_front;
pub mod http_remote;
pub mod limits;
pub mod names;
pub use airlock_core::pins;
pub mod proxy;
pub mod redact;
pub mod serve_http;
pub mod stdio;
pub mod transport;

#[cfg(test)]
mod testpeer;
