//! A lakehouse's materialized lake view execution definitions (swagger lakehouse
//! `MaterializedLakeViews_CreateMlvExecutionDefinition`, `…List…`, `…Get…`, `…Update…`,
//! `…Delete…`, under `…/lakehouses/{id}/mlvexecutiondefinitions`): what a scheduled MLV
//! refresh would run with. Local Fabric keeps them (nothing refreshes views here) and answers
//! them as `MaterializedLakeViewExecutionDefinition`. An update changes only the fields sent,
//! `settings` field by field, as the swagger's update example shows.
//!
//! Roles: Viewer reads, Contributor writes (the swagger's permissions).

use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, Origin, RawBody, norm};
use crate::state::Shared;
use crate::store::mlv_definitions::{self, StoredDefinition};
use crate::store::new_id;
use crate::store::principals::Role;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use rusqlite::Connection;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Swagger `ItemReferenceById` (`referenceType` `ById`, which requests may leave out).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ItemRef {
    #[serde(default = "by_id")]
    reference_type: String,
    item_id: String,
    workspace_id: String,
}

fn by_id() -> String {
    "ById".to_string()
}

/// Swagger `RefreshMode`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
enum RefreshMode {
    Optimal,
    Full,
}

/// Swagger `ExecutionContextMode`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
enum Mode {
    All,
    Selected,
}

/// Swagger `MaterializedLakeViewExecutionDefinitionSettings{Request,Response}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Settings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    environment: Option<ItemRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_mode: Option<RefreshMode>,
}

/// Swagger `CurrentLakehouseExecutionContext` (`All`, or `Selected` with `selectedMlvs`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CurrentContext {
    mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    selected_mlvs: Option<Vec<String>>,
}

/// Swagger `ExtendedLineageExecutionContext{Request,Response}` (`All`, or `Selected` with
/// `selectedLakehouses`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LineageContext {
    mode: Mode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    selected_lakehouses: Option<Vec<ItemRef>>,
}

/// A definition as kept and answered, without its `id` (swagger
/// `CreateMaterializedLakeViewExecutionDefinitionRequest` is the same fields).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Definition {
    display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<Settings>,
    current_lakehouse_execution_context: CurrentContext,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extended_lineage_execution_context: Option<LineageContext>,
}

/// Swagger `UpdateMaterializedLakeViewExecutionDefinitionRequest`: every field optional.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Update {
    display_name: Option<String>,
    description: Option<String>,
    settings: Option<Settings>,
    current_lakehouse_execution_context: Option<CurrentContext>,
    extended_lineage_execution_context: Option<LineageContext>,
}

/// Swagger `MaterializedLakeViewExecutionDefinition`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    id: String,
    #[serde(flatten)]
    definition: Definition,
}

impl Definition {
    /// 400 `InvalidRequest`-style refusals of what the swagger requires: a display name, and
    /// the selection a `Selected` context names (which an `All` context does not keep).
    fn checked(mut self) -> Result<Definition, ApiError> {
        if self.display_name.trim().is_empty() {
            return Err(ApiError::invalid_body("displayName must not be empty"));
        }
        let current = &mut self.current_lakehouse_execution_context;
        match current.mode {
            Mode::Selected if current.selected_mlvs.as_ref().is_none_or(Vec::is_empty) => {
                return Err(ApiError::invalid_body(
                    "currentLakehouseExecutionContext of mode Selected needs selectedMlvs",
                ));
            }
            Mode::All => current.selected_mlvs = None,
            Mode::Selected => {}
        }
        if let Some(lineage) = &mut self.extended_lineage_execution_context {
            match lineage.mode {
                Mode::Selected
                    if lineage
                        .selected_lakehouses
                        .as_ref()
                        .is_none_or(Vec::is_empty) =>
                {
                    return Err(ApiError::invalid_body(
                        "extendedLineageExecutionContext of mode Selected needs selectedLakehouses",
                    ));
                }
                Mode::All => lineage.selected_lakehouses = None,
                Mode::Selected => {}
            }
        }
        // "Defaults to `Optimal` if not specified."
        if let Some(settings) = &mut self.settings {
            settings.refresh_mode.get_or_insert(RefreshMode::Optimal);
        }
        Ok(self)
    }

    fn apply(mut self, update: Update) -> Definition {
        if let Some(name) = update.display_name {
            self.display_name = name;
        }
        if let Some(description) = update.description {
            self.description = Some(description);
        }
        if let Some(sent) = update.settings {
            let settings = self.settings.get_or_insert_with(Settings::default);
            if sent.environment.is_some() {
                settings.environment = sent.environment;
            }
            if sent.refresh_mode.is_some() {
                settings.refresh_mode = sent.refresh_mode;
            }
        }
        if let Some(current) = update.current_lakehouse_execution_context {
            self.current_lakehouse_execution_context = current;
        }
        if let Some(lineage) = update.extended_lineage_execution_context {
            self.extended_lineage_execution_context = Some(lineage);
        }
        self
    }
}

fn parse<T: DeserializeOwned>(body: &RawBody) -> Result<T, ApiError> {
    serde_json::from_slice(&body.0)
        .map_err(|e| ApiError::invalid_body(format!("The request body is not valid: {e}")))
}

fn to_text(definition: &Definition) -> Result<String, ApiError> {
    serde_json::to_string(definition).map_err(|e| ApiError::internal(e.to_string()))
}

fn answer(stored: &StoredDefinition) -> Result<Answer, ApiError> {
    let definition = serde_json::from_str(&stored.body)
        .map_err(|e| ApiError::internal(format!("a stored MLV definition: {e}")))?;
    Ok(Answer {
        id: stored.id.clone(),
        definition,
    })
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "EntityNotFound",
        format!("The materialized lake view execution definition '{id}' was not found"),
    )
}

/// The lakehouse of the route, read or written on `conn`: another item type's
/// `mlvexecutiondefinitions` is no route of the service's (404 `EntityNotFound`).
fn lakehouse(conn: &Connection, target: &ItemTarget) -> Result<String, ApiError> {
    let item = target.get(conn)?;
    if item.item_type != "Lakehouse" {
        return Err(ApiError::entity_not_found());
    }
    Ok(item.id)
}

/// The `{definition}` of a definition's routes.
#[derive(Deserialize)]
pub(crate) struct DefinitionPath {
    definition: String,
}

/// POST: 201 with the definition and its `Location`.
pub(crate) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    body: RawBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let definition = parse::<Definition>(&body)?.checked()?;
    let text = to_text(&definition)?;
    let id = new_id();
    let item_id = state.db.write(|tx| {
        let item_id = lakehouse(tx, &target)?;
        mlv_definitions::insert(tx, &item_id, &id, &text, now_nanos())?;
        Ok::<_, ApiError>(item_id)
    })?;
    let location = format!(
        "{origin}/v1/workspaces/{}/lakehouses/{item_id}/mlvexecutiondefinitions/{id}",
        target.ws
    );
    Ok(respond::created(&Answer { id, definition }, &location))
}

/// GET the list: pages of the lakehouse's definitions, oldest first.
pub(crate) fn list(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Viewer)?;
    let item_id = state.db.read(|c| lakehouse(c, &target))?;
    let list = PageToken {
        extra: Some(item_id.clone()),
        ..PageToken::first("mlvExecutionDefinitions", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    paging.respond(
        &token,
        |after, limit| {
            let rows = state
                .db
                .read(|c| mlv_definitions::list(c, &item_id, after, limit))?;
            rows.iter()
                .map(|row| Ok((row.seq, answer(row)?)))
                .collect::<Result<Vec<_>, ApiError>>()
        },
        |(seq, _)| *seq,
        |(_, answer): &(i64, Answer)| answer.clone(),
    )
}

/// GET one: 404 `EntityNotFound` for an id the lakehouse has not.
pub(crate) fn show(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(path): Path<DefinitionPath>,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Viewer)?;
    let id = norm(&path.definition);
    let stored = state.db.read(|c| {
        let item_id = lakehouse(c, &target)?;
        mlv_definitions::get(c, &item_id, &id)?.ok_or_else(|| not_found(&id))
    })?;
    Ok(respond::json(StatusCode::OK, &answer(&stored)?))
}

/// PATCH: the fields sent replace those kept; 200 with the whole definition.
pub(crate) fn update(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(path): Path<DefinitionPath>,
    body: RawBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let update: Update = parse(&body)?;
    let id = norm(&path.definition);
    let updated = state.db.write(|tx| {
        let item_id = lakehouse(tx, &target)?;
        let stored = mlv_definitions::get(tx, &item_id, &id)?.ok_or_else(|| not_found(&id))?;
        let definition = answer(&stored)?.definition.apply(update).checked()?;
        mlv_definitions::update(tx, &id, &to_text(&definition)?)?;
        Ok::<_, ApiError>(Answer {
            id: id.clone(),
            definition,
        })
    })?;
    Ok(respond::json(StatusCode::OK, &updated))
}

/// DELETE: an empty 200.
pub(crate) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(path): Path<DefinitionPath>,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let id = norm(&path.definition);
    state.db.write(|tx| {
        let item_id = lakehouse(tx, &target)?;
        if mlv_definitions::delete(tx, &item_id, &id)? {
            Ok(())
        } else {
            Err(not_found(&id))
        }
    })?;
    Ok(respond::empty_ok())
}
