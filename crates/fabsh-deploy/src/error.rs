//! The crate's one error type: everything that stops reading a repository or its files.

/// Why a repository, its config or its parameters cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A file is not what its format requires.
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl Error {
    pub(crate) fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The crate's result.
pub type Result<T> = std::result::Result<T, Error>;
