//! The MCP tools: one per registry command the server's policy lets through, each with an
//! input schema made from the command's flags and annotations made from its traits.

use super::files::FileRoots;
use fabsh_api::config::Settings;
use fabsh_client::commands::args::flag_name;
use fabsh_client::commands::common::{TARGET, configured_default, effective_args};
use fabsh_client::commands::{
    ArgKind, ArgSpec, ArgValue, CommandSpec, LocalPath, Needs, Registry, ReturnKind,
};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use std::sync::Arc;

/// Groups that stay with the person at the terminal: signing in, their settings, the local
/// Fabric store's administration and this server itself.
const NOT_TOOLS: &[&str] = &["auth", "cache", "config", "local", "mcp"];

/// Flags a tool never takes: the consent to destroy is the server's `--allow-destructive`,
/// given by the person who started it, not an argument the assistant can fill in; the judge
/// (where answers are sent to be graded, with which key and prompt) is the server's
/// configuration, so no call can send an answer, a key or a file elsewhere; and which
/// environment variables deploy may read is the server's `--deploy-env-vars`.
const HIDDEN_FLAGS: &[&str] = &[
    "yes",
    "env-vars",
    "llm-endpoint",
    "llm-key",
    "llm-model",
    "llm-api-version",
    "critic-prompt",
    "critic-prompt-file",
];

/// Commands that read or write a folder of files and cannot work without one: offered only
/// by a server with `--files` (`onelake cp` and `onelake sync` copy between OneLake and files
/// here).
const NEED_FILES: &[&str] = &[
    "deploy plan",
    "deploy apply",
    "deploy promote",
    "deploy export",
    "onelake cp",
    "onelake sync",
];

/// Commands an assistant rarely needs, offered only when `--tools` names them (or their
/// group): so the default set stays within what clients take (Cursor keeps 40 tools).
const ON_REQUEST: &[&str] = &[
    "item show-endorsement",
    "item list-endorsements",
    "item list-external-data-shares",
    "item show-external-data-share",
    "item get-invitation",
    "item create-external-data-share",
    "item revoke-external-data-share",
    "item accept-invitation",
    "item set-endorsement",
    "item remove-endorsement",
    "onelake ls",
    "onelake cat",
    "onelake head",
    "onelake sync",
    "lakehouse tables",
    "lakehouse load-table",
];

/// File flags whose content a call may give inline instead, as JSON: the argument's
/// description then, and the file's name its content is read as (by its extension).
const INLINE_CONTENT: &[(&str, &str, &str)] = &[
    (
        "data-agent evaluate",
        "questions",
        "The questions: an array of strings, or of {question, expected} objects",
    ),
    (
        "data-agent upload-fewshots",
        "file",
        "The examples: an array of {question, query} objects",
    ),
];

/// The argument that lets a call replace a file it writes.
pub(super) const OVERWRITE: &str = "overwrite";

/// What the server brings to a call: where a flag the call leaves out gets its value (the
/// workspace of a server confined to one, else the profile's default workspace, as on the
/// command line; the server's own flags), and the folders a call may name files in.
#[derive(Clone)]
pub(super) struct Defaults {
    pub settings: Settings,
    /// The one workspace (id) the server is confined to, if it is confined to one.
    pub workspace: Option<String>,
    /// The folders of `--files`; none: no argument names a file.
    pub files: FileRoots,
    /// The server's own flags (the judge it was started with, the environment variables
    /// deploy may read), given to every command that takes them.
    pub server_flags: Vec<(&'static str, ArgValue)>,
}

impl Defaults {
    /// The value `arg` takes when a call leaves it out, if any.
    pub(super) fn value(&self, arg: &ArgSpec) -> Option<String> {
        match &self.workspace {
            Some(workspace) if arg.required && arg.long == "workspace" => Some(workspace.clone()),
            _ => configured_default(&self.settings, arg),
        }
    }
}

/// What the server lets an assistant do.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policy {
    /// Mutating tools are listed (`--allow-writes`).
    pub writes: bool,
    /// Destructive tools are listed too (`--allow-destructive`, which implies writes).
    pub destructive: bool,
}

impl Policy {
    /// True when `spec` is a tool under this policy.
    pub fn admits(&self, spec: &CommandSpec) -> bool {
        spec.is_scriptable()
            && !NOT_TOOLS.contains(&spec.group)
            && spec.traits.needs != Needs::LocalFabric
            // A change that does not go through the service cannot be a dry run, and every
            // tool that changes things must offer one.
            && (!spec.traits.mutates || (self.writes && spec.traits.needs == Needs::Service))
            && (!spec.traits.destructive || self.destructive)
    }
}

/// A tool's name: the command's words joined by `_` (`item_list`, `data_agent_query`,
/// `workspace_principal_add`, `api`).
pub(super) fn tool_name(spec: &CommandSpec) -> String {
    spec.path().replace([' ', '-'], "_")
}

/// The flags a tool takes, in declared order: the command's own and those its traits add,
/// less the command line's `WORKSPACE/ITEM` positional (the tool has `workspace` and `id`),
/// the hidden ones and secrets, and, unless the server has `--files`, those naming a local
/// file or folder (but for those a call may give inline).
pub(super) fn tool_args(spec: &'static CommandSpec, files: bool) -> Vec<&'static ArgSpec> {
    effective_args(spec)
        .into_iter()
        .filter(|arg| {
            arg.long != TARGET
                && !HIDDEN_FLAGS.contains(&arg.long)
                && arg.kind != ArgKind::Secret
                && (files || arg.local_path().is_none() || inline_content(spec, arg).is_some())
        })
        .collect()
}

/// The description of a file flag a call may give inline, if it may.
pub(super) fn inline_content(spec: &CommandSpec, arg: &ArgSpec) -> Option<&'static str> {
    INLINE_CONTENT
        .iter()
        .find(|(path, long, _)| *long == arg.long && spec.path() == *path)
        .map(|(_, _, about)| *about)
}

/// True when the tool writes a local file: it then takes `overwrite`.
pub(super) fn writes_files(spec: &'static CommandSpec, files: bool) -> bool {
    files
        && tool_args(spec, files).iter().any(|arg| {
            matches!(
                arg.local_path(),
                Some(LocalPath::WriteFile | LocalPath::WriteDir)
            )
        })
}

/// An argument's key in a tool call: the flag's name in snake_case (`hard_delete`).
pub(super) fn arg_key(arg: &ArgSpec) -> String {
    arg.snake_name()
}

/// True when `--tools` names the command: its group (`item`, `data-agent`), the command
/// with dots between its words (`data-agent.query`), or the tool's name (`data_agent_query`).
/// No selection selects every command.
pub fn selected(selection: &[String], spec: &CommandSpec) -> bool {
    selection.is_empty()
        || selection.iter().any(|name| {
            let words = name.trim().replace('.', " ");
            words.eq_ignore_ascii_case(spec.group)
                || words.eq_ignore_ascii_case(&spec.path())
                || name.trim() == tool_name(spec)
        })
}

/// Every tool of `registry` under `policy` that `selection` names and that can work on this
/// server; a flag `defaults` fills in is optional.
pub(super) fn tools(
    registry: Registry,
    policy: Policy,
    selection: &[String],
    defaults: &Defaults,
) -> Vec<(Tool, &'static CommandSpec)> {
    registry
        .all()
        .filter(|spec| offered(spec, policy, selection, !defaults.files.is_empty()).is_ok())
        .map(|spec| (tool(spec, defaults), spec))
        .collect()
}

/// The groups that have tools on some server, for `--tools` (the widest policy, with files).
pub fn tool_groups(registry: Registry) -> Vec<&'static str> {
    let widest = Policy {
        writes: true,
        destructive: true,
    };
    let mut groups: Vec<&'static str> = Vec::new();
    for spec in registry.all() {
        let group = spec.group;
        if !groups.contains(&group) && offered(spec, widest, &[group.to_string()], true).is_ok() {
            groups.push(group);
        }
    }
    groups
}

/// Whether `spec` is a tool of a server with this policy, selection and files; if not, what
/// the person starting the server would give to offer it.
pub(super) fn offered(
    spec: &CommandSpec,
    policy: Policy,
    selection: &[String],
    files: bool,
) -> Result<(), &'static str> {
    if !spec.is_scriptable()
        || NOT_TOOLS.contains(&spec.group)
        || spec.traits.needs == Needs::LocalFabric
    {
        return Err("nothing: it is for the person at the terminal, never a tool");
    }
    if spec.traits.destructive && !policy.destructive {
        return Err("--allow-destructive");
    }
    if !policy.admits(spec) {
        return Err("--allow-writes");
    }
    if NEED_FILES.contains(&spec.path().as_str()) && !files {
        return Err("--files FOLDER (it reads or writes files)");
    }
    if !selected(selection, spec) {
        return Err("--tools naming it or its group");
    }
    if selection.is_empty() && ON_REQUEST.contains(&spec.path().as_str()) {
        return Err("--tools naming it or its group (it is left out by default)");
    }
    Ok(())
}

/// Text about a command with its flags named as the tool's arguments (`--hard-delete` is
/// `` `hard_delete` ``, a positional `PATH` is `` `path` ``): its description, and the
/// errors of a call, so the assistant reads the names it passes.
pub(super) fn in_argument_names(spec: &'static CommandSpec, text: &str) -> String {
    // Longest names first, so `--id` does not rewrite the start of `--id-type`.
    let mut names: Vec<(String, String)> = effective_args(spec)
        .into_iter()
        .map(|arg| (flag_name(arg), format!("`{}`", arg_key(arg))))
        .collect();
    names.sort_by_key(|(flag, _)| std::cmp::Reverse(flag.len()));
    names.iter().fold(text.to_string(), |text, (flag, key)| {
        // A name already in backticks keeps one pair.
        let text = text.replace(&format!("`{flag}`"), key);
        replace_name(&text, flag, key)
    })
}

/// Registry text as an assistant calling a tool should read it: what concerns a terminal
/// (exit codes, stderr, stdin, the command line) and flags of other commands are left out,
/// a parenthesis, a clause (`;`) or a sentence at a time. A text that would lose everything
/// keeps its words, with flags named as arguments. Run after [`in_argument_names`].
pub(super) fn for_assistant(text: &str, absent: &[String]) -> String {
    let text = text.replace("Exit 7 when", "Fail when");
    // A clause about an argument this tool does not take (a file flag without `--files`, the
    // judge's settings) says nothing the assistant can act on.
    let speaks_of_terminal = |text: &str| {
        speaks_of_terminal(text) || absent.iter().any(|key| text.contains(key.as_str()))
    };
    let kept: Vec<String> = text
        .split("\n\n")
        .map(|paragraph| {
            let sentences: Vec<String> = sentences(paragraph)
                .into_iter()
                .filter_map(|sentence| {
                    let sentence = without_terminal_parentheses(&sentence, speaks_of_terminal);
                    let clauses = clauses(&sentence);
                    // A clause after a `;` leans on the first: without it, none stands.
                    if clauses
                        .first()
                        .is_none_or(|first| speaks_of_terminal(first))
                    {
                        return None;
                    }
                    let kept: Vec<&str> = clauses
                        .into_iter()
                        .filter(|clause| !speaks_of_terminal(clause))
                        .collect();
                    let joined = kept.join("; ");
                    let joined = joined.trim();
                    let ends = joined.ends_with(['.', ':', '!', '?']);
                    Some(if ends || !sentence.trim_end().ends_with('.') {
                        joined.to_string()
                    } else {
                        format!("{joined}.")
                    })
                })
                .collect();
            sentences.join(" ")
        })
        .filter(|paragraph| !paragraph.is_empty())
        .collect();
    if kept.is_empty() {
        return other_flags_as_arguments(&text);
    }
    kept.join("\n\n")
}

/// Words that concern a terminal, not a tool call; a `--flag` left after
/// [`in_argument_names`] is another command's.
fn speaks_of_terminal(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "exit code",
        "stderr",
        "stdin",
        "command line",
        "on a terminal",
        "--",
        "-o ",
        // The person's environment, not an argument.
        "fabsh_",
    ]
    .iter()
    .any(|word| lower.contains(word))
        || ["exit ", "exits "].iter().any(|exit| {
            lower
                .match_indices(exit)
                .any(|(at, _)| lower[at + exit.len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
}

/// The clauses of a sentence, split at `; ` outside parentheses.
fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (at, c) in sentence.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ';' if depth == 0 && sentence[at + 1..].starts_with(' ') => {
                out.push(&sentence[start..at]);
                start = at + 2;
            }
            _ => {}
        }
    }
    out.push(&sentence[start..]);
    out
}

/// The sentences of a paragraph, each with its full stop (a `.` followed by a space).
fn sentences(paragraph: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = paragraph;
    while let Some(at) = rest.find(". ") {
        out.push(rest[..=at].to_string());
        rest = &rest[at + 2..];
    }
    if !rest.trim().is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// `text` without the parentheses (and the space before them) that `is_terminal` says
/// speak of a terminal.
fn without_terminal_parentheses(text: &str, is_terminal: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let Some(close) = closing(&rest[open..]) else {
            break;
        };
        let inside = &rest[open..=(open + close)];
        if is_terminal(inside) {
            out.push_str(rest[..open].trim_end());
        } else {
            out.push_str(&rest[..=(open + close)]);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The offset of the `)` closing the `(` that `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` with each `--flag` written as an argument name (`` `flag` ``).
fn other_flags_as_arguments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let name: String = rest[at + 2..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '-')
            .collect();
        if name.is_empty() {
            out.push_str("--");
        } else {
            out.push_str(&format!("`{}`", name.replace('-', "_")));
        }
        rest = &rest[at + 2 + name.len()..];
    }
    out.push_str(rest);
    out
}

/// `text` with each whole occurrence of `name` replaced: not inside a longer word or flag
/// (`--all` in `--allow-writes`, `PATH` in `XPATH`).
fn replace_name(text: &str, name: &str, with: &str) -> String {
    let part_of_word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    for (at, _) in text.match_indices(name) {
        let end = at + name.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if before.is_some_and(part_of_word) || after.is_some_and(part_of_word) {
            continue;
        }
        out.push_str(&text[rest..at]);
        out.push_str(with);
        rest = end;
    }
    out.push_str(&text[rest..]);
    out
}

/// The command's flags its tool does not take, as its text names them (`` `output_file` ``).
fn absent_arguments(spec: &'static CommandSpec, files: bool) -> Vec<String> {
    let taken: Vec<String> = tool_args(spec, files)
        .iter()
        .map(|arg| arg_key(arg))
        .collect();
    effective_args(spec)
        .iter()
        .map(|arg| arg_key(arg))
        .filter(|key| !taken.contains(key))
        .map(|key| format!("`{key}`"))
        .collect()
}

/// The MCP description of one command.
pub(super) fn tool(spec: &'static CommandSpec, defaults: &Defaults) -> Tool {
    let mut description = spec.summary.to_string();
    if !spec.about.is_empty() {
        description.push_str("\n\n");
        description.push_str(spec.about);
    }
    description.push_str(match spec.traits.returns {
        ReturnKind::List if !spec.traits.paged => "\n\nReturns {value: [...]}, every result.",
        ReturnKind::Void => "\n\nReturns {} once done.",
        _ if !spec.traits.paged => "\n\nReturns the result as an object.",
        _ => "",
    });
    if spec.traits.paged {
        description.push_str(
            "\n\nReturns {value: [...], continuationToken}: one page; pass continuation_token for \
             the next, or all: true for every page.",
        );
    }
    if spec.traits.mutates && spec.traits.needs == Needs::Service {
        description.push_str(
            "\n\nWith dry_run: true nothing is changed and the result is the plan: every request \
             that would change something.",
        );
    }
    let traits = spec.traits;
    // Deleting twice leaves the service as deleting once did; other writes make no such
    // promise, so they are not called idempotent.
    let annotations = ToolAnnotations::with_title(spec.summary)
        .read_only(!traits.mutates)
        .destructive(traits.destructive)
        .idempotent(!traits.mutates || traits.destructive)
        .open_world(traits.needs == Needs::Service);
    let mut tool = Tool::default();
    tool.name = tool_name(spec).into();
    tool.title = Some(spec.summary.to_string());
    let absent = absent_arguments(spec, !defaults.files.is_empty());
    tool.description = Some(for_assistant(&in_argument_names(spec, &description), &absent).into());
    tool.input_schema = Arc::new(input_schema(spec, defaults));
    tool.annotations = Some(annotations);
    tool
}

/// The JSON Schema of a tool's arguments: one property per flag, typed by its kind, with its
/// help as the description, its choices as an enum and its default; required when the
/// command needs it and nothing (an environment variable, a default, the profile) fills it.
pub(super) fn input_schema(spec: &'static CommandSpec, defaults: &Defaults) -> JsonObject {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    let files = !defaults.files.is_empty();
    let absent = absent_arguments(spec, files);
    for arg in tool_args(spec, files) {
        let mut property = kind_schema(arg.kind);
        if let (ArgKind::Int, Some((min, max))) = (arg.kind, arg.range) {
            property.insert("minimum".into(), json!(min));
            if max != i64::MAX {
                property.insert("maximum".into(), json!(max));
            }
        }
        let help = for_assistant(&in_argument_names(spec, arg.help), &absent);
        property.insert("description".into(), json!(help));
        if must_be_read_from_stdin(spec, arg) {
            property.insert(
                "description".into(),
                json!("The question to ask (required)"),
            );
        }
        if let Some(inline) = inline_content(spec, arg) {
            property = inline_schema(inline, files);
        } else if arg.local_path().is_some() {
            property.insert(
                "description".into(),
                json!(format!(
                    "{help} (a path under the folders this server may use; a relative one starts at the first)"
                )),
            );
        }
        if let Some(default) = arg.default {
            property.insert("default".into(), default_value(arg.kind, default));
        }
        if must_be_given(spec, arg, defaults) {
            required.push(json!(arg_key(arg)));
        }
        properties.insert(arg_key(arg), Value::Object(property));
    }
    if writes_files(spec, files) {
        properties.insert(
            OVERWRITE.into(),
            json!({"type": "boolean", "description": "Replace files that exist already (only on a server that allows writes); without it nothing existing is replaced"}),
        );
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// Flags a command reads from stdin when they are absent (`data-agent query` without
/// `--prompt`). Over stdio, stdin is the protocol, so a tool call must give them.
const READ_FROM_STDIN: &[(&str, &str)] = &[("data-agent query", "prompt")];

fn must_be_read_from_stdin(spec: &CommandSpec, arg: &ArgSpec) -> bool {
    READ_FROM_STDIN
        .iter()
        .any(|(path, long)| *long == arg.long && spec.path() == *path)
}

/// True when a call must give the flag: the command needs it and nothing fills it in (a
/// default, its environment variable, `defaults`), or the command would read it from stdin.
pub(super) fn must_be_given(spec: &CommandSpec, arg: &ArgSpec, defaults: &Defaults) -> bool {
    let from_stdin = READ_FROM_STDIN
        .iter()
        .any(|(path, long)| *long == arg.long && spec.path() == *path);
    from_stdin
        || arg.required
            && arg.default.is_none()
            && arg
                .env
                .is_none_or(|var| fabsh_api::config::env_text(var).is_none())
            && defaults.value(arg).is_none()
}

/// The schema of a file flag given inline: an array, or with `--files` a path too.
fn inline_schema(about: &str, files: bool) -> serde_json::Map<String, Value> {
    let items = json!({"type": ["string", "object"]});
    let schema = if files {
        json!({"type": ["array", "string"], "items": items, "description": format!("{about}; or a path to a JSON or CSV file under the folders this server may use")})
    } else {
        json!({"type": "array", "items": items, "description": about})
    };
    match schema {
        Value::Object(map) => map,
        _ => unreachable!("the schema is an object"),
    }
}

/// The schema of one kind of value.
fn kind_schema(kind: ArgKind) -> serde_json::Map<String, Value> {
    let schema = match kind {
        ArgKind::Int => json!({"type": "integer"}),
        ArgKind::Bool => json!({"type": "boolean"}),
        kind if is_switch_text(kind) => json!({"type": "boolean"}),
        ArgKind::Enum(choices) => json!({"type": "string", "enum": choices}),
        ArgKind::Uuid => json!({"type": "string", "format": "uuid"}),
        ArgKind::List => json!({"type": "array", "items": {"type": "string"}}),
        // Inline JSON, or text holding JSON (never a file).
        ArgKind::Json => json!({"type": ["object", "array", "string"]}),
        ArgKind::Str
        | ArgKind::Ref
        | ArgKind::ItemType
        | ArgKind::File
        | ArgKind::Secret
        | ArgKind::UuidPrefix => {
            json!({"type": "string"})
        }
    };
    match schema {
        Value::Object(map) => map,
        _ => unreachable!("every kind's schema is an object"),
    }
}

/// True for a flag whose text is `true` or `false` (`--recursive false`, whose default is
/// true): a tool takes it as a JSON boolean.
pub(super) fn is_switch_text(kind: ArgKind) -> bool {
    matches!(kind, ArgKind::Enum(choices) if choices.len() == 2
        && choices.contains(&"true") && choices.contains(&"false"))
}

/// A declared default as the JSON value of its kind (`"600"` is the integer 600).
fn default_value(kind: ArgKind, default: &str) -> Value {
    match kind {
        kind if is_switch_text(kind) => json!(default == "true"),
        ArgKind::Int => default
            .parse::<i64>()
            .map_or_else(|_| json!(default), Value::from),
        ArgKind::Bool => json!(default == "true"),
        _ => json!(default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::REGISTRY;

    fn for_assistant_alone(text: &str) -> String {
        for_assistant(text, &[])
    }

    #[test]
    fn flags_in_text_are_named_as_arguments_and_nothing_else_is_touched() {
        let list = REGISTRY.find_path("item list").expect("item list");
        assert_eq!(
            in_argument_names(
                list,
                "--all for every page; see `--limit`, not --allow-writes or XPATH"
            ),
            "`all` for every page; see `limit`, not --allow-writes or XPATH"
        );
    }

    #[test]
    fn terminal_talk_is_left_out_a_parenthesis_clause_or_sentence_at_a_time() {
        assert_eq!(
            for_assistant_alone(
                "One page (the command line prints it on stderr). It is refused (exit 2). \
                 Checked first; exit 5 when any failed. As `show --include X` says. \
                 Refused with exit 2; nothing is sent then. Sent (a; b) as is."
            ),
            "One page. It is refused. Checked first. Sent (a; b) as is."
        );
        assert_eq!(
            for_assistant_alone("A folder written by export --dir"),
            "A folder written by export `dir`"
        );
        assert_eq!(
            for_assistant_alone("Exit 7 when a question fails"),
            "Fail when a question fails"
        );
        let api = REGISTRY.find_path("api").expect("api");
        assert_eq!(
            in_argument_names(api, "PATH is relative; --body is JSON"),
            "`path` is relative; `body` is JSON"
        );
    }
}
