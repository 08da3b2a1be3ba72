//! From clap matches to a registry handler: check the flags, confirm destructive commands on
//! a terminal, connect, run through the bridge, render.

use clap::ArgMatches;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::args::{Args, RawValue, flag_name};
use fabsh_client::commands::common::effective_args;
use fabsh_client::commands::{self, CommandSpec};
use fabsh_client::config::Settings;
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Runs the registry command named by the matches under `group`.
pub fn run_registry_command(
    group: &str,
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<ExitCode> {
    let (spec, args) = prepare(group, matches, settings, printer)?;
    let ctx = if spec.traits.offline {
        crate::connect::offline(settings, bridge.clone())?
    } else {
        crate::connect::connect(settings, bridge.clone(), printer.progress())?
    };
    run_spec(spec, args, &ctx, printer)
}

/// The registry command named by the matches under `group`, with its flags checked and, when
/// it is destructive and we are on a terminal, confirmed.
pub fn prepare(
    group: &str,
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
) -> Result<(&'static CommandSpec, Args)> {
    let (spec, matches) = match commands::find(group, "") {
        Some(spec) => (spec, matches),
        None => {
            let (name, sub) = matches
                .subcommand()
                .ok_or_else(|| Error::usage(format!("`fabsh {group}` needs a command")))?;
            let spec = commands::find(group, name)
                .ok_or_else(|| Error::usage(format!("unknown command `{group} {name}`")))?;
            (spec, sub)
        }
    };
    let args = args_from_matches(spec, matches, settings)?;
    if needs_confirmation(spec, &args) && !printer.confirm(&confirmation_question(spec, &args)) {
        return Err(Error::cancelled().with_hint("nothing was changed"));
    }
    Ok((spec, args))
}

/// Runs a checked command on a connected context and renders its reply; a reply that carries
/// a failure (some items of a bulk command failed) is shown and then sets the exit code.
pub fn run_spec(
    spec: &'static CommandSpec,
    args: Args,
    ctx: &Ctx,
    printer: &Printer,
) -> Result<ExitCode> {
    let bridge = ctx.bridge();
    bridge.cancel_on_ctrl_c();
    let failure = bridge.block_on(async {
        let reply = commands::execute(spec, args, ctx).await?;
        let failure = reply.failure.clone();
        printer.render(reply, spec.columns).await?;
        Ok(failure)
    })?;
    match failure {
        Some(failure) => {
            printer.error(&failure);
            Ok(ExitCode::from(failure.exit_code()))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The command's flags as given on the command line, checked; `-w` falls back to the
/// environment's or profile's default workspace.
fn args_from_matches(
    spec: &'static CommandSpec,
    matches: &ArgMatches,
    settings: &Settings,
) -> Result<Args> {
    let declared = effective_args(spec);
    let raw = declared
        .iter()
        .filter_map(|arg| {
            let value = match matches.get_one::<String>(arg.long) {
                Some(value) => value.clone(),
                None => settings.flag_default(arg.long)?,
            };
            Some((*arg, RawValue::Text(value)))
        })
        .collect();
    Args::check(spec, &declared, raw)
}

fn needs_confirmation(spec: &CommandSpec, args: &Args) -> bool {
    spec.traits.destructive
        && !args.flag("yes")
        && !args.flag("dry-run")
        && std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
}

fn confirmation_question(spec: &'static CommandSpec, args: &Args) -> String {
    let targets: Vec<String> = effective_args(spec)
        .iter()
        .filter(|arg| arg.required)
        .filter_map(|arg| Some(format!("{} {}", flag_name(arg), args.opt_str(arg.long)?)))
        .collect();
    format!(
        "About to run `fabsh {} {}`: {}. Continue?",
        spec.path(),
        targets.join(" "),
        spec.summary.to_lowercase()
    )
}
