//! `…/datasources/{ds}/elements`: one level of the schema tree per call (`rootId`), with each
//! element's `state` judged against the source's live schema; PATCH selection and description
//! (`?id=`), DELETE elements gone from the live schema.

use super::agent_config::{self, read, stage_of};
use super::agent_sources::SourcePath;
use super::target::ItemTarget;
use crate::agents::{self, access, discovery, wire};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::Paging;
use crate::respond::{self, JsonBody, Query};
use crate::state::Shared;
use crate::store::items;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use fabsh_model::agent::definition::{DataSourceDoc, ElementDoc};
use fabsh_model::agent::element_path;
use fabsh_model::agent::sources;
use rusqlite::Connection;
use serde_json::Value;
use std::collections::HashSet;

/// The display path an element id (or `rootId`) stands for.
fn display_path(id: &str) -> Result<Vec<String>, ApiError> {
    element_path::display_path_of(id).ok_or_else(|| agents::not_found("element", id))
}

/// Lower-case live names under `parent`; `None` when they cannot be known.
fn live_names(
    state: &Shared,
    conn: &Connection,
    doc: &DataSourceDoc,
    parent: &[String],
) -> Result<Result<Option<HashSet<String>>, ()>, ApiError> {
    let Some(kind) = sources::by_definition_type(&doc.kind) else {
        return Ok(Ok(None));
    };
    let Some(item) = items::get(conn, &doc.workspace_id, &doc.artifact_id)? else {
        // The source item is gone: nothing of it is available.
        return Ok(Err(()));
    };
    let parent: Vec<&str> = parent.iter().map(String::as_str).collect();
    discovery::live_names(conn, &state.tables, kind, &item, &parent).map(Ok)
}

/// GET one level of the tree: the top without `rootId`, else the children of that element.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    let (item, definition) = read(&state, &caller, &agent)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    let source = agents::source(stage, &item.id, &ds)?;
    // The names of a source's tables are its data too: a caller who may not read the source
    // (a member of the agent's workspace only) is shown none of them.
    let root = query.get("rootId").filter(|id| !id.is_empty());
    if access::check_source(&state, &caller, &source.datasource).is_err() {
        let scope = match root {
            Some(id) => format!("{ds}/{id}"),
            None => format!("{ds}/"),
        };
        return paging.slice(Vec::new(), "elements", &scope);
    }
    let (parent, children) = match root {
        // Without rootId: the datasource's top level.
        None => (Vec::new(), source.datasource.elements.as_slice()),
        Some(id) => {
            let parent = display_path(id)?;
            let children = agents::children_at(&source.datasource.elements, &parent)
                .ok_or_else(|| agents::not_found("element", id))?;
            (parent, children)
        }
    };
    let live = state
        .db
        .read(|conn| live_names(&state, conn, &source.datasource, &parent))?;
    let values: Vec<Value> = children
        .iter()
        .map(|child| {
            let state = match &live {
                Err(()) => "DatasourceNotFound",
                Ok(Some(names)) if !names.contains(&child.display_name.to_lowercase()) => {
                    "NotAvailable"
                }
                Ok(_) => "Available",
            };
            let mut full: Vec<&str> = parent.iter().map(String::as_str).collect();
            full.push(&child.display_name);
            wire::element(child, &full, state)
        })
        .collect();
    let scope = format!("{}/{}", ds, parent.join("/"));
    paging.slice(values, "elements", &scope)
}

/// The `?id=` of an element route.
fn element_id(query: &Query) -> Result<String, ApiError> {
    query
        .get("id")
        .filter(|id| !id.is_empty())
        .map(String::from)
        .ok_or_else(|| {
            ApiError::bad_request("InvalidRequest", "The 'id' query parameter is required")
        })
}

/// PATCH `?id=`: `isSelected` (a table's columns follow it) and `description` (null or empty
/// clears it). Unselecting keeps descriptions.
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
    query: Query,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let id = element_id(&query)?;
    let target = display_path(&id)?;
    let body = body.object()?;
    let selected = match body.get("isSelected") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(on)) => Some(*on),
        Some(_) => return Err(ApiError::invalid_body("'isSelected' must be a boolean")),
    };
    let description = match body.get("description") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(text)) => Some(Some(text.clone()).filter(|t| !t.is_empty())),
        Some(_) => return Err(ApiError::invalid_body("'description' must be a string")),
    };
    let updated = agent_config::change(&state, &caller, &agent, |_, item, definition| {
        let source = agents::draft_source(definition, &item.id, &ds)?;
        let element: &mut ElementDoc =
            agents::element_at_mut(&mut source.datasource_mut().elements, &target)
                .ok_or_else(|| agents::not_found("element", &id))?;
        if let Some(on) = selected {
            agents::set_selected(element, on);
        }
        if let Some(text) = description {
            element.description = text;
        }
        let full: Vec<&str> = target.iter().map(String::as_str).collect();
        Ok(wire::element(element, &full, "Available"))
    })?;
    Ok(respond::json(StatusCode::OK, &updated))
}

/// DELETE `?id=`: only an element no longer in the live schema; otherwise
/// `ElementStillAvailable`.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
    query: Query,
) -> Result<Response, ApiError> {
    let id = element_id(&query)?;
    let target = display_path(&id)?;
    let Some((name, parent)) = target.split_last() else {
        return Err(agents::not_found("element", &id));
    };
    agent_config::change(&state, &caller, &agent, |conn, item, definition| {
        let source = agents::draft_source(definition, &item.id, &ds)?;
        if agents::children_at(&source.datasource.elements, &target).is_none() {
            return Err(agents::not_found("element", &id));
        }
        let live = live_names(&state, conn, &source.datasource, parent)?;
        if let Ok(names) = live
            && names.is_none_or(|names| names.contains(&name.to_lowercase()))
        {
            return Err(ApiError::bad_request(
                "ElementStillAvailable",
                format!(
                    "The element '{name}' still exists in the data source and cannot be deleted"
                ),
            ));
        }
        let siblings = match agents::element_at_mut(&mut source.datasource_mut().elements, parent) {
            Some(parent) => &mut parent.children,
            None => &mut source.datasource_mut().elements,
        };
        siblings.retain(|e| &e.display_name != name);
        Ok(())
    })?;
    Ok(respond::empty_ok())
}
