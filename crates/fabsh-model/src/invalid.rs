//! The one error of this crate: input that is not acceptable, with what is wrong in it and
//! what to do. The client reports it as a usage error (exit 2, nothing sent); local Fabric
//! answers it as a 400.

use std::fmt;

/// Input that is not acceptable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// What is wrong, naming the flag or file.
    pub message: String,
    /// Each problem found, when there are several (a file's bad rows).
    pub causes: Vec<String>,
    /// What to do about it.
    pub hints: Vec<String>,
}

impl Invalid {
    /// An error with a message and nothing else.
    pub fn new(message: impl Into<String>) -> Self {
        Invalid {
            message: message.into(),
            causes: Vec::new(),
            hints: Vec::new(),
        }
    }

    /// Adds one problem.
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

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Invalid {}
