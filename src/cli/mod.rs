//! The one-shot command line: parse with the generated clap tree, dispatch to the registry
//! command, render, and turn the outcome into an exit code.

pub mod dispatch;
pub mod docs;
mod shell_complete;
mod shorthands;
pub mod tree;

use crate::repl;
use crate::script::{Host, runner};
use clap::ArgMatches;
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::{Format, Printer};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio::runtime::Handle;

/// Runs fabsh with these arguments (program name first) and returns the exit code.
pub fn run(args: Vec<OsString>, handle: Handle) -> ExitCode {
    // The shells' hidden helper is no registry command: it stays out of help and the docs.
    if args
        .get(1)
        .is_some_and(|word| word == shell_complete::COMMAND)
    {
        return shell_complete::run(args, handle);
    }
    let args = shorthands::expand(args);
    let no_color = args.iter().any(|arg| arg == "--no-color");
    let mut root = tree::build();
    if no_color {
        root = root.color(clap::ColorChoice::Never);
    }
    let args = shorthands::output_file(&root, args);
    let matches = match root.clone().try_get_matches_from(&args) {
        Ok(matches) => matches,
        Err(err) => {
            if let Some(usage) = shorthands::name_for_id(&root, &args, &err) {
                return fail(&Printer::plain(), &usage);
            }
            if let Some(usage) = shorthands::fab_habit(&args, &err)
                .or_else(|| shorthands::subcommand_habit(&args, &err))
            {
                return fail(&Printer::plain(), &usage);
            }
            // clap prints help/version to stdout and usage errors to stderr itself.
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    let mut settings = settings_for(&matches);
    let may_create = matches!(matches.subcommand_name(), Some("auth" | "config"));
    if let Err(err) = settings.load_profile(may_create) {
        return fail(&Printer::plain(), &err);
    }
    let printer = match printer_for(&matches, Format::configured(&settings)) {
        Ok(printer) => printer,
        Err(err) => return fail(&Printer::plain(), &err),
    };
    let bridge = Bridge::new(handle);
    let words: Vec<String> = args
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let code = match run_matches(&matches, &words, &settings, &printer, &bridge) {
        Ok(code) => code,
        Err(err) => fail(&printer, &err),
    };
    if bridge.was_terminated() {
        // 128 + SIGTERM, as a process the signal ended exits: what was stopped is reported.
        return ExitCode::from(143);
    }
    code
}

fn run_matches(
    matches: &ArgMatches,
    words: &[String],
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<ExitCode> {
    let eval = matches.get_one::<String>("eval");
    let Some((name, sub)) = matches.subcommand() else {
        bridge.cancel_on_ctrl_c();
        return match eval {
            Some(code) => {
                let host = Host::lazy(settings.clone(), bridge.clone(), printer.clone());
                Ok(runner::eval_code(&host, code))
            }
            None => repl::run(settings, bridge, printer),
        };
    };
    if eval.is_some() {
        return Err(Error::usage("give either -e or a command, not both"));
    }
    dispatch::run_command(name, sub, words, settings, printer, bridge)
}

/// The printer the global flags ask for: `-o` first, then `fallback` (the environment's or
/// profile's `output`, or the REPL's `:output`).
pub(crate) fn printer_for(matches: &ArgMatches, fallback: Option<Format>) -> Result<Printer> {
    let format = matches
        .get_one::<String>("output")
        .and_then(|name| Format::parse(name))
        .or(fallback);
    let query = matches.get_one::<String>("query").cloned();
    Printer::new(format, query, matches.get_flag("no-color"))
}

fn settings_for(matches: &ArgMatches) -> Settings {
    Settings {
        endpoint: matches.get_one::<String>("endpoint").cloned(),
        local: matches.get_flag("local"),
        verbose: matches.get_flag("verbose"),
        profile: matches.get_one::<String>("profile").cloned(),
        profile_values: Default::default(),
        stdlib: matches.get_one::<String>("stdlib").map(PathBuf::from),
        no_cache: matches.get_flag("no-cache"),
    }
}

/// Prints an error and returns its exit code.
fn fail(printer: &Printer, err: &Error) -> ExitCode {
    printer.error(err);
    ExitCode::from(err.exit_code())
}
