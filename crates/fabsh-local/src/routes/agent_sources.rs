//! `…/staging/datasources[/{ds}]` and the published `…/datasources[/{ds}]`: list, show, add
//! (an operation, while the schema is discovered), change and remove datasources.

use super::agent_config::{self, read, stage_of};
use super::target::ItemTarget;
use crate::actions::Action;
use crate::agents::{self, NewDataSource, access, discovery, wire};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::lro::{self, InlineAnswer};
use crate::paging::Paging;
use crate::respond::{self, JsonBody, Origin, opt_str};
use crate::state::Shared;
use crate::store::principals::Role;
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use fabsh_model::agent::definition::{DataSourceDoc, schema_url};
use fabsh_model::agent::sources::{self, SourceKind};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The `{ds}` of a datasource route (the agent is its `ItemTarget`).
#[derive(Deserialize)]
pub(super) struct SourcePath {
    pub ds: String,
}

/// GET the datasources of a stage, paged.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    agent: ItemTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    let (item, definition) = read(&state, &caller, &agent)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    let values: Vec<Value> = stage
        .sources
        .iter()
        .map(|s| wire::datasource(&item.id, &s.datasource))
        .collect();
    paging.slice(values, "datasources", &item.id)
}

/// GET one datasource of a stage.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
) -> Result<Response, ApiError> {
    let (item, definition) = read(&state, &caller, &agent)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    let source = agents::source(stage, &item.id, &ds)?;
    Ok(respond::json(
        StatusCode::OK,
        &wire::datasource(&item.id, &source.datasource),
    ))
}

/// The kind (`None`: the referenced item's own type) and referenced item of a create body.
/// The swagger's `CreateDataAgentDatasourceRequest` has no `fabricItemType`; one that is sent
/// anyway is still honoured.
fn requested(
    body: &Map<String, Value>,
) -> Result<(Option<&'static SourceKind>, String, String), ApiError> {
    let not_a_source =
        || ApiError::bad_request("InvalidRequest", "This item type cannot be a data source");
    let (kind, reference_key) = match opt_str(body, "type")?.as_deref() {
        Some(api_type) if api_type.eq_ignore_ascii_case("LakehouseTables") => {
            (sources::by_item_type("Lakehouse"), "lakehouseReference")
        }
        Some(api_type) if api_type.eq_ignore_ascii_case("FabricItem") => {
            let kind = match opt_str(body, "fabricItemType")? {
                Some(item_type) => {
                    Some(sources::by_item_type(&item_type).ok_or_else(not_a_source)?)
                }
                None => None,
            };
            (kind, "itemReference")
        }
        // No type, or another: refused with the kinds there are.
        _ => {
            return Err(ApiError::invalid_body(
                "'type' must be LakehouseTables or FabricItem",
            ));
        }
    };
    let reference = body
        .get(reference_key)
        .and_then(Value::as_object)
        .ok_or_else(|| ApiError::invalid_body(format!("'{reference_key}' is required")))?;
    let id = |key: &str| -> Result<String, ApiError> {
        opt_str(reference, key)?
            .filter(|text| uuid::Uuid::parse_str(text).is_ok())
            .map(|text| text.to_ascii_lowercase())
            .ok_or_else(|| {
                ApiError::invalid_body(format!("'{reference_key}.{key}' must be a GUID"))
            })
    };
    Ok((kind, id("itemId")?, id("workspaceId")?))
}

/// POST `staging/datasources`: checks the item, discovers its schema now, and adds it inline
/// (201) or through an operation (202).
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    agent: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    agent_config::target(&state, &caller, &agent, Role::Contributor)?;
    let (asked, item_id, item_workspace) = requested(&body.object()?)?;
    caller.may_read(&state, &item_workspace)?;
    let datasource = state.db.read(|conn| {
        let (_, definition) = agents::load(&state.definitions, conn, &agent.ws, &agent.id)?;
        agents::check_can_add(&definition, &item_id)?;
        let item = ItemTarget::named(&item_workspace, &item_id).get(conn)?;
        let kind = match asked {
            Some(kind) => kind,
            None => sources::by_item_type(&item.item_type).ok_or_else(|| {
                ApiError::bad_request("InvalidRequest", "This item type cannot be a data source")
            })?,
        };
        // A lakehouse named as a FabricItem (its own type derived) fails too, as it does live.
        if !item.item_type.eq_ignore_ascii_case(kind.item_type)
            || (asked.is_none() && kind.api_type != "FabricItem")
        {
            // What the service answers when, say, a lakehouse is added as a FabricItem.
            return Err(ApiError::bad_request(
                "BadRequest",
                "Failed to fetch schema for the data source",
            ));
        }
        Ok::<_, ApiError>(DataSourceDoc {
            schema: schema_url("dataSource/1.0.0"),
            artifact_id: item.id.clone(),
            workspace_id: item.workspace_id.clone(),
            display_name: item.display_name.clone(),
            kind: kind.definition_type.to_string(),
            instructions: None,
            description: None,
            elements: discovery::discover(conn, &state.tables, kind, &item)?,
            extra: Map::new(),
        })
    })?;
    let new = NewDataSource {
        workspace_id: agent.ws,
        agent_id: agent.id,
        datasource,
    };
    lro::run(
        &state,
        &caller,
        &origin,
        Action::AddDataSource(Box::new(new)),
        InlineAnswer {
            status: StatusCode::CREATED,
            etag: false,
            // Schema discovery takes minutes (reference/data-agent.md): 202.
            service_lro: true,
        },
    )
}

/// PATCH a draft datasource: `instructions`, `description` (or `userDescription`).
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let body = body.object()?;
    let instructions = opt_str(&body, "instructions")?;
    let description = match opt_str(&body, "description")? {
        Some(text) => Some(text),
        None => opt_str(&body, "userDescription")?,
    };
    let updated = agent_config::change(&state, &caller, &agent, |_, item, definition| {
        let source = agents::draft_source(definition, &item.id, &ds)?;
        access::check_source(&state, &caller, &source.datasource)?;
        if let Some(text) = instructions {
            source.datasource_mut().instructions = Some(text).filter(|t| !t.is_empty());
        }
        if let Some(text) = description {
            source.datasource_mut().description = Some(text).filter(|t| !t.is_empty());
        }
        Ok(wire::datasource(&item.id, &source.datasource))
    })?;
    Ok(respond::json(StatusCode::OK, &updated))
}

/// DELETE a draft datasource, with its selections and few-shots.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
) -> Result<Response, ApiError> {
    agent_config::change(&state, &caller, &agent, |_, item, definition| {
        let before = definition.draft.sources.len();
        definition
            .draft
            .sources
            .retain(|s| wire::datasource_id(&item.id, &s.datasource.artifact_id) != ds);
        if definition.draft.sources.len() == before {
            return Err(agents::not_found("data source", &ds));
        }
        Ok(())
    })?;
    Ok(respond::empty_ok())
}
