//! Workspace-wide item requests: bulk export and import of definitions (beta, long-running),
//! bulk move (preview), and the default-identity assignment of an item (beta, long-running).

use super::{ApiClient, LroOutcome, LroResponse, Req};
use crate::error::Result;
use bytes::Bytes;
use serde_json::Value;

/// The reference marks these paths beta: the service wants `beta=true` on them.
fn beta(req: Req) -> Req {
    req.query("beta", "true")
}

/// Exports definitions (`{mode: All}` or `{mode: Selective, items: [{id}]}`); the raw
/// result, so a large export can be written to files without parsing it whole.
pub async fn export(api: &ApiClient, workspace: &str, body: Value) -> Result<LroResponse> {
    // Only reads: retried like a read, and sent during `--dry-run`.
    let req = beta(Req::post(
        format!("/workspaces/{workspace}/items/bulkExportDefinitions"),
        body,
    ))
    .read_only();
    api.lro_response(req).await
}

/// Imports definitions from a body already serialized (`{definitionParts, options?}`).
pub async fn import(api: &ApiClient, workspace: &str, body: Bytes) -> Result<LroOutcome> {
    let req = beta(Req::new(
        reqwest::Method::POST,
        format!("/workspaces/{workspace}/items/bulkImportDefinitions"),
    ))
    .raw_json_body(body);
    api.lro(req).await
}

/// Moves up to 50 items (with their children) to a folder: synchronous per the spec, a
/// long-running operation per other reports, so both answers are taken.
pub async fn move_items(api: &ApiClient, workspace: &str, body: Value) -> Result<LroOutcome> {
    // All-or-nothing and absolute (a target folder), so sending it twice changes nothing more.
    let req = Req::post(format!("/workspaces/{workspace}/items/bulkMove"), body).idempotent();
    api.lro(req).await
}

/// Assigns the item's default identity (`{assignmentType: "Caller"}`); answers
/// `{assignmentStatus: [{itemId, status, parentItemId?, errorInfo?}]}`, child items included.
pub async fn assign_identity(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    assignment_type: &str,
) -> Result<LroOutcome> {
    let req = beta(Req::post(
        format!("/workspaces/{workspace}/items/{item}/identities/default/assign"),
        serde_json::json!({ "assignmentType": assignment_type }),
    ))
    .idempotent();
    api.lro(req).await
}
