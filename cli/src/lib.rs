//! Library side of the `airlock` command, so tests can drive the same code the binary runs.

pub mod app;
pub mod cmd;
pub mod eval;
pub mod factors;
pub mod hook;
