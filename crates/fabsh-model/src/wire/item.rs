//! `Item`: what item lists, gets, creates, updates and moves answer (swagger `Item`; the
//! per-type collections add `properties`).

use super::Principal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An item as the service describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub id: String,
    /// The item type (an open enum: new types appear without notice).
    #[serde(rename = "type")]
    pub item_type: String,
    pub display_name: String,
    /// Left out by the service until early 2026, `""` since when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub workspace_id: String,
    /// Absent at the workspace's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<String>,
    /// Absent (not null) when no label is applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity_label: Option<SensitivityLabel>,
    /// Absent (not null, not empty) when the item has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<AppliedTag>>,
    /// The type's own properties (`LakehouseProperties`, ...), through the per-type
    /// collections only; their shapes are per type and open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<Map<String, Value>>,
    /// The identity the item acts as, with `include=DefaultIdentity` (when it has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_identity: Option<Principal>,
    /// Everything else (keys the service adds later).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `sensitivityLabel`: the applied label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensitivityLabel {
    pub id: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tag applied to an item or workspace, as `tags` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedTag {
    pub id: String,
    pub display_name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CreateItemRequest`: the body of an item create. Fields serialize in this order, the
/// order fabsh has always sent them in (a `--dry-run` plan shows the body).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateItemRequest {
    pub display_name: String,
    #[serde(rename = "type")]
    pub item_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `None`: the workspace's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity_label_settings: Option<SensitivityLabelSettings>,
    /// Per-type creation settings (open shapes), for types created without a definition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_payload: Option<Value>,
    /// The definition envelope `{format?, parts}`: the user's own content, passed as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
}

impl CreateItemRequest {
    /// A bare create: a name and a type, nothing else.
    pub fn new(display_name: impl Into<String>, item_type: impl Into<String>) -> Self {
        CreateItemRequest {
            display_name: display_name.into(),
            item_type: item_type.into(),
            description: None,
            folder_id: None,
            sensitivity_label_settings: None,
            creation_payload: None,
            definition: None,
        }
    }
}

/// What a per-type collection's create (`POST …/dataAgents`, `…/notebooks`, ...) takes: an
/// item create whose type the collection implies (`CreateDataAgentRequest`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTypedItemRequest {
    pub display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitivity_label_settings: Option<SensitivityLabelSettings>,
    /// The definition envelope, as with [`CreateItemRequest::definition`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
}

/// `SensitivityLabelSettings`: the label a create applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SensitivityLabelSettings {
    pub label_id: String,
}

/// `UpdateItemRequest`: what a PATCH of an item changes; a key left out is left as it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateItemRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_recorded_item_round_trips_with_keys_it_does_not_name() {
        // recordings/fabric-cli: a warehouse through its collection, plus a key of tomorrow.
        let text = r#"{"id":"a1","type":"Warehouse","displayName":"fabcli000001","workspaceId":"w1","properties":{"connectionString":"x.datawarehouse.fabric.microsoft.com","createdDate":"2025-09-02"},"attributes":[]}"#;
        let item: Item = serde_json::from_str(text).unwrap();
        assert_eq!(item.item_type, "Warehouse");
        assert_eq!(item.description, None);
        assert_eq!(item.folder_id, None);
        assert_eq!(item.extra["attributes"], json!([]));
        assert_eq!(serde_json::to_string(&item).unwrap(), text);
    }

    #[test]
    fn optional_keys_stay_absent_and_tags_and_labels_read() {
        let text = r#"{"id":"a1","type":"Notebook","displayName":"N","description":"","workspaceId":"w1","folderId":"f1","sensitivityLabel":{"id":"l1"},"tags":[{"id":"t1","displayName":"Gold"}]}"#;
        let item: Item = serde_json::from_str(text).unwrap();
        assert_eq!(item.folder_id.as_deref(), Some("f1"));
        assert_eq!(item.tags.as_ref().unwrap()[0].display_name, "Gold");
        assert_eq!(item.sensitivity_label.as_ref().unwrap().id, "l1");
        assert_eq!(serde_json::to_string(&item).unwrap(), text);

        let bare: Item = serde_json::from_value(json!({
            "id": "a1", "type": "Notebook", "displayName": "N", "workspaceId": "w1",
            "folderId": null,
        }))
        .unwrap();
        assert_eq!(bare.folder_id, None, "null is the root, as absent is");
        let back = serde_json::to_value(&bare).unwrap();
        assert!(back.get("tags").is_none() && back.get("folderId").is_none());
    }

    #[test]
    fn requests_leave_out_what_is_not_given() {
        let bare = CreateItemRequest::new("N", "Notebook");
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"displayName":"N","type":"Notebook"}"#
        );
        let full = CreateItemRequest {
            description: Some("d".into()),
            folder_id: Some("f1".into()),
            sensitivity_label_settings: Some(SensitivityLabelSettings {
                label_id: "l1".into(),
            }),
            definition: Some(json!({"parts": []})),
            ..bare
        };
        assert_eq!(
            serde_json::to_string(&full).unwrap(),
            r#"{"displayName":"N","type":"Notebook","description":"d","folderId":"f1","sensitivityLabelSettings":{"labelId":"l1"},"definition":{"parts":[]}}"#
        );
        let rename = UpdateItemRequest {
            display_name: Some("M".into()),
            description: None,
        };
        assert_eq!(
            serde_json::to_string(&rename).unwrap(),
            r#"{"displayName":"M"}"#
        );
    }

    #[test]
    fn an_item_without_its_required_keys_is_an_error() {
        let missing_id = json!({"type": "Notebook", "displayName": "N", "workspaceId": "w"});
        assert!(serde_json::from_value::<Item>(missing_id).is_err());
    }
}
