//! POST `/v1/workspaces/{ws}/provisionIdentity` and `/deprovisionIdentity`
//! (swagger `Workspaces_ProvisionIdentity`, `Workspaces_DeprovisionIdentity`): Admin only,
//! LROs that the service answers 202 (recordings/fabric-cli/
//! mkdir__test_mkdir_managed_identity_success.yaml).

use super::target::WorkspaceTarget;
use crate::actions::Action;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::lro::{self, InlineAnswer};
use crate::respond::Origin;
use crate::state::Shared;
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;

const ANSWER: InlineAnswer = InlineAnswer {
    status: StatusCode::OK,
    etag: false,
    service_lro: true,
};

/// Provisions the workspace identity: 200 `{applicationId, servicePrincipalId}` or 202.
pub fn provision(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    let action = Action::ProvisionWorkspaceIdentity { workspace_id: ws };
    lro::run(&state, &caller, &origin, action, ANSWER)
}

/// Deprovisions it: an empty 200, or 202 whose operation has no result.
pub fn deprovision(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    let action = Action::DeprovisionWorkspaceIdentity { workspace_id: ws };
    lro::run(&state, &caller, &origin, action, ANSWER)
}
