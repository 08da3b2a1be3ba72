//! `properties` on typed GETs as the service sends them (issue 28): warehouses as recorded
//! (get__test_get_item_query_all_successWarehouse.yaml, 2026-01), eventhouses, KQL databases,
//! mirrored databases and SQL databases per their swagger definitions and Get examples
//! (tests/fixtures/fabric-rest-api-specs, MIT), with values derived from the item; and every
//! entry of a per-type list carrying its type's properties.

use crate::data_agent_wire::swagger;
use crate::service_bodies::{assert_shaped, call, get_json, poll_to_success};
use crate::support::{Server, shared};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .cloned()
        .collect()
}

/// Creates an item through its per-type collection; returns its id (following a 202).
pub(crate) fn create(server: &Server, collection: &str, body: Value) -> String {
    let path = server.demo_path(&format!("/{collection}"));
    let (status, head, text) = call(server, "POST", &path, Some(&body));
    match status {
        201 => serde_json::from_str::<Value>(&text).expect("JSON")["id"]
            .as_str()
            .expect("id")
            .to_string(),
        202 => {
            poll_to_success(server, &head);
            let name = body["displayName"].as_str().expect("name");
            let list = get_json(server, &path);
            list["value"]
                .as_array()
                .expect("value")
                .iter()
                .find(|item| item["displayName"] == name)
                .and_then(|item| item["id"].as_str())
                .expect("the created item")
                .to_string()
        }
        _ => panic!("{status}: {text}"),
    }
}

/// The `properties` a typed GET answers.
pub(crate) fn properties(server: &Server, collection: &str, id: &str) -> Value {
    let item = get_json(server, &server.demo_path(&format!("/{collection}/{id}")));
    item["properties"].clone()
}

/// The example answer of a swagger `Get<Type>` operation.
pub(crate) fn example_properties(file: &str) -> Value {
    swagger(file)["responses"]["200"]["body"]["properties"].clone()
}

pub(crate) fn definition(file: &str, name: &str) -> Value {
    swagger(file)["definitions"][name].clone()
}

#[test]
fn a_warehouse_carries_the_recorded_properties() {
    let server = shared(module_path!());
    let recording = crate::replay::cassette("get__test_get_item_query_all_successWarehouse.yaml");
    let recorded = recording
        .interactions
        .iter()
        .filter(|i| i.request.method == "GET" && i.request.uri.contains("/warehouses/"))
        .filter_map(|i| i.response.body.string.as_deref())
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .find(|body| body["properties"].is_object())
        .expect("a recorded warehouse GET")["properties"]
        .clone();
    let id = create(
        server,
        "warehouses",
        json!({"displayName": "Recorded shape"}),
    );
    let answered = properties(server, "warehouses", &id);
    assert_eq!(keys(&answered), keys(&recorded), "{answered}");
    assert_eq!(answered["collationType"], "Latin1_General_100_BIN2_UTF8");
    assert_eq!(answered["creationMode"], recorded["creationMode"]);
    assert_eq!(answered["connectionInfo"], answered["connectionString"]);

    // The collation a creation payload asks for is the one answered (swagger `CollationType`).
    let insensitive = "Latin1_General_100_CI_AS_KS_WS_SC_UTF8";
    let collations = definition("warehouse/definitions.json", "CollationType");
    assert!(
        collations["enum"]
            .as_array()
            .expect("enum")
            .contains(&json!(insensitive))
    );
    let id = create(
        server,
        "warehouses",
        json!({"displayName": "Case blind", "creationPayload": {"collationType": insensitive}}),
    );
    assert_eq!(
        properties(server, "warehouses", &id)["collationType"],
        insensitive
    );
}

#[test]
fn an_eventhouse_and_its_kql_database_carry_their_swagger_properties() {
    let server = shared(module_path!());
    let eventhouse = create(server, "eventhouses", json!({"displayName": "Telemetry"}));
    let database = create(
        server,
        "kqlDatabases",
        json!({
            "displayName": "TelemetryDb",
            "creationPayload": {"databaseType": "ReadWrite", "parentEventhouseItemId": eventhouse},
        }),
    );
    let house = properties(server, "eventhouses", &eventhouse);
    assert_shaped(
        &house,
        &definition("eventhouse/definitions.json", "EventhouseProperties"),
        "EventhouseProperties",
    );
    assert_eq!(
        keys(&house),
        keys(&example_properties(
            "eventhouse/examples/GetEventhouse.json"
        ))
    );
    assert_eq!(house["databasesItemIds"], json!([database]));
    let query = house["queryServiceUri"].as_str().expect("queryServiceUri");
    // The service's shape, and nothing of this server's address, which changes on restart.
    assert!(
        query.starts_with("https://trd-")
            && query.ends_with(".kusto.fabric.microsoft.com")
            && !query.contains(&server.origin()),
        "{query}"
    );

    let db = properties(server, "kqlDatabases", &database);
    assert_shaped(
        &db,
        &definition("kqlDatabase/definitions.json", "KQLDatabaseProperties"),
        "KQLDatabaseProperties",
    );
    assert_eq!(
        keys(&db),
        keys(&example_properties(
            "kqlDatabase/examples/GetKQLDatabase.json"
        ))
    );
    assert_eq!(db["parentEventhouseItemId"], eventhouse);
    assert_eq!(db["databaseType"], "ReadWrite");
    assert_eq!(db["queryServiceUri"], house["queryServiceUri"]);
    assert_eq!(db["ingestionServiceUri"], house["ingestionServiceUri"]);
}

#[test]
fn mirrored_and_sql_databases_carry_their_swagger_properties() {
    let server = shared(module_path!());
    let mirroring = json!({"properties": {
        "source": {"type": "GenericMirror", "typeProperties": null},
        "target": {"type": "MountedRelationalDatabase",
                   "typeProperties": {"format": "Delta", "defaultSchema": "dbo"}},
    }});
    use base64::Engine;
    let payload = base64::engine::general_purpose::STANDARD.encode(mirroring.to_string());
    let mirrored = create(
        server,
        "mirroredDatabases",
        json!({"displayName": "Mirror", "definition": {"parts": [
            {"path": "mirroring.json", "payload": payload, "payloadType": "InlineBase64"}
        ]}}),
    );
    let answered = properties(server, "mirroredDatabases", &mirrored);
    assert_shaped(
        &answered,
        &definition(
            "mirroredDatabase/definitions.json",
            "MirroredDatabaseProperties",
        ),
        "MirroredDatabaseProperties",
    );
    assert_eq!(
        keys(&answered),
        keys(&example_properties(
            "mirroredDatabase/examples/GetMirroredDatabase.json"
        ))
    );
    assert_eq!(answered["defaultSchema"], "dbo");
    assert_eq!(
        answered["sqlEndpointProperties"]["provisioningStatus"],
        "Success"
    );

    let sql = create(server, "sqlDatabases", json!({"displayName": "Orders"}));
    let answered = properties(server, "sqlDatabases", &sql);
    // The swagger's keys; `connectionInfo`, which the service sends beside them, is checked
    // against the recording below.
    let mut declared = answered.clone();
    declared
        .as_object_mut()
        .expect("properties")
        .remove("connectionInfo");
    assert_shaped(
        &declared,
        &definition("sqlDatabase/definitions.json", "SQLDatabaseProperties"),
        "SQLDatabaseProperties",
    );
    let name = answered["databaseName"].as_str().expect("databaseName");
    assert!(
        name.starts_with("Orders-") && name.ends_with(&sql),
        "{name}"
    );
    let connection = answered["connectionString"]
        .as_str()
        .expect("connectionString");
    assert!(connection.contains(name), "{connection}");

    // And as recorded (get__test_get_item_query_all_successSQLDatabase.yaml): the same keys,
    // `connectionInfo` among them, and its connection written with the same keywords.
    let recording = crate::replay::cassette("get__test_get_item_query_all_successSQLDatabase.yaml");
    let recorded = recording
        .interactions
        .iter()
        .filter(|i| i.request.method == "GET" && i.request.uri.contains("/sqlDatabases/"))
        .filter_map(|i| i.response.body.string.as_deref())
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .find(|body| body["properties"].is_object())
        .expect("a recorded SQL database GET")["properties"]
        .clone();
    assert_eq!(keys(&answered), keys(&recorded), "{answered}");
    let keywords = |text: &Value| -> Vec<String> {
        text.as_str()
            .expect("connectionInfo")
            .split(';')
            .map(|pair| pair.split_once('=').expect("key=value").0.to_string())
            .collect()
    };
    assert_eq!(
        keywords(&answered["connectionInfo"]),
        keywords(&recorded["connectionInfo"])
    );
    let info = answered["connectionInfo"].as_str().expect("connectionInfo");
    assert!(info.contains(&format!("Initial Catalog={name}")), "{info}");
}

/// A schemathesis run found `GET /lakehouses` answering an entry without the required
/// `oneLakeTablesPath`: a page continued with a token of `/items`, whose pages hold every type.
#[test]
fn every_entry_of_a_typed_list_is_of_the_type_with_its_properties() {
    let server = Server::with(&[("page-size", "1")]);
    let items = server.demo_path("/items");
    let first = get_json(&server, &items);
    let token = first["continuationToken"].as_str().expect("a second page");
    let lakehouses = server.demo_path(&format!("/lakehouses?continuationToken={token}"));
    let (status, _, text) = call(&server, "GET", &lakehouses, None);
    if status == 200 {
        let page: Value = serde_json::from_str(&text).expect("JSON");
        for entry in page["value"].as_array().expect("value") {
            assert_eq!(entry["type"], "Lakehouse", "{entry}");
            assert!(
                entry["properties"]["oneLakeTablesPath"].is_string(),
                "{entry}"
            );
        }
    } else {
        assert_eq!(status, 400, "{text}");
    }
    // Paged on their own, every entry carries its properties.
    let mut path = server.demo_path("/lakehouses");
    let mut seen = 0;
    loop {
        let page = get_json(&server, &path);
        for entry in page["value"].as_array().expect("value") {
            assert_eq!(entry["type"], "Lakehouse", "{entry}");
            assert!(
                entry["properties"]["oneLakeTablesPath"].is_string(),
                "{entry}"
            );
            seen += 1;
        }
        match page["continuationToken"].as_str() {
            Some(token) => {
                path = server.demo_path(&format!("/lakehouses?continuationToken={token}"));
            }
            None => break,
        }
    }
    assert!(seen >= 1, "the Demo lakehouse");
}

/// The schemathesis finding again, with the types mixed as it found them: lakehouses among
/// items of other types (an OrgAppAudience first), pages of two, followed by the
/// `continuationUri` each page gives as clients do. Every entry is a lakehouse whose
/// `properties` are swagger `LakehouseProperties` (required `oneLakeTablesPath` and
/// `oneLakeFilesPath`), and every lakehouse is listed once.
#[test]
fn a_lakehouse_list_among_other_types_carries_each_lakehouses_properties() {
    let server = Server::with(&[("page-size", "2")]);
    let mut made = vec![];
    for (n, other) in ["OrgAppAudience", "Notebook", "Warehouse", "Eventhouse"]
        .iter()
        .enumerate()
    {
        server.create_demo_item(&format!("Other_{n}"), other);
        made.push(server.create_demo_item(&format!("Lake_{n}"), "Lakehouse"));
    }
    let shape = definition("lakehouse/definitions.json", "LakehouseProperties");
    let mut path = server.demo_path("/lakehouses");
    let mut seen = BTreeSet::new();
    loop {
        let page = get_json(&server, &path);
        for entry in page["value"].as_array().expect("value") {
            assert_eq!(entry["type"], "Lakehouse", "{entry}");
            assert_shaped(&entry["properties"], &shape, "LakehouseProperties");
            assert!(
                seen.insert(entry["id"].as_str().expect("id").to_string()),
                "listed twice: {entry}"
            );
        }
        match page["continuationUri"].as_str() {
            Some(uri) => path = crate::service_bodies::path_of(&server, uri),
            None => break,
        }
    }
    for id in &made {
        assert!(seen.contains(id), "{id} was not listed: {seen:?}");
    }
}
