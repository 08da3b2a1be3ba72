//! The data-agent configuration API's agent-level routes — settings (`staging/settings`,
//! published `settings`), `staging/publish`, `staging/reset` — and the read and
//! read-modify-write helpers every `agent_*` route uses. The draft is `staging/...`; the same
//! routes without `staging` read the published copy.

use crate::agents::{self, access, wire};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::slice_page;
use crate::respond::{self, JsonBody, Query, norm};
use crate::state::Shared;
use crate::store::items::Item;
use crate::store::principals::Role;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use fabsh_model::agent::definition::{AgentDefinition, Stage};
use rusqlite::Connection;
use serde_json::{Value, json};
use std::sync::Arc;

/// The agent a configuration route is about: `(workspace, collection, agent)`.
pub type AgentPath = (String, String, String);

/// The stage a route reads: `staging/...` is the draft, anything else the published copy.
pub fn stage_of(uri: &Uri) -> Stage {
    if uri.path().contains("/staging/") {
        Stage::Draft
    } else {
        Stage::Published
    }
}

/// Checks access and that the route is under `/dataAgents`; returns the normalised ids.
pub fn target(
    state: &Shared,
    caller: &Caller,
    (ws, collection, id): &AgentPath,
    role: Role,
) -> Result<(String, String), ApiError> {
    if collection != "dataAgents" {
        return Err(ApiError::entity_not_found());
    }
    let (ws, id) = (norm(ws), norm(id));
    caller.workspace(state, &ws, role)?;
    Ok((ws, id))
}

/// Reads the agent and its definition (Viewer is enough).
pub fn read(
    state: &Shared,
    caller: &Caller,
    path: &AgentPath,
) -> Result<(Item, Arc<AgentDefinition>), ApiError> {
    let (ws, id) = target(state, caller, path, Role::Viewer)?;
    state
        .db
        .read(|conn| agents::load(&state.definitions, conn, &ws, &id))
}

/// Changes the agent's definition in one write transaction (Contributor needed); `change`
/// gets the store connection too, for lookups of other items.
pub fn change<T>(
    state: &Shared,
    caller: &Caller,
    path: &AgentPath,
    change: impl FnOnce(&Connection, &Item, &mut AgentDefinition) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    let (ws, id) = target(state, caller, path, Role::Contributor)?;
    let definitions = &state.definitions;
    let (out, _) = state.db.write_then(
        |tx| {
            agents::change(definitions, tx, &ws, &id, |item, definition| {
                change(tx, item, definition)
            })
        },
        |(_, saved)| definitions.remember(saved),
    )?;
    Ok(out)
}

/// Answers one page of a configuration list (`kind` and `scope` bind the token to it).
pub fn page(
    state: &Shared,
    values: Vec<Value>,
    query: &Query,
    (kind, scope): (&str, &str),
    origin: &str,
    uri: &Uri,
) -> Result<Response, ApiError> {
    let token = query.get("continuationToken");
    let body = slice_page(
        values,
        token,
        kind,
        scope,
        state.faults.page_size,
        origin,
        uri.path(),
    )?;
    Ok(respond::json(StatusCode::OK, &body))
}

/// GET `staging/settings` or `settings`.
pub fn get_settings(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    Path(path): Path<AgentPath>,
) -> Result<Response, ApiError> {
    let (_, definition) = read(&state, &caller, &path)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    Ok(respond::json(
        StatusCode::OK,
        &wire::settings(&stage.config),
    ))
}

/// PATCH `staging/settings`: `aiInstructions` and `experimental` (replaced whole) when given.
pub fn patch_settings(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let body = body.object()?;
    let instructions = match body.get("aiInstructions") {
        None => None,
        Some(value @ (Value::String(_) | Value::Null)) => Some(value.clone()),
        Some(_) => return Err(ApiError::invalid_body("'aiInstructions' must be a string")),
    };
    let experimental = match body.get("experimental") {
        None | Some(Value::Null) => None,
        Some(value @ Value::Object(_)) => Some(value.clone()),
        Some(_) => return Err(ApiError::invalid_body("'experimental' must be an object")),
    };
    let settings = change(&state, &caller, &path, |_, _, definition| {
        let config = &mut definition.draft.config;
        if !config.is_object() {
            *config = json!({});
        }
        if let Some(text) = instructions {
            config["aiInstructions"] = text;
        }
        if let Some(bag) = experimental {
            config["experimental"] = bag;
        }
        Ok(wire::settings(config))
    })?;
    Ok(respond::json(StatusCode::OK, &settings))
}

/// POST `staging/publish` `{publishedDescription?}`: the draft becomes the published copy.
pub fn publish(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let body = body.object()?;
    let description = match body.get("publishedDescription") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(_) => {
            return Err(ApiError::invalid_body(
                "'publishedDescription' must be a string",
            ));
        }
    };
    let published = change(&state, &caller, &path, |_, _, definition| {
        // What is published is what answers: the publisher must still be able to read every
        // datasource (a role may have been taken away since it was added).
        access::check_stages(&state, &caller, [&definition.draft])?;
        let text = description
            .or_else(|| definition.published_description().map(String::from))
            .unwrap_or_default();
        definition.publish(&text);
        Ok(text)
    })?;
    Ok(respond::json(
        StatusCode::OK,
        &json!({"publishedDescription": published}),
    ))
}

/// POST `staging/reset`: the draft becomes a copy of the published configuration again.
pub fn reset(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
) -> Result<Response, ApiError> {
    change(&state, &caller, &path, |_, _, definition| {
        if definition.reset() {
            Ok(())
        } else {
            Err(agents::not_published())
        }
    })?;
    Ok(respond::empty_ok())
}
