//! Flag values, checked against their `ArgSpec` in one place for every front end: the CLI
//! hands in strings, scripts hand in typed values, and both end up as the same `Args`.

use super::common::{TARGET, effective_args, target_fills, target_for};
use super::spec::{ArgKind, ArgSpec, CommandSpec};
use crate::error::{Error, Result};
use fabsh_model::Secret;
use fabsh_model::item_types;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A value as a front end supplies it, before checking.
#[derive(Debug, Clone)]
pub enum RawValue {
    /// Text as typed on a command line.
    Text(String),
    Int(i64),
    Bool(bool),
    /// Structured data from a script (maps, arrays).
    Json(Value),
    List(Vec<String>),
    /// A file flag's content given inline instead of a path (the MCP server's inline
    /// questions), read as a file of this name would be.
    FileContent {
        name: String,
        bytes: Vec<u8>,
    },
}

/// A readable file named by a `File` flag, read when the flags are checked.
#[derive(Debug, Clone)]
pub struct FileArg {
    pub path: PathBuf,
    pub bytes: Arc<Vec<u8>>,
}

impl FileArg {
    /// The file's name without directories.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            // A path without a file name (`/`) has an empty one.
            .unwrap_or_default()
    }
}

/// A checked value.
#[derive(Debug, Clone)]
pub enum ArgValue {
    Str(String),
    Int(i64),
    Bool(bool),
    Json(Value),
    List(Vec<String>),
    File(FileArg),
    Secret(Secret),
}

/// The checked flags of one command call.
#[derive(Debug, Clone)]
pub struct Args {
    values: BTreeMap<&'static str, ArgValue>,
    /// The person at the terminal is to be asked before the deletions the command finds
    /// (the command line sets it for a command that confirms itself, without `--yes`).
    ask_at_terminal: bool,
    /// The flags the command declares, when checked against its spec: a typed field reading
    /// another is the registry's mistake ([`Args::declares`]).
    declared: Option<Vec<&'static str>>,
}

/// The flag as the user writes it (`--name`), or as usage lines show a positional (`PATH`).
pub fn flag_name(arg: &ArgSpec) -> String {
    if arg.positional {
        arg.value_name
            .map_or_else(|| arg.long.to_uppercase(), String::from)
    } else {
        format!("--{}", arg.long)
    }
}

impl Args {
    /// Checks raw values against `spec` (plus the flags its traits add): kinds, enum values,
    /// GUIDs, JSON, readable files, required flags, then for absent flags their environment
    /// variable or default. Errors are usage errors (exit 2).
    pub fn check(
        spec: &'static CommandSpec,
        args: &[&'static ArgSpec],
        raw: Vec<(&'static ArgSpec, RawValue)>,
    ) -> Result<Args> {
        Args::check_as_typed(spec, args, raw, &[])
    }

    /// [`Args::check`], with the spelling the user typed for some flags (`-w` for `--id`), so
    /// a refused value names the flag as they wrote it; flags not in `typed` are named with
    /// every spelling.
    pub fn check_as_typed(
        spec: &'static CommandSpec,
        args: &[&'static ArgSpec],
        raw: Vec<(&'static ArgSpec, RawValue)>,
        typed: &[(&'static str, String)],
    ) -> Result<Args> {
        let mut values = BTreeMap::new();
        for (arg, value) in raw {
            let name = typed
                .iter()
                .find(|(long, _)| *long == arg.long)
                .map_or_else(|| value_flag_name(arg), |(_, spelled)| spelled.clone());
            let checked = check_value(arg, &name, value)?;
            if values.insert(arg.long, checked).is_some() {
                return Err(Error::usage(format!(
                    "{} was given more than once",
                    flag_name(arg)
                )));
            }
        }
        let one_name_target = fill_from_target(spec, args, &mut values)?;
        for arg in args {
            if values.contains_key(arg.long) {
                continue;
            }
            let from_env = arg
                .env
                .and_then(|var| Some((var, fabsh_api::config::env_text(var)?)));
            if let Some((var, value)) = from_env {
                let checked = check_value(arg, &value_flag_name(arg), RawValue::Text(value))
                    .map_err(|err| err.with_hint(format!("the value came from {var}")))?;
                values.insert(arg.long, checked);
            } else if let Some(default) = arg.default {
                values.insert(
                    arg.long,
                    check_value(arg, &value_flag_name(arg), RawValue::Text(default.into()))?,
                );
            } else if arg.required {
                if let Some(target) = one_name_target
                    .as_deref()
                    .filter(|_| arg.long == "workspace")
                {
                    return Err(one_name_for_two(spec, target));
                }
                let hint = match target_for(spec) {
                    Some(target) if target_fills(spec, "w/i").iter().any(|f| f.0 == arg.long) => {
                        format!(
                            "give {} or the positional {}; see `fabsh {} --help`",
                            flag_name(arg),
                            flag_name(target),
                            spec.path()
                        )
                    }
                    _ => format!("see `fabsh {} --help`", spec.path()),
                };
                let shown = if arg.positional {
                    flag_name(arg)
                } else {
                    format!("{} <{}>", flag_name(arg), arg.shown_value_name())
                };
                return Err(Error::usage(format!(
                    "`{}` needs {shown} ({})",
                    spec.path(),
                    arg.help
                ))
                .with_hint(hint));
            }
        }
        // What the command declares, not what this front end offers: an MCP server without
        // --files withholds the flags naming local paths, and a typed field reads one of
        // those as not given, as the handlers always have.
        let declared = effective_args(spec).iter().map(|arg| arg.long).collect();
        Ok(Args {
            declared: Some(declared),
            ..Args::from_values(values)
        })
    }

    /// Args from already-checked values (for commands that call other commands).
    pub fn from_values(values: BTreeMap<&'static str, ArgValue>) -> Args {
        Args {
            values,
            ask_at_terminal: false,
            declared: None,
        }
    }

    /// The same args, for a command that is to ask the person at the terminal before it
    /// deletes what it found (see [`CommandSpec::confirms_itself`]).
    pub fn asking_at_terminal(self) -> Args {
        Args {
            ask_at_terminal: true,
            ..self
        }
    }

    /// True when the command is to ask at the terminal before deleting.
    pub fn asks_at_terminal(&self) -> bool {
        self.ask_at_terminal
    }

    /// False when the command was checked against a spec that does not declare the flag.
    pub(crate) fn declares(&self, long: &str) -> bool {
        self.declared
            .as_ref()
            .is_none_or(|declared| declared.contains(&long))
    }

    /// True when the flag was given (or has a default).
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The text of a flag, if given.
    pub fn opt_str(&self, name: &str) -> Option<&str> {
        match self.values.get(name) {
            Some(ArgValue::Str(text)) => Some(text),
            _ => None,
        }
    }

    /// The text of a required flag.
    pub fn str(&self, name: &str) -> Result<&str> {
        self.opt_str(name)
            .ok_or_else(|| Error::usage(format!("--{name} is required")))
    }

    /// A boolean flag; absent means false.
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(ArgValue::Bool(true)))
    }

    /// A boolean flag, distinguishing absent from false.
    pub fn opt_bool(&self, name: &str) -> Option<bool> {
        match self.values.get(name) {
            Some(ArgValue::Bool(value)) => Some(*value),
            _ => None,
        }
    }

    /// A whole-number flag, if given.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.values.get(name) {
            Some(ArgValue::Int(value)) => Some(*value),
            _ => None,
        }
    }

    /// A JSON flag, if given.
    pub fn json(&self, name: &str) -> Option<&Value> {
        match self.values.get(name) {
            Some(ArgValue::Json(value)) => Some(value),
            _ => None,
        }
    }

    /// A list flag; absent means empty.
    pub fn list(&self, name: &str) -> &[String] {
        match self.values.get(name) {
            Some(ArgValue::List(items)) => items,
            _ => &[],
        }
    }

    /// A file flag, if given.
    pub fn file(&self, name: &str) -> Option<&FileArg> {
        match self.values.get(name) {
            Some(ArgValue::File(file)) => Some(file),
            _ => None,
        }
    }

    /// A secret flag, if given.
    pub fn secret(&self, name: &str) -> Option<&Secret> {
        match self.values.get(name) {
            Some(ArgValue::Secret(secret)) => Some(secret),
            _ => None,
        }
    }

    /// Every value, keyed by long flag name.
    pub fn values(&self) -> &BTreeMap<&'static str, ArgValue> {
        &self.values
    }
}

/// The positional `WORKSPACE/ITEM` (or `WORKSPACE`) stands for the flags it fills, unless
/// those were given: flags win. The target itself is not kept.
/// Returns the target when it was one name standing for a workspace-scoped thing (`item show
/// Demo`), so a missing workspace can be reported as the ambiguity it is.
fn fill_from_target(
    spec: &CommandSpec,
    args: &[&'static ArgSpec],
    values: &mut BTreeMap<&'static str, ArgValue>,
) -> Result<Option<String>> {
    // A command that declares the target itself reads it (`evaluations show [WORKSPACE/AGENT]
    // RUN`); only the target `target_for` adds stands for -w and --id.
    if target_for(spec).is_none() {
        return Ok(None);
    }
    let Some(ArgValue::Str(target)) = values.remove(TARGET) else {
        return Ok(None);
    };
    let fills = target_fills(spec, &target);
    let one_name = fills.len() == 1 && fills[0].0 == "id" && !target.contains('/');
    for (long, text) in fills {
        if values.contains_key(long) {
            continue;
        }
        if let Some(arg) = args.iter().find(|arg| arg.long == long) {
            let checked =
                check_value(arg, &value_flag_name(arg), RawValue::Text(text)).map_err(|err| {
                    err.with_hint(format!(
                        "it came from {target:?}; for names with '/' in them use -w and --id"
                    ))
                })?;
            values.insert(arg.long, checked);
        }
    }
    Ok(one_name.then_some(target))
}

/// `item show Demo` with no workspace anywhere: the one name could be the workspace (the
/// item is missing) or the item (the workspace is), so say both rather than only asking for
/// a workspace the user believes they gave.
fn one_name_for_two(spec: &CommandSpec, target: &str) -> Error {
    let thing = match spec.group {
        "data-agent" => "data agent",
        "folder" => "folder",
        _ => "item",
    };
    Error::usage(format!(
        "`{} {target}` names one thing, but {thing}s are named by workspace and {thing}: \
         if {target:?} is the workspace, the {thing} is missing",
        spec.path()
    ))
    .with_hint(format!(
        "write `fabsh {path} {target}/{upper}`, or `fabsh {path} -w WORKSPACE {target}` \
         when {target:?} is the {thing}",
        path = spec.path(),
        upper = thing.replace(' ', "-").to_uppercase()
    ))
}

/// How a refusal of a value names its flag when the spelling typed is not known: as
/// [`flag_name`], plus the other spellings, since the user may have typed one of those.
fn value_flag_name(arg: &ArgSpec) -> String {
    let name = flag_name(arg);
    if arg.aliases.is_empty() || arg.positional {
        return name;
    }
    let others: Vec<String> = arg
        .short
        .map(|short| format!("-{short}"))
        .into_iter()
        .chain(arg.aliases.iter().map(|alias| format!("--{alias}")))
        .collect();
    format!("{name} ({})", others.join(", "))
}

fn check_value(arg: &ArgSpec, name: &str, raw: RawValue) -> Result<ArgValue> {
    // An empty id is looked up, an empty name sent, an empty folder is the current one:
    // never what was meant, unless the flag gives emptiness a meaning.
    // A list of nothing but commas (`--public-host ,,,`) is as empty as no text.
    if let RawValue::Text(text) = &raw
        && (text.trim().is_empty() || (arg.kind == ArgKind::List && split_list(text).is_empty()))
        && !arg.allows_empty
    {
        let hint = if arg.required {
            "give a value"
        } else {
            "give a value, or leave the flag out"
        };
        return Err(Error::usage(format!("{name} is empty")).with_hint(hint));
    }
    let wrong = |expected: &str, got: &dyn std::fmt::Debug| {
        Error::usage(format!("{name} expects {expected}, got {got:?}"))
    };
    match arg.kind {
        ArgKind::Str | ArgKind::Ref => match raw {
            RawValue::Text(text) => Ok(ArgValue::Str(text)),
            RawValue::Int(number) => Ok(ArgValue::Str(number.to_string())),
            other if arg.kind == ArgKind::Ref => Err(wrong("an id or a name", &other)),
            other => Err(wrong("text", &other)),
        },
        ArgKind::ItemType => match raw {
            RawValue::Text(text) => checked_item_type(name, &text).map(ArgValue::Str),
            other => Err(wrong("an item type", &other)),
        },
        ArgKind::Int => {
            let number = match raw {
                RawValue::Int(number) => number,
                RawValue::Text(text) => text
                    .trim()
                    .parse()
                    .map_err(|_| wrong("a whole number", &text))?,
                other => return Err(wrong("a whole number", &other)),
            };
            in_range(name, arg.range, number).map(ArgValue::Int)
        }
        ArgKind::Bool => match raw {
            RawValue::Bool(value) => Ok(ArgValue::Bool(value)),
            RawValue::Text(text) => parse_bool(&text)
                .map(ArgValue::Bool)
                .ok_or_else(|| wrong("true or false", &text)),
            other => Err(wrong("true or false", &other)),
        },
        ArgKind::Enum(choices) => {
            let text = match raw {
                RawValue::Text(text) => text,
                other => return Err(wrong("text", &other)),
            };
            choices
                .iter()
                .find(|choice| choice.eq_ignore_ascii_case(text.trim()))
                .map(|choice| ArgValue::Str(choice.to_string()))
                .ok_or_else(|| {
                    Error::usage(format!(
                        "{name} must be one of {}, got {text:?}",
                        choices.join(", ")
                    ))
                })
        }
        ArgKind::Json => match raw {
            RawValue::Json(value) => Ok(ArgValue::Json(value)),
            RawValue::Text(text) => {
                parse_json_or_file(name, &text, arg.file_cap()).map(ArgValue::Json)
            }
            other => Err(wrong("JSON", &other)),
        },
        ArgKind::Uuid => match raw {
            RawValue::Text(text) => {
                let text = text.trim();
                uuid::Uuid::try_parse(text)
                    .map(|_| ArgValue::Str(text.to_string()))
                    .map_err(|_| {
                        Error::usage(format!(
                            "{name} must be a GUID like 00000000-0000-0000-0000-000000000000, got {text:?}"
                        ))
                    })
            }
            other => Err(wrong("a GUID", &other)),
        },
        ArgKind::UuidPrefix => match raw {
            RawValue::Text(text) => {
                let text = text.trim().trim_end_matches('…');
                if uuid::Uuid::try_parse(text).is_ok() || is_guid_prefix(text) {
                    Ok(ArgValue::Str(text.to_string()))
                } else {
                    Err(Error::usage(format!(
                        "{name} must be a GUID like 00000000-0000-0000-0000-000000000000, or its first 8 characters or more, got {text:?}"
                    )))
                }
            }
            other => Err(wrong("a GUID", &other)),
        },
        ArgKind::File => match raw {
            RawValue::Text(path) => read_file(name, &path, arg.file_cap()).map(ArgValue::File),
            RawValue::FileContent { name, bytes } => Ok(ArgValue::File(FileArg {
                path: PathBuf::from(name),
                bytes: Arc::new(bytes),
            })),
            other => Err(wrong("a file path", &other)),
        },
        ArgKind::Secret => match raw {
            RawValue::Text(text) => secret_value(name, text, arg.file_cap()).map(ArgValue::Secret),
            // The value itself is never shown, whatever it is.
            _ => Err(Error::usage(format!("{name} expects text or @file"))),
        },
        ArgKind::List => match raw {
            RawValue::List(items) => Ok(ArgValue::List(items)),
            RawValue::Text(text) => Ok(ArgValue::List(split_list(&text))),
            RawValue::Json(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text),
                    other => Err(wrong("a list of text", &other)),
                })
                .collect::<Result<Vec<_>>>()
                .map(ArgValue::List),
            other => Err(wrong("a comma-separated list", &other)),
        },
    }
}

/// A count or duration inside the flag's range: `--limit -1` or `--lro-timeout -1` would
/// otherwise reach a handler that sends first and fails (or waits no time at all) later.
fn in_range(name: &str, range: Option<(i64, i64)>, number: i64) -> Result<i64> {
    let Some((min, max)) = range else {
        return Ok(number);
    };
    if (min..=max).contains(&number) {
        return Ok(number);
    }
    let allowed = if max == i64::MAX {
        format!("at least {min}")
    } else {
        format!("{min} to {max}")
    };
    Err(Error::usage(format!(
        "{name} must be {allowed}, got {number}"
    )))
}

/// An item type as the service wants it: a known type in its canonical casing, an unknown
/// one as given. A near miss of a known type is a typo, refused before it reaches the
/// service (which would answer with a less helpful error, after any lookups). `what` names
/// where the type came from (`--type`, `item 3`).
pub fn checked_item_type(what: &str, text: &str) -> Result<String> {
    if let Some(known) = item_types::near_miss(text) {
        return Err(Error::usage(format!(
            "{what}: {:?} is not an item type; did you mean {}?",
            text.trim(),
            known.name
        )));
    }
    Ok(item_types::canonical(text))
}

/// `true/false`, `yes/no`, `1/0`, any case.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" | "on" => Some(true),
        "false" | "no" | "0" | "off" => Some(false),
        _ => None,
    }
}

/// Comma-separated values, trimmed, empties dropped.
pub fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(String::from)
        .collect()
}

/// Inline JSON, or `@path` naming a JSON file of at most `cap` bytes.
pub fn parse_json_or_file(name: &str, text: &str, cap: u64) -> Result<Value> {
    if let Some(path) = text.strip_prefix('@') {
        let file = read_file(name, path, cap)?;
        serde_json::from_slice(&file.bytes)
            .map_err(|err| Error::usage(format!("{name}: {path} is not valid JSON: {err}")))
    } else {
        serde_json::from_str(text)
            .map_err(|err| Error::usage(format!("{name} is not valid JSON: {err}")))
    }
}

/// A secret given inline, or as `@path` naming a file that holds it (its final line break
/// dropped). The errors name the flag and the file, never the value.
fn secret_value(name: &str, text: String, cap: u64) -> Result<Secret> {
    let Some(path) = text.strip_prefix('@') else {
        return Ok(Secret::new(text));
    };
    let file = read_file(name, path, cap)?;
    let value = String::from_utf8(file.bytes.to_vec())
        .map_err(|_| Error::usage(format!("{name}: {path} is not UTF-8 text")))?;
    let value = value.trim_end_matches(['\r', '\n']);
    if value.trim().is_empty() {
        return Err(Error::usage(format!("{name}: {path} is empty")));
    }
    Ok(Secret::new(value))
}

/// The regular file at `path`, at most `cap` bytes, checked before it is read.
fn read_file(name: &str, path: &str, cap: u64) -> Result<FileArg> {
    use fabsh_deploy::file::{FileError, human_size, read_regular};
    let bytes = read_regular(Path::new(path), cap).map_err(|err| match err {
        FileError::TooLarge { size, cap } => Error::usage(format!(
            "{name}: {path} is {}, more than the {} {name} reads",
            human_size(size),
            human_size(cap)
        ))
        .with_hint("nothing was sent; the service takes no larger request"),
        other => Error::usage(format!("{name}: cannot read {path}: {other}")),
    })?;
    Ok(FileArg {
        path: PathBuf::from(path),
        bytes: Arc::new(bytes),
    })
}

/// True for the first 8 to 35 characters of a GUID in its usual form (hex digits, with the
/// hyphens where a GUID has them).
fn is_guid_prefix(text: &str) -> bool {
    const SHAPE: &str = "00000000-0000-0000-0000-000000000000";
    (8..SHAPE.len()).contains(&text.len())
        && text
            .chars()
            .zip(SHAPE.chars())
            .all(|(c, shape)| match shape {
                '-' => c == '-',
                _ => c.is_ascii_hexdigit(),
            })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bool_accepts_the_spellings_the_spec_uses() {
        assert_eq!(parse_bool("true"), Some(true));
        assert_eq!(parse_bool("False"), Some(false));
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn secrets_come_inline_or_from_a_file_and_are_never_shown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.txt");
        std::fs::write(&path, "s3cret\n").unwrap();
        let from_file = secret_value("--llm-key", format!("@{}", path.display()), 64).unwrap();
        assert_eq!(from_file.expose(), "s3cret");
        assert_eq!(
            secret_value("--k", "inline".into(), 64).unwrap().expose(),
            "inline"
        );
        let missing = secret_value("--llm-key", "@/no/such/key".into(), 64).unwrap_err();
        assert!(
            missing
                .message
                .starts_with("--llm-key: cannot read /no/such/key")
        );
        assert_eq!(
            format!("{:?}", ArgValue::Secret(from_file)),
            "Secret((redacted))"
        );
    }

    #[test]
    fn lists_drop_blanks_and_trim() {
        assert_eq!(split_list(" a, b,,c "), vec!["a", "b", "c"]);
    }
}
