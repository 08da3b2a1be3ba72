//! `/v1/capacities[/{id}]` and a workspace's `assignToCapacity` / `unassignFromCapacity`
//! (swagger platform/swagger.json: `Capacities_ListCapacities`, `Capacities_GetCapacity`,
//! `Workspaces_AssignToCapacity`, `Workspaces_UnassignFromCapacity`).
//!
//! Local Fabric runs no capacities: any `capacityId` a workspace is created with or assigned
//! to stands for an active capacity in [`CAPACITY_REGION`]. The capacities listed are one
//! local capacity, which is always there so that a client can pick one, and every other id a
//! workspace references. Deployment tools (fabric-cicd) refuse a workspace without a
//! capacity, and assign one through these routes.

use super::target::WorkspaceTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::respond::{self, JsonBody, opt_str};
use crate::state::Shared;
use crate::store::principals::Role;
use crate::store::workspaces as store;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

/// The region local Fabric reports for every capacity; the name and the OneLake hosts of
/// workspaces are those recorded for a Central US capacity
/// (bulk_export__test_bulk_export_and_deploy_round_trip.yaml, GET capacities and GET
/// workspace).
pub(crate) const CAPACITY_REGION: &str = "Central US";

/// The capacity every local Fabric lists, whether or not a workspace uses it.
pub(crate) const LOCAL_CAPACITY_ID: &str = "0ca9ac17-0000-4000-8000-00000000fab5";

/// The SKU reported: the one of the recorded capacity (F16).
const SKU: &str = "F16";

/// A capacity as the swagger's `Capacity` shows it.
fn to_wire(id: &str) -> Value {
    let name = if id == LOCAL_CAPACITY_ID {
        "Local capacity".to_string()
    } else {
        format!("Capacity {id}")
    };
    json!({
        "id": id,
        "displayName": name,
        "sku": SKU,
        "region": CAPACITY_REGION,
        "state": "Active",
    })
}

/// The capacities local Fabric knows: the local one first, then those workspaces reference.
fn known(state: &Shared) -> Result<Vec<String>, ApiError> {
    let referenced = state.db.read(store::capacity_ids)?;
    let mut ids = vec![LOCAL_CAPACITY_ID.to_string()];
    ids.extend(referenced.into_iter().filter(|id| id != LOCAL_CAPACITY_ID));
    Ok(ids)
}

/// GET `/v1/capacities`: one page holding every known capacity (a handful at most, so no
/// `continuationToken`).
pub(super) fn list(State(state): State<Shared>, caller: Caller) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let value: Vec<Value> = known(&state)?.iter().map(|id| to_wire(id)).collect();
    Ok(respond::json(StatusCode::OK, &json!({ "value": value })))
}

/// GET `/v1/capacities/{id}`: a known capacity, else 404 `EntityNotFound`.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let id = respond::norm(&id);
    if !known(&state)?.contains(&id) {
        return Err(ApiError::entity_not_found());
    }
    Ok(respond::json(StatusCode::OK, &to_wire(&id)))
}

/// The swagger's 202 for both operations: no body, no `Location` (the assignment is
/// complete at once, as GET workspace's `capacityAssignmentProgress: Completed` says).
fn accepted() -> Response {
    respond::empty(StatusCode::ACCEPTED)
}

/// POST `/v1/workspaces/{ws}/assignToCapacity` `{capacityId}` → 202; workspace Admin, as the
/// swagger requires. Idempotent [FABIO]: assigning the current capacity again is a 202 too.
/// Any well-formed id is accepted, as at workspace creation, and is listed from then on.
pub(super) fn assign(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    let obj = body.object()?;
    let capacity = opt_str(&obj, "capacityId")?
        .ok_or_else(|| ApiError::invalid_body("The 'capacityId' field is required"))?;
    let capacity = uuid::Uuid::parse_str(&capacity)
        .map_err(|_| ApiError::invalid_parameter("capacityId", &capacity))?
        .to_string();
    state.db.write(|tx| {
        store::set_capacity(tx, &ws, Some(&capacity))?;
        Ok::<_, ApiError>(())
    })?;
    Ok(accepted())
}

/// POST `/v1/workspaces/{ws}/unassignFromCapacity` → 202; workspace Admin. The swagger
/// defines no body, so whatever is sent is ignored.
pub(super) fn unassign(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    state.db.write(|tx| {
        store::set_capacity(tx, &ws, None)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(accepted())
}
