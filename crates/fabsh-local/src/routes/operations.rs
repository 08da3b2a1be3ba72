//! GET `/v1/operations/{id}` and `/v1/operations/{id}/result`.
//!
//! Unknown ids (and operations started by another principal) answer 404 `OperationNotFound`:
//! neither the recordings nor the reference show the service's code for this, so the name
//! follows the `ItemNotFound`/`FolderNotFound` pattern. Asking for the result of an operation
//! still running answers 400 `OperationNotCompleted`, of a failed one 400 `OperationFailed`
//! (also unrecorded); a succeeded operation without a result answers the recorded 400
//! `OperationHasNoResult`.

use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::{now_nanos, service_timestamp};
use crate::lro::{self, operation_url, retry_after};
use crate::respond::{self, Origin, norm};
use crate::state::Shared;
use crate::store::operations::{self, FAILED, Operation, PENDING, SUCCEEDED};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fabsh_model::wire::{ErrorResponse, OperationState, OperationStatus};
use serde_json::Map;

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "OperationNotFound",
        "The requested operation was not found",
    )
    .related(id, "Operation")
}

/// Loads the caller's operation, applying it first if it is due (so a poll after the due time
/// sees the outcome even if the timer has not fired).
fn load(state: &Shared, caller: &Caller, id: &str) -> Result<Operation, ApiError> {
    caller.known(state)?;
    let read = || -> Result<Operation, ApiError> {
        state
            .db
            .read(|c| operations::get(c, id))?
            .filter(|op| op.principal_id == caller.principal_id)
            .ok_or_else(|| not_found(id))
    };
    let op = read()?;
    if op.status == PENDING && now_nanos() >= op.due_at {
        lro::complete(state, id)?;
        return read();
    }
    Ok(op)
}

fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        headers.insert(name, value);
    }
}

/// The operation state, with the recorded headers: while running `Location` (itself) and
/// `Retry-After`; on success with a result `Location` of `/result`; without a result none.
pub(super) fn state(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = norm(&id);
    let op = load(&state, &caller, &id)?;
    let now = now_nanos();
    let url = operation_url(&origin, &id);
    let (status, percent_complete, error) = match op.status.as_str() {
        PENDING => (lro::RUNNING, None, None),
        SUCCEEDED => (SUCCEEDED, Some(100), None),
        // The stored error is an `ApiError`'s body (see `lro`), so it reads back as one.
        _ => (
            FAILED,
            None,
            op.error
                .as_deref()
                .and_then(|e| serde_json::from_str::<ErrorResponse>(e).ok()),
        ),
    };
    let body = OperationState {
        status: OperationStatus::from(status.to_string()),
        created_time_utc: Some(service_timestamp(op.created_at)),
        last_updated_time_utc: Some(service_timestamp(op.updated_at)),
        percent_complete,
        error,
        extra: Map::new(),
    };
    let mut response = respond::json(StatusCode::OK, &body);
    let headers = response.headers_mut();
    match op.status.as_str() {
        PENDING => {
            set(headers, header::LOCATION.as_str(), &url);
            set(
                headers,
                header::RETRY_AFTER.as_str(),
                &retry_after(&state, op.due_at - now).to_string(),
            );
            set(headers, "x-ms-operation-id", &id);
        }
        SUCCEEDED if op.has_result => {
            set(headers, header::LOCATION.as_str(), &format!("{url}/result"));
            set(headers, "x-ms-operation-id", &id);
        }
        SUCCEEDED => {}
        _ => set(headers, "x-ms-operation-id", &id),
    }
    Ok(response)
}

/// The result body of a succeeded operation (`application/json`, as recorded).
pub(super) fn result(
    State(state): State<Shared>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let id = norm(&id);
    let op = load(&state, &caller, &id)?;
    match op.status.as_str() {
        PENDING => Err(ApiError::bad_request(
            "OperationNotCompleted",
            "The operation has not completed yet",
        )),
        SUCCEEDED if op.has_result => {
            let body = op.result.unwrap_or_else(|| "null".to_string());
            let mut response = (StatusCode::OK, body).into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            Ok(response)
        }
        SUCCEEDED => Err(ApiError::bad_request(
            "OperationHasNoResult",
            "The operation has no result",
        )),
        _ => Err(ApiError::bad_request(
            "OperationFailed",
            "The operation failed; its state carries the error",
        )),
    }
}
