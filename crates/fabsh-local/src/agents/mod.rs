//! Data agents in local Fabric: the definition parts are the stored truth, and the preview
//! configuration API (`routes/agent_*.rs`) reads and writes them through this module — load
//! the agent's parts as documents, change them, store them back, all in one transaction.

pub(crate) mod access;
pub(crate) mod answer;
pub(crate) mod budget;
pub(crate) mod discovery;
pub(crate) mod nl2sql;
pub(crate) mod parsed;
mod sql_cells;
pub(crate) mod sql_run;
pub(crate) mod tsql;
pub(crate) mod wire;

use crate::api_error::ApiError;
use crate::store::items::{self, Item, Part};
use axum::http::StatusCode;
use fabsh_model::agent::definition::{
    AgentDefinition, DataSourceDoc, ElementDoc, PartBytes, SourceFolder, Stage, StageDoc,
};
use fabsh_model::agent::sources;
use parsed::{Definitions, SharedPart};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;

/// Datasources one agent may have.
pub(crate) const MAX_DATASOURCES: usize = 5;
/// Few-shot examples one datasource may have.
pub(crate) const MAX_FEWSHOTS: usize = 100;

/// 404 `DataAgentNotPublished`, for published reads before the first publish.
pub(crate) fn not_published() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "DataAgentNotPublished",
        "The data agent has not been published",
    )
}

/// 404 for a datasource, element or few-shot that is not there.
pub(crate) fn not_found(what: &str, id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "EntityNotFound",
        format!("The {what} '{id}' was not found"),
    )
}

/// The agent item and its definition as stored (shared: reads need no copy of a wide tree;
/// changes go through [`change`]).
pub(crate) fn load(
    definitions: &Definitions,
    conn: &Connection,
    workspace: &str,
    id: &str,
) -> Result<(Item, Arc<AgentDefinition>), ApiError> {
    let item = agent_item(conn, workspace, id)?;
    let definition = Arc::clone(&definitions.load(conn, id)?.definition);
    Ok((item, definition))
}

fn agent_item(conn: &Connection, workspace: &str, id: &str) -> Result<Item, ApiError> {
    items::get(conn, workspace, id)?
        .filter(|item| item.item_type == "DataAgent")
        .ok_or_else(|| ApiError::item_not_found(id))
}

/// Reads stored parts as a definition; unreadable parts are the caller's corrupted payload.
pub(crate) fn from_parts(parts: &[Part]) -> Result<AgentDefinition, ApiError> {
    parsed::parse(parts)
}

/// Changes an agent's definition inside a write transaction and stores it back. Only the
/// parts whose bytes changed are written (a few-shot added rewrites one small file, not every
/// datasource's schema tree), and unchanged datasource trees are not even serialised again.
/// Returns the change's result and the save, for [`Definitions::remember`] after the commit.
pub(crate) fn change<T>(
    definitions: &Definitions,
    conn: &Connection,
    workspace: &str,
    id: &str,
    change: impl FnOnce(&Item, &mut AgentDefinition) -> Result<T, ApiError>,
) -> Result<(T, parsed::Saved), ApiError> {
    let item = agent_item(conn, workspace, id)?;
    let before = definitions.load(conn, id)?;
    let mut definition = (*before.definition).clone();
    let out = change(&item, &mut definition)?;
    let previous = |path: &str| {
        let part = before.parts.iter().find(|part| part.path == path)?;
        Some(Arc::clone(&part.payload))
    };
    let mut parts = Vec::new();
    for (path, bytes) in
        definition.to_parts_since(&before.definition, &|path| previous(path).is_some())
    {
        let payload = match bytes {
            PartBytes::New(bytes) => bytes.into(),
            PartBytes::Unchanged => previous(&path).ok_or_else(|| {
                ApiError::internal(format!("the stored part {path} went missing"))
            })?,
        };
        parts.push(SharedPart { path, payload });
    }
    let stored = &before.parts;
    let same_paths = stored.len() == parts.len()
        && stored
            .iter()
            .zip(&parts)
            .all(|(old, new)| old.path == new.path);
    if same_paths {
        for (ord, (old, new)) in stored.iter().zip(&parts).enumerate() {
            if !Arc::ptr_eq(&old.payload, &new.payload) && old.payload != new.payload {
                items::set_part_payload(conn, &item.id, ord, &new.payload)?;
            }
        }
    } else {
        let plain: Vec<Part> = parts
            .iter()
            .map(|part| Part {
                path: part.path.clone(),
                payload: part.payload.to_vec(),
            })
            .collect();
        items::replace_parts(conn, &item.id, item.definition_format.as_deref(), &plain)?;
    }
    let saved = parsed::saved(conn, &item.id, definition, parts)?;
    Ok((out, saved))
}

/// The stage's documents, or `DataAgentNotPublished`.
pub(crate) fn stage(definition: &AgentDefinition, stage: Stage) -> Result<&StageDoc, ApiError> {
    definition.stage(stage).ok_or_else(not_published)
}

/// The datasource with this configuration-API id.
pub(crate) fn source<'a>(
    doc: &'a StageDoc,
    agent_id: &str,
    id: &str,
) -> Result<&'a SourceFolder, ApiError> {
    doc.sources
        .iter()
        .find(|s| wire::datasource_id(agent_id, &s.datasource.artifact_id) == id)
        .ok_or_else(|| not_found("data source", id))
}

/// The same, in the draft, for changing.
pub(crate) fn draft_source<'a>(
    definition: &'a mut AgentDefinition,
    agent_id: &str,
    id: &str,
) -> Result<&'a mut SourceFolder, ApiError> {
    definition
        .draft
        .sources
        .iter_mut()
        .find(|s| wire::datasource_id(agent_id, &s.datasource.artifact_id) == id)
        .ok_or_else(|| not_found("data source", id))
}

/// The elements under a display path (the tree's top for an empty path).
pub(crate) fn children_at<'a>(
    elements: &'a [ElementDoc],
    path: &[String],
) -> Option<&'a [ElementDoc]> {
    let mut level = elements;
    for name in path {
        level = &level.iter().find(|e| &e.display_name == name)?.children;
    }
    Some(level)
}

/// The element at a display path, for changing.
pub(crate) fn element_at_mut<'a>(
    elements: &'a mut [ElementDoc],
    path: &[String],
) -> Option<&'a mut ElementDoc> {
    let (last, parents) = path.split_last()?;
    let mut level = elements;
    for name in parents {
        level = &mut level.iter_mut().find(|e| &e.display_name == name)?.children;
    }
    level.iter_mut().find(|e| &e.display_name == last)
}

/// Selects or unselects an element and everything under it (a table's columns go with it).
pub(crate) fn set_selected(element: &mut ElementDoc, selected: bool) {
    element.is_selected = selected;
    for child in &mut element.children {
        set_selected(child, selected);
    }
}

/// The typed item's `properties`: `publishedDescription` once published.
pub(crate) fn properties(conn: &Connection, item_id: &str) -> rusqlite::Result<Value> {
    let parts = items::parts(conn, item_id)?;
    Ok(
        match from_parts(&parts)
            .ok()
            .as_ref()
            .and_then(AgentDefinition::published_description)
        {
            Some(description) => json!({"publishedDescription": description}),
            None => json!({}),
        },
    )
}

/// A datasource to add, discovered when the request came in.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewDataSource {
    /// The agent's workspace.
    pub workspace_id: String,
    /// The agent.
    pub agent_id: String,
    /// `datasource.json` with the discovered tree.
    pub datasource: DataSourceDoc,
}

/// 409 when the item is already a datasource of the agent; 400 past the datasource limit.
pub(crate) fn check_can_add(
    definition: &AgentDefinition,
    artifact_id: &str,
) -> Result<(), ApiError> {
    let sources = &definition.draft.sources;
    if sources
        .iter()
        .any(|s| s.datasource.artifact_id.eq_ignore_ascii_case(artifact_id))
    {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "EntityConflict",
            "The item is already a data source of this data agent",
        ));
    }
    if sources.len() >= MAX_DATASOURCES {
        return Err(ApiError::bad_request(
            "InvalidRequest",
            format!("A data agent can have at most {MAX_DATASOURCES} data sources"),
        ));
    }
    Ok(())
}

/// Adds the datasource to the draft (re-checked, since time passed since the request);
/// answers with the datasource in camelCase, as the swagger's `Staging_CreateDatasource`
/// declares (`DataAgentDatasource`, example CreateStagingDataAgentDatasource.json). The
/// reference (data-agent.md §3 "Live behaviour") reports PascalCase keys from the live
/// service, but that comes from fabio's notes, not recorded traffic, while the swagger's
/// schema and example are the published contract; fabsh's client reads either casing.
pub(crate) fn add_datasource(
    definitions: &Definitions,
    conn: &Connection,
    new: &NewDataSource,
) -> Result<Value, ApiError> {
    let (item, _saved) = change(
        definitions,
        conn,
        &new.workspace_id,
        &new.agent_id,
        |item, definition| {
            check_can_add(definition, &new.datasource.artifact_id)?;
            let prefix = sources::by_definition_type(&new.datasource.kind)
                .map_or(new.datasource.kind.as_str(), |kind| kind.folder_prefix);
            let base: String = format!("{prefix}-{}", new.datasource.display_name)
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || "-_ .".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let taken = |name: &str| definition.draft.sources.iter().any(|s| s.folder == name);
            let mut folder = base.clone();
            let mut n = 2;
            while taken(&folder) {
                folder = format!("{base}-{n}");
                n += 1;
            }
            definition.draft.sources.push(SourceFolder {
                folder,
                datasource: Arc::new(new.datasource.clone()),
                fewshots: None,
            });
            Ok(item.clone())
        },
    )?;
    Ok(wire::datasource(&item.id, &new.datasource))
}
