//! A digital twin builder's flows are deleted with it, as the service's recordings (vendored
//! under tests/fixtures/fabric-cli-recordings) show.

use crate::agreement_routes::recorded_interaction;
use crate::agreement_shared_names::created_id;
use crate::service_bodies::{call, get_json};
use crate::support::Server;
use serde_json::{Value, json};

/// The display names of a listing's digital twin builder flows.
fn flows(listing: &Value) -> Vec<String> {
    listing["value"]
        .as_array()
        .expect("a listing")
        .iter()
        .filter(|item| item["type"] == "DigitalTwinBuilderFlow")
        .map(|item| item["displayName"].as_str().expect("a name").to_string())
        .collect()
}

/// The service deleted the builder alone (2026-05-13) and listed none of its flows next.
#[test]
fn a_digital_twin_builder_takes_its_flows_with_it() {
    let file = "mkdir__test_mkdir_digitaltwinbuilderflow_without_creation_payload_success__delete_builder.yaml";
    let create_flow = recorded_interaction(file, 0);
    let before = recorded_interaction(file, 1);
    let delete = recorded_interaction(file, 2);
    let after = recorded_interaction(
        "mkdir__test_mkdir_dependency_creation_batched_output_digitaltwinbuilderflow_success__listing.yaml",
        0,
    );
    // The recordings' own evidence: flows before the builder's deletion, none after.
    assert!(flows(&before.answer).contains(&"fabcli000001".to_string()));
    assert_eq!(flows(&after.answer), Vec::<String>::new());

    let server = Server::session(module_path!());
    let workspace = server.demo_path("");
    let workspace_id = workspace.rsplit('/').next().expect("an id").to_string();
    let builder = json!({"displayName": "TwinBuilder", "type": "DigitalTwinBuilder"});
    let (status, head, answer) = call(
        &server,
        "POST",
        &format!("{workspace}/digitalTwinBuilders"),
        Some(&builder),
    );
    assert_eq!(status, 202, "{answer}");
    let builder_id = created_id(&server, status, &head, &answer);

    // The flow as recorded, made for this builder.
    let mut request = create_flow.request.expect("a create's body");
    let reference = &mut request["creationPayload"]["digitalTwinBuilderItemReference"];
    reference["itemId"] = builder_id.clone().into();
    reference["workspaceId"] = workspace_id.into();
    let flows_path = format!("{workspace}/digitalTwinBuilderFlows");
    let (status, _, answer) = call(&server, "POST", &flows_path, Some(&request));
    assert_eq!(u64::from(status), create_flow.status, "{answer}");
    assert_eq!(
        flows(&get_json(&server, &format!("{workspace}/items"))),
        ["fabcli000001"]
    );

    let builder_path = format!("{workspace}/items/{builder_id}");
    let (status, _, answer) = call(&server, "DELETE", &builder_path, None);
    assert_eq!(u64::from(status), delete.status, "{answer}");
    let listed = get_json(&server, &format!("{workspace}/items"));
    assert_eq!(flows(&listed), flows(&after.answer), "{listed}");
    assert_eq!(get_json(&server, &flows_path)["value"], json!([]));
}
