//! Data-agent datasource creates (issue 14, item 11): local Fabric takes the swagger's own
//! example bodies of `Staging_CreateDatasource` (no `fabricItemType`: the type comes from the
//! referenced item) and answers as the swagger declares, in camelCase; fabsh's client also
//! reads the PascalCase answer the reference reports from the live service.

use crate::copy_move::id_of;
use crate::data_agent_wire::swagger;
use crate::data_agents::AgentFixture;
use crate::stub::Stub;
use crate::support::{Server, http};
use serde_json::{Value, json};

/// The request body of a vendored `Staging_CreateDatasource` example, its reference pointed
/// at `item` of `workspace` (the example's ids name items of Microsoft's example tenant);
/// nothing else changed.
fn example_body(example: &str, reference: &str, item: &str, workspace: &str) -> Value {
    let example = swagger(&format!("dataAgent/examples/{example}"));
    let mut body = example["parameters"]["createDataAgentDatasourceRequest"].clone();
    assert!(body.get("fabricItemType").is_none(), "{body}");
    body[reference]["itemId"] = json!(item);
    body[reference]["workspaceId"] = json!(workspace);
    body
}

/// POSTs a create to the fixture's agent, answered inline; returns status and JSON body.
fn create(fx: &AgentFixture, body: &Value) -> (u16, Value) {
    let auth = fx.server.bearer();
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let path = format!(
        "/v1/workspaces/{}/dataAgents/{}/staging/datasources",
        fx.workspace, fx.agent
    );
    let (status, text) = http(
        &fx.server.origin(),
        "POST",
        &path,
        Some(&body.to_string()),
        &headers,
    );
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

fn assert_camel_case(value: &Value) {
    for key in value.as_object().expect("object").keys() {
        assert!(
            key.starts_with(|c: char| c.is_ascii_lowercase()),
            "{key} in {value}"
        );
    }
}

#[test]
fn the_swagger_example_bodies_are_accepted_and_answered_in_camel_case() {
    // CreateDataAgentDatasourceRequest declares type, itemReference and lakehouseReference
    // only: no fabricItemType.
    let request = swagger("dataAgent/definitions.json")["definitions"]
        ["CreateDataAgentDatasourceRequest"]["properties"]
        .clone();
    assert!(request.get("fabricItemType").is_none(), "{request}");
    let fx = AgentFixture::on(Server::session_with(
        module_path!(),
        &[("async-ratio", "0")],
    ));
    let lakehouse = fx.server.demo_lakehouse();
    let body = example_body(
        "CreateStagingDataAgentDatasource.json",
        "lakehouseReference",
        &id_of(&lakehouse),
        &fx.workspace,
    );
    let (status, created) = create(&fx, &body);
    assert_eq!(status, 201, "{created}");
    // LakehouseTablesDatasource: id, type, lakehouseReference, in the example's casing.
    assert_camel_case(&created);
    assert_eq!(created["type"], "LakehouseTables", "{created}");
    assert_eq!(created["lakehouseReference"], body["lakehouseReference"]);
    assert!(created["id"].is_string(), "{created}");

    // The warehouse example names its item as a FabricItem without saying its type: the
    // answer's fabricItemType (required by FabricItemDatasource) is the referenced item's.
    let warehouse = fx.server.create_demo_item("Store", "Warehouse");
    let body = example_body(
        "CreateStagingDataAgentWarehouseDatasource.json",
        "itemReference",
        &warehouse,
        &fx.workspace,
    );
    let (status, created) = create(&fx, &body);
    assert_eq!(status, 201, "{created}");
    assert_camel_case(&created);
    assert_eq!(created["type"], "FabricItem", "{created}");
    assert_eq!(created["fabricItemType"], "Warehouse", "{created}");
    assert_eq!(created["itemReference"], body["itemReference"]);
}

/// Every object key with its first letter upper-case, as the reference (data-agent.md §3
/// "Live behaviour") reports the live service's datasource creates.
fn pascal(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let mut chars = key.chars();
                    let first = chars.next().map(|c| c.to_ascii_uppercase());
                    (first.into_iter().chain(chars).collect(), pascal(value))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(pascal).collect()),
        other => other,
    }
}

#[test]
fn the_client_reads_a_pascal_case_create_answer() {
    let fx = AgentFixture::on(Server::session_with(
        module_path!(),
        &[("async-ratio", "0")],
    ));
    let proxy = Stub::reshaping_proxy(&fx.server.origin(), |method, path, body| {
        if method == "POST" && path.ends_with("/staging/datasources") {
            pascal(body)
        } else {
            body
        }
    });
    let run = fx.server.fabsh_env(
        &[
            "data-agent",
            "add-datasource",
            "-w",
            &fx.workspace,
            "--id",
            &fx.agent,
            "--artifact",
            "SalesLakehouse",
        ],
        &[("FABSH_ENDPOINT", proxy.endpoint.as_str())],
    );
    let added = run.ok_json();
    assert_eq!(added["displayName"], "SalesLakehouse", "{added}");
    assert_eq!(added["type"], "LakehouseTables", "{added}");
    assert!(added["id"].is_string(), "{added}");
    assert!(added.get("Id").is_none(), "{added}");
    // Read from the create's own answer: the client did not list the datasources after it
    // (what it does when an answer names no id).
    let log = fx.server.requests()["requests"]
        .as_array()
        .expect("log")
        .clone();
    let is_sources = |r: &Value| {
        r["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("/staging/datasources"))
    };
    let created_at = log
        .iter()
        .position(|r| r["method"] == "POST" && is_sources(r))
        .expect("the create");
    assert!(
        !log[created_at..]
            .iter()
            .any(|r| r["method"] == "GET" && is_sources(r)),
        "{log:?}"
    );
}
