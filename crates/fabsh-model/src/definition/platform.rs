//! The `.platform` part: item metadata (`type`, `displayName`, `description`) and the
//! logical id (`config.logicalId`) that pairs an item across workspaces.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Path of the metadata part.
pub const PATH: &str = ".platform";

/// The logical id the service writes in the `.platform` of a getDefinition answer (every
/// recorded getDefinition), and tools write when they know none: "no logical id".
pub const UNSET_LOGICAL_ID: &str = "00000000-0000-0000-0000-000000000000";

/// Schema URL of the `.platform` format (version 2.0.0).
pub const SCHEMA: &str = "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json";

/// The fields of a `.platform` part that anything acts on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// `metadata.type`.
    #[serde(default)]
    pub item_type: Option<String>,
    /// `metadata.displayName`.
    pub display_name: Option<String>,
    /// `metadata.description`.
    pub description: Option<String>,
    /// `config.logicalId`.
    pub logical_id: Option<String>,
}

/// The part's JSON document; a UTF-8 byte-order mark (common from Windows editors) is skipped.
pub fn document(bytes: &[u8]) -> Result<Value, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(bytes)
        .map_err(|err| format!("the .platform part is not valid JSON: {err}"))
}

/// The fields of a `.platform` part.
pub fn parse(bytes: &[u8]) -> Result<Platform, String> {
    Ok(fields(&document(bytes)?))
}

/// The fields of a parsed `.platform` document; missing ones are `None`.
pub fn fields(doc: &Value) -> Platform {
    let text = |section: &str, key: &str| {
        doc.get(section)
            .and_then(|s| s.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Platform {
        item_type: text("metadata", "type"),
        display_name: text("metadata", "displayName"),
        description: text("metadata", "description"),
        logical_id: text("config", "logicalId"),
    }
}

/// What is wrong with a `.platform` document: `(is_error, message)` pairs. Errors break what
/// the service acts on (type, name, logical id); the rest of the schema gives warnings.
pub fn problems(doc: &Value) -> Vec<(bool, String)> {
    let mut found = Vec::new();
    if !doc.is_object() {
        found.push((true, "the .platform part must be a JSON object".to_string()));
        return found;
    }
    let platform = fields(doc);
    if platform
        .item_type
        .as_deref()
        .is_none_or(|t| t.trim().is_empty())
    {
        found.push((true, "metadata.type is missing".to_string()));
    }
    if platform
        .display_name
        .as_deref()
        .is_none_or(|n| n.trim().is_empty())
    {
        found.push((true, "metadata.displayName is missing".to_string()));
    }
    match platform.logical_id.as_deref() {
        None => found.push((true, "config.logicalId is missing".to_string())),
        Some(id) if uuid::Uuid::try_parse(id).is_err() => {
            found.push((true, format!("config.logicalId {id:?} is not a GUID")));
        }
        Some(_) => {}
    }
    if doc.get("$schema").and_then(Value::as_str).is_none() {
        found.push((false, "$schema is missing".to_string()));
    }
    if doc
        .get("config")
        .and_then(|c| c.get("version"))
        .and_then(Value::as_str)
        .is_none()
    {
        found.push((false, "config.version is missing".to_string()));
    }
    found
}

/// A `.platform` document for an item, as the service writes it (2-space indent).
pub fn render(
    item_type: &str,
    display_name: &str,
    description: Option<&str>,
    logical_id: &str,
) -> Vec<u8> {
    let mut metadata = Map::new();
    metadata.insert("type".into(), json!(item_type));
    metadata.insert("displayName".into(), json!(display_name));
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        metadata.insert("description".into(), json!(description));
    }
    let doc = json!({
        "$schema": SCHEMA,
        "metadata": metadata,
        "config": {"version": "2.0", "logicalId": logical_id},
    });
    // `{:#}` is the pretty form (2-space indent), which a `Value` always has.
    format!("{doc:#}").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_and_parse_agree() {
        let id = "8f1a1c0e-5b1e-4a57-9a3c-0f5c9b6e2d11";
        let bytes = render("Notebook", "N", Some("d"), id);
        let platform = parse(&bytes).expect("valid");
        assert_eq!(platform.item_type.as_deref(), Some("Notebook"));
        assert_eq!(platform.display_name.as_deref(), Some("N"));
        assert_eq!(platform.logical_id.as_deref(), Some(id));
        assert!(problems(&document(&bytes).expect("json")).is_empty());
    }

    #[test]
    fn schema_problems_are_split_into_errors_and_warnings() {
        let doc = json!({"metadata": {"type": "Notebook"}, "config": {"logicalId": "nope"}});
        let found = problems(&doc);
        assert!(found.iter().any(|(e, m)| *e && m.contains("displayName")));
        assert!(found.iter().any(|(e, m)| *e && m.contains("not a GUID")));
        assert!(found.iter().any(|(e, m)| !*e && m.contains("$schema")));
    }
}
