//! Long-running operations: choosing inline vs 202, persisting the pending action, applying it
//! when due (a timer task, or a poll that arrives after the due time — whichever comes first;
//! applying is idempotent), and resuming pending operations after a restart.

use super::actions::Action;
use super::api_error::{ApiError, current_request_id};
use super::auth::Caller;
use super::blocking;
use super::clock::now_nanos;
use super::respond;
use super::state::{AppState, Shared};
use super::store::new_id;
use super::store::operations::{self, FAILED, Operation, PENDING, SUCCEEDED};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use std::time::Duration;

/// What the route wants for an LRO-capable call's inline answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InlineAnswer {
    /// 200 or 201.
    pub status: StatusCode,
    /// Whether to add `ETag: ""` (item creates do, on both 201 and 202).
    pub etag: bool,
    /// Whether the service answers this call 202 (used when `async-ratio` is not given).
    pub service_lro: bool,
}

/// Runs `action` inline or as a 202 operation: as the service does (`inline.service_lro`)
/// unless `async-ratio` is given, then per that share for every call; always inline when the
/// response is going to be lost, so the change is committed first.
pub(crate) fn run(
    state: &Shared,
    caller: &Caller,
    origin: &str,
    action: Action,
    inline: InlineAnswer,
) -> Result<Response, ApiError> {
    let as_operation = match state.faults.async_ratio {
        Some(share) => state.spreads.async_calls.next(share),
        None => inline.service_lro,
    };
    if caller.inline_only || !as_operation {
        return run_inline(state, action, inline);
    }
    let now = now_nanos();
    let duration = i64::try_from(state.faults.lro_ms).unwrap_or(i64::MAX / 2) * 1_000_000;
    let op = Operation {
        id: new_id(),
        principal_id: caller.principal_id.clone(),
        status: PENDING.to_string(),
        created_at: now,
        updated_at: now,
        due_at: now.saturating_add(duration),
        action: Some(
            serde_json::to_string(&action).map_err(|e| ApiError::internal(e.to_string()))?,
        ),
        has_result: action.has_result(),
        result: None,
        error: None,
    };
    state.db.write(|tx| operations::insert(tx, &op))?;
    spawn_completion(state.clone(), op.id.clone(), op.due_at);
    // The docs say a 202 has no body; the recordings show a literal `null`, sent here.
    let mut response = respond::json(StatusCode::ACCEPTED, &serde_json::Value::Null);
    let headers = response.headers_mut();
    set(
        headers,
        header::LOCATION.as_str(),
        &operation_url(origin, &op.id),
    );
    set(headers, "x-ms-operation-id", &op.id);
    set(
        headers,
        header::RETRY_AFTER.as_str(),
        &retry_after(state, duration).to_string(),
    );
    if inline.etag {
        headers.insert(header::ETAG, HeaderValue::from_static("\"\""));
    }
    Ok(response)
}

fn run_inline(state: &Shared, action: Action, inline: InlineAnswer) -> Result<Response, ApiError> {
    let now = now_nanos();
    let result = if action.reads_only() {
        state.db.read(|conn| action.apply(state, conn, now))?
    } else {
        state.db.write(|tx| action.apply(state, tx, now))?
    };
    Ok(match result {
        Some(body) if inline.etag => respond::json_with_etag(inline.status, &body),
        Some(body) => respond::json(inline.status, &body),
        None => respond::empty_ok(),
    })
}

fn set(headers: &mut axum::http::HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// Absolute URL of an operation's state.
pub(crate) fn operation_url(origin: &str, id: &str) -> String {
    format!("{origin}/v1/operations/{id}")
}

/// `Retry-After` of a running operation: the whole seconds of `remaining_nanos` (rounded
/// down), but never less than the `retry-after-seconds` knob (default 1). The service sends
/// whole seconds (20 in the recordings), never 0; a 0 makes clients poll in a tight loop.
pub(crate) fn retry_after(state: &AppState, remaining_nanos: i64) -> i64 {
    let floor = i64::try_from(state.faults.retry_after_seconds).unwrap_or(i64::MAX);
    (remaining_nanos.max(0) / 1_000_000_000).max(floor)
}

/// The wire status of an operation still to run: `Running` throughout, as the recordings show
/// (they never show `NotStarted`).
pub(crate) const RUNNING: &str = "Running";

/// Applies the operation when it comes due, unless the server shuts down first (then the
/// next start resumes it).
pub(crate) fn spawn_completion(state: Shared, id: String, due_at: i64) {
    tokio::spawn(async move {
        let wait = u64::try_from(due_at - now_nanos()).unwrap_or(0);
        tokio::select! {
            () = state.shutdown.cancelled() => {}
            () = tokio::time::sleep(Duration::from_nanos(wait)) => {
                // A failure here leaves the operation pending; the next poll retries it.
                let _ = blocking::run(move || complete(&state, &id)).await;
            }
        }
    });
}

/// Applies a due, pending operation and records the outcome in the same transaction, so the
/// change and the `Succeeded` status commit together. Does nothing if it is not due yet or was
/// already applied (by a timer, a poll, or another process on the same file).
pub(crate) fn complete(state: &AppState, id: &str) -> Result<(), ApiError> {
    state.db.write(|tx| {
        let now = now_nanos();
        let Some(op) = operations::get(tx, id)? else {
            return Ok(());
        };
        if op.status != PENDING || now < op.due_at {
            return Ok(());
        }
        let parsed: Result<Action, _> = serde_json::from_str(op.action.as_deref().unwrap_or(""));
        let outcome = match parsed {
            Ok(action) => {
                // A savepoint lets a failed action roll back its partial changes while the
                // Failed status is still recorded.
                tx.execute_batch("SAVEPOINT apply_action")?;
                let outcome = action.apply(state, tx, now);
                if outcome.is_err() {
                    tx.execute_batch("ROLLBACK TO apply_action")?;
                }
                tx.execute_batch("RELEASE apply_action")?;
                outcome
            }
            Err(e) => Err(ApiError::internal(format!(
                "A stored operation is corrupt: {e}"
            ))),
        };
        match outcome {
            Ok(result) => {
                let result = result.map(|v| v.to_string());
                operations::finish(tx, id, SUCCEEDED, now, result.as_deref(), None)?;
            }
            Err(error) => {
                let body = error.body_text(&current_request_id());
                operations::finish(tx, id, FAILED, now, None, Some(&body))?;
            }
        }
        Ok(())
    })
}

/// Re-arms timers for operations left pending by an earlier run.
pub(crate) async fn resume_pending(state: &Shared) -> Result<usize, ApiError> {
    let store = state.clone();
    let pending = blocking::run(move || store.db.read(operations::pending)).await??;
    let count = pending.len();
    for (id, due_at) in pending {
        spawn_completion(state.clone(), id, due_at);
    }
    Ok(count)
}
