//! `fabsh docs`: the command reference as markdown, generated from what this binary
//! registers: the global flags from the clap tree, every command from the registry, then
//! scripting (functions, natives, stdlib) from the script engine.

use super::tree;
use crate::commands::REGISTRY;
use fabsh_client::commands::args::flag_name;
use fabsh_client::commands::common::effective_args;
use fabsh_client::commands::{ArgKind, ArgSpec, CommandSpec};
use fabsh_client::error::Result;
use rhai::Engine;
use std::fmt::Write;

/// The whole reference: the global flags, every command, then scripting and the stdlib.
pub fn markdown(engine: &Engine, stdlib_dir: Option<&std::path::Path>) -> Result<String> {
    let mut out = String::from("# fabsh command reference\n\n");
    let _ = writeln!(
        out,
        "Generated from the command registry (`fabsh docs`). Commands that neither take over \
         the terminal nor print for a shell also run in scripts and the REPL. Global flags: {}.",
        global_flags().join(", ")
    );
    for group in REGISTRY.groups {
        let _ = write!(out, "\n## {}\n\n{}\n", group.name, group.summary);
        for spec in group.commands {
            command(&mut out, spec);
        }
    }
    out.push_str(&crate::script::docs::markdown(engine, stdlib_dir)?);
    Ok(out)
}

/// The reference of one group (`item`) or one command (`item create`, `local principal
/// add`); a name that is neither is a usage error.
pub fn part(words: &[String]) -> Result<String> {
    let asked = words.join(" ");
    let (group_name, rest) = words
        .split_first()
        .map_or(("", &[][..]), |(g, r)| (g.as_str(), r));
    let group = REGISTRY
        .groups
        .iter()
        .find(|group| group.name == group_name)
        .ok_or_else(|| unknown(&asked))?;
    let mut out = String::new();
    if rest.is_empty() {
        let _ = write!(
            out,
            "## {}

{}
",
            group.name, group.summary
        );
        for spec in group.commands {
            command(&mut out, spec);
        }
        return Ok(out);
    }
    let name = rest.join(" ");
    let spec = group
        .commands
        .iter()
        .find(|spec| spec.name == name)
        .ok_or_else(|| unknown(&asked))?;
    command(&mut out, spec);
    Ok(out.trim_start().to_string())
}

fn unknown(asked: &str) -> fabsh_client::error::Error {
    fabsh_client::error::Error::usage(format!("no command `{asked}`"))
        .with_hint("`fabsh docs` prints the whole reference, `fabsh --help` lists the groups")
}

/// The root command's flags as `-o/--output <FORMAT>`.
fn global_flags() -> Vec<String> {
    tree::build()
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?;
            let mut name = match arg.get_short() {
                Some(short) => format!("-{short}/--{long}"),
                None => format!("--{long}"),
            };
            if arg.get_action().takes_values()
                && let Some(values) = arg.get_value_names()
            {
                for value in values {
                    name.push_str(&format!(" <{value}>"));
                }
            }
            Some(format!("`{name}`"))
        })
        .collect()
}

fn command(out: &mut String, spec: &'static CommandSpec) {
    let _ = write!(out, "\n### `fabsh {}`\n\n{}\n", spec.path(), spec.summary);
    if !spec.about.is_empty() {
        let _ = write!(out, "\n{}\n", spec.about);
    }
    let _ = write!(out, "\nTraits: {}.\n", describe(spec));
    let args = effective_args(spec);
    if !args.is_empty() {
        out.push_str("\n| flag | value | required | description |\n|---|---|---|---|\n");
        for arg in args {
            let mut name = flag_name(arg);
            if let Some(short) = arg.short {
                name = format!("-{short}, {name}");
            }
            for alias in arg.aliases {
                name.push_str(&format!(", --{alias}"));
            }
            let value = match arg.kind {
                ArgKind::Enum(values) => values.join(" \\| "),
                _ => arg.shown_value_name().replace('|', "\\|"),
            };
            let mut help = arg.help.replace('|', "\\|");
            if let Some(env) = arg.env {
                help.push_str(&format!(" (env {env})"));
            }
            if let Some(default) = arg.default {
                help.push_str(&format!(" (default {default})"));
            }
            let required = if arg.required { "yes" } else { "" };
            let _ = writeln!(out, "| `{name}` | {value} | {required} | {help} |");
        }
    }
    if !spec.examples.is_empty() {
        out.push_str("\nExamples:\n\n```sh\n");
        for example in spec.examples {
            let _ = writeln!(out, "fabsh {}   # {}", example.command, example.about);
        }
        out.push_str("```\n");
    }
}

/// What `--help` says of the command's traits, in words: what it does to the service,
/// what it returns, and where it runs when not everywhere.
pub fn sentence(spec: &CommandSpec) -> String {
    let mut text = spec.traits.sentence();
    if let Some(flags) = deleting_flags(spec) {
        text.push_str(&format!(
            " With {flags} it loses data (asks first unless --yes)."
        ));
    }
    worded(
        spec,
        text,
        "Runs from a shell and takes over the terminal.",
        " Not a script function.",
    )
}

/// The traits' words, and where the command runs when not everywhere.
pub fn describe(spec: &CommandSpec) -> String {
    let mut text = spec.traits.describe();
    if let Some(flags) = deleting_flags(spec) {
        text.push_str(&format!("; destructive with {flags}"));
    }
    worded(
        spec,
        text,
        "interactive: runs from a shell, takes over the terminal",
        "; not a script function",
    )
}

/// The flags that make a command that is not destructive itself lose data
/// (`--delete-orphans`), as the docs name them; `None` when it has none.
fn deleting_flags(spec: &CommandSpec) -> Option<String> {
    if spec.traits.destructive || !spec.can_lose_data() {
        return None;
    }
    let flags: Vec<String> = spec
        .args
        .iter()
        .filter(|arg| arg.destructive)
        .map(ArgSpec::deleting_words)
        .collect();
    Some(flags.join(" or "))
}

/// `traits`, or `interactive` for a command that takes over the terminal, with `unscripted`
/// added for one scripts cannot call.
fn worded(spec: &CommandSpec, traits: String, interactive: &str, unscripted: &str) -> String {
    if spec.is_interactive() {
        return interactive.to_string();
    }
    let mut text = traits;
    if !spec.is_scriptable() {
        text.push_str(unscripted);
    }
    text
}
