//! Workspace folders (`/workspaces/{ws}/folders`, a preview API).

use super::items::body_of;
use super::typed::read_each;
use super::{ApiClient, Created, Req};
use crate::error::Result;
use fabsh_model::wire::{CreateFolderRequest, Folder, MoveRequest};
use serde_json::Value;

/// The list request: everything (`root` = `None`, `recursive` true) or below a folder.
pub fn list_req(workspace: &str, root: Option<&str>, recursive: Option<bool>) -> Req {
    Req::get(format!("/workspaces/{workspace}/folders"))
        .query_opt("rootFolderId", root)
        .query_opt("recursive", recursive.map(|r| r.to_string()))
}

/// Every folder the request lists, all pages.
pub async fn list_all(
    api: &ApiClient,
    workspace: &str,
    root: Option<&str>,
    recursive: Option<bool>,
) -> Result<Vec<Folder>> {
    api.all_as(list_req(workspace, root, recursive), "a folder")
        .await
}

/// Creates a folder, never twice: names are unique among siblings, so a lost answer is
/// checked by name under the same parent before resending. The answer (or the folder found)
/// is as the service sent it, for printing.
pub async fn create(
    api: &ApiClient,
    workspace: &str,
    name: &str,
    parent: Option<&str>,
) -> Result<Created> {
    let request = CreateFolderRequest {
        display_name: name.to_string(),
        parent_folder_id: parent.map(str::to_string),
    };
    let req = Req::post(
        format!("/workspaces/{workspace}/folders"),
        body_of(&request)?,
    );
    api.create_checked(req, || async {
        let listed = api.all(list_req(workspace, parent, Some(false))).await?;
        let siblings: Vec<(Folder, Value)> = read_each::<Folder>(listed, "a folder")?
            .into_iter()
            .filter(|(folder, _)| folder.parent_folder_id.as_deref() == parent)
            .collect();
        Ok(super::resolve::find_named(&siblings, name).map(|(_, json)| json))
    })
    .await
}

/// Deletes an empty folder.
pub async fn delete(api: &ApiClient, workspace: &str, id: &str) -> Result<()> {
    api.send(Req::delete(format!("/workspaces/{workspace}/folders/{id}")))
        .await?;
    Ok(())
}

/// Moves a folder under another (`None` = the workspace root); answers the folder, printed as
/// the service sends it.
pub async fn move_folder(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    target: Option<&str>,
) -> Result<Value> {
    let body = body_of(&MoveRequest {
        target_folder_id: target.map(str::to_string),
    })?;
    let req = Req::post(format!("/workspaces/{workspace}/folders/{id}/move"), body).idempotent();
    api.json(req).await
}
