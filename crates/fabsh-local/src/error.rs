//! The error local Fabric's public functions return (starting a server, managing its store
//! directly): a kind and the problem as the model tells one. Inside a request, errors are
//! answered in Fabric's shape (`api_error`).

use fabsh_model::Problem;
use std::fmt;

/// What went wrong, coarsely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The input is not acceptable (a bad setting, a conflicting name).
    Invalid,
    /// The workspace, item or principal does not exist.
    NotFound,
    /// Anything else: the store, the network, the runtime.
    Failed,
}

/// A failure of a kind.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub problem: Problem,
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            problem: Problem::new(message),
        }
    }

    /// Input that is not acceptable.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, message)
    }

    /// Something that does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// Anything else.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Failed, message)
    }

    /// Adds a `caused by:` line.
    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.problem = self.problem.with_cause(cause);
        self
    }

    /// Adds a `hint:` line.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.problem = self.problem.with_hint(hint);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.problem.fmt(f)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::failed(err.to_string())
    }
}

impl From<crate::api_error::ApiError> for Error {
    /// A store-side error at the public boundary: its status decides the kind.
    fn from(err: crate::api_error::ApiError) -> Self {
        use axum::http::StatusCode;
        match err.status {
            StatusCode::NOT_FOUND => Error::not_found(err.message),
            StatusCode::BAD_REQUEST | StatusCode::CONFLICT => Error::invalid(err.message),
            _ => Error::failed(err.message),
        }
    }
}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        Error::failed("local Fabric's store failed").with_cause(err)
    }
}
