//! Items' default identities: assigning the caller (the only assignment type) to an item and
//! its child items, and the `defaultIdentity` that `include=DefaultIdentity` adds to an item.

use super::api_error::ApiError;
use super::store::items::{self, Item};
use super::store::principals::{self, Principal};
use super::store::shares;
use fabsh_model::wire::{self, ServicePrincipalDetails, UserDetails};
use rusqlite::Connection;
use serde_json::{Value, json};

/// Makes `principal_id` the identity of the item and its children:
/// `{assignmentStatus: [{itemId, status, parentItemId?}]}`.
pub(crate) fn assign(
    conn: &Connection,
    workspace_id: &str,
    item_id: &str,
    principal_id: &str,
) -> Result<Value, ApiError> {
    let item = items::get(conn, workspace_id, item_id)?
        .ok_or_else(|| ApiError::item_not_found(item_id))?;
    shares::set_identity(conn, &item.id, principal_id)?;
    let mut statuses = vec![json!({"itemId": item.id, "status": "Succeeded"})];
    for child in items::children(conn, &item.id)? {
        shares::set_identity(conn, &child.id, principal_id)?;
        statuses.push(json!({"itemId": child.id, "status": "Succeeded", "parentItemId": item.id}));
    }
    Ok(json!({ "assignmentStatus": statuses }))
}

/// A principal as the Item's `defaultIdentity` shows it.
fn principal_wire(principal: &Principal) -> wire::Principal {
    wire::Principal {
        display_name: Some(principal.display_name.clone()),
        user_details: principal
            .user_principal_name
            .as_ref()
            .map(|upn| UserDetails {
                user_principal_name: Some(upn.clone()),
            }),
        service_principal_details: principal.client_id.as_ref().map(|app| {
            ServicePrincipalDetails {
                aad_app_id: Some(app.clone()),
            }
        }),
        ..wire::Principal::of(&principal.id, &principal.kind)
    }
}

/// Whether an `include` query asks for `DefaultIdentity` (any case, comma list).
pub(crate) fn wanted(include: Option<&str>) -> bool {
    include.is_some_and(|list| {
        list.split(',')
            .any(|name| name.trim().eq_ignore_ascii_case("DefaultIdentity"))
    })
}

/// Adds `defaultIdentity` to an item's wire form when it has one (absent otherwise, like the
/// service's other optional keys).
pub(crate) fn add_to(
    conn: &Connection,
    item: &Item,
    wire: &mut wire::Item,
) -> rusqlite::Result<()> {
    let Some(principal_id) = shares::identity(conn, &item.id)? else {
        return Ok(());
    };
    if let Some(principal) = principals::get_principal(conn, &principal_id)? {
        wire.default_identity = Some(principal_wire(&principal));
    }
    Ok(())
}
