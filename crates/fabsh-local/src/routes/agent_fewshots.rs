//! `…/datasources/{ds}/fewshots[/{fs}]` and `…/fewshots/deleteAll`. Each example's
//! `validationStatus` is worked out when it is read: SQL answers are parsed and checked
//! against the source's live tables and columns; a new example answers `Validating`.

use super::agent_config::{self, read, stage_of};
use super::agent_sources::SourcePath;
use super::target::ItemTarget;
use crate::agents::{self, MAX_FEWSHOTS, discovery, wire};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::Paging;
use crate::respond::{self, JsonBody, opt_str};
use crate::state::Shared;
use crate::store::{items, new_id};
use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use fabsh_model::agent::definition::{FewShotDoc, SourceFolder};
use fabsh_model::agent::sources;
use fabsh_model::agent::sql_check::{self, KnownSchema};
use serde::Deserialize;
use serde_json::Value;

/// The `{ds}` and `{fs}` of a few-shot route (the agent is its `ItemTarget`).
#[derive(Deserialize)]
pub(super) struct FewShotPath {
    ds: String,
    fs: String,
}

/// Judges examples of one source: SQL against its live schema, others by being non-empty.
struct Judge {
    schema: Option<KnownSchema>,
}

impl Judge {
    fn for_source(state: &Shared, source: &SourceFolder) -> Result<Judge, ApiError> {
        let doc = &source.datasource;
        let Some(kind) = sources::by_definition_type(&doc.kind) else {
            return Ok(Judge { schema: None });
        };
        let schema = state.db.read(|conn| {
            let item = items::get(conn, &doc.workspace_id, &doc.artifact_id)?;
            discovery::known_schema(conn, &state.tables, kind, item.as_ref())
        })?;
        Ok(Judge { schema })
    }

    fn wire(&self, fewshot: &FewShotDoc) -> Value {
        // A few-shot without a query is shown with an empty one, as the service shows it.
        let query = fewshot.query.as_deref().map(str::trim).unwrap_or_default();
        let verdict = if query.is_empty() {
            Err("The query is empty".to_string())
        } else {
            match &self.schema {
                Some(schema) => sql_check::check(query, schema),
                None => Ok(()),
            }
        };
        match verdict {
            Ok(()) => wire::fewshot(fewshot, "Valid", None),
            Err(reason) => wire::fewshot(fewshot, "Invalid", Some(&reason)),
        }
    }
}

/// GET the examples of a datasource, paged.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
    paging: Paging,
) -> Result<Response, ApiError> {
    let (item, definition) = read(&state, &caller, &agent)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    let source = agents::source(stage, &item.id, &ds)?;
    let judge = Judge::for_source(&state, source)?;
    let values: Vec<Value> = source
        .fewshots
        .iter()
        .flatten()
        .map(|fs| judge.wire(fs))
        .collect();
    paging.slice(values, "fewshots", &ds)
}

/// GET one example.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    uri: Uri,
    agent: ItemTarget,
    Path(FewShotPath { ds, fs: example_id }): Path<FewShotPath>,
) -> Result<Response, ApiError> {
    let (item, definition) = read(&state, &caller, &agent)?;
    let stage = agents::stage(&definition, stage_of(&uri))?;
    let source = agents::source(stage, &item.id, &ds)?;
    let fewshot = source
        .fewshots
        .iter()
        .flatten()
        .find(|fs| fs.id.eq_ignore_ascii_case(&example_id))
        .ok_or_else(|| agents::not_found("few-shot example", &example_id))?;
    let judge = Judge::for_source(&state, source)?;
    Ok(respond::json(StatusCode::OK, &judge.wire(fewshot)))
}

/// The refusal for sources that take no few-shots.
fn check_supported(source: &SourceFolder) -> Result<(), ApiError> {
    match sources::by_definition_type(&source.datasource.kind).and_then(sources::fewshots_refusal) {
        Some(reason) => Err(ApiError::bad_request("InvalidRequest", reason)),
        None => Ok(()),
    }
}

/// POST an example `{question, query?}`: 201 with `validationStatus: Validating`.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let body = body.object()?;
    let question = respond::req_str(&body, "question")?;
    let query = opt_str(&body, "query")?;
    let created = agent_config::change(&state, &caller, &agent, |_, item, definition| {
        let source = agents::draft_source(definition, &item.id, &ds)?;
        check_supported(source)?;
        let list = source.fewshots.get_or_insert_with(Vec::new);
        if list.len() >= MAX_FEWSHOTS {
            return Err(ApiError::bad_request(
                "InvalidRequest",
                format!("A data source can have at most {MAX_FEWSHOTS} few-shot examples"),
            ));
        }
        let fewshot = FewShotDoc {
            id: new_id(),
            question,
            query,
        };
        list.push(fewshot.clone());
        Ok(wire::fewshot(&fewshot, "Validating", None))
    })?;
    Ok(respond::json(StatusCode::CREATED, &created))
}

/// PATCH an example's `question` and/or `query`.
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(FewShotPath { ds, fs: example_id }): Path<FewShotPath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let body = body.object()?;
    let question = opt_str(&body, "question")?;
    let query = opt_str(&body, "query")?;
    if question.as_deref().is_some_and(|q| q.trim().is_empty()) {
        return Err(ApiError::invalid_body("'question' must not be empty"));
    }
    let (updated, source) =
        agent_config::change(&state, &caller, &agent, |_, item, definition| {
            let source = agents::draft_source(definition, &item.id, &ds)?;
            check_supported(source)?;
            let fewshot = source
                .fewshots
                .iter_mut()
                .flatten()
                .find(|fs| fs.id.eq_ignore_ascii_case(&example_id))
                .ok_or_else(|| agents::not_found("few-shot example", &example_id))?;
            if let Some(text) = question {
                fewshot.question = text;
            }
            if query.is_some() {
                fewshot.query = query;
            }
            Ok((fewshot.clone(), source.clone()))
        })?;
    let judge = Judge::for_source(&state, &source)?;
    Ok(respond::json(StatusCode::OK, &judge.wire(&updated)))
}

/// DELETE one example.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(FewShotPath { ds, fs: example_id }): Path<FewShotPath>,
) -> Result<Response, ApiError> {
    agent_config::change(&state, &caller, &agent, |_, item, definition| {
        let source = agents::draft_source(definition, &item.id, &ds)?;
        let list = source.fewshots.get_or_insert_with(Vec::new);
        let before = list.len();
        list.retain(|fs| !fs.id.eq_ignore_ascii_case(&example_id));
        if list.len() == before {
            return Err(agents::not_found("few-shot example", &example_id));
        }
        Ok(())
    })?;
    Ok(respond::empty_ok())
}

/// POST `deleteAll`: removes every example of the datasource.
pub(super) fn remove_all(
    State(state): State<Shared>,
    caller: Caller,
    agent: ItemTarget,
    Path(SourcePath { ds }): Path<SourcePath>,
) -> Result<Response, ApiError> {
    agent_config::change(&state, &caller, &agent, |_, item, definition| {
        let source = agents::draft_source(definition, &item.id, &ds)?;
        source.fewshots = Some(Vec::new());
        Ok(())
    })?;
    Ok(respond::empty_ok())
}
