//! A string that never prints itself.

use std::fmt;

/// A token or password: `Debug` and `Display` print `(redacted)`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(redacted)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(redacted)")
    }
}

#[cfg(test)]
mod tests {
    use super::Secret;

    #[test]
    fn never_formats_its_value() {
        let secret = Secret::new("abc123");
        assert_eq!(format!("{secret} {secret:?}"), "(redacted) (redacted)");
        assert_eq!(secret.expose(), "abc123");
    }
}
