//! External data shares (provider side, under an item) and their invitations (recipient side,
//! outside any workspace). Answers a command prints are the caller's `T` (`Value` passes the
//! service's JSON through, as in [`super::items`]).

use super::items::body_of;
use super::typed::read;
use super::{ApiClient, Req};
use crate::error::Result;
use fabsh_model::wire::{AcceptInvitationRequest, CreateExternalDataShareRequest, Page};
use serde::de::DeserializeOwned;
use serde_json::Value;

fn shares_path(workspace: &str, item: &str) -> String {
    format!("/workspaces/{workspace}/items/{item}/externalDataShares")
}

/// The list request for an item's external data shares.
pub fn list_req(workspace: &str, item: &str) -> Req {
    Req::get(shares_path(workspace, item))
}

/// One share.
pub async fn get<T: DeserializeOwned>(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    share: &str,
) -> Result<T> {
    let req = Req::get(format!("{}/{share}", shares_path(workspace, item)));
    read(api.json(req).await?, "an external data share")
}

/// Creates a share. Answers the new share (201), printed as the service sent it.
pub async fn create(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    request: &CreateExternalDataShareRequest,
) -> Result<Value> {
    api.json(Req::post(shares_path(workspace, item), body_of(request)?))
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

/// An invitation as its recipient sees it: the provider tenant and the shared paths
/// ([`fabsh_model::wire::ShareInvitation`] to read it, `Value` to print it).
pub async fn get_invitation<T: DeserializeOwned>(
    api: &ApiClient,
    invitation: &str,
    provider_tenant: &str,
) -> Result<T> {
    let req = Req::get(format!("/externalDataShares/invitations/{invitation}"))
        .query("providerTenantId", provider_tenant);
    read(api.json(req).await?, "an external data share invitation")
}

/// Accepts an invitation; answers the shortcuts it made, each as the service sent it (none
/// under `--dry-run`, which sends nothing).
pub async fn accept_invitation(
    api: &ApiClient,
    invitation: &str,
    request: &AcceptInvitationRequest,
) -> Result<Vec<Value>> {
    let req = Req::post(
        format!("/externalDataShares/invitations/{invitation}/accept"),
        body_of(request)?,
    );
    let answer = api.json(req).await?;
    if api.options().dry_run {
        return Ok(Vec::new());
    }
    Ok(read::<Page<Value>>(answer, "the accepted invitation's shortcuts")?.value)
}
