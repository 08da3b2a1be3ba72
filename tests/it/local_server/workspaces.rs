//! Workspaces and persistence across restarts.

use super::{Env, inline, start, start_in};
use reqwest::{Method, StatusCode};
use serde_json::json;

#[tokio::test]
async fn workspace_crud_round_trip() {
    let env = start(inline()).await;
    let created = env
        .post(
            "/workspaces",
            json!({"displayName": "Team", "description": "ours"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let ws = created.json();
    let id = ws["id"].as_str().unwrap().to_string();
    assert_eq!(
        created.header("location").unwrap(),
        format!("{}/v1/workspaces/{id}", env.origin())
    );
    assert_eq!(ws["type"], "Workspace");
    assert_eq!(ws["description"], "ours");
    let dup = env
        .post("/workspaces", json!({"displayName": "team"}))
        .await;
    assert_eq!(dup.status, StatusCode::CONFLICT);
    assert_eq!(dup.error_code(), "WorkspaceNameAlreadyExists");

    let path = format!("/workspaces/{id}");
    assert_eq!(env.get(&path).await.json()["displayName"], "Team");
    let patched = env
        .patch(&path, json!({"displayName": "Team 2", "unknown": 1}))
        .await;
    assert_eq!(patched.status, StatusCode::OK);
    assert_eq!(patched.json()["displayName"], "Team 2");
    assert_eq!(patched.json()["description"], "ours");

    let (_, token) = env
        .principal_token("contrib", Some(&id), Some("Contributor"))
        .await;
    let by_contributor = env.send_as(Some(&token), Method::DELETE, &path, None).await;
    assert_eq!(by_contributor.status, StatusCode::FORBIDDEN);
    assert_eq!(env.delete(&path).await.status, StatusCode::OK);
    let gone = env.get(&path).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    assert_eq!(gone.error_code(), "WorkspaceNotFound");
}

#[tokio::test]
async fn workspace_lists_page_and_filter_by_role() {
    let env = start(fabsh_local::Faults {
        page_size: 2,
        ..inline()
    })
    .await;
    for i in 0..4 {
        env.workspace(&format!("ws{i}")).await;
    }
    let (all, pages) = env.collect("/workspaces").await;
    assert_eq!(all.len(), 5, "Demo plus four");
    assert_eq!(pages, 3);
    let (_, token) = env
        .principal_token("viewer", Some("ws1"), Some("Viewer"))
        .await;
    let mine = env
        .send_as(Some(&token), Method::GET, "/workspaces", None)
        .await
        .json();
    assert_eq!(mine["value"].as_array().unwrap().len(), 1);
    assert_eq!(mine["value"][0]["displayName"], "ws1");
    let admins = env
        .send_as(
            Some(&token),
            Method::GET,
            "/workspaces?roles=Admin,Member",
            None,
        )
        .await
        .json();
    assert_eq!(admins["value"], json!([]));
}

#[tokio::test]
async fn state_and_tokens_survive_a_restart() {
    let env = start(inline()).await;
    let ws = env.workspace("Durable").await;
    let item = env
        .create_item(&ws, json!({"displayName": "keep", "type": "Notebook"}))
        .await;
    let (_, sp_token) = env
        .principal_token("durable-sp", Some(&ws), Some("Viewer"))
        .await;
    let Env {
        server,
        dir,
        http,
        token,
    } = env;
    server.shutdown().await;

    let server = start_in(dir.path(), inline()).await;
    let env = Env {
        server,
        dir,
        http,
        token,
    };
    let path = format!("/workspaces/{ws}/items/{}", item["id"].as_str().unwrap());
    let fetched = env.get(&path).await;
    assert_eq!(
        fetched.status,
        StatusCode::OK,
        "the old admin token still works"
    );
    assert_eq!(fetched.json(), item);
    let as_sp = env.send_as(Some(&sp_token), Method::GET, &path, None).await;
    assert_eq!(
        as_sp.status,
        StatusCode::OK,
        "the service principal's token still works"
    );
    let names: Vec<String> = env.get("/workspaces").await.json()["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["displayName"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["Demo", "Durable"], "the demo is seeded once");
}
