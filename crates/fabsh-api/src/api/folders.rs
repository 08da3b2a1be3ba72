//! Workspace folders (`/workspaces/{ws}/folders`, a preview API).

use super::{ApiClient, Created, Req};
use crate::error::Result;
use serde_json::{Value, json};

/// The list request: everything (`root` = `None`, `recursive` true) or below a folder.
pub fn list_req(workspace: &str, root: Option<&str>, recursive: Option<bool>) -> Req {
    Req::get(format!("/workspaces/{workspace}/folders"))
        .query_opt("rootFolderId", root)
        .query_opt("recursive", recursive.map(|r| r.to_string()))
}

/// Creates a folder, never twice: names are unique among siblings, so a lost answer is
/// checked by name under the same parent before resending.
pub async fn create(
    api: &ApiClient,
    workspace: &str,
    name: &str,
    parent: Option<&str>,
) -> Result<Created> {
    let mut body = json!({ "displayName": name });
    if let Some(parent) = parent {
        body["parentFolderId"] = json!(parent);
    }
    let req = Req::post(format!("/workspaces/{workspace}/folders"), body);
    api.create_checked(req, || async {
        let all = api.all(list_req(workspace, parent, Some(false))).await?;
        let siblings: Vec<Value> = all
            .into_iter()
            .filter(|f| f.get("parentFolderId").and_then(Value::as_str) == parent)
            .collect();
        Ok(super::resolve::find_named(&siblings, name))
    })
    .await
}

/// Deletes an empty folder.
pub async fn delete(api: &ApiClient, workspace: &str, id: &str) -> Result<()> {
    api.send(Req::delete(format!("/workspaces/{workspace}/folders/{id}")))
        .await?;
    Ok(())
}

/// Moves a folder under another (`None` = the workspace root).
pub async fn move_folder(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    target: Option<&str>,
) -> Result<Value> {
    let body = match target {
        Some(target) => json!({ "targetFolderId": target }),
        None => json!({}),
    };
    let req = Req::post(format!("/workspaces/{workspace}/folders/{id}/move"), body).idempotent();
    api.json(req).await
}
