//! Livy sessions, a notebook's own job routes and a lakehouse's materialized lake view
//! execution definitions (issue "local Fabric agrees with the service"), each answer held
//! against the vendored swagger (tests/fixtures/fabric-rest-api-specs, commit 4a7d6e4, MIT):
//! its definitions and its examples' requests and answers.

use crate::data_agent_wire::swagger;
use crate::service_bodies::{assert_shaped, call, get_json, header, path_of};
use crate::support::{Server, http, principal_token};
use serde_json::{Value, json};
use std::collections::BTreeSet;

pub(crate) fn keys(object: &Value) -> BTreeSet<String> {
    object
        .as_object()
        .unwrap_or_else(|| panic!("an object: {object}"))
        .keys()
        .cloned()
        .collect()
}

/// A definition whose `allOf` parents' properties are its own too (as swagger means it).
fn with_parents(definitions: &Value, name: &str) -> Value {
    let mut definition = definitions[name].clone();
    let parents: Vec<String> = definition["allOf"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|p| p["$ref"].as_str())
                .filter_map(|r| r.strip_prefix("#/definitions/"))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    for parent in parents {
        let parent = with_parents(definitions, &parent);
        for (key, value) in parent["properties"].as_object().into_iter().flatten() {
            definition["properties"][key] = value.clone();
        }
        for required in parent["required"].as_array().into_iter().flatten() {
            match definition["required"].as_array_mut() {
                Some(list) => list.push(required.clone()),
                None => definition["required"] = json!([required]),
            }
        }
    }
    definition
}

/// An error answer's status and `errorCode`.
pub(crate) fn error(
    server: &Server,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let (status, _, text) = call(server, method, path, body);
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, value["errorCode"].clone())
}

/// A run started through BackgroundJobs_RunOnDemandNotebook (its no-body example, 202 with
/// the generic instance `Location`) is read back through
/// BackgroundJobs_Get_Notebook_Job_Instance_(beta) as a `NotebookJobInstance` keyed as the
/// Spark example is, and is the notebook's Livy session (LivySessions_ListLivySessions, its
/// beta twin, LivySessions_GetLivySession, and the workspace's list): a swagger
/// `LivySession` whose ids are the run's and its Spark `livyId`.
#[test]
fn a_notebook_run_is_its_livy_session() {
    let server = Server::session(module_path!());
    let notebook = server.create_demo_item("Livy notebook", "Notebook");
    let base = server.demo_path(&format!("/notebooks/{notebook}"));
    let run_example = swagger("notebook/examples/RunNotebookWithNoRequestBody.json");
    assert_eq!(run_example["parameters"]["beta"], "false");
    let (status, head, text) = call(
        &server,
        "POST",
        &format!("{base}/jobs/execute/instances?beta=false"),
        None,
    );
    assert_eq!(status, 202, "{text}");
    let expected = keys(&run_example["responses"]["202"]["headers"]);
    for name in &expected {
        assert!(header(&head, name).is_some(), "{name}: {head}");
    }
    let location = header(&head, "Location").expect("Location");
    let run_id = location.rsplit('/').next().expect("an id").to_string();
    assert!(
        path_of(&server, &location)
            .ends_with(&format!("/items/{notebook}/jobs/instances/{run_id}")),
        "{location}"
    );

    let notebook_defs = swagger("notebook/definitions.json")["definitions"].clone();
    let platform = swagger("platform/definitions/platform.json")["definitions"].clone();
    let example = swagger("notebook/examples/GetSparkNotebookJobInstance.json");
    let example = &example["responses"]["200"]["body"];
    let read = get_json(
        &server,
        &format!("{base}/jobs/execute/instances/{run_id}?beta=true"),
    );
    assert_eq!(keys(&read), keys(example), "{read}");
    let mut instance = read.clone();
    instance
        .as_object_mut()
        .expect("object")
        .remove("properties");
    assert_shaped(&instance, &platform["ItemJobInstance"], "ItemJobInstance");
    assert_eq!(read["id"], run_id.as_str());
    assert_eq!(read["itemId"], notebook.as_str());
    let properties = &read["properties"];
    assert_eq!(properties["compute"], "Spark", "{read}");
    assert_shaped(
        properties,
        &with_parents(&notebook_defs, "SparkNotebookJobInstanceProperties"),
        "SparkNotebookJobInstanceProperties",
    );
    assert_shaped(
        &properties["computeDetails"],
        &notebook_defs["SparkNotebookComputeDetails"],
        "SparkNotebookComputeDetails",
    );
    let livy_id = properties["computeDetails"]["livyId"]
        .as_str()
        .expect("livyId")
        .to_string();
    // The generic read answers the same run.
    let generic = get_json(
        &server,
        &server.demo_path(&format!("/items/{notebook}/jobs/instances/{run_id}")),
    );
    assert_eq!(generic["id"], read["id"]);
    assert_eq!(generic["jobType"], read["jobType"]);
    // The beta read wants beta=true; an unknown run is the generic read's 404.
    assert_eq!(
        error(
            &server,
            "GET",
            &format!("{base}/jobs/execute/instances/{run_id}"),
            None
        ),
        (400, json!("BetaParameterRequired"))
    );
    let unknown = "7d3a51f8-0000-4000-8000-000000000001";
    assert_eq!(
        error(
            &server,
            "GET",
            &format!("{base}/jobs/execute/instances/{unknown}?beta=true"),
            None
        ),
        (404, json!("EntityNotFound"))
    );

    // A second run through the generic job API is a session too.
    let (status, head, text) = call(
        &server,
        "POST",
        &server.demo_path(&format!(
            "/items/{notebook}/jobs/instances?jobType=RunNotebook"
        )),
        None,
    );
    assert_eq!(status, 202, "{text}");
    let second = header(&head, "Location").expect("Location");
    let second = second.rsplit('/').next().expect("an id").to_string();

    let spark = swagger("common/spark_definitions.json")["definitions"].clone();
    let states = spark["LivySessionState"]["enum"].clone();
    let session_example = swagger("notebook/examples/GetSessionInItemId.json");
    let example_keys = keys(&session_example["responses"]["200"]["body"]);
    let defined = keys(&spark["LivySession"]["properties"]);
    // What the definition has and the examples leave out (a session of no high concurrency).
    let beyond: BTreeSet<String> = defined.difference(&example_keys).cloned().collect();
    assert_eq!(
        beyond,
        ["consumerId", "isHighConcurrency"]
            .iter()
            .map(ToString::to_string)
            .collect()
    );
    let shaped = |session: &Value| {
        assert_shaped(session, &spark["LivySession"], "LivySession");
        assert!(
            keys(session).is_subset(&defined),
            "keys the definition does not define: {session}"
        );
        assert!(
            states.as_array().expect("enum").contains(&session["state"]),
            "{session}"
        );
        assert_eq!(session["item"]["referenceType"], "ById");
    };
    for query in ["", "?beta=true"] {
        let list = get_json(&server, &format!("{base}/livySessions{query}"));
        assert_shaped(&list, &with_parents(&spark, "LivySessions"), "LivySessions");
        let sessions = list["value"].as_array().expect("value");
        assert_eq!(sessions.len(), 2, "{list}");
        sessions.iter().for_each(shaped);
        // Newest first, as runs are listed.
        assert_eq!(sessions[0]["jobInstanceId"], second.as_str());
        let first = &sessions[1];
        assert_eq!(first["jobInstanceId"], run_id.as_str());
        assert_eq!(first["livyId"], livy_id.as_str());
        assert_eq!(first["item"]["itemId"], notebook.as_str());
        assert_eq!(first["itemType"], "Notebook");
        assert_eq!(first["itemName"], "Livy notebook");
    }
    let one = get_json(&server, &format!("{base}/livySessions/{livy_id}"));
    shaped(&one);
    assert_eq!(one["jobInstanceId"], run_id.as_str());
    assert_eq!(
        error(
            &server,
            "GET",
            &format!("{base}/livySessions/{unknown}"),
            None
        ),
        (404, json!("EntityNotFound"))
    );
    for query in ["", "?beta=true"] {
        let all = get_json(
            &server,
            &server.demo_path(&format!("/spark/livySessions{query}")),
        );
        assert_shaped(&all, &with_parents(&spark, "LivySessions"), "LivySessions");
        all["value"]
            .as_array()
            .expect("value")
            .iter()
            .for_each(shaped);
        assert!(
            all["value"]
                .as_array()
                .expect("value")
                .iter()
                .any(|s| s["livyId"] == livy_id.as_str()),
            "{all}"
        );
    }
    // A lakehouse's sessions are its own runs: a new one has none.
    let lakehouse = server.create_demo_item("Livy_lakehouse", "Lakehouse");
    let list = get_json(
        &server,
        &server.demo_path(&format!("/lakehouses/{lakehouse}/livySessions")),
    );
    assert_eq!(list, json!({"value": []}));
}

/// MaterializedLakeViews_*MlvExecutionDefinition*: the swagger examples' requests answer
/// their answers (but for the id local Fabric makes); an update keeps what it does not send;
/// a Viewer reads but does not write; an unknown id is 404 `EntityNotFound`, also once
/// deleted, and a deleted lakehouse's definitions are gone with it.
#[test]
fn mlv_execution_definitions_answer_as_the_examples() {
    let server = Server::session(module_path!());
    let lakehouse = server.create_demo_item("MLV_lakehouse", "Lakehouse");
    let base = server.demo_path(&format!("/lakehouses/{lakehouse}/mlvexecutiondefinitions"));
    let definitions = swagger("lakehouse/definitions.json")["definitions"].clone();
    let example = |name: &str| swagger(&format!("lakehouse/examples/{name}.json"));
    let without_id = |value: &Value| {
        let mut value = value.clone();
        value.as_object_mut().expect("object").remove("id");
        value
    };
    let shaped = |value: &Value| {
        assert_shaped(
            value,
            &definitions["MaterializedLakeViewExecutionDefinition"],
            "MaterializedLakeViewExecutionDefinition",
        );
    };

    let create = example("CreateExecutionDefinition");
    let request = &create["parameters"]["createMLVExecutionDefinitionRequest"];
    let (status, head, text) = call(&server, "POST", &base, Some(request));
    assert_eq!(status, 201, "{text}");
    let created: Value = serde_json::from_str(&text).expect("JSON");
    shaped(&created);
    assert_eq!(
        without_id(&created),
        without_id(&create["responses"]["201"]["body"])
    );
    let id = created["id"].as_str().expect("id").to_string();
    let location = header(&head, "Location").expect("Location");
    assert_eq!(path_of(&server, &location), format!("{base}/{id}"));
    assert_eq!(get_json(&server, &format!("{base}/{id}")), created);

    let list = get_json(&server, &base);
    assert_shaped(
        &list,
        &definitions["MaterializedLakeViewExecutionDefinitions"],
        "MaterializedLakeViewExecutionDefinitions",
    );
    assert_eq!(list["value"], json!([created]));

    let update = example("UpdateExecutionDefinition");
    let request = &update["parameters"]["updateMLVExecutionDefinitionRequest"];
    let (status, _, text) = call(&server, "PATCH", &format!("{base}/{id}"), Some(request));
    assert_eq!(status, 200, "{text}");
    let updated: Value = serde_json::from_str(&text).expect("JSON");
    shaped(&updated);
    assert_eq!(
        without_id(&updated),
        without_id(&update["responses"]["200"]["body"])
    );
    assert_eq!(get_json(&server, &format!("{base}/{id}")), updated);

    // A Viewer reads and is refused writes.
    let viewer = principal_token(&server, "mlv-viewer", &server.demo, "Viewer");
    let auth = format!("Bearer {viewer}");
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let (status, body) = http(&server.origin(), "GET", &base, None, &headers);
    assert_eq!(status, 200, "{body}");
    let (status, body) = http(
        &server.origin(),
        "GET",
        &format!("{base}/{id}"),
        None,
        &headers,
    );
    assert_eq!(status, 200, "{body}");
    let body_text = request.to_string();
    for (method, path, body) in [
        ("POST", base.clone(), Some(body_text.as_str())),
        ("PATCH", format!("{base}/{id}"), Some(body_text.as_str())),
        ("DELETE", format!("{base}/{id}"), None),
    ] {
        let (status, text) = http(&server.origin(), method, &path, body, &headers);
        assert_eq!(status, 403, "{method} as a Viewer: {text}");
    }

    // A request the swagger's required fields refuse.
    let (status, _) = error(&server, "POST", &base, Some(&json!({"displayName": "x"})));
    assert_eq!(status, 400);

    let delete = example("DeleteExecutionDefinition");
    assert_eq!(delete["responses"]["200"], json!({}));
    let (status, _, text) = call(&server, "DELETE", &format!("{base}/{id}"), None);
    assert_eq!(status, 200, "{text}");
    for method in ["GET", "DELETE"] {
        assert_eq!(
            error(&server, method, &format!("{base}/{id}"), None),
            (404, json!("EntityNotFound")),
            "{method}"
        );
    }
    assert_eq!(
        error(&server, "PATCH", &format!("{base}/{id}"), Some(request)),
        (404, json!("EntityNotFound"))
    );
    assert_eq!(get_json(&server, &base)["value"], json!([]));

    // Gone with the lakehouse.
    let request = &create["parameters"]["createMLVExecutionDefinitionRequest"];
    let (status, _, text) = call(&server, "POST", &base, Some(request));
    assert_eq!(status, 201, "{text}");
    let kept: Value = serde_json::from_str(&text).expect("JSON");
    let (status, _, text) = call(
        &server,
        "DELETE",
        &server.demo_path(&format!("/lakehouses/{lakehouse}")),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let (status, _, _) = call(
        &server,
        "GET",
        &format!("{base}/{}", kept["id"].as_str().expect("id")),
        None,
    );
    assert_eq!(status, 404);
}
