//! Errors as the user sees them: `error:` then `caused by:` and `hint:` lines; script errors
//! also show where they happened, with the source line and a caret.

use super::Printer;
use crate::error::{Error, ErrorKind};
use std::io::Write;

/// A place in a script: origin (file name, `<-e>`, `<repl>`), 1-based line and column, and
/// the text of that line when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSpot {
    pub origin: String,
    pub line: usize,
    pub column: usize,
    pub text: Option<String>,
}

impl Printer {
    /// Writes an error to stderr.
    pub fn error(&self, err: &Error) {
        eprint!("{}", self.format_error(err));
    }

    /// The error's text, as written by [`Printer::error`].
    pub fn format_error(&self, err: &Error) -> String {
        self.format_error_at(err, None)
    }

    /// Writes an error raised by a script, showing where it happened.
    pub fn script_error(&self, err: &Error, spot: Option<&SourceSpot>) {
        eprint!("{}", self.format_error_at(err, spot));
    }

    /// The error's text with its place in the source, as written by [`Printer::script_error`].
    /// A plan with changes pending is an answer told by its exit code, not something that went
    /// wrong: it reads as a note, as terraform's detailed exit code prints no error.
    pub fn format_error_at(&self, err: &Error, spot: Option<&SourceSpot>) -> String {
        let label = match err.kind {
            ErrorKind::ChangesPending => self.paint("note:", "1;36"),
            _ => self.paint("error:", "1;31"),
        };
        let mut text = format!("{label} {err}\n");
        if let Some(spot) = spot {
            text.push_str(&source_lines(spot));
        }
        for cause in &err.causes {
            text.push_str(&format!("{} {cause}\n", self.paint("caused by:", "1")));
        }
        for hint in &err.hints {
            text.push_str(&format!("{} {hint}\n", self.paint("hint:", "1;32")));
        }
        text
    }

    /// Writes text as is to stderr (usage messages of REPL command lines).
    pub fn stderr_text(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.flush();
    }

    /// A script's `debug(...)` output on stderr, tagged with where it was called.
    pub fn script_debug(&self, text: &str, spot: Option<&SourceSpot>) {
        match spot {
            Some(spot) => eprintln!(
                "{} {text}",
                self.paint(
                    &format!("[{}:{}:{}]", spot.origin, spot.line, spot.column),
                    "2"
                )
            ),
            None => eprintln!("{} {text}", self.paint("[debug]", "2")),
        }
    }
}

/// ` --> file:line:col`, then the line and a caret under the column.
fn source_lines(spot: &SourceSpot) -> String {
    let mut text = format!("  --> {}:{}:{}\n", spot.origin, spot.line, spot.column);
    if let Some(line) = &spot.text {
        let number = spot.line.to_string();
        let gutter = " ".repeat(number.len());
        // Tabs keep their width so the caret lines up under the same character.
        let indent: String = line
            .chars()
            .take(spot.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        text.push_str(&format!(" {gutter} |\n"));
        text.push_str(&format!(" {number} | {line}\n"));
        text.push_str(&format!(" {gutter} | {indent}^\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_sits_under_the_column() {
        let spot = SourceSpot {
            origin: "deploy.rhai".into(),
            line: 12,
            column: 5,
            text: Some("let x = 1;".into()),
        };
        let text = Printer::plain().format_error_at(&Error::usage("bad"), Some(&spot));
        assert_eq!(
            text,
            "error: bad\n  --> deploy.rhai:12:5\n    |\n 12 | let x = 1;\n    |     ^\n"
        );
    }
}
