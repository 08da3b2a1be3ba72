//! Long-running operations: 202 envelopes, polling, results, resultless updates, restarts.

use super::{Env, inline, lro_always, part, parts_of, start, start_in};
use fabsh_local::Faults;
use reqwest::StatusCode;
use serde_json::{Value, json};

#[tokio::test]
async fn create_answers_202_and_the_operation_yields_the_item() {
    let env = start(lro_always()).await;
    let ws = env.workspace("Lro").await;
    let reply = env
        .post(
            &format!("/workspaces/{ws}/notebooks"),
            json!({"displayName": "nb", "type": "Notebook", "folderId": null}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(reply.text, "null");
    assert_eq!(reply.header("etag").as_deref(), Some("\"\""));
    let op = reply.header("x-ms-operation-id").unwrap();
    let location = reply.header("location").unwrap();
    assert_eq!(location, format!("{}/v1/operations/{op}", env.origin()));
    // The service sends whole seconds, never 0 (Retry-After 20 on the 202s of
    // recordings/fabric-cli/export__test_export_item_success.yaml); a 50 ms operation gets the
    // `retry-after-seconds` floor, 1 s by default.
    let retry: u64 = reply.header("retry-after").unwrap().parse().unwrap();
    assert_eq!(retry, 1, "a 50 ms operation asks for the 1 s floor, not 0");
    assert_eq!(
        reply.header("access-control-expose-headers").as_deref(),
        Some("RequestId,Location,Retry-After,ETag,x-ms-operation-id")
    );

    let (state, headers) = env.wait(&location).await;
    assert_eq!(state["status"], "Succeeded");
    assert_eq!(state["percentComplete"], 100);
    assert_eq!(state["error"], Value::Null);
    // As recorded: no `Z`, at most seven fractional digits, trailing zeros dropped
    // ("2025-12-31T14:28:28.557812" in set__test_set_item_report_definition_semantic_model_id_success.yaml).
    let created = state["createdTimeUtc"].as_str().unwrap();
    let fraction = created.split_once('.').map_or("", |(_, f)| f);
    assert!(
        created.len() <= "2025-09-02T19:38:15.1233511".len(),
        "{created}"
    );
    assert!(
        !fraction.ends_with('0') && !created.ends_with('Z'),
        "{created}"
    );
    let result_url = headers.get("location").unwrap().to_str().unwrap();
    assert_eq!(result_url, format!("{location}/result"));
    let result = env.get(result_url).await;
    assert_eq!(result.status, StatusCode::OK);
    let item = result.json();
    assert_eq!(item["type"], "Notebook");
    assert_eq!(item["displayName"], "nb");
    let fetched = env
        .get(&format!(
            "/workspaces/{ws}/items/{}",
            item["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(fetched.json(), item);
}

async fn update_definition(env: &Env, path: &str, definition: Value) -> Value {
    let reply = env.post(path, json!({ "definition": definition })).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text);
    assert_eq!(reply.text, "null");
    let location = reply.header("location").unwrap();
    let (state, headers) = env.wait(&location).await;
    // import__test_import_update_existing_item_successNotebook.yaml: the Succeeded state
    // links the result.
    let result_url = headers.get("location").expect("Location to the result");
    assert_eq!(result_url.to_str().unwrap(), format!("{location}/result"));
    state
}

#[tokio::test]
async fn update_definition_replaces_parts_and_yields_the_item() {
    let env = start(Faults::default()).await;
    let ws = env.workspace("Defs").await;
    let item = env
        .create_item(&ws, json!({"displayName": "nb", "type": "Notebook"}))
        .await;
    let id = item["id"].as_str().unwrap();
    let reply = env
        .post(
            &format!("/workspaces/{ws}/items/{id}/updateDefinition"),
            json!({"definition": {"format": "ipynb", "parts": [part("notebook-content.ipynb", "{\"cells\":[]}")]}}),
        )
        .await;
    let location = reply.header("location").unwrap();
    let (state, _) = env.wait(&location).await;
    assert_eq!(state["status"], "Succeeded");
    // The result is the item (import__test_import_update_existing_item_successNotebook.yaml).
    let result = env.get(&format!("{location}/result")).await;
    assert_eq!(result.status, StatusCode::OK, "{}", result.text);
    assert_eq!(result.json()["id"], item["id"]);
    assert_eq!(result.json()["description"], "");

    let def = env
        .post(
            &format!("/workspaces/{ws}/items/{id}/getDefinition"),
            json!({}),
        )
        .await;
    assert_eq!(def.status, StatusCode::ACCEPTED);
    let (_, headers) = env.wait(&def.header("location").unwrap()).await;
    let body = env
        .get(headers.get("location").unwrap().to_str().unwrap())
        .await
        .json();
    assert_eq!(body["definition"]["format"], "ipynb");
    let parts = parts_of(&body);
    assert_eq!(
        parts[0],
        (
            "notebook-content.ipynb".to_string(),
            "{\"cells\":[]}".to_string()
        )
    );
    assert_eq!(parts.len(), 2, "the old part is gone; .platform is added");
}

#[tokio::test]
async fn update_metadata_applies_the_platform_name_only_when_asked() {
    let env = start(Faults::default()).await;
    let ws = env.workspace("Meta").await;
    let item = env
        .create_item(&ws, json!({"displayName": "before", "type": "Notebook"}))
        .await;
    let id = item["id"].as_str().unwrap();
    let platform = r#"{"metadata": {"type": "Notebook", "displayName": "after"}, "config": {"version": "2.0"}}"#;
    let definition = json!({"parts": [part("notebook-content.py", "# Fabric notebook source\n"), part(".platform", platform)]});
    update_definition(
        &env,
        &format!("/workspaces/{ws}/items/{id}/updateDefinition"),
        definition.clone(),
    )
    .await;
    let name = env
        .get(&format!("/workspaces/{ws}/items/{id}"))
        .await
        .json()["displayName"]
        .clone();
    assert_eq!(name, "before");
    update_definition(
        &env,
        &format!("/workspaces/{ws}/items/{id}/updateDefinition?updateMetadata=true"),
        definition,
    )
    .await;
    let name = env
        .get(&format!("/workspaces/{ws}/items/{id}"))
        .await
        .json()["displayName"]
        .clone();
    assert_eq!(name, "after");
}

#[tokio::test]
async fn a_conflict_found_when_the_operation_runs_fails_the_operation() {
    // Two servers on one data directory, as two processes would share it: the slow one
    // accepts a create; the inline one takes the name before that operation runs.
    let env = start(Faults {
        lro_ms: 1500,
        ..lro_always()
    })
    .await;
    let other = start_in(env.dir.path(), inline()).await;
    let ws = env.workspace("Race").await;
    let body = json!({"displayName": "same", "type": "Notebook"});
    let accepted = env
        .post(&format!("/workspaces/{ws}/items"), body.clone())
        .await;
    assert_eq!(accepted.status, StatusCode::ACCEPTED);
    let direct = env
        .http
        .post(format!("{}/workspaces/{ws}/items", other.base_url()))
        .bearer_auth(&env.token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(direct.status(), StatusCode::CREATED);
    let (state, headers) = env.wait(&accepted.header("location").unwrap()).await;
    assert_eq!(state["status"], "Failed");
    assert_eq!(state["error"]["errorCode"], "ItemDisplayNameAlreadyInUse");
    assert!(headers.get("location").is_none());
    let items = env.get(&format!("/workspaces/{ws}/items")).await.json();
    assert_eq!(items["value"].as_array().unwrap().len(), 1);
    other.shutdown().await;
}

#[tokio::test]
async fn unknown_operations_are_not_found() {
    let env = start(Faults::default()).await;
    let reply = env
        .get(&format!("/operations/{}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.error_code(), "OperationNotFound");
}

#[tokio::test]
async fn pending_operations_resume_after_a_restart() {
    let dir = super::store_dir();
    let slow = Faults {
        lro_ms: 300,
        ..lro_always()
    };
    let server = start_in(dir.path(), slow.clone()).await;
    let env = Env {
        token: server.admin_token(),
        server,
        dir,
        http: reqwest::Client::new(),
    };
    let ws = env.demo().await;
    let reply = env
        .post(
            &format!("/workspaces/{ws}/items"),
            json!({"displayName": "later", "type": "Notebook"}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    let op = reply.header("x-ms-operation-id").unwrap();
    let Env {
        server,
        dir,
        http,
        token,
    } = env;
    server.shutdown().await;

    let server = start_in(dir.path(), slow).await;
    let env = Env {
        server,
        dir,
        http,
        token,
    };
    let (state, _) = env.wait(&format!("/operations/{op}")).await;
    assert_eq!(state["status"], "Succeeded");
    let items = env
        .get(&format!("/workspaces/{ws}/items?type=Notebook"))
        .await
        .json();
    let names: Vec<&str> = items["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["displayName"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"later"));
}

/// While an operation runs its state says `Running` from the first poll (never `NotStarted`)
/// with a whole-second `Retry-After` of at least the `retry-after-seconds` knob, as the polls
/// of recordings/fabric-cli/export__test_export_item_success.yaml (`Running` twice, each with
/// `Retry-After: 20`) and swagger `getOperationState` show. The knob set to 0 is honoured.
#[tokio::test]
async fn a_running_operation_says_running_with_a_whole_second_retry_after() {
    for floor in [1u64, 3, 0] {
        let env = start(Faults {
            lro_ms: 60_000,
            retry_after_seconds: floor,
            ..lro_always()
        })
        .await;
        let ws = env.workspace("Running").await;
        let reply = env
            .post(
                &format!("/workspaces/{ws}/notebooks"),
                json!({"displayName": "nb", "type": "Notebook"}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.text);
        let location = reply.header("location").unwrap();
        // 60 s remain: the header says so whatever the floor.
        let first: u64 = reply.header("retry-after").unwrap().parse().unwrap();
        assert!((59..=60).contains(&first), "{first}");
        let state = env.get(&location).await;
        assert_eq!(state.status, StatusCode::OK);
        assert_eq!(state.json()["status"], "Running");
        let retry: u64 = state.header("retry-after").unwrap().parse().unwrap();
        assert!(retry >= floor.max(59), "{retry}");
    }
    // A short operation: the floor decides.
    for (floor, expected) in [(1u64, "1"), (0, "0")] {
        let env = start(Faults {
            lro_ms: 400,
            retry_after_seconds: floor,
            ..lro_always()
        })
        .await;
        let ws = env.workspace("Short").await;
        let reply = env
            .post(
                &format!("/workspaces/{ws}/notebooks"),
                json!({"displayName": "nb", "type": "Notebook"}),
            )
            .await;
        assert_eq!(reply.header("retry-after").as_deref(), Some(expected));
        let location = reply.header("location").unwrap();
        let state = env.get(&location).await;
        if state.json()["status"] == "Running" {
            assert_eq!(state.header("retry-after").as_deref(), Some(expected));
        }
    }
}
