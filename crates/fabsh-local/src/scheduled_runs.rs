//! The runs item schedules start (swagger platform `ItemJobInstance.invokeType` `Scheduled`).
//! A schedule keeps its own clock: from `anchor_at` (when it was last set) it runs
//! `60000 / --schedule-minute-ms` times as fast as the wall clock, so a test sees a schedule of
//! every minute fire without waiting one; at the default it is the wall clock. Runs are
//! recorded when they are due rather than by a timer: before an item's runs are read or a run
//! is started, every fire time its enabled schedules have passed becomes a run begun at that
//! time. A fire that comes while a run of the same job type is still going on the item is
//! recorded `Deduped`, which the swagger defines as "a job instance of the same job type is
//! already running and this job instance is skipped". A run starts with its schedule's
//! `executionData`, as a run on demand starts with the request's.

use crate::api_error::ApiError;
use crate::routes::jobs::{going_at, new_run};
use crate::state::AppState;
use crate::store::jobs::{self, Run, Schedule, Submitter};
use fabsh_model::jobs::{RunRequest, ScheduleConfig};
use rusqlite::Connection;
use serde_json::{Map, Value};

/// Most runs one schedule starts at once: a server stopped for a week does not owe every
/// run of a schedule of every minute, only the latest.
const MOST_FIRES: usize = 100;

/// Nanoseconds in a second (times are nanoseconds; schedules fire on whole seconds).
const NANOS: i64 = 1_000_000_000;

/// The schedule's clock at wall-clock `now` (nanoseconds).
fn schedule_clock(schedule: &Schedule, now: i64, minute_ms: u64) -> i64 {
    let elapsed = i128::from(now) - i128::from(schedule.anchor_at);
    let scaled = elapsed * 60_000 / i128::from(minute_ms.max(1));
    i64::try_from(i128::from(schedule.anchor_at) + scaled).unwrap_or(i64::MAX)
}

/// The wall-clock time (nanoseconds) of a fire at `second` of the schedule's clock.
fn wall_time(schedule: &Schedule, second: i64, minute_ms: u64) -> i64 {
    let since = i128::from(second) * i128::from(NANOS) - i128::from(schedule.anchor_at);
    let scaled = since * i128::from(minute_ms.max(1)) / 60_000;
    i64::try_from(i128::from(schedule.anchor_at) + scaled).unwrap_or(i64::MAX)
}

/// The request a schedule's runs start with: its `executionData` as a
/// `RunOnDemandItemJobRequest`, or none.
fn run_request(schedule: &Schedule) -> Result<Option<String>, ApiError> {
    let Some(data) = schedule
        .execution_data
        .as_deref()
        .and_then(|text| serde_json::from_str::<Map<String, Value>>(text).ok())
    else {
        return Ok(None);
    };
    let request = RunRequest {
        execution_data: Some(data),
        parameters: None,
    };
    Ok(Some(
        serde_json::to_string(&request).map_err(|e| ApiError::internal(e.to_string()))?,
    ))
}

/// [`start_due`] for a request that only reads runs: the writer is taken only when an
/// enabled schedule's clock has moved past what it has started, so reading the runs of an
/// item without schedules (a client polling a run) stays a read.
pub(crate) fn record_due(state: &AppState, item_id: &str, now: i64) -> Result<(), ApiError> {
    let minute_ms = state.faults.schedule_minute_ms;
    let due = state.db.read(|conn| {
        Ok::<_, ApiError>(
            jobs::enabled_schedules(conn, item_id)?
                .iter()
                .any(|schedule| schedule_clock(schedule, now, minute_ms) > schedule.fired_until),
        )
    })?;
    if due {
        state.db.write(|tx| start_due(tx, state, item_id, now))?;
    }
    Ok(())
}

/// Records the runs the item's enabled schedules have started by `now`, oldest first.
pub(crate) fn start_due(
    conn: &Connection,
    state: &AppState,
    item_id: &str,
    now: i64,
) -> Result<(), ApiError> {
    let minute_ms = state.faults.schedule_minute_ms;
    // (when, job type, the run's request: the schedule's executionData, its owner: who a
    // scheduled run is submitted by).
    let mut fires: Vec<(i64, String, Option<String>, Submitter)> = Vec::new();
    for schedule in jobs::enabled_schedules(conn, item_id)? {
        let clock = schedule_clock(&schedule, now, minute_ms);
        if clock <= schedule.fired_until {
            continue;
        }
        // A configuration is checked before it is stored; one unreadable fires nowhere.
        let request = run_request(&schedule)?;
        if let Ok(config) = serde_json::from_str::<ScheduleConfig>(&schedule.configuration) {
            let after = schedule.fired_until.div_euclid(NANOS);
            let until = clock.div_euclid(NANOS);
            for second in config.fires_between(after, until, MOST_FIRES) {
                fires.push((
                    wall_time(&schedule, second, minute_ms),
                    schedule.job_type.clone(),
                    request.clone(),
                    Submitter {
                        id: schedule.owner_id.clone(),
                        kind: schedule.owner_type.clone(),
                    },
                ));
            }
        }
        jobs::set_fired_until(conn, &schedule.id, clock)?;
    }
    let Some(earliest) = fires.iter().map(|(at, ..)| *at).min() else {
        return Ok(());
    };
    fires.sort();
    let mut going: Vec<Run> = jobs::runs_ending_after(conn, item_id, earliest)?;
    for (at, job_type, request, owner) in fires {
        let mut run = Run {
            request,
            ..new_run(state, item_id, &job_type, "Scheduled", at, owner)?
        };
        if going
            .iter()
            .any(|other| other.job_type == job_type && going_at(other, at))
        {
            run.deduped = true;
            run.start_at = at;
            run.due_at = at;
        }
        jobs::insert_run(conn, &run)?;
        if !run.deduped {
            going.push(run);
        }
    }
    Ok(())
}
