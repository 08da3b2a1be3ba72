//! `/v1/workspaces/{ws}/roleAssignments[/{id}]`. An assignment's id is its principal's id.
//! Reading needs Member (as the service documents for listing). Adding needs Member, and a
//! Member may give Member or a lower role only ("Members can add members or others with
//! lower permissions", Add Workspace Role Assignment); changing or removing one needs Admin.

use super::target::{ChildTarget, WorkspaceTarget};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, JsonBody, Origin, norm, req_str};
use crate::state::Shared;
use crate::store::principals::{self, Assignment, Principal, Role};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::wire::{self, RoleAssignment, ServicePrincipalDetails, UserDetails};
use rusqlite::Connection;
use serde_json::{Map, Value};

fn to_wire(a: &Assignment) -> RoleAssignment {
    let p = &a.principal;
    let service_principal = p.kind == "ServicePrincipal";
    RoleAssignment {
        id: p.id.clone(),
        principal: wire::Principal {
            display_name: Some(p.display_name.clone()),
            user_details: (!service_principal).then(|| UserDetails {
                user_principal_name: p.user_principal_name.clone(),
            }),
            service_principal_details: service_principal.then(|| ServicePrincipalDetails {
                aad_app_id: p.client_id.clone(),
            }),
            ..wire::Principal::of(&p.id, &p.kind)
        },
        role: a.role.as_str().to_string(),
        extra: Map::new(),
    }
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "WorkspaceRoleAssignmentNotFound",
        "The requested workspace role assignment was not found",
    )
    .related(id, "WorkspaceRoleAssignment")
}

fn parse_role(obj: &serde_json::Map<String, Value>) -> Result<Role, ApiError> {
    let role = req_str(obj, "role")?;
    Role::parse(&role).ok_or_else(|| ApiError::invalid_body(format!("Unknown role '{role}'")))
}

/// The `principal` of an add request.
struct Requested {
    id: String,
    /// `User`, `ServicePrincipal`, `Group` or `ServicePrincipalProfile` (swagger
    /// `PrincipalType`; `EntireTenant` is no principal a workspace role is given to).
    kind: String,
    /// A profile's parent service principal
    /// (`servicePrincipalProfileDetails.parentPrincipal.id`).
    parent: Option<String>,
}

/// Reads the `principal` of an add request. A `ServicePrincipalProfile` must name its parent
/// service principal (swagger `ServicePrincipalProfilePrincipal`); without one the service
/// answers `WorkspaceRoleNotAllowedForServicePrincipalProfile` (recorded 2025-09,
/// tests/recordings/acls).
fn requested_principal(ws: &str, obj: &Map<String, Value>) -> Result<Requested, ApiError> {
    let principal = obj
        .get("principal")
        .and_then(Value::as_object)
        .ok_or_else(|| ApiError::invalid_body("The 'principal' field is required"))?;
    let id = norm(&req_str(principal, "id")?);
    let kind = req_str(principal, "type")?;
    let parent = match kind.as_str() {
        "User" | "ServicePrincipal" | "Group" => None,
        "ServicePrincipalProfile" => {
            let parent = principal
                .get("servicePrincipalProfileDetails")
                .and_then(|details| details.get("parentPrincipal"))
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    ApiError::principal_refused(
                        "WorkspaceRoleNotAllowedForServicePrincipalProfile",
                        "The provided role cannot be assigned to the provided profile",
                        ws,
                        &id,
                    )
                })?;
            let parent_id = norm(&req_str(parent, "id")?);
            if req_str(parent, "type")? != "ServicePrincipal" {
                return Err(ApiError::invalid_body(
                    "The 'parentPrincipal' of a ServicePrincipalProfile must be a ServicePrincipal",
                ));
            }
            Some(parent_id)
        }
        _ => {
            return Err(ApiError::bad_request(
                "PrincipalTypeNotSupported",
                format!("A workspace role cannot be given to a principal of type '{kind}'"),
            ));
        }
    };
    Ok(Requested { id, kind, parent })
}

/// The principal an add request names, of the type it names: else 400 `PrincipalNotFound`
/// (for a profile, its parent is looked up first). Local Fabric has users and service
/// principals only, so every group and profile is one the tenant does not have.
fn known_principal(tx: &Connection, ws: &str, wanted: &Requested) -> Result<Principal, ApiError> {
    let find = |id: &str, kind: &str| {
        principals::get_principal(tx, id)?
            .filter(|p| p.kind == kind)
            .ok_or_else(|| ApiError::principal_not_found(ws, id))
    };
    if let Some(parent) = &wanted.parent {
        find(parent, "ServicePrincipal")?;
    }
    find(&wanted.id, &wanted.kind)
}

/// GET: a page of assignments.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    paging: Paging,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Member)?;
    let token = paging.token(PageToken::first("roleAssignments", Some(&ws)), Ok)?;
    paging.respond(
        &token,
        |after, limit| {
            state
                .db
                .read(|c| principals::list_assignments(c, &ws, after, limit))
        },
        |a| a.seq,
        to_wire,
    )
}

/// GET one assignment.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Member)?;
    let found = state
        .db
        .read(|c| principals::get_assignment(c, &ws, &id))?
        .ok_or_else(|| not_found(&id))?;
    Ok(respond::json(StatusCode::OK, &to_wire(&found)))
}

/// POST `{principal: {id, type}, role}` → 201.
pub(super) fn add(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let held = caller.workspace(&state, &ws, Role::Member)?;
    let obj = body.object()?;
    let role = parse_role(&obj)?;
    if role > held {
        return Err(ApiError::insufficient_role(role.as_str()));
    }
    let wanted = requested_principal(&ws, &obj)?;
    let created = state.db.write(|tx| {
        let known = known_principal(tx, &ws, &wanted)?;
        if principals::get_assignment(tx, &ws, &known.id)?.is_some() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "PrincipalAlreadyHasWorkspaceRolePermissions",
                "The principal already has a role in this workspace",
            ));
        }
        principals::set_role(tx, &ws, &known.id, role)?;
        principals::get_assignment(tx, &ws, &known.id)?
            .ok_or_else(|| ApiError::internal("The role assignment vanished"))
    })?;
    Ok(respond::created(
        &to_wire(&created),
        &format!(
            "{origin}/v1/workspaces/{ws}/roleAssignments/{}",
            created.principal.id
        ),
    ))
}

/// PATCH `{role}`.
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    let role = parse_role(&body.object()?)?;
    let updated = state.db.write(|tx| {
        principals::get_assignment(tx, &ws, &id)?.ok_or_else(|| not_found(&id))?;
        principals::set_role(tx, &ws, &id, role)?;
        principals::get_assignment(tx, &ws, &id)?.ok_or_else(|| not_found(&id))
    })?;
    Ok(respond::json(StatusCode::OK, &to_wire(&updated)))
}

/// DELETE → empty 200.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    if !state.db.write(|tx| principals::delete_role(tx, &ws, &id))? {
        return Err(not_found(&id));
    }
    Ok(respond::empty_ok())
}
