//! The shared services' typed error.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("cannot find a home directory for Airlock's files")]
    NoHome,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("store: {0}")]
    Store(#[from] airlock_store::StoreError),
    #[error("policy: {0}")]
    Policy(#[from] airlock_engine::PolicyError),
    #[error("engine: {0}")]
    Engine(#[from] airlock_engine::EngineError),
    #[error("{0}")]
    Factor(#[from] crate::factors::FactorError),
    #[error("refused: {0}")]
    Refused(crate::factors::FactorError),
    #[error("{what} is damaged in the store")]
    Damaged { what: &'static str },
    #[error("no randomness available: {0}")]
    Random(String),
    #[error("{0}")]
    Invalid(String),
    /// Airlock's own state was changed out of band (a broken ledger chain, a store that was
    /// emptied or replaced). Every call is denied until the user re-initialises.
    #[error(
        "Airlock's store was changed out of band ({0}); every call is denied until you check it and run `airlock setup --reinit`"
    )]
    Tampered(String),
}

impl CoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CoreError {
        CoreError::Io {
            path: path.into(),
            source,
        }
    }
}
