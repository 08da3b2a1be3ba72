//! Workspace requests (`/workspaces`).

use super::{ApiClient, Created, Req};
use crate::error::Result;
use serde_json::Value;

/// The list request for workspaces the caller can see.
pub fn list_req() -> Req {
    Req::get("/workspaces")
}

/// One workspace.
pub async fn get(api: &ApiClient, id: &str) -> Result<Value> {
    api.json(Req::get(format!("/workspaces/{id}"))).await
}

/// Creates a workspace, never twice (names are unique).
pub async fn create(api: &ApiClient, body: Value) -> Result<Created> {
    let name = body["displayName"].as_str().unwrap_or_default().to_string();
    api.create_checked(Req::post("/workspaces", body), || find_by_name(api, &name))
        .await
}

/// Deletes a workspace.
pub async fn delete(api: &ApiClient, id: &str) -> Result<()> {
    api.send(Req::delete(format!("/workspaces/{id}"))).await?;
    Ok(())
}

/// The workspace with this display name (case-insensitive), if any.
pub async fn find_by_name(api: &ApiClient, name: &str) -> Result<Option<Value>> {
    let all = api.all(list_req()).await?;
    Ok(super::resolve::find_named(&all, name))
}
