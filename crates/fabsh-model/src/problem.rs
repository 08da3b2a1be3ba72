//! What is wrong and what to do about it: a message, the problems found, hints. It is this
//! crate's error (input that is not acceptable: the client reports it as a usage error, exit 2,
//! nothing sent), and the body of the errors of the crates that share the model.

use std::fmt;

/// A problem, told for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong, naming the flag or file.
    pub message: String,
    /// Each problem found, when there are several (a file's bad rows).
    pub causes: Vec<String>,
    /// What to do about it.
    pub hints: Vec<String>,
}

impl Problem {
    /// A problem with a message and nothing else.
    pub fn new(message: impl Into<String>) -> Self {
        Problem {
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

impl fmt::Display for Problem {
    /// One line: the message, then each cause after a colon.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for cause in &self.causes {
            write!(f, ": {cause}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problem {}
