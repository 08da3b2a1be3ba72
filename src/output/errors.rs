//! Errors as the user sees them: `error:` then `caused by:` and `hint:` lines.

use super::Printer;
use crate::error::Error;

impl Printer {
    /// Writes an error to stderr.
    pub fn error(&self, err: &Error) {
        eprint!("{}", self.format_error(err));
    }

    /// The error's text, as written by [`Printer::error`].
    pub fn format_error(&self, err: &Error) -> String {
        let mut text = format!("{} {err}\n", self.paint("error:", "1;31"));
        for cause in &err.causes {
            text.push_str(&format!("{} {cause}\n", self.paint("caused by:", "1")));
        }
        for hint in &err.hints {
            text.push_str(&format!("{} {hint}\n", self.paint("hint:", "1;32")));
        }
        text
    }
}
