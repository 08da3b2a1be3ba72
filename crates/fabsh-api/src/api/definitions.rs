//! Item definition requests: getDefinition (a POST that only reads) and updateDefinition.

use super::{ApiClient, LroOutcome, LroResponse, Req};
use crate::error::Result;
use reqwest::Method;
use serde_json::{Value, json};

/// The getDefinition request; `format` asks for a type-specific layout (`ipynb`, `TMSL`).
pub fn get_req(workspace: &str, id: &str, format: Option<&str>) -> Req {
    // The service takes no body here; sent as a read so retries and `--dry-run` treat it as one.
    Req::new(
        Method::POST,
        format!("/workspaces/{workspace}/items/{id}/getDefinition"),
    )
    .query_opt("format", format)
    .read_only()
}

/// The item's definition `{definition: {format?, parts}}` (or the pending operation).
pub async fn get(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    format: Option<&str>,
) -> Result<LroOutcome> {
    api.lro(get_req(workspace, id, format)).await
}

/// The item's definition as the raw response, for writing large definitions to disk.
pub async fn get_response(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    format: Option<&str>,
) -> Result<LroResponse> {
    api.lro_response(get_req(workspace, id, format)).await
}

/// Replaces the item's definition; `update_metadata` also applies the `.platform` part's
/// name and description.
pub async fn update(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    definition: Value,
    update_metadata: bool,
) -> Result<LroOutcome> {
    // A full replacement: sending it twice leaves the same state, so it may be retried.
    let req = Req::post(
        format!("/workspaces/{workspace}/items/{id}/updateDefinition"),
        json!({ "definition": definition }),
    )
    .query_opt("updateMetadata", update_metadata.then_some("true"))
    .idempotent();
    api.lro(req).await
}
