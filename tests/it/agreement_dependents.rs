//! Items deleted with the item they were made for (a digital twin builder's flows, an
//! eventhouse's KQL databases), as the service's recordings (vendored under
//! tests/fixtures/fabric-cli-recordings) show.

use crate::agreement_routes::recorded_interaction;
use crate::agreement_shared_names::created_id;
use crate::service_bodies::{call, get_json};
use crate::support::Server;
use serde_json::{Value, json};

/// The display names of a listing's items of a type.
fn named(listing: &Value, item_type: &str) -> Vec<String> {
    listing["value"]
        .as_array()
        .expect("a listing")
        .iter()
        .filter(|item| item["type"] == item_type)
        .map(|item| item["displayName"].as_str().expect("a name").to_string())
        .collect()
}

/// The display names of a listing's digital twin builder flows.
fn flows(listing: &Value) -> Vec<String> {
    named(listing, "DigitalTwinBuilderFlow")
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

/// The service deleted the eventhouse alone (2025-09-03) and listed none of its KQL databases
/// next.
#[test]
fn an_eventhouse_takes_its_kql_databases_with_it() {
    let file =
        "mkdir__test_mkdir_kqldatabase_without_creation_payload_success__delete_eventhouse.yaml";
    let create_eventhouse = recorded_interaction(file, 0);
    let create_database = recorded_interaction(file, 1);
    let before = recorded_interaction(file, 2);
    let delete = recorded_interaction(file, 3);
    let after = recorded_interaction("mkdir__test_mkdir_onelake_success__listing.yaml", 0);
    // The recordings' own evidence: the database before the eventhouse's deletion, none after.
    assert!(named(&before.answer, "KQLDatabase").contains(&"fabcli000001".to_string()));
    assert_eq!(named(&after.answer, "KQLDatabase"), Vec::<String>::new());

    let server = Server::session(module_path!());
    let workspace = server.demo_path("");
    let request = create_eventhouse.request.expect("a create's body");
    let (status, head, answer) = call(
        &server,
        "POST",
        &format!("{workspace}/eventhouses"),
        Some(&request),
    );
    assert_eq!(u64::from(status), create_eventhouse.status, "{answer}");
    let eventhouse = created_id(&server, status, &head, &answer);

    // The database as recorded, made for this eventhouse.
    let mut request = create_database.request.expect("a create's body");
    request["creationPayload"]["parentEventhouseItemId"] = eventhouse.clone().into();
    let (status, head, answer) = call(
        &server,
        "POST",
        &format!("{workspace}/kqlDatabases"),
        Some(&request),
    );
    assert_eq!(u64::from(status), create_database.status, "{answer}");
    created_id(&server, status, &head, &answer);
    let listed = get_json(&server, &format!("{workspace}/items"));
    assert!(
        named(&listed, "KQLDatabase").contains(&"fabcli000001".to_string()),
        "{listed}"
    );

    let path = format!("{workspace}/items/{eventhouse}");
    let (status, _, answer) = call(&server, "DELETE", &path, None);
    assert_eq!(u64::from(status), delete.status, "{answer}");
    let listed = get_json(&server, &format!("{workspace}/items"));
    let left: Vec<String> = named(&listed, "KQLDatabase")
        .into_iter()
        .filter(|name| name.starts_with("fabcli"))
        .collect();
    assert_eq!(left, named(&after.answer, "KQLDatabase"), "{listed}");
}
