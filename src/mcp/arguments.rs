//! A tool call's arguments as a command's checked flags. The JSON types are checked here, so
//! an error names the argument as the assistant wrote it; what a value means (a GUID, an
//! enum value, a readable file) is checked by `Args::check` as for every front end.

use super::tools::{Defaults, arg_key, must_be_given, tool_args};
use fabsh_client::commands::{ArgKind, ArgSpec, Args, CommandSpec, RawValue};
use fabsh_client::error::{Error, Result};
use serde_json::{Map, Value};

/// Checks a call's arguments against `spec`'s flags: unknown keys, JSON types, then the
/// values themselves and the required ones. Nothing has been sent when this fails.
pub fn check(
    spec: &'static CommandSpec,
    arguments: &Map<String, Value>,
    defaults: &Defaults,
) -> Result<Args> {
    let args = tool_args(spec);
    let mut raw = Vec::new();
    for (key, value) in arguments {
        let arg = find(&args, key).ok_or_else(|| unknown(key, &args))?;
        if let Some(value) = raw_value(arg, key, value)? {
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
    Args::check(spec, &args, raw)
}

/// The flag a key names: its snake_case or kebab-case name, or an alias.
fn find(args: &[&'static ArgSpec], key: &str) -> Option<&'static ArgSpec> {
    let flag = key.replace('_', "-");
    args.iter()
        .find(|arg| arg.long == flag || arg.aliases.contains(&flag.as_str()))
        .copied()
}

fn unknown(key: &str, args: &[&'static ArgSpec]) -> Error {
    let valid: Vec<String> = args.iter().map(|arg| arg_key(arg)).collect();
    Error::usage(format!("unknown argument `{key}`"))
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
        (ArgKind::Json, Value::String(text)) => RawValue::Text(text.clone()),
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
