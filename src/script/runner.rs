//! `fabsh run file.rhai -- args` and `fabsh -e '<code>'`: compile, run, show the value, and
//! print an uncaught error with its place; the exit code follows the error's kind.

use super::convert::to_json;
use super::failure::{self, ScriptFailure};
use super::host::Host;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use rhai::{AST, Dynamic, Engine, Scope};
use std::path::Path;
use std::process::ExitCode;

/// The origin shown for `-e` code in error messages.
pub const EVAL_ORIGIN: &str = "<-e>";

/// Runs a script file with `ARGS` (the words after `--`) in scope.
pub fn run_file(host: &Host, path: &Path, args: Vec<String>) -> ExitCode {
    let origin = path.display().to_string();
    let outcome = std::fs::read_to_string(path)
        .map_err(|err| Error::usage(format!("cannot read {origin}: {err}")).into())
        .and_then(|source| {
            let engine = super::engine(host)?;
            let mut scope = scope_with_args(args);
            run_source(&engine, &mut scope, &origin, &source)
        });
    finish(host.printer(), outcome.map(|_| ()))
}

/// A scope holding `ARGS`: a script's words after `--`; empty for `-e` and the REPL, so a
/// script that reads them runs there too.
pub fn scope_with_args(args: Vec<String>) -> Scope<'static> {
    let mut scope = Scope::new();
    let args: rhai::Array = args.into_iter().map(Dynamic::from).collect();
    scope.push_constant("ARGS", args);
    scope
}

/// Evaluates `-e` code and prints its value.
pub fn eval_code(host: &Host, code: &str) -> ExitCode {
    let outcome = super::engine(host)
        .map_err(ScriptFailure::from)
        .and_then(|engine| run_source(&engine, &mut scope_with_args(Vec::new()), EVAL_ORIGIN, code))
        .and_then(|value| {
            show_value(host.printer(), &value, host.columns_for(&value))
                .map_err(ScriptFailure::from)
        });
    finish(host.printer(), outcome)
}

/// Compiles and runs `source` in `scope`.
pub fn run_source(
    engine: &Engine,
    scope: &mut Scope,
    origin: &str,
    source: &str,
) -> std::result::Result<Dynamic, ScriptFailure> {
    let ast = compile(engine, scope, origin, source)?;
    eval(engine, scope, &ast, origin, source)
}

/// Compiles `source` (named `origin` in messages). A `#!` first line is skipped; line
/// numbers stay as in the file.
pub fn compile(
    engine: &Engine,
    scope: &Scope,
    origin: &str,
    source: &str,
) -> std::result::Result<AST, ScriptFailure> {
    let mut ast = engine
        .compile_with_scope(scope, without_shebang(source))
        .map_err(|err| failure::from_parse(&err, origin, source))?;
    ast.set_source(origin);
    Ok(ast)
}

/// Runs compiled code in `scope`; `source` is the text it came from, for error places.
pub fn eval(
    engine: &Engine,
    scope: &mut Scope,
    ast: &AST,
    origin: &str,
    source: &str,
) -> std::result::Result<Dynamic, ScriptFailure> {
    engine
        .eval_ast_with_scope::<Dynamic>(scope, ast)
        .map_err(|err| failure::from_eval(*err, origin, source))
}

/// Shows a script's value: nothing for `()`, text as is, anything else as the CLI shows data
/// (JSON, or a table for lists on a terminal, or the `-o` format).
pub fn show_value(printer: &Printer, value: &Dynamic, columns: &[&str]) -> Result<()> {
    if value.is_unit() {
        return Ok(());
    }
    if value.is_string() {
        return printer.text(&format!("{value}\n"));
    }
    let json = to_json(value).map_err(Error::runtime)?;
    printer.print_value(json, columns)
}

/// Prints a failure (with its place) and turns the outcome into the exit code.
pub fn finish(printer: &Printer, outcome: std::result::Result<(), ScriptFailure>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            printer.script_error(&failure.error, failure.spot.as_ref());
            ExitCode::from(failure.exit_code())
        }
    }
}

fn without_shebang(source: &str) -> std::borrow::Cow<'_, str> {
    match source.strip_prefix("#!") {
        Some(rest) => {
            let newline = rest.find('\n').map_or(rest.len(), |at| at);
            format!("{}{}", " ".repeat(newline + 2), &rest[newline..]).into()
        }
        None => source.into(),
    }
}
