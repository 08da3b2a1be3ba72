//! This crate's error: what kind of failure (the caller turns it into its own error and exit
//! code), and the problem as the model tells one (message, causes, hints).

use fabsh_model::Problem;
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

/// A failure of a kind.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: ErrorKind,
    pub problem: Problem,
}

impl Error {
    /// An error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            problem: Problem::new(message),
        }
    }

    /// Adds a `caused by:` line.
    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.problem = self.problem.with_cause(cause);
        self
    }

    /// Adds a hint.
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
