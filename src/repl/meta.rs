//! The REPL's `:` commands: `:help [command]`, `:load FILE`, `:output FORMAT`, `:quit`.

use super::Session;
use crate::cli::tree;
use crate::script;
use fabsh_client::commands::{self, GROUPS};
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Format;
use std::fmt::Write;

/// What the loop does after a `:` command.
pub enum Next {
    Continue,
    Quit,
}

/// Runs `:name rest`.
pub fn run(session: &mut Session, name: &str, rest: &str) -> Result<Next> {
    match name {
        "help" | "h" | "?" => session.printer().text(&help(rest)?)?,
        "load" | "l" => session.load(rest)?,
        "output" | "o" => session.set_output(rest)?,
        "quit" | "q" | "exit" => return Ok(Next::Quit),
        other => {
            return Err(Error::usage(format!(
                "unknown REPL command `:{other}`; try :help, :load, :output, :quit"
            )));
        }
    }
    Ok(Next::Continue)
}

/// Parses `:output`'s argument: a format, or `auto` (tables for lists on a terminal).
pub fn parse_output(text: &str) -> Result<Option<Format>> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    Format::parse(text).map(Some).ok_or_else(|| {
        Error::usage(format!(
            ":output takes {} or auto, got {text:?}",
            Format::NAMES.join(", ")
        ))
    })
}

/// `:help` text: an overview, or one group's or command's help with its Rhai call forms.
pub fn help(topic: &str) -> Result<String> {
    let topic = topic.trim();
    if topic.is_empty() {
        return Ok(overview());
    }
    let path = topic.replace("::", " ");
    if let Some(spec) = commands::find_path(&path).or_else(|| {
        // `item::get_definition` and `api::request` name commands too.
        commands::all().find(|spec| script::qualified_name(spec) == topic)
    }) {
        let name = if spec.name.is_empty() {
            spec.group
        } else {
            spec.name
        };
        let mut text = tree::command_for(spec, name)
            .bin_name(format!("fabsh {}", spec.path()))
            .render_long_help()
            .to_string();
        text.push_str("\nIn Rhai:\n");
        for form in script::docs::call_forms(spec) {
            let _ = writeln!(text, "  {form}");
        }
        return Ok(text);
    }
    let group_name = path.split_whitespace().next().unwrap_or_default();
    if let Some(group) = GROUPS
        .iter()
        .find(|group| group.name == group_name || script::module_name(group.name) == group_name)
    {
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

fn overview() -> String {
    let mut text = String::from(
        "Type Rhai code, or a command line that starts with a group name:\n\n  \
         item list -w Demo --type Notebook\n  \
         let nbs = item::list(\"Demo\", #{type: \"Notebook\"}); nbs.len()\n\n\
         Groups (`:help <group>` lists the commands):\n",
    );
    for group in GROUPS {
        let _ = writeln!(text, "  {:<12} {}", group.name, group.summary);
    }
    text.push_str(
        "\nAlso: fabsh::parallel, json::, fs::, env::, sleep, now, and the stdlib modules \
         (bulk::, util::); `fabsh docs` has the whole reference.\n\n\
         REPL commands:\n  \
         :help [command]       this text, or a command's flags and Rhai forms\n  \
         :load FILE            run a script file here (its functions and variables stay)\n  \
         :output json|table|tsv|yaml|auto   how results are shown\n  \
         :quit                 leave (Ctrl-D too)\n\n\
         Keys: Tab completes, Ctrl-C cancels the running command, Ctrl-D exits.\n",
    );
    text
}
