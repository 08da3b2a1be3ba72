//! The configuration API's shapes (camelCase) made from the definition's documents
//! (snake_case element trees): settings, datasources, elements, few-shots.

use fabsh_model::agent::definition::{DataSourceDoc, ElementDoc, FewShotDoc};
use fabsh_model::agent::element_path;
use fabsh_model::agent::sources;
use serde_json::{Map, Value, json};
use sha1::{Digest, Sha1};

/// A datasource's configuration-API id: derived from the agent and the item it reads, so it is
/// the same in both stages and survives a definition round trip without being stored.
pub(crate) fn datasource_id(agent_id: &str, artifact_id: &str) -> String {
    let digest = Sha1::digest(format!("{agent_id}/{}", artifact_id.to_ascii_lowercase()));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_sha1_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// `GET settings`: `{aiInstructions, experimental}`, with the server-owned `mcpServers` key
/// the service adds to `experimental`.
pub(crate) fn settings(config: &Value) -> Value {
    let mut experimental = config
        .get("experimental")
        .and_then(Value::as_object)
        .cloned()
        // No experimental settings: the wire carries an empty object, as the service's does.
        .unwrap_or_default();
    experimental
        .entry("mcpServers")
        .or_insert_with(|| json!([]));
    let mut settings = json!({ "experimental": experimental });
    // An unset optional string is left out, as the swagger examples show, never `null`.
    if let Some(instructions) = config.get("aiInstructions").filter(|v| v.is_string()) {
        settings["aiInstructions"] = instructions.clone();
    }
    settings
}

/// A datasource as lists show it.
pub(crate) fn datasource(agent_id: &str, doc: &DataSourceDoc) -> Value {
    let kind = sources::by_definition_type(&doc.kind);
    let reference = json!({
        "referenceType": "ById",
        "itemId": doc.artifact_id,
        "workspaceId": doc.workspace_id,
    });
    let mut map = Map::new();
    map.insert(
        "id".into(),
        json!(datasource_id(agent_id, &doc.artifact_id)),
    );
    let lakehouse = kind.is_some_and(|k| k.api_type == "LakehouseTables");
    if lakehouse {
        map.insert("type".into(), json!("LakehouseTables"));
        // As observed live: a LakehouseTables datasource reports no fabricItemType.
        map.insert("fabricItemType".into(), Value::Null);
    } else {
        map.insert("type".into(), json!("FabricItem"));
        map.insert("fabricItemType".into(), json!(kind.map(|k| k.item_type)));
    }
    map.insert("displayName".into(), json!(doc.display_name));
    // Unset optional strings are left out (swagger examples), never `null`.
    insert_set(&mut map, "description", doc.description.as_deref());
    insert_set(&mut map, "instructions", doc.instructions.as_deref());
    let reference_key = if lakehouse {
        "lakehouseReference"
    } else {
        "itemReference"
    };
    map.insert(reference_key.into(), reference);
    Value::Object(map)
}

/// An element as the elements API shows it; `path` is its display path (its id's source).
pub(crate) fn element(doc: &ElementDoc, path: &[&str], state: &str) -> Value {
    let mut map = Map::new();
    map.insert("id".into(), json!(element_path::element_id(path)));
    map.insert("isSelected".into(), json!(doc.is_selected));
    map.insert("displayName".into(), json!(doc.display_name));
    map.insert(
        "type".into(),
        json!(element_path::api_element_type(&doc.kind)),
    );
    if let Some(data_type) = &doc.data_type {
        map.insert("dataType".into(), json!(data_type));
    }
    insert_set(&mut map, "description", doc.description.as_deref());
    map.insert("hasSubElements".into(), json!(!doc.children.is_empty()));
    map.insert("state".into(), json!(state));
    if let Some(index_state) = &doc.index_state {
        map.insert("indexState".into(), index_state.clone());
    }
    Value::Object(map)
}

/// A few-shot with its validation status.
pub(crate) fn fewshot(doc: &FewShotDoc, status: &str, reason: Option<&str>) -> Value {
    let mut validation = Map::new();
    validation.insert("value".into(), json!(status));
    if let Some(reason) = reason {
        validation.insert("reason".into(), json!(reason));
    }
    let mut map = Map::new();
    map.insert("id".into(), json!(doc.id));
    map.insert("question".into(), json!(doc.question));
    insert_set(&mut map, "query", doc.query.as_deref());
    map.insert("validationStatus".into(), Value::Object(validation));
    Value::Object(map)
}

/// Adds `key` when the optional string is set: the swagger types these as strings and its
/// examples leave unset ones out.
fn insert_set(map: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(value) = value {
        map.insert(key.into(), json!(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datasource_ids_are_stable_guids() {
        let a = datasource_id("agent", "ITEM");
        assert_eq!(a, datasource_id("agent", "item"));
        assert_ne!(a, datasource_id("other", "item"));
        assert!(uuid::Uuid::parse_str(&a).is_ok());
    }

    #[test]
    fn settings_carry_the_server_owned_key() {
        let wire = settings(&json!({"aiInstructions": "x", "experimental": {"a": 1}}));
        assert_eq!(
            wire,
            json!({"aiInstructions": "x", "experimental": {"a": 1, "mcpServers": []}})
        );
    }
}
