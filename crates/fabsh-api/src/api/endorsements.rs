//! Endorsements. Fabric has no endorsement API; the Power BI groups API lists the artifacts
//! of a workspace with their `endorsementDetails` (reference §2.20). Against the real service
//! that is `https://api.powerbi.com/v1.0/myorg`; any other endpoint (local Fabric) serves the
//! same routes on its own origin.

use super::{ApiClient, Req};
use crate::error::Result;
use serde_json::Value;

/// The Power BI API base for this client's endpoint.
pub fn powerbi_base(api: &ApiClient) -> String {
    let base = api.base();
    match base.host_str() {
        Some(host) if host.ends_with(".fabric.microsoft.com") || host.ends_with(".powerbi.com") => {
            "https://api.powerbi.com/v1.0/myorg".to_string()
        }
        _ => format!("{}/v1.0/myorg", base.origin().ascii_serialization()),
    }
}

/// The artifacts of one Power BI collection (`datasets`, `reports`, ...) in a workspace.
pub async fn list(api: &ApiClient, workspace: &str, collection: &str) -> Result<Vec<Value>> {
    let url = format!("{}/groups/{workspace}/{collection}", powerbi_base(api));
    let body = api.json(Req::get(url)).await?;
    Ok(super::Page::from_body(body)?.items)
}
