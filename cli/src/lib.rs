//! Library side of the `airlock` command, so tests can drive the same code the binary runs.

pub mod eval;
