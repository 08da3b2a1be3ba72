//! The line editor's helper: completion and hints from the registry, and multi-line input
//! while Rhai reports that the code stops short.

use super::complete::Vocabulary;
use super::lines::needs_more;
use super::names::NameSource;
use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};
use std::borrow::Cow;

/// The REPL's rustyline helper.
pub(super) struct ReplHelper {
    vocabulary: Vocabulary,
    names: Box<dyn NameSource>,
    /// A bare engine, only for telling complete code from code that needs more lines.
    syntax: rhai::Engine,
    color: bool,
}

impl ReplHelper {
    /// A helper completing from `vocabulary` and `names`; hints are dimmed when `color`.
    pub(super) fn new(
        vocabulary: Vocabulary,
        names: Box<dyn NameSource>,
        color: bool,
    ) -> ReplHelper {
        ReplHelper {
            vocabulary,
            names,
            syntax: crate::script::syntax_engine(),
            color,
        }
    }
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(self.vocabulary.complete(&line[..pos], self.names.as_ref()))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        // Only at the end of the line: a hint in the middle would cover what follows.
        (pos == line.len())
            .then(|| self.vocabulary.hint(line))
            .flatten()
    }
}

impl Highlighter for ReplHelper {
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
        } else {
            Cow::Borrowed(hint)
        }
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        Ok(if needs_more(&self.syntax, ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ReplHelper {}
