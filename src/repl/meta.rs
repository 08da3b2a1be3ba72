//! The REPL's `:` commands: `:help [command]`, `:load FILE`, `:output FORMAT`, `:quit`.

use super::Session;
use crate::cli::tree;
use crate::commands::REGISTRY;
use crate::script;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Format;
use std::fmt::Write;

/// What the loop does after a `:` command.
pub(super) enum Next {
    Continue,
    Quit,
}

/// One `:` command: its names (the first is the one shown), its usage and what it does.
pub(super) struct MetaCommand {
    pub names: &'static [&'static str],
    pub usage: &'static str,
    pub about: &'static str,
    run: fn(&mut Session, &str) -> Result<Next>,
}

/// Every `:` command: what `:help` lists, what Tab completes, what runs.
pub(super) const META_COMMANDS: &[MetaCommand] = &[
    MetaCommand {
        names: &["help", "h", "?"],
        usage: ":help [command]",
        about: "this text, or a command's flags and Rhai forms",
        run: |session, rest| {
            let text = match rest.trim() {
                "" => overview(session)?,
                topic => help(topic)?,
            };
            session.printer().text(&text)?;
            Ok(Next::Continue)
        },
    },
    MetaCommand {
        names: &["load", "l"],
        usage: ":load FILE",
        about: "run a script file here (its functions and variables stay)",
        run: |session, rest| session.load(rest).map(|()| Next::Continue),
    },
    MetaCommand {
        names: &["output", "o"],
        usage: ":output json|table|tsv|csv|yaml|auto",
        about: "how results are shown",
        run: |session, rest| session.set_output(rest).map(|()| Next::Continue),
    },
    MetaCommand {
        names: &["quit", "q", "exit"],
        usage: ":quit",
        about: "leave (Ctrl-D too)",
        run: |_, _| Ok(Next::Quit),
    },
];

/// Runs `:name rest`.
pub(super) fn run(session: &mut Session, name: &str, rest: &str) -> Result<Next> {
    let Some(meta) = META_COMMANDS.iter().find(|meta| meta.names.contains(&name)) else {
        let known: Vec<String> = META_COMMANDS
            .iter()
            .map(|meta| format!(":{}", meta.names[0]))
            .collect();
        return Err(Error::usage(format!(
            "unknown REPL command `:{name}`; try {}",
            known.join(", ")
        )));
    };
    (meta.run)(session, rest)
}

/// Parses `:output`'s argument: a format, or `auto` (tables for lists on a terminal).
pub(super) fn parse_output(text: &str) -> Result<Option<Format>> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    Format::parse_default(text).map(Some).ok_or_else(|| {
        Error::usage(format!(
            ":output takes {} or auto, got {text:?}",
            Format::DEFAULT_NAMES.join(", ")
        ))
    })
}

/// `:help TOPIC` text: one group's or command's help with its Rhai call forms.
pub(super) fn help(topic: &str) -> Result<String> {
    let path = topic.replace("::", " ");
    if let Some(spec) = REGISTRY.find_path(&path).or_else(|| {
        // `item::get_definition` and `api::request` name commands too.
        REGISTRY
            .all()
            .find(|spec| script::qualified_name(spec) == topic)
    }) {
        let name = match spec.name.rsplit_once(' ') {
            Some((_, last)) => last,
            None if spec.name.is_empty() => spec.group,
            None => spec.name,
        };
        let mut text = tree::command_for(spec, name)
            .bin_name(format!("fabsh {}", spec.path()))
            .render_long_help()
            .to_string();
        if spec.is_scriptable() {
            text.push_str("\nIn Rhai:\n");
            for form in script::docs::call_forms(spec) {
                let _ = writeln!(text, "  {form}");
            }
        }
        return Ok(text);
    }
    // A blank path names no group.
    let group = path.split_whitespace().next().and_then(|group_name| {
        REGISTRY
            .groups
            .iter()
            .find(|group| group.name == group_name || script::module_name(group.name) == group_name)
    });
    if let Some(group) = group {
        let mut text = format!("{}: {}\n\n", group.name, group.summary);
        for spec in group.commands {
            let _ = writeln!(
                text,
                "  {:<28} {:<30} {}",
                spec.path(),
                script::qualified_name(spec),
                spec.summary
            );
        }
        return Ok(text);
    }
    Err(Error::usage(format!(
        "no help for `{topic}`; try :help, or :help item show"
    )))
}

/// `:help` alone: what to type, the groups, what else scripts have, the `:` commands.
fn overview(session: &Session) -> Result<String> {
    let mut text = String::from(
        "Type Rhai code, or a command line that starts with a group name:\n\n  \
         item list -w Demo --type Notebook\n  \
         let nbs = item::list(\"Demo\", #{type: \"Notebook\"}); nbs.len()\n\n\
         Groups (`:help <group>` lists the commands):\n",
    );
    for group in REGISTRY.groups {
        let _ = writeln!(text, "  {:<12} {}", group.name, group.summary);
    }
    let stdlib_dir = session.stdlib_dir();
    let mut natives: Vec<String> = Vec::new();
    for native in script::docs::natives(session.engine(), stdlib_dir.as_deref())? {
        let name = match native.name().split_once("::") {
            Some((module, _)) => format!("{module}::"),
            None => native.name().to_string(),
        };
        if !natives.contains(&name) {
            natives.push(name);
        }
    }
    let modules: Vec<String> = script::stdlib::sources(stdlib_dir.as_deref())?
        .into_iter()
        .map(|source| format!("{}::", source.name))
        .collect();
    let _ = write!(
        text,
        "\nAlso: {}, and the stdlib modules {}; `fabsh docs` has the whole reference.\n\n\
         REPL commands:\n",
        natives.join(", "),
        modules.join(", ")
    );
    for meta in META_COMMANDS {
        let _ = writeln!(text, "  {:<36} {}", meta.usage, meta.about);
    }
    text.push_str("`help`, `exit` and `quit` work without the colon too.\n");
    text.push_str("\nKeys: Tab completes, Ctrl-C cancels the running command, Ctrl-D exits.\n");
    Ok(text)
}
