//! `item inspect | list-connections` and the relations API, end to end against local Fabric.

use crate::copy_move::id_of;
use crate::support::Server;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

#[test]
fn relations_follow_a_report_bound_to_a_model() {
    let server = Server::session(module_path!());
    let model = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales Model",
        ])
        .ok_json();
    let model_id = id_of(&model);
    let pbir = json!({"version": "4.0", "datasetReference": {"byConnection": {"connectionString":
        format!("Data Source=powerbi://api.powerbi.com/v1.0/myorg/Demo;initial catalog=Sales Model;semanticmodelid={model_id}")}}});
    let definition = json!({"parts": [
        {"path": "definition.pbir", "payload": STANDARD.encode(pbir.to_string()), "payloadType": "InlineBase64"},
        {"path": "report.json", "payload": STANDARD.encode("{}"), "payloadType": "InlineBase64"},
    ]});
    let report = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Bound",
            "--type",
            "Report",
            "--definition",
            &definition.to_string(),
        ])
        .ok_json();
    let report_id = id_of(&report);
    let upstream = server
        .fabsh(&[
            "item",
            "list-upstream-relations",
            "-w",
            server.demo.as_str(),
            "--id",
            &report_id,
        ])
        .ok_json();
    assert!(
        upstream["relations"]
            .as_array()
            .expect("relations")
            .contains(&json!({
                "itemId": report_id, "dependentOnItemId": model_id, "relationType": "Datasource"
            })),
        "{upstream}"
    );
    assert_eq!(
        upstream["workspaces"][0]["displayName"],
        server.demo.as_str()
    );
    let downstream = server
        .fabsh(&[
            "item",
            "list-downstream-relations",
            "-w",
            server.demo.as_str(),
            "--id",
            &model_id,
        ])
        .ok_json();
    let dependents: Vec<&Value> = downstream["relations"]
        .as_array()
        .expect("relations")
        .iter()
        .map(|r| &r["itemId"])
        .collect();
    assert!(dependents.contains(&&json!(report_id)), "{downstream}");
    let items: Vec<&str> = downstream["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["id"].as_str())
        .collect();
    // Items_Get_Downstream_Relations (beta): `items` holds the related items, not the one
    // asked about (swagger example platform/examples/platform/GetUpstreamRelations.json).
    assert!(items.contains(&report_id.as_str()), "{downstream}");
    assert!(
        !items.contains(&model_id.as_str()),
        "the queried item is not listed: {downstream}"
    );

    let lakehouse = server.demo_lakehouse();
    let children = server
        .fabsh(&[
            "item",
            "list-downstream-relations",
            "-w",
            server.demo.as_str(),
            "--id",
            &id_of(&lakehouse),
        ])
        .ok_json();
    assert_eq!(children["relations"][0]["relationType"], "CascadeDelete");
}

#[test]
fn inspect_and_connections_show_what_an_item_uses() {
    let server = Server::session(module_path!());
    let inspected = server
        .fabsh(&[
            "item",
            "inspect",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales Model",
        ])
        .ok_json();
    assert_eq!(inspected["item"]["type"], "SemanticModel");
    assert!(
        inspected["definition"]["parts"]
            .as_array()
            .expect("parts")
            .len()
            > 1
    );
    assert_eq!(
        inspected["connections"][0]["connectionDetails"]["type"],
        "SQL"
    );
    let connections = server
        .fabsh(&[
            "item",
            "list-connections",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales Model",
        ])
        .ok_json();
    assert_eq!(connections, inspected["connections"]);

    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "WH",
            "--type",
            "Warehouse",
        ])
        .ok_json();
    let warehouse = server.fabsh(&["item", "inspect", "-w", server.demo.as_str(), "--id", "WH"]);
    let value = warehouse.ok_json();
    assert!(
        value["definition"].is_null() && value["connections"].is_null(),
        "{value}"
    );
    assert!(
        warehouse.stderr.contains("no definition"),
        "{}",
        warehouse.stderr
    );
    let refused = server.fabsh(&[
        "item",
        "list-connections",
        "-w",
        server.demo.as_str(),
        "--id",
        "WH",
    ]);
    assert!(
        refused.stderr.contains("OperationNotSupportedForItem"),
        "{}",
        refused.stderr
    );
}
