//! Job runs (swagger platform `JobScheduler_RunOnDemandItemJob`, `GetItemJobInstance`,
//! `ListItemJobInstances`, `CancelItemJobInstance`). A run is a state machine on the server
//! clock: NotStarted for the first tenth of `--job-ms`, InProgress until it ends, then
//! Completed, or Failed with the `--job-failure` reason it was started under; a cancel before
//! the end makes it Cancelled at once. Enabled schedules start runs of their own as their
//! time comes (`scheduled_runs`): before any of an item's runs is read or a new one started,
//! those due are recorded, so the list stays in the order runs began. Nothing is executed: a notebook's code does not run
//! locally (the README says so), a completed run only means the run's lifecycle was followed.
//!
//! Roles: reading runs needs Viewer; running and cancelling need Contributor (the swagger's
//! `Item.Execute.All` scope; the docs give Contributor and up the right to run items).

use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::{now_nanos, service_timestamp};
use crate::paging::{PageToken, Paging};
use crate::respond::{self, Origin, Query, RawBody, norm};
use crate::scheduled_runs;
use crate::state::{AppState, Shared};
use crate::store::jobs::{self, Run, Submitter};
use crate::store::new_id;
use crate::store::principals::{self, Role};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fabsh_model::jobs::{FailureReason, JobInstance, JobStatus, RunRequest, accepts_job_type};
use serde::Deserialize;
use std::collections::HashMap;

/// The code of a failure given without one (`--job-failure "message"`).
const DEFAULT_FAILURE_CODE: &str = "JobInstanceFailed";

/// The status of `run` at `now`, with its start and end times (nanoseconds) when it has them.
pub(crate) fn status_at(run: &Run, now: i64) -> (JobStatus, Option<i64>, Option<i64>) {
    if run.deduped {
        // Skipped when it came: it never started, and ended there.
        return (JobStatus::Deduped, None, Some(run.created_at));
    }
    if let Some(cancelled) = run.cancelled_at.filter(|at| *at < run.due_at) {
        let started = (run.start_at <= cancelled).then_some(run.start_at);
        return (JobStatus::Cancelled, started, Some(cancelled));
    }
    if now < run.start_at {
        (JobStatus::NotStarted, None, None)
    } else if now < run.due_at {
        (JobStatus::InProgress, Some(run.start_at), None)
    } else if run.failure.is_some() {
        (JobStatus::Failed, Some(run.start_at), Some(run.due_at))
    } else {
        (JobStatus::Completed, Some(run.start_at), Some(run.due_at))
    }
}

/// The wire `ItemJobInstance` of `run` at `now`.
pub(crate) fn instance(run: &Run, now: i64) -> JobInstance {
    let (status, start, end) = status_at(run, now);
    let failure_reason = match status {
        JobStatus::Failed => run
            .failure
            .as_deref()
            .and_then(|text| serde_json::from_str::<FailureReason>(text).ok()),
        _ => None,
    };
    JobInstance {
        id: run.id.clone(),
        item_id: run.item_id.clone(),
        job_type: run.job_type.clone(),
        invoke_type: Some(run.invoke_type.clone()),
        status,
        root_activity_id: Some(run.root_activity_id.clone()),
        start_time_utc: start.map(service_timestamp),
        end_time_utc: end.map(service_timestamp),
        failure_reason,
    }
}

/// The `failureReason` the `--job-failure` knob asks for (`Code: message` or a message).
fn failure_reason(knob: &str) -> FailureReason {
    let (code, message) = match knob.split_once(':') {
        Some((code, message))
            if !code.trim().is_empty() && !code.trim().contains(char::is_whitespace) =>
        {
            (code.trim(), message.trim())
        }
        _ => (DEFAULT_FAILURE_CODE, knob.trim()),
    };
    FailureReason {
        error_code: Some(code.to_string()),
        message: Some(message.to_string()),
        request_id: None,
    }
}

/// 400 `InvalidJobType`, as the swagger lists it, unless the item's type takes `job_type`.
pub(crate) fn check_job_type(item_type: &str, job_type: &str) -> Result<(), ApiError> {
    if accepts_job_type(item_type, job_type) == Some(true) {
        return Ok(());
    }
    Err(ApiError::bad_request(
        "InvalidJobType",
        format!("The requested job type '{job_type}' is invalid for an item of type '{item_type}'"),
    ))
}

pub(crate) fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "EntityNotFound",
        format!("The job instance '{id}' was not found"),
    )
}

fn instance_url(origin: &str, target: &ItemTarget, id: &str) -> String {
    format!(
        "{origin}/v1/workspaces/{}/items/{}/jobs/instances/{id}",
        target.ws, target.id
    )
}

/// The `Retry-After` of a run's 202 and of a running instance: the `retry-after-seconds`
/// knob, whole seconds as the service sends them.
fn retry_after(state: &AppState) -> HeaderValue {
    HeaderValue::from(state.faults.retry_after_seconds)
}

fn accepted(state: &AppState, location: &str) -> Response {
    let mut response = (StatusCode::ACCEPTED, Body::empty()).into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(location) {
        headers.insert(header::LOCATION, value);
    }
    headers.insert(header::RETRY_AFTER, retry_after(state));
    // Not a service header: tells clients that this run executes nothing (see the module).
    headers.insert(LIFECYCLE_ONLY, HeaderValue::from_static("true"));
    response
}

/// Set on a run's 202: local Fabric follows the run's lifecycle but executes no code.
const LIFECYCLE_ONLY: &str = "x-fabsh-local-lifecycle-only";

/// The optional run body, parsed as `RunOnDemandItemJobRequest`.
fn run_request(body: &RawBody) -> Result<Option<String>, ApiError> {
    let text = String::from_utf8_lossy(&body.0);
    if text.trim().is_empty() || text.trim() == "null" {
        return Ok(None);
    }
    let request: RunRequest = serde_json::from_slice(&body.0)
        .map_err(|e| ApiError::invalid_body(format!("The run request is not valid: {e}")))?;
    if let Some(problem) = request.problems().into_iter().next() {
        return Err(ApiError::invalid_body(problem));
    }
    Ok(Some(
        serde_json::to_string(&request).map_err(|e| ApiError::internal(e.to_string()))?,
    ))
}

/// The caller as the principal that starts a run or owns a schedule (a principal the store
/// no longer holds is taken for a user, as tokens are issued to users by default).
pub(crate) fn submitter(
    conn: &rusqlite::Connection,
    caller: &Caller,
) -> Result<Submitter, ApiError> {
    let kind = principals::get_principal(conn, &caller.principal_id)?
        .map_or_else(|| "User".to_string(), |p| p.kind);
    Ok(Submitter {
        id: caller.principal_id.clone(),
        kind,
    })
}

/// A new run of `job_type` on the item, begun at `at` by `submitter`: its times from
/// `--job-ms`, its ending from `--job-failure`.
pub(crate) fn new_run(
    state: &AppState,
    item_id: &str,
    job_type: &str,
    invoke_type: &str,
    at: i64,
    submitter: Submitter,
) -> Result<Run, ApiError> {
    let duration = i64::try_from(state.faults.job_ms).unwrap_or(i64::MAX / 4) * 1_000_000;
    let failure = match &state.faults.job_failure {
        Some(knob) => Some(
            serde_json::to_string(&failure_reason(knob))
                .map_err(|e| ApiError::internal(e.to_string()))?,
        ),
        None => None,
    };
    Ok(Run {
        seq: 0,
        id: new_id(),
        item_id: item_id.to_string(),
        job_type: job_type.to_string(),
        invoke_type: invoke_type.to_string(),
        root_activity_id: new_id(),
        created_at: at,
        start_at: at.saturating_add(duration / 10),
        due_at: at.saturating_add(duration),
        cancelled_at: None,
        failure,
        request: None,
        deduped: false,
        submitter: Some(submitter),
    })
}

/// Whether `run` is still going at `at` (begun, not ended, not cancelled): what makes a
/// scheduled run of its job type that comes then Deduped.
pub(crate) fn going_at(run: &Run, at: i64) -> bool {
    !run.deduped
        && run.created_at <= at
        && at < run.due_at
        && run.cancelled_at.is_none_or(|cancelled| cancelled > at)
}

/// POST `…/jobs/instances?jobType=X` and `…/jobs/{jobType}/instances`: 202 with the run's
/// `Location` and `Retry-After`, no body.
pub(crate) fn run(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    Path(params): Path<HashMap<String, String>>,
    query: Query,
    body: RawBody,
) -> Result<Response, ApiError> {
    let job_type = params
        .get("job_type")
        .map(String::as_str)
        .or_else(|| query.get("jobType"))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ApiError::bad_request("InvalidJobType", "The job type is required"))?
        .to_string();
    let item = target.open(&state, &caller, Role::Contributor)?;
    let job_type = super::notebook_runs::route_job_type(&item.item_type, &job_type);
    check_job_type(&item.item_type, &job_type)?;
    let request = run_request(&body)?;
    let now = now_nanos();
    let run = state.db.write(|tx| {
        let run = Run {
            request,
            ..new_run(
                &state,
                &item.id,
                &job_type,
                "Manual",
                now,
                submitter(tx, &caller)?,
            )?
        };
        scheduled_runs::start_due(tx, &state, &item.id, now)?;
        jobs::insert_run(tx, &run)?;
        Ok::<_, ApiError>(run)
    })?;
    Ok(accepted(&state, &instance_url(&origin, &target, &run.id)))
}

/// The `{instance}` of a run's routes (the others are the target's).
#[derive(Deserialize)]
pub(crate) struct InstancePath {
    instance: String,
}

/// GET `…/jobs/instances/{id}`: the run, with `Retry-After` while it runs.
pub(crate) fn show(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(path): Path<InstancePath>,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    let now = now_nanos();
    let run = current_run(&state, &item.id, &path.instance, now)?;
    Ok(run_answer(&state, &run, now, &instance(&run, now)))
}

/// The item's run `instance` as it stands at `now` (runs a schedule made due recorded first);
/// 404 when there is none.
pub(crate) fn current_run(
    state: &Shared,
    item_id: &str,
    instance: &str,
    now: i64,
) -> Result<Run, ApiError> {
    let id = norm(instance);
    scheduled_runs::record_due(state, item_id, now)?;
    state
        .db
        .read(|c| jobs::get_run(c, item_id, &id))?
        .ok_or_else(|| not_found(&id))
}

/// `body`, the answer about `run`, with `Retry-After` while the run is going.
pub(crate) fn run_answer(
    state: &AppState,
    run: &Run,
    now: i64,
    body: &impl serde::Serialize,
) -> Response {
    let mut response = respond::json(StatusCode::OK, body);
    if !status_at(run, now).0.is_final() {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, retry_after(state));
    }
    response
}

/// GET `…/jobs/instances`: a page of the item's runs, newest first.
pub(crate) fn list(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    let list = PageToken {
        extra: Some(item.id.clone()),
        ..PageToken::first("jobInstances", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    let now = now_nanos();
    scheduled_runs::record_due(&state, &item.id, now)?;
    // Newest first: the page key is the negated sequence, so "after" still grows.
    paging.respond(
        &token,
        |after, limit| {
            let before = if after == 0 { i64::MAX } else { -after };
            state
                .db
                .read(|c| jobs::list_runs(c, &item.id, before, limit))
        },
        |run| -run.seq,
        |run| instance(run, now),
    )
}

/// POST `…/jobs/instances/{id}/cancel`: 202 with the run's `Location`; 400
/// `JobAlreadyCompleted` when it has ended.
pub(crate) fn cancel(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    Path(path): Path<InstancePath>,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let id = norm(&path.instance);
    state.db.write(|tx| {
        let item = target.get(tx)?;
        let now = now_nanos();
        scheduled_runs::start_due(tx, &state, &item.id, now)?;
        let run = jobs::get_run(tx, &item.id, &id)?.ok_or_else(|| not_found(&id))?;
        if status_at(&run, now).0.is_final() || !jobs::cancel_run(tx, &run.id, now)? {
            return Err(ApiError::bad_request(
                "JobAlreadyCompleted",
                format!("The job instance '{id}' has already completed and cannot be cancelled"),
            ));
        }
        Ok(())
    })?;
    Ok(accepted(&state, &instance_url(&origin, &target, &id)))
}

/// GET `/_local/jobs/{id}/request`: the body a run was started with, as stored (`null` when
/// it had none): what reached the server, for tests to hold against the swagger.
pub(crate) fn run_request_body(
    State(state): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let run = state
        .db
        .read(|c| jobs::find_run(c, &norm(&id)))?
        .ok_or_else(|| not_found(&id))?;
    let body = run
        .request
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or(serde_json::Value::Null);
    Ok(respond::json(StatusCode::OK, &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_knob_reads_code_and_message() {
        let reason = failure_reason("NotebookFailed: cell 3 raised");
        assert_eq!(reason.error_code.as_deref(), Some("NotebookFailed"));
        assert_eq!(reason.message.as_deref(), Some("cell 3 raised"));
        let plain = failure_reason("disk full: no space");
        assert_eq!(plain.error_code.as_deref(), Some(DEFAULT_FAILURE_CODE));
        assert_eq!(plain.message.as_deref(), Some("disk full: no space"));
    }

    #[test]
    fn a_run_moves_on_with_the_clock() {
        let run = Run {
            seq: 1,
            id: "r".into(),
            item_id: "i".into(),
            job_type: "RunNotebook".into(),
            invoke_type: "Manual".into(),
            root_activity_id: "a".into(),
            created_at: 0,
            start_at: 10,
            due_at: 100,
            cancelled_at: None,
            failure: None,
            request: None,
            deduped: false,
            submitter: None,
        };
        assert_eq!(status_at(&run, 5).0, JobStatus::NotStarted);
        assert_eq!(status_at(&run, 50).0, JobStatus::InProgress);
        assert_eq!(status_at(&run, 100).0, JobStatus::Completed);
        let cancelled = Run {
            cancelled_at: Some(60),
            ..run
        };
        assert_eq!(
            status_at(&cancelled, 200),
            (JobStatus::Cancelled, Some(10), Some(60))
        );
    }
}
