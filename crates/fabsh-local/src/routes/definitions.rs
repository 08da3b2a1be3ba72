//! POST `…/{id}/getDefinition` and `…/{id}/updateDefinition`, inline or as operations.
//!
//! `format` on getDefinition must be one the type names (else `400 InvalidDefinitionFormat`);
//! parts already in that layout come back as stored, notebooks are converted between
//! `fabricGitSource` and `ipynb`, other conversions are refused. Without `format` the parts come
//! back as stored.

use super::target::ItemTarget;
use crate::actions::{Action, DefinitionUpdate, name_in_use, store_parts};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::definition_answers::{self, DefinitionCall};
use crate::definitions;
use crate::lro::{self, InlineAnswer};
use crate::respond::{LargeJsonBody, Origin, Query, check_description};
use crate::state::Shared;
use crate::store::items::{self, Item};
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::item_types;

/// `400 OperationNotSupportedForItem` for types without a definition.
pub(super) fn require_definitions(item: &Item) -> Result<(), ApiError> {
    if item_types::find(&item.item_type).is_some_and(|t| t.has_definition) {
        Ok(())
    } else {
        Err(unsupported_for_item())
    }
}

/// `400 OperationNotSupportedForItem`, in the recorded wording.
pub(super) fn unsupported_for_item() -> ApiError {
    ApiError::bad_request(
        "OperationNotSupportedForItem",
        "Operation not supported for requested item",
    )
}

/// getDefinition: 200 `{definition}` or 202 whose result is the same body, per type as the
/// service answers ([`definition_answers`]). Contributor+, as
/// the service requires write permission to read definitions.
pub(super) fn get_definition(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    query: Query,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Contributor)?;
    require_definitions(&item)?;
    let format = match query.get("format").filter(|f| !f.is_empty()) {
        Some(format) => Some(definitions::check_format(&item.item_type, format)?.to_string()),
        None => None,
    };
    // An agent's datasource over a workspace the caller may not read keeps its tables to
    // itself, as listing its elements does.
    let unreadable = if item.item_type == "DataAgent" {
        let parts = state
            .db
            .read(|conn| Ok::<_, ApiError>(items::parts(conn, &item.id)?))?;
        crate::agents::access::unreadable_sources(&state, &caller, &parts)
    } else {
        Vec::new()
    };
    lro::run(
        &state,
        &caller,
        &origin,
        Action::GetDefinition {
            workspace_id: target.ws,
            item_id: target.id,
            format,
            unreadable,
        },
        InlineAnswer {
            status: StatusCode::OK,
            etag: false,
            service_lro: definition_answers::service_lro(&item.item_type, DefinitionCall::Get),
        },
    )
}

/// updateDefinition: full replacement; empty 200, or 202 whose operation's result is the item.
/// `.platform` is applied only with `updateMetadata=true` (name and description; the logical
/// id stays).
pub(super) fn update_definition(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    query: Query,
    body: LargeJsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let update_metadata = query.flag("updateMetadata", false)?;
    let obj = body.object()?;
    let wire = obj
        .get("definition")
        .filter(|v| !v.is_null())
        .ok_or_else(|| ApiError::invalid_body("The 'definition' field is required"))?;
    let definition = definitions::parse(wire)?;
    let item = target.load(&state)?;
    require_definitions(&item)?;
    if item.item_type == "DataAgent" {
        // A broken agent part is refused now rather than breaking the configuration API later.
        let agent = crate::agents::from_parts(&definition.parts)?;
        let whole = definition
            .parts
            .iter()
            .any(|part| part.path == fabsh_model::agent::definition::AGENT_PART);
        if !whole {
            // The service drops a DataAgent part set without data_agent.json, silently.
            return Ok(crate::respond::empty_ok());
        }
        // Else a definition could name a lakehouse its author may not read (which adding the
        // datasource refuses), and the agent would answer from its rows.
        crate::agents::access::check_definition(&state, &caller, &agent)?;
    }
    definitions::check_required_parts(&item.item_type, &definition)?;
    if update_metadata && let Some(platform) = &definition.platform {
        check_description(platform.description.as_deref())?;
        let name = platform
            .display_name
            .as_deref()
            .filter(|n| !n.trim().is_empty());
        if let Some(name) = name {
            crate::name_rules::check_item(&item.item_type, name)?;
        }
        if let Some(name) = name
            && state
                .db
                .read(|c| items::name_taken(c, &target.ws, &item.item_type, name, &item.id))?
        {
            return Err(name_in_use(name));
        }
    }
    let update = DefinitionUpdate {
        workspace_id: target.ws,
        item_id: target.id,
        format: definition.format,
        parts: store_parts(&definition.parts),
        platform: definition.platform,
        update_metadata,
    };
    let answer = lro::run(
        &state,
        &caller,
        &origin,
        Action::UpdateDefinition(update),
        InlineAnswer {
            status: StatusCode::OK,
            etag: false,
            service_lro: definition_answers::service_lro(&item.item_type, DefinitionCall::Update),
        },
    )?;
    // Answered inline, Items_UpdateItemDefinition's 200 has no body (swagger); only the
    // operation's `/result` carries the item.
    Ok(if answer.status() == StatusCode::OK {
        crate::respond::empty_ok()
    } else {
        answer
    })
}
