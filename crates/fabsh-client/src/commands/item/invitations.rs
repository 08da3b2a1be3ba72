//! `item get-invitation | accept-invitation`: the recipient side of external data sharing.
//!
//! The reference reports two accept bodies: the spec's `{providerTenantId, workspaceId, itemId,
//! payload: {payloadType: "ShortcutCreation", path, createShortcutRequests: [{pathId,
//! shortcutName}]}}`, and a shorter `{workspaceId, displayName}` seen by another client. We
//! send the spec's. It creates shortcuts inside an existing item, so `--name` names that item:
//! a lakehouse of that name in the target workspace is used, or made first, and one shortcut
//! per shared path is created in it. A lakehouse made here is deleted again when the accept
//! fails, so a refused invitation leaves nothing behind.

use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::{items, shares};
use fabsh_model::item_types;
use fabsh_model::wire::{
    AcceptInvitationRequest, CreateItemRequest, Item, ShareInvitation, ShortcutCreationPayload,
    ShortcutRequest,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashSet;

/// The item type the accepted share's shortcuts live in.
const TARGET_TYPE: &str = item_types::LAKEHOUSE;

const INVITATION_ID: ArgSpec = ArgSpec::req("invitation-id", ArgKind::Uuid, "Invitation id");
const PROVIDER_TENANT_ID: ArgSpec = ArgSpec::req(
    "provider-tenant-id",
    ArgKind::Uuid,
    "Tenant of the provider who shared",
);
const INVITATION_ID_OR_URL: ArgSpec = ArgSpec::req(
    "invitation-id",
    ArgKind::Str,
    "Invitation id, or the invitation URL the provider sent (it carries the provider's tenant)",
)
.value_name("ID|URL");
const TARGET_WORKSPACE: ArgSpec = ArgSpec::req(
    "workspace",
    ArgKind::Ref,
    "Target workspace id or display name",
)
.short('w');
const LAKEHOUSE_NAME: ArgSpec = ArgSpec::req(
    "name",
    ArgKind::Str,
    "Display name of the lakehouse that receives the shortcuts",
);
const PROVIDER_TENANT_ID_UNLESS_URL: ArgSpec = ArgSpec::opt(
    "provider-tenant-id",
    ArgKind::Uuid,
    "Tenant of the provider (needed unless --invitation-id is the invitation URL)",
);

pub(super) const GET_INVITATION: CommandSpec = CommandSpec {
    group: "item",
    name: "get-invitation",
    summary: "Show an external data share invitation: the provider and the shared paths",
    about: "Needs no workspace: the invitation comes from another tenant. The invitation id is the provider's share id.",
    args: &[INVITATION_ID, PROVIDER_TENANT_ID],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item get-invitation --invitation-id \"$INVITATION_ID\" --provider-tenant-id \"$PROVIDER_TENANT_ID\"",
        about: "what was shared",
    }],
    handler: Handler::Data(handler::<GetInvitation>),
};

pub(super) const ACCEPT_INVITATION: CommandSpec = CommandSpec {
    group: "item",
    name: "accept-invitation",
    summary: "Accept an external data share invitation into a workspace",
    about: "Two accept bodies have been reported; this sends the spec's ({providerTenantId, workspaceId, itemId, payload: {payloadType: ShortcutCreation, path, createShortcutRequests}}), not the shorter {workspaceId, displayName}. That body creates shortcuts inside an item: the lakehouse named --name in the target workspace is used, or created first, and gets one shortcut per shared path (under Tables when every path is a table, else under Files), named after the path. A lakehouse created here is deleted again if the accept fails. Prints {item, created, shortcuts}. The provider's tenant comes from --provider-tenant-id or from the invitation URL given as --invitation-id. An invitation cannot be accepted in the provider's own tenant.",
    args: &[
        INVITATION_ID_OR_URL,
        TARGET_WORKSPACE,
        LAKEHOUSE_NAME,
        PROVIDER_TENANT_ID_UNLESS_URL,
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "item accept-invitation --invitation-id \"$INVITATION_ID\" --provider-tenant-id \"$PROVIDER_TENANT_ID\" -w Inbox --name SharedSales",
        about: "shortcuts in a new lakehouse SharedSales",
    }],
    handler: Handler::Data(handler::<AcceptInvitation>),
};

typed_args! {
    /// `item get-invitation`.
    struct GetInvitation {
        invitation: String = INVITATION_ID,
        provider_tenant: String = PROVIDER_TENANT_ID,
    }
}

impl Command for GetInvitation {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let invitation: Value =
                shares::get_invitation(ctx.api(), &self.invitation, &self.provider_tenant).await?;
            Ok(Reply::json(invitation))
        })
    }
}

typed_args! {
    /// `item accept-invitation`.
    struct AcceptInvitation {
        invitation: String = INVITATION_ID_OR_URL,
        workspace: String = TARGET_WORKSPACE,
        name: String = LAKEHOUSE_NAME,
        provider_tenant: Option<String> = PROVIDER_TENANT_ID_UNLESS_URL,
    }
}

/// The invitation id and the provider tenant, from `--invitation-id` (an id or the invitation
/// URL) and `--provider-tenant-id`.
fn invitation_and_tenant(
    invitation: &str,
    provider_tenant: Option<&str>,
) -> Result<(String, String)> {
    let given = invitation.trim();
    let flag_tenant = provider_tenant;
    let (id, url_tenant) = match uuid::Uuid::try_parse(given) {
        Ok(id) => (id.to_string(), None),
        Err(_) => parse_invitation_url(given)?,
    };
    let tenant = match (flag_tenant, url_tenant) {
        (Some(flag), Some(url)) if !flag.eq_ignore_ascii_case(&url) => {
            return Err(Error::usage(format!(
                "--provider-tenant-id {flag} differs from the tenant in the invitation URL ({url})"
            )));
        }
        (Some(flag), _) => flag.to_string(),
        (None, Some(url)) => url,
        (None, None) => {
            return Err(Error::usage(
                "--provider-tenant-id is required when --invitation-id is a bare id",
            )
            .with_hint(
                "the invitation URL the provider sent carries it: pass that URL as --invitation-id",
            ));
        }
    };
    Ok((id, tenant))
}

/// `(invitation id, provider tenant)` from an invitation URL: the GUID after `invitations/`
/// and the `providerTenantId` query parameter.
fn parse_invitation_url(text: &str) -> Result<(String, Option<String>)> {
    let bad = || {
        Error::usage(format!(
            "--invitation-id must be an invitation id (a GUID) or an invitation URL, got {text:?}"
        ))
    };
    let url = reqwest::Url::parse(text).map_err(|_| bad())?;
    // A URL that cannot be a base (`mailto:`) has no path segments: no invitation id is found
    // in none, which is the `bad()` error below.
    let segments: Vec<&str> = url.path_segments().into_iter().flatten().collect();
    let id = segments
        .iter()
        .position(|s| s.eq_ignore_ascii_case("invitations"))
        .and_then(|at| segments.get(at + 1))
        .and_then(|s| uuid::Uuid::try_parse(s).ok())
        .ok_or_else(bad)?;
    let tenant = url
        .query_pairs()
        .find(|(key, _)| key.eq_ignore_ascii_case("providerTenantId"))
        .map(|(_, value)| value.into_owned());
    if let Some(tenant) = &tenant
        && uuid::Uuid::try_parse(tenant).is_err()
    {
        return Err(Error::usage(format!(
            "--invitation-id: the URL's providerTenantId {tenant:?} is not a GUID"
        )));
    }
    Ok((id.to_string(), tenant))
}

/// One shortcut request per shared path, named after it (made unique), and where they go:
/// `Tables` when every path is a table, else `Files` (a table can live under Files as a folder,
/// a folder cannot live under Tables).
fn shortcut_payload(invitation: &ShareInvitation) -> Result<ShortcutCreationPayload> {
    let details = &invitation.paths_details;
    if details.is_empty() {
        return Err(Error::runtime("the invitation shares no paths"));
    }
    let all_tables = details.iter().all(|d| d.kind == "Table");
    let mut names = HashSet::new();
    let mut requests = Vec::with_capacity(details.len());
    for (index, detail) in details.iter().enumerate() {
        let base = detail
            .name
            .as_deref()
            .filter(|n| !n.is_empty())
            .map_or_else(|| format!("shared{}", index + 1), str::to_string);
        let mut name = base.clone();
        let mut suffix = 2;
        while !names.insert(name.to_lowercase()) {
            name = format!("{base}_{suffix}");
            suffix += 1;
        }
        requests.push(ShortcutRequest {
            path_id: detail.path_id.clone(),
            shortcut_name: name,
        });
    }
    Ok(ShortcutCreationPayload {
        payload_type: "ShortcutCreation".to_string(),
        path: if all_tables { "Tables" } else { "Files" }.to_string(),
        create_shortcut_requests: requests,
    })
}

impl Command for AcceptInvitation {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(self.accept(ctx))
    }
}

impl AcceptInvitation {
    async fn accept(self, ctx: Ctx) -> Result<Reply> {
        let (invitation_id, provider_tenant) =
            invitation_and_tenant(&self.invitation, self.provider_tenant.as_deref())?;
        let name = self.name.trim().to_string();
        if name.is_empty() {
            return Err(Error::usage("--name cannot be empty"));
        }
        let workspace = ctx.workspace_id(&self.workspace).await?;
        let api = ctx.api();
        let invitation: ShareInvitation =
            shares::get_invitation(api, &invitation_id, &provider_tenant).await?;
        let payload = shortcut_payload(&invitation)?;
        let found = items::find_by_name::<Value>(api, &workspace, &name, TARGET_TYPE).await?;
        let (item, created) = if let Some(existing) = found {
            (existing, false)
        } else {
            let body = CreateItemRequest::new(name.as_str(), TARGET_TYPE);
            let made = items::create(api, &workspace, &body).await?;
            (made.outcome.into_value(), true)
        };
        // Printed as the service sent it; read for its id, which a create still running
        // (`--no-wait`) does not have yet.
        let item_id = Item::deserialize(&item).map(|item| item.id).map_err(|_| {
            Error::runtime(format!(
                "the {TARGET_TYPE} to hold the shortcuts is not made yet; accept again once it is"
            ))
        })?;
        let body = AcceptInvitationRequest {
            provider_tenant_id: provider_tenant,
            workspace_id: workspace.clone(),
            item_id: item_id.clone(),
            payload,
        };
        match shares::accept_invitation(api, &invitation_id, &body).await {
            Ok(shortcuts) => Ok(Reply::json(json!({
                "item": item,
                "created": created,
                "shortcuts": shortcuts,
            }))),
            Err(err) if created => {
                let cleanup = items::delete(api, &workspace, &item_id, false).await;
                Err(match cleanup {
                    Ok(()) => err.with_hint(format!(
                        "the lakehouse {name} made for the shortcuts was deleted again"
                    )),
                    Err(cleanup) => err.with_hint(format!(
                        "the lakehouse {name} ({item_id}) made for the shortcuts is left over: {}",
                        cleanup.message
                    )),
                })
            }
            Err(err) => Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invitation_urls_give_id_and_tenant() {
        let (id, tenant) = parse_invitation_url(
            "https://app.fabric.microsoft.com/externalDataShares/invitations/EE58D0B0-37A8-4C19-A30E-B495823E8700?providerTenantId=c51dc03f-268a-4da0-a879-25f24947ab8b",
        )
        .expect("parsed");
        assert_eq!(id, "ee58d0b0-37a8-4c19-a30e-b495823e8700");
        assert_eq!(
            tenant.as_deref(),
            Some("c51dc03f-268a-4da0-a879-25f24947ab8b")
        );
        assert!(parse_invitation_url("not a url").is_err());
        assert!(parse_invitation_url("https://x/invitations/nope").is_err());
    }

    #[test]
    fn shortcuts_go_under_tables_only_when_every_path_is_a_table() {
        let invitation = |paths: Value| -> ShareInvitation {
            serde_json::from_value(json!({
                "providerTenantDetails": {
                    "tenantId": "t", "displayName": "T", "verifiedDomainName": "t.onmicrosoft.com"
                },
                "pathsDetails": paths,
            }))
            .expect("an invitation")
        };
        let tables = invitation(json!([
            {"pathId": "a", "type": "Table", "name": "sales"},
            {"pathId": "b", "type": "Table", "name": "sales"}
        ]));
        let payload = shortcut_payload(&tables).expect("payload");
        assert_eq!(payload.path, "Tables");
        assert_eq!(payload.create_shortcut_requests[1].shortcut_name, "sales_2");
        let mixed = invitation(json!([
            {"pathId": "a", "type": "Table", "name": "sales"},
            {"pathId": "b", "type": "Folder"}
        ]));
        let payload = shortcut_payload(&mixed).expect("payload");
        assert_eq!(payload.path, "Files");
        assert_eq!(
            payload.create_shortcut_requests[1].shortcut_name, "shared2",
            "a path without a name is named by its place"
        );
    }
}
