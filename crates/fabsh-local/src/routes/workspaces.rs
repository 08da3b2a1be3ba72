//! `/v1/workspaces[/{ws}]`.

use super::capacities::CAPACITY_REGION;
use super::target::WorkspaceTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, JsonBody, Origin, Query, opt_id, opt_str, req_str};
use crate::state::Shared;
use crate::store::identities;
use crate::store::principals::{self, Role};
use crate::store::{new_id, workspaces as store, workspaces::Workspace};
use crate::workspace_identity;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::wire;
use serde_json::{Map, Value, json};

/// Longest workspace description.
const MAX_DESCRIPTION: usize = 4000;

/// `oneLakeEndpoints` of the swagger's `WorkspaceInfo` (GET workspace): the regional OneLake
/// hosts of [`CAPACITY_REGION`], as the service sends them by default.
fn one_lake_endpoints() -> Value {
    json!({
        "blobEndpoint": "https://centralus-onelake.blob.fabric.microsoft.com",
        "dfsEndpoint": "https://centralus-onelake.dfs.fabric.microsoft.com",
    })
}

/// A workspace as lists and creates show it, or with `detailed` as GET workspace does (the
/// swagger's `WorkspaceInfo`: capacity assignment progress and OneLake endpoints added).
///
/// The service answers a workspace without a capacity (never given one, or unassigned) with
/// its assignment `Completed` and no OneLake endpoints, which are its capacity region's
/// (fabric-cli's test_mkdir_workspace_no_capacity_success and
/// test_unassign_capacity_workspace_success, 2025-09).
fn to_wire(ws: &Workspace, detailed: bool) -> wire::Workspace {
    let mut details = Map::new();
    if detailed {
        details.insert("capacityAssignmentProgress".into(), json!("Completed"));
        if ws.capacity_id.is_some() {
            details.insert("oneLakeEndpoints".into(), one_lake_endpoints());
        }
    }
    wire::Workspace {
        id: ws.id.clone(),
        display_name: ws.display_name.clone(),
        description: Some(ws.description.clone()),
        kind: "Workspace".to_string(),
        capacity_id: ws.capacity_id.clone(),
        capacity_region: ws.capacity_id.as_ref().map(|_| CAPACITY_REGION.to_string()),
        extra: details,
    }
}

/// The 409 for a workspace name already used (case-insensitive). No recording shows this
/// case; 409 with `WorkspaceNameAlreadyExists` is the Power BI-era code clients expect.
fn name_conflict(name: &str) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "WorkspaceNameAlreadyExists",
        format!("Workspace name '{name}' already exists"),
    )
}

fn check_description(description: &str) -> Result<(), ApiError> {
    if description.chars().count() > MAX_DESCRIPTION {
        return Err(ApiError::invalid_body(format!(
            "The description must be at most {MAX_DESCRIPTION} characters"
        )));
    }
    Ok(())
}

/// GET `/v1/workspaces`: the workspaces where the caller holds a role, optionally `roles=`.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let token = paging.token(PageToken::first("workspaces", None), |first| {
        let mut roles = Vec::new();
        for name in query.get("roles").unwrap_or("").split(',') {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            let role =
                Role::parse(name).ok_or_else(|| ApiError::invalid_parameter("roles", name))?;
            roles.push(role.as_str());
        }
        Ok(PageToken {
            extra: (!roles.is_empty()).then(|| roles.join(",")),
            ..first
        })
    })?;
    // The role list comes back inside a client-held token, so it is parsed again.
    let mut roles = Vec::new();
    for name in token
        .extra
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter(|n| !n.is_empty())
    {
        roles.push(
            Role::parse(name)
                .ok_or_else(|| ApiError::invalid_parameter("continuationToken", name))?,
        );
    }
    paging.respond(
        &token,
        |after, limit| {
            state
                .db
                .read(|c| store::list_for(c, &caller.principal_id, &roles, after, limit))
        },
        |(ws, _)| ws.seq,
        |(ws, _)| to_wire(ws, false),
    )
}

/// POST `/v1/workspaces`: 201 with `Location`; the caller becomes Admin.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let obj = body.object()?;
    let name = req_str(&obj, "displayName")?;
    crate::name_rules::check_workspace(&name)?;
    // A workspace made without one has the empty description the service shows.
    let description = opt_str(&obj, "description")?.unwrap_or_default();
    check_description(&description)?;
    let ws = Workspace {
        seq: 0,
        id: new_id(),
        display_name: name,
        description,
        capacity_id: opt_id(&obj, "capacityId")?,
    };
    state.db.write(|tx| {
        if store::name_taken(tx, &ws.display_name, "")? {
            return Err(name_conflict(&ws.display_name));
        }
        store::insert(tx, &ws, now_nanos())?;
        principals::set_role(tx, &ws.id, &caller.principal_id, Role::Admin)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::created(
        &to_wire(&ws, false),
        &format!("{origin}/v1/workspaces/{}", ws.id),
    ))
}

/// GET `/v1/workspaces/{ws}`: with `workspaceIdentity` while one is provisioned (swagger
/// `WorkspaceInfo`; absent before and after, as in
/// recordings/fabric-cli/mkdir__test_mkdir_managed_identity_success.yaml).
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let (found, identity, tags) = state.db.read(|c| {
        let found = store::get(c, &ws)?.ok_or_else(|| ApiError::workspace_not_found(&ws))?;
        let tags = crate::store::workspace_tags::of(c, &ws)?;
        Ok::<_, ApiError>((found, identities::of_workspace(c, &ws)?, tags))
    })?;
    let mut wire = to_wire(&found, true);
    if !tags.is_empty() {
        wire.extra.insert("tags".into(), Value::Array(tags));
    }
    if let Some(identity) = identity {
        wire.extra.insert(
            "workspaceIdentity".into(),
            workspace_identity::to_wire(&identity),
        );
    }
    Ok(respond::json(StatusCode::OK, &wire))
}

/// POST `/v1/workspaces/{ws}/applyTags` `{tags: [id]}` → empty 200 (Admin, as updating the
/// workspace's settings is).
pub(super) fn apply_tags(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    tagging(state, caller, ws, body, true)
}

/// POST `/v1/workspaces/{ws}/unapplyTags` `{tags: [id]}` → empty 200.
pub(super) fn unapply_tags(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    tagging(state, caller, ws, body, false)
}

fn tagging(
    state: Shared,
    caller: Caller,
    ws: String,
    body: JsonBody,
    apply: bool,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    let ids = super::item_links::tag_ids(&body)?;
    state.db.write(|tx| {
        for tag in &ids {
            super::item_links::require_tag(tx, tag)?;
            if apply {
                crate::store::workspace_tags::apply(tx, &ws, tag)?;
            } else {
                crate::store::workspace_tags::unapply(tx, &ws, tag)?;
            }
        }
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::empty_ok())
}

/// PATCH `/v1/workspaces/{ws}`: `displayName`, `description`; other keys ignored. Member+.
/// Answers the workspace as a create does.
pub(super) fn update(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Member)?;
    let obj = body.object()?;
    let name = opt_str(&obj, "displayName")?;
    if let Some(name) = &name {
        if name.trim().is_empty() {
            return Err(ApiError::invalid_body(
                "The 'displayName' field must not be empty",
            ));
        }
        crate::name_rules::check_workspace(name)?;
    }
    let description = opt_str(&obj, "description")?;
    if let Some(d) = &description {
        check_description(d)?;
    }
    let updated = state.db.write(|tx| {
        let mut current = store::get(tx, &ws)?.ok_or_else(|| ApiError::workspace_not_found(&ws))?;
        if let Some(name) = name {
            if store::name_taken(tx, &name, &ws)? {
                return Err(name_conflict(&name));
            }
            current.display_name = name;
        }
        if let Some(d) = description {
            current.description = d;
        }
        store::update(tx, &current)?;
        Ok::<_, ApiError>(current)
    })?;
    // The swagger's `Workspace`, as a create answers it, not GET's `WorkspaceInfo`: the
    // service's PATCH answers no capacity assignment progress or OneLake endpoints (fabric-cli's
    // test_set_workspace_metadata_success, 2025-12-31).
    Ok(respond::json(StatusCode::OK, &to_wire(&updated, false)))
}

/// DELETE `/v1/workspaces/{ws}`: Admin only; removes everything in it.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Admin)?;
    // Its identity goes with it.
    state.db.write(|tx| {
        workspace_identity::deprovision(tx, &ws)?;
        store::delete(tx, &ws)?;
        Ok::<_, ApiError>(())
    })?;
    // Its items' OneLake files go with it.
    crate::onelake::remove_workspace(state.db.data_dir(), &ws).map_err(|err| {
        ApiError::internal(format!("The workspace's files could not be removed: {err}"))
    })?;
    Ok(respond::empty_ok())
}
