//! Item definitions on the wire: parsing and validating `{format?, parts[]}` (with the shared
//! path, payload and `.platform` rules of `fabsh_model::definition`), the generated `.platform` part,
//! `format` conversion on read, and the parts an item starts with when created without a
//! definition.

use super::api_error::ApiError;
use super::store::items::{Item, Part};
use fabsh_model::definition::{self as shared, notebook, paths, platform};
use fabsh_model::item_types::{self, PartRules};
use fabsh_model::wire::{self, DefinitionPart, DefinitionResponse};
use serde_json::{Map, Value, json};

/// What a `.platform` part carried.
pub(crate) type PlatformMeta = platform::Platform;

/// A parsed, validated definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Definition {
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

fn invalid_format(message: impl Into<String>) -> ApiError {
    ApiError::bad_request("InvalidDefinitionFormat", message)
}

/// Validates a wire definition. Invalid base64, duplicate or unsafe paths and an unreadable
/// `.platform` are `400 CorruptedPayload`; a wrong shape is `400 BadRequest`.
pub(crate) fn parse(value: &Value) -> Result<Definition, ApiError> {
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
            Some(shared::INLINE_BASE64) => {}
            other => {
                return Err(ApiError::invalid_body(format!(
                    "definition.parts[{i}].payloadType must be InlineBase64, got {}",
                    other.unwrap_or("nothing")
                )));
            }
        }
        if paths::problem(path).is_some() {
            return Err(corrupted(format!("Invalid part path '{path}'")));
        }
        let bytes = shared::decode_payload(payload)
            .map_err(|_| corrupted(format!("The payload of part '{path}' is not valid base64")))?;
        if path == platform::PATH {
            platform = Some(
                platform::parse(&bytes)
                    .map_err(|e| corrupted(format!("The .platform part is not valid: {e}")))?,
            );
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

/// Refuses a definition that would leave the item without the parts its type needs: no parts
/// at all (besides `.platform`), or without a required part — the same rule as the client's
/// `validate-definition` (`fabsh_model::definition::validate::missing_required_parts`). The
/// service refuses both (updateDefinition would otherwise wipe the item); its answer is not
/// recorded, so this is `400 CorruptedPayload`, the code the swagger's createItem and
/// updateItemDefinition list for a bad definition, with a message naming the missing parts.
/// Data agents are left to their own checks (`agents::from_parts`; the service drops an
/// agent part set without `data_agent.json` silently).
pub(crate) fn check_required_parts(
    item_type: &str,
    definition: &Definition,
) -> Result<(), ApiError> {
    if item_type.eq_ignore_ascii_case("DataAgent") {
        return Ok(());
    }
    if definition.parts.is_empty() {
        return Err(corrupted(format!(
            "The definition has no parts; a {item_type} definition needs its content parts"
        )));
    }
    let paths: Vec<&str> = definition.parts.iter().map(|p| p.path.as_str()).collect();
    let missing =
        shared::validate::missing_required_parts(item_type, definition.format.as_deref(), &paths);
    if missing.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = missing
        .iter()
        .map(|f| format!("{}: {}", f.path.as_deref().unwrap_or(""), f.message))
        .collect();
    Err(corrupted(format!(
        "The definition lacks required parts ({})",
        lines.join("; ")
    )))
}

/// The logical id a new item takes from a `.platform`: a GUID other than the all-zero one,
/// which means "none" (the service's getDefinition writes it), so the item gets a fresh one.
pub(crate) fn given_logical_id(platform: Option<&PlatformMeta>) -> Option<String> {
    platform
        .and_then(|p| p.logical_id.as_deref())
        .filter(|id| uuid::Uuid::parse_str(id).is_ok_and(|u| !u.is_nil()))
        .map(str::to_ascii_lowercase)
}

/// The `.platform` part Fabric returns with every definition.
pub(crate) fn platform_part(item: &Item) -> Part {
    Part {
        path: platform::PATH.to_string(),
        payload: platform::render(
            &item.item_type,
            &item.display_name,
            item.description.as_deref(),
            &item.logical_id,
        ),
    }
}

/// The getDefinition answer `{"definition": {format?, parts}}`, `.platform` last as the
/// service orders it. Its `config.logicalId` is the item's logical id when one was set (at
/// creation from a `.platform`, by updateLogicalId, by a bulk import), else the all-zero
/// GUID, as in every recorded getDefinition of an item made without one (recordings/
/// fabric-cli export, import and set): creating an item from such a definition (export →
/// import, copy) gives the new item none either. bulkExportDefinitions writes an id for every
/// item (see `bulk_export`).
pub(crate) fn to_wire(format: Option<&str>, item: &Item, parts: &[Part]) -> DefinitionResponse {
    let platform = platform_part(item);
    let parts = parts
        .iter()
        .chain(std::iter::once(&platform))
        .map(|part| DefinitionPart::inline(&part.path, &part.payload))
        .collect();
    DefinitionResponse {
        definition: wire::Definition {
            format: format.map(str::to_string),
            parts,
            extra: Map::new(),
        },
    }
}

/// The type's spelling of a requested `format`, or `400 InvalidDefinitionFormat` when the
/// type does not name it. Checked before an operation is started.
pub(crate) fn check_format(item_type: &str, requested: &str) -> Result<&'static str, ApiError> {
    item_types::find(item_type)
        .and_then(|t| t.parts)
        .and_then(|rules| {
            rules
                .formats
                .iter()
                .find(|f| f.eq_ignore_ascii_case(requested))
        })
        .copied()
        .ok_or_else(|| {
            invalid_format(format!(
                "The requested item definition format '{requested}' is invalid for {item_type}"
            ))
        })
}

/// Whether the parts already have the layout of `format` (its required parts are present).
fn fits(rules: &PartRules, format: &str, parts: &[Part]) -> bool {
    rules
        .required
        .iter()
        .filter(|r| r.when_format == Some(format))
        .all(|r| {
            r.any_of.iter().any(|pattern| {
                parts
                    .iter()
                    .any(|p| item_types::path_matches(pattern, &p.path))
            })
        })
}

/// The one format whose layout the parts have, when exactly one fits (bulk imports carry no
/// `format`, so it is read off the parts).
pub(crate) fn infer_format(item_type: &str, parts: &[Part]) -> Option<String> {
    let rules = item_types::find(item_type)?.parts?;
    let mut fitting = rules
        .formats
        .iter()
        .filter(|format| fits(rules, format, parts));
    match (fitting.next(), fitting.next()) {
        (Some(one), None) => Some(one.to_string()),
        _ => None,
    }
}

/// The stored definition in the requested format: as stored when it already has that
/// layout; notebooks convert between `fabricGitSource` and `ipynb`; anything else is refused.
pub(crate) fn in_format(
    item: &Item,
    parts: Vec<Part>,
    requested: Option<&str>,
) -> Result<(Option<String>, Vec<Part>), ApiError> {
    let Some(requested) = requested else {
        return Ok((item.definition_format.clone(), parts));
    };
    let format = check_format(&item.item_type, requested)?;
    let rules = item_types::find(&item.item_type).and_then(|t| t.parts);
    if rules.is_some_and(|rules| fits(rules, format, &parts)) {
        return Ok((Some(format.to_string()), parts));
    }
    if item.item_type == "Notebook" {
        return convert_notebook(parts, format).map(|parts| (Some(format.to_string()), parts));
    }
    Err(invalid_format(format!(
        "Local Fabric cannot convert this {} definition to {format}",
        item.item_type
    )))
}

fn convert_notebook(mut parts: Vec<Part>, format: &str) -> Result<Vec<Part>, ApiError> {
    let (from, to): (&[&str], &str) = if format == "ipynb" {
        (&[notebook::SOURCE_PATH], notebook::IPYNB_PATH)
    } else {
        (
            &[notebook::IPYNB_PATH, "artifact.content.ipynb"],
            notebook::SOURCE_PATH,
        )
    };
    let index = parts
        .iter()
        .position(|p| from.contains(&p.path.as_str()))
        .ok_or_else(|| invalid_format("Local Fabric converts only Python notebooks"))?;
    let text = String::from_utf8(parts[index].payload.clone())
        .map_err(|_| invalid_format("The notebook is not UTF-8 text"))?;
    let converted = if format == "ipynb" {
        notebook::source_to_ipynb(&text)
    } else {
        notebook::ipynb_to_source(&text)
    }
    .map_err(|e| invalid_format(format!("The notebook cannot be converted to {format}: {e}")))?;
    parts[index] = Part {
        path: to.to_string(),
        payload: converted.into_bytes(),
    };
    Ok(parts)
}

fn text_part(path: &str, text: &str) -> Part {
    Part {
        path: path.to_string(),
        payload: text.as_bytes().to_vec(),
    }
}

/// The notebook an empty `Notebook` starts as, in the fabricGitSource layout.
pub(crate) const EMPTY_NOTEBOOK: &str = "# Fabric notebook source

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
pub(crate) const DATA_AGENT_SCHEMA: &str = "https://developer.microsoft.com/json-schemas/fabric/item/dataAgent/definition/dataAgent/2.1.0/schema.json";
/// Schema of `Files/Config/draft/stage_config.json`.
pub(crate) const STAGE_CONFIG_SCHEMA: &str = "https://developer.microsoft.com/json-schemas/fabric/item/dataAgent/definition/stageConfiguration/1.0.0/schema.json";

/// Parts a new item of this type gets when created without a definition.
pub(crate) fn default_parts(item_type: &str, creation_payload: Option<&Value>) -> Vec<Part> {
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
        "SparkJobDefinition" => vec![text_part(
            "SparkJobDefinitionV1.json",
            &pretty(&json!({
                "executableFile": null,
                "defaultLakehouseArtifactId": null,
                "mainClass": null,
                "additionalLakehouseIds": [],
                "retryPolicy": null,
                "commandLineArguments": null,
                "additionalLibraryUris": [],
                "language": null,
                "environmentArtifactId": null
            })),
        )],
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
pub(crate) fn pretty(value: &Value) -> String {
    // `{:#}` is a `Value`'s pretty form, which it always has (its map keys are strings).
    format!("{value:#}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire_part(path: &str, payload: &str) -> Value {
        json!({"path": path, "payload": payload, "payloadType": "InlineBase64"})
    }

    #[test]
    fn parses_parts_and_platform() {
        let platform = shared::encode_payload(
            br#"{"metadata":{"displayName":"N"},"config":{"logicalId":"abc"}}"#,
        );
        let def = parse(&json!({"format": "ipynb", "parts": [
            wire_part("notebook-content.ipynb", &shared::encode_payload(b"{}")),
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
