//! Workspace requests (`/workspaces`). As with items, an answer a command may print is the
//! caller's `T`: [`Workspace`] to read it, `Value` to pass it through as the service sent it.

use super::items::body_of;
use super::typed::{read, read_each};
use super::{ApiClient, Created, Req};
use crate::error::Result;
use fabsh_model::wire::{CreateWorkspaceRequest, Workspace};
use serde::de::DeserializeOwned;

/// The list request for workspaces the caller can see.
pub fn list_req() -> Req {
    Req::get("/workspaces")
}

/// One workspace (GET answers the swagger's `WorkspaceInfo`: see [`Workspace`]).
pub async fn get<T: DeserializeOwned>(api: &ApiClient, id: &str) -> Result<T> {
    read(
        api.json(Req::get(format!("/workspaces/{id}"))).await?,
        "a workspace",
    )
}

/// Creates a workspace, never twice (names are unique).
pub async fn create(api: &ApiClient, request: &CreateWorkspaceRequest) -> Result<Created> {
    let req = Req::post("/workspaces", body_of(request)?);
    api.create_checked(req, || find_by_name(api, &request.display_name))
        .await
}

/// Deletes a workspace.
pub async fn delete(api: &ApiClient, id: &str) -> Result<()> {
    api.send(Req::delete(format!("/workspaces/{id}"))).await?;
    Ok(())
}

/// The workspace with this display name (case-insensitive), if any, as the service listed it.
pub async fn find_by_name(api: &ApiClient, name: &str) -> Result<Option<serde_json::Value>> {
    let listed = read_each::<Workspace>(api.all(list_req()).await?, "a workspace")?;
    Ok(super::resolve::find_named(&listed, name).map(|(_, json)| json))
}
