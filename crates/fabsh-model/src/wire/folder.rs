//! `Folder`: a workspace folder (a preview API).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A folder as lists, gets, creates and moves answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Folder {
    pub id: String,
    pub display_name: String,
    pub workspace_id: String,
    /// Absent at the workspace's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_folder_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CreateFolderRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateFolderRequest {
    pub display_name: String,
    /// `None`: at the workspace's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_folder_id: Option<String>,
}

/// `MoveItemRequest` and `MoveFolderRequest`: where an item or folder moves to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveRequest {
    /// `None` (sent as `{}`): the workspace's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_folder_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_to_the_root_sends_an_empty_object() {
        assert_eq!(
            serde_json::to_string(&MoveRequest::default()).unwrap(),
            "{}"
        );
        let into = MoveRequest {
            target_folder_id: Some("f1".into()),
        };
        assert_eq!(
            serde_json::to_string(&into).unwrap(),
            r#"{"targetFolderId":"f1"}"#
        );
    }

    #[test]
    fn a_recorded_folder_round_trips() {
        // recordings/fabric-cli/ls__test_ls_folder_content_success.yaml
        let root = r#"{"id":"f1","displayName":"fabcli000002","workspaceId":"w1"}"#;
        let folder: Folder = serde_json::from_str(root).unwrap();
        assert_eq!(folder.parent_folder_id, None);
        assert_eq!(serde_json::to_string(&folder).unwrap(), root);

        let nested = r#"{"id":"f2","displayName":"Sub","workspaceId":"w1","parentFolderId":"f1","color":"blue"}"#;
        let folder: Folder = serde_json::from_str(nested).unwrap();
        assert_eq!(folder.parent_folder_id.as_deref(), Some("f1"));
        assert_eq!(folder.extra["color"], "blue");
        assert_eq!(serde_json::to_string(&folder).unwrap(), nested);
    }
}
