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

/// The handler of either route: checks that the caller is an Admin of the workspace, then
/// runs the action `action` makes for it (`provision` or `deprovision`).
pub(super) fn handler(
    action: fn(String) -> Action,
) -> impl FnOnce(State<Shared>, Caller, Origin, WorkspaceTarget) -> Result<Response, ApiError>
+ Clone
+ Send
+ Sync
+ 'static {
    move |State(state), caller, Origin(origin), WorkspaceTarget { ws }| {
        caller.workspace(&state, &ws, Role::Admin)?;
        lro::run(&state, &caller, &origin, action(ws), ANSWER)
    }
}

/// Provisions the workspace identity: 200 `{applicationId, servicePrincipalId}` or 202.
pub(super) fn provision(workspace_id: String) -> Action {
    Action::ProvisionWorkspaceIdentity { workspace_id }
}

/// Deprovisions it: an empty 200, or 202 whose operation has no result.
pub(super) fn deprovision(workspace_id: String) -> Action {
    Action::DeprovisionWorkspaceIdentity { workspace_id }
}
