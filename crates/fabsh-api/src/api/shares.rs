//! External data shares (provider side, under an item) and their invitations (recipient side,
//! outside any workspace).

use super::{ApiClient, Req};
use crate::error::Result;
use serde_json::Value;

fn shares_path(workspace: &str, item: &str) -> String {
    format!("/workspaces/{workspace}/items/{item}/externalDataShares")
}

/// The list request for an item's external data shares.
pub fn list_req(workspace: &str, item: &str) -> Req {
    Req::get(shares_path(workspace, item))
}

/// One share.
pub async fn get(api: &ApiClient, workspace: &str, item: &str, share: &str) -> Result<Value> {
    api.json(Req::get(format!(
        "{}/{share}",
        shares_path(workspace, item)
    )))
    .await
}

/// Creates a share; `body` is `{paths, recipient}`. Answers the new share (201).
pub async fn create(api: &ApiClient, workspace: &str, item: &str, body: Value) -> Result<Value> {
    api.json(Req::post(shares_path(workspace, item), body))
        .await
}

/// Revokes a share for good; the service answers an empty 200.
pub async fn revoke(api: &ApiClient, workspace: &str, item: &str, share: &str) -> Result<()> {
    // Revoking twice leaves the same state, so a lost answer may be resent.
    let req = Req::new(
        reqwest::Method::POST,
        format!("{}/{share}/revoke", shares_path(workspace, item)),
    )
    .idempotent();
    api.send(req).await?;
    Ok(())
}

/// Deletes a share.
pub async fn delete(api: &ApiClient, workspace: &str, item: &str, share: &str) -> Result<()> {
    let req = Req::delete(format!("{}/{share}", shares_path(workspace, item)));
    api.send(req).await?;
    Ok(())
}

/// An invitation as its recipient sees it: the provider tenant and the shared paths.
pub async fn get_invitation(
    api: &ApiClient,
    invitation: &str,
    provider_tenant: &str,
) -> Result<Value> {
    let req = Req::get(format!("/externalDataShares/invitations/{invitation}"))
        .query("providerTenantId", provider_tenant);
    api.json(req).await
}

/// Accepts an invitation with the spec's body (`{providerTenantId, workspaceId, itemId,
/// payload}`); answers `{value: [shortcuts created]}`.
pub async fn accept_invitation(api: &ApiClient, invitation: &str, body: Value) -> Result<Value> {
    let req = Req::post(
        format!("/externalDataShares/invitations/{invitation}/accept"),
        body,
    );
    api.json(req).await
}
