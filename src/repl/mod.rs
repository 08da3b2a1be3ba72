//! The REPL (`fabsh` with no command, or `fabsh repl`): Rhai code and command lines, one
//! session with its variables and functions, history in the state dir, completion from the
//! registry, and Ctrl-C that cancels the running command and returns to the prompt.

pub(crate) mod complete;
mod helper;
mod history;
mod lines;
mod meta;
pub(crate) mod names;

use crate::cli::{dispatch, printer_for, tree};
use crate::script::{self, Host, ScriptFailure, runner};
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::{Format, Printer};
use helper::ReplHelper;
use lines::Line;
use rhai::{AST, Engine, Scope};
use rustyline::Editor;
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use std::io::IsTerminal;
use std::process::ExitCode;

/// The origin shown for REPL input in error messages.
const REPL_ORIGIN: &str = "<repl>";

/// Runs the REPL until `:quit` or Ctrl-D. With `--local`, local Fabric starts once, here.
pub fn run(settings: &Settings, bridge: &Bridge, printer: &Printer) -> Result<ExitCode> {
    bridge.cancel_on_ctrl_c();
    let host = Host::lazy(settings.clone(), bridge.clone(), printer.clone());
    let ctx = host.ctx()?;
    let engine = script::engine(&host)?;
    let mut session = Session {
        host: host.clone(),
        settings: settings.clone(),
        ctx,
        engine,
        scope: runner::scope_with_args(Vec::new()),
        functions: AST::empty(),
        printer: printer.clone(),
        format: None,
    };
    // Bash's way: Tab completes what all candidates share, a second Tab lists them.
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(false)
        .max_history_size(5000)
        .map_err(|err| Error::runtime(format!("REPL history: {err}")))?
        .build();
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::with_config(config)
        .map_err(|err| Error::runtime(format!("cannot start the line editor: {err}")))?;
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    editor.set_helper(Some(ReplHelper::new(
        complete::Vocabulary::new(&session.engine, settings.stdlib_dir().as_deref()),
        Box::new(names::SessionNames {
            ctx: session.ctx.clone(),
            wait: names::REPL_WAIT,
        }),
        color,
    )));
    let history_path = history::path();
    if let Some(path) = &history_path {
        // A first session has no history yet.
        let _ = editor.load_history(path);
    }
    let prompt = format!("fabsh({})> ", session.ctx.backend());
    // For a person at the prompt; input piped in gets no banner.
    if std::io::stdin().is_terminal() {
        printer.stderr_text(&format!(
            "fabsh {} on {}. :help for help, Tab completes, Ctrl-D leaves\n",
            env!("CARGO_PKG_VERSION"),
            backend_name(session.ctx.backend())
        ));
    }
    loop {
        bridge.reset();
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(err) => return Err(Error::runtime(format!("reading input: {err}"))),
        };
        remember(&mut editor, history_path.as_deref(), &line);
        match session.handle(&line) {
            Ok(meta::Next::Continue) => {}
            Ok(meta::Next::Quit) => break,
            Err(err) => session.printer.error(&err),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How the banner names the backend.
fn backend_name(backend: &str) -> String {
    match backend {
        "local" => "local Fabric".to_string(),
        host => host.to_string(),
    }
}

/// Adds the line to the history file unless it may carry a secret.
fn remember(
    editor: &mut Editor<ReplHelper, DefaultHistory>,
    path: Option<&std::path::Path>,
    line: &str,
) {
    if line.trim().is_empty() || history::is_secret(line) {
        return;
    }
    if editor.add_history_entry(line).unwrap_or(false)
        && let Some(path) = path
    {
        // History is a convenience: a read-only state dir must not stop the session.
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.append_history(path);
    }
}

/// One REPL session: the connected context, the engine, and what earlier lines defined.
pub struct Session {
    /// The scripting host: which command ran last, for the columns of its value.
    host: Host,
    /// For command lines: the same settings as the CLI's (the default workspace).
    settings: Settings,
    ctx: Ctx,
    engine: Engine,
    scope: Scope<'static>,
    /// Functions defined by earlier lines, so later lines can call them.
    functions: AST,
    printer: Printer,
    /// `:output`'s choice; `None` is the CLI's default.
    format: Option<Format>,
}

impl Session {
    /// Runs one (possibly multi-line) input.
    fn handle(&mut self, input: &str) -> Result<meta::Next> {
        match lines::classify(input) {
            Line::Empty => {}
            Line::Meta { name, rest } => return meta::run(self, &name, &rest),
            Line::Command(words) => self.command_line(words)?,
            // A word the shell habit types, unless the session defined it as a variable.
            Line::Rhai
                if let Some((name, rest)) = lines::bare_meta(input)
                    // A blank line has no first word, and names no variable.
                    && input
                        .split_whitespace()
                        .next()
                        .is_none_or(|first| !self.scope.contains(first)) =>
            {
                return meta::run(self, name, &rest);
            }
            Line::Rhai => match lines::near_command_line(input) {
                Some(meant) => {
                    let group = match input.split_whitespace().next() {
                        Some(first) => format!("no command group `{first}`"),
                        None => "no command group".to_string(),
                    };
                    return Err(Error::usage(group).with_hint(format!("did you mean `{meant}`?")));
                }
                None => self.rhai(input, REPL_ORIGIN),
            },
        }
        Ok(meta::Next::Continue)
    }

    /// The session's printer.
    pub fn printer(&self) -> &Printer {
        &self.printer
    }

    /// The session's engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Where stdlib modules come from, when not the built-in ones.
    pub fn stdlib_dir(&self) -> Option<std::path::PathBuf> {
        self.settings.stdlib_dir()
    }

    /// `:output FORMAT`.
    pub fn set_output(&mut self, text: &str) -> Result<()> {
        self.format = meta::parse_output(text)?;
        self.printer.set_format(self.format);
        Ok(())
    }

    /// `:load FILE`: runs a script here; what it defines stays.
    pub fn load(&mut self, path: &str) -> Result<()> {
        if path.is_empty() {
            return Err(Error::usage(":load needs a file name"));
        }
        let source = std::fs::read_to_string(path)
            .map_err(|err| Error::usage(format!("cannot read {path}: {err}")))?;
        self.rhai(&source, path);
        Ok(())
    }

    /// A command line, through the same clap tree and dispatch as the CLI.
    fn command_line(&mut self, words: Vec<String>) -> Result<()> {
        let argv: Vec<String> = std::iter::once("fabsh".to_string()).chain(words).collect();
        let matches = match tree::build().try_get_matches_from(&argv) {
            Ok(matches) => matches,
            Err(err) => {
                let text = err.render().to_string();
                if err.use_stderr() {
                    self.printer.stderr_text(&text);
                } else {
                    self.printer.text(&text)?;
                }
                return Ok(());
            }
        };
        let Some((group, sub)) = matches.subcommand() else {
            return Ok(());
        };
        let printer = printer_for(&matches, self.format)?;
        let (spec, args) = dispatch::prepare(group, sub, &argv, &self.settings, &printer)?;
        if spec.is_interactive() {
            let err = Error::usage(format!(
                "`{}` takes over the terminal; run it from a shell",
                spec.path()
            ));
            // Only a script has an in-REPL way to run it.
            return Err(if spec.group == "run" {
                err.with_hint("in the REPL, `:load FILE` runs a script")
            } else {
                err
            });
        }
        dispatch::run_spec(spec, args, &self.ctx, &printer)?;
        Ok(())
    }

    /// Rhai code: compiled with the session's variables in view, run with the functions
    /// defined so far; the value is shown like a command's result.
    fn rhai(&mut self, source: &str, origin: &str) {
        let outcome = runner::compile(&self.engine, &self.scope, origin, source).and_then(|ast| {
            let with_functions = self.functions.merge(&ast);
            self.functions = self.functions.merge(&ast.clone_functions_only());
            let value = runner::eval(
                &self.engine,
                &mut self.scope,
                &with_functions,
                origin,
                source,
            )?;
            let columns = self.host.columns_for(&value);
            runner::show_value(&self.printer, &value, columns).map_err(ScriptFailure::from)
        });
        if let Err(failure) = outcome {
            self.printer
                .script_error(&failure.error, failure.spot.as_ref());
        }
    }
}
