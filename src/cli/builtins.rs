//! Commands that are not API calls: `docs`, `completions`, `local`, `auth`, `config`.

use super::{auth, config, docs, local, tree};
use crate::bridge::Bridge;
use crate::config::Settings;
use crate::error::{Error, Result};
use crate::output::Printer;
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgMatches, Command};
use clap_complete::Shell;
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
        "docs" => printer.text(&docs::markdown()),
        "completions" => completions(matches, printer),
        "local" => return Some(local::run(matches, settings, printer, bridge)),
        "auth" => return Some(auth::run(matches, settings, printer, bridge)),
        "config" => return Some(config::run(matches, settings, printer)),
        _ => return None,
    };
    Some(result.map(|()| ExitCode::SUCCESS))
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
