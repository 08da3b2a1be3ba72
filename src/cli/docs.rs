//! `fabsh docs`: the command reference as markdown, generated from the registry.

use fabsh_client::commands::common::effective_args;
use fabsh_client::commands::{ArgKind, CommandSpec, GROUPS};
use std::fmt::Write;

/// The whole reference: every command, then scripting and the stdlib.
pub fn markdown(stdlib_dir: Option<&std::path::Path>) -> fabsh_client::Result<String> {
    let mut out = String::from("# fabsh command reference\n\n");
    out.push_str(
        "Generated from the command registry (`fabsh docs`). Every command also runs in \
         scripts and the REPL. Global flags: `-o/--output json|table|tsv|yaml`, \
         `-q/--query <jmespath>`, `--endpoint <url>`, `--profile <name>`, `--local`, `-v/--verbose`, `--no-color`.\n",
    );
    for group in GROUPS {
        let _ = write!(out, "\n## {}\n\n{}\n", group.name, group.summary);
        for spec in group.commands {
            command(&mut out, spec);
        }
    }
    out.push_str(&crate::script::docs::markdown(stdlib_dir)?);
    Ok(out)
}

fn command(out: &mut String, spec: &'static CommandSpec) {
    let _ = write!(out, "\n### `fabsh {}`\n\n{}\n", spec.path(), spec.summary);
    if !spec.about.is_empty() {
        let _ = write!(out, "\n{}\n", spec.about);
    }
    let _ = write!(out, "\nTraits: {}.\n", spec.traits.describe());
    let args = effective_args(spec);
    if !args.is_empty() {
        out.push_str("\n| flag | value | required | description |\n|---|---|---|---|\n");
        for arg in args {
            let mut name = if arg.positional {
                arg.long.to_uppercase()
            } else {
                format!("--{}", arg.long)
            };
            if let Some(short) = arg.short {
                name = format!("-{short}, {name}");
            }
            for alias in arg.aliases {
                name.push_str(&format!(", --{alias}"));
            }
            let value = match arg.kind {
                ArgKind::Enum(values) => values.join(" \\| "),
                kind => kind.value_name().replace('|', "\\|"),
            };
            let mut help = arg.help.replace('|', "\\|");
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
