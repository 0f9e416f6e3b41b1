//! Placeholder: filled by the store work (issue #3).
