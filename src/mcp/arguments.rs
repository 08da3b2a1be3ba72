//! A tool call's arguments as a command's checked flags. The JSON types are checked here, so
//! an error names the argument as the assistant wrote it; what a value means (a GUID, an
//! enum value, a readable file) is checked by `Args::check` as for every front end. Text is
//! never `@file`: a path reaches the file system only through `--files`.

use super::tools::{
    Defaults, OVERWRITE, arg_key, inline_content, is_switch_text, must_be_given, tool_args,
    writes_files,
};
use fabsh_client::commands::common::effective_args;
use fabsh_client::commands::{ArgKind, ArgSpec, Args, CommandSpec, RawValue};
use fabsh_client::error::{Error, Result};
use serde_json::{Map, Value};

/// Checks a call's arguments against `spec`'s flags: unknown keys, JSON types, then the
/// values themselves and the required ones. Nothing has been sent when this fails.
pub(super) fn check(
    spec: &'static CommandSpec,
    arguments: &Map<String, Value>,
    defaults: &Defaults,
    writes: bool,
) -> Result<Args> {
    let files = !defaults.files.is_empty();
    let args = tool_args(spec, files);
    let overwrite = overwrite(spec, arguments, files, writes)?;
    let mut raw = Vec::new();
    for (key, value) in arguments {
        if key == OVERWRITE && writes_files(spec, files) {
            continue;
        }
        let arg = find(&args, key).ok_or_else(|| unknown(spec, key, &args))?;
        let value = match (arg.local_path(), value) {
            (_, Value::Null) => None,
            (_, Value::Array(_)) if inline_content(spec, arg).is_some() => {
                Some(RawValue::FileContent {
                    name: "inline.json".into(),
                    bytes: value.to_string().into_bytes(),
                })
            }
            (Some(how), Value::String(text)) if arg.names_local(text) => {
                let path = defaults.files.resolve(key, text, how, overwrite)?;
                Some(RawValue::Text(path.display().to_string()))
            }
            _ => raw_value(arg, key, value)?,
        };
        if let Some(value) = value {
            raw.push((arg, value));
        }
    }
    // A flag the call left out takes its default: the confined or the profile's workspace.
    for arg in &args {
        if raw.iter().any(|(given, _)| given.long == arg.long) {
            continue;
        }
        if let Some(value) = defaults.value(arg) {
            raw.push((*arg, RawValue::Text(value)));
        } else if must_be_given(spec, arg, defaults) {
            return Err(Error::usage(format!(
                "missing required argument `{}` ({})",
                arg_key(arg),
                arg.help
            )));
        }
    }
    let checked = Args::check(spec, &args, raw)?;
    Ok(with_server_flags(spec, checked, defaults))
}

/// The call's `overwrite: true`, refused where it cannot apply: a server that changes
/// nothing replaces no file either.
fn overwrite(
    spec: &'static CommandSpec,
    arguments: &Map<String, Value>,
    files: bool,
    writes: bool,
) -> Result<bool> {
    if !writes_files(spec, files) {
        return Ok(false);
    }
    match arguments.get(OVERWRITE) {
        None | Some(Value::Null | Value::Bool(false)) => Ok(false),
        Some(Value::Bool(true)) if writes => Ok(true),
        Some(Value::Bool(true)) => Err(Error::usage(
            "argument `overwrite`: this server is read-only, so it replaces no file",
        )
        .with_hint("nothing was written; name a new file instead")),
        Some(other) => Err(Error::usage(format!(
            "argument `overwrite` must be a boolean, got {}",
            json_type(other)
        ))),
    }
}

/// The server's own flags on a command that takes them.
fn with_server_flags(spec: &'static CommandSpec, args: Args, defaults: &Defaults) -> Args {
    let takes = |long: &str| effective_args(spec).iter().any(|arg| arg.long == long);
    let given: Vec<_> = defaults
        .server_flags
        .iter()
        .filter(|(long, _)| takes(long))
        .collect();
    if given.is_empty() {
        return args;
    }
    let mut values = args.values().clone();
    for (long, value) in given {
        values.insert(long, value.clone());
    }
    Args::from_values(values)
}

/// The flag a key names: its snake_case or kebab-case name, or an alias.
fn find(args: &[&'static ArgSpec], key: &str) -> Option<&'static ArgSpec> {
    let flag = key.replace('_', "-");
    args.iter()
        .find(|arg| arg.long == flag || arg.aliases.contains(&flag.as_str()))
        .copied()
}

fn unknown(spec: &'static CommandSpec, key: &str, args: &[&'static ArgSpec]) -> Error {
    let valid: Vec<String> = args.iter().map(|arg| arg_key(arg)).collect();
    let flag = key.replace('_', "-");
    let withheld = effective_args(spec)
        .into_iter()
        .find(|arg| arg.long == flag || arg.aliases.contains(&flag.as_str()));
    let why = match withheld {
        Some(arg) if arg.local_path().is_some() => {
            " (it names a local file, and this server was started without --files)"
        }
        Some(_) => " (it is the server's setting, not a tool argument)",
        None => "",
    };
    Error::usage(format!("unknown argument `{key}`{why}"))
        .with_hint(format!("valid arguments: {}", valid.join(", ")))
}

/// The value of one argument, if its JSON type fits the flag's kind; `null` is "not given".
fn raw_value(arg: &ArgSpec, key: &str, value: &Value) -> Result<Option<RawValue>> {
    let wrong = |expected: &str| {
        Error::usage(format!(
            "argument `{key}` must be {expected}, got {}",
            json_type(value)
        ))
    };
    Ok(Some(match (arg.kind, value) {
        (_, Value::Null) => return Ok(None),
        (ArgKind::Bool, Value::Bool(flag)) => RawValue::Bool(*flag),
        (ArgKind::Bool, _) => return Err(wrong("a boolean")),
        // A flag whose text is `true` or `false` is a boolean to a tool.
        (kind, Value::Bool(flag)) if is_switch_text(kind) => RawValue::Text(flag.to_string()),
        (kind, _) if is_switch_text(kind) => return Err(wrong("a boolean")),
        (ArgKind::Int, Value::Number(number)) => {
            RawValue::Int(number.as_i64().ok_or_else(|| wrong("a whole number"))?)
        }
        (ArgKind::Int, _) => return Err(wrong("an integer")),
        (ArgKind::List, Value::Array(items)) => RawValue::List(
            items
                .iter()
                .map(|item| item.as_str().map(String::from))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| wrong("an array of strings"))?,
        ),
        (ArgKind::List, _) => return Err(wrong("an array of strings")),
        // Text holding JSON, parsed here: `Args::check` would read `@file` text from disk.
        (ArgKind::Json, Value::String(text)) => {
            RawValue::Json(serde_json::from_str(text).map_err(|err| {
                Error::usage(format!("argument `{key}` is not valid JSON: {err}"))
                    .with_hint("give the value as JSON itself (an object or an array)")
            })?)
        }
        (ArgKind::Secret, _) => return Err(wrong("given to the server, not to a tool")),
        (ArgKind::Json, Value::Object(_) | Value::Array(_)) => RawValue::Json(value.clone()),
        (ArgKind::Json, _) => return Err(wrong("an object, an array or a string")),
        (_, Value::String(text)) => RawValue::Text(text.clone()),
        (_, _) => return Err(wrong("a string")),
    }))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_i64() || number.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
