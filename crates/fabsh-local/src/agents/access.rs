//! Whose data an agent hands on. An agent answers from its datasources' data, so data reaches
//! a caller through it only if the caller may read that data (Viewer or above in the source's
//! workspace, [`Caller::may_read`]): the author's access is checked whenever a definition or
//! datasource is written or published (it may have been removed since the datasource was
//! added), and the asker's whenever the agent answers.

use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::state::Shared;
use crate::store::items::Part;
use axum::http::StatusCode;
use fabsh_model::agent::definition::{AgentDefinition, DataSourceDoc, StageDoc};

/// Checks that `caller` may read what one datasource holds. A workspace that does not exist
/// holds nothing to read, so it passes (definitions synced from git name an all-zero one);
/// reading its data later finds none. A refusal names the datasource.
pub(crate) fn check_source(
    state: &Shared,
    caller: &Caller,
    doc: &DataSourceDoc,
) -> Result<(), ApiError> {
    match caller.may_read(state, &doc.workspace_id) {
        Err(err) if err.status == StatusCode::NOT_FOUND => Ok(()),
        Err(err) if err.status == StatusCode::FORBIDDEN => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "InsufficientPrivileges",
            format!(
                "The caller cannot read the data source '{}': it needs at least the Viewer role in the data source's workspace",
                doc.display_name
            ),
        )
        .related(&doc.workspace_id, "Workspace")),
        other => other,
    }
}

/// Checks every datasource of these stages.
pub(crate) fn check_stages<'a>(
    state: &Shared,
    caller: &Caller,
    stages: impl IntoIterator<Item = &'a StageDoc>,
) -> Result<(), ApiError> {
    for stage in stages {
        for source in &stage.sources {
            check_source(state, caller, &source.datasource)?;
        }
    }
    Ok(())
}

/// Checks a whole definition about to be stored: its draft and, since a definition may carry
/// one, its published copy.
pub(crate) fn check_definition(
    state: &Shared,
    caller: &Caller,
    definition: &AgentDefinition,
) -> Result<(), ApiError> {
    check_stages(
        state,
        caller,
        std::iter::once(&definition.draft).chain(definition.published.as_ref()),
    )
}

/// The same for parts a create or an import stores as they come. Parts that do not read as an
/// agent's definition are stored as before: no route reads a datasource out of them (the
/// configuration API and the answers refuse a definition that does not parse).
pub(crate) fn check_parts(state: &Shared, caller: &Caller, parts: &[Part]) -> Result<(), ApiError> {
    match super::from_parts(parts) {
        Ok(definition) => check_definition(state, caller, &definition),
        Err(_) => Ok(()),
    }
}

/// The source workspaces of an agent's datasources that `caller` may not read: their table
/// names are their data too, so a definition read by this caller leaves their trees out.
pub(crate) fn unreadable_sources(state: &Shared, caller: &Caller, parts: &[Part]) -> Vec<String> {
    let mut hidden: Vec<String> = parts
        .iter()
        .filter_map(datasource_doc)
        .filter(|doc| check_source(state, caller, doc).is_err())
        .map(|doc| doc.workspace_id)
        .collect();
    hidden.sort();
    hidden.dedup();
    hidden
}

/// `parts` with the schema tree of every datasource over one of `hidden` emptied.
pub(crate) fn without_trees_of(parts: Vec<Part>, hidden: &[String]) -> Vec<Part> {
    if hidden.is_empty() {
        return parts;
    }
    parts
        .into_iter()
        .map(|part| match datasource_doc(&part) {
            Some(mut doc) if hidden.contains(&doc.workspace_id) => {
                doc.elements.clear();
                // A document that read as one serialises as one.
                let payload = serde_json::to_vec_pretty(&doc).unwrap_or(part.payload);
                Part {
                    path: part.path,
                    payload,
                }
            }
            _ => part,
        })
        .collect()
}

fn datasource_doc(part: &Part) -> Option<DataSourceDoc> {
    part.path
        .ends_with("/datasource.json")
        .then(|| serde_json::from_slice(&part.payload).ok())
        .flatten()
}
