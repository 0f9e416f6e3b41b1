//! Placeholder: filled by the wiring work (issue #3).
