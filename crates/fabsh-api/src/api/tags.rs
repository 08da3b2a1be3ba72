//! Tags: the tenant's tags (`/tags`) and applying them to items.

use super::{ApiClient, Req};
use crate::error::Result;
use serde_json::json;

/// The list request for the tags the caller can apply.
pub fn list_req() -> Req {
    Req::get("/tags")
}

/// Applies tags to an item (applying one already there changes nothing).
pub async fn apply(api: &ApiClient, workspace: &str, id: &str, tag_ids: &[String]) -> Result<()> {
    send(api, workspace, id, "applyTags", tag_ids).await
}

/// Removes tags from an item.
pub async fn unapply(api: &ApiClient, workspace: &str, id: &str, tag_ids: &[String]) -> Result<()> {
    send(api, workspace, id, "unapplyTags", tag_ids).await
}

/// Applies tags to a workspace (Workspaces_ApplyWorkspaceTags) or removes them
/// (`apply` false: Workspaces_UnapplyWorkspaceTags).
pub async fn tag_workspace(
    api: &ApiClient,
    workspace: &str,
    tag_ids: &[String],
    apply: bool,
) -> Result<()> {
    let action = if apply { "applyTags" } else { "unapplyTags" };
    let req = Req::post(
        format!("/workspaces/{workspace}/{action}"),
        json!({ "tags": tag_ids }),
    )
    .idempotent();
    api.send(req).await?;
    Ok(())
}

async fn send(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    action: &str,
    tag_ids: &[String],
) -> Result<()> {
    // The REST spec names the field `tags`; one report says `tagIds` (reference §2.13). The
    // spec is the published contract, so it wins.
    let req = Req::post(
        format!("/workspaces/{workspace}/items/{id}/{action}"),
        json!({ "tags": tag_ids }),
    )
    .idempotent();
    api.send(req).await?;
    Ok(())
}
