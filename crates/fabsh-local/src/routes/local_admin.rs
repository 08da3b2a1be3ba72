//! `/_local/*`: the request log and admin routes, for the seeded admin user's bearer alone
//! ([`admin_only`] guards them all). Faults never apply here.

use crate::admin;
use crate::api_error::ApiError;
use crate::auth::{self, Caller};
use crate::authority;
use crate::blocking;
use crate::respond::{self, JsonBody, LargeJsonBody, opt_str, req_str};
use crate::state::Shared;
use crate::store::principals;
use axum::extract::{FromRequestParts, Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// Longest lifetime `/_local/tokens` hands out: 30 days.
const MAX_TOKEN_SECONDS: i64 = 30 * 24 * 3600;

/// Refuses anyone but the seeded admin user: 401 without a valid token, 403 for others.
fn require_admin(state: &Shared, caller: &Caller) -> Result<(), ApiError> {
    caller.known(state)?;
    if caller.principal_id == state.admin_id {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "InsufficientPrivileges",
            "Only the local admin may use this route",
        ))
    }
}

/// The layer in front of every admin route.
pub(super) async fn admin_only(
    State(state): State<Shared>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let checked = match Caller::from_request_parts(&mut parts, &state).await {
        Ok(caller) => blocking::run(move || require_admin(&state, &caller))
            .await
            .and_then(|checked| checked),
        Err(refusal) => Err(refusal),
    };
    match checked {
        Ok(()) => next.run(Request::from_parts(parts, body)).await,
        Err(refusal) => refusal.into_response(),
    }
}

/// `expiresInSeconds` of a token request: up to 30 days, negative for an expired token.
fn lifetime(obj: &Map<String, Value>, default: i64) -> Result<i64, ApiError> {
    match obj.get("expiresInSeconds") {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_i64()
            .filter(|s| *s <= MAX_TOKEN_SECONDS)
            .ok_or_else(|| {
                ApiError::invalid_body("'expiresInSeconds' must be a whole number up to 30 days")
            }),
    }
}

/// POST `/_local/shutdown` (admin): stops the server once in-flight requests finish
/// (`fabsh local stop`).
pub(super) fn shutdown(State(state): State<Shared>) -> Result<Response, ApiError> {
    state.shutdown.cancel();
    Ok(respond::json(
        StatusCode::ACCEPTED,
        &json!({"stopping": true}),
    ))
}

/// The header naming whose requests `GET /_local/requests` answers: a bearer token.
const REQUESTS_OF: &str = "x-local-requests-of";

/// GET `/_local/requests`: how many API requests were served and the last 2000 of them; with
/// `X-Local-Requests-Of: <token>`, only those sent with that token.
pub(super) fn requests(State(state): State<Shared>, headers: HeaderMap) -> Response {
    let of_token = headers.get(REQUESTS_OF).and_then(|v| v.to_str().ok());
    respond::json(StatusCode::OK, &state.requests.to_json(of_token))
}

/// GET `/_local/tenants`: the two tenant ids (tests need the second one).
pub(super) fn tenants(State(state): State<Shared>) -> Response {
    respond::json(
        StatusCode::OK,
        &json!({"defaultTenantId": state.default_tenant, "secondTenantId": state.second_tenant}),
    )
}

/// POST `/_local/principals` `{name, workspace?, role?, certificate?, federatedSubject?,
/// tenant?, managedIdentity?, vmIdentity?}` → the new credentials (201). `certificate` is PEM
/// text; `tenant` is `default`, `second` or a tenant id.
pub(super) fn add_principal(
    State(state): State<Shared>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let obj = body.object()?;
    let name = req_str(&obj, "name")?;
    let workspace = opt_str(&obj, "workspace")?;
    let role = opt_str(&obj, "role")?;
    let certificate = opt_str(&obj, "certificate")?;
    let federated_subject = opt_str(&obj, "federatedSubject")?;
    let tenant = opt_str(&obj, "tenant")?;
    let flag = |key: &str| match obj.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(value)) => Ok(*value),
        Some(_) => Err(ApiError::invalid_body(format!(
            "'{key}' must be true or false"
        ))),
    };
    let new = admin::NewPrincipal {
        name: &name,
        workspace: workspace.as_deref(),
        role: role.as_deref(),
        certificate_pem: certificate.as_deref(),
        federated_subject: federated_subject.as_deref(),
        tenant: tenant.as_deref(),
        managed_identity: flag("managedIdentity")?,
        vm_identity: flag("vmIdentity")?,
    };
    let created = admin::add_principal_in(&state.db, &new)?;
    Ok(respond::json(StatusCode::CREATED, &created))
}

/// GET `/_local/principals`.
pub(super) fn list_principals(State(state): State<Shared>) -> Result<Response, ApiError> {
    Ok(respond::json(
        StatusCode::OK,
        &admin::list_principals_in(&state.db)?,
    ))
}

/// DELETE `/_local/principals/{name or id}`.
pub(super) fn remove_principal(
    State(state): State<Shared>,
    Path(key): Path<String>,
) -> Result<Response, ApiError> {
    admin::remove_principal_in(&state.db, &state.admin_id, &key)?;
    Ok(respond::empty_ok())
}

/// POST `/_local/tokens` `{principal?, expiresInSeconds?, audience?}`: a token for any
/// principal (the admin when omitted) with any lifetime up to 30 days; a negative lifetime
/// gives an already expired token, for testing refresh on `TokenExpired`. `audience`
/// `"storage"` gives a token for Azure Storage (OneLake's files), `"fabric"` (the default)
/// one for the Fabric API.
pub(super) fn issue_token(
    State(state): State<Shared>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let obj = body.object()?;
    let key = opt_str(&obj, "principal")?.unwrap_or_else(|| state.admin_id.clone());
    let ttl = lifetime(&obj, 3599)?;
    let audience = match opt_str(&obj, "audience")?.as_deref() {
        None | Some("fabric") => auth::AUDIENCE,
        Some("storage") => auth::STORAGE_AUDIENCE,
        Some(other) => return Err(ApiError::invalid_parameter("audience", other)),
    };
    let principal = state
        .db
        .read(|c| principals::find_principal(c, &key))?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "PrincipalNotFound",
                format!("No principal '{key}'"),
            )
        })?;
    let token = auth::issue_for(&state.keys, &principal, ttl, audience);
    Ok(respond::json(
        StatusCode::OK,
        &json!({"token_type": "Bearer", "expires_in": ttl, "access_token": token}),
    ))
}

/// POST `/_local/demo-workspaces` `{displayName}`: a copy of the Demo workspace as first start
/// seeds it, its lakehouse with the demo dataset of its own (201 `{id, displayName}`). Tests
/// that change the demo items share one server, each in a copy of its own.
pub(super) fn demo_copy(State(state): State<Shared>, body: JsonBody) -> Result<Response, ApiError> {
    let obj = body.object()?;
    let name = req_str(&obj, "displayName")?;
    let ws = crate::seed::demo_copy(&state.db, &state.admin_id, &name)?;
    Ok(respond::json(
        StatusCode::CREATED,
        &json!({"id": ws.id, "displayName": ws.display_name}),
    ))
}

/// POST `/_local/federated-tokens` `{subject, expiresInSeconds?}`: a token of the local OIDC
/// issuer for `subject`, as a CI system would hand a job for workload identity federation.
pub(super) fn issue_federated_token(
    State(state): State<Shared>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let obj = body.object()?;
    let subject = req_str(&obj, "subject")?;
    let ttl = lifetime(&obj, 3600)?;
    let token = authority::issue_federated(&state.keys, &subject, ttl);
    Ok(respond::json(
        StatusCode::OK,
        &json!({"token": token, "issuer": authority::LOCAL_ISSUER, "audience": authority::FEDERATED_AUDIENCE}),
    ))
}

/// POST `/_local/tables` `{workspace, item, table, csv}`: loads CSV text into a table of a
/// lakehouse or warehouse (`fabsh local load-table` against a running server).
pub(super) fn load_table(
    State(state): State<Shared>,
    body: LargeJsonBody,
) -> Result<Response, ApiError> {
    let obj = body.object()?;
    let loaded = crate::load_table::load_table_in(
        &state.db,
        &req_str(&obj, "workspace")?,
        &req_str(&obj, "item")?,
        &req_str(&obj, "table")?,
        req_str(&obj, "csv")?.as_bytes(),
    )?;
    Ok(respond::json(StatusCode::OK, &loaded))
}
