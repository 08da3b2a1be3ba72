//! POST `/v1/workspaces/{ws}/items/bulkExportDefinitions`, `…/bulkImportDefinitions` (both
//! beta and long-running) and `…/bulkMove` (preview, answered at once as the spec has it), and
//! `…/{id}/identities/default/assign` (beta, long-running).

use super::target::{ItemTarget, WorkspaceTarget};
use crate::actions::{Action, load_parts};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::bulk_export::{Export, exportable, not_exportable};
use crate::bulk_import;
use crate::lro::{self, InlineAnswer};
use crate::respond::{self, JsonBody, LargeJsonBody, Origin, Query, opt_id};
use crate::state::Shared;
use crate::store::items::{self, FolderScope, Item};
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::wire::Page;
use serde_json::Value;
use std::collections::HashSet;

/// Most items one bulk move takes.
const MAX_MOVE_ITEMS: usize = 50;

const INLINE_OK: InlineAnswer = InlineAnswer {
    status: StatusCode::OK,
    etag: false,
    // Bulk export 202 in bulk_export__test_bulk_export_and_deploy_round_trip.yaml; import and
    // identity assignment are LROs in the swagger.
    service_lro: true,
};

/// Checks a beta bulk route: `beta=true` given, the caller a Contributor+ in the workspace.
fn check_beta(state: &Shared, caller: &Caller, ws: &str, query: &Query) -> Result<(), ApiError> {
    query.require_beta()?;
    caller.workspace(state, ws, Role::Contributor)?;
    Ok(())
}

fn guid(text: &str) -> Option<String> {
    uuid::Uuid::try_parse(text).ok().map(|id| id.to_string())
}

/// Export: `{mode: All}` or `{mode: Selective, items: [{id}]}`. Contributor+, as the service
/// exports what the caller can both read and write.
pub(super) fn export(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
    query: Query,
    body: JsonBody,
) -> Result<Response, ApiError> {
    check_beta(&state, &caller, &ws, &query)?;
    let obj = body.object()?;
    let item_ids = match obj.get("mode").and_then(Value::as_str) {
        Some("All") => None,
        Some("Selective") => {
            let listed = obj
                .get("items")
                .and_then(Value::as_array)
                .filter(|items| !items.is_empty())
                .ok_or_else(|| ApiError::invalid_body("Selective mode needs 'items'"))?;
            let mut seen = HashSet::new();
            let mut ids = Vec::with_capacity(listed.len());
            for entry in listed {
                let id = entry
                    .get("id")
                    .and_then(Value::as_str)
                    .and_then(guid)
                    .ok_or_else(|| ApiError::invalid_body("Each of 'items' needs an 'id' GUID"))?;
                if !seen.insert(id.clone()) {
                    return Err(ApiError::bad_request(
                        "ItemReferencedMoreThanOnce",
                        format!("The item '{id}' is referenced more than once"),
                    ));
                }
                let item = ItemTarget::named(&ws, &id).load(&state)?;
                if !exportable(&item) {
                    return Err(not_exportable(&item));
                }
                ids.push(id);
            }
            Some(ids)
        }
        _ => {
            return Err(ApiError::invalid_body(
                "The 'mode' field must be All or Selective",
            ));
        }
    };
    // The workspace's agents' datasources over workspaces the caller may not read keep
    // their tables to themselves, as in an agent's getDefinition.
    let agent_parts = state.db.read(|conn| {
        let mut parts = Vec::new();
        for agent in items::list(conn, &ws, Some("DataAgent"), &FolderScope::All, 0, i64::MAX)? {
            parts.extend(items::parts(conn, &agent.id)?);
        }
        Ok::<_, ApiError>(parts)
    })?;
    let unreadable = crate::agents::access::unreadable_sources(&state, &caller, &agent_parts);
    let export = Export {
        workspace_id: ws,
        item_ids,
        unreadable,
    };
    lro::run(
        &state,
        &caller,
        &origin,
        Action::BulkExport(export),
        INLINE_OK,
    )
}

/// Import: `{definitionParts, options?}`, validated now, applied when the operation runs.
pub(super) fn import(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
    query: Query,
    body: LargeJsonBody,
) -> Result<Response, ApiError> {
    check_beta(&state, &caller, &ws, &query)?;
    let import = bulk_import::parse(&ws, &body.object()?)?;
    // An imported agent is a definition like any other: it may name only data its author
    // may read.
    for item in &import.items {
        if item.item_type.eq_ignore_ascii_case("DataAgent") {
            crate::agents::access::check_parts(&state, &caller, &load_parts(&item.parts)?)?;
        }
    }
    lro::run(
        &state,
        &caller,
        &origin,
        Action::BulkImport(import),
        INLINE_OK,
    )
}

/// Bulk move `{items: [1 to 50 ids], targetFolderId?}`: all or nothing; answers
/// `{value: [moved items and their children]}`.
pub(super) fn move_items(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Contributor)?;
    let obj = body.object()?;
    let listed = obj
        .get("items")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::invalid_body("The 'items' field is required"))?;
    if listed.is_empty() || listed.len() > MAX_MOVE_ITEMS {
        return Err(ApiError::invalid_body(format!(
            "'items' must hold 1 to {MAX_MOVE_ITEMS} item ids, got {}",
            listed.len()
        )));
    }
    let ids = listed
        .iter()
        .map(|v| v.as_str().and_then(guid))
        .collect::<Option<Vec<String>>>()
        .ok_or_else(|| ApiError::invalid_body("'items' must hold item ids (GUIDs)"))?;
    let target = opt_id(&obj, "targetFolderId")?;
    let moved = state.db.write(|tx| {
        super::folders::check_folder(tx, &ws, target.as_deref())?;
        let mut moved: Vec<Item> = Vec::new();
        for id in &ids {
            let item = ItemTarget::named(&ws, id).get(tx)?;
            if item.parent_item_id.is_some() {
                return Err(ApiError::bad_request(
                    "CannotMoveChildOnly",
                    "A child item moves together with its parent",
                ));
            }
            items::move_to_folder(tx, id, target.as_deref())?;
        }
        for id in &ids {
            if moved.iter().any(|m| &m.id == id) {
                continue;
            }
            moved.extend(items::get(tx, &ws, id)?);
            moved.extend(items::children(tx, id)?);
        }
        Ok::<_, ApiError>(moved)
    })?;
    let moved = Page::last(moved.iter().map(Item::to_wire).collect());
    Ok(respond::json(StatusCode::OK, &moved))
}

/// Identity assignment `{assignmentType: "Caller"}`; the caller becomes the identity of the
/// item and its children.
pub(super) fn assign_identity(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    query: Query,
    body: JsonBody,
) -> Result<Response, ApiError> {
    check_beta(&state, &caller, &target.ws, &query)?;
    match body.object()?.get("assignmentType").and_then(Value::as_str) {
        Some(kind) if kind.eq_ignore_ascii_case("Caller") => {}
        _ => {
            return Err(ApiError::bad_request(
                "InvalidInput",
                "The 'assignmentType' field is required; the only value is Caller",
            ));
        }
    }
    target.load(&state)?;
    let action = Action::AssignIdentity {
        workspace_id: target.ws,
        item_id: target.id,
        principal_id: caller.principal_id.clone(),
    };
    lro::run(&state, &caller, &origin, action, INLINE_OK)
}
