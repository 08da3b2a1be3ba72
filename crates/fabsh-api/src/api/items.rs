//! Generic item requests (`/workspaces/{ws}/items`). An answer a command may print as the
//! service sent it is returned as the caller's `T`: [`Item`] to read it, `Value` to pass it
//! through (its key order, nulls and unknown keys are the service's).

use super::typed::{read, read_each};
use super::{ApiClient, Created, Req};
use crate::error::Result;
use fabsh_model::wire::{CreateItemRequest, Item, MoveRequest, UpdateItemRequest};
use serde::Serialize;
use serde::de::DeserializeOwned;
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

/// Every item the filter lists, all pages.
pub async fn list_all(api: &ApiClient, workspace: &str, filter: &ListFilter) -> Result<Vec<Item>> {
    api.all_as(list_req(workspace, filter), "an item").await
}

/// One item; `include` asks for extra properties (`DefaultIdentity`).
pub async fn get<T: DeserializeOwned>(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    include: Option<&str>,
) -> Result<T> {
    let req = Req::get(format!("/workspaces/{workspace}/items/{id}")).query_opt("include", include);
    read(api.json(req).await?, "an item")
}

/// A request body as JSON: the wire types serialize to objects with string keys, always.
pub(crate) fn body_of(request: &impl Serialize) -> Result<Value> {
    serde_json::to_value(request).map_err(|err| crate::error::Error::runtime(err.to_string()))
}

/// Creates an item (possibly a long-running operation), never twice: a lost answer is
/// checked by name before resending. Display names are unique per type in a workspace, but
/// for the types whose names the service lets repeat, where an item of the name may be there
/// already, only an item of the name that was not there before the create counts.
pub async fn create(
    api: &ApiClient,
    workspace: &str,
    request: &CreateItemRequest,
) -> Result<Created> {
    let req = Req::post(format!("/workspaces/{workspace}/items"), body_of(request)?);
    let (name, item_type) = (&request.display_name, &request.item_type);
    if fabsh_model::item_types::names_unique(item_type) {
        return api
            .create_checked(req, || find_by_name(api, workspace, name, item_type))
            .await;
    }
    let before: Vec<String> = named(api, workspace, name, item_type)
        .await?
        .into_iter()
        .map(|(item, _)| item.id)
        .collect();
    api.create_checked(req, || async {
        let now = named(api, workspace, name, item_type).await?;
        Ok(now
            .into_iter()
            .find(|(item, _)| !before.contains(&item.id))
            .map(|(_, json)| json))
    })
    .await
}

/// Changes the display name and/or description; answers the item (see the module's note on
/// `T`).
pub async fn update<T: DeserializeOwned>(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    request: &UpdateItemRequest,
) -> Result<T> {
    let req = Req::patch(
        format!("/workspaces/{workspace}/items/{id}"),
        body_of(request)?,
    );
    read(api.json(req).await?, "the updated item")
}

/// Deletes an item: soft by default, permanently with `hard`.
pub async fn delete(api: &ApiClient, workspace: &str, id: &str, hard: bool) -> Result<()> {
    let req = Req::delete(format!("/workspaces/{workspace}/items/{id}"))
        .query_opt("hardDelete", hard.then_some("true"));
    api.send(req).await?;
    Ok(())
}

/// The item of `item_type` (any type when empty) with this display name (case-insensitive),
/// if any, as `T` (see the module's note).
pub async fn find_by_name<T: DeserializeOwned>(
    api: &ApiClient,
    workspace: &str,
    name: &str,
    item_type: &str,
) -> Result<Option<T>> {
    named(api, workspace, name, item_type)
        .await?
        .into_iter()
        .next()
        .map(|(_, json)| read(json, "an item"))
        .transpose()
}

/// The items of `item_type` (any type when empty) the display name stands for (exactly, or
/// else ignoring case, as `resolve::find_named` reads it), in listing order.
async fn named(
    api: &ApiClient,
    workspace: &str,
    name: &str,
    item_type: &str,
) -> Result<Vec<(Item, Value)>> {
    let filter = ListFilter {
        item_type: (!item_type.is_empty()).then(|| item_type.to_string()),
        ..ListFilter::default()
    };
    let listed = read_each::<Item>(api.all(list_req(workspace, &filter)).await?, "an item")?;
    Ok(super::resolve::matching(&listed, name)
        .into_iter()
        .cloned()
        .collect())
}

/// The list request for the connections an item uses.
pub fn connections_req(workspace: &str, id: &str) -> Req {
    Req::get(format!("/workspaces/{workspace}/items/{id}/connections"))
}

/// The items upstream (`"upstream"`: what it depends on) or downstream of an item, with the
/// relations between them (a beta API); printed as the service sends it.
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
/// `{value: [moved items]}`, printed as the service sends it.
pub async fn move_to_folder(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    folder: Option<&str>,
) -> Result<Value> {
    let body = body_of(&MoveRequest {
        target_folder_id: folder.map(str::to_string),
    })?;
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
