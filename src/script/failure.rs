//! Uncaught script errors as fabsh errors: the thrown error map keeps its kind (and so the
//! exit code), syntax errors are usage errors, and the place is kept for the caret display.

use super::convert::error_from_thrown;
use fabsh_client::error::{Error, ErrorKind};
use fabsh_client::output::SourceSpot;
use rhai::{EvalAltResult, ParseError, Position};

/// An error that ended a script, and where in the script it happened.
#[derive(Debug)]
pub struct ScriptFailure {
    pub error: Error,
    pub spot: Option<SourceSpot>,
}

impl ScriptFailure {
    /// The exit code for this failure.
    pub fn exit_code(&self) -> u8 {
        self.error.exit_code()
    }
}

/// A failure outside any source (the engine could not be built, a file could not be read).
impl From<Error> for ScriptFailure {
    fn from(error: Error) -> Self {
        ScriptFailure { error, spot: None }
    }
}

/// A syntax error in `source` (named `origin`).
pub(super) fn from_parse(err: &ParseError, origin: &str, source: &str) -> ScriptFailure {
    ScriptFailure {
        error: Error::usage(format!("syntax error: {}", err.err_type())),
        spot: spot(err.position(), origin, source),
    }
}

/// A runtime error of `source`. Calls into functions are unwrapped to the error inside; the
/// place shown is the deepest one that is still in `source` (a stdlib function's insides are
/// not the user's file), and each function passed through becomes a `caused by:` line.
pub(super) fn from_eval(err: EvalAltResult, origin: &str, source: &str) -> ScriptFailure {
    let mut position = err.position();
    let mut in_source = true;
    let mut trail = Vec::new();
    let mut current = err;
    loop {
        let (inner, frame_source) = match current {
            EvalAltResult::ErrorInFunctionCall(name, frame_source, inner, _) => {
                trail.push(if frame_source.is_empty() || frame_source == origin {
                    format!("in function `{name}`")
                } else {
                    format!("in function `{name}` ({frame_source})")
                });
                (inner, frame_source)
            }
            EvalAltResult::ErrorInModule(name, inner, _) => {
                trail.push(format!("in module `{name}`"));
                (inner, name)
            }
            other => {
                current = other;
                break;
            }
        };
        in_source &= frame_source.is_empty() || frame_source == origin;
        if in_source && !inner.position().is_none() {
            position = inner.position();
        }
        current = *inner;
    }
    let mut error = match current {
        EvalAltResult::ErrorRuntime(value, _) => error_from_thrown(&value),
        EvalAltResult::ErrorTerminated(value, _) => {
            let err = error_from_thrown(&value);
            if err.kind == ErrorKind::Runtime {
                Error::cancelled()
            } else {
                err
            }
        }
        EvalAltResult::ErrorParsing(kind, _) => Error::usage(format!("syntax error: {kind}")),
        EvalAltResult::ErrorFunctionNotFound(signature, _) => function_not_found(&signature),
        mut other => {
            other.clear_position();
            Error::runtime(other.to_string())
        }
    };
    if error.kind == ErrorKind::Cancelled {
        // Where Ctrl-C happened to land is no news to the user who pressed it.
        return ScriptFailure { error, spot: None };
    }
    for frame in trail {
        error = error.with_cause(frame);
    }
    ScriptFailure {
        error,
        spot: spot(position, origin, source),
    }
}

/// A call of a function that does not exist is a usage error (exit 2) that names the
/// closest registered function, when one is close (`item::shw` → `item::show`).
fn function_not_found(signature: &str) -> Error {
    let name = signature.split('(').next().unwrap_or(signature).trim();
    let error = Error::usage(format!("no function {signature}"));
    let known: Vec<String> = crate::commands::REGISTRY
        .all()
        .map(|spec| {
            format!(
                "{}::{}",
                super::module_name(spec.group),
                super::function_name(spec)
            )
        })
        .collect();
    let closest = fabsh_model::edit_distance::closest(name, known.iter().map(String::as_str));
    match closest {
        Some(known) => error.with_hint(format!("did you mean {known}?")),
        None => error.with_hint("`:help` in the REPL, or `fabsh docs`, lists the functions"),
    }
}

fn spot(position: Position, origin: &str, source: &str) -> Option<SourceSpot> {
    let line = position.line()?;
    Some(SourceSpot {
        origin: origin.to_string(),
        line,
        column: position.position().unwrap_or(1),
        text: source.lines().nth(line - 1).map(str::to_string),
    })
}
