//! Item routes beyond CRUD: `…/{id}/connections`, `…/{id}/relations/{direction}` (beta),
//! `…/{id}/logicalId`, `…/{id}/applyTags` and `…/{id}/unapplyTags`.

use super::definitions::unsupported_for_item;
use super::target::ItemTarget;
use crate::actions::logical_id_in_use;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::{PageToken, Paging};
use crate::relations::{self, Direction};
use crate::respond::{self, JsonBody, Query, norm, req_str};
use crate::state::Shared;
use crate::store::items;
use crate::store::{links, principals::Role, tags};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::item_types;
use serde::Deserialize;
use serde_json::{Value, json};

/// GET `…/connections`: a page of the connections the item uses. A warehouse is refused
/// (`OperationNotSupportedForItem`); every other type answers, also those without a
/// definition: fabric-cli 1.7.0's recordings answer 200 for all 28 other types they ask
/// (MLExperiment and MLModel among them: mkdir__test_mkdir_item_successMLExperiment.yaml), and
/// 400 for Warehouse alone (get__test_get_item_query_all_successWarehouse.yaml).
pub(super) fn connections(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    if item.item_type == item_types::WAREHOUSE {
        return Err(unsupported_for_item());
    }
    let list = PageToken {
        extra: Some(target.id.clone()),
        ..PageToken::first("connections", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    paging.respond(
        &token,
        |after, limit| {
            state
                .db
                .read(|c| links::connections(c, &target.id, after, limit))
        },
        |(ord, _)| *ord,
        |(_, connection)| connection.clone(),
    )
}

/// The `{direction}` of a relations route.
#[derive(Deserialize)]
pub(super) struct DirectionPath {
    direction: String,
}

/// GET `…/relations/{upstream|downstream}?beta=true`: not paged.
pub(super) fn relations(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(DirectionPath { direction }): Path<DirectionPath>,
    query: Query,
) -> Result<Response, ApiError> {
    let direction = match direction.as_str() {
        "upstream" => Direction::Upstream,
        "downstream" => Direction::Downstream,
        _ => return Err(ApiError::entity_not_found()),
    };
    query.require_beta()?;
    let item = target.open(&state, &caller, Role::Viewer)?;
    let graph = state
        .db
        .read(|c| relations::graph(c, &item, direction, &caller.principal_id))?;
    Ok(respond::json(StatusCode::OK, &graph))
}

/// PATCH `…/logicalId` `{logicalId}` → `{logicalId}`: a non-empty GUID unused by the
/// workspace's other live items. The generated `.platform` reads the same column, so the two
/// always agree.
pub(super) fn update_logical_id(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let logical_id = req_str(&body.object()?, "logicalId")?;
    let parsed = uuid::Uuid::try_parse(logical_id.trim())
        .map_err(|_| ApiError::invalid_body("'logicalId' must be a GUID"))?;
    if parsed.is_nil() {
        return Err(ApiError::bad_request(
            "InvalidInput",
            "The logical id cannot be the all-zero GUID",
        ));
    }
    let logical_id = parsed.to_string();
    state.db.write(|tx| {
        let item = target.get(tx)?;
        if items::logical_id_owner(tx, &target.ws, &logical_id, &item.id)?.is_some() {
            return Err(logical_id_in_use(&logical_id));
        }
        items::set_logical_id(tx, &item.id, &logical_id)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::json(
        StatusCode::OK,
        &json!({ "logicalId": logical_id }),
    ))
}

/// The tag ids of an apply/unapply body: `tags` per the REST spec, each a known tag.
pub(super) fn tag_ids(body: &JsonBody) -> Result<Vec<String>, ApiError> {
    let obj = body.object()?;
    let ids = obj
        .get("tags")
        .and_then(Value::as_array)
        .filter(|ids| !ids.is_empty())
        .ok_or_else(|| {
            ApiError::bad_request(
                "InvalidInputs",
                "'tags' must be a non-empty array of tag ids",
            )
        })?;
    ids.iter()
        .map(|id| {
            id.as_str()
                .filter(|id| uuid::Uuid::try_parse(id).is_ok())
                .map(norm)
                .ok_or_else(|| {
                    ApiError::bad_request("InvalidInputs", format!("'{id}' is not a tag id"))
                })
        })
        .collect()
}

/// 404 `EntityNotFound` for a tag the tenant does not have.
pub(super) fn require_tag(conn: &rusqlite::Connection, tag: &str) -> Result<(), ApiError> {
    if tags::get(conn, tag)?.is_some() {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::NOT_FOUND,
        "EntityNotFound",
        format!("The tag '{tag}' was not found"),
    )
    .related(tag, "Tag"))
}

fn tagging(
    state: Shared,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
    apply: bool,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let ids = tag_ids(&body)?;
    state.db.write(|tx| {
        let item = target.get(tx)?;
        for tag in &ids {
            require_tag(tx, tag)?;
            if apply {
                tags::apply(tx, &item.id, tag)?;
            } else {
                tags::unapply(tx, &item.id, tag)?;
            }
        }
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::empty_ok())
}

/// POST `…/applyTags` `{tags: [id]}` → empty 200.
pub(super) fn apply_tags(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    tagging(state, caller, target, body, true)
}

/// POST `…/unapplyTags` `{tags: [id]}` → empty 200.
pub(super) fn unapply_tags(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    tagging(state, caller, target, body, false)
}
