//! Items: shapes, CRUD, names, validation, per-type collections, paging.

use super::{inline, part, parts_of, start};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn seeded_demo_items_have_fabric_shapes_and_headers() {
    let env = start(inline()).await;
    let ws = env.demo().await;
    let reply = env.get(&format!("/workspaces/{ws}/items")).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.header("requestid").is_some());
    assert_eq!(
        reply.header("access-control-expose-headers").as_deref(),
        Some("RequestId")
    );
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json; charset=utf-8")
    );
    let items = reply.json()["value"].as_array().unwrap().clone();
    let summary: Vec<(String, String)> = items
        .iter()
        .map(|i| {
            (
                i["type"].as_str().unwrap().into(),
                i["displayName"].as_str().unwrap().into(),
            )
        })
        .collect();
    for expected in [
        ("Lakehouse", "SalesLakehouse"),
        ("SQLEndpoint", "SalesLakehouse"),
        ("Notebook", "Welcome"),
        ("SemanticModel", "Sales Model"),
        ("Report", "Sales Report"),
    ] {
        assert!(
            summary.contains(&(expected.0.into(), expected.1.into())),
            "missing {expected:?} in {summary:?}"
        );
    }
    for item in &items {
        assert_eq!(item["workspaceId"], ws.as_str());
        assert!(item.get("tags").is_none() && item.get("sensitivityLabel").is_none());
        assert!(item.get("folderId").is_none());
    }
}

#[tokio::test]
async fn seeded_notebook_definition_is_fabric_git_source() {
    let env = start(inline()).await;
    let ws = env.demo().await;
    let items = env
        .get(&format!("/workspaces/{ws}/items?type=Notebook"))
        .await
        .json();
    let id = items["value"][0]["id"].as_str().unwrap();
    let reply = env
        .post(
            &format!("/workspaces/{ws}/items/{id}/getDefinition"),
            json!({}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    let parts = parts_of(&reply.json());
    let (path, text) = &parts[0];
    assert_eq!(path, "notebook-content.py");
    assert!(text.starts_with("# Fabric notebook source"));
    assert!(
        text.contains("# MARKDOWN ****")
            && text.contains("# CELL ****")
            && text.contains("# META {")
    );
    let (platform_path, platform) = parts.last().unwrap();
    assert_eq!(platform_path, ".platform");
    let platform: serde_json::Value = serde_json::from_str(platform).unwrap();
    assert_eq!(platform["metadata"]["type"], "Notebook");
    assert_eq!(platform["metadata"]["displayName"], "Welcome");
    assert_eq!(platform["config"]["version"], "2.0");
    assert!(uuid::Uuid::parse_str(platform["config"]["logicalId"].as_str().unwrap()).is_ok());
}

#[tokio::test]
async fn item_crud_round_trip() {
    let env = start(inline()).await;
    let ws = env.workspace("Crud").await;
    let created = env
        .post(
            &format!("/workspaces/{ws}/items"),
            json!({"displayName": "Pipe", "type": "DataPipeline", "description": "first"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(created.header("etag").as_deref(), Some("\"\""));
    let item = created.json();
    let id = item["id"].as_str().unwrap().to_string();
    assert_eq!(item["type"], "DataPipeline");
    assert_eq!(item["description"], "first");
    assert_eq!(item["workspaceId"], ws.as_str());

    let path = format!("/workspaces/{ws}/items/{id}");
    let fetched = env.get(&path).await;
    assert_eq!(fetched.header("etag").as_deref(), Some("\"\""));
    assert_eq!(fetched.json(), item);

    let patched = env
        .patch(
            &path,
            json!({"displayName": "Pipe2", "type": "Notebook", "workspaceId": "x"}),
        )
        .await;
    assert_eq!(patched.status, StatusCode::OK);
    assert_eq!(patched.json()["displayName"], "Pipe2");
    assert_eq!(patched.json()["type"], "DataPipeline");
    assert_eq!(patched.json()["description"], "first");

    let deleted = env.delete(&path).await;
    assert_eq!(deleted.status, StatusCode::OK);
    assert!(deleted.text.is_empty());
    assert_eq!(env.get(&path).await.error_code(), "ItemNotFound");
    let list = env.get(&format!("/workspaces/{ws}/items")).await.json();
    assert_eq!(list["value"].as_array().unwrap().len(), 0);
    // A soft-deleted item's name can be used again.
    let again = env
        .create_item(&ws, json!({"displayName": "Pipe2", "type": "DataPipeline"}))
        .await;
    assert_ne!(again["id"], item["id"]);
}

#[tokio::test]
async fn duplicate_names_per_type_are_rejected_case_insensitively() {
    let env = start(inline()).await;
    let ws = env.workspace("Names").await;
    env.create_item(&ws, json!({"displayName": "Sales", "type": "Notebook"}))
        .await;
    let dup = env
        .post(
            &format!("/workspaces/{ws}/items"),
            json!({"displayName": "SALES", "type": "Notebook"}),
        )
        .await;
    assert_eq!(dup.status, StatusCode::BAD_REQUEST);
    assert_eq!(dup.error_code(), "ItemDisplayNameAlreadyInUse");
    // Another type may use the same name.
    env.create_item(&ws, json!({"displayName": "Sales", "type": "DataPipeline"}))
        .await;
    // Renaming onto a taken name is rejected too.
    let other = env
        .create_item(&ws, json!({"displayName": "Other", "type": "Notebook"}))
        .await;
    let rename = env
        .patch(
            &format!("/workspaces/{ws}/items/{}", other["id"].as_str().unwrap()),
            json!({"displayName": "sales"}),
        )
        .await;
    assert_eq!(rename.error_code(), "ItemDisplayNameAlreadyInUse");
}

#[tokio::test]
async fn invalid_creates_are_rejected_and_create_nothing() {
    let env = start(inline()).await;
    let ws = env.workspace("Invalid").await;
    let items = format!("/workspaces/{ws}/items");
    let long = env
        .post(
            &items,
            json!({"displayName": "D", "type": "Notebook", "description": "x".repeat(257)}),
        )
        .await;
    assert_eq!(long.status, StatusCode::BAD_REQUEST);
    let both = env
        .post(
            &items,
            json!({"displayName": "B", "type": "Lakehouse", "creationPayload": {"enableSchemas": true},
                   "definition": {"parts": [part("lakehouse.metadata.json", "{}")]}}),
        )
        .await;
    assert_eq!(both.status, StatusCode::BAD_REQUEST);
    let bad_type = env
        .post(&items, json!({"displayName": "T", "type": "NoSuchType"}))
        .await;
    assert_eq!(bad_type.error_code(), "InvalidItemType");
    let corrupt = env
        .post(
            &items,
            json!({"displayName": "C", "type": "Notebook",
                   "definition": {"parts": [{"path": "notebook-content.py", "payload": "%%%", "payloadType": "InlineBase64"}]}}),
        )
        .await;
    assert_eq!(corrupt.error_code(), "CorruptedPayload");
    let no_folder = env
        .post(
            &items,
            json!({"displayName": "F", "type": "Notebook", "folderId": uuid::Uuid::new_v4()}),
        )
        .await;
    assert_eq!(no_folder.error_code(), "FolderNotFound");
    // A name a type's rules refuse (naming_rules.rs pins each rule); nothing is made.
    let dashed = env
        .post(
            &items,
            json!({"displayName": "lh-demo", "type": "Lakehouse"}),
        )
        .await;
    assert_eq!(dashed.error_code(), "InvalidInput");
    assert_eq!(env.get(&items).await.json()["value"], json!([]));
    // The service documents no character rule for notebooks, and Learn's git-integration page
    // says item names may hold what a directory name cannot (git encodes it): taken, and
    // renamed to, as they are.
    for name in [
        "a/b",
        "a\\b",
        "..",
        ".",
        "nul\u{0}here",
        "two\nlines",
        "tab\there",
    ] {
        let taken = env
            .post(&items, json!({"displayName": name, "type": "Notebook"}))
            .await;
        assert_eq!(taken.status, StatusCode::CREATED, "{name:?}");
        let id = taken.json()["id"].as_str().expect("id").to_string();
        let renamed = env
            .patch(
                &format!("{items}/{id}"),
                json!({"displayName": format!("../{name}")}),
            )
            .await;
        assert_eq!(renamed.status, StatusCode::OK, "{name:?}");
        env.delete(&format!("{items}/{id}")).await;
    }
    let exactly_256 = env
        .post(
            &items,
            json!({"displayName": "D", "type": "Notebook", "description": "é".repeat(256)}),
        )
        .await;
    assert_eq!(exactly_256.status, StatusCode::CREATED);
}

#[tokio::test]
async fn typed_collections_imply_the_type() {
    let env = start(inline()).await;
    let ws = env.workspace("Typed").await;
    let agent = env
        .post(
            &format!("/workspaces/{ws}/dataAgents"),
            json!({"displayName": "Agent"}),
        )
        .await;
    assert_eq!(agent.status, StatusCode::CREATED);
    let agent = agent.json();
    assert_eq!(agent["type"], "DataAgent");
    let id = agent["id"].as_str().unwrap();
    let typed = env
        .get(&format!("/workspaces/{ws}/dataAgents/{id}"))
        .await
        .json();
    assert_eq!(typed["properties"], json!({}));
    let generic = env
        .get(&format!("/workspaces/{ws}/items/{id}"))
        .await
        .json();
    assert!(generic.get("properties").is_none());
    // The default definition has the two config files.
    let def = env
        .post(
            &format!("/workspaces/{ws}/dataAgents/{id}/getDefinition"),
            json!({}),
        )
        .await;
    let paths: Vec<String> = parts_of(&def.json()).into_iter().map(|(p, _)| p).collect();
    assert!(paths.contains(&"Files/Config/data_agent.json".to_string()));
    assert!(paths.contains(&"Files/Config/draft/stage_config.json".to_string()));
    // The item is not served under another type's collection.
    let wrong = env.get(&format!("/workspaces/{ws}/notebooks/{id}")).await;
    assert_eq!(wrong.error_code(), "ItemNotFound");
    let rejected = env
        .post(
            &format!("/workspaces/{ws}/dataAgents"),
            json!({"displayName": "Agent2", "creationPayload": {}}),
        )
        .await;
    assert_eq!(rejected.status, StatusCode::BAD_REQUEST);
    // Lakehouses come with their SQL endpoint; the typed list shows only lakehouses.
    let lake = env
        .post(
            &format!("/workspaces/{ws}/lakehouses"),
            json!({"displayName": "Lake", "type": "Lakehouse"}),
        )
        .await
        .json();
    let lakes = env
        .get(&format!("/workspaces/{ws}/lakehouses"))
        .await
        .json();
    assert_eq!(lakes["value"].as_array().unwrap().len(), 1);
    let endpoints = env
        .get(&format!("/workspaces/{ws}/items?type=SQLEndpoint"))
        .await
        .json();
    assert_eq!(endpoints["value"][0]["displayName"], "Lake");
    let sql_id = endpoints["value"][0]["id"].as_str().unwrap();
    let unsupported = env
        .post(
            &format!("/workspaces/{ws}/items/{sql_id}/getDefinition"),
            json!({}),
        )
        .await;
    assert_eq!(unsupported.status, StatusCode::BAD_REQUEST);
    assert_eq!(unsupported.error_code(), "OperationNotSupportedForItem");
    assert_eq!(lake["type"], "Lakehouse");
}

#[tokio::test]
async fn sensitivity_labels_show_on_the_item() {
    let env = start(inline()).await;
    let ws = env.workspace("Labels").await;
    let label = uuid::Uuid::new_v4().to_string();
    let item = env
        .create_item(
            &ws,
            json!({"displayName": "L", "type": "Notebook",
                   "sensitivityLabelSettings": {"labelId": label, "sensitivityLabelApplyStrategy": "Ignore"}}),
        )
        .await;
    assert_eq!(item["sensitivityLabel"], json!({"id": label}));
}

#[tokio::test]
async fn paging_walks_all_items_and_keeps_filters() {
    let env = start(fabsh_local::Faults {
        page_size: 3,
        ..inline()
    })
    .await;
    let ws = env.workspace("Paging").await;
    for i in 0..10 {
        env.create_item(
            &ws,
            json!({"displayName": format!("nb{i}"), "type": "Notebook"}),
        )
        .await;
        env.create_item(
            &ws,
            json!({"displayName": format!("dp{i}"), "type": "DataPipeline"}),
        )
        .await;
    }
    let (all, pages) = env.collect(&format!("/workspaces/{ws}/items")).await;
    assert_eq!(all.len(), 20);
    assert_eq!(pages, 7);
    let (notebooks, pages) = env
        .collect(&format!("/workspaces/{ws}/items?type=Notebook"))
        .await;
    assert_eq!(pages, 4);
    let names: Vec<&str> = notebooks
        .iter()
        .map(|n| n["displayName"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..10).map(|i| format!("nb{i}")).collect();
    assert_eq!(names, expected);

    // The bare token works as a query parameter too, and carries the filter.
    let first = env
        .get(&format!("/workspaces/{ws}/items?type=DataPipeline"))
        .await
        .json();
    let token = first["continuationToken"].as_str().unwrap();
    let second = env
        .http
        .get(env.url(&format!("/workspaces/{ws}/items")))
        .query(&[("continuationToken", token)])
        .bearer_auth(&env.token)
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap();
    let types: Vec<&str> = second["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, vec!["DataPipeline"; 3]);
    let uri = first["continuationUri"].as_str().unwrap();
    assert!(uri.starts_with(&format!(
        "{}/v1/workspaces/{ws}/items?continuationToken=",
        env.origin()
    )));
    let bad = env
        .get(&format!("/workspaces/{ws}/items?continuationToken=garbage"))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn hard_delete_removes_the_item_and_its_children() {
    let env = start(inline()).await;
    let ws = env.workspace("Hard").await;
    let lake = env
        .create_item(&ws, json!({"displayName": "Lake", "type": "Lakehouse"}))
        .await;
    let path = format!(
        "/workspaces/{ws}/items/{}?hardDelete=True",
        lake["id"].as_str().unwrap()
    );
    assert_eq!(env.delete(&path).await.status, StatusCode::OK);
    assert_eq!(
        env.get(&format!("/workspaces/{ws}/items")).await.json()["value"],
        json!([])
    );
}
