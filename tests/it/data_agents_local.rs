//! Local Fabric's data-agent surface: loaded tables become elements, elements gone from the
//! live schema can be deleted (others cannot), creates answer as the swagger says, invalid few-shot
//! SQL is reported, and partial definition updates are merged into a whole set.

use crate::data_agents::AgentFixture;
use crate::support::http;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

fn element<'a>(rows: &'a Value, path: &str) -> &'a Value {
    rows.as_array()
        .expect("rows")
        .iter()
        .find(|row| row["path"] == path)
        .unwrap_or_else(|| panic!("no element {path} in {rows}"))
}

#[test]
fn loaded_tables_are_discovered_with_their_column_types() {
    let fx = AgentFixture::new(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let csv = dir.path().join("returns.csv");
    std::fs::write(&csv, "return_id,order_id,reason,refund,returned_on\n1,10,Damaged,49.5,2025-03-01\n2,11,Wrong size,24,2025-03-04\n").expect("write");
    let data_dir = fx.server.data_dir().to_string_lossy().into_owned();
    let loaded = fx
        .server
        .home
        .run(&[
            "local",
            "load-table",
            "-w",
            fx.server.demo.as_str(),
            "--lakehouse",
            "SalesLakehouse",
            "--table",
            "returns",
            "--file",
            &csv.to_string_lossy(),
            "--data-dir",
            &data_dir,
        ])
        .ok_json();
    assert_eq!(loaded["rows"], 2);
    fx.add_lakehouse();
    let rows = fx.ok("list-elements", &["--datasource", "SalesLakehouse"]);
    assert_eq!(element(&rows, "dbo.returns")["type"], "Table");
    assert_eq!(element(&rows, "dbo.sales_by_country")["type"], "View");
    let refund = element(&rows, "dbo.returns.refund");
    assert_eq!(refund["type"], "Column");
    assert_eq!(refund["state"], "Available");
    // Through the running server (FABSH_ENDPOINT) as well.
    let again = fx.server.fabsh(&[
        "local",
        "load-table",
        "-w",
        fx.server.demo.as_str(),
        "--lakehouse",
        "SalesLakehouse",
        "--table",
        "returns",
        "--file",
        &csv.to_string_lossy(),
    ]);
    assert_eq!(again.ok_json()["table"], "returns");
}

#[test]
fn a_bad_csv_is_refused_before_the_lakehouse_is_looked_for() {
    let fx = AgentFixture::new(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let csv = dir.path().join("ragged.csv");
    std::fs::write(&csv, "id,name\n1,a\n2\n").expect("write");
    let csv = csv.to_string_lossy().into_owned();
    let data_dir = fx.server.data_dir().to_string_lossy().into_owned();
    let args = |table: &'static str| {
        vec![
            "local",
            "load-table",
            "-w",
            fx.server.demo.as_str(),
            "--lakehouse",
            "NoSuchLakehouse",
            "--table",
            table,
            "--file",
            csv.as_str(),
        ]
    };
    // Straight on the data dir, and through the running server (FABSH_ENDPOINT).
    let mut on_store = args("t");
    on_store.extend(["--data-dir", data_dir.as_str()]);
    for run in [fx.server.home.run(&on_store), fx.server.fabsh(&args("t"))] {
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("--file") && run.stderr.contains("line 3"),
            "{}",
            run.stderr
        );
    }
    let bad_table = fx.server.fabsh(&args("1st"));
    assert_eq!(bad_table.code, 2, "{}", bad_table.stderr);
    assert!(bad_table.stderr.contains("--table"), "{}", bad_table.stderr);
}

#[test]
fn only_elements_gone_from_the_live_schema_can_be_deleted() {
    let fx = AgentFixture::new(module_path!());
    fx.add_lakehouse();
    // Add a table the lakehouse does not have, through the definition.
    let definition = fx.ok("get-definition", &["--decode"]);
    let part = definition["definition"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .find(|p| {
            p["path"]
                .as_str()
                .expect("path")
                .ends_with("datasource.json")
        })
        .expect("datasource part")
        .clone();
    let mut datasource: Value =
        serde_json::from_str(part["decodedPayload"].as_str().expect("text")).expect("json");
    let tables = &mut datasource["elements"][0]["children"][0]["children"][0]["children"];
    tables.as_array_mut().expect("tables").push(json!({
        "id": null, "is_selected": true, "display_name": "legacy_orders",
        "type": "lakehouse_tables.table", "description": null, "children": []
    }));
    let changed = json!({"parts": [{
        "path": part["path"],
        "payload": STANDARD.encode(datasource.to_string()),
        "payloadType": "InlineBase64",
    }]});
    let updated = fx.run("update-definition", &["--content", &changed.to_string()]);
    assert_eq!(updated.code, 0, "{}", updated.stderr);
    assert!(updated.stderr.contains("merged"), "{}", updated.stderr);

    let rows = fx.ok("list-elements", &["--datasource", "SalesLakehouse"]);
    let legacy = element(&rows, "dbo.legacy_orders");
    assert_eq!(legacy["state"], "NotAvailable");
    let orders = element(&rows, "dbo.orders")["id"]
        .as_str()
        .expect("id")
        .to_string();
    let refused = fx.run(
        "delete-element",
        &[
            "--datasource",
            "SalesLakehouse",
            "--element-id",
            &orders,
            "--yes",
        ],
    );
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("ElementStillAvailable") && refused.stderr.contains("hint:"),
        "{}",
        refused.stderr
    );
    let legacy_id = legacy["id"].as_str().expect("id").to_string();
    let deleted = fx.run(
        "delete-element",
        &[
            "--datasource",
            "SalesLakehouse",
            "--element-id",
            &legacy_id,
            "--yes",
        ],
    );
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    let rows = fx.ok("list-elements", &["--datasource", "SalesLakehouse"]);
    assert!(!rows.to_string().contains("legacy_orders"));
}

#[test]
fn the_wire_matches_the_service() {
    let fx = AgentFixture::new(module_path!());
    let lakehouse = fx.server.demo_item_id("Lakehouse");
    let auth = format!("Bearer {}", fx.server.token);
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let base = format!("/v1/workspaces/{}/dataAgents/{}", fx.workspace, fx.agent);
    let (status, body) = http(
        &fx.server.origin(),
        "GET",
        &format!("{base}/settings"),
        None,
        &headers,
    );
    assert_eq!(status, 404);
    assert!(body.contains("DataAgentNotPublished"), "{body}");
    let (status, body) = http(
        &fx.server.origin(),
        "GET",
        &format!("{base}/staging/settings"),
        None,
        &headers,
    );
    assert_eq!(status, 200);
    let settings: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(settings["experimental"]["mcpServers"], json!([]));
    // A lakehouse added as a FabricItem fails as it does live.
    let as_item = json!({"type": "FabricItem", "fabricItemType": "Warehouse",
        "itemReference": {"referenceType": "ById", "itemId": lakehouse, "workspaceId": fx.workspace}});
    let (status, body) = http(
        &fx.server.origin(),
        "POST",
        &format!("{base}/staging/datasources"),
        Some(&as_item.to_string()),
        &headers,
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("Failed to fetch schema"), "{body}");
    // The create's answer (through an operation here: the demo server answers LROs with 202)
    // gives the client the datasource's id.
    let created = fx.add_lakehouse();
    assert!(
        created.get("id").is_some(),
        "the client reads either casing: {created}"
    );
    let fewshot = fx.run(
        "add-fewshot",
        &[
            "--datasource",
            "SalesLakehouse",
            "--question",
            "Colours?",
            "--sql",
            "SELECT colour FROM products",
        ],
    );
    let fewshot = fewshot.ok_json();
    assert_eq!(fewshot["validationStatus"]["value"], "Validating");
    let listed = fx.ok("list-fewshots", &["--datasource", "SalesLakehouse"]);
    assert_eq!(listed[0]["validationStatus"]["value"], "Invalid");
    assert_eq!(
        listed[0]["validationStatus"]["reason"],
        "Invalid column name 'colour'"
    );
}

#[test]
fn semantic_models_are_discovered_from_their_tmdl() {
    let fx = AgentFixture::new(module_path!());
    let source = fx.ok("add-datasource", &["--artifact", "Sales Model"]);
    assert_eq!(source["fabricItemType"], "SemanticModel");
    let rows = fx.ok("list-elements", &["--datasource", "Sales Model"]);
    assert_eq!(element(&rows, "Orders")["selected"], false);
    assert_eq!(element(&rows, "Orders.Amount")["selected"], true);
    assert_eq!(element(&rows, "Orders.Total Sales")["type"], "Measure");
}
