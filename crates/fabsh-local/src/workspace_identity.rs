//! Workspace identities (`provisionIdentity` / `deprovisionIdentity`): a service principal
//! local Fabric makes for a workspace, kept in the principal store like any other and
//! registered as a managed identity, so it signs in through the identity endpoint by its
//! application (client) id.

use super::api_error::ApiError;
use super::store::identities;
use super::store::principals::{self, Principal};
use super::store::{new_id, workspaces};
use rusqlite::Connection;
use serde_json::{Value, json};

/// The identity as swagger `WorkspaceIdentity` has it: `{applicationId, servicePrincipalId}`.
pub(crate) fn to_wire(principal: &Principal) -> Value {
    json!({
        "applicationId": principal.client_id,
        "servicePrincipalId": principal.id,
    })
}

/// Provisions the workspace's identity, or answers the one it has (provisioning is
/// idempotent, reference/fabric-rest.md §2.16). Its display name is the workspace's, as the
/// service names it, unless another principal has that name.
pub(crate) fn provision(
    conn: &Connection,
    workspace_id: &str,
    now: i64,
) -> Result<Value, ApiError> {
    let workspace = workspaces::get(conn, workspace_id)?
        .ok_or_else(|| ApiError::workspace_not_found(workspace_id))?;
    if let Some(existing) = identities::of_workspace(conn, workspace_id)? {
        return Ok(to_wire(&existing));
    }
    let tenant_id = principals::tenant_ids(conn)?
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::internal("The store has no tenant"))?;
    let display_name = match principals::find_principal(conn, &workspace.display_name)? {
        None => workspace.display_name.clone(),
        Some(_) => format!("{} ({})", workspace.display_name, workspace.id),
    };
    let principal = Principal {
        id: new_id(),
        tenant_id,
        kind: "ServicePrincipal".into(),
        display_name,
        user_principal_name: None,
        client_id: Some(new_id()),
    };
    principals::insert_principal(conn, &principal, None, now)?;
    identities::register(conn, &principal.id, false)?;
    identities::set_workspace_identity(conn, workspace_id, &principal.id)?;
    Ok(to_wire(&principal))
}

/// Removes the workspace's identity, principal and all; nothing to do when it has none.
pub(crate) fn deprovision(conn: &Connection, workspace_id: &str) -> Result<(), ApiError> {
    if workspaces::get(conn, workspace_id)?.is_none() {
        return Err(ApiError::workspace_not_found(workspace_id));
    }
    if let Some(identity) = identities::of_workspace(conn, workspace_id)? {
        principals::delete_principal(conn, &identity.id)?;
    }
    Ok(())
}
