//! Completion and hints from the registry: groups, commands, flags and enum values on
//! command lines; modules and functions (registry, natives, stdlib) in Rhai; `:` commands.

use super::lines::{is_command_line, split_words};
use super::meta::META_COMMANDS;
use super::names::NameSource;
use crate::commands::REGISTRY;
use crate::script::{self, stdlib};
use fabsh_client::commands::common::{TARGET_WORKSPACE, effective_args, target_fills, target_for};
use fabsh_client::commands::{ArgKind, ArgSpec, CommandSpec};
use fabsh_client::output::Format;
use rhai::Engine;
use std::collections::BTreeMap;
use std::path::Path;

/// Everything that can be completed in Rhai: module → its functions, and global functions.
#[derive(Debug, Default, Clone)]
pub(crate) struct Vocabulary {
    modules: BTreeMap<String, Vec<String>>,
    globals: Vec<String>,
}

impl Vocabulary {
    /// The vocabulary of the registry, the natives and the stdlib (from `stdlib_dir` when
    /// given, as the engine loads it).
    pub(crate) fn new(engine: &Engine, stdlib_dir: Option<&Path>) -> Vocabulary {
        let mut vocabulary = Vocabulary::default();
        for spec in REGISTRY.all() {
            vocabulary.add(
                &script::module_name(spec.group),
                &script::function_name(spec),
            );
        }
        // Completion offers what it can: no natives listed when the engine has no metadata.
        for native in script::docs::natives(engine, stdlib_dir).unwrap_or_default() {
            let name = native.name();
            match name.split_once("::") {
                Some((module, function)) => vocabulary.add(module, function),
                None => vocabulary.globals.push(name.to_string()),
            }
        }
        vocabulary
            .globals
            .extend(["print", "debug", "type_of"].map(String::from));
        let engine = crate::script::syntax_engine();
        // An unreadable stdlib folder completes no module functions; running them reports the
        // error.
        for source in stdlib::sources(stdlib_dir).unwrap_or_default() {
            if let Ok(ast) = engine.compile(&source.text) {
                for function in script::docs::public_functions(&ast) {
                    vocabulary.add(&source.name, function.name);
                }
            }
        }
        vocabulary
    }

    fn add(&mut self, module: &str, function: &str) {
        let functions = self.modules.entry(module.to_string()).or_default();
        if !functions.iter().any(|known| known == function) {
            functions.push(function.to_string());
        }
    }

    /// Completions for the text before the cursor: where the completed word starts, and the
    /// candidates; workspace and item names come from `names`.
    pub(crate) fn complete(&self, before: &str, names: &dyn NameSource) -> (usize, Vec<String>) {
        if before.trim_start().starts_with(':') {
            return complete_meta(before);
        }
        if is_command_line(before.trim_start()) || after_group(before) {
            return complete_command_line(before, names);
        }
        let start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |at| {
                at + before[at..].chars().next().map_or(1, char::len_utf8)
            });
        let word = &before[start..];
        let mut candidates = Vec::new();
        if let Some((module, prefix)) = word.split_once("::") {
            if let Some(functions) = self.modules.get(module) {
                candidates.extend(
                    functions
                        .iter()
                        .filter(|name| name.starts_with(prefix))
                        .map(|name| format!("{module}::{name}(")),
                );
            }
        } else if !word.is_empty() {
            candidates.extend(
                self.modules
                    .keys()
                    .filter(|name| name.starts_with(word))
                    .map(|name| format!("{name}::")),
            );
            candidates.extend(
                self.globals
                    .iter()
                    .filter(|name| name.starts_with(word))
                    .map(|name| format!("{name}(")),
            );
            if start == before.len() - before.trim_start().len() {
                candidates.extend(
                    REGISTRY
                        .groups
                        .iter()
                        .filter(|group| group.name.starts_with(word))
                        .map(|group| format!("{} ", group.name)),
                );
            }
        }
        candidates.sort();
        candidates.dedup();
        (start, candidates)
    }

    /// A hint after the cursor: the parameters of a function just opened (`item::show(` →
    /// `workspace, id)`), or the required flags a command line still lacks.
    pub(crate) fn hint(&self, line: &str) -> Option<String> {
        if is_command_line(line.trim_start()) {
            return command_line_hint(line);
        }
        let open = line.strip_suffix('(')?;
        let start = open
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(0, |at| at + 1);
        let (module, function) = open[start..].split_once("::")?;
        let spec = REGISTRY.all().find(|spec| {
            script::module_name(spec.group) == module && script::function_name(spec) == function
        })?;
        let mut parameters: Vec<String> = script::positional_args(spec)
            .iter()
            .map(|arg| arg.snake_name())
            .collect();
        parameters.push("#{...}".to_string());
        Some(format!("{})", parameters.join(", ")))
    }
}

/// A group name and a space, nothing more yet (`item `): a command line is being typed.
fn after_group(before: &str) -> bool {
    let text = before.trim_start();
    text.ends_with(char::is_whitespace) && REGISTRY.group(text.trim_end()).is_some()
}

fn complete_meta(before: &str) -> (usize, Vec<String>) {
    let trimmed = before.trim_start();
    let Some((name, rest)) = trimmed.split_once(char::is_whitespace) else {
        let start = before.len() - trimmed.len();
        let found = META_COMMANDS
            .iter()
            .map(|meta| format!(":{}", meta.names[0]))
            .filter(|meta| meta.starts_with(trimmed))
            .collect();
        return (start, found);
    };
    let rest = rest.trim_start();
    let start = before.len() - rest.len();
    let options: Vec<String> = match name {
        ":output" => Format::DEFAULT_NAMES
            .iter()
            .chain(&["auto"])
            .map(std::string::ToString::to_string)
            .collect(),
        ":help" => REGISTRY
            .all()
            .map(fabsh_client::commands::CommandSpec::path)
            .collect(),
        _ => Vec::new(),
    };
    let found = options
        .into_iter()
        .filter(|option| option.starts_with(rest))
        .collect();
    (start, found)
}

/// The command named by the first words, if complete.
fn spec_of(words: &[String]) -> Option<&'static CommandSpec> {
    let group = words.first()?;
    let word = |at: usize| words.get(at).map_or("", String::as_str);
    REGISTRY
        .find(group, "")
        .or_else(|| REGISTRY.find(group, word(1)))
        .or_else(|| REGISTRY.find(group, &format!("{} {}", word(1), word(2))))
}

pub(crate) fn complete_command_line(before: &str, names: &dyn NameSource) -> (usize, Vec<String>) {
    // A word in an open double quote (`--id "Sales a`) is completed as typed, quote and all.
    let open_quote = split_words(before)
        .is_none()
        .then(|| before.rfind('"'))
        .flatten();
    let words = split_words(before)
        .or_else(|| split_words(&format!("{before}\"")))
        // Text that no quote closes splits into no words: nothing to complete yet.
        .unwrap_or_default();
    let ends_in_space = open_quote.is_none() && before.ends_with(char::is_whitespace);
    let (done, current) = if ends_in_space || words.is_empty() {
        (words.as_slice(), "")
    } else {
        let typed = open_quote.map_or(words[words.len() - 1].as_str(), |at| &before[at..]);
        (&words[..words.len() - 1], typed)
    };
    let start = before.len() - current.len();
    let found = candidates_after(done, current, names)
        .iter()
        .map(|candidate| quoted(candidate))
        .collect();
    (start, found)
}

/// What may follow the finished words `done` and start as `current` does (ignoring case, and
/// a quote the user opened), unquoted.
pub(crate) fn candidates_after(
    done: &[String],
    current: &str,
    names: &dyn NameSource,
) -> Vec<String> {
    let typed = current.strip_prefix('"').unwrap_or(current);
    let candidates: Vec<String> = match done {
        [] => Vec::new(),
        [group] if REGISTRY.find(group, "").is_none() => next_words(group, None),
        [group, parent] if REGISTRY.find(group, parent).is_none() => {
            next_words(group, Some(parent))
        }
        _ => match spec_of(done) {
            Some(spec) => argument_candidates(spec, done, typed, names),
            None => Vec::new(),
        },
    };
    let lower = typed.to_lowercase();
    candidates
        .into_iter()
        .filter(|candidate| candidate.to_lowercase().starts_with(&lower))
        .collect()
}

/// A word as a command line takes it: in double quotes when it has whitespace.
fn quoted(word: &str) -> String {
    if word.contains(char::is_whitespace) {
        format!("\"{}\"", word.replace('"', "\\\""))
    } else {
        word.to_string()
    }
}

/// The command words after `group` (and `parent`, for `local principal ...`), each once.
fn next_words(group: &str, parent: Option<&str>) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for spec in REGISTRY.all().filter(|spec| spec.group == group) {
        let word = match (parent, spec.name.split_once(' ')) {
            (None, Some((first, _))) => first,
            (None, None) => spec.name,
            (Some(parent), Some((first, second))) if first == parent => second,
            (Some(_), _) => continue,
        };
        if !words.iter().any(|known| known == word) {
            words.push(word.to_string());
        }
    }
    words
}

/// The values the global flag `word` (`-o`, `--output`) takes, when it is one.
fn global_values(word: &str) -> Option<Vec<String>> {
    let tree = crate::cli::tree::build();
    let flag = tree.get_arguments().find(|arg| {
        word.strip_prefix("--")
            .is_some_and(|long| arg.get_long() == Some(long))
            || word.strip_prefix('-').is_some_and(|short| {
                short.len() == 1 && arg.get_short().map(String::from).as_deref() == Some(short)
            })
    })?;
    if !flag.get_action().takes_values() {
        return None;
    }
    Some(
        flag.get_possible_values()
            .iter()
            .map(|value| value.get_name().to_string())
            .collect(),
    )
}

/// The value the words give `long` (`-w Demo` → `Demo` for `workspace`).
fn value_of(args: &[&'static ArgSpec], words: &[String], long: &str) -> Option<String> {
    words
        .windows(2)
        .rev()
        .find(|pair| flag_named(args, &pair[0]).is_some_and(|arg| arg.long == long))
        .map(|pair| pair[1].clone())
}

/// Flags not used yet, or the values of the flag just typed: enum values, item types, and
/// workspace and item names.
fn argument_candidates(
    spec: &'static CommandSpec,
    done: &[String],
    typed: &str,
    names: &dyn NameSource,
) -> Vec<String> {
    let args = effective_args(spec);
    let previous = done.last().map(String::as_str);
    if let Some(mut values) = previous.and_then(global_values) {
        // `-o html` only where the command makes a page (anything else refuses it).
        if !spec.traits.html {
            values.retain(|value| value != "html");
        }
        return values;
    }
    if let Some(arg) = previous.and_then(|word| flag_named(&args, word)) {
        if arg.long == "workspace" || (arg.long == "id" && spec.group == "workspace") {
            return names.workspaces();
        }
        if arg.long == "id" {
            return match (item_kind(spec), value_of(&args, done, "workspace")) {
                (Some(kind), Some(workspace)) => names.items(&workspace, kind),
                _ => Vec::new(),
            };
        }
        match arg.kind {
            ArgKind::Enum(values) => {
                return values
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect();
            }
            ArgKind::Bool => return vec!["true".into(), "false".into()],
            ArgKind::ItemType => {
                return fabsh_model::item_types::ITEM_TYPES
                    .iter()
                    .map(|t| t.name.to_string())
                    .collect();
            }
            _ => return Vec::new(),
        }
    }
    let used = |arg: &ArgSpec| {
        arg.kind != ArgKind::List
            && done
                .iter()
                .any(|word| flag_named(&args, word).is_some_and(|named| named.long == arg.long))
    };
    if !typed.starts_with('-')
        && let Some(target) = target_for(spec)
        && positional_given(spec, &args, done).is_none()
    {
        return target_candidates(spec, target, typed, names);
    }
    args.iter()
        .filter(|arg| !arg.positional && !used(arg))
        .flat_map(|arg| {
            std::iter::once(format!("--{}", arg.long))
                .chain(arg.aliases.iter().map(|alias| format!("--{alias}")))
        })
        .collect()
}

/// The item type a command's `--id` names: `Some(None)` for any item, `Some(Some(type))` for
/// one type only (a data agent), `None` when it names no item (a folder).
fn item_kind(spec: &CommandSpec) -> Option<Option<&'static str>> {
    match spec.group {
        "data-agent" => Some(Some("DataAgent")),
        "folder" => None,
        _ => Some(None),
    }
}

/// The word after the command's own that no flag takes as its value: the positional.
fn positional_given<'w>(
    spec: &CommandSpec,
    args: &[&'static ArgSpec],
    done: &'w [String],
) -> Option<&'w String> {
    let command_words = spec.path().split(' ').count();
    let mut words = done.iter().skip(command_words);
    while let Some(word) = words.next() {
        let takes_value = global_values(word).is_some()
            || flag_named(args, word).is_some_and(|arg| arg.kind != ArgKind::Bool);
        if takes_value {
            words.next();
        } else if !word.starts_with('-') {
            return Some(word);
        }
    }
    None
}

/// The `WORKSPACE` or `WORKSPACE/ITEM` positional: workspaces (followed by `/` when an item
/// comes next), then, once a `/` is typed, that workspace's items (of the command's type).
fn target_candidates(
    spec: &CommandSpec,
    target: &ArgSpec,
    typed: &str,
    names: &dyn NameSource,
) -> Vec<String> {
    if target.value_name == TARGET_WORKSPACE.value_name {
        return names.workspaces();
    }
    let Some(kind) = item_kind(spec) else {
        return names.workspaces();
    };
    match typed.split_once('/') {
        None => names
            .workspaces()
            .into_iter()
            .map(|workspace| format!("{workspace}/"))
            .collect(),
        Some((workspace, _)) => names
            .items(workspace, kind)
            .into_iter()
            .map(|item| format!("{workspace}/{item}"))
            .collect(),
    }
}

fn flag_named(args: &[&'static ArgSpec], word: &str) -> Option<&'static ArgSpec> {
    if let Some(long) = word.strip_prefix("--") {
        return args
            .iter()
            .find(|arg| arg.long == long || arg.aliases.contains(&long))
            .copied();
    }
    let short = word.strip_prefix('-')?;
    let mut chars = short.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    args.iter().find(|arg| arg.short == Some(c)).copied()
}

fn command_line_hint(line: &str) -> Option<String> {
    let words = split_words(line)?;
    let spec = spec_of(&words)?;
    let args = effective_args(spec);
    // After a flag that wants a value, the value comes next: no hint over it.
    let wants_value = words.last().is_some_and(|last| {
        global_values(last).is_some()
            || flag_named(&args, last).is_some_and(|arg| arg.kind != ArgKind::Bool)
    });
    if line.ends_with(' ') && wants_value {
        return None;
    }
    // `item show Demo/Welcome` gave -w and --id already.
    let filled: Vec<&str> = positional_given(spec, &args, &words)
        .into_iter()
        .flat_map(|target| target_fills(spec, target))
        .map(|(long, _)| long)
        .collect();
    let missing: Vec<String> = args
        .iter()
        .filter(|arg| arg.required && arg.default.is_none() && !arg.positional)
        .filter(|arg| !filled.contains(&arg.long))
        .filter(|arg| {
            !words
                .iter()
                .any(|word| flag_named(&args, word).is_some_and(|named| named.long == arg.long))
        })
        .map(|arg| format!("--{} {}", arg.long, arg.shown_value_name()))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let gap = if line.ends_with(' ') { "" } else { " " };
    Some(format!("{gap}{}", missing.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vocabulary of the real engine (on a host that never connects).
    fn vocabulary() -> Vocabulary {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        let bridge = fabsh_client::bridge::Bridge::new(runtime.handle().clone());
        let settings = fabsh_api::config::Settings::default();
        let printer = fabsh_client::output::Printer::plain();
        let host = crate::script::Host::lazy(settings, bridge, printer);
        let engine = crate::script::engine(&host).expect("engine");
        Vocabulary::new(&engine, None)
    }

    fn candidates(before: &str) -> Vec<String> {
        vocabulary().complete(before, &()).1
    }

    /// Names as a connected session would find them.
    struct Demo;

    impl NameSource for Demo {
        fn workspaces(&self) -> Vec<String> {
            vec!["Demo".into(), "Sales team".into()]
        }
        fn items(&self, workspace: &str, kind: Option<&str>) -> Vec<String> {
            let items = [
                ("Welcome", "Notebook"),
                ("SalesLakehouse", "Lakehouse"),
                ("Sales Model", "SemanticModel"),
                ("Sales Report", "Report"),
                ("Sales agent", "DataAgent"),
            ];
            match workspace {
                "Demo" => items
                    .iter()
                    .filter(|(_, of)| kind.is_none_or(|kind| kind == *of))
                    .map(|(name, _)| name.to_string())
                    .collect(),
                _ => Vec::new(),
            }
        }
    }

    #[test]
    fn every_matching_name_is_offered_quoted_when_it_has_spaces() {
        let vocabulary = vocabulary();
        let complete = |before: &str| vocabulary.complete(before, &Demo);
        let (start, found) = complete("item show -w Demo --id Sal");
        assert_eq!(start, "item show -w Demo --id ".len());
        assert_eq!(
            found,
            vec![
                "SalesLakehouse",
                "\"Sales Model\"",
                "\"Sales Report\"",
                "\"Sales agent\""
            ]
        );
        // Typed in a quote, or in another case, the same names.
        assert_eq!(
            complete("item show -w Demo --id \"Sales R").1,
            vec!["\"Sales Report\""]
        );
        assert_eq!(complete("item show -w Demo --id welc").1, vec!["Welcome"]);
    }

    #[test]
    fn an_agent_command_offers_only_data_agents() {
        let vocabulary = vocabulary();
        let complete = |before: &str| vocabulary.complete(before, &Demo).1;
        assert_eq!(
            complete("data-agent show -w Demo --id "),
            vec!["\"Sales agent\""]
        );
        assert_eq!(
            complete("data-agent show Demo/"),
            vec!["\"Demo/Sales agent\""]
        );
    }

    #[test]
    fn the_workspace_item_form_completes_the_workspace_then_its_items() {
        let vocabulary = vocabulary();
        let complete = |before: &str| vocabulary.complete(before, &Demo).1;
        assert_eq!(complete("item show De"), vec!["Demo/"]);
        assert_eq!(complete("item show Demo/We"), vec!["Demo/Welcome"]);
        assert_eq!(
            complete("item show Demo/Sales"),
            vec![
                "Demo/SalesLakehouse",
                "\"Demo/Sales Model\"",
                "\"Demo/Sales Report\"",
                "\"Demo/Sales agent\""
            ]
        );
        // A command that takes only a workspace offers workspaces whole.
        assert_eq!(complete("item list Sa"), vec!["\"Sales team\""]);
        // Once the positional is given, flags follow.
        assert!(complete("item show Demo/Welcome --").contains(&"--id".to_string()));
    }

    #[test]
    fn names_follow_workspace_and_id_flags_and_used_flags_are_left_out() {
        let vocabulary = vocabulary();
        let complete = |before: &str| vocabulary.complete(before, &Demo).1;
        assert_eq!(complete("item list -w "), vec!["Demo", "\"Sales team\""]);
        assert_eq!(complete("item list -w \"Sa"), vec!["\"Sales team\""]);
        assert_eq!(complete("item show -w Demo --id W"), vec!["Welcome"]);
        assert_eq!(complete("workspace show -w D"), vec!["Demo"]);
        assert_eq!(
            complete("item list -o "),
            vec!["json", "table", "wide", "tsv", "csv", "yaml"]
        );
        let flags = complete("item list -w Demo --");
        assert!(!flags.contains(&"--workspace".to_string()), "{flags:?}");
        assert!(flags.contains(&"--type".to_string()), "{flags:?}");
        assert!(complete("item ").contains(&"list".to_string()));
        // html only where the command makes a page.
        assert!(
            complete("data-agent evaluations report latest -o h").contains(&"html".to_string())
        );
    }

    #[test]
    fn command_lines_complete_commands_flags_and_values() {
        assert!(candidates("item sh").contains(&"show".to_string()));
        assert_eq!(candidates("local pr"), vec!["principal"]);
        assert_eq!(
            candidates("local principal "),
            vec!["add", "list", "remove"]
        );
        assert!(candidates("local principal add --ro").contains(&"--role".to_string()));
        assert!(candidates("item list --wo").contains(&"--workspace".to_string()));
        assert_eq!(candidates("item list --recursive "), vec!["true", "false"]);
    }

    #[test]
    fn rhai_completes_modules_and_functions() {
        assert!(candidates("let x = ite").contains(&"item::".to_string()));
        assert!(candidates("item::sh").contains(&"item::show(".to_string()));
        assert!(candidates("bulk::cr").contains(&"bulk::create(".to_string()));
        assert!(candidates("json::pa").contains(&"json::parse(".to_string()));
        assert!(candidates("grade::an").contains(&"grade::answer(".to_string()));
        assert!(candidates("config::g").contains(&"config::get(".to_string()));
        assert_eq!(candidates(":ou"), vec![":output"]);
    }

    #[test]
    fn hints_name_what_is_still_needed() {
        let vocabulary = vocabulary();
        assert_eq!(
            vocabulary.hint("item::show(").as_deref(),
            Some("workspace, id, #{...})")
        );
        assert_eq!(
            vocabulary.hint("item show -w Demo").as_deref(),
            Some(" --id ID|NAME")
        );
        // The WORKSPACE/ITEM positional stands for both.
        assert_eq!(vocabulary.hint("item show Demo/Welcome"), None);
        assert_eq!(
            vocabulary.hint("item show Demo").as_deref(),
            Some(" --workspace ID|NAME")
        );
    }
}
