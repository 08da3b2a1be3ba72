//! Values crossing between Rhai and the rest of fabsh: JSON results become Rhai values,
//! script values become flag values for `Args::check`, and errors become the catchable maps
//! `#{kind, status, code, message, request_id}` (and back, when a script does not catch them).

use fabsh_client::commands::RawValue;
use fabsh_client::error::{Error, ErrorKind};
use rhai::{Array, Dynamic, EvalAltResult, ImmutableString, Map, NativeCallContext, Position};
use serde_json::{Number, Value};

/// A JSON value as a Rhai value: objects become maps, arrays arrays, numbers ints when whole.
pub fn to_dynamic(value: Value) -> Dynamic {
    match value {
        Value::Null => Dynamic::UNIT,
        Value::Bool(flag) => Dynamic::from_bool(flag),
        Value::Number(number) => match number.as_i64() {
            Some(int) => Dynamic::from_int(int),
            None => Dynamic::from_float(number.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(text) => Dynamic::from(text),
        Value::Array(items) => Dynamic::from_array(items.into_iter().map(to_dynamic).collect()),
        Value::Object(entries) => Dynamic::from_map(
            entries
                .into_iter()
                .map(|(key, value)| (key.into(), to_dynamic(value)))
                .collect(),
        ),
    }
}

/// A Rhai value as JSON; fails on values JSON cannot hold (functions, timestamps). Read in
/// place: cloning each level before reading it copied every leaf once per level above it.
pub fn to_json(value: &Dynamic) -> Result<Value, String> {
    if value.is_shared() {
        return to_json(&value.flatten_clone());
    }
    if value.is_unit() {
        return Ok(Value::Null);
    }
    if let Ok(flag) = value.as_bool() {
        return Ok(Value::Bool(flag));
    }
    if let Ok(int) = value.as_int() {
        return Ok(Value::from(int));
    }
    if let Ok(float) = value.as_float() {
        return Ok(Number::from_f64(float).map_or(Value::Null, Value::Number));
    }
    if let Ok(ch) = value.as_char() {
        return Ok(Value::String(ch.to_string()));
    }
    if let Some(text) = value.read_lock::<ImmutableString>() {
        return Ok(Value::String(text.to_string()));
    }
    if let Some(items) = value.read_lock::<Array>() {
        return items
            .iter()
            .map(to_json)
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if let Some(entries) = value.read_lock::<Map>() {
        return entries
            .iter()
            .map(|(key, value)| Ok((key.to_string(), to_json(value)?)))
            .collect::<Result<_, String>>()
            .map(Value::Object);
    }
    if let Some(bytes) = value.read_lock::<rhai::Blob>() {
        return Ok(Value::Array(
            bytes.iter().copied().map(Value::from).collect(),
        ));
    }
    Err(format!(
        "a {} cannot be turned into JSON",
        value.type_name()
    ))
}

/// A script value given for a flag, before checking. `()` means "not given".
pub(super) fn to_raw_value(value: &Dynamic) -> Result<Option<RawValue>, String> {
    let value = value.flatten_clone();
    Ok(Some(if value.is_unit() {
        return Ok(None);
    } else if let Ok(flag) = value.as_bool() {
        RawValue::Bool(flag)
    } else if let Ok(int) = value.as_int() {
        RawValue::Int(int)
    } else if let Ok(float) = value.as_float() {
        RawValue::Text(float.to_string())
    } else if value.is_string() || value.is_char() {
        RawValue::Text(value.to_string())
    } else {
        RawValue::Json(to_json(&value)?)
    }))
}

/// The error as the map scripts catch.
pub(super) fn error_map(err: &Error) -> Dynamic {
    to_dynamic(err.to_json())
}

/// An error thrown into a script: catchable as its map, except Ctrl-C, which stops the
/// script whatever `try` blocks it is in.
pub(super) fn throw(err: Error) -> Box<EvalAltResult> {
    if err.kind == ErrorKind::Cancelled {
        return Box::new(EvalAltResult::ErrorTerminated(
            error_map(&err),
            Position::NONE,
        ));
    }
    Box::new(EvalAltResult::ErrorRuntime(error_map(&err), Position::NONE))
}

/// Places an error at the script position of the native call that raised it (Rhai leaves
/// errors from namespaced native functions without one).
pub(super) fn at_call(
    context: &NativeCallContext,
    mut err: Box<EvalAltResult>,
) -> Box<EvalAltResult> {
    if err.position().is_none() {
        err.set_position(context.call_position());
    }
    err
}

/// The error a thrown value stands for: an error map (caught and rethrown, or built by the
/// script) keeps its kind and fields; anything else is a runtime error with its text.
pub(super) fn error_from_thrown(value: &Dynamic) -> Error {
    match to_json(value) {
        Ok(json) if json.is_object() => Error::from_json(&json),
        _ => Error::runtime(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_round_trips_through_rhai_values() {
        let value = json!({"a": [1, 2.5, "x", true, null], "b": {"c": "d"}});
        let back = to_json(&to_dynamic(value.clone())).expect("convertible");
        assert_eq!(back, value);
    }

    #[test]
    fn error_maps_keep_their_fields() {
        let mut err = Error::api(404, Some("ItemNotFound".into()), "no such item");
        err.request_id = Some("r-1".into());
        let back = error_from_thrown(&error_map(&err));
        assert_eq!(back.kind, ErrorKind::NotFound);
        assert_eq!(back.status, Some(404));
        assert_eq!(back.code.as_deref(), Some("ItemNotFound"));
        assert_eq!(back.request_id.as_deref(), Some("r-1"));
        assert_eq!(back.message, "no such item");
    }

    #[test]
    fn plain_thrown_values_are_runtime_errors() {
        let err = error_from_thrown(&Dynamic::from("boom".to_string()));
        assert_eq!(err.kind, ErrorKind::Runtime);
        assert_eq!(err.message, "boom");
    }
}
