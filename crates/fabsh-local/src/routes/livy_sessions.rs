//! Livy sessions (swagger `LivySessions_ListLivySessions`, `LivySessions_List_Livy_Sessions_(beta)`,
//! `LivySessions_GetLivySession` of notebook/, lakehouse/, sparkjobdefinition/ and spark/):
//! the Spark sessions local Fabric's job engine stands for. Nothing runs Spark here, so a
//! session is a run of the job store (`store::livy_sessions` says which): its state and times
//! follow the run's, its `livyId` is the run's root activity id, `jobInstanceId` the run's id.
//!
//! Whose sessions: a notebook's are its runs (RunNotebook, however started); a lakehouse's
//! are its own runs (table maintenance, a Spark batch on the service) and not those of the
//! notebooks that use it as default lakehouse, since that link lives only inside notebook
//! content, which the store does not index; a workspace's are those of all its items.
//!
//! The beta list takes filters (`submittedDateTime`, `endDateTime`, `submitter.Id`, `state`)
//! local Fabric does not apply yet: it answers the unfiltered list, as the plain one does.
//! Runs do not record who started them, so a session carries no `submitter`; nor does it
//! carry `isHighConcurrency`, which the service's examples leave out.
//!
//! Roles: Viewer reads, as every other read of runs.

use super::jobs::status_at;
use super::target::{ItemTarget, WorkspaceTarget};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::{now_nanos, zulu_timestamp};
use crate::paging::{PageToken, Paging};
use crate::respond::{self, norm};
use crate::scheduled_runs;
use crate::state::Shared;
use crate::store::items;
use crate::store::livy_sessions::{self, SESSION_ITEM_TYPES, Scope, SessionRun};
use crate::store::principals::Role;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::jobs::JobStatus;
use serde::{Deserialize, Serialize};

/// Swagger `ItemReferenceById`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ItemById {
    reference_type: &'static str,
    item_id: String,
    workspace_id: String,
}

/// Swagger `Duration`, in seconds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Duration {
    value: f64,
    time_unit: &'static str,
}

/// Swagger `LivySession` (common/spark_definitions.json), the fields a run answers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LivySession {
    spark_application_id: String,
    state: &'static str,
    livy_id: String,
    origin: &'static str,
    attempt_number: u32,
    max_number_of_attempts: u32,
    livy_name: String,
    item: ItemById,
    item_type: String,
    item_name: String,
    job_type: &'static str,
    submitted_date_time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_date_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_date_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    queued_duration: Option<Duration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    running_duration: Option<Duration>,
    total_duration: Duration,
    job_instance_id: String,
    creator_item: ItemById,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancellation_reason: Option<String>,
    operation_name: &'static str,
    runtime_version: &'static str,
}

/// The Fabric runtime local Fabric names (the swagger examples' `1.3`).
const RUNTIME_VERSION: &str = "1.3";

fn seconds(from: i64, to: i64) -> Duration {
    Duration {
        value: (to.saturating_sub(from).max(0) / 1_000_000) as f64 / 1000.0,
        time_unit: "Seconds",
    }
}

/// Swagger `LivySessionState` of a run's status. A run that "completed" is a session that
/// `Succeeded`.
fn state_of(status: JobStatus) -> &'static str {
    match status {
        JobStatus::NotStarted => "NotStarted",
        JobStatus::InProgress => "InProgress",
        JobStatus::Completed => "Succeeded",
        JobStatus::Failed => "Failed",
        JobStatus::Cancelled => "Cancelled",
        JobStatus::Deduped | JobStatus::Other => "Unknown",
    }
}

/// The session a run stands for, at `now`.
pub(crate) fn session(row: &SessionRun, now: i64) -> LivySession {
    let run = &row.run;
    let (status, start, end) = status_at(run, now);
    let item = ItemById {
        reference_type: "ById",
        item_id: run.item_id.clone(),
        workspace_id: row.workspace_id.clone(),
    };
    let notebook = row.item_type == "Notebook";
    let until = end.unwrap_or(now);
    LivySession {
        // The service's form, `application_<cluster start>_<n>`.
        spark_application_id: format!(
            "application_{}_{:04}",
            run.created_at / 1_000_000,
            run.seq % 10_000
        ),
        state: state_of(status),
        livy_id: run.root_activity_id.clone(),
        origin: "SubmittedJob",
        attempt_number: 1,
        max_number_of_attempts: 1,
        // As the service names a notebook run's session (`<item>_<livyId>`).
        livy_name: format!("{}_{}", row.item_name, run.root_activity_id),
        creator_item: item.clone(),
        item,
        item_type: row.item_type.clone(),
        item_name: row.item_name.clone(),
        job_type: if notebook {
            "SparkSession"
        } else {
            "SparkBatch"
        },
        submitted_date_time: zulu_timestamp(run.created_at),
        start_date_time: start.map(zulu_timestamp),
        end_date_time: end.map(zulu_timestamp),
        queued_duration: start.map(|start| seconds(run.created_at, start)),
        running_duration: start.map(|start| seconds(start, until)),
        total_duration: seconds(run.created_at, until),
        job_instance_id: run.id.clone(),
        cancellation_reason: (status == JobStatus::Cancelled)
            .then(|| "User cancelled the Spark session".to_string()),
        // The swagger's names: "_Notebook run_", "Notebook Scheduled Run", "Batch Livy Run".
        operation_name: match (notebook, run.invoke_type.as_str()) {
            (true, "Scheduled") => "Notebook Scheduled Run",
            (true, _) => "Notebook run",
            (false, _) => "Batch Livy Run",
        },
        runtime_version: RUNTIME_VERSION,
    }
}

/// The item of an item's session routes, which must be of a type that has sessions.
fn session_item(
    state: &Shared,
    caller: &Caller,
    target: &ItemTarget,
) -> Result<items::Item, ApiError> {
    let item = target.open(state, caller, Role::Viewer)?;
    if !SESSION_ITEM_TYPES.contains(&item.item_type.as_str()) {
        return Err(ApiError::entity_not_found());
    }
    Ok(item)
}

/// Answers a page of the scope's sessions, newest first (as runs are listed).
fn page(
    state: &Shared,
    paging: &Paging,
    token: &PageToken,
    scope: Scope<'_>,
) -> Result<Response, ApiError> {
    let now = now_nanos();
    paging.respond(
        token,
        |after, limit| {
            let before = if after == 0 { i64::MAX } else { -after };
            state
                .db
                .read(|c| livy_sessions::list(c, scope, before, limit))
        },
        |row| -row.run.seq,
        |row| session(row, now),
    )
}

/// GET `…/{notebooks|lakehouses|sparkJobDefinitions}/{id}/livySessions` (also `?beta=true`).
pub(crate) fn list_item(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    let item = session_item(&state, &caller, &target)?;
    let list = PageToken {
        extra: Some(item.id.clone()),
        ..PageToken::first("livySessions", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    scheduled_runs::record_due(&state, &item.id, now_nanos())?;
    page(&state, &paging, &token, Scope::Item(&item.id))
}

/// The `{livy}` of a session's route.
#[derive(Deserialize)]
pub(crate) struct LivyPath {
    livy: String,
}

/// GET `…/{id}/livySessions/{livyId}`: 404 `EntityNotFound` for a session the item has not.
pub(crate) fn show_item(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(path): Path<LivyPath>,
) -> Result<Response, ApiError> {
    let item = session_item(&state, &caller, &target)?;
    let livy = norm(&path.livy);
    let now = now_nanos();
    scheduled_runs::record_due(&state, &item.id, now)?;
    let row = state
        .db
        .read(|c| livy_sessions::get(c, &item.id, &livy))?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "EntityNotFound",
                format!("The Livy session '{livy}' was not found"),
            )
        })?;
    Ok(respond::json(StatusCode::OK, &session(&row, now)))
}

/// GET `/v1/workspaces/{ws}/spark/livySessions` (also `?beta=true`): every item's sessions.
pub(crate) fn list_workspace(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let token = paging.token(PageToken::first("workspaceLivySessions", Some(&ws)), Ok)?;
    // Runs scheduled by now are sessions too; record them first, item by item.
    let now = now_nanos();
    let names = state.db.read(|c| items::names_and_ids(c, &ws))?;
    for (_, item_type, id) in &names {
        if SESSION_ITEM_TYPES.contains(&item_type.as_str()) {
            scheduled_runs::record_due(&state, id, now)?;
        }
    }
    page(&state, &paging, &token, Scope::Workspace(&ws))
}
