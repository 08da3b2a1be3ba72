//! Item definitions on the wire: parsing and validating `{format?, parts[]}`, the generated
//! `.platform` part, and the parts an item starts with when created without a definition.

use super::errors::ApiError;
use super::store::items::{Item, Part};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Schema URL written into generated `.platform` parts.
pub const PLATFORM_SCHEMA: &str = "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json";

/// Path of the metadata part.
pub const PLATFORM_PATH: &str = ".platform";

/// Accepts payloads with or without `=` padding: clients differ and both decode to the same
/// bytes.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// What a `.platform` part carried.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlatformMeta {
    /// `metadata.displayName`.
    pub display_name: Option<String>,
    /// `metadata.description`.
    pub description: Option<String>,
    /// `config.logicalId`.
    pub logical_id: Option<String>,
}

/// A parsed, validated definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// `format`, if given.
    pub format: Option<String>,
    /// Parts other than `.platform`, decoded.
    pub parts: Vec<Part>,
    /// The `.platform` part's fields, if one was sent.
    pub platform: Option<PlatformMeta>,
}

fn corrupted(message: impl Into<String>) -> ApiError {
    // CorruptedPayload is the code the reference lists for both create and updateDefinition;
    // InvalidDefinition does not appear in any recorded response.
    ApiError::bad_request("CorruptedPayload", message)
}

/// Validates a wire definition. Invalid base64, duplicate or unsafe paths and an unreadable
/// `.platform` are `400 CorruptedPayload`; a wrong shape is `400 BadRequest`.
pub fn parse(value: &Value) -> Result<Definition, ApiError> {
    let obj = value
        .as_object()
        .ok_or_else(|| ApiError::invalid_body("definition must be an object"))?;
    let format = match obj.get("format") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(ApiError::invalid_body("definition.format must be a string")),
    };
    let wire_parts = obj
        .get("parts")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::invalid_body("definition.parts must be an array"))?;
    let mut parts: Vec<Part> = Vec::with_capacity(wire_parts.len());
    let mut platform = None;
    for (i, wire) in wire_parts.iter().enumerate() {
        let field = |name: &str| wire.get(name).and_then(Value::as_str);
        let path = field("path").filter(|p| !p.is_empty()).ok_or_else(|| {
            ApiError::invalid_body(format!("definition.parts[{i}].path is required"))
        })?;
        let payload = field("payload").ok_or_else(|| {
            ApiError::invalid_body(format!("definition.parts[{i}].payload is required"))
        })?;
        match field("payloadType") {
            Some("InlineBase64") => {}
            other => {
                return Err(ApiError::invalid_body(format!(
                    "definition.parts[{i}].payloadType must be InlineBase64, got {}",
                    other.unwrap_or("nothing")
                )));
            }
        }
        if path.starts_with('/')
            || path.contains('\\')
            || path
                .split('/')
                .any(|s| s.is_empty() || s == "." || s == "..")
        {
            return Err(corrupted(format!("Invalid part path '{path}'")));
        }
        let compact: String = payload
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        let bytes = LENIENT
            .decode(compact.as_bytes())
            .map_err(|_| corrupted(format!("The payload of part '{path}' is not valid base64")))?;
        if path == PLATFORM_PATH {
            platform = Some(parse_platform(&bytes)?);
            continue;
        }
        if parts.iter().any(|p| p.path == path) {
            return Err(corrupted(format!("Part '{path}' appears more than once")));
        }
        parts.push(Part {
            path: path.to_string(),
            payload: bytes,
        });
    }
    Ok(Definition {
        format,
        parts,
        platform,
    })
}

fn parse_platform(bytes: &[u8]) -> Result<PlatformMeta, ApiError> {
    // A UTF-8 byte-order mark is common in files saved by Windows tools.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| corrupted(format!("The .platform part is not valid JSON: {e}")))?;
    let text = |section: &str, key: &str| {
        value
            .get(section)
            .and_then(|s| s.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Ok(PlatformMeta {
        display_name: text("metadata", "displayName"),
        description: text("metadata", "description"),
        logical_id: text("config", "logicalId"),
    })
}

/// The `.platform` part Fabric returns with every definition.
pub fn platform_part(item: &Item) -> Part {
    let mut metadata = Map::new();
    metadata.insert("type".into(), json!(item.item_type));
    metadata.insert("displayName".into(), json!(item.display_name));
    if let Some(description) = item.description.as_deref().filter(|d| !d.is_empty()) {
        metadata.insert("description".into(), json!(description));
    }
    let doc = json!({
        "$schema": PLATFORM_SCHEMA,
        "metadata": metadata,
        "config": {"version": "2.0", "logicalId": item.logical_id},
    });
    Part {
        path: PLATFORM_PATH.to_string(),
        payload: serde_json::to_vec_pretty(&doc).unwrap_or_default(),
    }
}

/// `{"definition": {format?, parts}}` with `.platform` last, as the service orders it.
pub fn to_wire(item: &Item, parts: &[Part]) -> Value {
    let mut wire: Vec<Value> = parts.iter().map(part_to_wire).collect();
    wire.push(part_to_wire(&platform_part(item)));
    let mut definition = Map::new();
    if let Some(format) = &item.definition_format {
        definition.insert("format".into(), json!(format));
    }
    definition.insert("parts".into(), Value::Array(wire));
    json!({ "definition": definition })
}

fn part_to_wire(part: &Part) -> Value {
    json!({
        "path": part.path,
        "payload": STANDARD.encode(&part.payload),
        "payloadType": "InlineBase64",
    })
}

fn text_part(path: &str, text: &str) -> Part {
    Part {
        path: path.to_string(),
        payload: text.as_bytes().to_vec(),
    }
}

/// The notebook an empty `Notebook` starts as, in the fabricGitSource layout.
pub const EMPTY_NOTEBOOK: &str = "# Fabric notebook source

# METADATA ********************

# META {
# META   \"kernel_info\": {
# META     \"name\": \"synapse_pyspark\"
# META   },
# META   \"dependencies\": {}
# META }

# CELL ********************

# METADATA ********************

# META {
# META   \"language\": \"python\",
# META   \"language_group\": \"synapse_pyspark\"
# META }
";

/// Schema of `Files/Config/data_agent.json`.
pub const DATA_AGENT_SCHEMA: &str = "https://developer.microsoft.com/json-schemas/fabric/item/dataAgent/definition/dataAgent/2.1.0/schema.json";
/// Schema of `Files/Config/draft/stage_config.json`.
pub const STAGE_CONFIG_SCHEMA: &str = "https://developer.microsoft.com/json-schemas/fabric/item/dataAgent/definition/stageConfiguration/1.0.0/schema.json";

/// Parts a new item of this type gets when created without a definition.
pub fn default_parts(item_type: &str, creation_payload: Option<&Value>) -> Vec<Part> {
    match item_type {
        "Notebook" => vec![text_part("notebook-content.py", EMPTY_NOTEBOOK)],
        "DataAgent" => vec![
            text_part(
                "Files/Config/data_agent.json",
                &pretty(&json!({ "$schema": DATA_AGENT_SCHEMA })),
            ),
            text_part(
                "Files/Config/draft/stage_config.json",
                &pretty(&json!({ "$schema": STAGE_CONFIG_SCHEMA, "aiInstructions": "" })),
            ),
        ],
        "DataPipeline" => vec![text_part(
            "pipeline-content.json",
            &pretty(&json!({"properties": {"activities": []}})),
        )],
        "Lakehouse" => {
            let schemas = creation_payload
                .and_then(|p| p.get("enableSchemas"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let metadata = if schemas {
                json!({"defaultSchema": "dbo"})
            } else {
                json!({})
            };
            vec![text_part("lakehouse.metadata.json", &pretty(&metadata))]
        }
        _ => Vec::new(),
    }
}

/// Pretty JSON text (2-space indent, as Fabric writes its files).
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire_part(path: &str, payload: &str) -> Value {
        json!({"path": path, "payload": payload, "payloadType": "InlineBase64"})
    }

    #[test]
    fn parses_parts_and_platform() {
        let platform =
            STANDARD.encode(br#"{"metadata":{"displayName":"N"},"config":{"logicalId":"abc"}}"#);
        let def = parse(&json!({"format": "ipynb", "parts": [
            wire_part("notebook-content.ipynb", &STANDARD.encode(b"{}")),
            wire_part(".platform", &platform),
        ]}))
        .unwrap();
        assert_eq!(def.format.as_deref(), Some("ipynb"));
        assert_eq!(def.parts.len(), 1);
        assert_eq!(def.parts[0].payload, b"{}");
        let meta = def.platform.unwrap();
        assert_eq!(meta.display_name.as_deref(), Some("N"));
        assert_eq!(meta.logical_id.as_deref(), Some("abc"));
    }

    #[test]
    fn rejects_bad_payloads_and_paths() {
        let bad = parse(&json!({"parts": [wire_part("a.py", "%%%not base64")]})).unwrap_err();
        assert_eq!(bad.code, "CorruptedPayload");
        let up = parse(&json!({"parts": [wire_part("../a.py", "YQ==")]})).unwrap_err();
        assert_eq!(up.code, "CorruptedPayload");
        let dup =
            parse(&json!({"parts": [wire_part("a", "YQ=="), wire_part("a", "YQ")]})).unwrap_err();
        assert_eq!(dup.code, "CorruptedPayload");
        let shape = parse(&json!({"parts": "nope"})).unwrap_err();
        assert_eq!(shape.code, "BadRequest");
    }
}
