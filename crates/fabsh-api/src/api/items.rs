//! Generic item requests (`/workspaces/{ws}/items`).

use super::{ApiClient, Created, Req};
use crate::error::Result;
use serde_json::Value;

/// Server-side filters of the item list.
#[derive(Debug, Default, Clone)]
pub struct ListFilter {
    pub item_type: Option<String>,
    pub root_folder_id: Option<String>,
    pub recursive: Option<bool>,
    pub include: Option<String>,
}

/// The list request for a workspace's items.
pub fn list_req(workspace: &str, filter: &ListFilter) -> Req {
    Req::get(format!("/workspaces/{workspace}/items"))
        .query_opt("type", filter.item_type.clone())
        .query_opt("rootFolderId", filter.root_folder_id.clone())
        .query_opt("recursive", filter.recursive.map(|r| r.to_string()))
        .query_opt("include", filter.include.clone())
}

/// One item; `include` asks for extra properties (`DefaultIdentity`).
pub async fn get(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    include: Option<&str>,
) -> Result<Value> {
    let req = Req::get(format!("/workspaces/{workspace}/items/{id}")).query_opt("include", include);
    api.json(req).await
}

/// Creates an item (possibly a long-running operation), never twice: display names are
/// unique per type in a workspace, so a lost answer is checked by name before resending.
pub async fn create(api: &ApiClient, workspace: &str, body: Value) -> Result<Created> {
    let name = body["displayName"].as_str().unwrap_or_default().to_string();
    let item_type = body["type"].as_str().unwrap_or_default().to_string();
    let req = Req::post(format!("/workspaces/{workspace}/items"), body);
    api.create_checked(req, || find_by_name(api, workspace, &name, &item_type))
        .await
}

/// Changes the display name and/or description.
pub async fn update(api: &ApiClient, workspace: &str, id: &str, body: Value) -> Result<Value> {
    let req = Req::patch(format!("/workspaces/{workspace}/items/{id}"), body);
    api.json(req).await
}

/// Deletes an item: soft by default, permanently with `hard`.
pub async fn delete(api: &ApiClient, workspace: &str, id: &str, hard: bool) -> Result<()> {
    let req = Req::delete(format!("/workspaces/{workspace}/items/{id}"))
        .query_opt("hardDelete", hard.then_some("true"));
    api.send(req).await?;
    Ok(())
}

/// The item of `item_type` with this display name (case-insensitive), if any.
pub async fn find_by_name(
    api: &ApiClient,
    workspace: &str,
    name: &str,
    item_type: &str,
) -> Result<Option<Value>> {
    let filter = ListFilter {
        item_type: (!item_type.is_empty()).then(|| item_type.to_string()),
        ..ListFilter::default()
    };
    let all = api.all(list_req(workspace, &filter)).await?;
    Ok(super::resolve::find_named(&all, name))
}

/// The list request for the connections an item uses.
pub fn connections_req(workspace: &str, id: &str) -> Req {
    Req::get(format!("/workspaces/{workspace}/items/{id}/connections"))
}

/// The items upstream (`"upstream"`: what it depends on) or downstream of an item, with the
/// relations between them (a beta API).
pub async fn relations(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    direction: &str,
) -> Result<Value> {
    let req = Req::get(format!(
        "/workspaces/{workspace}/items/{id}/relations/{direction}"
    ))
    .query("beta", "true");
    api.json(req).await
}

/// Moves an item (and its children) to a folder, `None` = the workspace root; answers
/// `{value: [moved items]}`.
pub async fn move_to_folder(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    folder: Option<&str>,
) -> Result<Value> {
    let body = match folder {
        Some(folder) => serde_json::json!({ "targetFolderId": folder }),
        None => serde_json::json!({}),
    };
    let req = Req::post(format!("/workspaces/{workspace}/items/{id}/move"), body).idempotent();
    api.json(req).await
}

/// Sets the item's logical id (the `.platform` `config.logicalId`).
pub async fn update_logical_id(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    logical_id: &str,
) -> Result<Value> {
    let req = Req::patch(
        format!("/workspaces/{workspace}/items/{id}/logicalId"),
        serde_json::json!({ "logicalId": logical_id }),
    );
    api.json(req).await
}
