//! The configuration API's shapes (camelCase) made from the definition's documents
//! (snake_case element trees): settings, datasources, elements, few-shots.

use fabsh_model::agent::definition::{DataSourceDoc, ElementDoc, FewShotDoc};
use fabsh_model::agent::element_path;
use fabsh_model::agent::sources;
use serde_json::{Map, Value, json};
use sha1::{Digest, Sha1};

/// A datasource's configuration-API id: derived from the agent and the item it reads, so it is
/// the same in both stages and survives a definition round trip without being stored.
pub fn datasource_id(agent_id: &str, artifact_id: &str) -> String {
    let digest = Sha1::digest(format!("{agent_id}/{}", artifact_id.to_ascii_lowercase()));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_sha1_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// `GET settings`: `{aiInstructions, experimental}`, with the server-owned `mcpServers` key
/// the service adds to `experimental`.
pub fn settings(config: &Value) -> Value {
    let mut experimental = config
        .get("experimental")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    experimental
        .entry("mcpServers")
        .or_insert_with(|| json!([]));
    json!({
        "aiInstructions": config.get("aiInstructions").cloned().unwrap_or(Value::Null),
        "experimental": experimental,
    })
}

/// A datasource as lists show it.
pub fn datasource(agent_id: &str, doc: &DataSourceDoc) -> Value {
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
    map.insert("description".into(), json!(doc.description));
    map.insert("instructions".into(), json!(doc.instructions));
    let reference_key = if lakehouse {
        "lakehouseReference"
    } else {
        "itemReference"
    };
    map.insert(reference_key.into(), reference);
    Value::Object(map)
}

/// An element as the elements API shows it; `path` is its display path (its id's source).
pub fn element(doc: &ElementDoc, path: &[&str], state: &str) -> Value {
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
    map.insert("description".into(), json!(doc.description));
    map.insert("hasSubElements".into(), json!(!doc.children.is_empty()));
    map.insert("state".into(), json!(state));
    if let Some(index_state) = &doc.index_state {
        map.insert("indexState".into(), index_state.clone());
    }
    Value::Object(map)
}

/// A few-shot with its validation status.
pub fn fewshot(doc: &FewShotDoc, status: &str, reason: Option<&str>) -> Value {
    let mut validation = Map::new();
    validation.insert("value".into(), json!(status));
    if let Some(reason) = reason {
        validation.insert("reason".into(), json!(reason));
    }
    json!({
        "id": doc.id,
        "question": doc.question,
        "query": doc.query,
        "validationStatus": validation,
    })
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
