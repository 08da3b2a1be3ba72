//! This crate's error: what kind of failure (the caller turns it into its own error and exit
//! code), what happened, and what to do.

use std::fmt;

/// What went wrong, coarsely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The configuration given is not usable (a bad URL, a missing deployment).
    Invalid,
    /// The service refused the credentials (401, 403).
    Auth,
    /// The service answered with an error.
    Refused,
    /// No usable answer: unreachable, timed out, or not what was asked for.
    Failed,
}

/// A failure with its kind, message, causes and hints.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub causes: Vec<String>,
    pub hints: Vec<String>,
}

impl Error {
    /// An error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
        }
    }

    /// Adds a `caused by:` line.
    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.causes.push(cause.to_string());
        self
    }

    /// Adds a hint.
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
