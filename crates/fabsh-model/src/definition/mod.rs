//! Item definitions: the `{format?, parts: [{path, payload, payloadType}]}` envelope, shared by
//! the client and local Fabric: payload decoding, part-path safety, `.platform`, validation
//! against the per-type layouts of `item_types`, notebook formats. Reading and writing parts
//! on disk is the client's.

pub mod extra_parts;
pub mod notebook;
pub mod paths;
pub mod platform;
pub mod validate;

use crate::Problem;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Map, Value};

/// The only payload type the service knows.
pub const INLINE_BASE64: &str = "InlineBase64";

/// Standard base64 with or without `=` padding: clients differ and both decode to the same
/// bytes.
pub const LENIENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The bytes of a part payload; whitespace (line-wrapped base64) is ignored.
pub fn decode_payload(payload: &str) -> Result<Vec<u8>, base64::DecodeError> {
    if payload.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: Vec<u8> = payload
            .bytes()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        LENIENT_BASE64.decode(compact)
    } else {
        LENIENT_BASE64.decode(payload)
    }
}

/// A part's payload as base64.
pub fn encode_payload(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// The definition object of either envelope shape (`{definition: {...}}` or `{parts}`).
pub fn inner(value: &Value) -> &Value {
    match value.get("definition") {
        Some(inner) if inner.is_object() => inner,
        _ => value,
    }
}

/// Reads a definition given by the user — the definition object `{format?, parts}` or the
/// full envelope `{definition: {...}}` — and checks it enough that the service will not
/// reject its shape: every part has a path and a valid base64 payload. `flag` names the
/// flag in messages.
pub fn from_user_json(value: &Value, flag: &str) -> Result<Value, Problem> {
    let definition = inner(value);
    let Some(object) = definition.as_object() else {
        return Err(Problem::new(format!(
            "{flag} must be a JSON object with a `parts` array (or `{{\"definition\": {{\"parts\": [...]}}}}`)"
        )));
    };
    let Some(parts) = object.get("parts").and_then(Value::as_array) else {
        return Err(Problem::new(format!("{flag} has no `parts` array")));
    };
    let mut checked = Vec::with_capacity(parts.len());
    for (index, part) in parts.iter().enumerate() {
        let path = part.get("path").and_then(Value::as_str).unwrap_or("");
        if path.trim().is_empty() {
            return Err(Problem::new(format!("{flag}: part {index} has no `path`")));
        }
        if let Some(problem) = paths::problem(path) {
            return Err(Problem::new(format!(
                "{flag}: part path {path:?} refused: {problem}"
            )));
        }
        let Some(payload) = part.get("payload").and_then(Value::as_str) else {
            return Err(Problem::new(format!(
                "{flag}: part {path} has no `payload`"
            )));
        };
        if let Err(err) = decode_payload(payload) {
            return Err(Problem::new(format!(
                "{flag}: part {path} has a payload that is not valid base64 ({err})"
            )));
        }
        match part.get("payloadType").and_then(Value::as_str) {
            None | Some(INLINE_BASE64) => {}
            Some(other) => {
                return Err(Problem::new(format!(
                    "{flag}: part {path} has payloadType {other:?}; only {INLINE_BASE64} exists"
                )));
            }
        }
        let part = crate::wire::DefinitionPart {
            path: path.to_string(),
            payload: payload.to_string(),
            payload_type: INLINE_BASE64.to_string(),
        };
        checked.push(Value::from(part));
    }
    let mut out = Map::new();
    if let Some(format) = object.get("format").filter(|f| !f.is_null()) {
        out.insert("format".into(), format.clone());
    }
    out.insert("parts".into(), Value::Array(checked));
    Ok(Value::Object(out))
}

/// A part from raw bytes, as JSON (for a definition sent as the user's JSON is).
pub fn part(path: &str, bytes: &[u8]) -> Value {
    crate::wire::DefinitionPart::inline(path, bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepts_both_envelope_shapes() {
        let parts = json!({"parts": [{"path": "a.py", "payload": "aGk="}]});
        let wrapped = json!({"definition": parts.clone()});
        let expected =
            json!({"parts": [{"path": "a.py", "payload": "aGk=", "payloadType": "InlineBase64"}]});
        assert_eq!(
            from_user_json(&parts, "--definition").expect("valid"),
            expected
        );
        assert_eq!(
            from_user_json(&wrapped, "--definition").expect("valid"),
            expected
        );
    }

    #[test]
    fn rejects_bad_base64_and_missing_parts() {
        let bad = json!({"parts": [{"path": "a.py", "payload": "not base64!"}]});
        assert!(from_user_json(&bad, "--definition").is_err());
        assert!(from_user_json(&json!({"format": "ipynb"}), "--definition").is_err());
        assert!(from_user_json(&json!([1]), "--definition").is_err());
        let escape = json!({"parts": [{"path": "../a.py", "payload": "aGk="}]});
        assert!(from_user_json(&escape, "--definition").is_err());
    }
}
