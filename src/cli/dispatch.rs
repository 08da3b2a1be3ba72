//! From clap matches to a registry command: check the flags, confirm destructive commands on
//! a terminal, then hand the terminal to an interactive command, or connect as the command
//! needs, run it through the bridge and render its reply.

use crate::commands::REGISTRY;
use clap::ArgMatches;
use clap::parser::ValueSource;
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::args::{Args, RawValue, flag_name};
use fabsh_client::commands::common::{
    TARGET, TraitFlags, configured_default, effective_args, target_fills,
};
use fabsh_client::commands::{self, ArgKind, ArgSpec, CommandSpec, Handler, Terminal, auth};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Runs the command the matches name under `group`: one that takes over the terminal gets
/// it; any other gets the context its traits ask for.
pub fn run_command(
    group: &str,
    matches: &ArgMatches,
    words: &[String],
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<ExitCode> {
    let (spec, args) = prepare(group, matches, words, settings, printer)?;
    if let Handler::Interactive(run) = spec.handler {
        let terminal = Terminal {
            settings,
            bridge,
            printer,
        };
        return run(&terminal, args);
    }
    let ctx = crate::connect::context_for(spec, settings, bridge.clone(), printer.progress())?;
    bridge.cancel_on_terminate();
    run_spec(spec, args, &ctx, printer)
}

/// The command the matches name under `group`, with its flags checked and, when it is
/// destructive and we are on a terminal, confirmed; `words` is the command line they were
/// parsed from.
pub fn prepare(
    group: &str,
    matches: &ArgMatches,
    words: &[String],
    settings: &Settings,
    printer: &Printer,
) -> Result<(&'static CommandSpec, Args)> {
    let (spec, matches) = command_of(group, matches)?;
    html_format_fits(spec, printer)?;
    let mut args = args_from_matches(spec, matches, settings, words)?;
    if spec.traits.secret && printer.stdout_is_terminal() && !args.flag(auth::SHOW.long) {
        return Err(Error::usage("refusing to print a secret to the terminal")
            .with_hint("pipe it into another program, or add --show"));
    }
    if needs_consent(spec, &args) {
        if !on_terminal() {
            return Err(Error::usage(format!(
                "`fabsh {}` cannot be undone ({}); off a terminal it needs --yes",
                command_line(spec, &args),
                spec.summary.to_lowercase()
            ))
            .with_hint("add --yes to go ahead; nothing was sent"));
        }
        // What `deploy apply --delete-orphans` deletes is known only once it has planned:
        // it asks then, naming the items.
        if spec.confirms_itself(&args) {
            args = args.asking_at_terminal();
        } else if !printer.confirm(&confirmation_question(spec, &args)) {
            return Err(Error::runtime("not confirmed").with_hint("nothing was changed"));
        }
    }
    Ok((spec, args))
}

/// `-o html` is the page of the commands that make one, and nothing to query: refused
/// elsewhere before anything is sent.
fn html_format_fits(spec: &CommandSpec, printer: &Printer) -> Result<()> {
    if printer.format() != Some(fabsh_client::output::Format::Html) {
        return Ok(());
    }
    if !spec.traits.html {
        let pages: Vec<String> = REGISTRY
            .all()
            .filter(|spec| spec.traits.html)
            .map(|spec| format!("`{}`", spec.path()))
            .collect();
        return Err(Error::usage(format!(
            "-o html: `fabsh {}` makes no page; {} do",
            spec.path(),
            pages.join(", ")
        ))
        .with_hint("use -o json, table, wide, tsv, csv or yaml; nothing was sent"));
    }
    if printer.has_query() {
        return Err(Error::usage("-o html writes a page, which -q cannot query")
            .with_hint("drop -q, or query the data with -o json"));
    }
    Ok(())
}

/// The registry command under `group` the matches name (one or two words down), with the
/// matches of its own flags.
fn command_of<'a>(
    group: &str,
    matches: &'a ArgMatches,
) -> Result<(&'static CommandSpec, &'a ArgMatches)> {
    if let Some(spec) = REGISTRY.find(group, "") {
        return Ok((spec, matches));
    }
    let (name, sub) = matches
        .subcommand()
        .ok_or_else(|| Error::usage(format!("`fabsh {group}` needs a command")))?;
    if let Some(spec) = REGISTRY.find(group, name) {
        return Ok((spec, sub));
    }
    let (inner, inner_matches) = sub
        .subcommand()
        .ok_or_else(|| Error::usage(format!("`fabsh {group} {name}` needs a command")))?;
    let spec = REGISTRY
        .find(group, &format!("{name} {inner}"))
        .ok_or_else(|| Error::usage(format!("unknown command `{group} {name} {inner}`")))?;
    Ok((spec, inner_matches))
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
    words: &[String],
) -> Result<Args> {
    let declared = effective_args(spec);
    // A `WORKSPACE/ITEM` positional names the workspace ahead of the profile's default.
    let from_target: Vec<&str> = matches
        .try_get_one::<String>(TARGET)
        .ok()
        .flatten()
        .into_iter()
        .flat_map(|target| target_fills(spec, target))
        .map(|(long, _)| long)
        .collect();
    let positional = positional_words(spec, &declared, matches);
    let raw = declared
        .iter()
        .filter_map(|arg| {
            if let Some(words) = &positional
                && arg.positional
                && !arg.trailing
            {
                return words
                    .get(arg.long)
                    .map(|word| (*arg, RawValue::Text(word.clone())));
            }
            // A default clap filled in is left to `Args::check`, which puts the flag's
            // environment variable first.
            let given = matches.value_source(arg.long) != Some(ValueSource::DefaultValue);
            let value = if arg.trailing {
                let words = matches.get_many::<String>(arg.long)?;
                RawValue::List(words.cloned().collect())
            } else if arg.kind == ArgKind::List && !arg.positional && given {
                // A repeated list flag is one list; a blank occurrence is passed on alone, to
                // be refused like any empty value.
                let given: Vec<&String> = matches.get_many::<String>(arg.long)?.collect();
                let blank = given.iter().find(|text| text.trim().is_empty());
                let joined = given
                    .iter()
                    .map(|text| text.as_str())
                    .collect::<Vec<_>>()
                    .join(",");
                RawValue::Text(blank.map_or(joined, |text| (*text).clone()))
            } else {
                match matches.get_one::<String>(arg.long).filter(|_| given) {
                    Some(value) => RawValue::Text(value.clone()),
                    None if from_target.contains(&arg.long) => return None,
                    None => RawValue::Text(configured_default(settings, arg)?),
                }
            };
            Some((*arg, value))
        })
        .collect();
    let typed: Vec<(&'static str, String)> = declared
        .iter()
        .filter_map(|arg| Some((arg.long, typed_spelling(arg, words)?)))
        .collect();
    Args::check_as_typed(spec, &declared, raw, &typed)
}

/// For a command whose optional positional comes before required ones (`evaluations compare
/// [WORKSPACE/AGENT] RUN_A RUN_B`), the words given, by positional: the required positionals
/// take them first (`compare A B` is two runs), the optional one only when every required
/// one has its word. `None` for other commands, whose positionals clap fills as declared.
fn positional_words(
    spec: &'static CommandSpec,
    declared: &[&'static ArgSpec],
    matches: &ArgMatches,
) -> Option<std::collections::HashMap<&'static str, String>> {
    if !super::tree::leads_with_optional_positional(spec) {
        return None;
    }
    let positionals: Vec<&'static ArgSpec> = declared
        .iter()
        .copied()
        .filter(|arg| arg.positional && !arg.trailing)
        .collect();
    let words: Vec<String> = positionals
        .iter()
        .filter_map(|arg| matches.get_one::<String>(arg.long).cloned())
        .collect();
    let required = positionals.iter().filter(|arg| arg.required).count();
    let mut optional_left = words.len().saturating_sub(required);
    let mut words = words.into_iter();
    let mut out = std::collections::HashMap::new();
    for arg in positionals {
        if !arg.required {
            if optional_left == 0 {
                continue;
            }
            optional_left -= 1;
        }
        match words.next() {
            Some(word) => out.insert(arg.long, word),
            None => break,
        };
    }
    Some(out)
}

/// The spelling of a flag with several (`--id`, `-w`, `--workspace`) that the command line
/// `words` used, so that a refusal names what the user wrote, not a name they never typed.
fn typed_spelling(arg: &ArgSpec, words: &[String]) -> Option<String> {
    if arg.positional || (arg.aliases.is_empty() && arg.short.is_none()) {
        return None;
    }
    let spellings: Vec<String> = std::iter::once(format!("--{}", arg.long))
        .chain(arg.aliases.iter().map(|alias| format!("--{alias}")))
        .chain(arg.short.map(|short| format!("-{short}")))
        .collect();
    words
        .iter()
        .rev()
        .find_map(|word| {
            spellings
                .iter()
                .find(|spelling| *word == **spelling || word.starts_with(&format!("{spelling}=")))
        })
        .cloned()
}

/// A call that loses data (a destructive command, or a deleting flag such as `deploy apply
/// --delete-orphans`) needs `--yes`, or a yes at a terminal (the gh convention); a dry run
/// destroys nothing.
fn needs_consent(spec: &CommandSpec, args: &Args) -> bool {
    let flags = TraitFlags::of(args);
    spec.loses_data(args) && !flags.yes && !flags.dry_run
}

fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

fn confirmation_question(spec: &'static CommandSpec, args: &Args) -> String {
    format!(
        "About to run `fabsh {}`: {}. Continue?",
        command_line(spec, args),
        spec.summary.to_lowercase()
    )
}

/// The command as the user gave it, as far as a consent needs: its path, what it acts on
/// (its required flags and the workspaces and items named), and the deleting flags that are
/// set (`--delete-orphans`).
fn command_line(spec: &'static CommandSpec, args: &Args) -> String {
    let mut words = vec![spec.path()];
    for arg in effective_args(spec) {
        if (arg.required || arg.kind == ArgKind::Ref)
            && let Some(value) = args.opt_str(arg.long)
        {
            words.push(format!("{} {value}", flag_name(arg)));
        } else if arg.deletes_with(args) {
            words.push(arg.deleting_words());
        }
    }
    words.join(" ")
}
