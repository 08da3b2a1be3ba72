//! Commands that are not API calls: `docs`, `completions`, `local`, `auth`, `config`, `run`,
//! `repl`.

use super::{auth, config, docs, local, tree};
use crate::repl;
use crate::script::{Host, runner};
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgMatches, Command};
use clap_complete::Shell;
use fabsh_client::bridge::Bridge;
use fabsh_client::config::Settings;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use std::path::PathBuf;
use std::process::ExitCode;

const SHELLS: &[&str] = &["bash", "zsh", "fish", "powershell", "elvish"];

/// The built-in commands' clap definitions.
pub fn commands() -> Vec<Command> {
    vec![
        Command::new("docs").about("Print the command reference as markdown"),
        Command::new("completions")
            .about("Print shell completions")
            .arg(
                Arg::new("shell")
                    .required(true)
                    .value_parser(PossibleValuesParser::new(SHELLS))
                    .help("bash, zsh, fish, powershell or elvish"),
            )
            .after_help("Example: fabsh completions bash > ~/.local/share/bash-completion/completions/fabsh"),
        local::command(),
        auth::command(),
        config::command(),
        Command::new("run")
            .about("Run a Rhai script; the words after `--` are its ARGS array")
            .arg(
                Arg::new("file")
                    .required(true)
                    .value_name("FILE")
                    .value_hint(clap::ValueHint::FilePath)
                    .help("The script (.rhai)"),
            )
            .arg(
                Arg::new("args")
                    .num_args(0..)
                    .trailing_var_arg(true)
                    .allow_hyphen_values(true)
                    .value_name("ARGS")
                    .help("Arguments for the script, after `--`"),
            )
            .after_help("Example: fabsh --local run scripts/tour.rhai -- Demo"),
        Command::new("repl").about("Start the REPL (the same as `fabsh` with no command)"),
    ]
}

/// Runs the built-in `name`, or returns `None` when it is a registry group.
pub fn run(
    name: &str,
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Option<Result<ExitCode>> {
    let result = match name {
        "docs" => {
            docs::markdown(settings.stdlib_dir().as_deref()).and_then(|text| printer.text(&text))
        }
        "completions" => completions(matches, printer),
        "local" => return Some(local::run(matches, settings, printer, bridge)),
        "auth" => return Some(auth::run(matches, settings, printer, bridge)),
        "config" => return Some(config::run(matches, settings, printer)),
        "run" => return Some(Ok(run_script(matches, settings, printer, bridge))),
        "repl" => return Some(repl::run(settings, bridge, printer)),
        _ => return None,
    };
    Some(result.map(|()| ExitCode::SUCCESS))
}

fn run_script(
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> ExitCode {
    let file = matches
        .get_one::<String>("file")
        .map(PathBuf::from)
        .unwrap_or_default();
    let args = matches
        .get_many::<String>("args")
        .map(|args| args.cloned().collect())
        .unwrap_or_default();
    bridge.cancel_on_ctrl_c();
    let host = Host::lazy(settings.clone(), bridge.clone(), printer.clone());
    runner::run_file(&host, &file, args)
}

fn completions(matches: &ArgMatches, printer: &Printer) -> Result<()> {
    let name = matches
        .get_one::<String>("shell")
        .ok_or_else(|| Error::usage("name a shell"))?;
    let shell: Shell = name
        .parse()
        .map_err(|_| Error::usage(format!("unknown shell {name}")))?;
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut tree::build(), "fabsh", &mut buffer);
    printer.text(&String::from_utf8_lossy(&buffer))
}
