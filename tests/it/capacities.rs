//! Capacities and a workspace's capacity assignment (issue 28, "What a deployment library
//! meets": fabric-cicd refuses a workspace without a capacity). Checked against the vendored
//! swagger (tests/fixtures/fabric-rest-api-specs, commit 4a7d6e4, MIT): platform.json's
//! `Capacity`, `Capacities` and `CapacityState`, and the examples of
//! `Capacities_ListCapacities`, `Capacities_GetCapacity`, `Workspaces_AssignToCapacity` and
//! `Workspaces_UnassignFromCapacity`; and against the recorded `GET /v1/capacities`
//! (recordings/fabric-cli/bulk_export__test_bulk_export_and_deploy_round_trip.yaml: region
//! "Central US", state "Active").

use crate::data_agent_wire::swagger;
use crate::service_bodies::{assert_shaped, call, get_json};
use crate::support::shared;
use serde_json::{Value, json};

fn definition(name: &str) -> Value {
    swagger("platform/definitions/platform.json")["definitions"][name].clone()
}

/// The swagger's `ErrorResponse` with the properties it takes from `ErrorResponseDetails`
/// (its `allOf`).
fn error_response() -> Value {
    let common = swagger("common/definitions.json")["definitions"].clone();
    let mut merged = common["ErrorResponse"].clone();
    let inherited = common["ErrorResponseDetails"]["properties"].clone();
    let properties = merged["properties"].as_object_mut().expect("properties");
    for (key, value) in inherited.as_object().expect("properties") {
        properties.insert(key.clone(), value.clone());
    }
    merged
}

fn example(name: &str) -> Value {
    swagger(&format!("platform/examples/platform/{name}.json"))
}

/// Checks one capacity against the swagger's `Capacity`, and its values against the
/// recorded capacity's region and the swagger's states.
fn assert_capacity(capacity: &Value) {
    assert_shaped(capacity, &definition("Capacity"), "Capacity");
    assert_eq!(capacity["region"], "Central US", "as recorded: {capacity}");
    let states = definition("CapacityState")["enum"].clone();
    assert!(
        states
            .as_array()
            .expect("states")
            .contains(&capacity["state"]),
        "{capacity}"
    );
    assert_eq!(capacity["state"], "Active", "{capacity}");
    let id = capacity["id"].as_str().expect("id");
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
}

/// A new workspace created without a capacity; its id.
fn workspace_without_capacity(name: &str) -> String {
    let server = shared(module_path!());
    let (status, _, body) = call(
        server,
        "POST",
        "/v1/workspaces",
        Some(&json!({"displayName": name})),
    );
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).expect("JSON");
    assert!(created.get("capacityId").is_none(), "{created}");
    created["id"].as_str().expect("id").to_string()
}

/// Capacities_ListCapacities: 200 with the swagger's `Capacities` (its example's keys), each
/// entry a `Capacity`; asked with a trailing slash it answers the same.
#[test]
fn capacities_are_listed_as_the_swagger_shows() {
    let server = shared(module_path!());
    let listed = get_json(server, "/v1/capacities");
    let example = &example("ListCapacities")["responses"]["200"]["body"];
    assert_shaped(&listed, &definition("Capacities"), "Capacities");
    let entries = listed["value"].as_array().expect("value");
    assert!(!entries.is_empty(), "one local capacity at least: {listed}");
    for entry in entries {
        assert_capacity(entry);
        let keys: Vec<_> = entry.as_object().expect("object").keys().collect();
        let example_keys: Vec<_> = example["value"][0]
            .as_object()
            .expect("example")
            .keys()
            .collect();
        let (mut a, mut b) = (keys, example_keys);
        a.sort();
        b.sort();
        assert_eq!(a, b, "{entry}");
    }
    // Other tests of this file assign capacities meanwhile: the local capacity, listed first,
    // is the same either way.
    let slashed = get_json(server, "/v1/capacities/");
    assert_eq!(slashed["value"][0], listed["value"][0], "{slashed}");

    // Capacities_GetCapacity: each listed capacity by id, as listed.
    let id = entries[0]["id"].as_str().expect("id");
    assert_eq!(
        get_json(server, &format!("/v1/capacities/{id}")),
        entries[0]
    );
    let (status, _, body) = call(
        server,
        "GET",
        "/v1/capacities/7d3a51f8-0000-4000-8000-000000000001",
        None,
    );
    assert_eq!(status, 404, "{body}");
    let error: Value = serde_json::from_str(&body).expect("JSON");
    assert_shaped(&error, &error_response(), "ErrorResponse");
}

/// Workspaces_AssignToCapacity then Workspaces_UnassignFromCapacity with the swagger
/// examples' bodies: 202 with no body each (the examples' `"202": {}`); the workspace then
/// shows the capacity (`capacityId`, `capacityRegion`, `capacityAssignmentProgress`) and the
/// capacity is listed; assigning again is a 202 too (idempotent [FABIO]); after unassigning
/// the workspace shows none, as recorded.
#[test]
fn a_workspace_is_assigned_to_a_capacity_and_unassigned() {
    let server = shared(module_path!());
    let ws = workspace_without_capacity("Capacity assignment");
    let assign = example("AssignWorkspaceToCapacity");
    assert_eq!(assign["responses"], json!({"202": {}}));
    let request = &assign["parameters"]["assignWorkspaceToCapacityRequest"];
    assert_shaped(
        request,
        &definition("AssignWorkspaceToCapacityRequest"),
        "AssignWorkspaceToCapacityRequest",
    );
    let capacity = request["capacityId"].as_str().expect("capacityId");
    let path = format!("/v1/workspaces/{ws}/assignToCapacity");
    for _ in 0..2 {
        let (status, _, body) = call(server, "POST", &path, Some(request));
        assert_eq!(status, 202, "{body}");
        assert_eq!(body, "", "no body");
    }
    let shown = get_json(server, &format!("/v1/workspaces/{ws}"));
    assert_eq!(shown["capacityId"], capacity, "{shown}");
    assert_eq!(shown["capacityRegion"], "Central US", "{shown}");
    assert_eq!(shown["capacityAssignmentProgress"], "Completed", "{shown}");
    let listed = get_json(server, "/v1/capacities");
    let entry = listed["value"]
        .as_array()
        .expect("value")
        .iter()
        .find(|c| c["id"] == capacity)
        .unwrap_or_else(|| panic!("{capacity} not listed: {listed}"))
        .clone();
    assert_capacity(&entry);
    assert_eq!(
        get_json(server, &format!("/v1/capacities/{capacity}")),
        entry
    );

    let unassign = example("UnassignWorkspaceFromCapacity");
    assert_eq!(unassign["responses"], json!({"202": {}}));
    let (status, _, body) = call(
        server,
        "POST",
        &format!("/v1/workspaces/{ws}/unassignFromCapacity"),
        None,
    );
    assert_eq!(status, 202, "{body}");
    assert_eq!(body, "", "no body");
    // As the service showed a workspace just unassigned (vendored recording, 2025-09): no
    // capacity, region or OneLake endpoints, its assignment `Completed`; and the
    // `description` the service has answered since April 2026.
    let shown = get_json(server, &format!("/v1/workspaces/{ws}"));
    let recorded = crate::agreement_routes::recorded_interaction(
        "unassign__test_unassign_capacity_workspace_success__get.yaml",
        0,
    );
    let mut expected = crate::agreement_routes::keys(&recorded.answer);
    expected.push("description".to_string());
    expected.sort();
    assert_eq!(crate::agreement_routes::keys(&shown), expected, "{shown}");
    assert_eq!(
        shown["capacityAssignmentProgress"],
        recorded.answer["capacityAssignmentProgress"]
    );
}

/// The request's `capacityId` is required and a uuid (swagger
/// `AssignWorkspaceToCapacityRequest`): without it, or malformed, a 400 `ErrorResponse`; an
/// unknown workspace is a 404 `WorkspaceNotFound`.
#[test]
fn an_assignment_without_a_capacity_id_or_workspace_is_refused() {
    let server = shared(module_path!());
    let ws = workspace_without_capacity("Capacity refusals");
    let path = format!("/v1/workspaces/{ws}/assignToCapacity");
    for body in [
        json!({}),
        json!({"capacityId": "not-a-uuid"}),
        json!({"capacityId": 4}),
    ] {
        let (status, _, text) = call(server, "POST", &path, Some(&body));
        assert_eq!(status, 400, "{body}: {text}");
        let error: Value = serde_json::from_str(&text).expect("JSON");
        assert_shaped(&error, &error_response(), "ErrorResponse");
    }
    let shown = get_json(server, &format!("/v1/workspaces/{ws}"));
    assert!(shown.get("capacityId").is_none(), "{shown}");
    let (status, _, text) = call(
        server,
        "POST",
        "/v1/workspaces/7d3a51f8-0000-4000-8000-000000000001/assignToCapacity",
        Some(&json!({"capacityId": "0f084df7-c13d-451b-af5f-ed0c466403b2"})),
    );
    assert_eq!(status, 404, "{text}");
    assert!(text.contains("WorkspaceNotFound"), "{text}");
}

/// "The caller must have *admin* workspace role" (both operations' swagger descriptions): a
/// Member is refused with a 403 `ErrorResponse`, and the workspace keeps no capacity.
#[test]
fn only_a_workspace_admin_assigns_or_unassigns() {
    let server = shared(module_path!());
    let ws = workspace_without_capacity("Capacity roles");
    let token = crate::support::principal_token(server, "capacity-member", &ws, "Member");
    let auth = format!("Bearer {token}");
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let (status, text) = crate::support::http(
        &server.origin(),
        "GET",
        &format!("/v1/workspaces/{ws}"),
        None,
        &headers,
    );
    assert_eq!(status, 200, "the Member sees the workspace: {text}");
    let body = json!({"capacityId": "0f084df7-c13d-451b-af5f-ed0c466403b2"}).to_string();
    for (action, body) in [
        ("assignToCapacity", Some(body.as_str())),
        ("unassignFromCapacity", None),
    ] {
        let (status, text) = crate::support::http(
            &server.origin(),
            "POST",
            &format!("/v1/workspaces/{ws}/{action}"),
            body,
            &headers,
        );
        assert_eq!(status, 403, "{action}: {text}");
        let error: Value = serde_json::from_str(&text).expect("JSON");
        assert_shaped(&error, &error_response(), "ErrorResponse");
    }
    let shown = get_json(server, &format!("/v1/workspaces/{ws}"));
    assert!(shown.get("capacityId").is_none(), "{shown}");
}
