//! Livy sessions (swagger `LivySessions_ListLivySessions`, `LivySessions_List_Livy_Sessions_(beta)`,
//! `LivySessions_GetLivySession` of notebook/, lakehouse/, sparkjobdefinition/ and spark/):
//! the Spark sessions local Fabric's job engine stands for. Nothing runs Spark here, so a
//! session is a run of the job store (`store::livy_sessions` says which): its state and times
//! follow the run's, its `livyId` is the run's root activity id, `jobInstanceId` the run's id,
//! its `submitter` the principal that started the run (a scheduled run's: the schedule's
//! owner), its `capacityId` its workspace's, and its Spark sizes the starter pool's, which is
//! the only pool local Fabric has.
//!
//! Whose sessions: a notebook's are its runs (RunNotebook, however started); a lakehouse's
//! are its own runs (table maintenance, a Spark batch on the service) and not those of the
//! notebooks that use it as default lakehouse, since that link lives only inside notebook
//! content, which the store does not index; a workspace's are those of all its items.
//!
//! The beta list (`beta=true`) takes the swagger's filters: `submittedDateTime` (submitted at
//! or after), `endDateTime` (ended at or before; a session still going has not), `submitter.Id`
//! and `state`, compared at the whole second that sessions print. The plain list defines no
//! filters and answers every session, as an operation ignores parameters it does not define.
//! A filter's value that is no date-time, GUID or `LivySessionState` is 400
//! `InvalidParameter`. Filters ride in the continuation token, so later pages keep them.
//!
//! Roles: Viewer reads, as every other read of runs.

use super::deploy_reads::{STARTER_MAX_EXECUTORS, STARTER_MIN_EXECUTORS};
use super::jobs::status_at;
use super::livy_filters::{first_page, token_filters};
use super::target::{ItemTarget, WorkspaceTarget};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::{now_nanos, zulu_timestamp};
use crate::paging::{PageToken, Paging};
use crate::respond::{self, Origin, Query, norm};
use crate::scheduled_runs;
use crate::state::Shared;
use crate::store::items;
use crate::store::jobs::Submitter;
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

/// Swagger `Principal`, as the examples show a session's `submitter`: its id and type.
#[derive(Debug, Clone, Serialize)]
struct Principal {
    id: String,
    #[serde(rename = "type")]
    kind: String,
}

/// Swagger `Duration`, in seconds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Duration {
    value: f64,
    time_unit: &'static str,
}

/// Swagger `LivySession` (common/spark_definitions.json): every property it defines.
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
    /// Left out for a run stored before local Fabric recorded who started runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    submitter: Option<Principal>,
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
    is_high_concurrency: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cancellation_reason: Option<String>,
    /// Left out when the workspace has no capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity_id: Option<String>,
    operation_name: &'static str,
    /// Whose capacity use the session is: local Fabric shares no sessions between runs
    /// (no high concurrency), so it is the submitter's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    consumer_id: Option<Principal>,
    runtime_version: &'static str,
    livy_session_item_resource_uri: String,
    driver_memory: u32,
    driver_cores: u32,
    executor_memory: u32,
    executor_cores: u32,
    num_executors: u32,
    is_dynamic_allocation_enabled: bool,
    dynamic_allocation_max_executors: u32,
}

/// The Fabric runtime local Fabric names (the swagger examples' `1.3`).
const RUNTIME_VERSION: &str = "1.3";

/// A starter pool session's driver and executors: one Medium node each (8 vCores, 64 GB, of
/// which Spark is given 56 GB), as Fabric sizes the starter pool's sessions.
const NODE_CORES: u32 = 8;
/// See [`NODE_CORES`]; in GB, the unit the swagger gives `driverMemory`/`executorMemory`.
const NODE_MEMORY_GB: u32 = 56;

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

/// The collection of an item type with sessions (`notebooks`, ...), for its sessions' URI.
fn collection_of(item_type: &str) -> &'static str {
    fabsh_model::item_types::find(item_type).map_or("items", |known| known.collection)
}

/// The session a run stands for, at `now`; `origin` is the server's, for the URI of the
/// item's sessions (`livySessionItemResourceUri`).
pub(crate) fn session(row: &SessionRun, now: i64, origin: &str) -> LivySession {
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
        submitter: run.submitter.as_ref().map(principal),
        consumer_id: run.submitter.as_ref().map(principal),
        is_high_concurrency: false,
        capacity_id: row.capacity_id.clone(),
        livy_session_item_resource_uri: format!(
            "{origin}/v1/workspaces/{}/{}/{}/livySessions",
            row.workspace_id,
            collection_of(&row.item_type),
            run.item_id
        ),
        driver_memory: NODE_MEMORY_GB,
        driver_cores: NODE_CORES,
        executor_memory: NODE_MEMORY_GB,
        executor_cores: NODE_CORES,
        num_executors: STARTER_MIN_EXECUTORS,
        is_dynamic_allocation_enabled: true,
        dynamic_allocation_max_executors: STARTER_MAX_EXECUTORS,
    }
}

fn principal(submitter: &Submitter) -> Principal {
    Principal {
        id: submitter.id.clone(),
        kind: submitter.kind.clone(),
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

/// Answers a page of the scope's sessions that pass the token's filters, newest first (as
/// runs are listed).
fn page(
    state: &Shared,
    paging: &Paging,
    token: &PageToken,
    scope: Scope<'_>,
) -> Result<Response, ApiError> {
    let now = now_nanos();
    let filters = token_filters(token)?;
    paging.respond(
        token,
        |after, limit| {
            let before = if after == 0 { i64::MAX } else { -after };
            state
                .db
                .read(|c| livy_sessions::list(c, scope, &filters, now, before, limit))
        },
        |row| -row.run.seq,
        |row| session(row, now, &paging.origin),
    )
}

/// GET `…/{notebooks|lakehouses|sparkJobDefinitions}/{id}/livySessions` (also `?beta=true`).
pub(crate) fn list_item(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    let item = session_item(&state, &caller, &target)?;
    let list = PageToken {
        extra: Some(item.id.clone()),
        ..PageToken::first("livySessions", Some(&target.ws))
    };
    let token = paging.token(list, |list| first_page(list, &query))?;
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
    Origin(origin): Origin,
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
    Ok(respond::json(StatusCode::OK, &session(&row, now, &origin)))
}

/// GET `/v1/workspaces/{ws}/spark/livySessions` (also `?beta=true`): every item's sessions.
pub(crate) fn list_workspace(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let token = paging.token(
        PageToken::first("workspaceLivySessions", Some(&ws)),
        |list| first_page(list, &query),
    )?;
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
