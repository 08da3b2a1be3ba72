//! Routes local Fabric answers as the service does (issue 28, "What a deployment library
//! meets"): paths with a trailing slash, which fabric-cicd 1.4.0 sends
//! (`GET /v1/workspaces/{id}/environments/`, answered 200 by the service).

use crate::support::{Server, http, shared};
use serde_json::Value;
use std::collections::BTreeSet;

#[test]
fn a_trailing_slash_is_answered_as_the_route_without_it() {
    let server = shared(module_path!());
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    for rest in ["/environments", "/items", "/lakehouses", "/folders", ""] {
        let path = server.demo_path(rest);
        let (plain_status, plain) = http(&server.origin(), "GET", &path, None, &headers);
        let (slash_status, slashed) =
            http(&server.origin(), "GET", &format!("{path}/"), None, &headers);
        assert_eq!(plain_status, 200, "{path}: {plain}");
        assert_eq!(slash_status, 200, "{path}/: {slashed}");
        let plain: Value = serde_json::from_str(&plain).expect("JSON");
        let slashed: Value = serde_json::from_str(&slashed).expect("JSON");
        assert_eq!(plain, slashed, "{path}");
    }
    // With a query, and on a write.
    let path = server.demo_path("/items/?type=Lakehouse");
    let (status, body) = http(&server.origin(), "GET", &path, None, &headers);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"Lakehouse\""), "{body}");
    let create = server.demo_path("/notebooks/");
    let auth_json = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let (status, body) = http(
        &server.origin(),
        "POST",
        &create,
        Some(r#"{"displayName": "Made through a slash"}"#),
        &auth_json,
    );
    // A notebook made without a definition is answered inline.
    assert_eq!(status, 201, "{body}");
}

/// The top-level keys of a JSON answer, and its error code if it is an error.
fn shape_of(text: &str) -> (BTreeSet<String>, Value) {
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let keys = value
        .as_object()
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default();
    (keys, value["errorCode"].clone())
}

/// Every GET path of the service's swaggers (tests/fixtures/fabric-rest-api-specs/
/// get-paths.tsv, drawn from every `*/swagger*.json` but admin's): asked with and without a
/// trailing slash, each answers the same status, error code and body keys. Ids are those of
/// Demo's items where the path names their type, else one no item has.
#[test]
fn every_swagger_get_path_answers_alike_with_a_trailing_slash() {
    let server = Server::session(module_path!());
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    let workspace = server.demo_path("");
    let workspace = workspace.trim_start_matches("/v1/workspaces/").to_string();
    let lakehouse = server.demo_item_id("Lakehouse");
    let notebook = server.demo_item_id("Notebook");
    let model = server.demo_item_id("SemanticModel");
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fabric-rest-api-specs/get-paths.tsv"),
    )
    .expect("get-paths.tsv");
    let (mut checked, mut found) = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let template = line.split('\t').next().expect("a path");
        let mut path = String::from("/v1");
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            path.push_str(&rest[..open]);
            let close = rest[open..].find('}').expect("a closed parameter") + open;
            path.push_str(match &rest[open + 1..close] {
                "workspaceId" => &workspace,
                "itemId" | "lakehouseId" => &lakehouse,
                "notebookId" => &notebook,
                "semanticModelId" => &model,
                _ => "7d3a51f8-0000-4000-8000-000000000001",
            });
            rest = &rest[close + 1..];
        }
        path.push_str(rest);
        let (route, query) = path.split_once('?').unwrap_or((&path, ""));
        let slashed = if query.is_empty() {
            format!("{route}/")
        } else {
            format!("{route}/?{query}")
        };
        let (plain_status, plain) = http(&server.origin(), "GET", &path, None, &headers);
        let (slash_status, slash) = http(&server.origin(), "GET", &slashed, None, &headers);
        assert_eq!(plain_status, slash_status, "{template}: {plain} / {slash}");
        assert_eq!(shape_of(&plain), shape_of(&slash), "{template}");
        checked += 1;
        if plain_status == 200 {
            found += 1;
        }
    }
    assert_eq!(checked, 244, "every row");
    assert!(found >= 30, "only {found} paths answered 200");
}

/// Items_PublishEnvironment (environment/swagger.json): 202 with an operation, whatever the
/// body (fabric-cicd sends the JSON string `"{}"`, which the service accepts); the
/// environment's `publishDetails.state` is `Running` until the operation ends, then `Success`
/// (swagger `EnvironmentPublishState`). A new environment answers as the service answers one
/// just made (fabric-cli's recording `test_mkdir_item_success[Environment]`): a publish that
/// started and ended when it was made, `Success` for it and each component.
#[test]
fn an_environment_publishes_through_an_operation_and_says_so() {
    use crate::service_bodies::{assert_shaped, call, get_json, header, poll_to_success};
    // Operations asked for: the service answered the publish as one until 2026 (the
    // swagger's example), and clients must cope with both.
    let server = crate::support::Server::with(&[("lro-ms", "400"), ("async-ratio", "1")]);
    let id = server.create_demo_item("Published env", "Environment");
    let env_path = server.demo_path(&format!("/environments/{id}"));
    let definitions =
        crate::data_agent_wire::swagger("environment/definitions.json")["definitions"].clone();
    let states = definitions["PublishDetails"]["properties"]["state"]["enum"].clone();
    // Every answer is swagger `EnvironmentProperties` with `PublishDetails` whose state, when
    // there is one, is an `EnvironmentPublishState`.
    let shaped = |environment: &Value| {
        let properties = &environment["properties"];
        assert_shaped(
            properties,
            &definitions["EnvironmentProperties"],
            "EnvironmentProperties",
        );
        let details = &properties["publishDetails"];
        assert_shaped(details, &definitions["PublishDetails"], "PublishDetails");
        if let Some(state) = details.get("state") {
            assert!(states.as_array().expect("enum").contains(state), "{state}");
        }
    };
    let before = get_json(&server, &env_path);
    shaped(&before);
    let recorded = crate::replay::cassette("mkdir__test_mkdir_item_successEnvironment.yaml")
        .interactions
        .into_iter()
        .find(|i| i.request.method == "GET" && i.request.uri.contains("/environments/"))
        .and_then(|i| i.response.body.string)
        .expect("the recorded GET of the new environment");
    let recorded: Value = serde_json::from_str(&recorded).expect("recorded JSON");
    let (ours, theirs) = (
        &before["properties"]["publishDetails"],
        &recorded["properties"]["publishDetails"],
    );
    assert_eq!(keys(ours), keys(theirs), "{before}");
    assert_eq!(
        keys(&ours["componentPublishInfo"]),
        keys(&theirs["componentPublishInfo"])
    );
    for details in [ours, theirs] {
        assert_eq!(details["state"], "Success", "{details}");
        assert_eq!(details["startTime"], details["endTime"], "{details}");
        for component in ["sparkSettings", "sparkLibraries"] {
            assert_eq!(
                details["componentPublishInfo"][component]["state"],
                "Success"
            );
        }
        let version = details["targetVersion"].as_str().expect("targetVersion");
        assert!(uuid::Uuid::parse_str(version).is_ok(), "{version}");
    }
    let publish = format!("{env_path}/staging/publish");
    for body in [
        None,
        Some(serde_json::json!("{}")),
        Some(serde_json::json!({})),
    ] {
        let (status, head, text) = call(&server, "POST", &publish, body.as_ref());
        assert_eq!(status, 202, "{body:?}: {text}");
        assert!(header(&head, "x-ms-operation-id").is_some(), "{head}");
        let running = get_json(&server, &env_path);
        shaped(&running);
        assert_eq!(
            running["properties"]["publishDetails"]["state"], "Running",
            "{running}"
        );
        poll_to_success(&server, &head);
        let done = get_json(&server, &env_path);
        shaped(&done);
        let details = &done["properties"]["publishDetails"];
        assert_eq!(details["state"], "Success", "{done}");
        assert!(details["endTime"].is_string(), "{done}");
    }
}

/// The service's newest answer to an environment's publish (fabric-cli's recording of
/// 2026-06-15, vendored under tests/fixtures/fabric-cli-recordings): 200 with the finished
/// publish's `publishDetails`, which local Fabric answers by default.
#[test]
fn an_environment_publish_answers_inline_as_the_newest_recording() {
    use crate::service_bodies::{call, get_json};
    let (recorded_status, theirs) =
        recorded("import__test_import_create_new_item_successEnvironment__staging_publish.yaml");
    let server = crate::support::Server::with(&[]);
    let id = server.create_demo_item("Published inline", "Environment");
    let env_path = server.demo_path(&format!("/environments/{id}"));
    let (status, _, answer) = call(
        &server,
        "POST",
        &format!("{env_path}/staging/publish"),
        None,
    );
    assert_eq!(u64::from(status), recorded_status, "{answer}");
    let ours: Value = serde_json::from_str(&answer).expect("a JSON answer");
    assert_eq!(keys(&ours), keys(&theirs), "{ours}");
    let (ours, theirs) = (&ours["publishDetails"], &theirs["publishDetails"]);
    assert_eq!(keys(ours), keys(theirs), "{ours}");
    assert_eq!(
        keys(&ours["componentPublishInfo"]),
        keys(&theirs["componentPublishInfo"])
    );
    assert_eq!(ours["state"], theirs["state"]);
    // The environment then reads as that publish left it.
    let after = get_json(&server, &env_path);
    assert_eq!(&after["properties"]["publishDetails"], ours, "{after}");
}

/// A vendored recording of tests/fixtures/fabric-cli-recordings: its first interaction's
/// response status and JSON body.
fn recorded(file: &str) -> (u64, Value) {
    let first = recorded_interaction(file, 0);
    (first.status, first.answer)
}

/// One interaction of a vendored recording, as the service saw and answered it.
pub(crate) struct Interaction {
    /// The request's path, from `/v1` on.
    pub(crate) path: String,
    /// The request's JSON body, if it sent one.
    pub(crate) request: Option<Value>,
    /// The response's status.
    pub(crate) status: u64,
    /// The response's JSON body (`null` when empty).
    pub(crate) answer: Value,
}

/// The `index`th interaction of a vendored recording of tests/fixtures/fabric-cli-recordings.
pub(crate) fn recorded_interaction(file: &str, index: usize) -> Interaction {
    let path = format!(
        "{}/tests/fixtures/fabric-cli-recordings/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("the vendored recording");
    let cassette: Value = serde_yaml_ng::from_str(&text).expect("YAML");
    let interaction = &cassette["interactions"][index];
    let uri = interaction["request"]["uri"].as_str().expect("uri");
    let response = &interaction["response"];
    let body = response["body"]["string"].as_str().expect("body");
    Interaction {
        path: uri[uri.find("/v1/").expect("an API path")..].to_string(),
        request: interaction["request"]["body"]
            .as_str()
            .map(|text| serde_json::from_str(text).expect("a JSON request")),
        status: response["status"]["code"].as_u64().expect("code"),
        // An empty body (a DELETE's 200) is no JSON.
        answer: if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(body).expect("JSON")
        },
    }
}

/// A dataflow's typed GET answers the `properties` the service's does (recorded 2026-04).
#[test]
fn a_dataflow_answers_its_properties_as_recorded() {
    use crate::service_bodies::get_json;
    let (status, theirs) = recorded("get__test_get_item_query_all_successDataflow__get.yaml");
    assert_eq!(status, 200);
    let server = crate::support::shared(module_path!());
    let id = server.create_demo_item("Recorded flow", "Dataflow");
    let ours = get_json(server, &server.demo_path(&format!("/dataflows/{id}")));
    // Only `properties`: the service added `description` to items after this recording.
    assert_eq!(ours["properties"], theirs["properties"], "{ours}");
}

/// A Cosmos DB database cannot be renamed, as the service answered (recorded 2026-02); its
/// description still can be changed, and so can its name be given unchanged.
#[test]
fn a_cosmos_db_database_refuses_a_rename_as_recorded() {
    use crate::service_bodies::call;
    let (status, theirs) =
        recorded("set__test_set_cosmosdb_database_displayname_not_supported_failure__patch.yaml");
    let server = crate::support::shared(module_path!());
    let id = server.create_demo_item("Fixedname", "CosmosDBDatabase");
    let path = server.demo_path(&format!("/cosmosDbDatabases/{id}"));
    let rename = serde_json::json!({"displayName": "Othername"});
    let (ours, _, answer) = call(server, "PATCH", &path, Some(&rename));
    assert_eq!(u64::from(ours), status, "{answer}");
    let answer: Value = serde_json::from_str(&answer).expect("an error body");
    assert_eq!(answer["errorCode"], theirs["errorCode"], "{answer}");
    assert_eq!(answer["message"], theirs["message"]);
    let same = serde_json::json!({"displayName": "Fixedname", "description": "kept name"});
    let (ours, _, answer) = call(server, "PATCH", &path, Some(&same));
    assert_eq!(ours, 200, "{answer}");
}

/// A variable library's PATCH answers its properties with the service's type tag, as
/// recorded (2025-12-31); its GET answers them without.
#[test]
fn a_variable_library_patch_answers_its_properties_as_recorded() {
    use crate::service_bodies::{call, get_json};
    let recorded = recorded_interaction(
        "set__test_set_item_variable_library_properties_success__patch.yaml",
        0,
    );
    let server = crate::support::shared(module_path!());
    let id = server.create_demo_item("Recorded library", "VariableLibrary");
    let path = server.demo_path(&format!("/variableLibraries/{id}"));
    let (status, _, answer) = call(server, "PATCH", &path, recorded.request.as_ref());
    assert_eq!(u64::from(status), recorded.status, "{answer}");
    let ours: Value = serde_json::from_str(&answer).expect("the library");
    assert_eq!(ours["properties"], recorded.answer["properties"], "{ours}");
    let read = get_json(server, &path);
    assert!(read["properties"].get("$type").is_none(), "{read}");
}

/// The keys of an object, sorted.
pub(crate) fn keys(object: &Value) -> Vec<String> {
    let mut keys: Vec<String> = object
        .as_object()
        .unwrap_or_else(|| panic!("an object: {object}"))
        .keys()
        .cloned()
        .collect();
    keys.sort();
    keys
}

/// Connections_ListConnections and CustomPools_ListWorkspaceCustomPools: deployments read
/// them to rebind models and environments; the pool list holds the starter pool as the
/// swagger's ListCustomPools example shows it.
///
/// The connections a caller sees are those its workspaces' items use: the connection the
/// swagger's bind example gives a semantic model is listed, as a swagger `Connection`
/// (platform/definitions/connections.json: `id`, `connectivityType`, `connectionDetails`
/// with its `path`).
#[test]
fn connections_and_spark_pools_are_listed() {
    use crate::service_bodies::{assert_shaped, call};
    let server = &Server::session(module_path!());
    let model = server.demo_item_id("SemanticModel");
    let bind =
        crate::data_agent_wire::swagger("semanticModel/examples/BindSemanticModelConnection.json")
            ["parameters"]["bindSemanticModelConnectionRequest"]
            .clone();
    let path = server.demo_path(&format!("/semanticModels/{model}/bindConnection"));
    let (status, _, text) = call(server, "POST", &path, Some(&bind));
    assert_eq!(status, 200, "{text}");
    let (status, connections) = server.get_json("/v1/connections");
    assert_eq!(status, 200, "{connections}");
    let definitions =
        crate::data_agent_wire::swagger("platform/definitions/connections.json")["definitions"]
            .clone();
    let listed = connections["value"].as_array().expect("value");
    for connection in listed {
        assert_shaped(connection, &definitions["Connection"], "Connection");
        assert!(
            connection["connectionDetails"]["path"].is_string(),
            "{connection}"
        );
    }
    let bound = &bind["connectionBinding"];
    let found = listed
        .iter()
        .find(|c| c["id"] == bound["id"])
        .unwrap_or_else(|| panic!("the bound connection is listed: {connections}"));
    assert_eq!(found["connectionDetails"], bound["connectionDetails"]);
    assert_eq!(found["connectivityType"], bound["connectivityType"]);

    let (status, pools) = server.get_json(&server.demo_path("/spark/pools"));
    assert_eq!(status, 200, "{pools}");
    let example = crate::data_agent_wire::swagger("spark/examples/ListCustomPools.json");
    let starter = &example["responses"]["200"]["body"]["value"][0];
    assert_eq!(pools["value"][0], *starter, "{pools}");
}

/// Deployment tools call one server by several names in a run; `--public-host` repeats.
#[test]
fn every_public_host_named_is_answered() {
    let server = crate::support::Server::with(&[
        ("public-host", "api.fabric.microsoft.com"),
        (
            "public-host",
            "api.powerbi.com,msitapi.fabric.microsoft.com",
        ),
    ]);
    let admin = server.bearer();
    for host in [
        "api.fabric.microsoft.com",
        "api.powerbi.com",
        "msitapi.fabric.microsoft.com:443",
    ] {
        let headers = [("Authorization", admin.as_str()), ("Host", host)];
        let (status, body) = http(&server.origin(), "GET", "/v1/workspaces", None, &headers);
        assert_eq!(status, 200, "Host {host}: {body}");
    }
    let headers = [("Authorization", admin.as_str()), ("Host", "other.test")];
    let (status, _) = http(&server.origin(), "GET", "/v1/workspaces", None, &headers);
    assert_eq!(status, 421);
}

/// Workspaces_ApplyWorkspaceTags / Workspaces_UnapplyWorkspaceTags (swagger `Tags`): the
/// request of the swagger example answers an empty 200, and `fabsh workspace apply-tags` /
/// `unapply-tags` show the workspace's `tags` (swagger `Workspace.tags`) afterwards.
#[test]
fn workspace_tags_are_applied_and_removed() {
    use crate::service_bodies::call;
    let server = crate::support::Server::session(module_path!());
    let tags = server.fabsh(&["tag", "list"]).ok_json();
    let tag = &tags.as_array().expect("tags")[0];
    let tag_id = tag["id"].as_str().expect("id").to_string();
    let example =
        crate::data_agent_wire::swagger("platform/examples/platform/ApplyWorkspaceTags.json");
    assert_eq!(example["responses"]["200"], serde_json::json!({}));
    let body = serde_json::json!({"tags": [tag_id]});
    let (status, _, text) = call(
        &server,
        "POST",
        &server.demo_path("/applyTags"),
        Some(&body),
    );
    assert_eq!(status, 200, "{text}");
    let (status, _, text) = call(
        &server,
        "POST",
        &server.demo_path("/unapplyTags"),
        Some(&body),
    );
    assert_eq!(status, 200, "{text}");

    let applied = server
        .fabsh(&[
            "workspace",
            "apply-tags",
            "-w",
            server.demo.as_str(),
            "--tag-ids",
            &tag_id,
        ])
        .ok_json();
    assert_eq!(
        applied["tags"],
        serde_json::json!([{"id": tag_id, "displayName": tag["displayName"]}])
    );
    let removed = server
        .fabsh(&[
            "workspace",
            "unapply-tags",
            "-w",
            server.demo.as_str(),
            "--tag-ids",
            &tag_id,
        ])
        .ok_json();
    assert!(removed.get("tags").is_none(), "{removed}");
    // Known only once the tags are listed: not found, as an unknown workspace name is.
    let refused = server.fabsh(&[
        "workspace",
        "apply-tags",
        "-w",
        server.demo.as_str(),
        "--tag-ids",
        "x",
    ]);
    assert_eq!(refused.code, 4, "{}", refused.stderr);
}

/// Items_BindSemanticModelConnection: the swagger's bind and unbind examples answer an empty
/// 200, and the bound connection is among the model's connections until unbound.
#[test]
fn a_semantic_model_binds_and_unbinds_a_connection() {
    use crate::service_bodies::{call, get_json};
    let server = shared(module_path!());
    let model = server.demo_item_id("SemanticModel");
    let base = server.demo_path(&format!("/semanticModels/{model}"));
    let example = |name: &str| {
        crate::data_agent_wire::swagger(&format!("semanticModel/examples/{name}.json"))
            ["parameters"]["bindSemanticModelConnectionRequest"]
            .clone()
    };
    let bind = example("BindSemanticModelConnection");
    let (status, _, text) = call(
        server,
        "POST",
        &format!("{base}/bindConnection"),
        Some(&bind),
    );
    assert_eq!(status, 200, "{text}");
    let connections = get_json(server, &format!("{base}/connections"));
    let bound_id = &bind["connectionBinding"]["id"];
    assert!(
        connections["value"]
            .as_array()
            .expect("value")
            .iter()
            .any(|c| c["id"] == *bound_id),
        "{connections}"
    );
    let unbind = example("UnbindSemanticModelConnection");
    let (status, _, text) = call(
        server,
        "POST",
        &format!("{base}/bindConnection"),
        Some(&unbind),
    );
    assert_eq!(status, 200, "{text}");
    let connections = get_json(server, &format!("{base}/connections"));
    assert!(
        !connections["value"]
            .as_array()
            .expect("value")
            .iter()
            .any(|c| c["id"] == *bound_id),
        "{connections}"
    );
}

/// Items_ListItemConnections answers every type but a warehouse, as recorded: fabric-cli's
/// recordings answer 200 for 28 types (MLExperiment, which has no definition, among them) and
/// 400 `OperationNotSupportedForItem` for Warehouse alone. Each vendored recording's answer is
/// what local Fabric answers for an item of that type.
#[test]
fn item_connections_answer_as_recorded_per_type() {
    let server = Server::session(module_path!());
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    for (recording, item_type) in [
        (
            "mkdir__test_mkdir_item_successMLExperiment.yaml",
            "MLExperiment",
        ),
        (
            "get__test_get_item_query_all_successWarehouse.yaml",
            "Warehouse",
        ),
    ] {
        let recorded = crate::replay::cassette(recording)
            .interactions
            .into_iter()
            .find(|it| it.request.method == "GET" && it.request.uri.ends_with("/connections"))
            .unwrap_or_else(|| panic!("{recording} reads an item's connections"));
        let id = server.create_demo_item(&format!("Connections {item_type}"), item_type);
        let (status, body) = http(
            &server.origin(),
            "GET",
            &server.demo_path(&format!("/items/{id}/connections")),
            None,
            &headers,
        );
        assert_eq!(status, recorded.response.status.code, "{item_type}: {body}");
        let local: Value = serde_json::from_str(&body).expect("JSON");
        let service: Value =
            serde_json::from_str(recorded.response.body.string.as_deref().unwrap_or("null"))
                .expect("recorded JSON");
        assert_eq!(
            shape_of(&body),
            shape_of(&service.to_string()),
            "{item_type}"
        );
        if status == 200 {
            assert_eq!(local, service, "{item_type}");
        }
    }
}
