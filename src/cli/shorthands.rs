//! What people type out of habit from other CLIs: `fabsh login` (for `auth login`),
//! `fabsh version` (for `--version`), and `--name`/`-n` where a command names its object
//! with `--id`.

use clap::Command;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use fabsh_client::error::Error;
use std::ffi::OsString;

/// Global flags that take a value: the word after them is not a command.
const VALUED_GLOBALS: &[&str] = &[
    "-o",
    "--output",
    "-q",
    "--query",
    "--endpoint",
    "--profile",
    "--stdlib",
    "-e",
    "--eval",
];

/// The command line with `login`/`logout` as the first word put under `auth`, and `version`
/// turned into `--version`.
pub(super) fn expand(mut args: Vec<OsString>) -> Vec<OsString> {
    let Some(at) = first_word(&args) else {
        return args;
    };
    match args[at].to_str() {
        Some("login" | "logout") => args.insert(at, "auth".into()),
        Some("version") if at + 1 == args.len() => args[at] = "--version".into(),
        _ => {}
    }
    args
}

/// Where the first word that is not a flag or a flag's value is (the program name skipped).
fn first_word(args: &[OsString]) -> Option<usize> {
    let mut skip_value = false;
    for (at, arg) in args.iter().enumerate().skip(1) {
        let text = arg.to_str()?;
        if skip_value {
            skip_value = false;
        } else if text.starts_with('-') {
            skip_value = VALUED_GLOBALS.contains(&text);
        } else {
            return Some(at);
        }
    }
    None
}

/// clap refused an unknown `--name`/`-n` on a command that names its object with `--id`:
/// the usage error that says so, with an example of the command's own forms.
pub(super) fn name_for_id(root: &Command, args: &[OsString], err: &clap::Error) -> Option<Error> {
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    // The flag before any `=`.
    let flag = given
        .split_once('=')
        .map_or(given.as_str(), |(flag, _)| flag);
    if flag != "--name" && flag != "-n" {
        return None;
    }
    let (path, command) = command_named(root, args)?;
    let id = command
        .get_arguments()
        .find(|arg| arg.get_long() == Some("id"))?;
    let positional = command.get_positionals().find_map(|arg| {
        arg.get_value_names()?
            .first()
            .map(std::string::ToString::to_string)
    });
    let example = match positional {
        Some(target) => format!("`fabsh {path} {target}` or `fabsh {path} --id NAME`"),
        None => format!("`fabsh {path} --id NAME`"),
    };
    let takes = match id.get_help() {
        Some(help) => format!("--id takes the name ({help})"),
        None => "--id takes the name".to_string(),
    };
    Some(
        Error::usage(format!("`fabsh {path}` has no {flag}: {takes}"))
            .with_hint(format!("use {example}")),
    )
}

/// Microsoft fab's first commands (it browses workspaces as folders) and what fabsh calls
/// them: fabsh names things with `-w` and `WORKSPACE/ITEM` instead of a current directory.
const FAB_COMMANDS: &[(&str, &str)] = &[
    (
        "ls",
        "`fabsh workspace ls` lists workspaces; `fabsh item ls -w WORKSPACE` a workspace's items",
    ),
    (
        "dir",
        "`fabsh workspace ls` lists workspaces; `fabsh item ls -w WORKSPACE` a workspace's items",
    ),
    (
        "cd",
        "fabsh has no current workspace: name it with `-w WORKSPACE` or `WORKSPACE/ITEM`, or set a default with `fabsh config set workspace WORKSPACE`",
    ),
    (
        "pwd",
        "fabsh has no current workspace: `fabsh config get workspace` prints the profile's default one",
    ),
    (
        "get",
        "`fabsh item show WORKSPACE/ITEM` or `fabsh workspace show WORKSPACE`",
    ),
    (
        "desc",
        "`fabsh item show WORKSPACE/ITEM` or `fabsh item inspect WORKSPACE/ITEM`",
    ),
    ("exists", "`fabsh item exists WORKSPACE/ITEM`"),
    (
        "rm",
        "`fabsh item rm WORKSPACE/ITEM` or `fabsh workspace rm WORKSPACE`",
    ),
    (
        "del",
        "`fabsh item rm WORKSPACE/ITEM` or `fabsh workspace rm WORKSPACE`",
    ),
    (
        "mkdir",
        "`fabsh workspace create --name NAME`, `fabsh item create -w WORKSPACE --name NAME --type TYPE` or `fabsh folder create WORKSPACE --name NAME`",
    ),
    (
        "create",
        "`fabsh workspace create --name NAME` or `fabsh item create -w WORKSPACE --name NAME --type TYPE`",
    ),
    (
        "cp",
        "`fabsh item copy --source-workspace WORKSPACE --id ITEM --dest-workspace WORKSPACE`",
    ),
    (
        "mv",
        "`fabsh item move` (to a workspace) or `fabsh item move-to-folder`",
    ),
    (
        "export",
        "`fabsh item get-definition WORKSPACE/ITEM --dir DIR`",
    ),
    (
        "import",
        "`fabsh item create` with a definition, or `fabsh item update-definition`",
    ),
    (
        "set",
        "`fabsh item update WORKSPACE/ITEM --name NAME` or `--description TEXT`",
    ),
    (
        "open",
        "`fabsh item url WORKSPACE/ITEM` prints the portal URL",
    ),
    (
        "jobs",
        "`fabsh job run|list|show|cancel WORKSPACE/ITEM` and `fabsh schedule ...`",
    ),
    (
        "table",
        "`fabsh api` sends any request, OneLake table endpoints included",
    ),
    (
        "acl",
        "`fabsh api` sends any request, role assignments included",
    ),
];

/// clap refused an unknown first word that is one of fab's commands (`fabsh ls`): the usage
/// error that says what to type in fabsh instead.
pub(super) fn fab_habit(args: &[OsString], err: &clap::Error) -> Option<Error> {
    if err.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    let word = args.get(first_word(args)?)?.to_str()?;
    let (_, instead) = FAB_COMMANDS.iter().find(|(fab, _)| *fab == word)?;
    Some(
        Error::usage(format!(
            "fabsh has no `{word}` command (that is Microsoft fab's)"
        ))
        .with_hint(*instead),
    )
}

/// Commands other tools have under a group, and what fabsh does instead.
const SUBCOMMAND_HABITS: &[(&str, &str, &str)] = &[
    (
        "item",
        "rename",
        "`fabsh item update WORKSPACE/ITEM --name NEW` renames an item",
    ),
    (
        "workspace",
        "rename",
        "`fabsh api PATCH /workspaces/ID --body '{\"displayName\": \"NEW\"}'` renames a workspace",
    ),
    (
        "folder",
        "rename",
        "`fabsh api PATCH /workspaces/ID/folders/FOLDER --body '{\"displayName\": \"NEW\"}'` renames a folder",
    ),
];

/// clap refused an unknown command under a group that other tools have (`item rename`):
/// the usage error that says what fabsh does instead (clap's own "similar: create" would
/// point the wrong way).
pub(super) fn subcommand_habit(args: &[OsString], err: &clap::Error) -> Option<Error> {
    if err.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    let at = first_word(args)?;
    let group = args.get(at)?.to_str()?;
    let word = args[at + 1..]
        .iter()
        .filter_map(|arg| arg.to_str())
        .find(|arg| !arg.starts_with('-'))?;
    let (_, _, instead) = SUBCOMMAND_HABITS
        .iter()
        .find(|(g, w, _)| *g == group && *w == word)?;
    Some(Error::usage(format!("fabsh has no `{group} {word}` command")).with_hint(*instead))
}

/// `--output FILE` on a command that writes `--output-file` (how `evaluations report` used to
/// spell it): the global `-o/--output` takes only format names, so a value that is not one is
/// the file, and the flag is renamed before clap sees it.
pub(super) fn output_file(root: &Command, mut args: Vec<OsString>) -> Vec<OsString> {
    let takes_file = command_named(root, &args).is_some_and(|(_, command)| {
        command
            .get_arguments()
            .any(|arg| arg.get_long() == Some("output-file"))
    });
    if !takes_file {
        return args;
    }
    let is_format = |text: &str| fabsh_client::output::Format::NAMES.contains(&text);
    for at in 0..args.len() {
        let Some(word) = args[at].to_str() else {
            continue;
        };
        if let Some(value) = word.strip_prefix("--output=") {
            if !is_format(value) {
                args[at] = format!("--output-file={value}").into();
            }
        } else if word == "--output"
            && args
                .get(at + 1)
                .and_then(|next| next.to_str())
                .is_some_and(|next| !is_format(next))
        {
            args[at] = "--output-file".into();
        }
    }
    args
}

/// The deepest command the words of `args` name, with its path (`item show`).
fn command_named<'a>(root: &'a Command, args: &[OsString]) -> Option<(String, &'a Command)> {
    let mut command = root;
    let mut path: Vec<&str> = Vec::new();
    for arg in args.iter().skip(1).filter_map(|arg| arg.to_str()) {
        if let Some(sub) = command
            .get_subcommands()
            .find(|sub| sub.get_name() == arg || sub.get_all_aliases().any(|alias| alias == arg))
        {
            path.push(sub.get_name());
            command = sub;
        }
    }
    (!path.is_empty()).then(|| (path.join(" "), command))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn login_and_version_are_found_after_global_flags() {
        assert_eq!(expand(words("fabsh login")), words("fabsh auth login"));
        assert_eq!(
            expand(words("fabsh -o json --local login --tenant x")),
            words("fabsh -o json --local auth login --tenant x")
        );
        assert_eq!(expand(words("fabsh version")), words("fabsh --version"));
        assert_eq!(
            expand(words("fabsh --profile login item list")),
            words("fabsh --profile login item list"),
            "a profile named login is a value, not a command"
        );
    }
}
