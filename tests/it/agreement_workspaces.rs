//! A workspace's PATCH answers the swagger's `Workspace` (platform `Workspaces_UpdateWorkspace`),
//! and a workspace without a capacity reads as GET answered it, as the service's recordings
//! (vendored under tests/fixtures/fabric-cli-recordings) show.

use crate::agreement_routes::{keys, recorded_interaction};
use crate::service_bodies::call;
use crate::support::shared;
use serde_json::Value;

/// The service answered a PATCH (2025-12-31) with the workspace as a create answers it, not
/// as GET does (no `capacityAssignmentProgress` or `oneLakeEndpoints`); a create's answer
/// has since gained `description` and `capacityRegion` (2026-07-20, the newest recorded),
/// which local Fabric's PATCH answers too.
#[test]
fn a_workspace_update_answers_the_workspace_as_a_create_does() {
    let update = recorded_interaction(
        "set__test_set_workspace_metadata_successdescription__patch.yaml",
        0,
    );
    let create = recorded_interaction(
        "bulk_export__test_bulk_export_and_deploy_round_trip__create_workspace.yaml",
        0,
    );
    let server = shared(module_path!());
    let mut request = create.request.expect("a create's body");
    request["displayName"] = "Recorded update".into();
    let (status, _, made) = call(server, "POST", "/v1/workspaces", Some(&request));
    assert_eq!(u64::from(status), create.status, "{made}");
    let made: Value = serde_json::from_str(&made).expect("the workspace");
    assert_eq!(keys(&made), keys(&create.answer), "{made}");

    let path = format!("/v1/workspaces/{}", made["id"].as_str().expect("id"));
    let sent = update.request.expect("a PATCH body");
    let (status, _, answer) = call(server, "PATCH", &path, Some(&sent));
    assert_eq!(u64::from(status), update.status, "{answer}");
    let ours: Value = serde_json::from_str(&answer).expect("the workspace");
    for key in keys(&update.answer) {
        assert!(
            ours.get(&key).is_some(),
            "{key} recorded, not answered: {ours}"
        );
    }
    assert_eq!(keys(&ours), keys(&create.answer), "{ours}");
    assert_eq!(ours["description"], update.answer["description"]);
}

/// A workspace made without a capacity reads as the service's did (2025-09): its assignment
/// `Completed`, no OneLake endpoints (they are its capacity region's); and the `description`
/// the service has answered since April 2026.
#[test]
fn a_workspace_without_a_capacity_reads_as_recorded() {
    let recorded = recorded_interaction(
        "mkdir__test_mkdir_workspace_no_capacity_success__get.yaml",
        0,
    );
    let server = shared(module_path!());
    let request = serde_json::json!({"displayName": "Recorded without capacity"});
    let (status, _, made) = call(server, "POST", "/v1/workspaces", Some(&request));
    assert_eq!(status, 201, "{made}");
    let made: Value = serde_json::from_str(&made).expect("the workspace");
    let path = format!("/v1/workspaces/{}", made["id"].as_str().expect("id"));
    let (status, _, answer) = call(server, "GET", &path, None);
    assert_eq!(u64::from(status), recorded.status, "{answer}");
    let ours: Value = serde_json::from_str(&answer).expect("the workspace");
    let mut expected = keys(&recorded.answer);
    expected.push("description".to_string());
    expected.sort();
    assert_eq!(keys(&ours), expected, "{ours}");
    assert_eq!(
        ours["capacityAssignmentProgress"],
        recorded.answer["capacityAssignmentProgress"]
    );
}
