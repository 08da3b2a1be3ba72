//! `/v1/externalDataShares/invitations/{id}[/accept]`: the recipient side of external data
//! sharing. The invitation id is the share id. Accepting takes the spec's body and creates
//! one shortcut per requested path in the target lakehouse, kept in its
//! `shortcuts.metadata.json` part (so the accepted share shows in the item's definition),
//! and makes the share Active. Accepting needs a principal of another tenant than the
//! provider's; a ServicePrincipal recipient must be the caller, a User recipient is checked by
//! tenant only (local Fabric's principals are apps, so no user could accept otherwise).

use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::definitions::pretty;
use crate::respond::{self, JsonBody, Query, norm, req_str};
use crate::state::Shared;
use crate::store::items;
use crate::store::principals::{self, Role};
use crate::store::shares::{self, ACTIVE, EXPIRED, PENDING, REVOKED, Share};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::wire::{
    AcceptedShortcut, Page, ProviderTenantDetails, ShareInvitation, SharedPathDetails,
};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// The lakehouse part that lists its shortcuts.
const SHORTCUTS_PART: &str = "shortcuts.metadata.json";
/// Most shortcuts one accept creates.
const MAX_SHORTCUTS: usize = 100;

/// One shared path as the recipient sees it.
struct PathDetail {
    id: String,
    kind: &'static str,
    name: String,
    path: String,
}

/// The share's paths with stable GUID-shaped ids (the share id's first groups and the index).
fn path_details(share: &Share) -> Vec<PathDetail> {
    let prefix = share.id.get(..23).unwrap_or(&share.id);
    share
        .paths
        .iter()
        .enumerate()
        .map(|(index, path)| PathDetail {
            id: format!("{prefix}-{:012x}", index + 1),
            kind: if path.starts_with("Tables/") {
                "Table"
            } else {
                "Folder"
            },
            name: path
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(path)
                .to_string(),
            path: path.clone(),
        })
        .collect()
}

/// The share behind an invitation from this provider tenant; a revoked one is gone.
fn invitation(state: &Shared, id: &str, provider_tenant: &str) -> Result<Share, ApiError> {
    state
        .db
        .read(|c| shares::get_any(c, &norm(id)))?
        .filter(|share| {
            share
                .provider_tenant_id
                .eq_ignore_ascii_case(provider_tenant)
        })
        .filter(|share| share.status != REVOKED)
        .ok_or_else(|| ApiError::entity_not_found().related(id, "ExternalDataShareInvitation"))
}

/// GET `?providerTenantId=` (required): the provider and the shared paths.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    Path(id): Path<String>,
    query: Query,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let tenant = query
        .get("providerTenantId")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            ApiError::bad_request(
                "InvalidParameter",
                "The query parameter 'providerTenantId' is required",
            )
        })?;
    let share = invitation(&state, &id, tenant)?;
    // A tenant is named when it is made (and never removed), and a share is made by a
    // principal of a tenant: one the store has no name for is a store out of joint.
    let name = state
        .db
        .read(|c| principals::tenant_name(c, &share.provider_tenant_id))?
        .ok_or_else(|| ApiError::internal("the share's provider tenant is not in the store"))?;
    let domain: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_lowercase();
    let paths_details = path_details(&share)
        .into_iter()
        .map(|d| SharedPathDetails {
            path_id: d.id,
            kind: d.kind.to_string(),
            name: Some(d.name),
            extra: Map::new(),
        })
        .collect();
    let invitation = ShareInvitation {
        provider_tenant_details: ProviderTenantDetails {
            tenant_id: share.provider_tenant_id,
            display_name: name,
            verified_domain_name: format!("{domain}.onmicrosoft.com"),
            extra: Map::new(),
        },
        paths_details,
        extra: Map::new(),
    };
    Ok(respond::json(StatusCode::OK, &invitation))
}

/// The accept body's payload: where the shortcuts go and `(pathId, shortcutName)` pairs.
fn shortcut_requests(
    obj: &Map<String, Value>,
) -> Result<(String, Vec<(String, String)>), ApiError> {
    let payload = obj
        .get("payload")
        .and_then(Value::as_object)
        .ok_or_else(|| ApiError::invalid_body("The 'payload' field is required"))?;
    if payload.get("payloadType").and_then(Value::as_str) != Some("ShortcutCreation") {
        return Err(ApiError::invalid_body(
            "'payload.payloadType' must be ShortcutCreation",
        ));
    }
    let location = req_str(payload, "path")?.trim_matches('/').to_string();
    let root = location
        .split_once('/')
        .map_or(location.as_str(), |(root, _)| root);
    if root != "Files" && root != "Tables" {
        return Err(ApiError::invalid_body(
            "'payload.path' must be Files or Tables, or a folder below Files",
        ));
    }
    let requests = payload
        .get("createShortcutRequests")
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty() && r.len() <= MAX_SHORTCUTS)
        .ok_or_else(|| {
            ApiError::invalid_body(format!(
                "'payload.createShortcutRequests' must hold 1 to {MAX_SHORTCUTS} requests"
            ))
        })?;
    let mut pairs = Vec::with_capacity(requests.len());
    for request in requests {
        let request = request
            .as_object()
            .ok_or_else(|| ApiError::invalid_body("Each shortcut request must be an object"))?;
        let name = req_str(request, "shortcutName")?;
        if name.contains(['/', '\\']) {
            return Err(ApiError::invalid_body(format!(
                "The shortcut name '{name}' may not contain slashes"
            )));
        }
        pairs.push((req_str(request, "pathId")?, name));
    }
    Ok((location, pairs))
}

/// POST `…/accept` with the spec's body: 200 `{value: [{workspaceId, itemId, path, name}]}`.
pub(super) fn accept(
    State(state): State<Shared>,
    caller: Caller,
    Path(id): Path<String>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let obj = body.object()?;
    let provider_tenant = req_str(&obj, "providerTenantId")?;
    let ws = norm(&req_str(&obj, "workspaceId")?);
    let item_id = norm(&req_str(&obj, "itemId")?);
    let (location, requests) = shortcut_requests(&obj)?;
    let share = invitation(&state, &id, &provider_tenant)?;
    let me = state
        .db
        .read(|c| principals::get_principal(c, &caller.principal_id))?
        .ok_or_else(ApiError::unauthorized)?;
    if me.tenant_id == share.provider_tenant_id {
        return Err(ApiError::bad_request(
            "ExternalDataShareCannotBeAcceptedInTheSameTenant",
            "An external data share cannot be accepted in the tenant that shared it",
        ));
    }
    let forbidden = |why: &str| {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "InsufficientPrivileges",
            why.to_string(),
        )
    };
    let recipient = &share.recipient;
    if recipient
        .tenant_id
        .as_deref()
        .is_some_and(|t| !t.eq_ignore_ascii_case(&me.tenant_id))
    {
        return Err(forbidden("The invitation was sent to another tenant"));
    }
    if recipient.kind == "ServicePrincipal" && recipient.principal_id.as_deref() != Some(&me.id) {
        return Err(forbidden("The invitation was sent to another principal"));
    }
    let target = ItemTarget::named(&ws, &item_id).open(&state, &caller, Role::Contributor)?;
    if target.item_type != "Lakehouse" {
        return Err(ApiError::bad_request(
            "ExternalDataShareOperationNotSupportedForItemType",
            format!("Shortcuts cannot be created in a {}", target.item_type),
        ));
    }
    let details = path_details(&share);
    let mut names = HashSet::new();
    let mut shortcuts = Vec::with_capacity(requests.len());
    for (path_id, name) in &requests {
        let detail = details
            .iter()
            .find(|d| d.id.eq_ignore_ascii_case(path_id))
            .ok_or_else(|| ApiError::invalid_body(format!("Unknown pathId '{path_id}'")))?;
        if location.starts_with("Tables") && detail.kind != "Table" {
            return Err(ApiError::bad_request(
                "InvalidRequest",
                format!("'{}' is a folder; only tables go under Tables", detail.path),
            ));
        }
        if !names.insert(name.to_lowercase()) {
            return Err(ApiError::invalid_body(format!(
                "The shortcut name '{name}' is requested twice"
            )));
        }
        shortcuts.push(json!({
            "name": name,
            "path": format!("/{location}"),
            "target": {"type": "ExternalDataShare", "externalDataShare": {
                "shareId": share.id,
                "providerTenantId": share.provider_tenant_id,
                "path": detail.path,
            }},
        }));
    }
    state.db.write(|tx| {
        let current = shares::get_any(tx, &share.id)?.ok_or_else(ApiError::entity_not_found)?;
        match current.status_at(now_nanos()) {
            PENDING => {}
            ACTIVE => {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "EntityConflict",
                    "The invitation was already accepted",
                ));
            }
            EXPIRED => {
                return Err(ApiError::bad_request(
                    "InvalidRequest",
                    "The invitation has expired",
                ));
            }
            _ => return Err(ApiError::entity_not_found()),
        }
        // No part yet: no shortcuts yet. Local Fabric writes the part itself, so only a hand
        // edit leaves one that does not parse, and that one is rewritten whole.
        let stored = items::part(tx, &target.id, SHORTCUTS_PART)?;
        let mut all: Vec<Value> = stored
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            // An item without a shortcuts part (or one this store cannot read) has none yet.
            .unwrap_or_default();
        for shortcut in &shortcuts {
            let clash = all.iter().any(|s| {
                s["path"] == shortcut["path"]
                    && s["name"].as_str().map(str::to_lowercase)
                        == shortcut["name"].as_str().map(str::to_lowercase)
            });
            if clash {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "EntityConflict",
                    format!(
                        "A shortcut named '{}' already exists there",
                        shortcut["name"]
                    ),
                ));
            }
            all.push(shortcut.clone());
        }
        let text = pretty(&Value::Array(all));
        items::upsert_part(tx, &target.id, SHORTCUTS_PART, text.as_bytes())?;
        shares::set_status(tx, &share.id, ACTIVE, Some(&me.tenant_id))?;
        Ok::<_, ApiError>(())
    })?;
    let made = requests
        .into_iter()
        .map(|(_, name)| AcceptedShortcut {
            workspace_id: ws.clone(),
            item_id: target.id.clone(),
            path: format!("{location}/{name}"),
            name,
            extra: Map::new(),
        })
        .collect();
    Ok(respond::json(StatusCode::OK, &Page::last(made)))
}
