//! An item's definition as getDefinition answers it (`ItemDefinitionResponse`): the envelope
//! `{definition: {format?, parts: [{path, payload, payloadType}]}}`. A part's payload is the
//! user's content, base64-encoded; what is sent is often the user's own JSON (a
//! `--definition` file, a repository), which stays a `Value` with its order as given.

use crate::definition::{INLINE_BASE64, encode_payload};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `ItemDefinitionResponse` (and the body of updateDefinition): the envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefinitionResponse {
    pub definition: Definition,
}

/// `ItemDefinition`: the parts, and the format they are in when the type has several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    pub parts: Vec<DefinitionPart>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ItemDefinitionPart`: one file of the item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionPart {
    /// Relative to the item's folder (`notebook-content.py`, `.platform`).
    pub path: String,
    /// The file's bytes, base64.
    pub payload: String,
    /// `InlineBase64`, the only type there is: a part that leaves it out means it.
    #[serde(default = "inline_base64")]
    pub payload_type: String,
}

fn inline_base64() -> String {
    INLINE_BASE64.to_string()
}

impl DefinitionPart {
    /// A part holding `bytes`.
    pub fn inline(path: &str, bytes: &[u8]) -> DefinitionPart {
        DefinitionPart {
            path: path.to_string(),
            payload: encode_payload(bytes),
            payload_type: INLINE_BASE64.to_string(),
        }
    }
}

impl From<DefinitionPart> for Value {
    fn from(part: DefinitionPart) -> Value {
        Value::Object(Map::from_iter([
            ("path".to_string(), Value::String(part.path)),
            ("payload".to_string(), Value::String(part.payload)),
            ("payloadType".to_string(), Value::String(part.payload_type)),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_definition_round_trips() {
        // recordings/fabric-cli/export__test_export_item_success.yaml (payloads shortened)
        let text = r#"{"definition":{"parts":[{"path":"notebook-content.py","payload":"IyBGYWJyaWM=","payloadType":"InlineBase64"},{"path":".platform","payload":"ewp9","payloadType":"InlineBase64"}]}}"#;
        let answer: DefinitionResponse = serde_json::from_str(text).unwrap();
        assert_eq!(answer.definition.format, None);
        assert_eq!(answer.definition.parts[1].path, ".platform");
        assert_eq!(serde_json::to_string(&answer).unwrap(), text);
    }

    #[test]
    fn a_part_is_built_from_bytes_in_the_service_s_key_order() {
        let part = DefinitionPart::inline("a.py", b"hi");
        assert_eq!(
            Value::from(part.clone()).to_string(),
            r#"{"path":"a.py","payload":"aGk=","payloadType":"InlineBase64"}"#
        );
        assert_eq!(
            Value::from(part.clone()),
            serde_json::to_value(&part).unwrap()
        );
        let formatted: Definition =
            serde_json::from_str(r#"{"format":"ipynb","parts":[]}"#).unwrap();
        assert_eq!(formatted.format.as_deref(), Some("ipynb"));
    }
}
