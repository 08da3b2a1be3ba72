//! `…/{id}/externalDataShares[/{share}[/revoke]]`: the provider side of external data
//! sharing. A share is Pending until its invitation is accepted (Active), and Revoked for good
//! once revoked; a Pending share past its expiry reads as InvitationExpired.

use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, JsonBody, Origin, norm};
use crate::state::Shared;
use crate::store::new_id;
use crate::store::principals::{self, Role};
use crate::store::shares::{self, PENDING, REVOKED, Share};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use fabsh_model::wire::ShareRecipient;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Item types local Fabric shares data from (those with OneLake tables and files).
const SHAREABLE: &[&str] = &[
    "Lakehouse",
    "Warehouse",
    "KQLDatabase",
    "MirroredDatabase",
    "SQLDatabase",
];
/// How long an invitation stays open.
const INVITATION_NANOS: i64 = 90 * 24 * 3600 * 1_000_000_000;
/// Most paths one share carries.
const MAX_PATHS: usize = 100;
/// Longest user principal name.
const MAX_UPN: usize = 256;

/// Where a recipient reads the invitation: the invitation API itself, with the provider's
/// tenant, so the URL alone is enough to accept.
pub(super) fn invitation_url(origin: &str, share: &Share) -> String {
    format!(
        "{origin}/v1/externalDataShares/invitations/{}?providerTenantId={}",
        share.id, share.provider_tenant_id
    )
}

fn share_not_found(id: &str) -> ApiError {
    ApiError::entity_not_found().related(id, "ExternalDataShare")
}

/// The `{share}` of a share route.
#[derive(Deserialize)]
pub(super) struct SharePath {
    share: String,
}

/// GET: a page of the item's shares.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    // Contributor throughout: reading a share is reading what can be reshared.
    let item = target.open(&state, &caller, Role::Contributor)?;
    let list = PageToken {
        extra: Some(item.id.clone()),
        ..PageToken::first("externalDataShares", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    let now = now_nanos();
    let origin = &paging.origin;
    paging.respond(
        &token,
        |after, limit| state.db.read(|c| shares::list(c, &item.id, after, limit)),
        |share| share.seq,
        |share| share.to_wire(now, &invitation_url(origin, share)),
    )
}

/// A field by name, any case: the recorded client sends `userprincipalname`, `tenantid`.
fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    obj.iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value)
        .filter(|value| !value.is_null())
}

fn text_field(obj: &Map<String, Value>, name: &str) -> Result<Option<String>, ApiError> {
    match field(obj, name) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.trim().to_string())),
        Some(_) => Err(ApiError::invalid_body(format!("'{name}' must be a string"))),
    }
}

fn guid_field(obj: &Map<String, Value>, name: &str) -> Result<Option<String>, ApiError> {
    text_field(obj, name)?
        .map(|text| {
            uuid::Uuid::try_parse(&text)
                .map(|id| id.to_string())
                .map_err(|_| ApiError::invalid_body(format!("'{name}' must be a GUID")))
        })
        .transpose()
}

/// The paths of a create body: 1 to 100, each below `Files/` or `Tables/`.
fn paths(obj: &Map<String, Value>) -> Result<Vec<String>, ApiError> {
    let listed = field(obj, "paths")
        .and_then(Value::as_array)
        .filter(|paths| !paths.is_empty() && paths.len() <= MAX_PATHS)
        .ok_or_else(|| {
            ApiError::invalid_body(format!("'paths' must hold 1 to {MAX_PATHS} paths"))
        })?;
    let mut paths = Vec::with_capacity(listed.len());
    for path in listed {
        let path = path
            .as_str()
            .ok_or_else(|| ApiError::invalid_body("'paths' must hold strings"))?;
        let below_root = ["Files/", "Tables/"]
            .iter()
            .find_map(|root| path.strip_prefix(root))
            .is_some_and(|rest| !rest.trim_matches('/').is_empty());
        if !below_root {
            return Err(ApiError::invalid_body(format!(
                "The path '{path}' must start with Files/ or Tables/ and name something below it"
            )));
        }
        paths.push(path.to_string());
    }
    Ok(paths)
}

/// The recipient of a create body, in the live shape: `{type: User, userPrincipalName,
/// tenantId?}` (the default type) or `{type: ServicePrincipal, principalId, tenantId}`.
fn recipient(obj: &Map<String, Value>) -> Result<ShareRecipient, ApiError> {
    let recipient = field(obj, "recipient")
        .and_then(Value::as_object)
        .ok_or_else(|| ApiError::invalid_body("The 'recipient' field is required"))?;
    let tenant = guid_field(recipient, "tenantId")?;
    match text_field(recipient, "type")?.as_deref().unwrap_or("User") {
        "User" => {
            let upn = text_field(recipient, "userPrincipalName")?
                .filter(|upn| !upn.is_empty() && upn.chars().count() <= MAX_UPN)
                .ok_or_else(|| {
                    ApiError::invalid_body(format!(
                        "A User recipient needs a 'userPrincipalName' of at most {MAX_UPN} characters"
                    ))
                })?;
            Ok(ShareRecipient::user(&upn, tenant.as_deref()))
        }
        "ServicePrincipal" => {
            let principal = guid_field(recipient, "principalId")?.ok_or_else(|| {
                ApiError::invalid_body("A ServicePrincipal recipient needs a 'principalId'")
            })?;
            let tenant = tenant.ok_or_else(|| {
                ApiError::invalid_body("A ServicePrincipal recipient needs a 'tenantId'")
            })?;
            Ok(ShareRecipient::service_principal(&principal, &tenant))
        }
        other => Err(ApiError::invalid_body(format!(
            "Unknown recipient type '{other}'"
        ))),
    }
}

/// POST: 201 with the share and its `Location`.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Contributor)?;
    let obj = body.object()?;
    let paths = paths(&obj)?;
    let recipient = recipient(&obj)?;
    if !SHAREABLE.contains(&item.item_type.as_str()) {
        return Err(ApiError::bad_request(
            "ExternalDataShareOperationNotSupportedForItemType",
            format!(
                "Items of type {} cannot be shared externally",
                item.item_type
            ),
        ));
    }
    let creator = state
        .db
        .read(|c| principals::get_principal(c, &caller.principal_id))?
        .ok_or_else(ApiError::unauthorized)?;
    let now = now_nanos();
    let mut share = Share {
        seq: 0,
        id: new_id(),
        workspace_id: target.ws.clone(),
        item_id: item.id.clone(),
        provider_tenant_id: creator.tenant_id,
        creator_id: creator.id,
        creator_type: creator.kind,
        paths,
        recipient,
        status: PENDING.to_string(),
        created_at: now,
        expires_at: now.saturating_add(INVITATION_NANOS),
        accepted_by_tenant_id: None,
    };
    share.seq = state.db.write(|tx| shares::insert(tx, &share))?;
    let mut response = respond::json(
        StatusCode::CREATED,
        &share.to_wire(now, &invitation_url(&origin, &share)),
    );
    let location = format!(
        "{origin}/v1/workspaces/{}/{}/{}/externalDataShares/{}",
        target.ws, target.collection, target.id, share.id
    );
    if let Ok(value) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    Ok(response)
}

/// GET one share.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    Path(SharePath { share }): Path<SharePath>,
) -> Result<Response, ApiError> {
    let share = norm(&share);
    let item = target.open(&state, &caller, Role::Contributor)?;
    let found = state
        .db
        .read(|c| shares::get(c, &item.id, &share))?
        .ok_or_else(|| share_not_found(&share))?;
    Ok(respond::json(
        StatusCode::OK,
        &found.to_wire(now_nanos(), &invitation_url(&origin, &found)),
    ))
}

/// Applies `change` to an existing share of the item, in one transaction; empty 200.
fn change_share(
    state: &Shared,
    caller: &Caller,
    target: ItemTarget,
    share: &str,
    change: impl FnOnce(&rusqlite::Connection, &str) -> rusqlite::Result<()>,
) -> Result<Response, ApiError> {
    let share = norm(share);
    let item = target.open(state, caller, Role::Contributor)?;
    state.db.write(|tx| {
        shares::get(tx, &item.id, &share)?.ok_or_else(|| share_not_found(&share))?;
        change(tx, &share)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::empty_ok())
}

/// POST `…/revoke`: empty 200; revoking a revoked share changes nothing.
pub(super) fn revoke(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(SharePath { share }): Path<SharePath>,
) -> Result<Response, ApiError> {
    change_share(&state, &caller, target, &share, |tx, share| {
        shares::set_status(tx, share, REVOKED, None)
    })
}

/// DELETE: empty 200.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(SharePath { share }): Path<SharePath>,
) -> Result<Response, ApiError> {
    change_share(&state, &caller, target, &share, |tx, share| {
        shares::delete(tx, share).map(|_| ())
    })
}
