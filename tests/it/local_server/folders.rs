//! Folders and item placement.

use super::{inline, start};
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn folders_nest_filter_items_and_refuse_non_empty_deletes() {
    let env = start(inline()).await;
    let ws = env.workspace("Folders").await;
    let folders = format!("/workspaces/{ws}/folders");
    let top = env.post(&folders, json!({"displayName": "top"})).await;
    assert_eq!(top.status, StatusCode::CREATED);
    let top_id = top.json()["id"].as_str().unwrap().to_string();
    assert_eq!(
        top.header("location").unwrap(),
        format!("{}/v1/workspaces/{ws}/folders/{top_id}", env.origin())
    );
    assert!(top.json().get("parentFolderId").is_none());
    let dup = env.post(&folders, json!({"displayName": "TOP"})).await;
    assert_eq!(dup.error_code(), "FolderDisplayNameAlreadyInUse");
    let child = env
        .post(
            &folders,
            json!({"displayName": "child", "parentFolderId": top_id}),
        )
        .await
        .json();
    let child_id = child["id"].as_str().unwrap().to_string();
    assert_eq!(child["parentFolderId"], top_id.as_str());

    let in_top = env
        .create_item(
            &ws,
            json!({"displayName": "a", "type": "Notebook", "folderId": top_id}),
        )
        .await;
    assert_eq!(in_top["folderId"], top_id.as_str());
    env.create_item(
        &ws,
        json!({"displayName": "b", "type": "Notebook", "folderId": child_id}),
    )
    .await;
    env.create_item(&ws, json!({"displayName": "c", "type": "Notebook"}))
        .await;

    let names = |v: serde_json::Value| -> Vec<String> {
        v["value"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["displayName"].as_str().unwrap().to_string())
            .collect()
    };
    let items = format!("/workspaces/{ws}/items");
    assert_eq!(
        names(
            env.get(&format!("{items}?rootFolderId={top_id}"))
                .await
                .json()
        ),
        ["a", "b"]
    );
    assert_eq!(
        names(
            env.get(&format!("{items}?rootFolderId={top_id}&recursive=False"))
                .await
                .json()
        ),
        ["a"]
    );
    assert_eq!(
        names(env.get(&format!("{items}?recursive=false")).await.json()),
        ["c"]
    );
    let missing = env
        .get(&format!("{items}?rootFolderId={}", uuid::Uuid::new_v4()))
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.error_code(), "FolderNotFound");
    assert_eq!(
        names(env.get(&format!("{folders}?recursive=True")).await.json()),
        ["top", "child"]
    );
    assert_eq!(
        names(env.get(&format!("{folders}?recursive=false")).await.json()),
        ["top"]
    );

    let refused = env.delete(&format!("{folders}/{top_id}")).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert_eq!(refused.error_code(), "FolderNotEmpty");
    assert_eq!(refused.json()["relatedResource"]["resourceType"], "Folder");

    // Empty the tree: move the item to the root, delete the child folder's item.
    let moved = env
        .post(
            &format!("{items}/{}/move", in_top["id"].as_str().unwrap()),
            json!({"targetFolderId": null}),
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK);
    assert!(moved.json()["value"][0].get("folderId").is_none());
    let in_child = env
        .get(&format!("{items}?rootFolderId={child_id}"))
        .await
        .json();
    let b = in_child["value"][0]["id"].as_str().unwrap();
    assert_eq!(
        env.delete(&format!("{items}/{b}")).await.status,
        StatusCode::OK
    );
    assert_eq!(
        env.delete(&format!("{folders}/{child_id}")).await.status,
        StatusCode::OK
    );
    assert_eq!(
        env.delete(&format!("{folders}/{top_id}")).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn folder_moves_keep_the_tree_finite_and_shallow() {
    let env = start(inline()).await;
    let ws = env.workspace("Tree").await;
    let folders = format!("/workspaces/{ws}/folders");
    let mut parent: Option<String> = None;
    let mut chain = Vec::new();
    for depth in 1..=10 {
        let body = json!({"displayName": format!("d{depth}"), "parentFolderId": parent});
        let reply = env.post(&folders, body).await;
        assert_eq!(
            reply.status,
            StatusCode::CREATED,
            "depth {depth}: {}",
            reply.text
        );
        let id = reply.json()["id"].as_str().unwrap().to_string();
        chain.push(id.clone());
        parent = Some(id);
    }
    let too_deep = env
        .post(
            &folders,
            json!({"displayName": "d11", "parentFolderId": parent}),
        )
        .await;
    assert_eq!(too_deep.error_code(), "FolderDepthOutOfRange");
    let into_itself = env
        .post(
            &format!("{folders}/{}/move", chain[0]),
            json!({"targetFolderId": chain[5]}),
        )
        .await;
    assert_eq!(into_itself.error_code(), "InfiniteFolderHierarchyLoop");
    let to_root = env
        .post(&format!("{folders}/{}/move", chain[5]), json!({}))
        .await;
    assert_eq!(to_root.status, StatusCode::OK);
    assert!(to_root.json().get("parentFolderId").is_none());
    let renamed = env
        .patch(
            &format!("{folders}/{}", chain[5]),
            json!({"displayName": "six"}),
        )
        .await;
    assert_eq!(renamed.json()["displayName"], "six");
}
