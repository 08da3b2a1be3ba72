//! `/v1/workspaces/{ws}/items[/{id}]` and the per-type collections that behave the same with
//! the type implied (`/notebooks`, `/dataAgents`, ...): list, get, update, delete, move.

use super::target::{CollectionTarget, ItemTarget};
use crate::actions::name_in_use;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::item_identity;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, JsonBody, Query, check_description, norm, opt_id, opt_str};
use crate::state::Shared;
use crate::store::items::{self, FolderScope, Item};
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::item_types;
use fabsh_model::wire::{self, Page};

/// 400 `InvalidItemType`.
pub(super) fn invalid_type(name: &str) -> ApiError {
    ApiError::bad_request(
        "InvalidItemType",
        format!("The item type '{name}' is not valid"),
    )
}

/// The item as the route returns it: per-type routes (`typed`) add the type's `properties`
/// (see [`crate::item_properties`]).
pub(super) fn wire(
    conn: &rusqlite::Connection,
    item: &Item,
    typed: bool,
) -> rusqlite::Result<wire::Item> {
    let mut wire = item.to_wire();
    if typed {
        wire.properties = crate::item_properties::of(conn, item)?;
    }
    Ok(wire)
}

/// GET: a page of live items; `type`, `rootFolderId`, `recursive` (default true), `include`.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    target: CollectionTarget,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    let CollectionTarget { ws, implied, .. } = &target;
    caller.workspace(&state, ws, Role::Viewer)?;
    // A per-type list's token carries its type as its scope, so a token of another list
    // (`/items`, whose pages hold every type) cannot continue it: `GET /lakehouses` with a
    // `/items` token served an OrgAppAudience without lakehouse properties.
    let list = PageToken {
        extra: implied.map(|t| t.name.to_string()),
        ..PageToken::first("items", Some(ws))
    };
    let typed = implied.is_some();
    let token = paging.token(list, |first| {
        let item_type = match (implied, query.get("type")) {
            (Some(t), _) => Some(t.name.to_string()),
            (None, Some(name)) => Some(
                item_types::find(name)
                    .ok_or_else(|| invalid_type(name))?
                    .name
                    .to_string(),
            ),
            (None, None) => None,
        };
        let root_folder = query.get("rootFolderId").map(norm);
        state
            .db
            .read(|c| super::folders::check_folder(c, ws, root_folder.as_deref()))?;
        Ok(PageToken {
            item_type,
            root_folder,
            recursive: query.flag("recursive", true)?,
            ..first
        })
    })?;
    let scope = FolderScope::of(token.root_folder.as_deref(), token.recursive);
    let with_identity = item_identity::wanted(query.get("include"));
    // Rows become wire JSON inside the read, where the identities can be looked up too.
    paging.respond(
        &token,
        |after, limit| {
            state.db.read(|c| {
                let rows = items::list(c, ws, token.item_type.as_deref(), &scope, after, limit)?;
                rows.iter()
                    .map(|item| {
                        let mut value = wire(c, item, typed)?;
                        if with_identity {
                            item_identity::add_to(c, item, &mut value)?;
                        }
                        Ok((item.seq, value))
                    })
                    .collect::<rusqlite::Result<Vec<(i64, wire::Item)>>>()
            })
        },
        |(seq, _)| *seq,
        |(_, wire)| wire.clone(),
    )
}

/// GET one item (`ETag: ""`, as recorded); `include=DefaultIdentity` adds the item's
/// identity. The hot path: token check, one access query, one row read.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    query: Query,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    let mut value = state
        .db
        .read(|c| wire(c, &item, target.implied.is_some()))?;
    if item_identity::wanted(query.get("include")) {
        state
            .db
            .read(|c| item_identity::add_to(c, &item, &mut value))?;
    }
    Ok(respond::json_with_etag(StatusCode::OK, &value))
}

/// PATCH: `displayName` and `description` only; anything else is ignored.
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let obj = body.object()?;
    let name = opt_str(&obj, "displayName")?;
    if name.as_deref().is_some_and(|n| n.trim().is_empty()) {
        return Err(ApiError::invalid_body(
            "The 'displayName' field must not be empty",
        ));
    }
    let description = opt_str(&obj, "description")?;
    check_description(description.as_deref())?;
    let updated = state.db.write(|tx| {
        let mut item = target.get(tx)?;
        if let Some(name) = name {
            refuse_fixed_name(&item, &name)?;
            crate::name_rules::check_item(&item.item_type, &name)?;
            if items::name_taken(tx, &target.ws, &item.item_type, &name, &item.id)? {
                return Err(name_in_use(&name));
            }
            item.display_name = name;
        }
        if description.is_some() {
            item.description = description;
        }
        items::update_metadata(
            tx,
            &item.id,
            &item.display_name,
            item.description.as_deref(),
        )?;
        Ok::<_, ApiError>(item)
    })?;
    let mut value = state
        .db
        .read(|c| wire(c, &updated, target.implied.is_some()))?;
    crate::item_properties::patched(&updated.item_type, &mut value.properties);
    Ok(respond::json_with_etag(StatusCode::OK, &value))
}

/// A Cosmos DB database keeps the name it was made with: the service refuses a rename
/// (fabric-cli's recording test_set_cosmosdb_database_displayname_not_supported_failure,
/// 2026-02: 400 `CosmosDBDatabaseDisplayNameCannotBeChanged`). The same name is no rename.
fn refuse_fixed_name(item: &items::Item, name: &str) -> Result<(), ApiError> {
    if item.item_type == "CosmosDBDatabase" && name != item.display_name {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "CosmosDBDatabaseDisplayNameCannotBeChanged",
            "The display name of CosmosDBDatabase items cannot be changed",
        ));
    }
    Ok(())
}

/// DELETE: soft by default (the row stays, marked deleted; the name is free again);
/// `hardDelete=true` removes it for good and needs Admin. Children go with their parent, and
/// the items made for it ([`crate::item_dependents`]).
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    query: Query,
) -> Result<Response, ApiError> {
    let hard = query.flag("hardDelete", false)?;
    let needed = if hard { Role::Admin } else { Role::Contributor };
    caller.workspace(&state, &target.ws, needed)?;
    let removed = state.db.write(|tx| {
        let item = target.get(tx)?;
        if item.parent_item_id.is_some() {
            return Err(ApiError::bad_request(
                "OperationNotSupportedForItem",
                "A child item is deleted together with its parent",
            ));
        }
        // What was made for it goes with it (a builder's flows, an eventhouse's databases).
        let mut removed = vec![item.id.clone()];
        removed.extend(crate::item_dependents::of(tx, &item)?);
        let now = now_nanos();
        for id in &removed {
            if hard {
                items::hard_delete(tx, id)?;
            } else {
                items::soft_delete(tx, id, now)?;
            }
        }
        Ok::<_, ApiError>(removed)
    })?;
    // Their OneLake files go with them (a deleted item is never restored here).
    for id in &removed {
        crate::onelake::remove_item(state.db.data_dir(), &target.ws, id).map_err(|err| {
            ApiError::internal(format!("The item's files could not be removed: {err}"))
        })?;
    }
    Ok(respond::empty_ok())
}

/// POST `…/{id}/move` `{targetFolderId?}`: moves the item and its children; answers them all.
pub(super) fn move_item(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let folder = opt_id(&body.object()?, "targetFolderId")?;
    let (ws, id) = (&target.ws, &target.id);
    let moved = state.db.write(|tx| {
        let item = target.get(tx)?;
        if item.parent_item_id.is_some() {
            return Err(ApiError::bad_request(
                "CannotMoveChildOnly",
                "A child item moves together with its parent",
            ));
        }
        super::folders::check_folder(tx, ws, folder.as_deref())?;
        items::move_to_folder(tx, id, folder.as_deref())?;
        let mut moved = vec![target.get(tx)?];
        moved.extend(items::children(tx, id)?);
        Ok::<_, ApiError>(moved)
    })?;
    let moved = Page::last(moved.iter().map(Item::to_wire).collect());
    Ok(respond::json(StatusCode::OK, &moved))
}
