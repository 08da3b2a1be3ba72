//! The data-agent configuration API's agent-level routes — settings (`staging/settings`,
//! published `settings`), `staging/publish`, `staging/reset` — and the read and
//! read-modify-write helpers every `agent_*` route uses. The draft is `staging/...`; the same
//! routes without `staging` read the published copy.

use super::target::ItemTarget;
use crate::agents::{self, access, wire};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::respond::{self, JsonBody};
use crate::state::Shared;
use crate::store::items::Item;
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use fabsh_model::agent::definition::{AgentDefinition, Stage};
use fabsh_model::item_types;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::sync::Arc;

/// The agent `id` of workspace `ws` as a target, for routes that name the agent other than
/// by `{collection}/{item}` (the MCP server, the Assistants surface).
pub(super) fn agent(ws: &str, id: &str) -> ItemTarget {
    ItemTarget {
        collection: "dataAgents".to_string(),
        implied: item_types::by_collection("dataAgents"),
        ..ItemTarget::named(ws, id)
    }
}

/// The stage a route reads: `staging/...` is the draft, anything else the published copy.
pub(super) fn stage_of(uri: &Uri) -> Stage {
    if uri.path().contains("/staging/") {
        Stage::Draft
    } else {
        Stage::Published
    }
}

/// Checks that the route is under `/dataAgents` and that the caller holds `role`.
pub(super) fn target(
    state: &Shared,
    caller: &Caller,
    target: &ItemTarget,
    role: Role,
) -> Result<(), ApiError> {
    if target.implied.is_none_or(|t| t.name != "DataAgent") {
        return Err(ApiError::entity_not_found());
    }
    caller.workspace(state, &target.ws, role)?;
    Ok(())
}

/// Reads the agent and its definition (Viewer is enough).
pub(super) fn read(
    state: &Shared,
    caller: &Caller,
    agent: &ItemTarget,
) -> Result<(Item, Arc<AgentDefinition>), ApiError> {
    target(state, caller, agent, Role::Viewer)?;
    state
        .db
        .read(|conn| agents::load(&state.definitions, conn, &agent.ws, &agent.id))
}

/// Changes the agent's definition in one write transaction (Contributor needed); `change`
/// gets the store connection too, for lookups of other items.
pub(super) fn change<T>(
    state: &Shared,
    caller: &Caller,
    agent: &ItemTarget,
    change: impl FnOnce(&Connection, &Item, &mut AgentDefinition) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    target(state, caller, agent, Role::Contributor)?;
    let definitions = &state.definitions;
    let (out, _) = state.db.write_then(
        |tx| {
            agents::change(definitions, tx, &agent.ws, &agent.id, |item, definition| {
                change(tx, item, definition)
            })
        },
        |(_, saved)| definitions.remember(saved),
    )?;
    Ok(out)
}

/// GET `staging/settings` or `settings`.
pub(super) fn get_settings(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    agent: ItemTarget,
) -> Result<Response, ApiError> {
    let (_, definition) = read(&state, &caller, &agent)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    Ok(respond::json(
        StatusCode::OK,
        &wire::settings(&stage.config),
    ))
}

/// PATCH `staging/settings`: `aiInstructions` and `experimental` (replaced whole) when given.
pub(super) fn patch_settings(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
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
    let settings = change(&state, &caller, &agent, |_, _, definition| {
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
pub(super) fn publish(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
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
    let published = change(&state, &caller, &agent, |_, _, definition| {
        // What is published is what answers: the publisher must still be able to read every
        // datasource (a role may have been taken away since it was added).
        access::check_stages(&state, &caller, [&definition.draft])?;
        let text = description
            .or_else(|| definition.published_description().map(String::from))
            // Neither a new nor a published description: the agent is published without one.
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
pub(super) fn reset(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
) -> Result<Response, ApiError> {
    change(&state, &caller, &agent, |_, _, definition| {
        if definition.reset() {
            Ok(())
        } else {
            Err(agents::not_published())
        }
    })?;
    Ok(respond::empty_ok())
}
