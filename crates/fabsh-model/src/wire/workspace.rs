//! `Workspace`: what workspace lists and creates answer. GET workspace answers the swagger's
//! `WorkspaceInfo`, which adds `capacityAssignmentProgress`, `oneLakeEndpoints`,
//! `workspaceIdentity` (and `tags` when applied): those ride in `extra`, read by nothing here.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    pub id: String,
    pub display_name: String,
    /// Left out by the service for some workspaces (recordings show both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `Workspace`, `Personal` or `AdminWorkspace` (open).
    #[serde(rename = "type")]
    pub kind: String,
    /// Absent without a capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_region: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `CreateWorkspaceRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateWorkspaceRequest {
    pub display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_workspaces_round_trip_with_what_get_adds() {
        // recordings/fabric-cli: a listed workspace without a description, and a GET.
        let listed = r#"{"id":"w1","displayName":"fabriccli_WorkspacePerTestclass_000001","type":"Workspace","capacityId":"c1"}"#;
        let ws: Workspace = serde_json::from_str(listed).unwrap();
        assert_eq!(ws.description, None);
        assert_eq!(ws.capacity_region, None);
        assert_eq!(serde_json::to_string(&ws).unwrap(), listed);

        let got = r#"{"id":"w1","displayName":"W","description":"","type":"Workspace","capacityId":"c1","capacityRegion":"West Europe","oneLakeEndpoints":{"blobEndpoint":"https://b","dfsEndpoint":"https://d"},"capacityAssignmentProgress":"Completed"}"#;
        let ws: Workspace = serde_json::from_str(got).unwrap();
        assert_eq!(ws.capacity_region.as_deref(), Some("West Europe"));
        assert_eq!(ws.extra["capacityAssignmentProgress"], "Completed");
        assert_eq!(serde_json::to_string(&ws).unwrap(), got);
    }
}
