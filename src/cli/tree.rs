//! The clap command tree, generated from the registry.

use crate::commands::REGISTRY;
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, Command};
use fabsh_client::commands::common::{effective_args, target_fills, target_for};
use fabsh_client::commands::{ArgKind, ArgSpec, CommandSpec, Group};
use fabsh_client::output::Format;

/// The whole tree: global flags, then every registry group and command.
pub fn build() -> Command {
    let mut root = Command::new("fabsh")
        .version(env!("CARGO_PKG_VERSION"))
        .about("A client for Microsoft Fabric workspace items and data agents")
        .long_about(
            "A client for Microsoft Fabric workspace items and data agents.\n\n\
             Talks to the Fabric REST API (sign in with `fabsh auth login`, or set FABSH_TOKEN), \
             or with --local to local Fabric, a wire-compatible server built into fabsh.\n\n\
             With no command, starts the REPL (Rhai code and command lines).",
        )
        .arg(
            Arg::new("eval")
                .short('e')
                .long("eval")
                .value_name("RHAI")
                .help("Evaluate Rhai code and print its value"),
        )
        .args(global_args());
    for group in REGISTRY.groups {
        root = root.subcommand(group_command(group));
    }
    root
}

fn global_args() -> Vec<Arg> {
    let args = vec![
        Arg::new("output")
            .short('o')
            .long("output")
            .global(true)
            .value_name("FORMAT")
            .value_parser(PossibleValuesParser::new(Format::NAMES))
            .help("Output format (default: table for lists on a terminal, else json; html for the commands that make a page)"),
        Arg::new("query")
            .short('q')
            .long("query")
            .global(true)
            .value_name("JMESPATH")
            .help("JMESPath expression applied to the JSON result"),
        Arg::new("endpoint")
            .long("endpoint")
            .global(true)
            .value_name("URL")
            .help("Fabric API base URL (default: FABSH_ENDPOINT, else https://api.fabric.microsoft.com/v1)"),
        Arg::new("profile")
            .long("profile")
            .global(true)
            .value_name("NAME")
            .help("Config profile to use (default: FABSH_PROFILE, else `default`)"),
        Arg::new("local")
            .long("local")
            .global(true)
            .action(ArgAction::SetTrue)
            .help("Start local Fabric in-process and use it"),
        Arg::new("verbose")
            .short('v')
            .long("verbose")
            .global(true)
            .action(ArgAction::SetTrue)
            .help("Trace requests and responses on stderr (tokens redacted)"),
        Arg::new("stdlib")
            .long("stdlib")
            .global(true)
            .value_name("DIR")
            .value_hint(clap::ValueHint::DirPath)
            .help("Load stdlib modules from DIR/<module>.rhai instead of the built-in ones (env FABSH_STDLIB)"),
        Arg::new("no-cache")
            .long("no-cache")
            .global(true)
            .action(ArgAction::SetTrue)
            .help("Look names up afresh, without the name cache of earlier commands (env FABSH_NO_CACHE)"),
        Arg::new("no-color")
            .long("no-color")
            .global(true)
            .action(ArgAction::SetTrue)
            .help("Do not color output (NO_COLOR is honoured too)"),
    ];
    args.into_iter()
        .map(|arg| arg.help_heading("Global options"))
        .collect()
}

fn group_command(group: &Group) -> Command {
    // A group whose only command has an empty name is itself the command (`api`).
    if let [spec] = group.commands
        && spec.name.is_empty()
    {
        return command_for(spec, group.name);
    }
    let mut command = Command::new(group.name)
        .about(group.summary)
        .subcommand_required(true)
        .arg_required_else_help(true);
    let mut parents: Vec<&str> = Vec::new();
    for spec in group.commands {
        match spec.name.split_once(' ') {
            // `principal add`: the first word is a level of its own, made once for its
            // siblings, where the first of them is declared.
            Some((parent, _)) if !parents.contains(&parent) => {
                parents.push(parent);
                command = command.subcommand(parent_command(group, parent));
            }
            Some(_) => {}
            None => {
                let aliases = aliases_of(group, spec.name);
                command = command.subcommand(command_for(spec, spec.name).visible_aliases(aliases));
            }
        }
    }
    command
}

/// The short names people type from other CLIs (gh, kubectl, Unix): `ls`, `get`, `rm`,
/// wherever the group has no command of that name itself.
fn aliases_of(group: &Group, name: &str) -> Vec<&'static str> {
    const ALIASES: &[(&str, &str)] = &[("list", "ls"), ("show", "get"), ("delete", "rm")];
    ALIASES
        .iter()
        .filter(|(command, alias)| {
            *command == name && group.commands.iter().all(|spec| spec.name != *alias)
        })
        .map(|(_, alias)| *alias)
        .collect()
}

/// The level `parent` of `group` (`local principal`) with the commands under it.
fn parent_command(group: &Group, parent: &'static str) -> Command {
    let children: Vec<(&'static CommandSpec, &'static str)> = group
        .commands
        .iter()
        .filter_map(|spec| match spec.name.split_once(' ') {
            Some((first, name)) if first == parent => Some((spec, name)),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = children.iter().map(|(_, name)| *name).collect();
    let mut command = Command::new(parent)
        .about(format!("{parent}: {}", names.join(", ")))
        .subcommand_required(true)
        .arg_required_else_help(true);
    for (spec, name) in children {
        command = command.subcommand(command_for(spec, name));
    }
    command
}

/// One registry command as a clap command.
pub fn command_for(spec: &'static CommandSpec, name: &'static str) -> Command {
    let mut long_about = spec.summary.to_string();
    if !spec.about.is_empty() {
        long_about.push_str("\n\n");
        long_about.push_str(spec.about);
    }
    let mut after = super::docs::sentence(spec);
    if !spec.examples.is_empty() {
        after.push_str("\n\nExamples:");
        for example in spec.examples {
            let lines = pasteable_lines(&format!("fabsh {}", example.command), EXAMPLE_WIDTH);
            after.push_str(&format!(
                "\n  # {}\n  {}",
                example.about,
                lines.join("\n      ")
            ));
        }
    }
    let mut command = Command::new(name)
        .about(spec.summary)
        .long_about(long_about)
        .after_help(after);
    // What a `WORKSPACE/ITEM` positional can fill is not required by clap; `Args::check`
    // still insists on it, from the flag or the positional.
    let fillable: Vec<&str> = target_for(spec)
        .into_iter()
        .flat_map(|_| target_fills(spec, "w/i"))
        .map(|(long, _)| long)
        .collect();
    // `[WORKSPACE/AGENT] RUN_A RUN_B`: clap fills positionals in order, so none is required
    // to it; the dispatch gives the words to the required ones first (see
    // `dispatch::positional_words`), and `Args::check` insists on them.
    let leading_optional = leads_with_optional_positional(spec);
    let mut position = 0;
    for arg in effective_args(spec) {
        if arg.positional {
            position += 1;
        }
        let mut arg_ = clap_arg(arg, position);
        if fillable.contains(&arg.long) || (leading_optional && arg.positional) {
            arg_ = arg_.required(false);
        }
        command = command.arg(arg_);
    }
    if leading_optional {
        // Clap would show every positional as optional; the usage says which are not.
        let words: Vec<String> = effective_args(spec)
            .into_iter()
            .filter(|arg| arg.positional)
            .map(|arg| {
                let name = arg
                    .value_name
                    .map_or_else(|| arg.long.to_uppercase(), String::from);
                if arg.required {
                    format!("<{name}>")
                } else {
                    format!("[{name}]")
                }
            })
            .collect();
        command = command.override_usage(format!(
            "fabsh {} [OPTIONS] {}",
            spec.path(),
            words.join(" ")
        ));
    }
    command
}

/// True when an optional positional comes before a required one (`[WORKSPACE/AGENT] RUN`).
pub fn leads_with_optional_positional(spec: &'static CommandSpec) -> bool {
    let positionals: Vec<&ArgSpec> = effective_args(spec)
        .into_iter()
        .filter(|arg| arg.positional && !arg.trailing)
        .collect();
    positionals
        .windows(2)
        .any(|pair| !pair[0].required && pair[1].required)
}

/// Example lines are kept this short, so clap does not wrap them at 80 columns.
const EXAMPLE_WIDTH: usize = 70;

/// A shell command broken into lines of at most `width` (where it can be), each but the
/// last ending in ` \` so the lines paste into a shell as one command. Quoted words stay
/// whole.
pub fn pasteable_lines(command: &str, width: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut quote: Option<char> = None;
    for part in command.split(' ') {
        match words.last_mut() {
            Some(last) if quote.is_some() => {
                last.push(' ');
                last.push_str(part);
            }
            _ => words.push(part.to_string()),
        }
        for c in part.chars() {
            match quote {
                Some(open) if c == open => quote = None,
                None if c == '"' || c == '\'' => quote = Some(c),
                _ => {}
            }
        }
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(format!("{line} \\"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

fn clap_arg(spec: &'static ArgSpec, position: usize) -> Arg {
    let mut arg = Arg::new(spec.long).help(match spec.env {
        Some(env) => format!("{} (env {env})", spec.help),
        None => spec.help.to_string(),
    });
    if spec.trailing {
        return arg
            .index(position)
            .num_args(0..)
            .trailing_var_arg(true)
            .allow_hyphen_values(true)
            .value_name(
                spec.value_name
                    .unwrap_or(&spec.long.to_uppercase())
                    .to_string(),
            );
    }
    if spec.positional {
        arg = arg.index(position).required(spec.required).value_name(
            spec.value_name
                .unwrap_or(&spec.long.to_uppercase())
                .to_string(),
        );
    } else {
        // An alias that is a global flag's name (report's `--output` FILE, now
        // `--output-file`) cannot be a clap alias: `shorthands::output_file` rewrites it.
        let aliases: Vec<&str> = spec
            .aliases
            .iter()
            .copied()
            .filter(|alias| *alias != "output")
            .collect();
        arg = arg
            .long(spec.long)
            .visible_aliases(aliases)
            // A profile may give the workspace; `Args::check` still insists on one.
            .required(spec.required && spec.default.is_none() && spec.long != "workspace")
            .value_name(spec.shown_value_name())
            // `--token-seconds -60`: a negative number is a value, not a flag.
            .allow_negative_numbers(true);
        if let Some(short) = spec.short {
            arg = arg.short(short);
        }
    }
    match spec.kind {
        ArgKind::Bool => {
            // `--hard-delete` and `--hard-delete true` both work (the spec writes the latter).
            arg = arg
                .num_args(0..=1)
                .default_missing_value("true")
                .value_name("BOOL")
                .value_parser(PossibleValuesParser::new(["true", "false"]))
                .ignore_case(true)
                .hide_possible_values(true);
        }
        ArgKind::Enum(values) => {
            arg = arg
                .value_parser(PossibleValuesParser::new(values.iter().copied()))
                .ignore_case(true);
        }
        ArgKind::File => arg = arg.value_hint(clap::ValueHint::FilePath),
        // `--workspace A --workspace B` as well as `--workspace A,B`.
        ArgKind::List if !spec.positional => arg = arg.action(clap::ArgAction::Append),
        _ => {}
    }
    if let Some(default) = spec.default {
        arg = arg.default_value(default);
    }
    arg
}

#[cfg(test)]
mod tests {
    use super::pasteable_lines;

    #[test]
    fn long_examples_break_between_words_with_backslashes_and_keep_quotes_whole() {
        let lines = pasteable_lines("fabsh a --id \"Sales agent here\" --b ccc", 20);
        assert_eq!(
            lines,
            ["fabsh a --id \\", "\"Sales agent here\" \\", "--b ccc"]
        );
        assert_eq!(pasteable_lines("fabsh short", 20), ["fabsh short"]);
    }
}
