//! The error local Fabric's public functions return (starting a server, managing its store
//! directly); inside a request, errors are answered in Fabric's shape (`api_error`).

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

/// A failure with its kind, message, causes and hints.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub causes: Vec<String>,
    /// What the user can do about it, shown as `hint:` lines.
    pub hints: Vec<String>,
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
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
        self.causes.push(cause.to_string());
        self
    }

    /// Adds a `hint:` line.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for cause in &self.causes {
            write!(f, ": {cause}")?;
        }
        Ok(())
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
