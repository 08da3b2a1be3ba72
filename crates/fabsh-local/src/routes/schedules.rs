//! Item schedules (swagger platform `JobScheduler_*ItemSchedule*`) on
//! `…/items/{id}/jobs/{jobType}/schedules[/{scheduleId}]`: list, create (201 with `Location`),
//! get, update (200 with the schedule), delete (empty 200). A body is checked as the swagger's
//! `CreateScheduleRequest` with the limits of `common/job_scheduling.json`; at most 20
//! schedules per item (the reference's limit; `ScheduleExceedsLimit` as the swagger names it).
//! An enabled schedule starts runs as its time comes (`scheduled_runs`); setting a schedule
//! starts its clock afresh, once the runs its old settings owed are recorded.

use super::jobs::check_job_type;
use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::{now_nanos, service_timestamp};
use crate::paging::{PageToken, Paging};
use crate::respond::{self, Origin, RawBody, norm};
use crate::scheduled_runs;
use crate::state::Shared;
use crate::store::jobs::{self, Schedule};
use crate::store::new_id;
use crate::store::principals::Role;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::jobs::{ItemSchedule, ScheduleOwner, ScheduleRequest};
use rusqlite::Connection;
use serde::Deserialize;

/// Most schedules one item may have.
const MAX_SCHEDULES: i64 = 20;

/// The `{job_type}` of the schedules routes (the others are the target's).
#[derive(Deserialize)]
pub(super) struct JobTypePath {
    job_type: String,
}

/// The `{job_type}/{schedule}` of one schedule's routes.
#[derive(Deserialize)]
pub(super) struct SchedulePath {
    job_type: String,
    schedule: String,
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "EntityNotFound",
        format!("The schedule '{id}' was not found"),
    )
}

/// The schedule as the service shows it; `None` (answered as `null`) when its stored
/// configuration no longer parses.
fn wire(schedule: &Schedule) -> Option<ItemSchedule> {
    let configuration = serde_json::from_str(&schedule.configuration).ok()?;
    Some(ItemSchedule {
        id: schedule.id.clone(),
        enabled: schedule.enabled,
        created_date_time: Some(service_timestamp(schedule.created_at)),
        configuration,
        owner: Some(ScheduleOwner {
            id: schedule.owner_id.clone(),
            kind: schedule.owner_type.clone(),
        }),
        execution_data: schedule
            .execution_data
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok()),
    })
}

/// The body as a checked `CreateScheduleRequest` / `UpdateScheduleRequest`.
fn request(body: &RawBody) -> Result<ScheduleRequest, ApiError> {
    let request: ScheduleRequest = serde_json::from_slice(&body.0)
        .map_err(|e| ApiError::invalid_body(format!("The schedule is not valid: {e}")))?;
    if let Some(problem) = request.configuration.problems().into_iter().next() {
        return Err(ApiError::invalid_body(format!(
            "configuration.{}: {}",
            problem.field, problem.message
        )));
    }
    Ok(request)
}

/// The caller as a schedule's owner: its id and `User` / `ServicePrincipal`.
fn owner(conn: &Connection, caller: &Caller) -> Result<(String, String), ApiError> {
    let owner = super::jobs::submitter(conn, caller)?;
    Ok((owner.id, owner.kind))
}

fn to_text<T: serde::Serialize>(value: &T) -> Result<String, ApiError> {
    serde_json::to_string(value).map_err(|e| ApiError::internal(e.to_string()))
}

/// GET `…/jobs/{jobType}/schedules`: a page of the item's schedules of that job type.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
    Path(JobTypePath { job_type }): Path<JobTypePath>,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    check_job_type(&item.item_type, &job_type)?;
    let list = PageToken {
        extra: Some(format!("{}:{job_type}", item.id)),
        ..PageToken::first("schedules", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    paging.respond(
        &token,
        |after, limit| {
            state
                .db
                .read(|c| jobs::list_schedules(c, &item.id, &job_type, after, limit))
        },
        |s| s.seq,
        wire,
    )
}

/// POST `…/jobs/{jobType}/schedules`: 201 with the schedule and its `Location`.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    Path(JobTypePath { job_type }): Path<JobTypePath>,
    body: RawBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let wanted = request(&body)?;
    let schedule = state.db.write(|tx| {
        let item = target.get(tx)?;
        check_job_type(&item.item_type, &job_type)?;
        if jobs::count_schedules(tx, &item.id)? >= MAX_SCHEDULES {
            return Err(ApiError::bad_request(
                "ScheduleExceedsLimit",
                format!("An item may have at most {MAX_SCHEDULES} schedules"),
            ));
        }
        let (owner_id, owner_type) = owner(tx, &caller)?;
        let now = now_nanos();
        let schedule = Schedule {
            seq: 0,
            id: new_id(),
            job_type: job_type.clone(),
            enabled: wanted.enabled,
            configuration: to_text(&wanted.configuration)?,
            execution_data: wanted.execution_data.as_ref().map(to_text).transpose()?,
            owner_id,
            owner_type,
            created_at: now,
            anchor_at: now,
            fired_until: now,
        };
        jobs::insert_schedule(tx, &item.id, &schedule)?;
        Ok::<_, ApiError>(schedule)
    })?;
    let location = format!(
        "{origin}/v1/workspaces/{}/items/{}/jobs/{job_type}/schedules/{}",
        target.ws, target.id, schedule.id
    );
    Ok(respond::created(&wire(&schedule), &location))
}

/// GET `…/jobs/{jobType}/schedules/{scheduleId}`.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(SchedulePath { job_type, schedule }): Path<SchedulePath>,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    let id = norm(&schedule);
    let found = state
        .db
        .read(|c| jobs::get_schedule(c, &item.id, &job_type, &id))?
        .ok_or_else(|| not_found(&id))?;
    Ok(respond::json(StatusCode::OK, &wire(&found)))
}

/// PATCH `…/jobs/{jobType}/schedules/{scheduleId}`: replaces its settings; 200 with it.
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(SchedulePath { job_type, schedule }): Path<SchedulePath>,
    body: RawBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let id = norm(&schedule);
    let wanted = request(&body)?;
    let schedule = state.db.write(|tx| {
        let item = target.get(tx)?;
        let now = now_nanos();
        scheduled_runs::start_due(tx, &state, &item.id, now)?;
        let found =
            jobs::get_schedule(tx, &item.id, &job_type, &id)?.ok_or_else(|| not_found(&id))?;
        let (owner_id, owner_type) = owner(tx, &caller)?;
        let schedule = Schedule {
            anchor_at: now,
            fired_until: now,
            enabled: wanted.enabled,
            configuration: to_text(&wanted.configuration)?,
            execution_data: wanted.execution_data.as_ref().map(to_text).transpose()?,
            owner_id,
            owner_type,
            ..found
        };
        jobs::update_schedule(tx, &schedule)?;
        Ok::<_, ApiError>(schedule)
    })?;
    Ok(respond::json(StatusCode::OK, &wire(&schedule)))
}

/// DELETE `…/jobs/{jobType}/schedules/{scheduleId}`: an empty 200.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(SchedulePath { job_type, schedule }): Path<SchedulePath>,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let id = norm(&schedule);
    state.db.write(|tx| {
        let item = target.get(tx)?;
        scheduled_runs::start_due(tx, &state, &item.id, now_nanos())?;
        jobs::get_schedule(tx, &item.id, &job_type, &id)?.ok_or_else(|| not_found(&id))?;
        jobs::delete_schedule(tx, &id)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::empty_ok())
}
