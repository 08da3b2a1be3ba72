//! Response bodies shaped as the service sends them (issue 14, item 9): items' empty
//! descriptions, per-type `properties`, workspaces' region and OneLake endpoints, retriable
//! 429s, updateDefinition's operation result, empty 200s and timestamps. Each test names the
//! recording (fabric-cli's, MIT, vendored under tests/recordings) or the vendored swagger
//! (tests/fixtures/fabric-rest-api-specs, commit 4a7d6e4, MIT) it follows.

use crate::copy_move::id_of;
use crate::data_agent_wire::swagger;
use crate::support::{Server, http, http_with_head};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// A raw request as the admin: (status, head, body).
pub(crate) fn call(
    server: &Server,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, String, String) {
    let auth = server.bearer();
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let body = body.map(Value::to_string);
    http_with_head(&server.origin(), method, path, body.as_deref(), &headers)
}

/// A raw GET's JSON answer, which must be a 200.
pub(crate) fn get_json(server: &Server, path: &str) -> Value {
    let (status, _, body) = call(server, "GET", path, None);
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
}

/// A header's value in a response head, by case-insensitive name.
pub(crate) fn header(head: &str, name: &str) -> Option<String> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().to_string())
    })
}

/// The path of an absolute URL on the server (`http://127.0.0.1:P/v1/...` → `/v1/...`).
pub(crate) fn path_of(server: &Server, url: &str) -> String {
    url.strip_prefix(&server.origin())
        .unwrap_or_else(|| panic!("{url} is not on {}", server.origin()))
        .to_string()
}

/// Polls the operation a 202's head points at until it has succeeded; returns the final
/// state's head and body.
pub(crate) fn poll_to_success(server: &Server, accepted_head: &str) -> (String, Value) {
    let location = header(accepted_head, "Location").expect("a 202 carries Location");
    let path = path_of(server, &location);
    for _ in 0..200 {
        let (status, head, body) = call(server, "GET", &path, None);
        assert_eq!(status, 200, "{body}");
        let state: Value = serde_json::from_str(&body).expect("operation state");
        match state["status"].as_str() {
            Some("Succeeded") => return (head, state),
            Some("NotStarted" | "Running") => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => panic!("operation ended {other:?}: {body}"),
        }
    }
    panic!("the operation at {path} never succeeded");
}

fn keys(object: &Value) -> BTreeSet<String> {
    object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"))
        .keys()
        .cloned()
        .collect()
}

/// The properties a swagger definition declares, and those it requires.
fn declared(definition: &Value) -> (BTreeSet<String>, BTreeSet<String>) {
    let required = definition["required"]
        .as_array()
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    (keys(&definition["properties"]), required)
}

/// Checks that `value` has every required key of `definition` and no key it does not declare.
pub(crate) fn assert_shaped(value: &Value, definition: &Value, what: &str) {
    let (all, required) = declared(definition);
    let present = keys(value);
    assert!(
        required.is_subset(&present),
        "{what} lacks {:?}: {value}",
        required.difference(&present).collect::<Vec<_>>()
    );
    assert!(
        present.is_subset(&all),
        "{what} has undeclared {:?}: {value}",
        present.difference(&all).collect::<Vec<_>>()
    );
}

/// The values of a swagger enum.
fn enum_values(definition: &Value) -> Vec<Value> {
    definition["enum"].as_array().expect("an enum").clone()
}

/// A timestamp as the service prints them: UTC, no zone suffix, up to seven fractional
/// digits with trailing zeros dropped. Recorded: `createdTimeUtc` "2025-09-02T19:38:15.1233511"
/// and "2025-12-31T14:28:28.557812" (set__test_set_item_report_definition_semantic_model_id_success.yaml),
/// `expirationTimeUtc` "2026-07-26T04:53:55.93" (ls__test_ls_external_data_shares_success.yaml),
/// warehouse `createdDate` (get__test_get_item_query_all_successWarehouse.yaml).
fn assert_service_timestamp(text: &Value) {
    let text = text
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {text}"));
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let shape: String = whole
        .chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { c })
        .collect();
    assert_eq!(shape, "9999-99-99T99:99:99", "{text}");
    assert!(
        fraction.len() <= 7 && fraction.chars().all(|c| c.is_ascii_digit()),
        "{text}"
    );
    assert!(
        !fraction.ends_with('0'),
        "trailing zeros are dropped: {text}"
    );
    assert!(!text.contains('.') || !fraction.is_empty(), "{text}");
}

fn demo_id(server: &Server) -> String {
    let path = server.demo_path("");
    path.trim_start_matches("/v1/workspaces/").to_string()
}

#[test]
fn items_without_a_description_carry_an_empty_one() {
    // Every recording since 2026-04 shows `description: ""` for items created without one,
    // on lists, GETs, synchronous 201s and LRO results alike
    // (bulk_export__test_bulk_export_and_deploy_round_trip.yaml, 2026-07: the notebook's
    // `/result`, the data pipeline's 201, the lists; import__..._successNotebook.yaml, GET).
    let server = Server::session_with(
        module_path!(),
        &[("async-ratio", "1"), ("retry-after-seconds", "0")],
    );
    let ws = demo_id(&server);
    let (status, head, body) = call(
        &server,
        "POST",
        &format!("/v1/workspaces/{ws}/notebooks"),
        Some(&json!({"displayName": "Plain", "type": "Notebook", "folderId": null})),
    );
    assert_eq!(status, 202, "{body}");
    let (done, _) = poll_to_success(&server, &head);
    let result_url = header(&done, "Location").expect("the state links its result");
    let created = get_json(&server, &path_of(&server, &result_url));
    assert_eq!(created["description"], json!(""), "{created}");
    let id = id_of(&created);
    let shown = get_json(&server, &format!("/v1/workspaces/{ws}/notebooks/{id}"));
    assert_eq!(shown["description"], json!(""), "{shown}");
    let listed = get_json(&server, &format!("/v1/workspaces/{ws}/items"));
    let entry = listed["value"]
        .as_array()
        .expect("value")
        .iter()
        .find(|item| item["id"] == json!(id))
        .expect("listed")
        .clone();
    assert_eq!(entry["description"], json!(""), "{entry}");
}

#[test]
fn per_type_gets_carry_the_swagger_properties() {
    let server = Server::session(module_path!());
    let ws = demo_id(&server);
    let lakehouse_defs = swagger("lakehouse/definitions.json")["definitions"].clone();
    let lakehouse = id_of(&server.demo_lakehouse());
    // Items_GetLakehouse: `properties` is LakehouseProperties, whose sqlEndpointProperties
    // names the lakehouse's SQL endpoint (lakehouse/examples/GetLakehouse.json).
    let got = get_json(
        &server,
        &format!("/v1/workspaces/{ws}/lakehouses/{lakehouse}"),
    );
    let properties = &got["properties"];
    assert_shaped(
        properties,
        &lakehouse_defs["LakehouseProperties"],
        "Lakehouse properties",
    );
    let sql = &properties["sqlEndpointProperties"];
    assert_shaped(
        sql,
        &lakehouse_defs["SqlEndpointProperties"],
        "sqlEndpointProperties",
    );
    assert!(
        enum_values(&lakehouse_defs["SqlEndpointProvisioningStatus"])
            .contains(&sql["provisioningStatus"]),
        "{sql}"
    );
    let endpoints = get_json(
        &server,
        &format!("/v1/workspaces/{ws}/items?type=SQLEndpoint"),
    );
    assert_eq!(
        sql["id"], endpoints["value"][0]["id"],
        "the lakehouse's own SQL endpoint"
    );
    for path in ["oneLakeTablesPath", "oneLakeFilesPath"] {
        let text = properties[path].as_str().expect(path);
        assert!(
            text.contains(&format!("/{ws}/{lakehouse}/")),
            "{path} is under the workspace and item: {text}"
        );
    }
    let generic = get_json(&server, &format!("/v1/workspaces/{ws}/items/{lakehouse}"));
    assert!(
        generic.get("properties").is_none(),
        "Items_GetItem's Item has no properties: {generic}"
    );

    // Items_GetWarehouse: WarehouseProperties, dates as the service prints them.
    let warehouse = server.create_demo_item("Store", "Warehouse");
    let got = get_json(
        &server,
        &format!("/v1/workspaces/{ws}/warehouses/{warehouse}"),
    );
    let definitions = swagger("warehouse/definitions.json")["definitions"].clone();
    // The service also sends `connectionInfo` and `creationMode`, which the swagger does not
    // declare (recorded 2026-01: get__test_get_item_query_all_successWarehouse.yaml).
    let mut declared = got["properties"].clone();
    for recorded_only in ["connectionInfo", "creationMode"] {
        declared
            .as_object_mut()
            .expect("properties")
            .remove(recorded_only);
    }
    assert_shaped(
        &declared,
        &definitions["WarehouseProperties"],
        "Warehouse properties",
    );
    assert_service_timestamp(&got["properties"]["createdDate"]);
    assert_service_timestamp(&got["properties"]["lastUpdatedTime"]);

    // Items_GetEnvironment: EnvironmentProperties with PublishDetails, once published.
    let environment = server.create_demo_item("Spark", "Environment");
    let (status, _, text) = call(
        &server,
        "POST",
        &format!("/v1/workspaces/{ws}/environments/{environment}/staging/publish"),
        None,
    );
    // Answered inline, as the newest recording does (agreement_routes pins the answer).
    assert_eq!(status, 200, "{text}");
    let got = get_json(
        &server,
        &format!("/v1/workspaces/{ws}/environments/{environment}"),
    );
    let definitions = swagger("environment/definitions.json")["definitions"].clone();
    assert_shaped(
        &got["properties"],
        &definitions["EnvironmentProperties"],
        "Environment properties",
    );
    let publish = &got["properties"]["publishDetails"];
    assert_shaped(publish, &definitions["PublishDetails"], "publishDetails");
    assert!(
        enum_values(&definitions["PublishDetails"]["properties"]["state"])
            .contains(&publish["state"]),
        "{publish}"
    );
    let listed = get_json(&server, &format!("/v1/workspaces/{ws}/environments"));
    assert_eq!(
        listed["value"][0]["properties"], got["properties"],
        "Items_ListEnvironments lists the same Environment objects"
    );
}

#[test]
fn workspaces_carry_their_capacity_region_and_onelake_endpoints() {
    let server = Server::session(module_path!());
    let (status, _, body) = call(
        &server,
        "POST",
        "/v1/workspaces",
        Some(
            &json!({"displayName": "Regional", "capacityId": "00000000-0000-0000-0000-000000000004"}),
        ),
    );
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).expect("workspace");
    // The recorded create and list answers carry capacityRegion, and GET workspace adds
    // oneLakeEndpoints {blobEndpoint, dfsEndpoint}
    // (bulk_export__test_bulk_export_and_deploy_round_trip.yaml), as WorkspaceInfo declares
    // (platform/definitions/platform.json).
    assert!(created["capacityRegion"].is_string(), "{created}");
    let id = id_of(&created);
    let shown = get_json(&server, &format!("/v1/workspaces/{id}"));
    let platform = swagger("platform/definitions/platform.json")["definitions"].clone();
    assert!(shown["capacityRegion"].is_string(), "{shown}");
    assert_shaped(
        &shown["oneLakeEndpoints"],
        &platform["OneLakeEndpoints"],
        "oneLakeEndpoints",
    );
    assert_eq!(
        keys(&shown["oneLakeEndpoints"]),
        keys(&platform["OneLakeEndpoints"]["properties"]),
        "both endpoints, as recorded"
    );
    for endpoint in ["blobEndpoint", "dfsEndpoint"] {
        assert!(
            shown["oneLakeEndpoints"][endpoint]
                .as_str()
                .is_some_and(|url| url.starts_with("https://")),
            "{shown}"
        );
    }
    let listed = get_json(&server, "/v1/workspaces");
    let entry = listed["value"]
        .as_array()
        .expect("value")
        .iter()
        .find(|ws| ws["id"] == json!(id))
        .expect("listed")
        .clone();
    assert!(entry["capacityRegion"].is_string(), "{entry}");
    assert!(
        entry.get("oneLakeEndpoints").is_none(),
        "only GET adds them: {entry}"
    );
}

#[test]
fn throttled_answers_say_they_are_retriable() {
    // The 2026-04 recording's 429s: `RequestBlocked`, Retry-After, `"isRetriable": true`
    // (ls__test_ls_external_data_shares_success.yaml).
    let server = Server::with(&[("quota-rps", "1")]);
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    let blocked = (0..20)
        .map(|_| http(&server.origin(), "GET", "/v1/workspaces", None, &headers))
        .find(|(status, _)| *status == 429)
        .expect("the quota answered 429");
    let body: Value = serde_json::from_str(&blocked.1).expect("error JSON");
    assert_eq!(body["errorCode"], "RequestBlocked", "{body}");
    assert_eq!(body["isRetriable"], json!(true), "{body}");
}

#[test]
fn update_definition_links_a_result_with_the_item() {
    // import__test_import_update_existing_item_successNotebook.yaml (2026-06): the
    // updateDefinition operation's Succeeded state carries `Location: .../result`, and the
    // result is the item.
    let server = Server::session_with(
        module_path!(),
        &[("async-ratio", "1"), ("retry-after-seconds", "0")],
    );
    let ws = demo_id(&server);
    let notebook = server.create_demo_item("Updated", "Notebook");
    let id = notebook;
    let definition = json!({"definition": {"parts": [{
        "path": "notebook-content.py", "payload": "IyBoaQ==", "payloadType": "InlineBase64"
    }]}});
    let path = format!("/v1/workspaces/{ws}/items/{id}/updateDefinition");
    let (status, head, body) = call(&server, "POST", &path, Some(&definition));
    assert_eq!(status, 202, "{body}");
    let (done, state) = poll_to_success(&server, &head);
    assert_service_timestamp(&state["createdTimeUtc"]);
    assert_service_timestamp(&state["lastUpdatedTimeUtc"]);
    let result_url = header(&done, "Location").expect("the Succeeded state links /result");
    assert!(result_url.ends_with("/result"), "{result_url}");
    let result = get_json(&server, &path_of(&server, &result_url));
    assert_eq!(result["id"], json!(id), "{result}");
    assert_eq!(result["type"], "Notebook", "{result}");
    assert_eq!(result["description"], json!(""), "{result}");

    // Answered inline, Items_UpdateItemDefinition's 200 has no body.
    let server = Server::session_with(module_path!(), &[("async-ratio", "0")]);
    let ws = demo_id(&server);
    let notebook = server.create_demo_item("Inline", "Notebook");
    let path = format!("/v1/workspaces/{ws}/items/{notebook}/updateDefinition");
    let (status, head, body) = call(&server, "POST", &path, Some(&definition));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, "", "{head}");
}

#[test]
fn empty_answers_are_sent_as_recorded() {
    // Recorded deletes of an item, a folder and a workspace answer 200 with no body,
    // `Content-Type: application/octet-stream`, `Content-Length: 0`
    // (bulk_export__test_bulk_export_and_deploy_round_trip.yaml).
    let server = Server::session(module_path!());
    let ws = demo_id(&server);
    let item = server.create_demo_item("Gone", "DataPipeline");
    let folder = server
        .fabsh(&[
            "folder",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Empty",
        ])
        .ok_json();
    let (_, _, body) = call(
        &server,
        "POST",
        "/v1/workspaces",
        Some(&json!({"displayName": "Short-lived"})),
    );
    let workspace = id_of(&serde_json::from_str(&body).expect("workspace"));
    for path in [
        format!("/v1/workspaces/{ws}/items/{item}"),
        format!("/v1/workspaces/{ws}/folders/{}", id_of(&folder)),
        format!("/v1/workspaces/{workspace}"),
    ] {
        let (status, head, body) = call(&server, "DELETE", &path, None);
        assert_eq!(status, 200, "DELETE {path}: {body}");
        assert_eq!(body, "", "DELETE {path}");
        assert_eq!(
            header(&head, "Content-Type").as_deref(),
            Some("application/octet-stream"),
            "{head}"
        );
        assert_eq!(
            header(&head, "Content-Length").as_deref(),
            Some("0"),
            "{head}"
        );
    }
}
